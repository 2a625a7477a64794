//! Shortens the names the shipped wasm and its JS glue know each other by.
//!
//! wasm-bindgen names every import `__wbg_<name>_<16 hex digits>` and every closure shim export
//! after its full Rust signature (up to 300 characters). Each name is written twice, in the wasm's
//! import or export section and in the glue, and the hashes do not compress. After wasm-pack (and
//! wasm-opt) this renames them to one or two letters in the wasm and in every file of the target's
//! folder: imports wherever the glue names them (only in the table of functions it hands the
//! wasm), exports only where the glue reads them (`wasm.<name>`) and where the declarations list
//! them (`ExportSites`). `memory` keeps its name: of the exports `init()` hands back, it is the one
//! a user has reason to read; the others are the glue's own plumbing. The module every import
//! names (`./<crate>_bg.js`, once per import) becomes `w` where the glue only hands the imports
//! over under that name (web and nodejs targets); a bundler imports that file by it, so the
//! bundler target keeps it.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// The export that keeps its name (see the module comment).
const KEPT_EXPORT: &str = "memory";

/// The imports' module where the glue only names it as the key of the imports it hands over.
const SHORT_MODULE: &str = "w";

/// Reserved words short enough to be generated; a bundler target declares imports as functions.
const RESERVED: [&str; 8] = ["do", "if", "in", "for", "let", "new", "try", "var"];

const IMPORT_SECTION: u8 = 2;
const EXPORT_SECTION: u8 = 7;
const FUNCTION_IMPORT: u8 = 0;

/// What one target's renaming did, for the build log.
pub struct Shortened {
    pub imports: usize,
    pub exports: usize,
    pub bytes_before: usize,
    pub bytes_after: usize,
}

/// Renames the bindings of `<dir>/<crate_name>_bg.wasm` and of the `.js` and `.d.ts` files beside it.
pub fn shorten(dir: &Path, crate_name: &str) -> Result<Shortened, String> {
    let wasm_path = dir.join(format!("{crate_name}_bg.wasm"));
    let wasm = std::fs::read(&wasm_path)
        .map_err(|error| format!("cannot read {}: {error}", wasm_path.display()))?;
    let mut glue = Vec::new();
    for entry in std::fs::read_dir(dir).map_err(|error| format!("{}: {error}", dir.display()))? {
        let path = entry.map_err(|error| error.to_string())?.path();
        let name = path.file_name().unwrap_or_default().to_string_lossy();
        if name.ends_with(".js") || name.ends_with(".d.ts") {
            let text = std::fs::read_to_string(&path)
                .map_err(|error| format!("cannot read {}: {error}", path.display()))?;
            glue.push((path, text));
        }
    }
    let module = Module::parse(&wasm)?;
    let mut taken: BTreeSet<String> = glue
        .iter()
        .flat_map(|(_, text)| identifiers(text).map(|(_, token)| token.to_owned()))
        .collect();
    let imports = short_names(module.imports.iter().map(|import| import.field), &mut taken);
    let exports = short_names(
        module
            .exports
            .iter()
            .map(|export| export.name)
            .filter(|name| *name != KEPT_EXPORT),
        &mut taken,
    );
    if let Some(missing) = imports
        .keys()
        .find(|name| !glue.iter().any(|(_, text)| text.contains(name.as_str())))
    {
        return Err(format!(
            "the glue in {} never names the import {missing}",
            dir.display()
        ));
    }
    if let Some(both) = imports.keys().find(|name| exports.contains_key(*name)) {
        return Err(format!(
            "{both} is both an import and an export of the wasm"
        ));
    }
    let import_module = module.imports.first().map(|import| import.module);
    let module_rename = import_module.filter(|name| only_an_imports_key(name, &glue));
    let mut renamed_glue = Vec::with_capacity(glue.len());
    for (path, text) in &glue {
        let sites = ExportSites::of(&path.file_name().unwrap_or_default().to_string_lossy());
        let mut renamed = rename_in_glue(text, &imports, &exports, sites);
        if let Some(name) = module_rename {
            renamed = renamed.replace(&format!("\"{name}\":"), &format!("\"{SHORT_MODULE}\":"));
        }
        // An export read in any other way than `wasm.<name>` would be left pointing at nothing;
        // `exports.<name> = …` lines are the nodejs target's public CommonJS exports.
        let unrenamed = identifiers(&renamed).find(|&(start, token)| {
            let before = &renamed[..start];
            exports.contains_key(token) && before.ends_with('.') && !before.ends_with("\nexports.")
        });
        if let Some((_, token)) = unrenamed {
            return Err(format!(
                "{} reads the export {token} other than as `wasm.{token}`",
                path.display()
            ));
        }
        renamed_glue.push((path, renamed));
    }
    let shortened = module.renamed(&imports, &exports, module_rename);
    for (path, text) in renamed_glue {
        std::fs::write(path, text)
            .map_err(|error| format!("cannot write {}: {error}", path.display()))?;
    }
    std::fs::write(&wasm_path, &shortened)
        .map_err(|error| format!("cannot write {}: {error}", wasm_path.display()))?;
    Ok(Shortened {
        imports: imports.len(),
        exports: exports.len(),
        bytes_before: wasm.len(),
        bytes_after: shortened.len(),
    })
}

