#![cfg(not(target_arch = "wasm32"))]
//! Tidy check: the agent loop's sources read no clock, do no I/O and touch no JS, so the state
//! machine stays deterministic (its simulation tests rely on that).

use std::path::PathBuf;

const FORBIDDEN: &[&str] = &[
    "std::time",
    "Instant",
    "SystemTime",
    "wasm_bindgen",
    "web_sys",
    "js_sys",
    "gloo",
    "std::fs",
    "std::net",
    "std::env",
    "println!",
    "eprintln!",
    "thread_rng",
    "getrandom",
];

#[test]
fn agent_loop_sources_are_pure() {
    let directory = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("src/core/agent_loop");
    let mut checked = 0;
    for entry in std::fs::read_dir(&directory).expect("the agent loop directory exists") {
        let path = entry.expect("a readable directory entry").path();
        if path.extension().is_none_or(|extension| extension != "rs") {
            continue;
        }
        let source = std::fs::read_to_string(&path).expect("a readable source file");
        for (line_number, line) in source.lines().enumerate() {
            for token in FORBIDDEN {
                assert!(
                    !line.contains(token),
                    "{}:{}: `{token}` in the pure agent loop",
                    path.display(),
                    line_number + 1
                );
            }
        }
        checked += 1;
    }
    assert!(
        checked >= 3,
        "only {checked} source files found in {}",
        directory.display()
    );
}
