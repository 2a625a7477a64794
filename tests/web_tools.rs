#![cfg(target_arch = "wasm32")]
//! The tool exports called with plain JS values (built by `JSON.parse`, as a page would pass
//! them) return what the native functions return; and an Agent's tool whose property keys a
//! provider refuses, against the local servers the test command starts.

mod node_common;

use mcp_agent_wasm::core::tools::{
    build_tool_names, sanitize_schema, validate_arguments, SchemaDialect,
};
use mcp_agent_wasm::web::agent::Agent;
use mcp_agent_wasm::web::tools_api::{
    build_tool_names_js, sanitize_json_schema, validate_tool_arguments,
};
use serde_json::{json, Value};
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_test::{wasm_bindgen_test, wasm_bindgen_test_configure};

wasm_bindgen_test_configure!(run_in_browser);

fn to_js(value: &Value) -> JsValue {
    js_sys::JSON::parse(&value.to_string()).expect("JSON.parse")
}

fn from_js(value: &JsValue) -> Value {
    let text: String = js_sys::JSON::stringify(value)
        .expect("JSON.stringify")
        .into();
    serde_json::from_str(&text).expect("JSON")
}

fn error_code(error: &JsValue) -> String {
    js_sys::Reflect::get(error, &JsValue::from_str("code"))
        .ok()
        .and_then(|code| code.as_string())
        .unwrap_or_default()
}

fn schemas() -> Vec<Value> {
    vec![
        json!({"type": "object", "properties": {"query": {"anyOf": [{"type": "string"}, {"type": "null"}], "default": null}}}),
        json!({"$defs": {"Node": {"type": "object", "properties": {"next": {"$ref": "#/$defs/Node"}}}}, "$ref": "#/$defs/Node"}),
        json!({"type": "object", "properties": {"url": {"type": "string", "format": "uri"}, "n": {"type": ["integer", "null"], "exclusiveMinimum": 0}, "flag": true}}),
        Value::Null,
        json!({"type": "object", "properties": {"filter[id]": {"type": "string"}, "$top": {"type": "integer"}}, "required": ["filter[id]"]}),
    ]
}

#[wasm_bindgen_test]
fn sanitize_json_schema_matches_native() {
    let dialects = [
        (None, SchemaDialect::OpenAi),
        (Some("openai-strict"), SchemaDialect::OpenAiStrict),
        (Some("gemini"), SchemaDialect::Gemini),
        (Some("anthropic"), SchemaDialect::Anthropic),
    ];
    for schema in schemas() {
        for (name, dialect) in dialects {
            let from_wasm =
                sanitize_json_schema(to_js(&schema), name.map(str::to_owned)).expect("sanitized");
            let native = serde_json::to_value(sanitize_schema(&schema, dialect)).expect("json");
            assert_eq!(from_js(&from_wasm), native, "{name:?} {schema}");
        }
    }
}

#[wasm_bindgen_test]
fn an_unknown_dialect_is_an_error_with_a_code() {
    let error = sanitize_json_schema(to_js(&json!({})), Some("cohere".to_owned()))
        .expect_err("unknown dialect");
    assert_eq!(error_code(&error), "unknown_dialect");
    assert!(error.is_instance_of::<js_sys::Error>());
}

#[wasm_bindgen_test]
fn build_tool_names_matches_native() {
    let long_name = "n".repeat(64);
    let tools = json!([
        {"server": "github", "name": "search.issues"},
        {"server": "gitlab", "name": "search.issues"},
        {"server": "a", "name": long_name},
        {"server": "b", "name": long_name},
        {"server": "c", "name": long_name},
        {"server": "x", "name": ""}
    ]);
    let from_wasm = build_tool_names_js(to_js(&tools)).expect("names");
    let pairs: Vec<(String, String)> = tools
        .as_array()
        .into_iter()
        .flatten()
        .map(|tool| {
            (
                tool["server"].as_str().unwrap_or_default().to_owned(),
                tool["name"].as_str().unwrap_or_default().to_owned(),
            )
        })
        .collect();
    let native = serde_json::to_value(build_tool_names(&pairs)).expect("json");
    assert_eq!(from_js(&from_wasm), native);
    assert_eq!(native.as_array().map(Vec::len), Some(6));
    let refused = [
        (json!([{"server": 1}]), "tools[0].server must be a string"),
        (
            json!([{"server": "a", "name": "x"}, {"server": "b"}]),
            "tools[1].name must be a string",
        ),
        (json!({"server": "a", "name": "x"}), "not an array"),
    ];
    for (tools, reason) in refused {
        let error = build_tool_names_js(to_js(&tools)).expect_err("bad input");
        assert_eq!(error_code(&error), "invalid_argument");
        let message: String = error.unchecked_ref::<js_sys::Error>().message().into();
        assert_eq!(
            message,
            format!("invalid tools: {reason} (expected an array of {{server, name}})")
        );
    }
}

