//! Wasm memory never shrinks, so what the core holds at its peak a page keeps for its whole
//! life. Counted here with an allocator that records the most bytes live at once.
#![cfg(not(target_arch = "wasm32"))]

use std::alloc::{GlobalAlloc, Layout, System};
use std::collections::VecDeque;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

use mcp_agent_wasm::core::assembler::ToolCallAssembler;
use mcp_agent_wasm::core::mcp::tools::ToolCallResult;
use mcp_agent_wasm::core::model_event::{queue_merging_pieces, ModelEvent};
use mcp_agent_wasm::core::sse::SseDecoder;
use mcp_agent_wasm::core::stream::{DecoderOptions, ModelStreamDecoder, WireFormat};
use serde_json::json;

struct CountingAllocator;

static LIVE_BYTES: AtomicUsize = AtomicUsize::new(0);
static PEAK_BYTES: AtomicUsize = AtomicUsize::new(0);

unsafe impl GlobalAlloc for CountingAllocator {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let live = LIVE_BYTES.fetch_add(layout.size(), Ordering::SeqCst) + layout.size();
        PEAK_BYTES.fetch_max(live, Ordering::SeqCst);
        unsafe { System.alloc(layout) }
    }

    unsafe fn dealloc(&self, pointer: *mut u8, layout: Layout) {
        LIVE_BYTES.fetch_sub(layout.size(), Ordering::SeqCst);
        unsafe { System.dealloc(pointer, layout) }
    }
}

#[global_allocator]
static ALLOCATOR: CountingAllocator = CountingAllocator;

/// The counts are the whole process's: one measurement at a time.
static ONE_AT_A_TIME: Mutex<()> = Mutex::new(());

/// The most bytes `work` had live at once beyond what was live before it, and its result.
fn peak_during<T>(work: impl FnOnce() -> T) -> (usize, T) {
    let before = LIVE_BYTES.load(Ordering::SeqCst);
    PEAK_BYTES.store(before, Ordering::SeqCst);
    let result = work();
    (PEAK_BYTES.load(Ordering::SeqCst) - before, result)
}

/// An OpenAI stream whose call's arguments come one character per event, each event its own
/// network read, as a slow model streams them.
fn arguments_streamed_a_character_at_a_time(arguments: &str) -> Vec<String> {
    let first = r#"{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"call_1","type":"function","function":{"name":"write","arguments":""}}]}}]}"#;
    let mut reads = vec![format!("data: {first}\n\n")];
    for character in arguments.chars() {
        let piece = json!([{"index": 0, "delta": {"tool_calls": [
            {"index": 0, "function": {"arguments": character.to_string()}}
        ]}}]);
        reads.push(format!("data: {{\"choices\":{piece}}}\n\n"));
    }
    reads.push("data: {\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"tool_calls\"}]}\n\ndata: [DONE]\n\n".to_owned());
    reads
}

#[test]
fn held_argument_pieces_take_at_most_three_times_their_text() {
    let _one = ONE_AT_A_TIME
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner());
    let arguments = json!({"content": "a line of text\n".repeat(2000)}).to_string();
    let reads = arguments_streamed_a_character_at_a_time(&arguments);
    // As the web layer holds a round's events from its first call piece until the stream ends:
    // each read's events queued, then added to those held.
    let (held_peak, held) = peak_during(|| {
        let mut decoder =
            ModelStreamDecoder::new(WireFormat::OpenAiChat, DecoderOptions::default());
        let mut held = VecDeque::new();
        for read in &reads {
            let mut events = Vec::new();
            decoder.push(read.as_bytes(), &mut events).unwrap();
            let mut queue = VecDeque::new();
            for event in events {
                queue_merging_pieces(&mut queue, event);
            }
            for event in queue {
                queue_merging_pieces(&mut held, event);
            }
        }
        held
    });
    let mut assembler = ToolCallAssembler::new(0);
    for event in &held {
        if let ModelEvent::ToolCallDelta(delta) = event {
            assembler.push(delta);
        }
    }
    let calls = assembler.finish();
    assert_eq!(calls.len(), 1);
    assert_eq!(
        calls[0].raw_arguments, arguments,
        "the pieces make the same text"
    );
    assert!(
        held_peak <= 3 * arguments.len(),
        "{held_peak} bytes held at the most for {} bytes of arguments",
        arguments.len()
    );
}

#[test]
fn a_tool_result_is_converted_with_one_copy_of_its_text() {
    let _one = ONE_AT_A_TIME
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner());
    let text = "a line of text\n".repeat(70_000);
    let result = json!({"content": [{"type": "text", "text": text}]});
    let (peak, converted) = peak_during(|| ToolCallResult::from_result(result).unwrap());
    assert_eq!(converted.model_text, text);
    assert_eq!(converted.blocks[0]["text"], text.as_str());
    // The model's text is the one copy; the blocks are the result's own.
    assert!(
        peak <= text.len() + text.len() / 4,
        "{peak} bytes at the most for a text of {} bytes",
        text.len()
    );
}

#[test]
fn a_long_sse_event_takes_at_most_twice_its_size_in_the_decoder() {
    let _one = ONE_AT_A_TIME
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner());
    // A 10 MB tool result arrives over SSE as one `data:` line, read 16 KiB at a time.
    let text = "a line of text\\n".repeat(625_000);
    let line = format!("data: {text}");
    let (peak, events) = peak_during(|| {
        let mut decoder = SseDecoder::default();
        let mut events = Vec::new();
        for read in line.as_bytes().chunks(16 * 1024) {
            decoder.push(read, &mut events).unwrap();
        }
        decoder.push(b"\n\n", &mut events).unwrap();
        events
    });
    assert_eq!(events.len(), 1);
    assert_eq!(events[0].data, text);
    // The line held until its end and the event's data; the event handed out copies the data.
    assert!(
        peak * 10 <= 21 * line.len(),
        "{peak} bytes at the most for a line of {} bytes",
        line.len()
    );
}
