//! Assembles the npm package in pkg/ from the wasm-pack outputs of every target: one
//! `package.json` whose `exports` serve browsers (web target), bundlers, and Node ≥ 20.

use std::path::Path;

/// The crate name as wasm-pack writes it in file names.
pub const CRATE: &str = "mcp_agent_wasm";

/// Writes pkg/package.json, the Node and bundler entries with their declarations, and the README,
/// then checks that `npm pack` of pkg/ ships every path package.json names.
pub fn assemble(root: &Path) -> Result<(), String> {
    let pkg = root.join("pkg");
    let version = crate_version(root)?;
    let exports = exported_names(&pkg.join(format!("nodejs/{CRATE}.d.ts")))?;
    // The nodejs target is CommonJS; the package root is ESM.
    write(
        &pkg.join("nodejs/package.json"),
        "{\"type\": \"commonjs\"}\n",
    )?;
    write(
        &pkg.join("node.mjs"),
        &format!(
            "// Node entry: the nodejs target loads its wasm synchronously, so init() has nothing to do.\n\
             import {{ createRequire }} from \"node:module\";\n\
             const wasm = createRequire(import.meta.url)(\"./nodejs/{CRATE}.js\");\n\
             export const {{ {} }} = wasm;\n\
             export default async function init() {{}}\n",
            exports.join(", ")
        ),
    )?;
    // The web target's declarations would promise `initSync` and an `init()` resolving to the
    // wasm's exports, which neither the Node nor the bundler entry has.
    write(
        &pkg.join("node.d.mts"),
        &format!(
            "// Types of node.mjs: the values it re-exports from the nodejs target, that target's types, and an init() with nothing to do.\n\
             export {{ {} }} from \"./nodejs/{CRATE}.js\";\n\
             export type * from \"./nodejs/{CRATE}.js\";\n\
             export default function init(): Promise<void>;\n",
            exports.join(", ")
        ),
    )?;
    write(
        &pkg.join("bundler.mjs"),
        &format!(
            "// Bundler entry: the bundler instantiates the wasm on import, so init() has nothing to do.\n\
             export * from \"./bundler/{CRATE}.js\";\n\
             export default async function init() {{}}\n"
        ),
    )?;
    write(
        &pkg.join("bundler.d.mts"),
        &format!(
            "// Types of bundler.mjs: everything the bundler target exports, and an init() with nothing to do.\n\
             export * from \"./bundler/{CRATE}.js\";\n\
             export default function init(): Promise<void>;\n"
        ),
    )?;
    let manifest = package_json(&version);
    write(&pkg.join("package.json"), &manifest)?;
    std::fs::copy(root.join("README.md"), pkg.join("README.md"))
        .map_err(|error| format!("cannot copy README.md: {error}"))?;
    let missing = paths_missing_from_pack(&manifest, &packed_files(&pkg)?)?;
    if missing.is_empty() {
        Ok(())
    } else {
        Err(format!(
            "package.json names {} but npm pack of {} leaves them out (a target not built, or an ignore file in its folder)",
            missing.join(", "),
            pkg.display()
        ))
    }
}

/// Removes the `.gitignore` of `*` that wasm-pack writes into each target folder: `npm pack`
/// obeys it, and a package published with it ships none of that target's files.
pub fn remove_wasm_pack_gitignore(target_dir: &Path) -> Result<(), String> {
    let ignore = target_dir.join(".gitignore");
    if ignore.exists() {
        std::fs::remove_file(&ignore)
            .map_err(|error| format!("cannot remove {}: {error}", ignore.display()))?;
    }
    Ok(())
}

