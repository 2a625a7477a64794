#![cfg(target_arch = "wasm32")]
//! The fetch path every provider and MCP request takes, in headless Chromium against real local
//! servers that `cargo xtask test` starts on 127.0.0.1: a body streamed chunk by chunk, an abort
//! mid-stream, and the real server-everything answering `initialize` over Streamable HTTP with CORS.

use mcp_agent_wasm::web::http::{fetch, HttpError, HttpRequest};
use wasm_bindgen_test::*;
use web_sys::AbortController;

wasm_bindgen_test_configure!(run_in_browser);

const STREAM_SERVER_URL: Option<&str> = option_env!("STREAM_SERVER_URL");
const MCP_EVERYTHING_URL: Option<&str> = option_env!("MCP_EVERYTHING_URL");

fn server(url: Option<&'static str>, variable: &str) -> &'static str {
    url.unwrap_or_else(|| {
        panic!("{variable} is not set: run these tests through `cargo xtask test`")
    })
}

#[wasm_bindgen_test]
async fn body_arrives_chunk_by_chunk() {
    let base = server(STREAM_SERVER_URL, "STREAM_SERVER_URL");
    let url = format!("{base}/chunks?count=4&delayMs=80");
    let request = HttpRequest {
        method: "GET",
        url: &url,
        ..HttpRequest::default()
    };
    let mut response = fetch(&request, None).await.expect("response");
    assert_eq!(response.status, 200);
    let mut chunks = Vec::new();
    while let Some(chunk) = response.next_chunk().await.expect("chunk") {
        chunks.push(String::from_utf8(chunk).expect("utf-8"));
    }
    assert_eq!(chunks.concat(), "chunk 0\nchunk 1\nchunk 2\nchunk 3\n");
    assert!(
        chunks.len() >= 3,
        "80 ms apart, the writes should arrive as separate reads, got {chunks:?}"
    );
}

#[wasm_bindgen_test]
async fn abort_signal_ends_the_read_mid_stream() {
    let base = server(STREAM_SERVER_URL, "STREAM_SERVER_URL");
    let url = format!("{base}/chunks?count=100&delayMs=50");
    let controller = AbortController::new().expect("controller");
    let request = HttpRequest {
        method: "GET",
        url: &url,
        ..HttpRequest::default()
    };
    let mut response = fetch(&request, Some(&controller.signal()))
        .await
        .expect("response");
    let first = response.next_chunk().await.expect("first chunk");
    assert_eq!(first.as_deref(), Some(&b"chunk 0\n"[..]));
    controller.abort();
    let mut after_abort = response.next_chunk().await;
    // A chunk already buffered before the abort may still be handed out once.
    if let Ok(Some(_)) = after_abort {
        after_abort = response.next_chunk().await;
    }
    assert_eq!(after_abort, Err(HttpError::Aborted));
}

#[wasm_bindgen_test]
async fn an_aborted_signal_sends_nothing() {
    let controller = AbortController::new().expect("controller");
    controller.abort();
    let request = HttpRequest {
        method: "GET",
        url: "http://127.0.0.1:9/never",
        ..HttpRequest::default()
    };
    let result = fetch(&request, Some(&controller.signal())).await;
    assert_eq!(result.err(), Some(HttpError::Aborted));
}

#[wasm_bindgen_test]
async fn server_everything_answers_initialize_across_origins() {
    let url = server(MCP_EVERYTHING_URL, "MCP_EVERYTHING_URL");
    let body = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"mcp-agent-wasm-test","version":"0"}}}"#;
    let headers = [
        ("content-type".to_owned(), "application/json".to_owned()),
        (
            "accept".to_owned(),
            "application/json, text/event-stream".to_owned(),
        ),
    ];
    let request = HttpRequest {
        method: "POST",
        url,
        headers: &headers,
        body: Some(body),
    };
    let mut response = fetch(&request, None).await.expect("response");
    assert_eq!(response.status, 200);
    let session = response.header("mcp-session-id");
    assert!(
        session.is_some_and(|id| !id.is_empty()),
        "the session id header must be readable cross-origin"
    );
    let text = response.text().await.expect("body");
    assert!(
        text.contains("\"serverInfo\""),
        "initialize result expected, got {text}"
    );
    assert!(text.contains("\"protocolVersion\""), "got {text}");
}

/// `join_every` (listing tools and closing, one future per server) runs its futures at once and
/// gives their outputs in the order the futures were given, not the order they finished in.
#[wasm_bindgen_test]
async fn join_every_runs_futures_together_and_keeps_their_order() {
    use mcp_agent_wasm::web::join::join_every;
    use mcp_agent_wasm::web::timer::sleep;
    use std::cell::RefCell;

    let finished = RefCell::new(Vec::new());
    let delays = [60, 10, 35, 0];
    let outputs = join_every(delays.iter().map(|&delay| {
        let finished = &finished;
        async move {
            sleep(delay).await;
            finished.borrow_mut().push(delay);
            delay * 2
        }
    }))
    .await;
    assert_eq!(outputs, [120, 20, 70, 0]);
    assert_eq!(finished.into_inner(), [0, 10, 35, 60]);
    assert!(join_every(Vec::<std::future::Ready<u8>>::new())
        .await
        .is_empty());
}

/// A thrown value wrapped in one of our errors keeps what it said: an `Error`'s message (also one
/// from another realm), a string, any other value as JSON, and by its type what JSON cannot write.
#[wasm_bindgen_test]
fn thrown_values_are_described_by_message_json_or_type() {
    use js_sys::{BigInt, Error, Object, Reflect};
    use mcp_agent_wasm::web::error::js_error_message;
    use wasm_bindgen::{JsCast, JsValue};

    let object = Object::new();
    Reflect::set(&object, &"code".into(), &JsValue::from(1)).expect("set");
    // An error made in an iframe is not `instanceof Error` in this page, and its message is not
    // enumerable, so JSON would write it as `{}`.
    let other_realm = js_sys::Function::new_no_args(
        "const frame = document.createElement('iframe'); document.body.appendChild(frame); \
         const error = new frame.contentWindow.TypeError('fetch failed'); frame.remove(); return error;",
    )
    .call0(&JsValue::UNDEFINED)
    .expect("an iframe's error");
    assert!(!other_realm.is_instance_of::<Error>());
    let cases: [(JsValue, &str); 7] = [
        (Error::new("boom").into(), "boom"),
        (other_realm, "fetch failed"),
        (JsValue::from_str("plain text"), "plain text"),
        (JsValue::from(42), "42"),
        (object.into(), r#"{"code":1}"#),
        (JsValue::UNDEFINED, "undefined"),
        (BigInt::from(7u32).into(), "bigint"),
    ];
    for (thrown, expected) in cases {
        assert_eq!(js_error_message(&thrown), expected);
    }
}
