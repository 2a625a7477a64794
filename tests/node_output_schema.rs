#![cfg(target_arch = "wasm32")]
//! Tool results checked against their tools' `outputSchema` (MCP 2025-11-25, server/tools
//! "Output Schema": "Servers MUST provide structured results that conform to this schema",
//! "Clients SHOULD validate structured results against this schema"), by the Agent and by
//! `McpClient.callTool`, as the TypeScript SDK's `Client.callTool` checks them: against the real
//! server-everything's `get-structured-content` (which conforms) and the MCP test server's
//! `/bulk/` tools `mismatched-output` and `missing-output` (which do not).

mod node_common;

use js_sys::{Promise, Reflect};
use mcp_agent_wasm::web::agent::Agent;
use mcp_agent_wasm::web::mcp::JsMcpClient;
use serde_json::{json, Value};
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::JsFuture;
use wasm_bindgen_test::*;

const MISMATCHED: &str = "tool `mismatched-output` returned structuredContent that does not \
    match its outputSchema: structuredContent `unit`: required property missing; \
    structuredContent `temperature`: expected number, got string; \
    structuredContent `readings[1]`: expected number, got string";
const MISSING: &str = "tool `missing-output` has an outputSchema but returned no structuredContent";

fn everything_server() -> &'static str {
    option_env!("MCP_EVERYTHING_URL")
        .unwrap_or_else(|| panic!("MCP_EVERYTHING_URL is set by `cargo xtask test`"))
}

/// A `/bulk/` path of the MCP test server that no other test uses.
fn bulk_server(name: &str) -> String {
    format!(
        "{}/bulk/{name}-{}",
        node_common::mcp_test_server(),
        js_sys::Date::now()
    )
}

fn to_js(value: &Value) -> JsValue {
    js_sys::JSON::parse(&value.to_string()).expect("valid JSON")
}

fn to_value(value: &JsValue) -> Value {
    let text = js_sys::JSON::stringify(value).expect("JSON data");
    serde_json::from_str(&text.as_string().unwrap_or_else(|| "null".to_owned())).expect("JSON")
}

/// What a promise settled with: its value as JSON, or the rejection's `code` and `message`.
async fn settle(promise: Promise) -> Result<Value, (String, String)> {
    match JsFuture::from(promise).await {
        Ok(value) => Ok(to_value(&value)),
        Err(error) => {
            let property = |name: &str| {
                let value = Reflect::get(&error, &name.into()).unwrap_or_default();
                value.as_string().unwrap_or_default()
            };
            Err((property("code"), property("message")))
        }
    }
}

