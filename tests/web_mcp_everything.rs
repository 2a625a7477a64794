#![cfg(target_arch = "wasm32")]
//! The MCP client in a browser against the real `@modelcontextprotocol/server-everything`
//! (2026.8.31), started on 127.0.0.1 by the test command in `streamableHttp` and `sse` modes.

#[allow(dead_code)] // only `sleep_ms` is used here
mod web_mcp_common;

use std::cell::RefCell;

use mcp_agent_wasm::core::mcp::jsonrpc::Progress;
use mcp_agent_wasm::core::mcp::session::{Transport, TransportMode};
use mcp_agent_wasm::web::mcp::{McpClient, McpServerConfig};
use serde_json::json;
use wasm_bindgen_test::*;
use web_mcp_common::sleep_ms;

wasm_bindgen_test_configure!(run_in_browser);

/// The URLs are handed over at compile time by the test command (the xtask), which starts the
/// servers on free 127.0.0.1 ports first.
fn config_for(url: Option<&str>, name: &str, transport: TransportMode) -> McpServerConfig {
    let url = url.unwrap_or_else(|| {
        panic!("{name} was not set at compile time: run the browser tests through the xtask")
    });
    let mut config = McpServerConfig::new(url);
    config.transport = transport;
    config.allow_insecure_local_urls = true;
    config
}

