#![cfg(target_arch = "wasm32")]
//! Sampling with tools through the Agent (MCP 2025-11-25, "Client Features: Sampling", "Tools in
//! Sampling" and "Multi-turn Tool Loop"; SEP-1577): the MCP test server's `/sampling/` tool
//! `forecast` runs a server's own loop, lending the client's model its tool `get.weather`, and
//! the Agent's model (the scripted provider) answers each `sampling/createMessage`.

mod node_common;

use js_sys::Reflect;
use mcp_agent_wasm::web::agent::Agent;
use serde_json::{json, Value};
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::JsFuture;
use wasm_bindgen_test::*;

fn to_value(value: &JsValue) -> Value {
    let text = js_sys::JSON::stringify(value).expect("JSON data");
    serde_json::from_str(&text.as_string().unwrap_or_else(|| "null".to_owned())).expect("JSON")
}

/// The server is told `sampling.tools`; its tool is offered to the model under a name providers
/// take (`get_weather`) and comes back to it as a `tool_use` of its own name (`get.weather`)
/// with `stopReason: "toolUse"`; its second request, carrying the `tool_result`, reaches the
/// model as a tool message and gets the model's text. The page approves both with the tools in
/// view, and the Agent's own tool (`forecast`) is never offered in a sampling call.
#[wasm_bindgen_test]
async fn a_servers_sampling_loop_gets_tool_use_with_its_own_names_then_text() {
    let tag = format!("sampling-tools-{}", js_sys::Date::now());
    let options = js_sys::encode_uri_component(&format!("tag={tag}&"));
    node_common::script_provider(&json!({"rounds": [
        {"toolCalls": [{"id": "call_forecast", "name": "forecast", "arguments": {"question": "Weather in Paris?"}}]},
        {"toolCalls": [{"id": "call_weather", "name": "get_weather", "arguments": {"city": "Paris"}}]},
        {"text": "Paris: 18°C."},
        {"text": "done"},
    ]}))
    .await;
    let server = format!("{}/sampling/{tag}", node_common::mcp_test_server());
    let config = js_sys::JSON::parse(
        &json!({
            "provider": {"id": "openai", "apiKey": "k", "model": "scripted-model",
                         "baseUrl": format!("{}/_/{options}/v1", node_common::provider_server())},
            "mcpServers": [{"name": "weather", "url": server}],
            "allowInsecureLocalUrls": true,
        })
        .to_string(),
    )
    .expect("JSON");
    let approved = js_sys::Array::new();
    let approve = js_sys::Function::new_with_args(
        "request, context",
        "this.push({ tools: request.tools, toolChoice: request.toolChoice, server: context.server }); return true;",
    )
    .bind0(&approved);
    Reflect::set(&config, &"approveSampling".into(), &approve).expect("set");
    let agent = Agent::new(config).expect("a valid config");
    let mut results = Vec::new();
    let last = node_common::read_run(&agent, |event_type, event| {
        if event_type == "toolResult" || event_type == "toolError" {
            results.push(to_value(event));
        }
    })
    .await;
    assert_eq!(last.expect("the run ends normally"), "final");
    let [result] = results.as_slice() else {
        panic!("one tool outcome: {results:?}")
    };
    assert_eq!(result["id"], "call_forecast", "{result}");
    let answers: Value =
        serde_json::from_str(result["text"].as_str().expect("text")).expect("the answers as JSON");
    assert_eq!(
        answers,
        json!([
            {
                "role": "assistant",
                "content": [{"type": "tool_use", "id": "call_weather", "name": "get.weather", "input": {"city": "Paris"}}],
                "model": "scripted-model",
                "stopReason": "toolUse"
            },
            {
                "role": "assistant",
                "content": {"type": "text", "text": "Paris: 18°C."},
                "model": "scripted-model",
                "stopReason": "endTurn"
            }
        ])
    );
    let asked = to_value(&approved);
    let weather_tool = json!([{
        "name": "get.weather",
        "description": "Current weather for a city",
        "inputSchema": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}
    }]);
    let approval =
        json!({"tools": weather_tool, "toolChoice": {"mode": "auto"}, "server": "weather"});
    assert_eq!(asked, json!([approval, approval]));

    let requests = node_common::recorded_requests(&tag).await;
    assert_eq!(requests.len(), 4);
    let offered = |request: &Value| -> Vec<String> {
        let tools = request["tools"].as_array().cloned().unwrap_or_default();
        tools
            .iter()
            .map(|tool| {
                tool["function"]["name"]
                    .as_str()
                    .unwrap_or_default()
                    .to_owned()
            })
            .collect()
    };
    for own in [&requests[0], &requests[3]] {
        assert_eq!(
            offered(own),
            ["forecast"],
            "the Agent's table stays its own"
        );
    }
    for sampled in &requests[1..3] {
        assert_eq!(offered(sampled), ["get_weather"], "only the server's tool");
        assert_eq!(sampled["stream"], false);
    }
    let followed_up = &requests[2]["messages"];
    assert_eq!(followed_up[1]["tool_calls"][0]["id"], "call_weather");
    assert_eq!(
        followed_up[1]["tool_calls"][0]["function"]["name"],
        "get_weather"
    );
    assert_eq!(
        followed_up[2],
        json!({"role": "tool", "tool_call_id": "call_weather", "content": "Weather in Paris: 18°C"})
    );
    JsFuture::from(agent.close()).await.expect("closed");
}
