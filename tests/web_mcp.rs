#![cfg(target_arch = "wasm32")]
//! The MCP client in a browser against the project's test server (testing/mcp-test-server.mjs)
//! on 127.0.0.1: what server-everything cannot show. Each test uses its own path and reads only
//! its own traffic from the server's log.

mod web_mcp_common;

use std::cell::RefCell;
use std::rc::Rc;

use mcp_agent_wasm::core::mcp::catalog::{EntryRequest, FeatureRequest};
use mcp_agent_wasm::core::mcp::jsonrpc::Progress;
use mcp_agent_wasm::core::mcp::session::{Transport, TransportMode, IDLE_PING_AFTER_MS};
use mcp_agent_wasm::core::mcp::McpError;
use mcp_agent_wasm::core::tools::McpTool;
use mcp_agent_wasm::web::mcp::{McpClient, McpServerConfig};
use serde_json::{json, Value};
use wasm_bindgen::JsValue;
use wasm_bindgen_test::*;
use web_mcp_common::{
    posted_methods, run_path, server_log, sleep_ms, test_client, test_server, FetchStub,
};

wasm_bindgen_test_configure!(run_in_browser);

/// Only the POSTs of a log: the standalone GET stream is opened in the background, so its place
/// among the other requests is not fixed.
fn posts(log: Vec<Value>) -> Vec<Value> {
    log.into_iter()
        .filter(|entry| entry["method"] == "POST")
        .collect()
}

/// The server's log once `ready` holds for it, or after about five seconds: what a client sends
/// in the background (the standalone GET, a cancellation) arrives a moment after the call
/// returns, and a moment is longer on a loaded machine.
async fn server_log_when(prefix: &str, ready: impl Fn(&[Value]) -> bool) -> Vec<Value> {
    let mut log = server_log(prefix).await;
    for _ in 0..250 {
        if ready(&log) {
            break;
        }
        sleep_ms(20).await;
        log = server_log(prefix).await;
    }
    log
}

fn has_cancelled(count: usize) -> impl Fn(&[Value]) -> bool {
    move |log| {
        log.iter()
            .filter(|entry| entry["body"]["method"] == "notifications/cancelled")
            .count()
            >= count
    }
}

fn get_count(log: &[Value]) -> usize {
    log.iter().filter(|entry| entry["method"] == "GET").count()
}

fn has_get(log: &[Value]) -> bool {
    get_count(log) > 0
}

/// A server whose CORS preflight allows `Mcp-Session-Id` but not `MCP-Protocol-Version` (a
/// common oversight: php-sdk#264, netdata#22258, fastmcp#3122) is still reached: the browser
/// refuses `notifications/initialized`, the first POST with the header, and the client sends it
/// and everything after it without the header.
#[wasm_bindgen_test]
async fn a_server_whose_cors_refuses_the_protocol_version_header_is_reached_without_it() {
    let path = "/no-version-cors/list";
    let client = test_client(path, TransportMode::Auto);
    let tools = client.list_tools().await.expect("listing succeeds");
    assert_eq!(tool_names(&tools), JSON_TOOLS);
    let result = client
        .call_tool("echo", json!({"message": "hi"}), None, None, None)
        .await
        .expect("the call succeeds");
    assert_eq!(result.model_text, "Echo: hi");
    let log = posts(server_log(path).await);
    assert_eq!(
        posted_methods(&log),
        [
            "initialize",
            "notifications/initialized",
            "tools/list",
            "tools/list",
            "tools/list",
            "tools/call"
        ]
    );
    for later in &log[1..] {
        assert!(later["headers"]["sessionId"].is_string(), "{later}");
        assert_eq!(later["headers"]["protocolVersion"], Value::Null, "{later}");
    }
    client.close().await;
}

/// A server that echoes the request id as a string (`"id": "3"`, python-sdk#1720) is answered:
/// its replies match their requests.
#[wasm_bindgen_test]
async fn replies_whose_id_is_echoed_as_a_string_are_matched() {
    let client = test_client("/string-ids/list", TransportMode::Auto);
    let tools = client.list_tools().await.expect("listing succeeds");
    assert_eq!(tool_names(&tools), JSON_TOOLS);
    let result = client
        .call_tool("add", json!({"a": 2, "b": 3}), None, None, None)
        .await
        .expect("the call succeeds");
    assert_eq!(result.model_text, "5");
    client.close().await;
}

/// A server that refuses the offered version with the spec's example error (-32602 with
/// `data.supported`) is initialized again in the newest version it names, and used in it; the
/// session it opened for the refused initialize is ended.
#[wasm_bindgen_test]
async fn a_server_refusing_the_offered_version_is_offered_one_it_supports() {
    let path = "/strict-version/offer";
    let client = test_client(path, TransportMode::Auto);
    let tools = client.list_tools().await.expect("listing succeeds");
    assert_eq!(tool_names(&tools), JSON_TOOLS);
    assert_eq!(
        client.server().expect("initialized").protocol_version,
        "2025-03-26"
    );
    let full_log = server_log_when(path, has_delete).await;
    let deletes = deletes(&full_log);
    assert_eq!(deletes.len(), 1, "{deletes:?}");
    let log = posts(full_log.clone());
    let refused_session = &deletes[0]["headers"]["sessionId"];
    assert!(refused_session.is_string(), "{refused_session}");
    assert_ne!(refused_session, &log[2]["headers"]["sessionId"]);
    assert_eq!(
        posted_methods(&log)[..3],
        ["initialize", "initialize", "notifications/initialized"]
    );
    assert_eq!(log[0]["body"]["params"]["protocolVersion"], "2025-11-25");
    assert_eq!(log[1]["body"]["params"]["protocolVersion"], "2025-03-26");
    assert_eq!(log[2]["headers"]["protocolVersion"], "2025-03-26");
    client.close().await;
}

#[wasm_bindgen_test]
async fn json_replies_and_every_page_of_tools() {
    let client = test_client("/json/pages", TransportMode::Auto);
    let tools = client.list_tools().await.expect("listing succeeds");
    let names: Vec<&str> = tools.iter().map(|tool| tool.name.as_str()).collect();
    assert_eq!(
        names,
        [
            "echo",
            "add",
            "progress",
            "ask-client",
            "hang",
            "structured"
        ],
        "all three pages, the empty name skipped"
    );
    assert_eq!(client.transport(), Transport::StreamableHttp);
    let log = posts(server_log("/json/pages").await);
    assert_eq!(
        posted_methods(&log),
        [
            "initialize",
            "notifications/initialized",
            "tools/list",
            "tools/list",
            "tools/list"
        ]
    );
    let initialize = &log[0];
    assert_eq!(
        initialize["headers"]["accept"],
        "application/json, text/event-stream"
    );
    assert_eq!(initialize["headers"]["contentType"], "application/json");
    assert_eq!(initialize["headers"]["sessionId"], Value::Null);
    assert_eq!(initialize["headers"]["protocolVersion"], Value::Null);
    assert_eq!(
        initialize["body"]["params"]["clientInfo"]["name"],
        "mcp-agent-wasm"
    );
    let cursors: Vec<&Value> = log[2..]
        .iter()
        .map(|entry| &entry["body"]["params"]["cursor"])
        .collect();
    assert_eq!(cursors, [&Value::Null, &json!("page-3"), &json!("page-6")]);
    for later in &log[1..] {
        assert!(later["headers"]["sessionId"]
            .as_str()
            .is_some_and(|id| id.starts_with("session-")));
        assert_eq!(later["headers"]["protocolVersion"], "2025-06-18");
    }
}

