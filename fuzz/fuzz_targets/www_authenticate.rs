//! `WWW-Authenticate` values as arbitrary text. Checked: no panic; a Bearer challenge found,
//! written back as quoted parameters after another scheme's challenge, reads back the same.
#![no_main]

use libfuzzer_sys::fuzz_target;
use mcp_agent_wasm::core::mcp::auth::bearer_challenge;

fn quoted(value: &str) -> String {
    let mut quoted = String::from("\"");
    for character in value.chars() {
        if matches!(character, '"' | '\\') {
            quoted.push('\\');
        }
        quoted.push(character);
    }
    quoted.push('"');
    quoted
}

fuzz_target!(|data: &[u8]| {
    let header = String::from_utf8_lossy(data);
    let Some(found) = bearer_challenge(&header) else {
        return;
    };
    let mut written = String::from("Basic realm=\"x, y\", Bearer");
    let params = [
        ("resource_metadata", &found.resource_metadata),
        ("scope", &found.scope),
        ("error", &found.error),
        ("error_description", &found.error_description),
    ];
    let mut separator = " ";
    for (name, value) in params {
        if let Some(value) = value {
            written.push_str(separator);
            written.push_str(name);
            written.push('=');
            written.push_str(&quoted(value));
            separator = ", ";
        }
    }
    assert_eq!(bearer_challenge(&written), Some(found), "{written:?}");
});
