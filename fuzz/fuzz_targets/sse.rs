//! The SSE decoder on arbitrary bodies: no panic, the same events for the whole body and for any
//! chunking, the same events borrowed (`push_with`, what model streams use) as owned (`push`), and
//! the cap holding (a lossy UTF-8 decode may at most triple the bytes of a line).
#![no_main]

use libfuzzer_sys::fuzz_target;
use mcp_agent_wasm::core::sse::SseDecoder;
use mcp_agent_wasm_fuzz::{chunks, drive, BodyOptions, BorrowedSse};

fuzz_target!(|data: &[u8]| {
    let Some((options, body)) = BodyOptions::split(data) else {
        return;
    };
    let cap = options.cap();
    let whole = drive(&mut SseDecoder::new(cap), &[body]);
    let chunked = drive(&mut SseDecoder::new(cap), &chunks(body, options.chunk_seed));
    assert_eq!(whole, chunked, "events depend on where the body was cut");
    let borrowed = drive(
        &mut BorrowedSse(SseDecoder::new(cap)),
        &chunks(body, options.chunk_seed),
    );
    assert_eq!(whole, borrowed, "push_with and push disagree");
    for event in &whole.output {
        assert!(!event.event.is_empty(), "an event without a type");
        assert!(
            event.data.len() <= 3 * cap + 1,
            "an event of {} bytes passed the cap of {cap}",
            event.data.len()
        );
        if let Some(id) = &event.id {
            assert!(
                !id.is_empty() && !id.contains('\0'),
                "an invalid event id {id:?}"
            );
        }
    }
});
