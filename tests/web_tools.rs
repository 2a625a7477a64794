#![cfg(target_arch = "wasm32")]
//! The tool exports called with plain JS values (built by `JSON.parse`, as a page would pass
//! them) return what the native functions return.

use mcp_agent_wasm::core::tools::{
    build_tool_names, sanitize_schema, validate_arguments, SchemaDialect,
};
use mcp_agent_wasm::web::tools_api::{
    build_tool_names_js, sanitize_json_schema, validate_tool_arguments,
};
use serde_json::{json, Value};
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_test::wasm_bindgen_test;

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