/// Conditions are tried in order. `node` comes first, so Node and bundlers for Node take the
/// nodejs target: `require` gets its CommonJS glue as is (no require(esm) needed, which Node turns
/// on by default only from 20.19), `import` node.mjs, which requires that same glue, so a process
/// doing both holds one wasm instance. Bundlers for browsers never set `node` (nor is `require`
/// outside it, where a browser bundle of a CommonJS consumer would find it) and take the web target
/// (`browser`, `worker`) or the bundler entry (`import`). Each entry names its declarations first,
/// since TypeScript takes the first condition it knows; its `bundler` resolution sets no `node` or
/// `browser`, so it checks against bundler.d.mts, which promises nothing the web entry lacks.
fn package_json(version: &str) -> String {
    let web_types = format!("./web/{CRATE}.d.ts");
    let web = format!("./web/{CRATE}.js");
    let web_entry = format!(r#"{{ "types": "{web_types}", "default": "{web}" }}"#);
    let node_entry = |indent: &str| {
        format!(
            "{{\n{indent}  \"require\": {{ \"types\": \"./nodejs/{CRATE}.d.ts\", \"default\": \"./nodejs/{CRATE}.js\" }},\n\
             {indent}  \"default\": {{ \"types\": \"./node.d.mts\", \"default\": \"./node.mjs\" }}\n{indent}}}"
        )
    };
    let (root_node_entry, subpath_node_entry) = (node_entry("      "), node_entry("    "));
    let bundler_entry = r#"{ "types": "./bundler.d.mts", "default": "./bundler.mjs" }"#;
    format!(
        r#"{{
  "name": "mcp-agent-wasm",
  "version": "{version}",
  "description": "A client-side LLM tool-calling agent loop with MCP servers, compiled to WebAssembly",
  "license": "MIT OR Apache-2.0",
  "type": "module",
  "main": "{web}",
  "types": "{web_types}",
  "exports": {{
    ".": {{
      "node": {root_node_entry},
      "browser": {web_entry},
      "worker": {web_entry},
      "import": {bundler_entry},
      "default": {web_entry}
    }},
    "./web": {web_entry},
    "./bundler": {bundler_entry},
    "./node": {subpath_node_entry}
  }},
  "files": ["web/", "bundler/", "nodejs/", "node.mjs", "node.d.mts", "bundler.mjs", "bundler.d.mts", "README.md"],
  "sideEffects": ["./bundler/*", "./bundler.mjs"],
  "engines": {{ "node": ">=20" }}
}}
"#
    )
}

/// The files `npm pack` would put in the tarball of `pkg`, relative to it.
fn packed_files(pkg: &Path) -> Result<Vec<String>, String> {
    let output = std::process::Command::new("npm")
        .args(["pack", "--dry-run", "--json"])
        .current_dir(pkg)
        .output()
        .map_err(|error| format!("cannot run npm pack: {error}"))?;
    if !output.status.success() {
        return Err(format!(
            "npm pack --dry-run in {} failed with {}: {}",
            pkg.display(),
            output.status,
            String::from_utf8_lossy(&output.stderr).trim()
        ));
    }
    let report: serde_json::Value = serde_json::from_slice(&output.stdout)
        .map_err(|error| format!("npm pack --dry-run --json printed no JSON: {error}"))?;
    Ok(report[0]["files"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|file| file["path"].as_str().map(str::to_owned))
        .collect())
}

/// The paths package.json names (`main`, `types`, every `exports` target, `files`) that are not
/// among `packed` files; a folder counts as packed when a file below it is.
fn paths_missing_from_pack(manifest: &str, packed: &[String]) -> Result<Vec<String>, String> {
    let manifest: serde_json::Value = serde_json::from_str(manifest)
        .map_err(|error| format!("package.json is not JSON: {error}"))?;
    let mut named = Vec::new();
    for field in [
        &manifest["main"],
        &manifest["types"],
        &manifest["exports"],
        &manifest["files"],
    ] {
        collect_strings(field, &mut named);
    }
    let mut missing: Vec<String> = named
        .into_iter()
        .filter(|path| {
            let relative = path.trim_start_matches("./").trim_end_matches('/');
            let folder = format!("{relative}/");
            !packed
                .iter()
                .any(|file| file == relative || file.starts_with(&folder))
        })
        .collect();
    missing.sort();
    missing.dedup();
    Ok(missing)
}

