#![cfg(not(target_arch = "wasm32"))]
//! Tidy checks (rust-analyzer's habit): the invariants of ARCHITECTURE.md, enforced by `cargo test`.

use std::path::{Path, PathBuf};

fn rust_files(dir: &Path) -> Vec<PathBuf> {
    let mut files = Vec::new();
    let mut pending = vec![dir.to_path_buf()];
    while let Some(dir) = pending.pop() {
        for entry in std::fs::read_dir(&dir).expect("readable source folder") {
            let path = entry.expect("readable entry").path();
            if path.is_dir() {
                pending.push(path);
            } else if path.extension().is_some_and(|extension| extension == "rs") {
                files.push(path);
            }
        }
    }
    files.sort();
    files
}

/// Source lines with comments removed, so that a doc comment may name what the code may not use.
/// A `//` inside a string literal (`"https://…"`) is not a comment.
fn code_lines(text: &str) -> impl Iterator<Item = (usize, &str)> {
    text.lines()
        .enumerate()
        .map(|(number, line)| (number + 1, &line[..comment_start(line)]))
}

/// Where a line's `//` comment starts, outside string and `'"'` literals; its length if none.
fn comment_start(line: &str) -> usize {
    let bytes = line.as_bytes();
    let mut in_string = false;
    let mut at = 0;
    while at < bytes.len() {
        match (in_string, bytes[at]) {
            (true, b'\\') => at += 1,
            (_, b'"') => in_string = !in_string,
            (false, b'\'') if bytes.get(at + 1..at + 3) == Some(b"\"'") => at += 2,
            (false, b'/') if bytes.get(at + 1) == Some(&b'/') => return at,
            _ => {}
        }
        at += 1;
    }
    bytes.len()
}

/// The part of a file that ships: all of it before its `#[cfg(test)] mod tests`.
fn shipped_part(text: &str) -> &str {
    text.find("#[cfg(test)]\nmod tests")
        .map_or(text, |start| &text[..start])
}

/// Every Rust file under `dir` (relative to the crate) with its text.
fn sources(dir: &str) -> Vec<(PathBuf, String)> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join(dir);
    rust_files(&root)
        .into_iter()
        .map(|file| {
            let text = std::fs::read_to_string(&file).expect("readable source file");
            (file, text)
        })
        .collect()
}

fn violations(dir: &str, forbidden: &[&str]) -> Vec<String> {
    let mut found = Vec::new();
    for (file, text) in sources(dir) {
        for (number, line) in code_lines(&text) {
            for word in forbidden {
                if line.contains(word) {
                    found.push(format!("{}:{number}: `{word}`", file.display()));
                }
            }
        }
    }
    found
}

#[test]
fn core_is_pure() {
    let forbidden = [
        "wasm_bindgen",
        "web_sys",
        "js_sys",
        "gloo",
        "std::time",
        "Instant",
        "SystemTime",
        "std::fs",
        "std::net",
        "std::env",
        "std::process",
        "std::thread",
        "println!",
        "eprintln!",
        "dbg!",
    ];
    let found = violations("src/core", &forbidden);
    assert!(
        found.is_empty(),
        "src/core must stay pure (no JS, clock or I/O):\n{}",
        found.join("\n")
    );
}

#[test]
fn no_skipped_or_unfinished_code() {
    let forbidden = [
        concat!("#[", "ignore"),
        concat!("#[", "should_panic"),
        concat!("todo", "!("),
        concat!("unimplemented", "!("),
        concat!("dbg", "!("),
    ];
    let mut found = violations("src", &forbidden);
    found.extend(violations("tests", &forbidden));
    assert!(
        found.is_empty(),
        "unfinished or skipped code:\n{}",
        found.join("\n")
    );
}

#[test]
fn web_layer_is_wasm_only() {
    let lib = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("src/lib.rs"))
        .expect("src/lib.rs");
    assert!(
        lib.contains("#[cfg(target_arch = \"wasm32\")]\npub mod web;"),
        "src/lib.rs must declare `pub mod web` under #[cfg(target_arch = \"wasm32\")]"
    );
}

/// Calls that bring large tables into the shipped wasm for little use: core's float parser (its
/// powers of five, 13.4 KB gzipped when `Retry-After` was read as `f64`), Unicode's letter,
/// number and case tables (1.9 KB for an email check), and std's collections: `HashMap` and
/// `HashSet` bring std's own copy of the hash table serde_json's maps already use (2.1 KB for the
/// tool-name sets), `BTreeMap` and `BTreeSet` a tree (2.3 KB for header maps). JSON numbers are
/// read by serde_json's own parser, the crate's text rules are ASCII ones, and small collections
/// are lists or serde_json maps. Catches the usual spellings (a collection by its name, in any use).
#[test]
fn no_large_tables_for_small_uses() {
    let forbidden = [
        "parse::<f64>",
        "parse::<f32>",
        "f64::from_str",
        ".is_alphanumeric()",
        ".is_alphabetic()",
        ".is_numeric()",
        ".to_lowercase()",
        ".to_uppercase()",
        "HashMap",
        "HashSet",
        "BTreeMap",
        "BTreeSet",
    ];
    let found = violations("src", &forbidden);
    assert!(
        found.is_empty(),
        "code that costs the wasm a large table (see the comment above):\n{}",
        found.join("\n")
    );
}

