#![cfg(target_arch = "wasm32")]
//! How many tools a run offers the model, against the local servers the test command starts:
//! the scripted provider records each model call, the MCP test server lists the tools.

mod node_common;

use js_sys::{Promise, Reflect};
use mcp_agent_wasm::web::agent::Agent;
use serde_json::{json, Value};
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::JsFuture;
use wasm_bindgen_test::*;

#[wasm_bindgen]
extern "C" {
    #[wasm_bindgen(js_name = fetch)]
    fn fetch_url(url: &str) -> Promise;
}

/// The scripted provider's base URL for OpenAI, whose options carry `tag` (to find this test's
/// records) and `extra` (faults).
fn provider_base_url(tag: &str, extra: &str) -> String {
    let options = js_sys::encode_uri_component(&format!("tag={tag}&{extra}"));
    format!("{}/_/{options}/v1", node_common::provider_server())
}

/// The model calls the scripted provider recorded for `tag`.
async fn recorded(tag: &str) -> Vec<Value> {
    let url = format!("{}/__requests", node_common::provider_server());
    let response: web_sys::Response = JsFuture::from(fetch_url(&url))
        .await
        .unwrap()
        .unchecked_into();
    let text = JsFuture::from(response.text().unwrap()).await.unwrap();
    let all: Vec<Value> = serde_json::from_str(&text.as_string().unwrap()).unwrap();
    let marker = format!("tag%3D{tag}%26");
    all.into_iter()
        .filter(|record| record["url"].as_str().unwrap_or_default().contains(&marker))
        .collect()
}

fn agent(config: Value) -> Agent {
    Agent::new(js_sys::JSON::parse(&config.to_string()).unwrap()).unwrap()
}

fn property(value: &JsValue, key: &str) -> JsValue {
    Reflect::get(value, &key.into()).unwrap()
}

/// A run whose servers offer OpenAI more than the 128 tools it takes fails before its first
/// model call with `provider_too_many_tools`, keeping the conversation, where OpenAI's 400
/// ("Invalid 'tools': array too long", played here by the scripted provider) failed it with
/// `provider_http_status`; `listTools` still lists every tool.
#[wasm_bindgen_test]
async fn a_run_offering_more_tools_than_the_provider_takes_fails_before_calling_it() {
    let tag = "too-many-tools";
    let refusal = json!({"error": {
        "message": "Invalid 'tools': array too long. Expected an array with maximum length 128, but got an array with length 130 instead.",
        "type": "invalid_request_error", "param": "tools", "code": "array_above_max_length"}});
    let agent = agent(json!({
        "provider": {"id": "openai", "apiKey": "k", "model": "m",
                     "baseUrl": provider_base_url(tag, &format!("status=400&errorBody={refusal}"))},
        "mcpServers": [{"name": "many", "url": format!("{}/many/130/too-many", node_common::mcp_test_server())}],
        "allowInsecureLocalUrls": true,
    }));
    let mut event_types = Vec::new();
    let ended = node_common::read_run(&agent, |event_type, _| {
        event_types.push(event_type.to_owned());
    })
    .await;
    let error = ended.expect_err("the run fails");
    assert_eq!(
        property(&error, "code").as_string().as_deref(),
        Some("provider_too_many_tools"),
        "{event_types:?}"
    );
    let message: String = error.unchecked_ref::<js_sys::Error>().message().into();
    assert_eq!(
        message,
        "provider `openai` takes at most 128 tools in a request, and the run offers 130 \
         (`many` 130): offer fewer with `allowedTools` on an `mcpServers` entry, connect fewer \
         MCP servers or give fewer `tools`"
    );
    let messages = js_sys::JSON::stringify(&property(&error, "messages")).unwrap();
    assert_eq!(
        messages.as_string().as_deref(),
        Some(r#"[{"role":"user","content":"go"}]"#)
    );
    assert_eq!(recorded(tag).await, Vec::<Value>::new());
    let listed = JsFuture::from(agent.list_tools(JsValue::UNDEFINED).unwrap())
        .await
        .unwrap();
    assert_eq!(js_sys::Array::from(&listed).length(), 130);
    JsFuture::from(agent.close()).await.unwrap();
}

fn to_value(value: &JsValue) -> Value {
    let text = js_sys::JSON::stringify(value).unwrap().as_string().unwrap();
    serde_json::from_str(&text).unwrap()
}

/// `allowedTools` on an `mcpServers` entry (the name of OpenAI's Responses MCP tool and
/// Anthropic's MCP connector for it) offers the model only the tools it names, as the server
/// lists them, and `listTools` shows only those; a name the server does not list is a
/// `serverError` of that server, and the run goes on. Here it also brings a server of 130 tools
/// under OpenAI's 128.
#[wasm_bindgen_test]
async fn only_the_allowed_tools_of_a_server_are_offered_and_listed() {
    let tag = "allowed-tools";
    let mcp = node_common::mcp_test_server();
    let agent = agent(json!({
        "provider": {"id": "openai", "apiKey": "k", "model": "m",
                     "baseUrl": provider_base_url(tag, "fixture=openai/text.chunks.txt")},
        "mcpServers": [
            {"name": "test", "url": format!("{mcp}/json/allowed-tools"), "allowedTools": ["echo", "missing"]},
            {"name": "many", "url": format!("{mcp}/many/130/allowed-tools"), "allowedTools": ["tool-7"]},
        ],
        "allowInsecureLocalUrls": true,
    }));
    let mut server_errors = Vec::new();
    let last_type = node_common::read_run(&agent, |event_type, event| {
        if event_type == "serverError" {
            server_errors.push(to_value(event));
        }
    })
    .await
    .expect("the run ends normally");
    assert_eq!(last_type, "final");
    assert_eq!(
        server_errors,
        [
            json!({"type": "serverError", "server": "test", "code": "mcp_unknown_allowed_tool",
                "message": "MCP server `test`: `allowedTools` names tools it does not list, or lists to run only as tasks (not implemented): `missing`"})
        ]
    );
    let requests = recorded(tag).await;
    assert_eq!(requests.len(), 1);
    let offered: Vec<&str> = requests[0]["json"]["tools"]
        .as_array()
        .expect("tools offered")
        .iter()
        .map(|tool| tool["function"]["name"].as_str().unwrap())
        .collect();
    assert_eq!(offered, ["echo", "tool-7"]);
    let listed = JsFuture::from(agent.list_tools(JsValue::UNDEFINED).unwrap())
        .await
        .unwrap();
    let listed: Vec<Value> = serde_json::from_value(to_value(&listed)).unwrap();
    let listed: Vec<&str> = listed
        .iter()
        .map(|tool| tool["tool"].as_str().unwrap())
        .collect();
    assert_eq!(listed, ["echo", "tool-7"]);
    JsFuture::from(agent.close()).await.unwrap();
}
