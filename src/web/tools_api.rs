//! JS exports of the tool layer: schema sanitizing, function names and argument checks. Each is
//! a thin conversion around the pure functions of `core::tools`.

use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use wasm_bindgen::prelude::*;

use super::error::js_error;
use super::json::{self, to_js};

use crate::core::tools::{
    build_tool_names, empty_string_as_object, sanitize_schema, validate_arguments, SchemaDialect,
};

fn from_js<T: DeserializeOwned>(value: &JsValue, what: &str) -> Result<T, JsValue> {
    json::from_js(value)
        .map_err(|error| js_error("invalid_argument", &format!("invalid {what}: {error}")).into())
}

/// `sanitizeJsonSchema(schema, dialect?)`: the schema made acceptable for a provider
/// (`"openai"` by default, `"openai-strict"`, `"gemini"`, `"anthropic"`), the warnings, and
/// whether it may be sent with `strict: true`.
#[wasm_bindgen(
    js_name = sanitizeJsonSchema,
    unchecked_return_type = "{ schema: Record<string, unknown>, warnings: string[], strict: boolean }"
)]
pub fn sanitize_json_schema(
    #[wasm_bindgen(unchecked_param_type = "unknown")] schema: JsValue,
    dialect: Option<String>,
) -> Result<JsValue, JsValue> {
    let schema: Value = from_js(&schema, "schema")?;
    let dialect = match dialect {
        None => SchemaDialect::default(),
        Some(name) => SchemaDialect::from_name(&name).ok_or_else(|| {
            js_error(
                "unknown_dialect",
                &format!("unknown schema dialect `{name}` (expected openai, openai-strict, gemini or anthropic)"),
            )
        })?,
    };
    to_js(&sanitize_schema(&schema, dialect))
}

#[derive(Deserialize)]
struct ToolRef {
    server: String,
    name: String,
}

/// `buildToolNames(tools)`: provider-facing function names for `{server, name}` tools, in the
/// same order, unique and at most 64 characters.
#[wasm_bindgen(
    js_name = buildToolNames,
    unchecked_return_type = "{ name: string, server: string, tool: string }[]"
)]
pub fn build_tool_names_js(
    #[wasm_bindgen(unchecked_param_type = "{ server: string, name: string }[]")] tools: JsValue,
) -> Result<JsValue, JsValue> {
    let tools: Vec<ToolRef> = from_js(&tools, "tools (expected an array of {server, name})")?;
    let pairs: Vec<(&str, &str)> = tools
        .iter()
        .map(|tool| (tool.server.as_str(), tool.name.as_str()))
        .collect();
    to_js(&build_tool_names(&pairs))
}

#[derive(Serialize)]
struct ArgumentCheck {
    ok: bool,
    errors: Vec<String>,
}

/// `validateToolArguments(schema, args)`: whether a model's arguments fit the tool's original
/// schema, with one message per problem. `""` arguments count as `{}`.
#[wasm_bindgen(
    js_name = validateToolArguments,
    unchecked_return_type = "{ ok: boolean, errors: string[] }"
)]
pub fn validate_tool_arguments(
    #[wasm_bindgen(unchecked_param_type = "unknown")] schema: JsValue,
    #[wasm_bindgen(unchecked_param_type = "unknown")] arguments: JsValue,
) -> Result<JsValue, JsValue> {
    let schema: Value = from_js(&schema, "schema")?;
    let arguments: Value = from_js(&arguments, "arguments")?;
    let errors: Vec<String> = validate_arguments(&schema, &empty_string_as_object(&arguments))
        .iter()
        .map(ToString::to_string)
        .collect();
    to_js(&ArgumentCheck {
        ok: errors.is_empty(),
        errors,
    })
}