/// The shipped build compiles `Debug` formatting out (`-Zfmt-debug=none` in wasm-pack.toml,
/// 3.6 KB gzip): a `{:?}` placeholder prints nothing there, so no message a user can see may use
/// one. Test modules, which run natively with full `Debug`, are exempt.
#[test]
fn shipped_code_formats_nothing_with_debug() {
    let mut found = Vec::new();
    for (file, text) in sources("src") {
        for (number, line) in code_lines(shipped_part(&text)) {
            // Every `Debug` placeholder ends in `?}`: `{:?}`, `{:#?}`, `{name:?}`, `{:x?}`, `{:>8?}`.
            if line.contains("?}") {
                found.push(format!("{}:{number}", file.display()));
            }
        }
    }
    assert!(
        found.is_empty(),
        "`Debug` formatting outside tests prints nothing in the shipped build:\n{}",
        found.join("\n")
    );
}

/// Futures reach JS only through `promise_of` and `spawn` (src/web/mod.rs), which box them, so
/// that wasm-bindgen-futures' task code is compiled once (1.9 KB gzip when it was compiled per
/// future type). An `async fn` in a `#[wasm_bindgen]` impl would get its own copy.
#[test]
fn futures_reach_js_through_the_boxed_helpers() {
    let mut found = Vec::new();
    for (file, text) in sources("src") {
        let helpers = file.ends_with("src/web/mod.rs");
        let mut in_bindings_impl = false;
        let mut previous = "";
        for (number, line) in code_lines(shipped_part(&text)) {
            if previous.starts_with("#[wasm_bindgen") && line.starts_with("impl ") {
                in_bindings_impl = true;
            } else if line == "}" {
                in_bindings_impl = false;
            }
            let direct = line.contains("future_to_promise") || line.contains("spawn_local");
            if (direct && !helpers) || (in_bindings_impl && line.contains("async fn")) {
                found.push(format!("{}:{number}", file.display()));
            }
            previous = line;
        }
    }
    assert!(
        found.is_empty(),
        "a future handed to JS without promise_of or spawn:\n{}",
        found.join("\n")
    );
}

/// What follows each `marker` in `text`, from its first non-blank character on.
fn after<'a>(text: &'a str, marker: &'a str) -> impl Iterator<Item = &'a str> {
    text.match_indices(marker)
        .map(move |(start, _)| text[start + marker.len()..].trim_start())
}

/// The code `rest` begins with, if it begins with a quoted snake_case word (`"provider_auth"`).
fn quoted_code(rest: &str) -> Option<String> {
    let word = rest.strip_prefix('"')?.split('"').next()?;
    let is_code = !word.is_empty()
        && word
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_');
    is_code.then(|| word.to_owned())
}

/// `AgentErrorCode` in the TypeScript declarations lists exactly the codes errors reach JS with:
/// the provider's and the MCP client's error codes, the loop's code for an error inside a
/// stream, and the web layer's own (`js_error("…"`), so that a new code cannot be left out of
/// the type programs switch on, nor a removed one linger in it. A `js_error` whose code is not
/// written out must take it from one of those sources, or this test cannot see it.
#[test]
fn the_typescript_error_codes_are_the_codes_errors_carry() {
    let read = |path: &str| {
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join(path))
            .expect("readable source file")
    };
    let mut emitted: Vec<String> = Vec::new();
    let mut unseen = Vec::new();
    for path in ["src/core/provider/error.rs", "src/core/mcp/mod.rs"] {
        let text = read(path);
        let code_fn = &text[text.find("pub fn code(&self)").expect("a code()")..];
        let code_fn = &code_fn[..code_fn.find("\n    }\n").expect("its end")];
        for arm in after(code_fn, "=>") {
            match quoted_code(arm) {
                Some(code) => emitted.push(code),
                None => unseen.push(format!("{path}: `=> {}`", arm.lines().next().unwrap_or(""))),
            }
        }
    }
    let agent_loop = read("src/core/agent_loop/mod.rs");
    emitted.extend(after(&agent_loop, "PROVIDER_STREAM_ERROR: &str =").filter_map(quoted_code));
    // The ProviderError's and McpError's `code()`, and the loop's failure code (a ProviderError's
    // or PROVIDER_STREAM_ERROR).
    let known_sources = ["error.code()", "&code,"];
    for (file, text) in sources("src/web") {
        for argument in after(shipped_part(&text), "js_error(") {
            if let Some(code) = quoted_code(argument) {
                emitted.push(code);
            } else if !known_sources
                .iter()
                .any(|known| argument.starts_with(known))
                && !argument.starts_with("code: &str")
            {
                let line = argument.lines().next().unwrap_or("");
                unseen.push(format!("{}: `js_error({line}`", file.display()));
            }
        }
    }
    assert!(
        unseen.is_empty(),
        "codes this test cannot read:\n{}",
        unseen.join("\n")
    );
    emitted.sort();
    emitted.dedup();
    let types = read("src/web/types.rs");
    let union = &types[types
        .find("export type AgentErrorCode =")
        .expect("AgentErrorCode")..];
    let union = &union[..union.find(';').expect("the union's end")];
    let mut declared: Vec<String> = after(union, "|").filter_map(quoted_code).collect();
    declared.sort();
    assert!(emitted.len() > 40, "{emitted:?}");
    assert_eq!(declared, emitted);
}
