//! Assembles the npm package in pkg/ from the wasm-pack outputs of every target: one
//! `package.json` whose `exports` serve browsers (web target), bundlers, and Node ≥ 20.

use std::path::Path;

/// The crate name as wasm-pack writes it in file names.
pub const CRATE: &str = "mcp_agent_wasm";

/// Writes pkg/package.json, the Node and bundler entries, and the README.
pub fn assemble(root: &Path) -> Result<(), String> {
    let pkg = root.join("pkg");
    let version = crate_version(root)?;
    let exports = exported_names(&pkg.join(format!("nodejs/{CRATE}.d.ts")))?;
    // wasm-pack writes a `.gitignore` of `*` into each target folder, which `npm pack` obeys.
    for target in ["web", "bundler", "nodejs"] {
        let ignore = pkg.join(target).join(".gitignore");
        if ignore.exists() {
            std::fs::remove_file(&ignore)
                .map_err(|error| format!("cannot remove {}: {error}", ignore.display()))?;
        }
    }
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
    write(
        &pkg.join("bundler.mjs"),
        &format!(
            "// Bundler entry: the bundler instantiates the wasm on import, so init() has nothing to do.\n\
             export * from \"./bundler/{CRATE}.js\";\n\
             export default async function init() {{}}\n"
        ),
    )?;
    write(&pkg.join("package.json"), &package_json(&version))?;
    std::fs::copy(root.join("README.md"), pkg.join("README.md"))
        .map_err(|error| format!("cannot copy README.md: {error}"))?;
    Ok(())
}

fn package_json(version: &str) -> String {
    let types = format!("./web/{CRATE}.d.ts");
    let web = format!("./web/{CRATE}.js");
    format!(
        r#"{{
  "name": "mcp-agent-wasm",
  "version": "{version}",
  "description": "A client-side LLM tool-calling agent loop with MCP servers, compiled to WebAssembly",
  "license": "MIT OR Apache-2.0",
  "type": "module",
  "main": "{web}",
  "types": "{types}",
  "exports": {{
    ".": {{
      "types": "{types}",
      "node": "./node.mjs",
      "browser": "{web}",
      "worker": "{web}",
      "import": "./bundler.mjs",
      "default": "{web}"
    }},
    "./web": {{ "types": "{types}", "default": "{web}" }},
    "./bundler": {{ "types": "{types}", "default": "./bundler.mjs" }},
    "./node": {{ "types": "{types}", "default": "./node.mjs" }}
  }},
  "files": ["web/", "bundler/", "nodejs/", "node.mjs", "bundler.mjs", "README.md"],
  "sideEffects": ["./bundler/*", "./bundler.mjs"],
  "engines": {{ "node": ">=20" }}
}}
"#
    )
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
