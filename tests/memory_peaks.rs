//! Wasm memory never shrinks, so what the core holds at its peak a page keeps for its whole
//! life. Counted here with an allocator that records the most bytes live at once.
#![cfg(not(target_arch = "wasm32"))]

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

use mcp_agent_wasm::core::mcp::tools::ToolCallResult;
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
