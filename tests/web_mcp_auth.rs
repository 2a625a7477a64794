#![cfg(target_arch = "wasm32")]
//! MCP servers that need authorization (MCP spec 2025-06-18 and 2025-11-25, "Authorization"):
//! a 401 with `WWW-Authenticate: Bearer resource_metadata=…` (RFC 9728 §5.1), a 403
//! `insufficient_scope` (the spec's scope step-up), tokens as `Authorization: Bearer …` on every
//! request, and the page's `getAccessToken` hook. Against the /auth/ modes of
//! testing/mcp-test-server.mjs on 127.0.0.1.

mod node_common;
#[allow(dead_code)] // each test target uses part of the helpers
mod web_mcp_common;

use js_sys::{Array, Function, Reflect};
use mcp_agent_wasm::core::mcp::session::TransportMode;
use mcp_agent_wasm::core::mcp::McpError;
use mcp_agent_wasm::web::agent::Agent;
use mcp_agent_wasm::web::mcp::{McpClient, McpServerConfig};
use serde_json::{json, Value};
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_test::*;
use web_mcp_common::{run_path, server_log, sleep_ms, test_server};

wasm_bindgen_test_configure!(run_in_browser);

/// A `getAccessToken` running `body` (with `context` in scope) and the contexts it was given.
fn token_hook(body: &str) -> (Function, Array) {
    let calls = Array::new();
    let make = Function::new_with_args(
        "calls",
        &format!("return (context) => {{ calls.push(context); {body} }};"),
    );
    let hook = make
        .call1(&JsValue::NULL, &calls)
        .expect("the hook is made")
        .unchecked_into();
    (hook, calls)
}

fn client(path: &str, hook: Option<&Function>, transport: TransportMode) -> McpClient {
    let mut config = McpServerConfig::new(&format!("{}{}", test_server(), run_path(path)));
    config.allow_insecure_local_urls = true;
    config.transport = transport;
    config.get_access_token = hook.cloned();
    McpClient::new(config).expect("a valid config")
}

fn member(value: &JsValue, key: &str) -> Option<String> {
    Reflect::get(value, &key.into()).ok()?.as_string()
}

/// The reason of each call of a hook, in order.
fn reasons(calls: &Array) -> Vec<String> {
    calls
        .iter()
        .map(|context| member(&context, "reason").unwrap_or_default())
        .collect()
}

fn metadata_url(path: &str) -> String {
    format!(
        "{}/.well-known/oauth-protected-resource{}",
        test_server(),
        run_path(path)
    )
}

async fn echo(client: &McpClient) -> Result<String, McpError> {
    let result = client
        .call_tool("echo", json!({"message": "hi"}), None, None, None)
        .await?;
    Ok(result.model_text)
}

async fn expire_token(client: &McpClient, next: &str) {
    let expired = client
        .call_tool("expire-token", json!({ "next": next }), None, None, None)
        .await;
    assert!(expired.is_ok(), "{expired:?}");
}

/// A 401 is `mcp_unauthorized`, not a generic HTTP status, and says where the page's OAuth flow
/// starts: the challenge's `resource_metadata` and `scope`, also as properties of the JS error.
#[wasm_bindgen_test]
async fn a_401_without_a_hook_is_mcp_unauthorized_with_the_resource_metadata() {
    let path = "/auth/no-hook";
    let error = client(path, None, TransportMode::StreamableHttp)
        .list_tools()
        .await
        .expect_err("the server wants a token");
    assert_eq!(error.code(), "mcp_unauthorized", "{error}");
    let message = error.to_string();
    let server = format!("{}{}", test_server(), run_path(path));
    assert!(
        message.starts_with(&format!("{server} answered HTTP 401")),
        "{message}"
    );
    assert!(message.contains(&metadata_url(path)), "{message}");
    let js = JsValue::from(error);
    assert_eq!(member(&js, "code").as_deref(), Some("mcp_unauthorized"));
    assert_eq!(member(&js, "resourceMetadataUrl"), Some(metadata_url(path)));
    assert_eq!(member(&js, "scope").as_deref(), Some("mcp:tools"));
}