/// Whether the glue names the imports' module `name` only as an object key (`"name": import0`,
/// the object of imports the web and nodejs targets hand to the instance), and at least once.
fn only_an_imports_key(name: &str, glue: &[(std::path::PathBuf, String)]) -> bool {
    let quoted = format!("\"{name}\"");
    let as_key = format!("{quoted}:");
    let (mut named, mut keys) = (0, 0);
    for (_, text) in glue {
        named += text.matches(&quoted).count();
        keys += text.matches(&as_key).count();
    }
    named > 0 && named == keys
}

/// Gives each name the next short identifier that no glue file uses and no earlier name took.
fn short_names<'a>(
    names: impl IntoIterator<Item = &'a str>,
    taken: &mut BTreeSet<String>,
) -> BTreeMap<String, String> {
    let mut counter = 0;
    let mut renames = BTreeMap::new();
    for name in names {
        let short = loop {
            let candidate = nth_identifier(counter);
            counter += 1;
            if !taken.contains(&candidate) && !RESERVED.contains(&candidate.as_str()) {
                break candidate;
            }
        };
        taken.insert(short.clone());
        renames.insert(name.to_owned(), short);
    }
    renames
}

/// The n-th JS identifier in order of length: `a`…`Z`, then a letter and a letter or digit.
fn nth_identifier(mut n: usize) -> String {
    const FIRST: &[u8] = b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ";
    const REST: &[u8] = b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
    let mut length = 1;
    let mut count = FIRST.len();
    while n >= count {
        n -= count;
        length += 1;
        count *= REST.len();
    }
    let mut name = String::with_capacity(length);
    name.push(FIRST[n % FIRST.len()] as char);
    n /= FIRST.len();
    for _ in 1..length {
        name.push(REST[n % REST.len()] as char);
        n /= REST.len();
    }
    name
}

fn is_identifier_byte(byte: u8) -> bool {
    byte.is_ascii_alphanumeric() || byte == b'_' || byte == b'$'
}

/// Every identifier-like token of `text` with its byte offset.
fn identifiers(text: &str) -> impl Iterator<Item = (usize, &str)> {
    let bytes = text.as_bytes();
    let mut position = 0;
    std::iter::from_fn(move || {
        while position < bytes.len() && !is_identifier_byte(bytes[position]) {
            position += 1;
        }
        let start = position;
        while position < bytes.len() && is_identifier_byte(bytes[position]) {
            position += 1;
        }
        (start < position).then(|| (start, &text[start..position]))
    })
}

/// Where a glue file names the wasm's exports. A public function or type may share an export's
/// name (`version`, `buildToolNames`), so exports are renamed only at these sites.
#[derive(Clone, Copy)]
enum ExportSites {
    /// Scripts read them from the instance: `wasm.<name>`.
    InstanceReads,
    /// `<crate>_bg.wasm.d.ts` declares each: `export const <name>:`.
    WasmDeclarations,
    /// The public declarations list them as `readonly <name>:` in `interface InitOutput` (the
    /// web target's `init()` result), and nowhere else.
    InitOutput,
}

impl ExportSites {
    fn of(file_name: &str) -> ExportSites {
        if file_name.ends_with("_bg.wasm.d.ts") {
            ExportSites::WasmDeclarations
        } else if file_name.ends_with(".d.ts") {
            ExportSites::InitOutput
        } else {
            ExportSites::InstanceReads
        }
    }
}