/// Every string in `value`, however deeply nested in objects and arrays.
fn collect_strings(value: &serde_json::Value, strings: &mut Vec<String>) {
    match value {
        serde_json::Value::String(text) => strings.push(text.clone()),
        serde_json::Value::Array(items) => {
            items.iter().for_each(|item| collect_strings(item, strings))
        }
        serde_json::Value::Object(fields) => fields
            .values()
            .for_each(|item| collect_strings(item, strings)),
        _ => {}
    }
}

/// The names a target's `.d.ts` exports (`export function x`, `export class X`).
fn exported_names(declarations: &Path) -> Result<Vec<String>, String> {
    let text = std::fs::read_to_string(declarations)
        .map_err(|error| format!("cannot read {}: {error}", declarations.display()))?;
    let names: Vec<String> = text
        .lines()
        .filter_map(|line| {
            line.strip_prefix("export function ")
                .or_else(|| line.strip_prefix("export class "))
        })
        .filter_map(|rest| {
            rest.split(|c: char| !(c.is_alphanumeric() || c == '_' || c == '$'))
                .next()
                .map(str::to_owned)
        })
        .filter(|name| !name.is_empty())
        .collect();
    if names.is_empty() {
        return Err(format!("{} exports nothing", declarations.display()));
    }
    Ok(names)
}

fn crate_version(root: &Path) -> Result<String, String> {
    let manifest = std::fs::read_to_string(root.join("Cargo.toml"))
        .map_err(|error| format!("cannot read Cargo.toml: {error}"))?;
    manifest
        .lines()
        .find_map(|line| line.strip_prefix("version = \""))
        .and_then(|rest| rest.strip_suffix('"'))
        .map(str::to_owned)
        .ok_or_else(|| "Cargo.toml has no package version".to_owned())
}

fn write(path: &Path, text: &str) -> Result<(), String> {
    std::fs::write(path, text).map_err(|error| format!("cannot write {}: {error}", path.display()))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What `npm pack` ships of a complete build, relative to pkg/.
    fn complete_pack() -> Vec<String> {
        let mut files: Vec<String> = [
            "README.md",
            "package.json",
            "node.mjs",
            "node.d.mts",
            "bundler.mjs",
            "bundler.d.mts",
        ]
        .map(str::to_owned)
        .to_vec();
        for target in ["web", "bundler", "nodejs"] {
            for suffix in [".js", ".d.ts", "_bg.wasm", "_bg.wasm.d.ts"] {
                files.push(format!("{target}/{CRATE}{suffix}"));
            }
        }
        files
    }

    #[test]
    fn a_complete_pack_ships_every_path_package_json_names() {
        let missing = paths_missing_from_pack(&package_json("1.2.3"), &complete_pack());
        assert_eq!(missing, Ok(Vec::new()));
    }

    #[test]
    fn a_pack_without_the_web_target_misses_main_types_and_the_browser_entries() {
        let packed: Vec<String> = complete_pack()
            .into_iter()
            .filter(|file| !file.starts_with("web/"))
            .collect();
        let missing = paths_missing_from_pack(&package_json("1.2.3"), &packed);
        assert_eq!(
            missing,
            Ok(vec![
                format!("./web/{CRATE}.d.ts"),
                format!("./web/{CRATE}.js"),
                "web/".to_owned(),
            ])
        );
    }

    #[test]
    fn a_pack_without_a_declaration_file_misses_it() {
        let packed: Vec<String> = complete_pack()
            .into_iter()
            .filter(|file| file != "node.d.mts")
            .collect();
        let missing = paths_missing_from_pack(&package_json("1.2.3"), &packed);
        assert_eq!(
            missing,
            Ok(vec!["./node.d.mts".to_owned(), "node.d.mts".to_owned()])
        );
    }
}