#[wasm_bindgen_test]
async fn sse_replies_carry_progress_and_server_requests_before_the_result() {
    let client = test_client("/sse/progress", TransportMode::Auto);
    let progress = RefCell::new(Vec::<Progress>::new());
    let record = |event: &Progress| progress.borrow_mut().push(event.clone());
    let result = client
        .call_tool(
            "progress",
            json!({"steps": 3, "intervalMs": 30}),
            Some(&record),
            None,
            None,
        )
        .await
        .expect("the call succeeds");
    assert_eq!(result.model_text, "done after 3 steps");
    let steps: Vec<(f64, Option<String>)> = progress
        .borrow()
        .iter()
        .map(|event| (event.progress, event.message.clone()))
        .collect();
    assert_eq!(
        steps,
        [
            (1.0, Some("step 1".into())),
            (2.0, Some("step 2".into())),
            (3.0, Some("step 3".into()))
        ]
    );

    let answers = client
        .call_tool("ask-client", json!({}), None, None, None)
        .await
        .expect("the server got both answers");
    let answers: Value = serde_json::from_str(&answers.model_text).expect("the answers as JSON");
    assert_eq!(
        answers[0],
        json!({"jsonrpc": "2.0", "id": "srv-ping", "result": {}})
    );
    assert_eq!(answers[1]["id"], "srv-sampling");
    assert_eq!(answers[1]["error"]["code"], -32601);
    assert_eq!(answers[2]["id"], "srv-elicit");
    assert_eq!(
        answers[2]["error"]["code"], -32601,
        "elicitation refused by default"
    );
}

#[wasm_bindgen_test]
async fn elicitations_get_the_schema_defaults_when_opted_in() {
    let mut config = McpServerConfig::new(&format!("{}{}", test_server(), run_path("/sse/elicit")));
    config.allow_insecure_local_urls = true;
    config.accept_elicitation_defaults = true;
    let client = McpClient::new(config).expect("loopback with the opt-in");
    let answers = client
        .call_tool("ask-client", json!({}), None, None, None)
        .await
        .expect("the server got every answer");
    let answers: Value = serde_json::from_str(&answers.model_text).expect("the answers as JSON");
    assert_eq!(
        answers[2]["result"],
        json!({"action": "accept", "content": {"name": "Ada"}})
    );
    assert_eq!(
        answers[1]["error"]["code"], -32601,
        "sampling is still refused"
    );
    let log = posts(server_log("/sse/elicit").await);
    assert_eq!(
        log[0]["body"]["params"]["capabilities"],
        json!({"elicitation": {"form": {}}})
    );
}

/// A person answering a server's question takes time the call's timeout must not count: it
/// restarts when the question arrives and again when it is answered, as progress restarts it.
/// Here the server works 600 ms, asks, the page answers after 700 ms and the server works 700 ms
/// more, each under the 1000 ms timeout; without either restart the call times out.
#[wasm_bindgen_test]
async fn the_timeout_restarts_when_a_question_arrives_and_when_it_is_answered() {
    let mut config = McpServerConfig::new(&format!("{}{}", test_server(), run_path("/sse/late")));
    config.allow_insecure_local_urls = true;
    config.on_elicitation = Some(js_sys::Function::new_with_args(
        "request",
        "return new Promise((resolve) => setTimeout(() => resolve({ action: 'accept', content: { name: 'Ada' } }), 700));",
    ));
    let client = McpClient::new(config).expect("loopback with the opt-in");
    let answer = client
        .call_tool(
            "elicit-late",
            json!({"delayMs": 600, "afterMs": 700}),
            None,
            None,
            Some(1000),
        )
        .await
        .expect("no timeout: each wait was under 1000 ms");
    let answer: Value = serde_json::from_str(&answer.model_text).expect("the answer as JSON");
    assert_eq!(
        answer["result"],
        json!({"action": "accept", "content": {"name": "Ada"}})
    );
    client.close().await;
}

#[wasm_bindgen_test]
async fn requests_on_the_standalone_stream_are_answered() {
    let client = test_client("/standalone/mcp", TransportMode::Auto);
    client.connect().await.expect("connects");
    let mut answer = None;
    for _ in 0..50 {
        let log = server_log("/standalone/mcp").await;
        answer = log
            .into_iter()
            .find(|entry| entry["body"]["id"] == "standalone-ping");
        if answer.is_some() {
            break;
        }
        sleep_ms(20).await;
    }
    let answer = answer.expect("the ping on the GET stream was answered within 1 s");
    assert_eq!(answer["body"]["result"], json!({}));
    client.close().await;
}