/// Renames imports wherever they appear and exports at `sites`.
fn rename_in_glue(
    text: &str,
    imports: &BTreeMap<String, String>,
    exports: &BTreeMap<String, String>,
    sites: ExportSites,
) -> String {
    let init_output = text.find("export interface InitOutput {").map(|start| {
        let end = text[start..]
            .find("\n}")
            .map_or(text.len(), |end| start + end);
        start..end
    });
    let mut renamed = String::with_capacity(text.len());
    let mut copied = 0;
    for (start, token) in identifiers(text) {
        let before = &text[..start];
        let export_site = match sites {
            ExportSites::InstanceReads => before
                .strip_suffix("wasm.")
                .is_some_and(|object| !object.bytes().next_back().is_some_and(is_identifier_byte)),
            ExportSites::WasmDeclarations => before.ends_with("export const "),
            ExportSites::InitOutput => {
                before.ends_with("readonly ")
                    && init_output
                        .as_ref()
                        .is_some_and(|block| block.contains(&start))
            }
        };
        let replacement = imports
            .get(token)
            .or_else(|| export_site.then(|| exports.get(token)).flatten());
        if let Some(short) = replacement {
            renamed.push_str(&text[copied..start]);
            renamed.push_str(short);
            copied = start + token.len();
        }
    }
    renamed.push_str(&text[copied..]);
    renamed
}

/// A wasm module read once: its sections as they are, and the entries of its import and export
/// sections, from which the renamed module is written.
struct Module<'a> {
    sections: Vec<(u8, &'a [u8])>,
    imports: Vec<Import<'a>>,
    exports: Vec<Export<'a>>,
}

impl<'a> Module<'a> {
    fn parse(wasm: &'a [u8]) -> Result<Module<'a>, String> {
        if wasm.len() < 8 || &wasm[..4] != b"\0asm" || wasm[4..8] != [1, 0, 0, 0] {
            return Err("not a version 1 wasm module".to_owned());
        }
        let mut reader = Reader::new(&wasm[8..]);
        let mut module = Module {
            sections: Vec::new(),
            imports: Vec::new(),
            exports: Vec::new(),
        };
        while !reader.at_end() {
            let id = reader.byte()?;
            let length = reader.leb128()?;
            let body = reader.take(length)?;
            match id {
                IMPORT_SECTION => module.imports = read_entries(body, "import", Import::read)?,
                EXPORT_SECTION => module.exports = read_entries(body, "export", Export::read)?,
                _ => {}
            }
            module.sections.push((id, body));
        }
        Ok(module)
    }

    /// The module with its import and export names replaced, and the imports of the module
    /// `module_rename` names importing from [`SHORT_MODULE`]; every other byte as it was.
    fn renamed(
        &self,
        import_names: &BTreeMap<String, String>,
        export_names: &BTreeMap<String, String>,
        module_rename: Option<&str>,
    ) -> Vec<u8> {
        let mut output = b"\0asm\x01\0\0\0".to_vec();
        for &(id, body) in &self.sections {
            let body = match id {
                IMPORT_SECTION => write_entries(&self.imports, |section, import| {
                    let module = match module_rename {
                        Some(renamed) if renamed == import.module => SHORT_MODULE,
                        _ => import.module,
                    };
                    push_name(section, module.as_bytes());
                    push_name(section, new_name(import_names, import.field));
                    section.extend_from_slice(import.description);
                }),
                EXPORT_SECTION => write_entries(&self.exports, |section, export| {
                    push_name(section, new_name(export_names, export.name));
                    section.extend_from_slice(export.description);
                }),
                _ => body.to_vec(),
            };
            output.push(id);
            output.extend(leb128(body.len()));
            output.extend(body);
        }
        output
    }
}

struct Import<'a> {
    module: &'a str,
    field: &'a str,
    /// The kind byte and the type index, copied as they are.
    description: &'a [u8],
}

impl<'a> Import<'a> {
    fn read(reader: &mut Reader<'a>) -> Result<Import<'a>, String> {
        let module = reader.name()?;
        let field = reader.name()?;
        let start = reader.position;
        let kind = reader.byte()?;
        if kind != FUNCTION_IMPORT {
            return Err(format!(
                "import {module}.{field} is of kind {kind}; only function imports are expected"
            ));
        }
        reader.leb128()?;
        Ok(Import {
            module,
            field,
            description: reader.since(start),
        })
    }
}

struct Export<'a> {
    name: &'a str,
    /// The kind byte and the index, copied as they are.
    description: &'a [u8],
}

