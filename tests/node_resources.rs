#![cfg(target_arch = "wasm32")]
//! A page keeps one Agent or McpClient for hours: what a run, a call or a wait creates must not
//! outlive it. Counted with wasm-bindgen's count of the JS values Rust holds, which is exact
//! (no garbage collector in the count), against the local servers the test command starts.

mod node_common;

use mcp_agent_wasm::web::agent::Agent;
use mcp_agent_wasm::web::mcp::{McpClient, McpServerConfig};
use mcp_agent_wasm::web::timer::{aborted, sleep};
use serde_json::json;
use wasm_bindgen_futures::JsFuture;
use wasm_bindgen_test::*;
use web_sys::AbortController;

/// The JS values Rust holds once the promise jobs queued so far have run.
async fn live_js_values() -> u32 {
    sleep(0).await;
    wasm_bindgen::externref_heap_live_count()
}

/// Fails when Rust holds more JS values than `before` (fewer is fine: an earlier test's leftovers
/// may end meanwhile) for a whole second: what ends a run or a call in the background (a closed
/// body, a settled fetch) may take some timer turns on a loaded machine, while a leak stays.
async fn assert_none_kept(before: u32) {
    let mut after = live_js_values().await;
    for _ in 0..50 {
        if after <= before {
            return;
        }
        sleep(20).await;
        after = live_js_values().await;
    }
    assert!(after <= before, "{} JS values kept", after - before);
}

#[wasm_bindgen_test]
async fn a_wait_dropped_before_it_ends_keeps_no_js_values() {
    let controller = AbortController::new().unwrap();
    let signal = controller.signal();
    let before = live_js_values().await;
    for _ in 0..20 {
        drop(sleep(60_000));
        drop(aborted(&signal));
    }
    assert_none_kept(before).await;
}

/// Reads a run's stream to its end and returns the last event's type.
async fn read_run(agent: &Agent) -> String {
    node_common::read_run(agent, |_, _| {})
        .await
        .expect("the run ends normally")
}

#[wasm_bindgen_test]
async fn runs_of_one_agent_keep_no_js_values() {
    let provider = node_common::provider_server();
    let options = js_sys::encode_uri_component("fixture=openai/text.chunks.txt");
    let config = json!({
        "provider": { "id": "openai", "apiKey": "k", "model": "m", "baseUrl": format!("{provider}/_/{options}/v1") },
        "allowInsecureLocalUrls": true,
    });
    let agent = Agent::new(js_sys::JSON::parse(&config.to_string()).unwrap()).unwrap();
    assert_eq!(read_run(&agent).await, "final");
    let before = live_js_values().await;
    for _ in 0..10 {
        assert_eq!(read_run(&agent).await, "final");
    }
    assert_none_kept(before).await;
    JsFuture::from(agent.close()).await.unwrap();
}

/// A client of the local MCP test server at `path`.
fn test_server_client(path: &str) -> McpClient {
    let base = node_common::mcp_test_server();
    let mut config = McpServerConfig::new(&format!("{base}{path}"));
    config.allow_insecure_local_urls = true;
    McpClient::new(config).unwrap()
}

#[wasm_bindgen_test]
async fn calls_of_one_mcp_client_keep_no_js_values() {
    let client = test_server_client("/json/resources");
    let controller = AbortController::new().unwrap();
    let signal = controller.signal();
    let call = || {
        client.call_tool(
            "echo",
            json!({ "message": "hi" }),
            None,
            Some(&signal),
            None,
        )
    };
    assert!(!call().await.unwrap().is_error);
    let before = live_js_values().await;
    for _ in 0..10 {
        assert!(!call().await.unwrap().is_error);
    }
    assert_none_kept(before).await;
    client.close().await;
}

/// Starts collecting the warnings Node emits; the function returned stops and gives them, one a
/// line.
fn collect_node_warnings() -> js_sys::Function {
    let start = js_sys::Function::new_no_args(
        "const seen = []; \
         const onWarning = (warning) => seen.push(`${warning.name}: ${warning.message}`); \
         process.on('warning', onWarning); \
         return () => { process.off('warning', onWarning); return seen.join('\\n'); };",
    );
    start
        .call0(&wasm_bindgen::JsValue::UNDEFINED)
        .unwrap()
        .into()
}

/// Twelve calls in flight on one client, and six of them under one `AbortSignal` (as a page
/// that cancels them together passes): a call keeps one listener on its signal at a time, and
/// none on one the client shares between its requests, else Node's ten would be passed.
#[wasm_bindgen_test]
async fn twelve_calls_in_flight_on_one_client_raise_no_node_warning() {
    let client = test_server_client("/bulk/warnings");
    let controller = AbortController::new().unwrap();
    let signal = controller.signal();
    let stop_collecting = collect_node_warnings();
    let calls = (0..12).map(|index| {
        let shared_signal = (index < 6).then_some(&signal);
        client.call_tool("slow", json!({ "ms": 200 }), None, shared_signal, None)
    });
    for outcome in futures::future::join_all(calls).await {
        assert!(!outcome.unwrap().is_error);
    }
    // Node emits a warning on the next tick after it arises.
    sleep(10).await;
    let warnings = stop_collecting
        .call0(&wasm_bindgen::JsValue::UNDEFINED)
        .unwrap()
        .as_string()
        .unwrap();
    assert_eq!(warnings, "");
    client.close().await;
}

/// What replaced the client's `AbortSignal` still ends every waiting call at once on `close`.
#[wasm_bindgen_test]
async fn calls_in_flight_end_with_mcp_closed_when_their_client_closes() {
    let client = test_server_client("/bulk/closing");
    let calls = (0..3).map(|_| client.call_tool("slow", json!({ "ms": 10_000 }), None, None, None));
    let close_meanwhile = async {
        sleep(500).await;
        client.close().await;
    };
    let (outcomes, ()) = futures::join!(futures::future::join_all(calls), close_meanwhile);
    for outcome in outcomes {
        assert_eq!(outcome.expect_err("closed").code(), "mcp_closed");
    }
}