/// A result that breaks its tool's `outputSchema` is a `toolError` coded
/// `mcp_invalid_structured_content`, read by the model as `Error: <the mismatches>`; a
/// conforming one is a `toolResult`, and another MCP failure keeps its own code.
#[wasm_bindgen_test]
async fn the_agent_turns_results_that_break_their_output_schema_into_tool_errors() {
    let tag = format!("output-schema-{}", js_sys::Date::now());
    let options = js_sys::encode_uri_component(&format!("tag={tag}&"));
    node_common::script_provider(&json!({"rounds": [
        {"toolCalls": [
            {"id": "call_weather", "name": "get-structured-content", "arguments": {"location": "Chicago"}},
            {"id": "call_mismatched", "name": "mismatched-output", "arguments": {}},
            {"id": "call_missing", "name": "missing-output", "arguments": {}},
            {"id": "call_rpc", "name": "rpc-error", "arguments": {}},
        ]},
        {"text": "done"},
    ]}))
    .await;
    let agent = Agent::new(to_js(&json!({
        "provider": {"id": "openai", "apiKey": "k", "model": "m",
                     "baseUrl": format!("{}/_/{options}/v1", node_common::provider_server())},
        "mcpServers": [
            {"name": "everything", "url": everything_server()},
            {"name": "test", "url": bulk_server("agent-output-schema")},
        ],
        "allowInsecureLocalUrls": true,
    })))
    .expect("a valid config");
    let (mut results, mut errors) = (Vec::new(), Vec::new());
    let last = node_common::read_run(&agent, |event_type, event| match event_type {
        "toolResult" => results.push(to_value(event)),
        "toolError" => errors.push(to_value(event)),
        _ => {}
    })
    .await;
    assert_eq!(last.expect("the run ends normally"), "final");
    assert_eq!(results.len(), 1, "{results:?}");
    assert_eq!(results[0]["id"], "call_weather");
    assert!(results[0]["structuredContent"]["temperature"].is_number());
    errors.sort_by_key(|error| error["id"].as_str().unwrap_or_default().to_owned());
    let code_and_message: Vec<(&str, &str, &str)> = errors
        .iter()
        .map(|error| {
            let field = |name: &str| error[name].as_str().unwrap_or_default();
            (field("id"), field("code"), field("message"))
        })
        .collect();
    assert_eq!(
        code_and_message[..2],
        [
            (
                "call_mismatched",
                "mcp_invalid_structured_content",
                MISMATCHED
            ),
            ("call_missing", "mcp_invalid_structured_content", MISSING),
        ]
    );
    assert_eq!(code_and_message[2].0, "call_rpc");
    assert_eq!(code_and_message[2].1, "mcp_jsonrpc_error");

    let requests = node_common::recorded_requests(&tag).await;
    assert_eq!(requests.len(), 2);
    let tool_messages: Vec<(&str, &str)> = requests[1]["messages"]
        .as_array()
        .expect("messages")
        .iter()
        .filter(|message| message["role"] == "tool")
        .map(|message| {
            let id = message["tool_call_id"].as_str().unwrap_or_default();
            (id, message["content"].as_str().unwrap_or_default())
        })
        .collect();
    let read = |id: &str| {
        tool_messages
            .iter()
            .find(|(call, _)| *call == id)
            .map(|(_, content)| content.to_string())
    };
    assert_eq!(
        read("call_mismatched"),
        Some(format!("Error: {MISMATCHED}"))
    );
    assert_eq!(read("call_missing"), Some(format!("Error: {MISSING}")));
    assert!(read("call_weather").is_some_and(|content| content.contains("temperature")));
    JsFuture::from(agent.close()).await.expect("closed");
}

/// `callTool` checks a result against the `outputSchema` of the client's latest `listTools()`:
/// before any listing nothing is checked; after it a result that breaks its tool's schema
/// rejects with `mcp_invalid_structured_content`, and tools without one, and results that keep
/// theirs (server-everything's `get-structured-content`), resolve as before.
#[wasm_bindgen_test]
async fn mcp_client_call_tool_checks_results_against_the_latest_listing() {
    let url = bulk_server("client-output-schema");
    let client = JsMcpClient::new(to_js(&json!({"url": url, "allowInsecureLocalUrls": true})))
        .expect("loopback URLs pass with the opt-in");
    let call =
        |name: &str| client.call_tool(name.to_owned(), JsValue::UNDEFINED, JsValue::UNDEFINED);
    let unlisted = settle(call("mismatched-output"))
        .await
        .expect("not checked before a listing");
    assert_eq!(unlisted["structuredContent"]["temperature"], "warm");

    settle(client.list_tools()).await.expect("listing");
    let invalid = |message: &str| {
        Err((
            "mcp_invalid_structured_content".to_owned(),
            message.to_owned(),
        ))
    };
    assert_eq!(settle(call("mismatched-output")).await, invalid(MISMATCHED));
    assert_eq!(settle(call("missing-output")).await, invalid(MISSING));
    let echo = client.call_tool(
        "echo".to_owned(),
        to_js(&json!({"message": "hi"})),
        JsValue::UNDEFINED,
    );
    assert_eq!(
        settle(echo).await.expect("no outputSchema")["modelText"],
        "Echo: hi"
    );
    settle(client.close()).await.expect("closed");

    let everything = JsMcpClient::new(to_js(
        &json!({"url": everything_server(), "allowInsecureLocalUrls": true}),
    ))
    .expect("loopback URLs pass with the opt-in");
    let listed = settle(everything.list_tools()).await.expect("listing");
    let weather_tool = listed
        .as_array()
        .expect("tools")
        .iter()
        .find(|tool| tool["name"] == "get-structured-content")
        .expect("listed");
    assert!(weather_tool["outputSchema"].is_object());
    let weather = everything.call_tool(
        "get-structured-content".to_owned(),
        to_js(&json!({"location": "Chicago"})),
        JsValue::UNDEFINED,
    );
    let weather = settle(weather).await.expect("conforming content resolves");
    assert!(weather["structuredContent"]["temperature"].is_number());
    settle(everything.close()).await.expect("closed");
}
