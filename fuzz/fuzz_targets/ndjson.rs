//! The NDJSON decoder on arbitrary bodies: no panic, the same lines for the whole body and for
//! any chunking, no blank line delivered, and the cap holding.
#![no_main]

use libfuzzer_sys::fuzz_target;
use mcp_agent_wasm::core::ndjson::NdjsonDecoder;
use mcp_agent_wasm_fuzz::{chunks, drive, BodyOptions};

fuzz_target!(|data: &[u8]| {
    let Some((options, body)) = BodyOptions::split(data) else {
        return;
    };
    let cap = options.cap();
    let whole = drive(&mut NdjsonDecoder::new(cap), &[body]);
    let chunked = drive(
        &mut NdjsonDecoder::new(cap),
        &chunks(body, options.chunk_seed),
    );
    assert_eq!(whole, chunked, "lines depend on where the body was cut");
    for line in &whole.output {
        assert!(!line.contains('\n'), "a line holding a line feed");
        assert!(
            !line.bytes().all(|byte| byte.is_ascii_whitespace()),
            "a blank line delivered"
        );
        assert!(
            line.len() <= 3 * cap,
            "a line of {} bytes passed the cap of {cap}",
            line.len()
        );
    }
});