#[wasm_bindgen_test]
fn validate_tool_arguments_matches_native() {
    let schema = json!({
        "type": "object",
        "properties": {"city": {"type": "string", "minLength": 2}, "days": {"type": "integer", "maximum": 7}},
        "required": ["city"]
    });
    let cases = [
        (json!({"city": "Oslo", "days": 3}), true),
        (json!({"city": "O", "days": 9}), false),
        (json!(""), false),
        (json!([1]), false),
    ];
    for (arguments, ok) in cases {
        let from_wasm =
            from_js(&validate_tool_arguments(to_js(&schema), to_js(&arguments)).expect("checked"));
        let normalized = if arguments == json!("") {
            json!({})
        } else {
            arguments.clone()
        };
        let errors: Vec<String> = validate_arguments(&schema, &normalized)
            .iter()
            .map(ToString::to_string)
            .collect();
        assert_eq!(
            from_wasm,
            json!({"ok": ok, "errors": errors}),
            "{arguments}"
        );
    }
}

/// One Anthropic Messages stream, as the API sends it: `events` are the content events between
/// `message_start` and `message_delta` (which carries `stop_reason`).
fn anthropic_stream(events: &[Value], stop_reason: &str) -> String {
    let start = json!({"type": "message_start", "message": {"id": "msg_keys", "type": "message",
        "role": "assistant", "model": "claude-test", "content": [], "stop_reason": null,
        "usage": {"input_tokens": 10, "output_tokens": 1}}});
    let delta = json!({"type": "message_delta", "delta": {"stop_reason": stop_reason},
        "usage": {"output_tokens": 5}});
    let stop = json!({"type": "message_stop"});
    std::iter::once(&start)
        .chain(events)
        .chain([&delta, &stop])
        .map(|event| {
            format!(
                "event: {}\ndata: {event}\n\n",
                event["type"].as_str().unwrap()
            )
        })
        .collect()
}

/// Anthropic refuses a request whose tool has a top-level property key outside
/// `^[a-zA-Z0-9_.-]{1,64}$` (anthropics/claude-code#79418, beautyfree/appstore-connect-mcp#2):
/// the Agent sends `filter[id]` and a 70-character key renamed, the model calls with the
/// renamed keys, and the MCP server gets its own keys back (decocms/studio#6874 maps them back
/// for the same reason). The `toolCall` event shows what the tool received; the conversation
/// keeps what the model sent.
#[wasm_bindgen_test]
async fn an_agents_call_with_renamed_property_keys_reaches_the_server_with_its_own_keys() {
    let provider = node_common::provider_server();
    let mcp = node_common::mcp_test_server();
    let long_key = "k".repeat(70);
    let long_sent = "k".repeat(64);
    let sent_arguments = format!(r#"{{"filter_id_":"42","{long_sent}":3}}"#);
    let call = anthropic_stream(
        &[
            json!({"type": "content_block_start", "index": 0, "content_block":
                {"type": "tool_use", "id": "toolu_keys", "name": "list-apps", "input": {}}}),
            json!({"type": "content_block_delta", "index": 0, "delta":
                {"type": "input_json_delta", "partial_json": sent_arguments}}),
            json!({"type": "content_block_stop", "index": 0}),
        ],
        "tool_use",
    );
    let answer = anthropic_stream(
        &[
            json!({"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}}),
            json!({"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "One app."}}),
            json!({"type": "content_block_stop", "index": 0}),
        ],
        "end_turn",
    );
    node_common::script_provider(&json!({"rounds": [{"raw": call}, {"raw": answer}]})).await;
    let config = json!({
        "provider": {"id": "anthropic", "apiKey": "k", "model": "claude-test", "baseUrl": provider},
        "mcpServers": [{"name": "keys", "url": format!("{mcp}/keys/run{}", js_sys::Date::now())}],
        "allowInsecureLocalUrls": true,
    });
    let agent = Agent::new(to_js(&config)).expect("a valid config");
    let mut tool_call_arguments = Value::Null;
    let mut result_text = String::new();
    let mut final_messages = Value::Null;
    let last = node_common::read_run(&agent, |event_type, event| {
        let field = |name: &str| {
            from_js(&js_sys::Reflect::get(event, &JsValue::from_str(name)).expect("a field"))
        };
        match event_type {
            "toolCall" => tool_call_arguments = field("arguments"),
            "toolResult" => result_text = field("text").as_str().unwrap_or_default().to_owned(),
            "final" => final_messages = field("messages"),
            _ => {}
        }
    })
    .await;
    assert_eq!(last.expect("the run ends with an event"), "final");
    let original = json!({"filter[id]": "42", long_key: 3});
    assert_eq!(tool_call_arguments, original);
    let received: Value = serde_json::from_str(&result_text).expect("the server's JSON");
    assert_eq!(received, original);
    assert_eq!(
        final_messages[1]["tool_calls"][0]["function"]["arguments"],
        json!(sent_arguments)
    );
}