#[wasm_bindgen_test]
async fn results_keep_structured_content_and_errors() {
    let client = test_client("/json/results", TransportMode::StreamableHttp);
    let structured = client
        .call_tool("structured", json!({}), None, None, None)
        .await
        .expect("call succeeds");
    assert_eq!(structured.model_text, r#"{"answer":42}"#);
    assert_eq!(structured.structured_content, Some(json!({"answer": 42})));
    let unknown = client
        .call_tool("no-such-tool", json!({}), None, None, None)
        .await
        .expect("an error result is still a result");
    assert!(unknown.is_error);
    assert_eq!(unknown.model_text, "unknown tool no-such-tool");
}

/// The engine reads a reply of any depth; the client reads as deep as serde_json would and
/// refuses the rest, rather than exhausting the wasm stack, which would end the module.
#[wasm_bindgen_test]
async fn a_reply_nested_too_deep_is_refused_and_the_client_goes_on() {
    let client = test_client("/bulk/deep", TransportMode::StreamableHttp);
    let shallow = client
        .call_tool("deep", json!({"depth": 100}), None, None, None)
        .await
        .expect("100 levels are read");
    let mut nested = &shallow.structured_content.expect("structured content")["nested"];
    for _ in 0..99 {
        nested = &nested[0];
    }
    assert_eq!(nested, &json!([]));
    let deep = client
        .call_tool("deep", json!({}), None, None, None)
        .await
        .expect_err("100 000 levels are refused");
    assert_eq!(deep.code(), "mcp_invalid_message");
    assert!(deep.to_string().contains("128 levels"), "{deep}");
    let echo = client
        .call_tool("echo", json!({"message": "still here"}), None, None, None)
        .await
        .expect("the client goes on");
    assert!(echo.model_text.contains("still here"));
}

#[wasm_bindgen_test]
async fn expired_session_is_reinitialized_once_and_the_request_retried() {
    let client = test_client("/expire/once", TransportMode::Auto);
    let tools = client.list_tools().await.expect("the retry succeeds");
    assert_eq!(tools.len(), 6);
    let log = posts(server_log("/expire/once").await);
    assert_eq!(
        posted_methods(&log),
        [
            "initialize",
            "notifications/initialized",
            "tools/list",
            "initialize",
            "notifications/initialized",
            "tools/list",
            "tools/list",
            "tools/list"
        ]
    );
    let expired = log[2]["headers"]["sessionId"].clone();
    let renewed = log[5]["headers"]["sessionId"].clone();
    assert_ne!(expired, renewed);
    assert_eq!(
        log[3]["headers"]["sessionId"],
        Value::Null,
        "a new initialize has no session"
    );
    assert_eq!(
        log[5]["body"]["id"], log[2]["body"]["id"],
        "the same request, sent again"
    );
}

/// A session the server ends takes the page's subscriptions and log level with it: the new
/// session is asked for them again (a subscription ended before is not), so that
/// `onNotification` keeps getting what the page asked for.
#[wasm_bindgen_test]
async fn a_renewed_session_is_asked_again_for_the_subscriptions_and_the_log_level() {
    let client = test_client("/restart/subscriptions", TransportMode::Auto);
    for request in [
        EntryRequest::resource_subscription("test://kept", true),
        EntryRequest::resource_subscription("test://ended", true),
        EntryRequest::set_logging_level("warning").expect("a level"),
        EntryRequest::resource_subscription("test://ended", false),
    ] {
        client
            .server_feature(FeatureRequest::Entry(request), None, None)
            .await
            .expect("accepted");
    }
    client
        .call_tool("restart", json!({}), None, None, None)
        .await
        .expect("the server forgets the session");
    let after = client
        .call_tool("echo", json!({"message": "again"}), None, None, None)
        .await
        .expect("sent again on a new session");
    assert_eq!(after.model_text, "Echo: again");
    // What the new session, begun by the second initialize, was asked of those.
    let renewed = |log: &[Value]| -> Vec<Value> {
        let mut initializes = log
            .iter()
            .enumerate()
            .filter(|(_, entry)| entry["body"]["method"] == "initialize");
        let Some((begun, _)) = initializes.nth(1) else {
            return Vec::new();
        };
        log[begun..]
            .iter()
            .filter(|entry| {
                let method = &entry["body"]["method"];
                *method == "resources/subscribe" || *method == "logging/setLevel"
            })
            .map(|entry| json!([entry["body"]["method"], entry["body"]["params"]]))
            .collect()
    };
    let log = posts(server_log_when("/restart/subscriptions", |log| renewed(log).len() >= 2).await);
    assert_eq!(
        renewed(&log),
        [
            json!(["resources/subscribe", {"uri": "test://kept"}]),
            json!(["logging/setLevel", {"level": "warning"}]),
        ]
    );
}

/// The server restarts, so that two calls sent together both get 404: they share one new
/// session (one initialize), are sent again on it, and the client stays on Streamable HTTP.
#[wasm_bindgen_test]
async fn calls_whose_session_expired_together_share_one_new_session() {
    let client = test_client("/restart/mcp", TransportMode::Auto);
    client
        .call_tool("restart", json!({}), None, None, None)
        .await
        .expect("the server forgets the session");
    let (first, second) = futures::join!(
        client.call_tool("echo", json!({"message": "one"}), None, None, None),
        client.call_tool("echo", json!({"message": "two"}), None, None, None),
    );
    let texts = [first, second].map(|outcome| {
        outcome
            .map(|result| result.model_text)
            .map_err(|error| error.to_string())
    });
    assert_eq!(
        texts,
        [Ok("Echo: one".to_owned()), Ok("Echo: two".to_owned())]
    );
    let later = client
        .call_tool("echo", json!({"message": "three"}), None, None, None)
        .await
        .expect("a later call");
    assert_eq!(later.model_text, "Echo: three");
    assert_eq!(client.transport(), Transport::StreamableHttp);
    let log = posts(server_log("/restart/mcp").await);
    let initializes = posted_methods(&log)
        .into_iter()
        .filter(|method| method == "initialize")
        .count();
    assert_eq!(initializes, 2, "the first session and one new one");
    for entry in log
        .iter()
        .filter(|entry| entry["body"]["method"] != "initialize")
    {
        assert!(entry["headers"]["sessionId"].is_string(), "{entry}");
    }
}

/// The server refuses the first `notifications/initialized`: connecting fails, and the next use
/// initializes again and announces it, rather than sending requests on a session the server was
/// never told is initialized (which it refuses, as the Python SDK's servers do).
#[wasm_bindgen_test]
async fn a_refused_initialized_notification_is_not_a_ready_session() {
    let client = test_client("/refuse-initialized/mcp", TransportMode::Auto);
    let error = client.connect().await.expect_err("initialized refused");
    assert_eq!(error.code(), "mcp_http_status");
    let tools = client.list_tools().await.expect("listing on a new session");
    assert_eq!(tools.len(), 6);
    let log = posts(server_log("/refuse-initialized/mcp").await);
    assert_eq!(
        posted_methods(&log),
        [
            "initialize",
            "notifications/initialized",
            "initialize",
            "notifications/initialized",
            "tools/list",
            "tools/list",
            "tools/list"
        ]
    );
}

#[wasm_bindgen_test]
async fn a_stream_closed_early_is_resumed_with_last_event_id_after_retry() {
    let client = test_client("/resume/stream", TransportMode::Auto);
    let result = client
        .call_tool("echo", json!({"message": "resumed"}), None, None, None)
        .await
        .expect("the response arrives on the resumed stream");
    assert_eq!(result.model_text, "Echo: resumed");
    let log = server_log("/resume/stream").await;
    let call = log
        .iter()
        .find(|entry| entry["body"]["method"] == "tools/call")
        .expect("the call was posted");
    let resume = log
        .iter()
        .find(|entry| entry["method"] == "GET" && entry["headers"]["lastEventId"].is_string())
        .expect("a GET resumed the stream");
    let event_id = format!(
        "resume-{}-{}",
        call["headers"]["sessionId"].as_str().unwrap_or_default(),
        call["body"]["id"]
    );
    assert_eq!(resume["headers"]["lastEventId"], event_id.as_str());
    assert_eq!(resume["headers"]["accept"], "text/event-stream");
    let waited_ms =
        resume["at"].as_f64().unwrap_or_default() - call["at"].as_f64().unwrap_or_default();
    assert!(
        waited_ms >= 300.0,
        "waited {waited_ms} ms, the server asked for retry: 300"
    );
}

/// The connection breaks inside the response event, or right after its `id:` line: the call is
/// resumed from the last whole event (the progress before it), and the replayed response arrives.
#[wasm_bindgen_test]
async fn a_stream_broken_inside_the_response_is_resumed_from_the_last_whole_event() {
    for cut in ["data", "id"] {
        let path = format!("/broken/{cut}");
        let client = test_client(&path, TransportMode::Auto);
        let outcome = client
            .call_tool("echo", json!({"cut": cut}), None, None, None)
            .await;
        assert_eq!(
            outcome
                .map(|result| result.model_text)
                .map_err(|error| error.to_string()),
            Ok("after the break".to_owned()),
            "cut inside the {cut}"
        );
        let log = server_log(&path).await;
        let call = log
            .iter()
            .find(|entry| entry["body"]["method"] == "tools/call")
            .expect("the call was posted");
        let resumed_from: Vec<&Value> = log
            .iter()
            .filter(|entry| entry["method"] == "GET" && entry["headers"]["lastEventId"].is_string())
            .map(|entry| &entry["headers"]["lastEventId"])
            .collect();
        let progress_event = format!(
            "broken-{}-{}-1",
            call["headers"]["sessionId"].as_str().unwrap_or_default(),
            call["body"]["id"]
        );
        assert_eq!(
            resumed_from,
            [progress_event.as_str()],
            "cut inside the {cut}"
        );
    }
}

#[wasm_bindgen_test]
async fn a_post_answering_405_falls_back_to_legacy_sse() {
    let client = test_client("/legacy/sse", TransportMode::Auto);
    let tools = client.list_tools().await.expect("listing over legacy SSE");
    assert_eq!(tools.len(), 6);
    assert_eq!(client.transport(), Transport::LegacySse);
    let result = client
        .call_tool("add", json!({"a": 2, "b": 40}), None, None, None)
        .await
        .expect("call over legacy SSE");
    assert_eq!(result.model_text, "42");
    let progress = RefCell::new(0);
    let count = |_: &Progress| *progress.borrow_mut() += 1;
    client
        .call_tool(
            "progress",
            json!({"steps": 2, "intervalMs": 10}),
            Some(&count),
            None,
            None,
        )
        .await
        .expect("progress over legacy SSE");
    assert_eq!(*progress.borrow(), 2);
    client.close().await;

    let forced = test_client("/legacy/forced", TransportMode::StreamableHttp);
    let error = forced
        .connect()
        .await
        .expect_err("no fallback when streamable-http is forced");
    assert_eq!(error.code(), "mcp_http_status");
}

#[wasm_bindgen_test]
async fn a_legacy_endpoint_on_another_origin_is_refused() {
    let direct = test_client("/cross/direct", TransportMode::Sse);
    let error = direct.connect().await.expect_err("cross-origin endpoint");
    assert_eq!(error.code(), "mcp_legacy_endpoint_refused");

    let auto = test_client("/cross/auto", TransportMode::Auto);
    let error = auto.connect().await.expect_err("both transports fail");
    assert_eq!(error.code(), "mcp_both_transports_failed");
    let message = error.to_string();
    assert!(message.contains("HTTP 405"), "{message}");
    assert!(
        message.contains("is not on the server's origin"),
        "{message}"
    );
    let log = server_log("/cross").await;
    assert!(
        log.iter().all(|entry| !entry["path"]
            .as_str()
            .unwrap_or_default()
            .ends_with("/message")),
        "nothing was posted to any endpoint"
    );
}

#[wasm_bindgen_test]
async fn an_unexposed_session_header_is_reported_as_a_cors_problem() {
    let client = test_client("/hidden-session/mcp", TransportMode::Auto);
    let error = client
        .connect()
        .await
        .expect_err("the session id is unreadable");
    assert_eq!(error.code(), "mcp_cors_header_missing");
    assert!(error
        .to_string()
        .contains("Access-Control-Expose-Headers: Mcp-Session-Id"));
}

#[wasm_bindgen_test]
async fn a_hanging_call_times_out_and_the_server_hears_cancelled() {
    let client = test_client("/sse/hang-timeout", TransportMode::Auto);
    let error = client
        .call_tool("hang", json!({}), None, None, Some(300))
        .await
        .expect_err("no answer");
    assert_eq!(error.code(), "mcp_timeout");
    let log = server_log_when("/sse/hang-timeout", has_cancelled(1)).await;
    let call_id = log
        .iter()
        .find(|entry| entry["body"]["method"] == "tools/call")
        .map(|entry| entry["body"]["id"].clone())
        .expect("the call was posted");
    let cancelled = log
        .iter()
        .find(|entry| entry["body"]["method"] == "notifications/cancelled")
        .expect("the server got notifications/cancelled");
    assert_eq!(cancelled["body"]["params"]["requestId"], call_id);
    assert_eq!(cancelled["body"]["params"]["reason"], "timeout");
    assert!(cancelled["headers"]["sessionId"].is_string());
}

#[wasm_bindgen_test]
async fn an_aborted_call_ends_at_once_and_the_server_hears_cancelled() {
    let client = test_client("/sse/hang-abort", TransportMode::Auto);
    client.connect().await.expect("connects");
    let signal = web_sys::AbortSignal::timeout_with_u32(150);
    let error = client
        .call_tool("hang", json!({}), None, Some(&signal), None)
        .await
        .expect_err("aborted");
    assert_eq!(error.code(), "mcp_aborted");
    let log = server_log_when("/sse/hang-abort", has_cancelled(1)).await;
    let cancelled: Vec<&Value> = log
        .iter()
        .filter(|entry| entry["body"]["method"] == "notifications/cancelled")
        .collect();
    assert_eq!(cancelled.len(), 1);
    assert_eq!(
        cancelled[0]["body"]["params"]["reason"],
        "aborted by the user"
    );
}

#[wasm_bindgen_test]
async fn progress_restarts_the_timeout() {
    let client = test_client("/sse/slow-progress", TransportMode::Auto);
    client.connect().await.expect("connects");
    let result = client
        .call_tool(
            "progress",
            json!({"steps": 5, "intervalMs": 200}),
            None,
            None,
            Some(450),
        )
        .await
        .expect("1 s in total, but never 450 ms without progress");
    assert_eq!(result.model_text, "done after 5 steps");
}

#[wasm_bindgen_test]
async fn close_deletes_the_session_and_later_calls_fail() {
    let client = test_client("/json/close", TransportMode::Auto);
    client.connect().await.expect("connects");
    client.close().await;
    let log = server_log("/json/close").await;
    let delete = log
        .iter()
        .find(|entry| entry["method"] == "DELETE")
        .expect("the session was deleted");
    assert!(delete["headers"]["sessionId"].is_string());
    let error = client.list_tools().await.expect_err("closed");
    assert_eq!(error.code(), "mcp_closed");
}

/// A client on `path` (a `/restart/` path, whose initialize takes 300 ms) whose first call was
/// aborted while it connected.
async fn client_with_an_abandoned_connect(path: &str) -> McpClient {
    let client = test_client(path, TransportMode::Auto);
    let signal = web_sys::AbortSignal::timeout_with_u32(150);
    let error = client
        .call_tool(
            "echo",
            json!({"message": "never"}),
            None,
            Some(&signal),
            None,
        )
        .await
        .expect_err("aborted while connecting");
    assert_eq!(error.code(), "mcp_aborted");
    client
}

/// A connect that every caller gave up (the call was aborted while the slow initialize ran) is
/// dropped with its request, not left for the next call to resume (after its timeout may have
/// fired): the next call connects anew.
#[wasm_bindgen_test]
async fn an_abandoned_connect_is_dropped_and_the_next_call_connects_anew() {
    let client = client_with_an_abandoned_connect("/restart/abandoned-then-used").await;
    let result = client
        .call_tool("echo", json!({"message": "later"}), None, None, None)
        .await
        .expect("a later call connects");
    assert_eq!(result.model_text, "Echo: later");
    let methods = posted_methods(&server_log("/restart/abandoned-then-used").await);
    let initializes = methods
        .iter()
        .filter(|method| *method == "initialize")
        .count();
    assert_eq!(initializes, 2, "{methods:?}");
}

/// A connect that every caller gave up (the call was aborted while the slow initialize ran) is
/// dropped, not resumed by a later call: after `close`, that call fails with `mcp_closed` and the
/// server hears nothing more.
#[wasm_bindgen_test]
async fn an_abandoned_connect_is_not_resumed_after_close() {
    let client = client_with_an_abandoned_connect("/restart/abandoned").await;
    client.close().await;
    let error = client.list_tools().await.expect_err("closed");
    assert_eq!(error.code(), "mcp_closed");
    sleep_ms(200).await;
    let methods = posted_methods(&server_log("/restart/abandoned").await);
    assert!(
        methods.iter().all(|method| method == "initialize"),
        "{methods:?}"
    );
}

#[wasm_bindgen_test]
async fn refused_urls_never_reach_fetch() {
    let stub = FetchStub::install();
    let refused = [
        "http://127.0.0.1:1/mcp",
        "https://127.0.0.1/mcp",
        "https://2130706433/mcp",
        "https://0x7f.0.0.1/mcp",
        "https://0177.0.0.1/mcp",
        "https://127.1/mcp",
        "https://10.0.0.1/mcp",
        "https://192.168.1.1/mcp",
        "https://169.254.169.254/latest",
        "https://[::1]/mcp",
        "https://[::ffff:127.0.0.1]/mcp",
        "https://[fd00::1]/mcp",
        "https://localhost/mcp",
        "https://mcp.localhost/mcp",
        "ftp://127.0.0.1/",
    ];
    for url in refused {
        match McpClient::new(McpServerConfig::new(url)) {
            Err(error) => assert_eq!(error.code(), "mcp_url_refused", "{url}"),
            Ok(client) => {
                let outcome = client.connect().await;
                panic!("{url} was accepted (connect: {:?})", outcome.err());
            }
        }
    }
    assert_eq!(stub.calls(), Vec::<String>::new());

    // The stub does intercept: a URL that passes (loopback with the opt-in, a closed port even
    // if the stub failed) reaches it and fails as a network error.
    let allowed = web_mcp_common::client_for("http://127.0.0.1:1/mcp", TransportMode::Auto);
    let error = allowed.connect().await.expect_err("the stub refuses");
    assert_eq!(error.code(), "mcp_network");
    assert_eq!(stub.calls(), ["http://127.0.0.1:1/mcp"]);
    drop(stub);
    assert!(test_server().starts_with("http://127.0.0.1:"));
}

#[wasm_bindgen_test]
async fn concurrent_calls_on_a_cold_client_share_one_session() {
    let client = test_client("/json/concurrent", TransportMode::Auto);
    let (first, second) = futures::join!(
        client.call_tool("echo", json!({"message": "one"}), None, None, None),
        client.call_tool("echo", json!({"message": "two"}), None, None, None),
    );
    assert_eq!(first.expect("first call").model_text, "Echo: one");
    assert_eq!(second.expect("second call").model_text, "Echo: two");
    let log = server_log("/json/concurrent").await;
    let initializes = posted_methods(&log)
        .into_iter()
        .filter(|method| method == "initialize")
        .count();
    assert_eq!(initializes, 1);
}

#[wasm_bindgen_test]
async fn configured_headers_go_with_every_request_to_that_server() {
    let mut config =
        McpServerConfig::new(&format!("{}{}", test_server(), run_path("/json/headers")));
    config.allow_insecure_local_urls = true;
    config.headers = vec![("Authorization".to_owned(), "Bearer user-token".to_owned())];
    let client = McpClient::new(config).expect("loopback with the opt-in");
    client.list_tools().await.expect("listing");
    client.close().await;
    let log = server_log("/json/headers").await;
    assert_eq!(
        posted_methods(&log).len(),
        5,
        "initialize, initialized, 3 pages"
    );
    assert!(log.iter().any(|entry| entry["method"] == "DELETE"));
    for entry in &log {
        assert_eq!(
            entry["headers"]["authorization"], "Bearer user-token",
            "{entry}"
        );
    }
}

#[wasm_bindgen_test]
async fn a_cached_listing_is_not_fetched_again() {
    let cache = std::cell::RefCell::new(mcp_agent_wasm::core::mcp::cache::ToolsCache::new());
    let first = test_client("/json/cached", TransportMode::Auto);
    let second_name_same_server = test_client("/json/cached", TransportMode::Auto);
    let listed = first.list_tools_cached(&cache).await.expect("listing");
    let cached = second_name_same_server
        .list_tools_cached(&cache)
        .await
        .expect("served from the cache");
    assert_eq!(listed, cached);
    assert!(
        std::rc::Rc::ptr_eq(&listed, &cached),
        "a hit shares the stored listing"
    );
    let log = server_log("/json/cached").await;
    let listings = posted_methods(&log)
        .into_iter()
        .filter(|method| method == "tools/list")
        .count();
    assert_eq!(listings, 3, "one listing of three pages, not two");
    assert_eq!(cache.borrow().len(), 1);
}

#[wasm_bindgen_test]
async fn a_call_aborted_before_it_starts_sends_nothing() {
    let client = test_client("/json/pre-aborted", TransportMode::Auto);
    client.connect().await.expect("connects");
    let signal = web_sys::AbortSignal::abort();
    let error = client
        .call_tool(
            "echo",
            json!({"message": "never"}),
            None,
            Some(&signal),
            None,
        )
        .await
        .expect_err("already aborted");
    assert_eq!(error.code(), "mcp_aborted");
    let methods = posted_methods(&server_log("/json/pre-aborted").await);
    assert_eq!(methods, ["initialize", "notifications/initialized"]);
}

/// Calls the test server's `add-tool` with `arguments` (the new tool's `name`, and where the
/// server sends its `tools/list_changed`).
async fn add_tool(client: &McpClient, arguments: Value) {
    client
        .call_tool("add-tool", arguments, None, None, None)
        .await
        .expect("the tool is added");
}

/// Lists through `cache` until `name` is among the tools, for at most about five seconds.
async fn listing_with(
    client: &McpClient,
    cache: &RefCell<mcp_agent_wasm::core::mcp::cache::ToolsCache>,
    name: &str,
) -> Vec<String> {
    let mut names = Vec::new();
    for _ in 0..250 {
        let tools = client.list_tools_cached(cache).await.expect("listing");
        names = tools.iter().map(|tool| tool.name.clone()).collect();
        if names.iter().any(|listed| listed == name) {
            break;
        }
        sleep_ms(20).await;
    }
    names
}

#[wasm_bindgen_test]
async fn a_tools_list_changed_notification_refreshes_a_cached_listing() {
    let cache = RefCell::new(mcp_agent_wasm::core::mcp::cache::ToolsCache::new());
    let client = test_client("/changing/mcp", TransportMode::Auto);
    let first = listing_with(&client, &cache, "add-tool").await;
    assert_eq!(first, ["echo", "add-tool"]);
    // As the TypeScript SDK's servers send it: on the standalone GET stream, once it is open.
    server_log_when("/changing/mcp", has_get).await;
    add_tool(&client, json!({"name": "weather"})).await;
    let after_standalone = listing_with(&client, &cache, "weather").await;
    assert_eq!(after_standalone, ["echo", "add-tool", "weather"]);
    // On the call's own response stream.
    add_tool(&client, json!({"name": "news", "via": "response"})).await;
    let after_response = listing_with(&client, &cache, "news").await;
    assert_eq!(after_response, ["echo", "add-tool", "weather", "news"]);
    client.close().await;
}

#[wasm_bindgen_test]
async fn progress_on_the_standalone_stream_reaches_its_call_and_restarts_the_timeout() {
    let client = test_client("/standalone/detached", TransportMode::Auto);
    client.connect().await.expect("connects");
    server_log_when("/standalone/detached", has_get).await;
    let (model_text, progress) = call_with_detached_progress(&client, 4).await;
    assert_eq!(model_text, "done after 4 steps");
    assert_eq!(progress, [1.0, 2.0, 3.0, 4.0]);
    client.close().await;
}

/// Calls `detached-progress`, whose `steps` reports of 300 ms each come on the standalone stream
/// and whose answer comes 300 ms after the last, under a 1 s timeout that each report restarts:
/// each wait leaves 700 ms to spare on a loaded machine, and the answer follows the last report
/// by 300 ms (the client ignores a report after the answer). Its text and the progress seen.
async fn call_with_detached_progress(client: &McpClient, steps: u32) -> (String, Vec<f64>) {
    let progress = RefCell::new(Vec::<f64>::new());
    let record = |event: &Progress| progress.borrow_mut().push(event.progress);
    let result = client
        .call_tool(
            "detached-progress",
            json!({"steps": steps, "intervalMs": 300}),
            Some(&record),
            None,
            Some(1000),
        )
        .await
        .expect("progress on the standalone stream kept the call alive");
    (result.model_text, progress.into_inner())
}

#[wasm_bindgen_test]
async fn a_standalone_stream_the_server_ends_is_opened_again_and_carries_progress() {
    let client = test_client("/standalone/reopened", TransportMode::Auto);
    client.connect().await.expect("connects");
    server_log_when("/standalone/reopened", has_get).await;
    client
        .call_tool("end-standalone", json!({}), None, None, None)
        .await
        .expect("the server ends its stream");
    let log = server_log_when("/standalone/reopened", |log| get_count(log) >= 2).await;
    assert_eq!(
        get_count(&log),
        2,
        "the stream is opened again once, 1 s later"
    );
    let (model_text, progress) = call_with_detached_progress(&client, 3).await;
    assert_eq!(model_text, "done after 3 steps");
    assert_eq!(progress, [1.0, 2.0, 3.0]);
    client.close().await;
}

#[wasm_bindgen_test]
async fn a_timeout_or_abort_ends_the_call_without_waiting_for_the_server_to_take_cancelled() {
    let client = test_client("/stuck/mcp", TransportMode::Auto);
    client.connect().await.expect("connects");
    let started = js_sys::Date::now();
    let error = client
        .call_tool("hang", json!({}), None, None, Some(200))
        .await
        .expect_err("no answer");
    assert_eq!(error.code(), "mcp_timeout");
    let timed_out_after = js_sys::Date::now() - started;
    // The server takes cancelled only after 5 s: an end well before that did not wait for it.
    assert!(
        timed_out_after < 3000.0,
        "the timeout of 200 ms ended the call after {timed_out_after} ms"
    );
    let started = js_sys::Date::now();
    let signal = web_sys::AbortSignal::timeout_with_u32(150);
    let error = client
        .call_tool("hang", json!({}), None, Some(&signal), None)
        .await
        .expect_err("aborted");
    assert_eq!(error.code(), "mcp_aborted");
    let aborted_after = js_sys::Date::now() - started;
    assert!(
        aborted_after < 3000.0,
        "the abort after 150 ms ended the call after {aborted_after} ms"
    );
    let log = server_log_when("/stuck/mcp", has_cancelled(2)).await;
    let cancelled = log
        .iter()
        .filter(|entry| entry["body"]["method"] == "notifications/cancelled")
        .count();
    assert_eq!(cancelled, 2, "the server was still told of both");
}

#[wasm_bindgen_test]
async fn a_tools_change_outlasts_a_failed_listing_and_reaches_concurrent_listings() {
    let cache = RefCell::new(mcp_agent_wasm::core::mcp::cache::ToolsCache::new());
    let client = test_client("/changing/failing-listing", TransportMode::Auto);
    let first = listing_with(&client, &cache, "add-tool").await;
    assert_eq!(first, ["echo", "add-tool"]);
    // On the call's own stream: the client has read the notification when the call returns.
    let added = json!({"name": "weather", "via": "response", "failNextListing": true});
    add_tool(&client, added).await;
    let error = client
        .list_tools_cached(&cache)
        .await
        .expect_err("the server fails this listing");
    assert_eq!(error.code(), "mcp_jsonrpc_error", "{error}");
    let names = |listing: Result<Rc<[McpTool]>, McpError>| {
        let tools = listing.expect("listing");
        tools
            .iter()
            .map(|tool| tool.name.clone())
            .collect::<Vec<_>>()
    };
    let after_failure = names(client.list_tools_cached(&cache).await);
    assert_eq!(after_failure, ["echo", "add-tool", "weather"]);
    // Two listings begun together after a change (two runs started at once) both see it.
    add_tool(&client, json!({"name": "news", "via": "response"})).await;
    let (first, second) = futures::join!(
        client.list_tools_cached(&cache),
        client.list_tools_cached(&cache)
    );
    assert_eq!(names(first), ["echo", "add-tool", "weather", "news"]);
    assert_eq!(names(second), ["echo", "add-tool", "weather", "news"]);
    client.close().await;
}

/// `Agent.close()` during a tool call aborts the call and closes its client in one turn: the
/// session is over (the DELETE says so), and nothing may follow it, not even `cancelled`.
#[wasm_bindgen_test]
async fn a_call_aborted_as_its_client_closes_sends_nothing_after_the_close() {
    let client = test_client("/json/abort-and-close", TransportMode::Auto);
    client.connect().await.expect("connects");
    let controller = web_sys::AbortController::new().expect("a controller");
    let signal = controller.signal();
    let call = client.call_tool("hang", json!({}), None, Some(&signal), None);
    let abort_and_close = async {
        server_log_when("/json/abort-and-close", |log| {
            posted_methods(log)
                .iter()
                .any(|method| method == "tools/call")
        })
        .await;
        controller.abort();
        client.close().await;
    };
    let (outcome, ()) = futures::join!(call, abort_and_close);
    outcome.expect_err("the call ended");
    // A POST sent after the close arrives within milliseconds on loopback.
    sleep_ms(500).await;
    let methods: Vec<String> = server_log("/json/abort-and-close")
        .await
        .iter()
        .map(|entry| {
            let method = entry["method"].as_str().unwrap_or_default();
            let rpc = entry["body"]["method"].as_str().unwrap_or_default();
            format!("{method} {rpc}").trim_end().to_owned()
        })
        .filter(|request| request.starts_with("POST") || request.starts_with("DELETE"))
        .collect();
    assert_eq!(
        methods,
        [
            "POST initialize",
            "POST notifications/initialized",
            "POST tools/call",
            "DELETE"
        ]
    );
}

/// How many POSTs of a log carried `method`.
fn count_posted(log: &[Value], method: &str) -> usize {
    posted_methods(log)
        .iter()
        .filter(|posted| *posted == method)
        .count()
}

fn tool_names(tools: &[McpTool]) -> Vec<&str> {
    tools.iter().map(|tool| tool.name.as_str()).collect()
}

const JSON_TOOLS: [&str; 6] = [
    "echo",
    "add",
    "progress",
    "ask-client",
    "hang",
    "structured",
];

/// Listings begun together on a cold client (five runs of a new Agent, five `listTools` of one
/// McpClient) share the one in flight: the server sees one initialize and one listing.
#[wasm_bindgen_test]
async fn listings_begun_together_share_one_listing() {
    let cache = RefCell::new(mcp_agent_wasm::core::mcp::cache::ToolsCache::new());
    let client = test_client("/json/listed-together", TransportMode::Auto);
    let (first, second, third, fourth, fifth) = futures::join!(
        client.list_tools_cached(&cache),
        client.list_tools_cached(&cache),
        client.list_tools_cached(&cache),
        client.list_tools(),
        client.list_tools(),
    );
    for tools in [first, second, third] {
        assert_eq!(tool_names(&tools.expect("listing")), JSON_TOOLS);
    }
    for tools in [fourth, fifth] {
        assert_eq!(tool_names(&tools.expect("listing")), JSON_TOOLS);
    }
    let log = server_log("/json/listed-together").await;
    assert_eq!(count_posted(&log, "initialize"), 1);
    assert_eq!(
        count_posted(&log, "tools/list"),
        3,
        "one listing of three pages"
    );
}

/// A listing that fails, fails every caller that shared it: none of them asks again.
#[wasm_bindgen_test]
async fn a_failed_listing_fails_every_caller_that_shared_it() {
    let client = test_client("/changing/shared-failure", TransportMode::Auto);
    let failing_next = json!({"name": "weather", "via": "response", "failNextListing": true});
    add_tool(&client, failing_next).await;
    let (first, second) = futures::join!(client.list_tools(), client.list_tools());
    for listing in [first.map(drop), second.map(drop)] {
        let error = listing.expect_err("the server fails this listing");
        assert_eq!(error.code(), "mcp_jsonrpc_error", "{error}");
    }
    let log = server_log("/changing/shared-failure").await;
    assert_eq!(count_posted(&log, "tools/list"), 1);
}

/// A caller that gives up on a listing (a run aborted while the tools are listed drops it)
/// leaves it to the callers that share it: they get it, and the server is asked once.
#[wasm_bindgen_test]
async fn a_listing_one_caller_gave_up_goes_on_for_the_others() {
    // `/restart/`: the initialize, part of the first listing, takes 300 ms.
    let client = test_client("/restart/listing-given-up", TransportMode::Auto);
    let given_up = async {
        let listing = std::pin::pin!(client.list_tools());
        let timer = std::pin::pin!(sleep_ms(100));
        futures::future::select(listing, timer).await;
    };
    let ((), kept) = futures::join!(given_up, client.list_tools());
    assert_eq!(tool_names(&kept.expect("listing")), JSON_TOOLS);
    let log = server_log("/restart/listing-given-up").await;
    assert_eq!(count_posted(&log, "initialize"), 1);
    assert_eq!(
        count_posted(&log, "tools/list"),
        3,
        "one listing of three pages"
    );
}

fn has_delete(log: &[Value]) -> bool {
    log.iter().any(|entry| entry["method"] == "DELETE")
}

/// The DELETE a server got on `path` for the session its initialize opened, once it arrived
/// (the client sends it in the background): the only one, carrying a session id the test server
/// gave (`session-N`), and nothing posted after the initialize.
async fn the_one_delete_after_initialize(path: &str) -> Value {
    let log = server_log_when(path, has_delete).await;
    assert_eq!(posted_methods(&log), ["initialize"]);
    let deletes = deletes(&log);
    assert_eq!(deletes.len(), 1, "{deletes:?}");
    let delete = deletes[0].clone();
    assert!(
        delete["headers"]["sessionId"]
            .as_str()
            .is_some_and(|id| id.starts_with("session-")),
        "{delete}"
    );
    delete
}

/// Waits for the DELETE a server gets on `path` after the client sent
/// `notifications/initialized`, and checks it is the only one and ends the session that
/// notification carried.
async fn assert_the_initialized_session_is_deleted(path: &str) {
    let log = server_log_when(path, has_delete).await;
    let posted = posts(log.clone());
    assert_eq!(
        posted_methods(&posted),
        ["initialize", "notifications/initialized"]
    );
    let opened = &posted[1]["headers"]["sessionId"];
    assert!(opened.is_string(), "{opened}");
    let deletes = deletes(&log);
    assert_eq!(deletes.len(), 1, "{deletes:?}");
    assert_eq!(&deletes[0]["headers"]["sessionId"], opened);
}

/// A server that answers initialize with a protocol version this client does not implement has
/// opened a session all the same: the client gives up and ends it, as `close` does, so that the
/// server can free it.
#[wasm_bindgen_test]
async fn a_session_in_an_unsupported_protocol_version_is_deleted() {
    let client = test_client("/future-version/mcp", TransportMode::Auto);
    let error = client
        .connect()
        .await
        .expect_err("2099-01-01 is not supported");
    assert_eq!(error.code(), "mcp_unsupported_protocol_version");
    let delete = the_one_delete_after_initialize("/future-version/mcp").await;
    assert_eq!(
        delete["headers"]["protocolVersion"],
        Value::Null,
        "none agreed"
    );
}

/// `close` while the initialize is on its way has no session id to end: the session the server
/// opened meanwhile is ended once its id arrives.
#[wasm_bindgen_test]
async fn a_session_opened_as_its_client_closed_is_deleted() {
    // `/restart/`: the server takes 300 ms to answer the initialize.
    let client = test_client("/restart/closed-while-initializing", TransportMode::Auto);
    let close_once_initializing = async {
        server_log_when("/restart/closed-while-initializing", |log| {
            !posted_methods(log).is_empty()
        })
        .await;
        client.close().await;
    };
    let (connected, ()) = futures::join!(client.connect(), close_once_initializing);
    assert_eq!(connected.expect_err("closed").code(), "mcp_closed");
    the_one_delete_after_initialize("/restart/closed-while-initializing").await;
}

/// How many legacy SSE streams on paths starting with `prefix` the test server holds open.
async fn open_legacy_streams(prefix: &str) -> u64 {
    let report = web_mcp_common::test_server_report("__legacy-open", prefix).await;
    report["open"].as_u64().expect("a count")
}

/// Over legacy SSE the stream is the session: one whose initialize the client gave up (a
/// protocol version it does not implement) is closed, not left holding the server's session
/// and one of the page's few connections to that server until the next connect or `close`.
#[wasm_bindgen_test]
async fn a_legacy_stream_whose_initialize_was_given_up_is_closed() {
    let path = "/legacy-future-version/mcp";
    let client = test_client(path, TransportMode::Sse);
    let error = client
        .connect()
        .await
        .expect_err("2099-01-01 is not supported");
    assert_eq!(error.code(), "mcp_unsupported_protocol_version");
    let mut open = open_legacy_streams(path).await;
    for _ in 0..250 {
        if open == 0 {
            break;
        }
        sleep_ms(20).await;
        open = open_legacy_streams(path).await;
    }
    assert_eq!(open, 0, "the stream is closed within about five seconds");
}

/// A client of `path` (see `run_path`) that waits at most `timeout_ms` for connecting.
fn client_with_timeout(path: &str, timeout_ms: u64) -> McpClient {
    let mut config = McpServerConfig::new(&format!("{}{}", test_server(), run_path(path)));
    config.allow_insecure_local_urls = true;
    config.timeout_ms = timeout_ms;
    McpClient::new(config).expect("loopback URLs pass with the opt-in")
}

/// The DELETEs in a log.
fn deletes(log: &[Value]) -> Vec<&Value> {
    log.iter()
        .filter(|entry| entry["method"] == "DELETE")
        .collect()
}

/// A connect that times out after the server opened the session (its
/// `notifications/initialized` is never answered) ends that session, as `close` does, rather
/// than leave it for the server to hold until it expires it.
#[wasm_bindgen_test]
async fn a_connect_timed_out_after_the_server_opened_a_session_deletes_it() {
    let path = "/stall-initialized/mcp";
    let client = client_with_timeout(path, 300);
    let error = client.connect().await.expect_err("never initialized");
    assert_eq!(error.code(), "mcp_timeout");
    assert_the_initialized_session_is_deleted(path).await;
}

/// A connect that times out while the initialize's reply stalls after its headers: the session
/// those headers opened is ended, although no result came.
#[wasm_bindgen_test]
async fn a_connect_timed_out_in_the_initialize_reply_deletes_the_session_it_opened() {
    let path = "/stall-initialize/mcp";
    let client = client_with_timeout(path, 300);
    let error = client.connect().await.expect_err("the reply never ends");
    assert_eq!(error.code(), "mcp_timeout");
    the_one_delete_after_initialize(path).await;
}

/// An initialize answered on an SSE stream that closes before the result is resumed with a GET
/// that carries the session id the POST's response headers gave: a server that needs it to find
/// the stream (this one answers 400 without it) could not be resumed otherwise.
#[wasm_bindgen_test]
async fn an_initialize_stream_closed_early_is_resumed_with_its_session_id() {
    let path = "/resume-initialize/mcp";
    let client = test_client(path, TransportMode::Auto);
    client.connect().await.expect("connects once resumed");
    let log = server_log(path).await;
    let posted = posts(log.clone());
    assert_eq!(
        posted_methods(&posted),
        ["initialize", "notifications/initialized"]
    );
    let opened = &posted[1]["headers"]["sessionId"];
    assert!(opened.is_string(), "{opened}");
    let resume = log
        .iter()
        .find(|entry| entry["method"] == "GET" && entry["headers"]["lastEventId"].is_string())
        .expect("the stream was resumed");
    assert_eq!(&resume["headers"]["sessionId"], opened, "{resume}");
    client.close().await;
}

/// Moves the page's clock (`Date.now`, which the client reads for a session's idle time)
/// `ahead_ms` ahead, so that a test need not wait for a session to go idle. Dropping it puts the
/// clock back.
struct ClockAhead {
    original: JsValue,
}

impl ClockAhead {
    fn install(ahead_ms: f64) -> Self {
        let date = js_sys::Reflect::get(&js_sys::global(), &"Date".into()).expect("Date exists");
        let original = js_sys::Reflect::get(&date, &"now".into()).expect("Date.now exists");
        let moved =
            js_sys::Function::new_with_args("now, ahead", "return () => now.call(Date) + ahead;")
                .call2(&JsValue::NULL, &original, &ahead_ms.into())
                .expect("makes the moved clock");
        js_sys::Reflect::set(&date, &"now".into(), &moved).expect("Date.now is writable");
        ClockAhead { original }
    }
}

impl Drop for ClockAhead {
    fn drop(&mut self) {
        let date = js_sys::Reflect::get(&js_sys::global(), &"Date".into()).expect("Date exists");
        let _ = js_sys::Reflect::set(&date, &"now".into(), &self.original);
    }
}

/// A session idle long enough to be pinged before reuse.
fn idle_clock() -> ClockAhead {
    ClockAhead::install(IDLE_PING_AFTER_MS as f64 + 1000.0)
}

/// The session id the first session on `path` carried (its `notifications/initialized`).
async fn first_session_id(path: &str) -> Value {
    let posted = posts(server_log(path).await);
    assert_eq!(
        posted_methods(&posted[..2]),
        ["initialize", "notifications/initialized"]
    );
    let id = posted[1]["headers"]["sessionId"].clone();
    assert!(id.is_string(), "{id}");
    id
}

/// An idle session whose ping fails is replaced by a new one, and ended on the server in the
/// background rather than left open there.
#[wasm_bindgen_test]
async fn an_idle_session_whose_ping_failed_is_deleted_and_replaced() {
    let path = "/ping-fails/idle";
    let client = test_client(path, TransportMode::Auto);
    client.connect().await.expect("connects");
    let old_session = first_session_id(path).await;
    let result = {
        let _idle = idle_clock();
        client
            .call_tool("echo", json!({"message": "later"}), None, None, None)
            .await
    };
    assert_eq!(result.expect("a new session").model_text, "Echo: later");
    let log = server_log_when(path, has_delete).await;
    assert_eq!(
        posted_methods(&posts(log.clone())),
        [
            "initialize",
            "notifications/initialized",
            "ping",
            "initialize",
            "notifications/initialized",
            "tools/call"
        ]
    );
    let deletes = deletes(&log);
    assert_eq!(deletes.len(), 1, "{deletes:?}");
    assert_eq!(deletes[0]["headers"]["sessionId"], old_session);
    client.close().await;
}

/// A server that does not implement `ping` answers it with a JSON-RPC error (-32601), as some do
/// (go-sdk#900, hermes-agent#50028): that answer came through the session, so the idle session
/// is alive and kept, not ended and replaced before every call after a minute's pause.
#[wasm_bindgen_test]
async fn an_idle_session_whose_ping_is_answered_with_an_error_is_kept() {
    let path = "/ping-unknown/idle";
    let client = test_client(path, TransportMode::Auto);
    client.connect().await.expect("connects");
    let result = {
        let _idle = idle_clock();
        client
            .call_tool("echo", json!({"message": "later"}), None, None, None)
            .await
    };
    assert_eq!(result.expect("the same session").model_text, "Echo: later");
    let log = server_log(path).await;
    assert_eq!(
        posted_methods(&posts(log.clone())),
        [
            "initialize",
            "notifications/initialized",
            "ping",
            "tools/call"
        ]
    );
    assert_eq!(deletes(&log), Vec::<&Value>::new());
    client.close().await;
}

/// An idle session whose ping fails while a call still runs on it is replaced, but not ended:
/// the DELETE would fail that call.
#[wasm_bindgen_test]
async fn an_idle_session_with_a_call_running_is_replaced_but_not_deleted() {
    let path = "/ping-fails/busy";
    let client = test_client(path, TransportMode::Auto);
    client.connect().await.expect("connects");
    let old_session = first_session_id(path).await;
    let slow_call = client.call_tool("slow", json!({"ms": 600}), None, None, None);
    let call_once_slow_runs = async {
        server_log_when(path, |log| {
            posted_methods(log).contains(&"tools/call".to_owned())
        })
        .await;
        let _idle = idle_clock();
        client
            .call_tool("echo", json!({"message": "meanwhile"}), None, None, None)
            .await
    };
    let (slow, meanwhile) = futures::join!(slow_call, call_once_slow_runs);
    assert_eq!(slow.expect("the slow call ends").model_text, "slept 600 ms");
    assert_eq!(
        meanwhile.expect("a new session").model_text,
        "Echo: meanwhile"
    );
    let log = server_log(path).await;
    assert_eq!(count_posted(&log, "initialize"), 2, "replaced");
    assert_eq!(deletes(&log), Vec::<&Value>::new(), "{old_session}");
    client.close().await;
}

/// Calls `echo` on `client` with a signal that fires after `abort_after_ms`, while it connects.
async fn call_aborted_while_connecting(client: &McpClient, abort_after_ms: u32) {
    let signal = web_sys::AbortSignal::timeout_with_u32(abort_after_ms);
    let error = client
        .call_tool(
            "echo",
            json!({"message": "never"}),
            None,
            Some(&signal),
            None,
        )
        .await
        .expect_err("aborted while connecting");
    assert_eq!(error.code(), "mcp_aborted");
}

/// A connect that every caller aborted after the server opened its session (initialize
/// answered with a session id, `notifications/initialized` stuck) ends that session, as a connect
/// that failed does, rather than leave it for the server to hold until it expires it.
#[wasm_bindgen_test]
async fn a_connect_aborted_after_the_server_opened_a_session_deletes_it() {
    let path = "/stall-initialized/aborted";
    let client = test_client(path, TransportMode::Auto);
    call_aborted_while_connecting(&client, 300).await;
    assert_the_initialized_session_is_deleted(path).await;
}

/// The same while the initialize's reply stalls after its headers: the session they opened is
/// ended, although no result came.
#[wasm_bindgen_test]
async fn a_connect_aborted_in_the_initialize_reply_deletes_the_session_it_opened() {
    let path = "/stall-initialize/aborted";
    let client = test_client(path, TransportMode::Auto);
    call_aborted_while_connecting(&client, 300).await;
    the_one_delete_after_initialize(path).await;
}

/// A connect aborted before the server answered anything knows of no session: it sends no
/// DELETE (nor anything else).
#[wasm_bindgen_test]
async fn a_connect_aborted_before_any_answer_deletes_nothing() {
    let path = "/stall/aborted";
    let client = test_client(path, TransportMode::Auto);
    call_aborted_while_connecting(&client, 150).await;
    sleep_ms(200).await;
    let log = server_log(path).await;
    assert_eq!(posted_methods(&log), ["initialize"]);
    assert!(!has_delete(&log), "{log:?}");
}

/// `close` during a connect ends the session the server opened; the callers' abort afterwards
/// sends no second DELETE, nor anything else.
#[wasm_bindgen_test]
async fn a_connect_aborted_after_close_sends_nothing_more() {
    let path = "/stall-initialized/closed-then-aborted";
    let client = test_client(path, TransportMode::Auto);
    let close_once_initialized = async {
        server_log_when(path, |log| posted_methods(log).len() == 2).await;
        client.close().await;
    };
    futures::join!(
        call_aborted_while_connecting(&client, 600),
        close_once_initialized
    );
    sleep_ms(200).await;
    let log = server_log(path).await;
    assert_eq!(
        posted_methods(&log),
        ["initialize", "notifications/initialized"]
    );
    let deletes = deletes(&log);
    assert_eq!(deletes.len(), 1, "{deletes:?}");
}
