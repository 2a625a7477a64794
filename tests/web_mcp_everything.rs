#![cfg(target_arch = "wasm32")]
//! The MCP client in a browser against the real `@modelcontextprotocol/server-everything`
//! (2026.8.31), started on 127.0.0.1 by the test command in `streamableHttp` and `sse` modes.

use std::cell::RefCell;

use mcp_agent_wasm::core::mcp::jsonrpc::Progress;
use mcp_agent_wasm::core::mcp::session::{Transport, TransportMode};
use mcp_agent_wasm::web::mcp::{McpClient, McpServerConfig};
use serde_json::json;
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

/// The URLs are handed over at compile time by the test command (the xtask), which starts the
/// servers on free 127.0.0.1 ports first.
fn client_for(url: Option<&str>, name: &str, transport: TransportMode) -> McpClient {
    let url = url.unwrap_or_else(|| {
        panic!("{name} was not set at compile time: run the browser tests through the xtask")
    });
    let mut config = McpServerConfig::new(url);
    config.transport = transport;
    config.allow_insecure_local_urls = true;
    McpClient::new(config).expect("loopback URLs pass with the opt-in")
}

fn streamable_http() -> McpClient {
    let url = option_env!("MCP_EVERYTHING_URL");
    client_for(url, "MCP_EVERYTHING_URL", TransportMode::Auto)
}

fn legacy_sse(transport: TransportMode) -> McpClient {
    let url = option_env!("MCP_EVERYTHING_SSE_URL");
    client_for(url, "MCP_EVERYTHING_SSE_URL", transport)
}

#[wasm_bindgen_test]
async fn streamable_http_lists_and_calls_tools() {
    let client = streamable_http();
    let tools = client.list_tools().await.expect("listing");
    let names: Vec<&str> = tools.iter().map(|tool| tool.name.as_str()).collect();
    for expected in [
        "echo",
        "get-sum",
        "get-tiny-image",
        "get-structured-content",
        "trigger-long-running-operation",
    ] {
        assert!(
            names.contains(&expected),
            "{expected} missing from {names:?}"
        );
    }
    assert_eq!(client.transport(), Transport::StreamableHttp);
    let server = client.server().expect("initialized");
    assert_eq!(server.protocol_version, "2025-11-25");

    let echo = client
        .call_tool(
            "echo",
            json!({"message": "hello from wasm"}),
            None,
            None,
            None,
        )
        .await
        .expect("echo");
    assert_eq!(echo.model_text, "Echo: hello from wasm");
    assert!(!echo.is_error);

    let sum = client
        .call_tool("get-sum", json!({"a": 19, "b": 23}), None, None, None)
        .await
        .expect("get-sum");
    assert!(sum.model_text.contains("42"), "{}", sum.model_text);

    let image = client
        .call_tool("get-tiny-image", json!({}), None, None, None)
        .await
        .expect("get-tiny-image");
    let image_block = image
        .blocks
        .iter()
        .find(|block| block["type"] == "image")
        .expect("an image block for the UI");
    let data = image_block["data"].as_str().expect("base64 data");
    assert!(data.len() > 100);
    assert!(
        !image.model_text.contains(data),
        "the model never gets base64"
    );
    assert!(
        image.model_text.contains("image/png"),
        "{}",
        image.model_text
    );

    let weather = client
        .call_tool(
            "get-structured-content",
            json!({"location": "Chicago"}),
            None,
            None,
            None,
        )
        .await
        .expect("get-structured-content");
    let structured = weather.structured_content.expect("structured content");
    assert!(structured["temperature"].is_number());
    client.close().await;
}

#[wasm_bindgen_test]
async fn progress_events_arrive_before_the_result() {
    let client = streamable_http();
    let progress = RefCell::new(Vec::<Progress>::new());
    let record = |event: &Progress| progress.borrow_mut().push(event.clone());
    let result = client
        .call_tool(
            "trigger-long-running-operation",
            json!({"duration": 1, "steps": 3}),
            Some(&record),
            None,
            Some(5_000),
        )
        .await
        .expect("the operation completes");
    let values: Vec<f64> = progress
        .borrow()
        .iter()
        .map(|event| event.progress)
        .collect();
    assert_eq!(
        values,
        [1.0, 2.0, 3.0],
        "three steps reported before the result"
    );
    assert!(progress
        .borrow()
        .iter()
        .all(|event| event.total == Some(3.0)));
    assert!(
        result.model_text.contains("completed"),
        "{}",
        result.model_text
    );
    client.close().await;
}

#[wasm_bindgen_test]
async fn legacy_sse_mode_lists_and_calls_tools() {
    for transport in [TransportMode::Sse, TransportMode::Auto] {
        let client = legacy_sse(transport);
        let tools = client.list_tools().await.expect("listing over legacy SSE");
        assert!(
            tools.iter().any(|tool| tool.name == "echo"),
            "{transport:?}"
        );
        assert_eq!(client.transport(), Transport::LegacySse, "{transport:?}");
        let echo = client
            .call_tool("echo", json!({"message": "legacy"}), None, None, None)
            .await
            .expect("echo over legacy SSE");
        assert_eq!(echo.model_text, "Echo: legacy");
        client.close().await;
    }
}