/// The hook's token goes as `Authorization: Bearer …` on every request of the session: the
/// POSTs, the standalone GET and the DELETE; the hook is asked once, before initialize.
#[wasm_bindgen_test]
async fn the_hooks_token_goes_with_every_request() {
    let path = "/auth/every-request";
    let (hook, calls) = token_hook(r#"return "good";"#);
    let client = client(path, Some(&hook), TransportMode::Auto);
    let tools = client.list_tools().await.expect("listed with the token");
    assert!(tools.iter().any(|tool| tool.name == "echo"));
    assert_eq!(echo(&client).await.as_deref(), Ok("Echo: hi"));
    client.close().await;
    assert_eq!(reasons(&calls), ["connect"]);
    let context = calls.get(0);
    let url = format!("{}{}", test_server(), run_path(path));
    assert_eq!(member(&context, "url"), Some(url));
    let signal = Reflect::get(&context, &"signal".into()).expect("a signal");
    assert!(signal.is_instance_of::<web_sys::AbortSignal>());
    let log = server_log(path).await;
    let methods: Vec<&str> = log
        .iter()
        .filter_map(|entry| entry["method"].as_str())
        .collect();
    assert!(methods.contains(&"DELETE"), "{methods:?}");
    for entry in &log {
        assert_eq!(entry["headers"]["authorization"], "Bearer good", "{entry}");
    }
}

/// A token that expires mid-session: the refused call asks the hook once (reason
/// `unauthorized`, with the challenge), is sent again with the new token and succeeds; calls
/// refused together share that one question.
#[wasm_bindgen_test]
async fn an_expired_token_is_replaced_once_and_the_calls_sent_again() {
    let path = "/auth/expires";
    let (hook, calls) =
        token_hook(r#"return context.reason === "connect" ? "good" : Promise.resolve("fresh");"#);
    let client = client(path, Some(&hook), TransportMode::StreamableHttp);
    assert_eq!(echo(&client).await.as_deref(), Ok("Echo: hi"));
    expire_token(&client, "fresh").await;
    let (first, second, third) = futures::join!(echo(&client), echo(&client), echo(&client));
    for outcome in [first, second, third] {
        assert_eq!(outcome.as_deref(), Ok("Echo: hi"));
    }
    assert_eq!(reasons(&calls), ["connect", "unauthorized"]);
    let refusal = calls.get(1);
    assert_eq!(
        member(&refusal, "resourceMetadataUrl"),
        Some(metadata_url(path))
    );
    assert_eq!(member(&refusal, "scope").as_deref(), Some("mcp:tools"));
    assert_eq!(member(&refusal, "error").as_deref(), Some("invalid_token"));
    assert_eq!(echo(&client).await.as_deref(), Ok("Echo: hi"));
    let log = server_log(path).await;
    let last = log.last().expect("requests");
    assert_eq!(last["headers"]["authorization"], "Bearer fresh", "{last}");
}

/// A hook that gives the same token again, or throws, ends the call with `mcp_unauthorized`
/// after one question: no loop.
#[wasm_bindgen_test]
async fn a_hook_without_a_new_token_ends_in_mcp_unauthorized() {
    let cases = [
        (
            "/auth/same-token",
            r#"return "good";"#,
            "gave the same token again",
        ),
        (
            "/auth/hook-throws",
            r#"if (context.reason === "connect") return "good"; throw new Error("login needed");"#,
            "`getAccessToken` threw: login needed",
        ),
        (
            "/auth/hook-rejects",
            r#"return context.reason === "connect" ? "good" : Promise.reject(new Error("popup closed"));"#,
            "`getAccessToken` failed: popup closed",
        ),
    ];
    for (path, body, note) in cases {
        let (hook, calls) = token_hook(body);
        let client = client(path, Some(&hook), TransportMode::StreamableHttp);
        expire_token(&client, "fresh").await;
        let error = echo(&client).await.expect_err("no new token");
        assert_eq!(error.code(), "mcp_unauthorized", "{path}: {error}");
        assert!(error.to_string().ends_with(note), "{path}: {error}");
        assert!(!error.to_string().contains("Bearer good"), "{error}");
        assert_eq!(reasons(&calls), ["connect", "unauthorized"], "{path}");
    }
}

/// A 403 `insufficient_scope` is the spec's step-up: the hook is asked with the scope needed,
/// and the call succeeds with the new token; without a hook it is `mcp_forbidden`, scope given.
#[wasm_bindgen_test]
async fn insufficient_scope_asks_for_a_token_with_more_scope() {
    let path = "/auth-scope/step-up";
    let (hook, calls) =
        token_hook(r#"return context.error === "insufficient_scope" ? "admin" : "good";"#);
    let client = client(path, Some(&hook), TransportMode::StreamableHttp);
    let result = client
        .call_tool("admin", json!({}), None, None, None)
        .await
        .expect("stepped up");
    assert_eq!(result.model_text, "admin done");
    assert_eq!(reasons(&calls), ["connect", "unauthorized"]);
    assert_eq!(
        member(&calls.get(1), "scope").as_deref(),
        Some("mcp:tools mcp:admin")
    );

    let (hook, _) = token_hook(r#"return "good";"#);
    let forbidden_path = "/auth-scope/forbidden";
    let mut config =
        McpServerConfig::new(&format!("{}{}", test_server(), run_path(forbidden_path)));
    config.allow_insecure_local_urls = true;
    config.headers = vec![("Authorization".to_owned(), "Bearer good".to_owned())];
    let plain = McpClient::new(config).expect("a valid config");
    let error = plain
        .call_tool("admin", json!({}), None, None, None)
        .await
        .expect_err("no scope");
    assert_eq!(error.code(), "mcp_forbidden", "{error}");
    let js = JsValue::from(error);
    assert_eq!(member(&js, "scope").as_deref(), Some("mcp:tools mcp:admin"));
    drop(hook);
}

/// The legacy SSE transport sends the token on its stream and on its POSTs (whose endpoint,
/// `/auth-legacy/message`, is shared by every run, so every POST there is checked).
#[wasm_bindgen_test]
async fn legacy_sse_sends_the_token_on_the_stream_and_the_posts() {
    let path = "/auth-legacy/token";
    let (hook, calls) = token_hook(r#"return "good";"#);
    let client = client(path, Some(&hook), TransportMode::Auto);
    assert_eq!(echo(&client).await.as_deref(), Ok("Echo: hi"));
    assert_eq!(reasons(&calls), ["connect"]);
    client.close().await;
    let stream = server_log(path).await;
    assert!(
        stream.iter().any(|entry| entry["method"] == "GET"),
        "{stream:?}"
    );
    let url = format!("{}/__log?path=/auth-legacy/message", test_server());
    let request = mcp_agent_wasm::web::http::HttpRequest {
        method: "GET",
        url: &url,
        ..Default::default()
    };
    let mut response = mcp_agent_wasm::web::http::fetch(&request, None)
        .await
        .expect("the log");
    let posts: Vec<Value> =
        serde_json::from_str(&response.text().await.expect("a body")).expect("JSON");
    assert!(posts.len() >= 3, "{posts:?}");
    for entry in stream.iter().chain(&posts) {
        assert_eq!(entry["headers"]["authorization"], "Bearer good", "{entry}");
    }
}

/// An Agent's `mcpServers` entry takes the hook too: the run lists and calls the tool.
#[wasm_bindgen_test]
async fn an_agent_run_lists_and_calls_tools_with_the_hooks_token() {
    node_common::script_provider(&json!({ "rounds": [
        { "toolCalls": [{ "id": "call_echo", "name": "echo", "arguments": { "message": "hi" } }] },
        { "text": "done" },
    ]}))
    .await;
    let path = "/auth/agent";
    let config = json!({
        "provider": { "id": "openai", "apiKey": "k", "model": "m",
            "baseUrl": format!("{}/v1", node_common::provider_server()) },
        "mcpServers": [{ "name": "auth", "url": format!("{}{}", test_server(), run_path(path)) }],
        "allowInsecureLocalUrls": true,
    });
    let config = js_sys::JSON::parse(&config.to_string()).expect("JSON");
    let (hook, calls) = token_hook(r#"return "good";"#);
    let entry = Reflect::get_u32(&Reflect::get(&config, &"mcpServers".into()).unwrap(), 0).unwrap();
    Reflect::set(&entry, &"getAccessToken".into(), &hook).unwrap();
    let agent = Agent::new(config).expect("a valid config");
    let mut result = String::new();
    let last = node_common::read_run(&agent, |event_type, event| {
        if event_type == "toolResult" {
            result = member(event, "text").unwrap_or_default();
        }
    })
    .await
    .expect("the run ends normally");
    assert_eq!(last, "final");
    assert_eq!(result, "Echo: hi");
    assert_eq!(reasons(&calls), ["connect"]);
}

/// A hook beside an `Authorization` header is refused: which would be sent is unclear.
#[wasm_bindgen_test]
fn a_hook_beside_an_authorization_header_is_refused() {
    let config = json!({
        "provider": { "id": "openai", "apiKey": "k", "model": "m" },
        "mcpServers": [{ "name": "auth", "url": "https://mcp.example.com/mcp",
            "headers": { "authorization": "Bearer x" } }],
    });
    let config = js_sys::JSON::parse(&config.to_string()).expect("JSON");
    let (hook, _) = token_hook(r#"return "good";"#);
    let entry = Reflect::get_u32(&Reflect::get(&config, &"mcpServers".into()).unwrap(), 0).unwrap();
    Reflect::set(&entry, &"getAccessToken".into(), &hook).unwrap();
    let error = Agent::new(config).err().expect("refused");
    assert_eq!(member(&error, "code").as_deref(), Some("invalid_config"));
    let message = member(&error, "message").unwrap_or_default();
    assert!(
        message.contains("`getAccessToken` and an `Authorization` header"),
        "{message}"
    );
    assert!(!message.contains("Bearer x"), "{message}");
}

/// A token `fetch` cannot send in a header is `mcp_invalid_header`, naming `getAccessToken` and
/// the character's position, never the token.
#[wasm_bindgen_test]
async fn a_token_fetch_cannot_send_is_refused_without_quoting_it() {
    let (hook, _) = token_hook(r#"return "secret\u03a9token";"#);
    let client = client(
        "/auth/unsendable",
        Some(&hook),
        TransportMode::StreamableHttp,
    );
    let error = client.list_tools().await.expect_err("refused");
    assert_eq!(error.code(), "mcp_invalid_header", "{error}");
    let message = error.to_string();
    assert!(
        message.contains("`getAccessToken`: character 7"),
        "{message}"
    );
    assert!(!message.contains("secret"), "{message}");
}

/// The hook's wait ends with the call's abort, and its `context.signal` tells the page so, so
/// that it can close a login window it opened.
#[wasm_bindgen_test]
async fn aborting_a_call_aborts_the_hooks_signal() {
    let path = "/auth/abort-hook";
    let (hook, calls) =
        token_hook(r#"return context.reason === "connect" ? "good" : new Promise(() => {});"#);
    let client = client(path, Some(&hook), TransportMode::StreamableHttp);
    expire_token(&client, "fresh").await;
    let controller = web_sys::AbortController::new().expect("AbortController");
    let signal = controller.signal();
    let call = client.call_tool("echo", json!({"message": "hi"}), None, Some(&signal), None);
    let abort = async {
        for _ in 0..250 {
            if calls.length() == 2 {
                break;
            }
            sleep_ms(20).await;
        }
        controller.abort();
    };
    let (outcome, ()) = futures::join!(call, abort);
    assert_eq!(outcome.err().map(|error| error.code()), Some("mcp_aborted"));
    assert_eq!(reasons(&calls), ["connect", "unauthorized"]);
    let hook_signal: web_sys::AbortSignal = Reflect::get(&calls.get(1), &"signal".into())
        .expect("a signal")
        .unchecked_into();
    assert!(hook_signal.aborted());
    assert!(!Reflect::get(&calls.get(0), &"signal".into())
        .expect("a signal")
        .unchecked_into::<web_sys::AbortSignal>()
        .aborted());
}

/// The first use, as the spec's flow has it: no token yet, the initialize is answered 401, the
/// page runs its OAuth flow from the challenge's `resourceMetadataUrl` and the hook hands the
/// token; the initialize is sent again with it.
#[wasm_bindgen_test]
async fn a_401_on_initialize_without_a_token_is_answered_by_the_hook() {
    let path = "/auth/first-use";
    let (hook, calls) = token_hook(
        r#"return context.reason === "connect" ? null : context.resourceMetadataUrl && "good";"#,
    );
    let client = client(path, Some(&hook), TransportMode::Auto);
    let tools = client
        .list_tools()
        .await
        .expect("listed after the hook's token");
    assert!(tools.iter().any(|tool| tool.name == "echo"));
    assert_eq!(reasons(&calls), ["connect", "unauthorized"]);
    let refusal = calls.get(1);
    assert_eq!(
        member(&refusal, "resourceMetadataUrl"),
        Some(metadata_url(path))
    );
    assert_eq!(member(&refusal, "error"), None);
    let log = server_log(path).await;
    let posts: Vec<&Value> = log
        .iter()
        .filter(|entry| entry["method"] == "POST")
        .collect();
    assert_eq!(posts[0]["body"]["method"], "initialize");
    assert_eq!(posts[0]["headers"]["authorization"], Value::Null);
    assert_eq!(posts[1]["body"]["method"], "initialize");
    assert_eq!(posts[1]["headers"]["authorization"], "Bearer good");
}

/// An Agent's server that refuses it is a `serverError` event carrying the challenge, and the
/// run goes on without that server's tools.
#[wasm_bindgen_test]
async fn an_agents_refused_server_is_a_server_error_with_the_challenge() {
    node_common::script_provider(&json!({ "rounds": [{ "text": "no tools" }] })).await;
    let path = "/auth/agent-refused";
    let config = json!({
        "provider": { "id": "openai", "apiKey": "k", "model": "m",
            "baseUrl": format!("{}/v1", node_common::provider_server()) },
        "mcpServers": [{ "name": "locked", "url": format!("{}{}", test_server(), run_path(path)) }],
        "allowInsecureLocalUrls": true,
    });
    let agent = Agent::new(js_sys::JSON::parse(&config.to_string()).expect("JSON"))
        .expect("a valid config");
    let mut server_error = None;
    let last = node_common::read_run(&agent, |event_type, event| {
        if event_type == "serverError" {
            server_error = Some(event.clone());
        }
    })
    .await
    .expect("the run ends normally");
    assert_eq!(last, "final");
    let event = server_error.expect("a serverError event");
    assert_eq!(member(&event, "code").as_deref(), Some("mcp_unauthorized"));
    assert_eq!(
        member(&event, "resourceMetadataUrl"),
        Some(metadata_url(path))
    );
    assert_eq!(member(&event, "scope").as_deref(), Some("mcp:tools"));
    let message = member(&event, "message").unwrap_or_default();
    assert!(message.starts_with("MCP server `locked`: "), "{message}");
}