impl<'a> Export<'a> {
    fn read(reader: &mut Reader<'a>) -> Result<Export<'a>, String> {
        let name = reader.name()?;
        let start = reader.position;
        reader.byte()?;
        reader.leb128()?;
        Ok(Export {
            name,
            description: reader.since(start),
        })
    }
}

/// `name` as renamed, or as it was.
fn new_name<'n>(renames: &'n BTreeMap<String, String>, name: &'n str) -> &'n [u8] {
    renames.get(name).map_or(name, String::as_str).as_bytes()
}

/// A section's vector of entries: their count, then each as `read` reads it, and nothing after.
fn read_entries<'a, T>(
    body: &'a [u8],
    section: &str,
    read: fn(&mut Reader<'a>) -> Result<T, String>,
) -> Result<Vec<T>, String> {
    let mut reader = Reader::new(body);
    let count = reader.leb128()?;
    let entries = (0..count)
        .map(|_| read(&mut reader))
        .collect::<Result<Vec<T>, String>>()?;
    if !reader.at_end() {
        return Err(format!(
            "the {section} section has bytes after its last entry"
        ));
    }
    Ok(entries)
}

/// A section's vector of entries: their count, then each as `write` writes it.
fn write_entries<T>(entries: &[T], write: impl Fn(&mut Vec<u8>, &T)) -> Vec<u8> {
    let mut section = leb128(entries.len());
    for entry in entries {
        write(&mut section, entry);
    }
    section
}

struct Reader<'a> {
    bytes: &'a [u8],
    position: usize,
}

impl<'a> Reader<'a> {
    fn new(bytes: &'a [u8]) -> Reader<'a> {
        Reader { bytes, position: 0 }
    }

    fn at_end(&self) -> bool {
        self.position == self.bytes.len()
    }

    /// The bytes read since `start`.
    fn since(&self, start: usize) -> &'a [u8] {
        &self.bytes[start..self.position]
    }

    fn byte(&mut self) -> Result<u8, String> {
        Ok(self.take(1)?[0])
    }

    fn take(&mut self, length: usize) -> Result<&'a [u8], String> {
        let end = self
            .position
            .checked_add(length)
            .filter(|&end| end <= self.bytes.len())
            .ok_or("the wasm module ends early")?;
        let taken = &self.bytes[self.position..end];
        self.position = end;
        Ok(taken)
    }

    /// An unsigned LEB128 number of at most 32 bits, as every length and index is.
    fn leb128(&mut self) -> Result<usize, String> {
        let mut value = 0usize;
        for shift in (0..35).step_by(7) {
            let byte = self.byte()?;
            value |= usize::from(byte & 0x7f) << shift;
            if byte & 0x80 == 0 {
                return Ok(value);
            }
        }
        Err("a LEB128 number in the wasm module is longer than 5 bytes".to_owned())
    }

    fn name(&mut self) -> Result<&'a str, String> {
        let length = self.leb128()?;
        std::str::from_utf8(self.take(length)?)
            .map_err(|_| "a name in the wasm module is not UTF-8".to_owned())
    }
}

fn leb128(mut value: usize) -> Vec<u8> {
    let mut bytes = Vec::new();
    loop {
        let low = (value & 0x7f) as u8;
        value >>= 7;
        if value == 0 {
            bytes.push(low);
            return bytes;
        }
        bytes.push(low | 0x80);
    }
}

