//! JS exports of the tool layer: schema sanitizing, function names and argument checks. Each is
//! a thin conversion around the pure functions of `core::tools`.

use js_sys::Array;
use serde::de::DeserializeOwned;
use serde_json::Value;
use wasm_bindgen::prelude::*;

use super::error::{js_error, set_property};
use super::json::{self, object_of, strings_to_js, value_to_js};

use crate::core::tools::{
    build_tool_names, empty_string_as_object, sanitize_schema, validate_arguments, SchemaDialect,
};

fn from_js<T: DeserializeOwned>(value: &JsValue, what: &str) -> Result<T, JsValue> {
    json::from_js(value)
        .map_err(|error| js_error("invalid_argument", &format!("invalid {what}: {error}")).into())
}

/// `sanitizeJsonSchema(schema, dialect?)`: the schema made acceptable for a provider
/// (`"openai"` by default, `"openai-strict"`, `"gemini"`, `"anthropic"`), the warnings,
/// whether it may be sent with `strict: true`, and the property keys renamed (Anthropic), which
/// a model's arguments use and the tool does not know.
#[wasm_bindgen(
    js_name = sanitizeJsonSchema,
    unchecked_return_type = "{ schema: Record<string, unknown>, warnings: string[], strict: boolean, renamedProperties?: { sent: string, original: string }[] }"
)]
pub fn sanitize_json_schema(
    #[wasm_bindgen(unchecked_param_type = "unknown")] schema: JsValue,
    #[wasm_bindgen(unchecked_optional_param_type = "SchemaDialect")] dialect: Option<String>,
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
    let sanitized = sanitize_schema(&schema, dialect);
    let result = object_of(&[
        ("schema", value_to_js(&sanitized.schema)),
        ("warnings", strings_to_js(&sanitized.warnings)),
        ("strict", JsValue::from_bool(sanitized.strict)),
    ]);
    if !sanitized.renamed_properties.is_empty() {
        let renamed = Array::new();
        for property in &sanitized.renamed_properties {
            renamed.push(&object_of(&[
                ("sent", JsValue::from_str(&property.sent)),
                ("original", JsValue::from_str(&property.original)),
            ]));
        }
        set_property(&result, "renamedProperties", &renamed);
    }
    Ok(result)
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
    let tools: Value = from_js(&tools, "tools")?;
    let pairs = tool_refs(&tools).map_err(|message| {
        js_error(
            "invalid_argument",
            &format!("invalid tools: {message} (expected an array of {{server, name}})"),
        )
    })?;
    let names = Array::new();
    for name in build_tool_names(&pairs) {
        names.push(&object_of(&[
            ("name", JsValue::from_str(&name.name)),
            ("server", JsValue::from_str(&name.server)),
            ("tool", JsValue::from_str(&name.tool)),
        ]));
    }
    Ok(names.into())
}

/// The `(server, name)` pairs of `[{server, name}, …]`, read from the JSON value by hand (a
/// serde-derived reader for two strings costs about 1.7 KB of wasm).
fn tool_refs(tools: &Value) -> Result<Vec<(&str, &str)>, String> {
    let tools = tools.as_array().ok_or("not an array")?;
    let mut pairs = Vec::with_capacity(tools.len());
    for (index, tool) in tools.iter().enumerate() {
        pairs.push((
            member_text(tool, index, "server")?,
            member_text(tool, index, "name")?,
        ));
    }
    Ok(pairs)
}

fn member_text<'a>(tool: &'a Value, index: usize, key: &str) -> Result<&'a str, String> {
    tool.get(key)
        .and_then(Value::as_str)
        .ok_or_else(|| format!("tools[{index}].{key} must be a string"))
}

/// `validateToolArguments(schema, args)`: whether a model's arguments fit the tool's original
/// schema, with one message per problem. `""` arguments count as `{}`.
#[wasm_bindgen(
    js_name = validateToolArguments,
    unchecked_return_type = "{ ok: boolean, errors: string[] }"
)]
pub fn validate_tool_arguments(
    #[wasm_bindgen(unchecked_param_type = "unknown")] schema: JsValue,
    #[wasm_bindgen(unchecked_param_type = "unknown")] args: JsValue,
) -> Result<JsValue, JsValue> {
    let schema: Value = from_js(&schema, "schema")?;
    let arguments: Value = from_js(&args, "arguments")?;
    let errors: Vec<String> = validate_arguments(&schema, &empty_string_as_object(&arguments))
        .iter()
        .map(ToString::to_string)
        .collect();
    Ok(object_of(&[
        ("ok", JsValue::from_bool(errors.is_empty())),
        ("errors", strings_to_js(&errors)),
    ]))
}