fn client_for(url: Option<&str>, name: &str, transport: TransportMode) -> McpClient {
    McpClient::new(config_for(url, name, transport)).expect("loopback URLs pass with the opt-in")
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

/// A client of server-everything over Streamable HTTP whose `onElicitation` is `hook_body` (the
/// body of `(request, context) => …`), which keeps what it was asked in `globalThis[record]`.
fn eliciting_client(record: &str, hook_body: &str) -> McpClient {
    let url = option_env!("MCP_EVERYTHING_URL");
    let mut config = config_for(url, "MCP_EVERYTHING_URL", TransportMode::Auto);
    let body = format!("globalThis.{record} = {{ request, context }};\n{hook_body}");
    config.on_elicitation = Some(js_sys::Function::new_with_args("request, context", &body));
    McpClient::new(config).expect("loopback URL with the opt-in")
}

/// What the hook of `eliciting_client` recorded: the request as JSON and the context's signal.
fn recorded(record: &str) -> (serde_json::Value, web_sys::AbortSignal) {
    use wasm_bindgen::JsCast;
    let asked = js_sys::Reflect::get(&js_sys::global(), &record.into()).expect("recorded");
    let request = js_sys::Reflect::get(&asked, &"request".into()).expect("request");
    let text = js_sys::JSON::stringify(&request).expect("JSON").as_string();
    let context = js_sys::Reflect::get(&asked, &"context".into()).expect("context");
    let signal = js_sys::Reflect::get(&context, &"signal".into()).expect("signal");
    (
        serde_json::from_str(&text.expect("a string")).expect("JSON"),
        signal.dyn_into().expect("an AbortSignal"),
    )
}

/// server-everything registers its elicitation tools only for a client that declares the
/// capability, which a client declares only with a hook; the hook's accepted form reaches the
/// tool, which reports the values it got.
#[wasm_bindgen_test]
async fn on_elicitation_fills_server_everythings_form() {
    let plain = streamable_http();
    let plain_tools = plain.list_tools().await.expect("listing");
    assert!(!plain_tools
        .iter()
        .any(|tool| tool.name.contains("elicitation")));
    plain.close().await;

    let client = eliciting_client(
        "formAsked",
        "return { action: 'accept', content: { name: 'Ada', check: true, integer: 7 } };",
    );
    let tools = client.list_tools().await.expect("listing");
    for expected in ["trigger-elicitation-request", "trigger-url-elicitation"] {
        assert!(tools.iter().any(|tool| tool.name == expected), "{expected}");
    }
    let result = client
        .call_tool("trigger-elicitation-request", json!({}), None, None, None)
        .await
        .expect("the call");
    assert!(!result.is_error, "{}", result.model_text);
    for line in [
        "- Name: Ada",
        "- Agreed to terms: true",
        "- Favorite Integer: 7",
    ] {
        assert!(
            result.model_text.contains(line),
            "{line} in {}",
            result.model_text
        );
    }
    let (request, signal) = recorded("formAsked");
    assert_eq!(
        request["mode"], "form",
        "filled in for a request without one"
    );
    assert_eq!(
        request["message"],
        "Please provide inputs for the following fields:"
    );
    assert_eq!(request["requestedSchema"]["required"], json!(["name"]));
    assert!(!signal.aborted(), "answered in time: never aborted");
    client.close().await;
}

/// A decline, a URL-mode request, and an answer the schema refuses, which the server gets as an
/// error instead of the values.
#[wasm_bindgen_test]
async fn on_elicitation_declines_opens_urls_and_wrong_answers_are_refused() {
    let client = eliciting_client(
        "asked",
        "if (request.mode === 'url') return { action: 'accept' };
         return globalThis.elicitationAnswer;",
    );
    let set_answer = |answer: &str| {
        let value = js_sys::JSON::parse(answer).expect("JSON");
        js_sys::Reflect::set(&js_sys::global(), &"elicitationAnswer".into(), &value).expect("set");
    };

    set_answer(r#"{"action": "decline"}"#);
    let declined = client
        .call_tool("trigger-elicitation-request", json!({}), None, None, None)
        .await
        .expect("the call");
    assert!(
        declined.model_text.contains("User declined"),
        "{}",
        declined.model_text
    );

    let url = client
        .call_tool(
            "trigger-url-elicitation",
            json!({"url": "https://example.com/consent", "message": "Open to consent"}),
            None,
            None,
            None,
        )
        .await
        .expect("the call");
    let (request, _) = recorded("asked");
    assert_eq!(request["mode"], "url");
    assert_eq!(request["url"], "https://example.com/consent");
    assert_eq!(request["message"], "Open to consent");
    assert!(request["elicitationId"].is_string());
    assert!(!url.is_error, "{}", url.model_text);
    assert!(url.model_text.contains("accept"), "{}", url.model_text);

    // The error path of URL mode (-32042): the URL the user must open is in the error's text.
    let required = client
        .call_tool(
            "trigger-url-elicitation",
            json!({"url": "https://example.com/pay", "errorPath": true}),
            None,
            None,
            None,
        )
        .await
        .expect_err("the server requires a URL elicitation first");
    let text = required.to_string();
    assert!(
        text.contains("-32042") && text.contains("the user must first open https://"),
        "{text}"
    );

    set_answer(r#"{"action": "accept", "content": {"name": "Ada", "integer": 500}}"#);
    let refused = client
        .call_tool("trigger-elicitation-request", json!({}), None, None, None)
        .await;
    let text = match refused {
        Ok(result) => result.model_text,
        Err(error) => error.to_string(),
    };
    assert!(
        text.contains("field `integer`: must be at most 100"),
        "the server got the reason: {text}"
    );
    assert!(!text.contains("- Name: Ada"), "{text}");
    client.close().await;
}

/// A call aborted while the page's form is open: the hook's signal aborts, so the page can close
/// it, and the answer given afterwards goes nowhere.
#[wasm_bindgen_test]
async fn an_aborted_call_aborts_the_open_elicitation() {
    let client = eliciting_client("pending", "return new Promise(() => {});");
    let controller = web_sys::AbortController::new().expect("controller");
    let signal = controller.signal();
    let call = client.call_tool(
        "trigger-elicitation-request",
        json!({}),
        None,
        Some(&signal),
        None,
    );
    let abort_when_asked = async {
        for _ in 0..200 {
            if js_sys::Reflect::has(&js_sys::global(), &"pending".into()).unwrap_or(false) {
                controller.abort();
                return;
            }
            sleep_ms(10).await;
        }
        panic!("onElicitation was never called");
    };
    let (outcome, ()) = futures::join!(call, abort_when_asked);
    assert_eq!(outcome.expect_err("aborted").code(), "mcp_aborted");
    let (_, elicitation_signal) = recorded("pending");
    // The hook's task learns it in the next task of the event loop, not at once.
    sleep_ms(1).await;
    assert!(elicitation_signal.aborted());
    client.close().await;
}