fn push_name(section: &mut Vec<u8>, name: &[u8]) {
    section.extend(leb128(name.len()));
    section.extend_from_slice(name);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn section(id: u8, body: &[u8]) -> Vec<u8> {
        let mut bytes = vec![id];
        bytes.extend(leb128(body.len()));
        bytes.extend_from_slice(body);
        bytes
    }

    /// A module importing one function `wbg.<import>` of type `() -> ()` and exporting it as `<export>`.
    fn module(import: &str, import_kind: u8, export: &str) -> Vec<u8> {
        module_from("wbg", import, import_kind, export)
    }

    /// [`module`] with the import from `import_module`.
    fn module_from(import_module: &str, import: &str, import_kind: u8, export: &str) -> Vec<u8> {
        let mut wasm = b"\0asm\x01\0\0\0".to_vec();
        wasm.extend(section(1, &[1, 0x60, 0, 0]));
        let mut imports = leb128(1);
        push_name(&mut imports, import_module.as_bytes());
        push_name(&mut imports, import.as_bytes());
        imports.extend([import_kind, 0]);
        wasm.extend(section(IMPORT_SECTION, &imports));
        let mut exports = leb128(1);
        push_name(&mut exports, export.as_bytes());
        exports.extend([0, 0]);
        wasm.extend(section(EXPORT_SECTION, &exports));
        wasm
    }

    fn renames(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
        pairs
            .iter()
            .map(|(old, new)| (old.to_string(), new.to_string()))
            .collect()
    }

    #[test]
    fn generated_names_are_distinct_identifiers_shortest_first() {
        let names: Vec<String> = (0..52 + 52 * 62 + 5).map(nth_identifier).collect();
        assert_eq!(names[0], "a");
        assert_eq!(names[51], "Z");
        assert_eq!(names[52], "aa");
        assert_eq!(names[52 + 52 * 62 - 1].len(), 2);
        assert_eq!(names[52 + 52 * 62].len(), 3);
        assert!(names.iter().all(|name| {
            name.as_bytes()[0].is_ascii_alphabetic() && name.bytes().all(is_identifier_byte)
        }));
        assert_eq!(names.iter().collect::<BTreeSet<_>>().len(), names.len());
    }

    #[test]
    fn short_names_skip_what_the_glue_uses_and_reserved_words() {
        let mut taken: BTreeSet<String> = ["a", "b"].map(String::from).into();
        let names: Vec<String> = (0..60).map(|i| format!("long_{i}")).collect();
        let renamed = short_names(names.iter().map(String::as_str), &mut taken);
        assert_eq!(renamed["long_0"], "c");
        let shorts: BTreeSet<&String> = renamed.values().collect();
        assert_eq!(shorts.len(), 60);
        assert!(!shorts
            .iter()
            .any(|name| ["a", "b", "do", "if", "in"].contains(&name.as_str())));
        assert!(renamed.values().all(|name| taken.contains(name)));
    }

    #[test]
    fn exports_are_renamed_only_where_the_instance_is_read_or_declared() {
        let imports = renames(&[("__wbg_fetch_0123456789abcdef", "q")]);
        let exports = renames(&[("version", "v"), ("agent_run", "r")]);
        let glue = "export function version() { return wasm.version(); }\n\
                    const x = notwasm.version; wasm.agent_run(1);\n\
                    imports.wbg.__wbg_fetch_0123456789abcdef = function() {};\n";
        assert_eq!(
            rename_in_glue(glue, &imports, &exports, ExportSites::of("x.js")),
            "export function version() { return wasm.v(); }\n\
             const x = notwasm.version; wasm.r(1);\n\
             imports.wbg.q = function() {};\n"
        );
        let wasm_declarations =
            "export const version: () => void;\nexport function version(): string;\n";
        assert_eq!(
            rename_in_glue(
                wasm_declarations,
                &imports,
                &exports,
                ExportSites::of("x_bg.wasm.d.ts")
            ),
            "export const v: () => void;\nexport function version(): string;\n"
        );
        let public = "export interface Info {\n    readonly version: string;\n}\n\
                      export interface InitOutput {\n    readonly agent_run: () => void;\n}\n\
                      export interface Later {\n    readonly version: string;\n}\n";
        assert_eq!(
            rename_in_glue(public, &imports, &exports, ExportSites::of("x.d.ts")),
            "export interface Info {\n    readonly version: string;\n}\n\
             export interface InitOutput {\n    readonly r: () => void;\n}\n\
             export interface Later {\n    readonly version: string;\n}\n"
        );
    }

    #[test]
    fn a_module_keeps_every_byte_but_the_renamed_names() {
        let wasm = module(
            "__wbg_fetch_0123456789abcdef",
            FUNCTION_IMPORT,
            "a_long_closure_shim",
        );
        let imports = renames(&[("__wbg_fetch_0123456789abcdef", "q")]);
        let exports = renames(&[("a_long_closure_shim", "s")]);
        let parsed = Module::parse(&wasm).unwrap();
        let renamed = parsed.renamed(&imports, &exports, None);
        assert_eq!(renamed, module("q", FUNCTION_IMPORT, "s"));
        let reread = Module::parse(&renamed).unwrap();
        assert_eq!(
            (reread.imports[0].field, reread.exports[0].name),
            ("q", "s")
        );
        assert_eq!(
            parsed.renamed(&BTreeMap::new(), &BTreeMap::new(), None),
            wasm
        );
    }

    #[test]
    fn what_the_renaming_does_not_understand_is_refused() {
        let table_import = module("t", 1, "e");
        assert!(Module::parse(&table_import)
            .err()
            .unwrap()
            .contains("import wbg.t is of kind 1"));
        let wasm = module("f", FUNCTION_IMPORT, "e");
        assert_eq!(
            Module::parse(&wasm[..wasm.len() - 1]).err().unwrap(),
            "the wasm module ends early"
        );
        assert_eq!(
            Module::parse(b"\0asm\x02\0\0\0").err().unwrap(),
            "not a version 1 wasm module"
        );
    }

    #[test]
    fn a_target_folder_is_renamed_in_the_wasm_and_every_glue_file() {
        let dir = std::env::temp_dir().join(format!("binding-names-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let import = "__wbg_fetch_0123456789abcdef";
        std::fs::write(
            dir.join("x_bg.wasm"),
            module(import, FUNCTION_IMPORT, "agent_run"),
        )
        .unwrap();
        std::fs::write(
            dir.join("x.js"),
            format!("imports.wbg.{import} = f;\nwasm.agent_run(a, b);\n"),
        )
        .unwrap();
        std::fs::write(
            dir.join("x_bg.wasm.d.ts"),
            "export const agent_run: () => void;\n",
        )
        .unwrap();
        let shortened = shorten(&dir, "x").unwrap();
        let js = std::fs::read_to_string(dir.join("x.js")).unwrap();
        let declarations = std::fs::read_to_string(dir.join("x_bg.wasm.d.ts")).unwrap();
        let wasm = std::fs::read(dir.join("x_bg.wasm")).unwrap();
        std::fs::remove_dir_all(&dir).unwrap();
        assert_eq!((shortened.imports, shortened.exports), (1, 1));
        assert_eq!(
            shortened.bytes_before - shortened.bytes_after,
            import.len() - 1 + "agent_run".len() - 1
        );
        assert_eq!(js, "imports.wbg.c = f;\nwasm.d(a, b);\n");
        assert_eq!(declarations, "export const d: () => void;\n");
        assert_eq!(wasm, module("c", FUNCTION_IMPORT, "d"));
    }
    #[test]
    fn the_imports_module_is_shortened_only_where_the_glue_uses_it_as_a_key() {
        let dir = std::env::temp_dir().join(format!("binding-module-{}", std::process::id()));
        let import = "__wbg_fetch_0123456789abcdef";
        let targets = [
            // web and nodejs: the glue hands the imports over under the module's name.
            (
                "return { \"./x_bg.js\": import0 };\n",
                "return { \"w\": import0 };\n",
                "w",
            ),
            // bundler: the glue imports that file by its path.
            (
                "import { f } from \"./x_bg.js\";\nconst i = { \"./x_bg.js\": f };\n",
                "import { f } from \"./x_bg.js\";\nconst i = { \"./x_bg.js\": f };\n",
                "./x_bg.js",
            ),
        ];
        for (glue, renamed_glue, renamed_module) in targets {
            std::fs::create_dir_all(&dir).unwrap();
            let wasm = module_from("./x_bg.js", import, FUNCTION_IMPORT, "memory");
            std::fs::write(dir.join("x_bg.wasm"), wasm).unwrap();
            std::fs::write(dir.join("x.js"), format!("{glue}wbg.{import} = f;\n")).unwrap();
            shorten(&dir, "x").unwrap();
            let js = std::fs::read_to_string(dir.join("x.js")).unwrap();
            let wasm = std::fs::read(dir.join("x_bg.wasm")).unwrap();
            std::fs::remove_dir_all(&dir).unwrap();
            assert_eq!(js, format!("{renamed_glue}wbg.a = f;\n"));
            assert_eq!(
                wasm,
                module_from(renamed_module, "a", FUNCTION_IMPORT, "memory")
            );
        }
    }
}
