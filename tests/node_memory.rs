#![cfg(target_arch = "wasm32")]
//! Wasm memory never shrinks: what a page's Agent needs at its peak for one large tool result it
//! keeps for the page's whole life. Measured as the growth of the instance's memory, in a file of
//! its own, so that no other test's peak hides this one's.

mod node_common;

use js_sys::{Reflect, WebAssembly};
use mcp_agent_wasm::web::agent::Agent;
use serde_json::json;
use wasm_bindgen::JsCast;
use wasm_bindgen_futures::JsFuture;
use wasm_bindgen_test::*;

fn memory_bytes() -> u32 {
    let memory: WebAssembly::Memory = wasm_bindgen::memory().unchecked_into();
    let buffer: js_sys::ArrayBuffer = memory.buffer().unchecked_into();
    buffer.byte_length()
}

/// The provider server answers the next two model calls: a call of `big` for `chars`
/// characters in lines of ten (each line end is escaped in JSON, as in most text), then a short
/// answer.
async fn script_big_call(chars: usize) {
    node_common::script_provider(&json!({ "rounds": [
        { "toolCalls": [{ "id": "call_big", "name": "big", "arguments": { "chars": chars, "lines": true } }] },
        { "text": "that was long" },
    ]}))
    .await;
}

/// Reads a run to its end; returns the length of the text the `toolResult` event carried and
/// the last event's type.
async fn read_run(agent: &Agent) -> (u32, String) {
    let mut result_chars = 0;
    let last_type = node_common::read_run(agent, |event_type, event| {
        if event_type == "toolResult" {
            let content = Reflect::get(event, &"content".into()).unwrap();
            let block = Reflect::get(&content, &0.into()).unwrap();
            let text: js_sys::JsString = Reflect::get(&block, &"text".into()).unwrap().into();
            result_chars = text.length();
        }
    })
    .await
    .expect("the run ends normally");
    (result_chars, last_type)
}

fn bulk_agent(mode: &str) -> Agent {
    let provider = node_common::provider_server();
    let mcp = node_common::mcp_test_server();
    let config = json!({
        "provider": { "id": "openai", "apiKey": "k", "model": "m", "baseUrl": format!("{provider}/v1") },
        "mcpServers": [{ "name": "bulk", "url": format!("{mcp}/{mode}/memory-{}", js_sys::Date::now()) }],
        "allowInsecureLocalUrls": true,
    });
    Agent::new(js_sys::JSON::parse(&config.to_string()).unwrap()).unwrap()
}

#[wasm_bindgen_test]
async fn a_large_tool_result_grows_memory_by_at_most_four_times_its_size() {
    const CHARS: usize = 10_000_000;
    // Whatever every run needs once (the tools listing, the first fetches) is in place first.
    let agents = [bulk_agent("bulk-sse"), bulk_agent("bulk")];
    for agent in &agents {
        script_big_call(1000).await;
        assert_eq!(read_run(agent).await, (1000, "final".to_owned()));
    }
    let before = memory_bytes();
    let mut growths = Vec::new();
    for agent in &agents {
        script_big_call(CHARS).await;
        assert_eq!(read_run(agent).await, (CHARS as u32, "final".to_owned()));
        growths.push(memory_bytes() - before);
        JsFuture::from(agent.close()).await.unwrap();
    }
    let most = growths.iter().max().copied().unwrap_or_default() as usize;
    assert!(
        most <= 4 * CHARS,
        "memory grew by {growths:?} bytes (SSE replies, then JSON) for a result of {CHARS} bytes"
    );
}
