#![cfg(not(target_arch = "wasm32"))]
//! The schema sanitizer: real-world schemas per dialect (table), and properties over generated
//! schemas (never panics, idempotent, output valid for the dialect by an independent checker).

use mcp_agent_wasm::core::tools::{
    build_tool_table, sanitize_schema, validate_arguments, McpTool, SchemaDialect,
};
use proptest::prelude::*;
use serde_json::{json, Map, Value};

const DIALECTS: [SchemaDialect; 4] = [
    SchemaDialect::OpenAi,
    SchemaDialect::OpenAiStrict,
    SchemaDialect::Gemini,
    SchemaDialect::Anthropic,
];

// The dialect checker: what each dialect accepts, written independently of the sanitizer so that the tests can check
// its output against it. The rules follow the providers' documentation: OpenAI structured
// outputs ("Supported schemas"), Gemini's `Schema` object (OpenAPI 3.0 subset), and plain JSON
// Schema with an object root for OpenAI non-strict and Anthropic.

const TYPES: [&str; 7] = [
    "string", "number", "integer", "boolean", "object", "array", "null",
];
const UNTYPED: [&str; 10] = [
    "enum", "const", "$ref", "anyOf", "oneOf", "allOf", "not", "if", "then", "else",
];
const STRICT_KEYS: [&str; 18] = [
    "type",
    "description",
    "title",
    "properties",
    "required",
    "additionalProperties",
    "items",
    "anyOf",
    "enum",
    "pattern",
    "format",
    "minimum",
    "maximum",
    "exclusiveMinimum",
    "exclusiveMaximum",
    "multipleOf",
    "minItems",
    "maxItems",
];
const STRICT_FORMATS: [&str; 9] = [
    "date-time",
    "time",
    "date",
    "duration",
    "email",
    "hostname",
    "ipv4",
    "ipv6",
    "uuid",
];
const GEMINI_KEYS: [&str; 19] = [
    "type",
    "format",
    "title",
    "description",
    "nullable",
    "enum",
    "minItems",
    "maxItems",
    "properties",
    "required",
    "minProperties",
    "maxProperties",
    "minLength",
    "maxLength",
    "pattern",
    "anyOf",
    "items",
    "minimum",
    "maximum",
];

/// Every rule `schema` breaks as tool parameters for `dialect`; for `openai-strict`, the strict
/// rules are checked only when `strict` is claimed (otherwise the tool is sent non-strict).
pub fn dialect_violations(schema: &Value, dialect: SchemaDialect, strict: bool) -> Vec<String> {
    let mut found = Vec::new();
    match schema.as_object() {
        Some(root)
            if root.get("type") == Some(&Value::from("object"))
                && root.get("properties").is_some_and(Value::is_object) => {}
        _ => found.push("#: the root is not an object schema with properties".to_owned()),
    }
    if dialect == SchemaDialect::OpenAiStrict && strict && schema.get("anyOf").is_some() {
        found.push("#: a root `anyOf`".to_owned());
    }
    // OpenAI's words: "schema must have type 'object' and not have 'oneOf'/'anyOf'/'allOf'/
    // 'enum'/'not' at the top level"; Anthropic refuses the first three there too.
    if matches!(dialect, SchemaDialect::OpenAi | SchemaDialect::Anthropic) {
        for keyword in ["anyOf", "oneOf", "allOf", "enum", "const", "not"] {
            if schema.get(keyword).is_some() {
                found.push(format!("#: a root `{keyword}`"));
            }
        }
    }
    // "tools.14.custom.input_schema.properties: Property keys should match pattern
    // '^[a-zA-Z0-9_.-]{1,64}$'", for the top level only (see
    // `anthropic_renames_the_property_keys_it_refuses`).
    if dialect == SchemaDialect::Anthropic {
        if let Some(Value::Object(properties)) = schema.get("properties") {
            for key in properties.keys() {
                if !is_anthropic_property_key(key) {
                    found.push(format!("#/properties/{key}: Anthropic refuses this key"));
                }
            }
        }
    }
    check_node(schema, dialect, strict, "#", 0, &mut found);
    found
}

fn is_anthropic_property_key(key: &str) -> bool {
    (1..=64).contains(&key.len())
        && key
            .bytes()
            .all(|byte| byte.is_ascii_alphanumeric() || b"_.-".contains(&byte))
}

fn check_node(
    schema: &Value,
    dialect: SchemaDialect,
    strict: bool,
    at: &str,
    object_depth: usize,
    found: &mut Vec<String>,
) {
    let Some(node) = schema.as_object() else {
        found.push(format!("{at}: a schema that is not an object"));
        return;
    };
    common_rules(node, at, found);
    if dialect != SchemaDialect::Gemini && node.contains_key("nullable") {
        found.push(format!("{at}: OpenAPI `nullable` is not JSON Schema"));
    }
    let is_object = type_names(node).contains(&"object");
    let object_depth = object_depth + usize::from(is_object);
    // "array schema missing items", strict or not (see `openai_arrays_always_have_items`).
    let openai = matches!(dialect, SchemaDialect::OpenAi | SchemaDialect::OpenAiStrict);
    if openai && type_names(node).contains(&"array") && !node.contains_key("items") {
        found.push(format!("{at}: an OpenAI array needs `items`"));
    }
    // Draft 2020-12, which Anthropic checks against, has no list form of `items` (see
    // `a_draft_7_tuple_becomes_prefix_items`); Gemini's own rule says so too.
    if dialect != SchemaDialect::Gemini && node.get("items").is_some_and(Value::is_array) {
        found.push(format!(
            "{at}: `items` is a list (2020-12 wants `prefixItems`)"
        ));
    }
    match dialect {
        SchemaDialect::OpenAiStrict if strict => strict_rules(node, at, object_depth, found),
        SchemaDialect::Gemini => gemini_rules(node, at, found),
        _ => {}
    }
    for (key, value) in node {
        match key.as_str() {
            "properties" | "patternProperties" | "$defs" | "definitions" | "dependentSchemas" => {
                for (name, member) in value.as_object().into_iter().flatten() {
                    let child = format!("{at}/{key}/{name}");
                    check_node(member, dialect, strict, &child, object_depth, found);
                }
            }
            "anyOf" | "oneOf" | "allOf" | "prefixItems" => match value.as_array() {
                Some(members) if !members.is_empty() => {
                    for (index, member) in members.iter().enumerate() {
                        let child = format!("{at}/{key}/{index}");
                        check_node(member, dialect, strict, &child, object_depth, found);
                    }
                }
                _ => found.push(format!("{at}: `{key}` is not a non-empty list")),
            },
            "items" if value.is_array() => {
                for member in value.as_array().into_iter().flatten() {
                    check_node(
                        member,
                        dialect,
                        strict,
                        &format!("{at}/items"),
                        object_depth,
                        found,
                    );
                }
            }
            "items" | "not" | "contains" | "propertyNames" | "if" | "then" | "else" => {
                check_node(
                    value,
                    dialect,
                    strict,
                    &format!("{at}/{key}"),
                    object_depth,
                    found,
                );
            }
            "additionalProperties" if !value.is_boolean() => {
                check_node(
                    value,
                    dialect,
                    strict,
                    &format!("{at}/{key}"),
                    object_depth,
                    found,
                );
            }
            _ => {}
        }
    }
}

fn type_names(node: &Map<String, Value>) -> Vec<&str> {
    match node.get("type") {
        Some(Value::String(name)) => vec![name.as_str()],
        Some(Value::Array(names)) => names.iter().filter_map(Value::as_str).collect(),
        _ => Vec::new(),
    }
}

fn common_rules(node: &Map<String, Value>, at: &str, found: &mut Vec<String>) {
    for key in ["$ref", "$defs", "definitions"] {
        if node.contains_key(key) {
            found.push(format!("{at}: `{key}` left in the output"));
        }
    }
    match node.get("type") {
        None => {
            let constrained = UNTYPED.iter().any(|key| node.contains_key(*key));
            if !node.is_empty() && !constrained {
                found.push(format!("{at}: a schema with keywords but no `type`"));
            }
        }
        Some(Value::String(name)) if TYPES.contains(&name.as_str()) => {}
        Some(Value::Array(names))
            if names.len() > 1
                && names
                    .iter()
                    .all(|name| name.as_str().is_some_and(|name| TYPES.contains(&name)))
                && (1..names.len()).all(|later| !names[..later].contains(&names[later])) => {}
        Some(other) => found.push(format!("{at}: bad `type` {other}")),
    }
    if let Some(required) = node.get("required") {
        let names: Option<Vec<&str>> = required
            .as_array()
            .and_then(|names| names.iter().map(Value::as_str).collect());
        match names {
            Some(names)
                if (1..names.len()).all(|later| !names[..later].contains(&names[later])) => {}
            _ => found.push(format!("{at}: bad `required` {required}")),
        }
    }
    if let Some(values) = node.get("enum") {
        if values.as_array().is_none_or(|values| values.is_empty()) {
            found.push(format!("{at}: bad `enum` {values}"));
        }
    }
    // The 2020-12 meta-schema's type for each keyword's value (see
    // `keyword_values_of_the_wrong_type_are_removed`).
    for (key, value) in node {
        let fits = match key.as_str() {
            "description" | "title" | "pattern" | "format" | "$comment" | "$id" | "$schema"
            | "$anchor" | "contentEncoding" | "contentMediaType" => value.is_string(),
            "minimum" | "maximum" => value.is_number(),
            // A draft-4 boolean has its own rule below.
            "exclusiveMinimum" | "exclusiveMaximum" => value.is_number() || value.is_boolean(),
            "multipleOf" => value.as_f64().is_some_and(|factor| factor > 0.0),
            "minLength" | "maxLength" | "minItems" | "maxItems" | "minProperties"
            | "maxProperties" | "minContains" | "maxContains" => value.is_u64(),
            "uniqueItems" | "deprecated" | "readOnly" | "writeOnly" => value.is_boolean(),
            "examples" => value.is_array(),
            _ => true,
        };
        if !fits {
            found.push(format!(
                "{at}: `{key}` has a value of the wrong type: {value}"
            ));
        }
    }
    for key in ["exclusiveMinimum", "exclusiveMaximum"] {
        if node.get(key).is_some_and(Value::is_boolean) {
            found.push(format!(
                "{at}: a draft-4 boolean `{key}` (2020-12 wants the bound)"
            ));
        }
    }
    let types = type_names(node);
    if node.get("default") == Some(&Value::Null) && !types.is_empty() && !types.contains(&"null") {
        found.push(format!("{at}: `default: null` contradicts the type"));
    }
}

fn strict_rules(node: &Map<String, Value>, at: &str, object_depth: usize, found: &mut Vec<String>) {
    for key in node.keys() {
        if !STRICT_KEYS.contains(&key.as_str()) {
            found.push(format!("{at}: `{key}` is not allowed in strict mode"));
        }
    }
    let types = type_names(node);
    if types.is_empty() && !node.contains_key("anyOf") && !node.contains_key("enum") {
        found.push(format!("{at}: strict mode needs a `type`"));
    }
    if let Some(format) = node.get("format").and_then(Value::as_str) {
        if !STRICT_FORMATS.contains(&format) {
            found.push(format!(
                "{at}: format `{format}` is not supported in strict mode"
            ));
        }
    }
    if types.contains(&"array") && !node.get("items").is_some_and(Value::is_object) {
        found.push(format!("{at}: a strict array needs one `items` schema"));
    }
    if types.contains(&"object") {
        if object_depth > 10 {
            found.push(format!("{at}: objects nest deeper than 10"));
        }
        if node.get("additionalProperties") != Some(&Value::Bool(false)) {
            found.push(format!(
                "{at}: a strict object needs `additionalProperties: false`"
            ));
        }
        let mut property_names: Vec<&str> = node
            .get("properties")
            .and_then(Value::as_object)
            .map(|properties| properties.keys().map(String::as_str).collect())
            .unwrap_or_default();
        let mut required: Vec<&str> = node
            .get("required")
            .and_then(Value::as_array)
            .map(|names| names.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default();
        property_names.sort_unstable();
        required.sort_unstable();
        if !node.contains_key("properties") || property_names != required {
            found.push(format!(
                "{at}: a strict object must require all of its properties"
            ));
        }
    }
}

fn gemini_rules(node: &Map<String, Value>, at: &str, found: &mut Vec<String>) {
    for key in node.keys() {
        if !GEMINI_KEYS.contains(&key.as_str()) {
            found.push(format!("{at}: `{key}` is not in Gemini's schema subset"));
        }
    }
    let type_name = match node.get("type") {
        None => None,
        Some(Value::String(name)) if name != "null" && TYPES.contains(&name.as_str()) => {
            Some(name.as_str())
        }
        Some(other) => {
            found.push(format!(
                "{at}: Gemini needs one non-null `type`, got {other}"
            ));
            None
        }
    };
    if node
        .get("nullable")
        .is_some_and(|nullable| !nullable.is_boolean())
    {
        found.push(format!("{at}: `nullable` is not a boolean"));
    }
    if let Some(values) = node.get("enum") {
        let strings = values
            .as_array()
            .is_some_and(|values| values.iter().all(Value::is_string));
        if !strings || type_name != Some("string") {
            found.push(format!(
                "{at}: Gemini enums are lists of strings on a string"
            ));
        }
    }
    let is_object = type_name == Some("object");
    if !is_object && (node.contains_key("properties") || node.contains_key("required")) {
        found.push(format!("{at}: `properties`/`required` on a non-object"));
    }
    let property_names: Vec<&String> = node
        .get("properties")
        .and_then(Value::as_object)
        .map(|properties| properties.keys().collect())
        .unwrap_or_default();
    for name in node
        .get("required")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        if !name
            .as_str()
            .is_some_and(|name| property_names.iter().any(|known| *known == name))
        {
            found.push(format!(
                "{at}: `required` names {name}, which is not a property"
            ));
        }
    }
    if node.get("items").is_some_and(|items| !items.is_object()) {
        found.push(format!("{at}: Gemini `items` must be one schema"));
    }
    if type_name == Some("array") && !node.contains_key("items") {
        found.push(format!("{at}: a Gemini array needs `items`"));
    }
    // The root is the one exception: a tool without parameters is declared without them.
    if at != "#" && node.get("properties") == Some(&json!({})) {
        found.push(format!(
            "{at}: Gemini wants an object's `properties` non-empty"
        ));
    }
    if let Some(format) = node.get("format").and_then(Value::as_str) {
        let allowed = match type_name {
            Some("string") => ["date-time", "enum"].contains(&format),
            Some("integer") => ["int32", "int64"].contains(&format),
            Some("number") => ["float", "double"].contains(&format),
            _ => false,
        };
        if !allowed {
            found.push(format!(
                "{at}: format `{format}` on {type_name:?} is not accepted by Gemini"
            ));
        }
    }
}

struct Case {
    name: &'static str,
    dialect: SchemaDialect,
    input: Value,
    expected: Value,
    /// Each must appear in some warning.
    warnings: &'static [&'static str],
    strict: bool,
}

fn recursive_node(children: Value) -> Value {
    json!({"type": "object", "properties": {"name": {"type": "string"}, "children": {"type": "array", "items": children}}})
}

/// Real-world shapes: pydantic v2 / FastMCP (`Optional[str] = None`, nested models with `$defs`,
/// `allOf` around a `$ref`), the .NET MCP SDK (boolean property schemas), hand-written servers
/// (`{description, default: null}` without a type, type arrays, `format: uri`).
fn cases() -> Vec<Case> {
    use SchemaDialect::*;
    let pydantic_optional = json!({
        "type": "object", "title": "searchArguments",
        "properties": {"query": {"anyOf": [{"type": "string"}, {"type": "null"}], "default": null, "title": "Query"}}
    });
    let nested_model = json!({
        "$defs": {"Address": {"properties": {"city": {"title": "City", "type": "string"}}, "required": ["city"], "title": "Address", "type": "object"}},
        "properties": {"address": {"$ref": "#/$defs/Address"}}, "required": ["address"], "type": "object"
    });
    let gemini_rejects = json!({
        "$schema": "http://json-schema.org/draft-07/schema#", "$id": "urn:example:tool", "type": "object",
        "properties": {
            "mode": {"const": "fast"},
            "count": {"type": "integer", "exclusiveMinimum": 0, "default": 1, "examples": [3]},
            "tags": {"type": "object", "additionalProperties": {"type": "string"}, "patternProperties": {"^x": {"type": "string"}}, "propertyNames": {"pattern": "^[a-z]+$"}},
            "level": {"enum": [1, 2, 3]},
            "site": {"type": "string", "format": "uri"},
            "when": {"type": "string", "format": "date-time"}
        },
        "required": ["mode", "ghost"], "additionalProperties": false
    });
    vec![
        Case {
            name: "pydantic Optional[str] = None is valid as is",
            dialect: OpenAi,
            input: pydantic_optional.clone(),
            expected: pydantic_optional.clone(),
            warnings: &[],
            strict: false,
        },
        Case {
            name: "pydantic Optional[str] = None under gemini",
            dialect: Gemini,
            input: pydantic_optional.clone(),
            expected: json!({"type": "object", "title": "searchArguments", "properties": {"query": {"type": "string", "nullable": true, "title": "Query"}}}),
            warnings: &["#/properties/query: removed `default`"],
            strict: false,
        },
        Case {
            name: "pydantic Optional[str] = None under openai-strict",
            dialect: OpenAiStrict,
            input: pydantic_optional,
            expected: json!({
                "type": "object", "title": "searchArguments", "additionalProperties": false, "required": ["query"],
                "properties": {"query": {"anyOf": [{"type": "string"}, {"type": "null"}], "title": "Query"}}
            }),
            warnings: &["#/properties/query: removed `default` (not supported by openai-strict)"],
            strict: true,
        },
        Case {
            name: ".NET boolean property schemas",
            dialect: OpenAi,
            input: json!({"type": "object", "properties": {"quantity": true, "name": {"type": "string"}, "legacy": false}, "required": ["name"]}),
            expected: json!({"type": "object", "properties": {"quantity": {}, "name": {"type": "string"}, "legacy": {"not": {}}}, "required": ["name"]}),
            warnings: &["#/properties/legacy: `false` schema kept"],
            strict: false,
        },
        Case {
            name: ".NET boolean property schemas under openai-strict",
            dialect: OpenAiStrict,
            input: json!({"type": "object", "properties": {"quantity": true, "name": {"type": "string"}, "legacy": false}, "required": ["name"]}),
            expected: json!({"type": "object", "properties": {"quantity": {}, "name": {"type": "string"}}, "required": ["quantity", "name"], "additionalProperties": false}),
            warnings: &["#: properties that accept no value removed: legacy", "#/properties/quantity: a schema without `type` (any value); send this tool with `strict: false`"],
            strict: false,
        },
        Case {
            name: "{description, default: null} without a type",
            dialect: Anthropic,
            input: json!({"type": "object", "properties": {"note": {"description": "Optional note", "default": null}}}),
            expected: json!({"type": "object", "properties": {"note": {"description": "Optional note", "type": "string"}}}),
            warnings: &[],
            strict: false,
        },
        Case {
            name: "$defs and $ref inlined",
            dialect: OpenAi,
            input: nested_model.clone(),
            expected: json!({
                "properties": {"address": {"properties": {"city": {"title": "City", "type": "string"}}, "required": ["city"], "title": "Address", "type": "object"}},
                "required": ["address"], "type": "object"
            }),
            warnings: &[],
            strict: false,
        },
        Case {
            name: "$defs and $ref under openai-strict",
            dialect: OpenAiStrict,
            input: nested_model,
            expected: json!({
                "properties": {"address": {"properties": {"city": {"title": "City", "type": "string"}}, "required": ["city"], "title": "Address", "type": "object", "additionalProperties": false}},
                "required": ["address"], "type": "object", "additionalProperties": false
            }),
            warnings: &[],
            strict: true,
        },
        Case {
            name: "recursive $ref unrolled three levels",
            dialect: OpenAi,
            input: json!({
                "$defs": {"Node": {"type": "object", "properties": {"name": {"type": "string"}, "children": {"type": "array", "items": {"$ref": "#/$defs/Node"}}}}},
                "type": "object", "properties": {"tree": {"$ref": "#/$defs/Node"}}
            }),
            expected: json!({"type": "object", "properties": {"tree": recursive_node(recursive_node(recursive_node(json!({}))))}}),
            warnings: &["recursive `$ref` `#/$defs/Node` cut after 3 levels"],
            strict: false,
        },
        Case {
            name: "$ref to the root",
            dialect: OpenAi,
            input: json!({"type": "object", "properties": {"next": {"$ref": "#"}}}),
            expected: json!({"type": "object", "properties": {"next": {"type": "object", "properties": {"next": {"type": "object", "properties": {"next": {"type": "object", "properties": {"next": {}}}}}}}}}),
            warnings: &["recursive `$ref` `#` cut after 3 levels"],
            strict: false,
        },
        Case {
            name: "remote $ref never fetched",
            dialect: OpenAi,
            input: json!({"type": "object", "properties": {"geo": {"$ref": "https://example.com/geo.json", "description": "GeoJSON"}, "x": {"$ref": "#/$defs/Missing"}}}),
            expected: json!({"type": "object", "properties": {"geo": {}, "x": {}}}),
            warnings: &["remote `$ref` `https://example.com/geo.json` is not fetched", "`$ref` `#/$defs/Missing` names nothing"],
            strict: false,
        },
        Case {
            name: "{} stays any value",
            dialect: Anthropic,
            input: json!({"type": "object", "properties": {"payload": {}}}),
            expected: json!({"type": "object", "properties": {"payload": {}}}),
            warnings: &[],
            strict: false,
        },
        Case {
            name: "type arrays kept for openai",
            dialect: OpenAi,
            input: json!({"type": "object", "properties": {"limit": {"type": ["integer", "null"]}, "id": {"type": ["string", "integer", "string"]}}}),
            expected: json!({"type": "object", "properties": {"limit": {"type": ["integer", "null"]}, "id": {"type": ["string", "integer"]}}}),
            warnings: &[],
            strict: false,
        },
        Case {
            name: "type arrays converted for gemini",
            dialect: Gemini,
            input: json!({"type": "object", "properties": {"limit": {"type": ["integer", "null"]}, "id": {"type": ["string", "integer"]}}}),
            expected: json!({"type": "object", "properties": {"limit": {"type": "integer", "nullable": true}, "id": {"anyOf": [{"type": "string"}, {"type": "integer"}]}}}),
            warnings: &["#/properties/id: a type list becomes an `anyOf`"],
            strict: false,
        },
        Case {
            name: "OpenAPI nullable becomes a type array",
            dialect: OpenAi,
            input: json!({"type": "object", "properties": {"n": {"type": "number", "nullable": true}, "s": {"enum": ["a"], "nullable": true}}}),
            expected: json!({"type": "object", "properties": {"n": {"type": ["number", "null"]}, "s": {"enum": ["a", null]}}}),
            warnings: &[],
            strict: false,
        },
        Case {
            name: "format uri under openai-strict, optional properties nullable",
            dialect: OpenAiStrict,
            input: json!({"type": "object", "properties": {"url": {"type": "string", "format": "uri"}, "when": {"type": "string", "format": "date-time"}}, "required": ["url"]}),
            expected: json!({
                "type": "object", "additionalProperties": false, "required": ["url", "when"],
                "properties": {"url": {"type": "string"}, "when": {"type": ["string", "null"], "format": "date-time"}}
            }),
            warnings: &["#/properties/url: format `uri` is not supported by openai-strict: removed"],
            strict: true,
        },
        Case {
            name: "nested optional object under openai-strict",
            dialect: OpenAiStrict,
            input: json!({"type": "object", "properties": {"filter": {"type": "object", "properties": {"from": {"type": "string", "format": "date"}, "to": {"type": "string", "minLength": 1}}, "required": ["from"]}}}),
            expected: json!({
                "type": "object", "additionalProperties": false, "required": ["filter"],
                "properties": {"filter": {
                    "type": ["object", "null"], "additionalProperties": false, "required": ["from", "to"],
                    "properties": {"from": {"type": "string", "format": "date"}, "to": {"type": ["string", "null"]}}
                }}
            }),
            warnings: &["#/properties/filter/properties/to: removed `minLength`"],
            strict: true,
        },
        Case {
            name: "allOf around a $ref merged under openai-strict",
            dialect: OpenAiStrict,
            input: json!({"type": "object", "$defs": {"Unit": {"type": "string", "enum": ["c", "f"]}}, "properties": {"unit": {"allOf": [{"$ref": "#/$defs/Unit"}], "description": "Unit"}}, "required": ["unit"]}),
            expected: json!({"type": "object", "additionalProperties": false, "required": ["unit"], "properties": {"unit": {"type": "string", "enum": ["c", "f"], "description": "Unit"}}}),
            warnings: &["#/properties/unit: `allOf` merged into one schema"],
            strict: true,
        },
        Case {
            name: "unsupported keywords under openai-strict",
            dialect: OpenAiStrict,
            input: json!({
                "type": "object",
                "properties": {"a": {"type": "string", "not": {"const": "x"}}, "b": {"type": "integer"}},
                "if": {"required": ["a"]}, "then": {"required": ["b"]}, "dependentRequired": {"a": ["b"]}
            }),
            expected: json!({
                "type": "object", "additionalProperties": false, "required": ["a", "b"],
                "properties": {"a": {"type": ["string", "null"]}, "b": {"type": ["integer", "null"]}}
            }),
            warnings: &["#: removed `if`, `then`, `dependentRequired` (not supported by openai-strict)", "#/properties/a: removed `not`"],
            strict: true,
        },
        Case {
            name: "a free-form map cannot be strict",
            dialect: OpenAiStrict,
            input: json!({"type": "object", "properties": {"headers": {"type": "object", "additionalProperties": {"type": "string"}}}, "required": ["headers"]}),
            expected: json!({
                "type": "object", "additionalProperties": false, "required": ["headers"],
                "properties": {"headers": {"type": "object", "additionalProperties": {"type": "string"}}}
            }),
            warnings: &["#/properties/headers: an object with free-form keys (a map); send this tool with `strict: false`"],
            strict: false,
        },
        Case {
            name: "root oneOf of objects flattened for openai-strict",
            dialect: OpenAiStrict,
            input: json!({"oneOf": [{"type": "object", "properties": {"id": {"type": "string"}}, "required": ["id"]}, {"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]}]}),
            expected: json!({
                "type": "object", "additionalProperties": false, "required": ["id", "name"],
                "properties": {"id": {"type": ["string", "null"]}, "name": {"type": ["string", "null"]}}
            }),
            warnings: &["#: the root schema has no `type`", "the root `anyOf` of objects is flattened"],
            strict: true,
        },
        Case {
            name: "everything gemini rejects",
            dialect: Gemini,
            input: gemini_rejects.clone(),
            expected: json!({
                "type": "object", "required": ["mode"],
                "properties": {
                    "mode": {"type": "string", "enum": ["fast"]},
                    "count": {"type": "integer", "minimum": 0},
                    "tags": {"type": "object"},
                    "level": {"type": "integer", "description": "Allowed values: 1, 2, 3."},
                    "site": {"type": "string"},
                    "when": {"type": "string", "format": "date-time"}
                }
            }),
            warnings: &[
                "#: removed `$schema`, `$id`, `additionalProperties` (not supported by gemini)",
                "#/properties/count: removed `default`, `examples`",
                "#/properties/count: `exclusiveMinimum` loosened to `minimum`",
                "#/properties/tags: removed `additionalProperties`, `patternProperties`, `propertyNames`",
                "#/properties/site: format `uri` is not supported by gemini",
                "#/properties/level: non-string `enum` values moved to the description",
                "#: `required` names that are not properties removed",
            ],
            strict: false,
        },
        Case {
            name: "the same schema is kept for openai, `propertyNames` typed",
            dialect: OpenAi,
            input: gemini_rejects.clone(),
            expected: {
                let mut expected = gemini_rejects;
                expected["properties"]["tags"]["propertyNames"]["type"] = json!("string");
                expected
            },
            warnings: &[],
            strict: false,
        },
        Case {
            name: "draft-4 boolean exclusive bounds become 2020-12 ones",
            dialect: Anthropic,
            input: json!({"type": "object", "properties": {
                "ttl": {"type": "integer", "minimum": 0, "exclusiveMinimum": true},
                "ratio": {"type": "number", "maximum": 1, "exclusiveMaximum": false},
                "loose": {"type": "number", "exclusiveMaximum": true}
            }}),
            expected: json!({"type": "object", "properties": {
                "ttl": {"type": "integer", "exclusiveMinimum": 0},
                "ratio": {"type": "number", "maximum": 1},
                "loose": {"type": "number"}
            }}),
            warnings: &[],
            strict: false,
        },
        Case {
            name: "draft-4 exclusive bound under openai-strict",
            dialect: OpenAiStrict,
            input: json!({"type": "object", "properties": {"ttl": {"type": "integer", "minimum": 0, "exclusiveMinimum": true}}, "required": ["ttl"]}),
            expected: json!({"type": "object", "properties": {"ttl": {"type": "integer", "exclusiveMinimum": 0}}, "required": ["ttl"], "additionalProperties": false}),
            warnings: &[],
            strict: true,
        },
        Case {
            name: "draft-4 exclusive bound loosened for gemini",
            dialect: Gemini,
            input: json!({"type": "object", "properties": {"ttl": {"type": "integer", "minimum": 0, "exclusiveMinimum": true}}}),
            expected: json!({"type": "object", "properties": {"ttl": {"type": "integer", "minimum": 0}}}),
            warnings: &["#/properties/ttl: `exclusiveMinimum` loosened to `minimum`"],
            strict: false,
        },
        Case {
            name: "gemini arrays always have items",
            dialect: Gemini,
            input: json!({"type": "object", "properties": {"tags": {"type": "array"}, "ids": {"type": ["array", "null"], "items": {"type": "integer"}}}}),
            expected: json!({"type": "object", "properties": {"tags": {"type": "array", "items": {"type": "string"}}, "ids": {"type": "array", "nullable": true, "items": {"type": "integer"}}}}),
            warnings: &["#/properties/tags: an array without `items` is offered as an array of strings"],
            strict: false,
        },
        Case {
            name: "a pydantic model without fields under gemini",
            dialect: Gemini,
            input: json!({"type": "object", "properties": {"opts": {"type": "object", "properties": {}, "title": "Opts"}, "n": {"type": "string"}}}),
            expected: json!({"type": "object", "properties": {"opts": {"type": "object", "title": "Opts"}, "n": {"type": "string"}}}),
            warnings: &[],
            strict: false,
        },
        Case {
            name: "an open object cannot be strict",
            dialect: OpenAiStrict,
            input: json!({"type": "object", "properties": {"meta": {"type": "object", "additionalProperties": true}, "bag": {"type": "object", "description": "Any JSON object"}}, "required": ["meta", "bag"]}),
            expected: json!({
                "type": "object", "additionalProperties": false, "required": ["meta", "bag"],
                "properties": {"meta": {"type": "object", "additionalProperties": true}, "bag": {"type": "object", "description": "Any JSON object"}}
            }),
            warnings: &[
                "#/properties/meta: an object with free-form keys (a map); send this tool with `strict: false`",
                "#/properties/bag: an object without `properties` (any keys); send this tool with `strict: false`",
            ],
            strict: false,
        },
        Case {
            name: "\"at least one of\" branches cannot be strict",
            dialect: OpenAiStrict,
            input: json!({"type": "object", "required": ["filter"], "properties": {"filter": {
                "type": "object", "properties": {"a": {"type": "string"}, "b": {"type": "string"}},
                "anyOf": [{"required": ["a"]}, {"required": ["b"]}]
            }}}),
            expected: json!({"type": "object", "required": ["filter"], "additionalProperties": false, "properties": {"filter": {
                "type": "object", "properties": {"a": {"type": ["string", "null"]}, "b": {"type": ["string", "null"]}},
                "anyOf": [{"type": "object", "required": ["a"]}, {"type": "object", "required": ["b"]}],
                "required": ["a", "b"], "additionalProperties": false
            }}}),
            warnings: &["#/properties/filter/anyOf/0: an object without `properties` (any keys); send this tool with `strict: false`"],
            strict: false,
        },
        Case {
            name: "an optional union object accepts null under openai-strict",
            dialect: OpenAiStrict,
            input: json!({"type": "object", "properties": {"o": {
                "type": "object", "properties": {"a": {"type": "string"}},
                "oneOf": [{"properties": {"a": {"const": "x"}}}, {"properties": {"a": {"const": "y"}}}]
            }}}),
            expected: json!({"type": "object", "required": ["o"], "additionalProperties": false, "properties": {"o": {
                "type": ["object", "null"], "properties": {"a": {"type": ["string", "null"]}},
                "anyOf": [
                    {"type": "object", "properties": {"a": {"enum": ["x", null]}}, "required": ["a"], "additionalProperties": false},
                    {"type": "object", "properties": {"a": {"enum": ["y", null]}}, "required": ["a"], "additionalProperties": false},
                    {"type": "null"}
                ],
                "required": ["a"], "additionalProperties": false
            }}}),
            warnings: &["#/properties/o: `oneOf` rewritten as `anyOf`"],
            strict: true,
        },
        Case {
            name: "OpenAPI nullable next to a union or a const",
            dialect: OpenAi,
            input: json!({"type": "object", "properties": {
                "o": {"type": "object", "oneOf": [{"required": ["a"]}, {"required": ["b"]}], "nullable": true},
                "k": {"type": "string", "const": "fixed", "nullable": true}
            }}),
            expected: json!({"type": "object", "properties": {
                "o": {"type": ["object", "null"], "oneOf": [{"type": "object", "required": ["a"]}, {"type": "object", "required": ["b"]}, {"type": "null"}]},
                "k": {"type": ["string", "null"], "enum": ["fixed", null]}
            }}),
            warnings: &[],
            strict: false,
        },
        Case {
            name: "no schema at all",
            dialect: Anthropic,
            input: Value::Null,
            expected: json!({"type": "object", "properties": {}}),
            warnings: &[],
            strict: false,
        },
        Case {
            name: "empty schema under openai-strict",
            dialect: OpenAiStrict,
            input: json!({}),
            expected: json!({"type": "object", "properties": {}, "required": [], "additionalProperties": false}),
            warnings: &[],
            strict: true,
        },
        Case {
            name: "a root that is not an object",
            dialect: OpenAi,
            input: json!({"type": "string"}),
            expected: json!({"type": "object", "properties": {}}),
            warnings: &["#: the root schema is a string, not an object"],
            strict: false,
        },
        Case {
            name: "a nullable object root",
            dialect: Anthropic,
            input: json!({"type": ["object", "null"], "properties": {"a": {"type": "boolean"}}}),
            expected: json!({"type": "object", "properties": {"a": {"type": "boolean"}}}),
            warnings: &["#: the root type is narrowed to `object`"],
            strict: false,
        },
    ]
}

#[test]
fn real_world_schemas_per_dialect() {
    for case in cases() {
        let sanitized = sanitize_schema(&case.input, case.dialect);
        assert_eq!(
            sanitized.schema, case.expected,
            "case `{}`: {:#?}",
            case.name, sanitized.warnings
        );
        for expected in case.warnings {
            assert!(
                sanitized
                    .warnings
                    .iter()
                    .any(|warning| warning.contains(expected)),
                "case `{}`: no warning contains {expected:?} in {:#?}",
                case.name,
                sanitized.warnings
            );
        }
        if case.warnings.is_empty() {
            assert_eq!(
                sanitized.warnings,
                Vec::<String>::new(),
                "case `{}`",
                case.name
            );
        }
        assert_eq!(
            sanitized.strict, case.strict,
            "case `{}`: {:#?}",
            case.name, sanitized.warnings
        );
        let violations = dialect_violations(&sanitized.schema, case.dialect, sanitized.strict);
        assert_eq!(violations, Vec::<String>::new(), "case `{}`", case.name);
        let again = sanitize_schema(&sanitized.schema, case.dialect);
        assert_eq!(
            again.schema, sanitized.schema,
            "case `{}` is not idempotent",
            case.name
        );
    }
}

#[test]
fn the_input_is_not_mutated_and_the_checker_catches_raw_schemas() {
    let raw = json!({"type": "object", "properties": {"a": {"type": ["string", "null"], "format": "uri", "default": 1}}, "$defs": {}});
    let copy = raw.clone();
    for dialect in DIALECTS {
        sanitize_schema(&raw, dialect);
    }
    assert_eq!(raw, copy);
    assert_eq!(
        dialect_violations(&raw, SchemaDialect::OpenAi, false),
        ["#: `$defs` left in the output"]
    );
    assert_eq!(
        dialect_violations(&raw, SchemaDialect::Gemini, false),
        [
            "#: `$defs` left in the output",
            "#: `$defs` is not in Gemini's schema subset",
            "#/properties/a: `default` is not in Gemini's schema subset",
            "#/properties/a: Gemini needs one non-null `type`, got [\"string\",\"null\"]",
            "#/properties/a: format `uri` on None is not accepted by Gemini",
        ]
    );
    assert_eq!(
        dialect_violations(&raw, SchemaDialect::OpenAiStrict, true),
        [
            "#: `$defs` left in the output",
            "#: `$defs` is not allowed in strict mode",
            "#: a strict object needs `additionalProperties: false`",
            "#: a strict object must require all of its properties",
            "#/properties/a: `default` is not allowed in strict mode",
            "#/properties/a: format `uri` is not supported in strict mode",
        ]
    );
}

fn property_name() -> impl Strategy<Value = String> {
    prop_oneof![
        Just("a".to_owned()),
        Just("b".to_owned()),
        Just("c d".to_owned()),
        Just("c_d".to_owned()),
        Just("$x".to_owned())
    ]
}

fn scalar() -> impl Strategy<Value = Value> {
    prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::from),
        (-3i64..4).prop_map(Value::from),
        Just(json!(1.5)),
        Just(json!("x")),
        Just(json!("y")),
    ]
}

fn type_value() -> impl Strategy<Value = Value> {
    let name = prop_oneof![
        Just("string"),
        Just("number"),
        Just("integer"),
        Just("boolean"),
        Just("object"),
        Just("array"),
        Just("null"),
        Just("any"),
    ];
    prop_oneof![
        name.clone().prop_map(Value::from),
        prop::collection::vec(name, 0..4).prop_map(Value::from),
        Just(json!(7)),
    ]
}

/// Schema-shaped JSON, including the malformed shapes servers send.
fn schema() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(json!(true)),
        Just(json!(false)),
        Just(json!({})),
        Just(Value::Null),
        Just(json!(3)),
        type_value().prop_map(|type_value| json!({ "type": type_value })),
        prop_oneof![
            Just("#/$defs/A"),
            Just("#/$defs/B"),
            Just("#"),
            Just("#/$defs/None"),
            Just("https://example.com/s.json"),
            Just("#anchor")
        ]
        .prop_map(|reference| json!({ "$ref": reference })),
    ];
    leaf.prop_recursive(4, 48, 6, |inner| {
        let members = prop::collection::vec(inner.clone(), 0..3).prop_map(Value::from);
        let keyword = prop_oneof![
            type_value().prop_map(|value| ("type", value)),
            prop::collection::btree_map(property_name(), inner.clone(), 0..4).prop_map(
                |properties| (
                    "properties",
                    Value::Object(properties.into_iter().collect())
                )
            ),
            prop::collection::btree_map(Just("^x".to_owned()), inner.clone(), 0..2).prop_map(
                |properties| (
                    "patternProperties",
                    Value::Object(properties.into_iter().collect())
                )
            ),
            prop_oneof![Just(json!(true)), Just(json!(false)), inner.clone()]
                .prop_map(|value| ("additionalProperties", value)),
            prop::collection::vec(
                prop_oneof![property_name().prop_map(Value::from), Just(json!(1))],
                0..4
            )
            .prop_map(|names| ("required", Value::from(names))),
            inner.clone().prop_map(|value| ("items", value)),
            members.clone().prop_map(|value| ("items", value)),
            members.clone().prop_map(|value| ("prefixItems", value)),
            members.clone().prop_map(|value| ("anyOf", value)),
            members.clone().prop_map(|value| ("oneOf", value)),
            members.prop_map(|value| ("allOf", value)),
            inner.clone().prop_map(|value| ("not", value)),
            inner.clone().prop_map(|value| ("if", value)),
            inner.prop_map(|value| ("propertyNames", value)),
            prop::collection::vec(scalar(), 0..4).prop_map(|values| ("enum", Value::from(values))),
            scalar().prop_map(|value| ("const", value)),
            scalar().prop_map(|value| ("default", value)),
            any::<bool>().prop_map(|value| ("nullable", Value::from(value))),
            prop_oneof![
                Just("uri"),
                Just("date-time"),
                Just("email"),
                Just("int32"),
                Just("enum")
            ]
            .prop_map(|format| ("format", Value::from(format))),
            prop_oneof![
                Just("minLength"),
                Just("maximum"),
                Just("exclusiveMinimum"),
                Just("minItems"),
                Just("maxProperties"),
                Just("multipleOf")
            ]
            .prop_map(|keyword| (keyword, json!(2))),
            prop_oneof![Just("exclusiveMinimum"), Just("exclusiveMaximum")]
                .prop_map(|keyword| (keyword, json!(true))),
            prop_oneof![
                Just("description"),
                Just("title"),
                Just("$schema"),
                Just("$id"),
                Just("examples")
            ]
            .prop_map(|keyword| (keyword, json!("text"))),
        ];
        prop::collection::vec(keyword, 0..6).prop_map(|entries| {
            Value::Object(
                entries
                    .into_iter()
                    .map(|(key, value)| (key.to_owned(), value))
                    .collect::<Map<_, _>>(),
            )
        })
    })
}

/// A generated schema with `$defs` that its `$ref`s may point into (and that may point into each
/// other, recursively).
fn tool_schema() -> impl Strategy<Value = Value> {
    (schema(), schema(), schema()).prop_map(|(root, a, b)| match root {
        Value::Object(mut root) => {
            root.insert("$defs".to_owned(), json!({"A": a, "B": b}));
            Value::Object(root)
        }
        other => other,
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]

    #[test]
    fn sanitized_output_is_valid_for_its_dialect_and_a_fixed_point(input in tool_schema()) {
        for dialect in DIALECTS {
            let sanitized = sanitize_schema(&input, dialect);
            let violations = dialect_violations(&sanitized.schema, dialect, sanitized.strict);
            prop_assert!(violations.is_empty(), "{dialect:?}: {violations:#?}\ninput {input}\noutput {}", sanitized.schema);
            let again = sanitize_schema(&sanitized.schema, dialect);
            prop_assert_eq!(&again.schema, &sanitized.schema, "{:?} not idempotent for {}", dialect, input);
            if dialect != SchemaDialect::OpenAiStrict {
                prop_assert!(!sanitized.strict);
            }
        }
    }
}

/// `tools/list` of `@modelcontextprotocol/server-everything` 2026.8.31, captured on this project's
/// machine over its stdio transport (initialize, notifications/initialized, tools/list).
fn server_everything_tools() -> Vec<McpTool> {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/schemas/server-everything-2026.8.31.tools-list.json"
    );
    let text = std::fs::read_to_string(path).expect("fixture");
    let result: Value = serde_json::from_str(&text).expect("json");
    result["tools"]
        .as_array()
        .expect("tools")
        .iter()
        .map(|entry| McpTool::from_listing_entry(entry).expect("tool"))
        .collect()
}

#[test]
fn a_real_servers_tools_pass_every_dialect() {
    let tools = server_everything_tools();
    assert_eq!(tools.len(), 13);
    for tool in &tools {
        let openai = sanitize_schema(&tool.input_schema, SchemaDialect::OpenAi);
        assert_eq!(
            openai.schema, tool.input_schema,
            "{}: well-formed, so untouched",
            tool.name
        );
        assert_eq!(openai.warnings, Vec::<String>::new(), "{}", tool.name);
        let strict = sanitize_schema(&tool.input_schema, SchemaDialect::OpenAiStrict);
        assert!(strict.strict, "{}: {:#?}", tool.name, strict.warnings);
        for dialect in DIALECTS {
            let sanitized = sanitize_schema(&tool.input_schema, dialect);
            let violations = dialect_violations(&sanitized.schema, dialect, sanitized.strict);
            assert_eq!(
                violations,
                Vec::<String>::new(),
                "{} {dialect:?}",
                tool.name
            );
        }
    }
}

#[test]
fn a_real_servers_calls_are_checked_and_prepared() {
    let table = build_tool_table(&[("everything".to_owned(), server_everything_tools())]);
    let names: Vec<&str> = table
        .entries()
        .iter()
        .map(|entry| entry.function_name.as_str())
        .collect();
    assert!(names.contains(&"get-sum") && names.contains(&"trigger-long-running-operation"));
    let cases = [
        ("get-sum", json!({"a": 1, "b": 2.5}), Ok(json!({"a": 1, "b": 2.5}))),
        (
            "get-sum",
            json!({"a": "1"}),
            Err("argument `b`: required property missing; argument `a`: expected number, got string".to_owned()),
        ),
        (
            "get-annotated-message",
            json!({"messageType": "warning"}),
            Err("argument `messageType`: must be one of \"error\", \"success\", \"debug\"".to_owned()),
        ),
        ("get-resource-links", json!({"count": 11}), Err("argument `count`: must be at most 10".to_owned())),
        ("get-tiny-image", json!(""), Ok(json!({}))),
        // The shape a strict provider sends: optional properties present as null.
        ("trigger-long-running-operation", json!({"duration": null, "steps": 3}), Ok(json!({"steps": 3}))),
    ];
    for (function_name, arguments, expected) in cases {
        assert_eq!(
            table.prepare_arguments(function_name, &arguments),
            expected,
            "{function_name}"
        );
    }
}

/// Twenty definitions that each use the next one twice would inline to 2^20 copies: the
/// expansion budget stops it, says so, and keeps the output small.
#[test]
fn exponential_ref_fan_out_is_cut() {
    let mut definitions = Map::new();
    for level in 0..20 {
        let next = json!({ "$ref": format!("#/$defs/L{}", level + 1) });
        definitions.insert(
            format!("L{level}"),
            json!({"type": "object", "properties": {"left": next, "right": next}}),
        );
    }
    definitions.insert("L20".to_owned(), json!({"type": "string"}));
    let schema = json!({"$defs": definitions, "$ref": "#/$defs/L0"});
    for dialect in DIALECTS {
        let sanitized = sanitize_schema(&schema, dialect);
        let budget_warnings = sanitized
            .warnings
            .iter()
            .filter(|warning| warning.contains("`$ref` expansion limit reached"))
            .count();
        assert_eq!(budget_warnings, 1, "{dialect:?}");
        assert!(sanitized.schema.to_string().len() < 200_000, "{dialect:?}");
        let violations = dialect_violations(&sanitized.schema, dialect, sanitized.strict);
        assert_eq!(violations, Vec::<String>::new(), "{dialect:?}");
    }
}

/// One large definition used by 200 properties would copy it 200 times (about 800 KB): inlining
/// stops after about 128 KB, says so once, and the rest of the properties accept any value.
#[test]
fn inlining_a_large_definition_everywhere_is_cut_by_size() {
    let description = "d".repeat(4000);
    let properties: Map<String, Value> = (0..200)
        .map(|index| (format!("p{index}"), json!({"$ref": "#/$defs/Big"})))
        .collect();
    let schema = json!({
        "type": "object",
        "properties": properties,
        "$defs": {"Big": {"type": "string", "description": description}}
    });
    for dialect in DIALECTS {
        let sanitized = sanitize_schema(&schema, dialect);
        let output_bytes = sanitized.schema.to_string().len();
        assert!(
            output_bytes < 140 * 1024,
            "{dialect:?}: {output_bytes} bytes"
        );
        assert!(
            output_bytes > 100 * 1024,
            "{dialect:?}: inlined until the budget, {output_bytes} bytes"
        );
        let limit_warnings: Vec<&String> = sanitized
            .warnings
            .iter()
            .filter(|warning| warning.contains("`$ref` expansion limit reached"))
            .collect();
        assert_eq!(
            limit_warnings.len(),
            1,
            "{dialect:?}: {:?}",
            sanitized.warnings
        );
        assert!(
            limit_warnings[0].contains("about 128 KB inlined"),
            "{dialect:?}"
        );
        let properties = sanitized.schema["properties"]
            .as_object()
            .expect("properties");
        assert_eq!(properties.len(), 200, "{dialect:?}: every property kept");
        let inlined = properties
            .values()
            .filter(|property| property.get("description").is_some())
            .count();
        assert!(
            (25..50).contains(&inlined),
            "{dialect:?}: {inlined} inlined"
        );
    }
}

/// `count` definitions, each `levels` of `items` around a `$ref` to the next one: inlined, 250 × 5
/// levels would nest 1250 deep.
fn ref_chain(count: usize, levels: usize) -> Value {
    let mut definitions = Map::new();
    for index in 0..count {
        let mut node = if index + 1 == count {
            json!({"type": "string"})
        } else {
            json!({ "$ref": format!("#/$defs/d{}", index + 1) })
        };
        for _ in 0..levels {
            node = json!({ "items": node });
        }
        definitions.insert(format!("d{index}"), node);
    }
    json!({"type": "object", "properties": {"p": {"$ref": "#/$defs/d0"}}, "$defs": definitions})
}

/// A chain of `$ref`s nests the output as deep as it likes: the output depth is bounded, so that
/// sanitizing fits the wasm stack (1 MiB, the test thread's too, in a debug build) and takes a
/// bounded time, and the output parses back (serde_json stops at 128 levels).
#[test]
fn a_ref_chain_is_cut_at_a_bounded_depth() {
    let run = || {
        for (count, levels) in [(250, 5), (250, 40), (256, 0)] {
            let schema = ref_chain(count, levels);
            for dialect in DIALECTS {
                let sanitized = sanitize_schema(&schema, dialect);
                let text = sanitized.schema.to_string();
                assert!(
                    serde_json::from_str::<Value>(&text).is_ok(),
                    "{dialect:?} {count}x{levels}: too deep to parse back"
                );
                assert!(
                    sanitized
                        .warnings
                        .iter()
                        .any(|warning| warning.contains("nested deeper than")
                            || warning.contains("`$ref` expansion limit reached")),
                    "{dialect:?} {count}x{levels}: {:?}",
                    sanitized.warnings
                );
                let violations = dialect_violations(&sanitized.schema, dialect, sanitized.strict);
                assert_eq!(violations, Vec::<String>::new(), "{dialect:?}");
            }
        }
    };
    std::thread::Builder::new()
        .stack_size(1 << 20)
        .spawn(run)
        .expect("thread")
        .join()
        .expect("no stack overflow");
}

/// OpenAI's limits on enums (structured outputs documentation): 1000 values in a schema; a string
/// enum of more than 250 values at most 15 000 characters; property names and enum values at most
/// 120 000 characters in all. Over them, OpenAI refuses a strict schema.
#[test]
fn strict_mode_respects_the_enum_limits() {
    let values = |count: usize, length: usize| -> Vec<Value> {
        (0..count)
            .map(|index| json!(format!("{index:0length$}")))
            .collect()
    };
    // (case, enum per property, strict, warning)
    let cases = [
        ("1000 values", vec![values(1000, 3)], true, ""),
        (
            "1001 values",
            vec![values(1001, 4)],
            false,
            "more than 1000 `enum` values",
        ),
        (
            "1001 values over two enums",
            vec![values(600, 3), values(401, 3)],
            false,
            "more than 1000 `enum` values",
        ),
        ("250 long values", vec![values(250, 100)], true, ""),
        (
            "251 values, 15 060 characters",
            vec![values(251, 60)],
            false,
            "more than 15000 characters",
        ),
        (
            "251 values, 14 809 characters",
            vec![values(251, 59)],
            true,
            "",
        ),
        (
            "119 008 characters in all",
            vec![
                values(250, 119),
                values(250, 119),
                values(250, 119),
                values(250, 119),
            ],
            true,
            "",
        ),
        (
            "120 008 characters in all",
            vec![
                values(250, 120),
                values(250, 120),
                values(250, 120),
                values(250, 120),
            ],
            false,
            "more than 120000 characters",
        ),
    ];
    for (case, enums, strict, warning) in cases {
        let properties: Map<String, Value> = enums
            .into_iter()
            .enumerate()
            .map(|(index, values)| {
                (
                    format!("p{index}"),
                    json!({"type": "string", "enum": values}),
                )
            })
            .collect();
        let names: Vec<&String> = properties.keys().collect();
        let input = json!({"type": "object", "properties": properties, "required": names});
        let sanitized = sanitize_schema(&input, SchemaDialect::OpenAiStrict);
        assert_eq!(sanitized.strict, strict, "{case}: {:?}", sanitized.warnings);
        let warned = match warning {
            "" => sanitized.warnings.is_empty(),
            _ => sanitized
                .warnings
                .iter()
                .any(|found| found.contains(warning)),
        };
        assert!(warned, "{case}: {:?}", sanitized.warnings);
    }
}

/// Argument values, with the shapes the generated schemas talk about.
fn argument_value() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        scalar(),
        Just(json!("2026-11-30T10:15:00Z")),
        Just(json!("https://example.com")),
        Just(json!("")),
    ];
    leaf.prop_recursive(3, 24, 4, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4).prop_map(Value::from),
            prop::collection::btree_map(property_name(), inner, 0..4)
                .prop_map(|members| Value::Object(members.into_iter().collect())),
        ]
    })
}

/// Regex-like text built from the characters that make patterns interesting.
fn pattern_text() -> impl Strategy<Value = String> {
    let piece = prop_oneof![
        Just("a"),
        Just("b"),
        Just("."),
        Just("*"),
        Just("+"),
        Just("?"),
        Just("|"),
        Just("("),
        Just(")"),
        Just("["),
        Just("]"),
        Just("^"),
        Just("$"),
        Just("{2,3}"),
        Just("{"),
        Just("\\"),
        Just("\\d"),
        Just("\\b"),
        Just("-"),
        Just("(?:"),
        Just("(?="),
        Just("\\1"),
        Just("é"),
    ];
    prop::collection::vec(piece, 0..12).prop_map(|pieces| pieces.concat())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    /// Schemas and arguments come from servers and models: checking them must never panic, and
    /// an error always names where it is.
    #[test]
    fn validation_never_panics(schema in tool_schema(), arguments in argument_value()) {
        let arguments = json!({ "a": arguments });
        for error in validate_arguments(&schema, &arguments) {
            prop_assert!(!error.message.is_empty());
        }
        let table = build_tool_table(&[(
            "s".to_owned(),
            vec![McpTool::from_listing_entry(&json!({"name": "t", "inputSchema": schema})).expect("tool")],
        )]);
        let _ = table.prepare_arguments("t", &arguments);
    }

    /// Any pattern, supported or not, and any text: an answer (or "not checked"), never a panic
    /// or a hang.
    #[test]
    fn patterns_never_panic(pattern in pattern_text(), text in "[ab.é\\-0-9 ]{0,24}") {
        let schema = json!({"properties": {"s": {"pattern": pattern}}});
        let errors = validate_arguments(&schema, &json!({ "s": text }));
        prop_assert!(errors.len() <= 1);
    }
}

/// Properties keep the order their server wrote them in, under every dialect and through the
/// JSON text a provider receives: models fill arguments in schema order (a `reasoning` field
/// before an `answer`, say), so sorting them would change what a tool gets.
#[test]
fn properties_keep_the_order_the_server_wrote() {
    let input = json!({
        "type": "object",
        "properties": {
            "zeta": {"type": "string"},
            "alpha": {"type": "integer", "minimum": 0},
            "mid": {"type": "object", "properties": {"y": {"type": "string"}, "b": {"type": "string"}}}
        },
        "required": ["zeta", "alpha"]
    });
    for dialect in DIALECTS {
        let schema = sanitize_schema(&input, dialect).schema;
        let keys = |value: &Value| -> Vec<String> {
            value["properties"]
                .as_object()
                .map(|properties| properties.keys().cloned().collect())
                .unwrap_or_default()
        };
        assert_eq!(keys(&schema), ["zeta", "alpha", "mid"], "{dialect:?}");
        assert_eq!(
            keys(&schema["properties"]["mid"]),
            ["y", "b"],
            "{dialect:?}"
        );
        let text = serde_json::to_string(&schema).unwrap();
        let at = |name: &str| text.find(&format!("\"{name}\"")).unwrap();
        assert!(
            at("zeta") < at("alpha") && at("alpha") < at("mid"),
            "{dialect:?}: {text}"
        );
    }
}

#[test]
fn dialects_are_found_by_their_names() {
    for dialect in [
        SchemaDialect::OpenAi,
        SchemaDialect::OpenAiStrict,
        SchemaDialect::Gemini,
        SchemaDialect::Anthropic,
    ] {
        assert_eq!(SchemaDialect::from_name(dialect.name()), Some(dialect));
    }
    for unknown in ["cohere", "OpenAI", "openai_strict", ""] {
        assert_eq!(SchemaDialect::from_name(unknown), None, "{unknown}");
    }
}

/// Found by the fixed-point property above (session 14): a union whose branches already take
/// `null`, made nullable, lost Gemini's `nullable` when sanitized a second time.
#[test]
fn a_nullable_union_of_open_branches_keeps_nullable_for_gemini_when_sanitized_again() {
    let input = json!({"properties": {"a": {"anyOf": [true, true], "const": null}}});
    let once = sanitize_schema(&input, SchemaDialect::Gemini).schema;
    assert_eq!(once["properties"]["a"]["nullable"], json!(true), "{once}");
    let twice = sanitize_schema(&once, SchemaDialect::Gemini).schema;
    assert_eq!(twice, once);
}

/// A root union beside a root `allOf` that holds another union: the `allOf` cannot be merged, so
/// the tool goes non-strict. Flattening the root union anyway (as the first pass did) left
/// nothing for the `allOf` to conflict with, and a second pass merged it and flattened again.
#[test]
fn a_root_union_beside_an_unmergeable_all_of_is_left_whole_for_strict() {
    let object_with =
        |name: &str| json!({"type": "object", "properties": {name: {"type": "string"}}});
    let input = json!({
        "type": "object",
        "anyOf": [object_with("a"), object_with("b")],
        "allOf": [{"anyOf": [object_with("c"), object_with("d")]}],
    });
    let once = sanitize_schema(&input, SchemaDialect::OpenAiStrict);
    assert!(!once.strict, "{:?}", once.warnings);
    assert_eq!(once.schema["anyOf"], input["anyOf"], "{}", once.schema);
    let twice = sanitize_schema(&once.schema, SchemaDialect::OpenAiStrict);
    assert_eq!(twice.schema, once.schema);
    assert!(!twice.strict);
}

/// OpenAI answers 400 for parameters with a union, an `allOf`, `enum` or `not` at the top level
/// even without strict mode ("schema must have type 'object' and not have 'oneOf'/'anyOf'/
/// 'allOf'/'enum'/'not' at the top level"), Anthropic for the first three ("input_schema does not
/// support oneOf, allOf, or anyOf at the top level"): one MCP tool shaped so (a discriminated
/// union of commands, common in generated schemas) failed every model call of a run.
#[test]
fn openai_and_anthropic_get_a_plain_object_at_the_root() {
    let object_with = |name: &str| json!({"type": "object", "properties": {name: {"type": "string"}}, "required": [name]});
    let union = json!({"oneOf": [object_with("path"), object_with("url")]});
    let merged = json!({"type": "object", "properties": {"a": {"type": "string"}},
        "allOf": [{"properties": {"b": {"type": "number"}}, "required": ["b"]}],
        "not": {"required": ["c"]}});
    let conflicting = json!({"type": "object",
        "anyOf": [object_with("a"), object_with("b")],
        "allOf": [{"anyOf": [object_with("c"), object_with("d")]}]});
    for dialect in [SchemaDialect::OpenAi, SchemaDialect::Anthropic] {
        let sanitized = sanitize_schema(&union, dialect);
        assert_eq!(
            sanitized.schema,
            json!({"type": "object", "properties": {"path": {"type": "string"}, "url": {"type": "string"}}}),
            "{dialect:?}"
        );
        assert!(!sanitized.warnings.is_empty());
        let sanitized = sanitize_schema(&merged, dialect).schema;
        assert_eq!(
            sanitized,
            json!({"type": "object", "properties": {"a": {"type": "string"}, "b": {"type": "number"}}, "required": ["b"]}),
            "{dialect:?}"
        );
        let sanitized = sanitize_schema(&conflicting, dialect).schema;
        assert_eq!(
            dialect_violations(&sanitized, dialect, false),
            Vec::<String>::new(),
            "{dialect:?}: {sanitized}"
        );
        assert_eq!(sanitize_schema(&sanitized, dialect).schema, sanitized);
    }
}

/// OpenAI refuses, even without strict mode, every schema whose `type` includes `array` and that
/// has no `items`: 400 `invalid_function_parameters` "Invalid schema for function 'f': In
/// context=('properties', 'paths'), array schema missing items."
/// (https://github.com/sigoden/aichat/pull/1049, https://github.com/mark3labs/mcphost/issues/35;
/// a type list counts too: https://github.com/tidewave-ai/tidewave_phoenix/pull/224). MCP servers
/// write `{"type": "array"}` often; a missing `items` means any item, so `items: {}` says the same.
#[test]
fn openai_arrays_always_have_items() {
    let schema = json!({"type": "object", "properties": {
        "paths": {"type": "array", "description": "files"},
        "maybe": {"type": ["array", "null"]},
        "deep": {"type": "object", "properties": {"list": {"type": "array"}}}
    }});
    let expected = json!({"type": "object", "properties": {
        "paths": {"type": "array", "description": "files", "items": {}},
        "maybe": {"type": ["array", "null"], "items": {}},
        "deep": {"type": "object", "properties": {"list": {"type": "array", "items": {}}}}
    }});
    let sanitized = sanitize_schema(&schema, SchemaDialect::OpenAi);
    assert_eq!(sanitized.schema, expected);
    assert_eq!(sanitized.warnings, Vec::<String>::new());
    let strict = sanitize_schema(&schema, SchemaDialect::OpenAiStrict);
    assert!(!strict.strict, "an array of anything cannot be strict");
    assert_eq!(
        dialect_violations(&strict.schema, SchemaDialect::OpenAiStrict, false),
        Vec::<String>::new(),
        "{}",
        strict.schema
    );
}

/// Fails unless `schema`, sanitized for each dialect, breaks none of that dialect's rules.
fn assert_valid_in_every_dialect(schema: &Value) {
    for dialect in DIALECTS {
        let sanitized = sanitize_schema(schema, dialect);
        assert_eq!(
            dialect_violations(&sanitized.schema, dialect, sanitized.strict),
            Vec::<String>::new(),
            "{dialect:?}: {}",
            sanitized.schema
        );
    }
}

/// Anthropic checks `input_schema` against the draft 2020-12 meta-schema and refuses anything
/// else with 400 "tools.0.custom.input_schema: JSON schema is invalid. It must match JSON Schema
/// draft 2020-12" (https://github.com/anthropics/anthropic-sdk-java/issues/241,
/// https://github.com/anthropics/claude-code/issues/9605). In 2020-12 `items` is one schema; a
/// list there is the tuple of drafts 4 to 2019-09, which zod-to-json-schema (its default target
/// is draft 7) writes for every `z.tuple`, with `additionalItems` for the rest. 2020-12 says the
/// same with `prefixItems` and `items`.
#[test]
fn a_draft_7_tuple_becomes_prefix_items() {
    let schema = json!({"type": "object", "properties": {
        "point": {"type": "array", "minItems": 2, "maxItems": 2,
            "items": [{"type": "number"}, {"type": "number"}], "additionalItems": false},
        "row": {"type": "array", "items": [{"type": "string"}], "additionalItems": {"type": "number"}},
        "open": {"type": "array", "items": [{"type": "string"}], "additionalItems": true}
    }});
    let expected = json!({"type": "object", "properties": {
        "point": {"type": "array", "minItems": 2, "maxItems": 2,
            "prefixItems": [{"type": "number"}, {"type": "number"}], "items": {"not": {}}},
        "row": {"type": "array", "prefixItems": [{"type": "string"}], "items": {"type": "number"}},
        "open": {"type": "array", "prefixItems": [{"type": "string"}], "items": {}}
    }});
    for dialect in [SchemaDialect::Anthropic, SchemaDialect::OpenAi] {
        let sanitized = sanitize_schema(&schema, dialect);
        assert_eq!(sanitized.schema, expected, "{dialect:?}");
        assert_eq!(sanitized.warnings, Vec::<String>::new(), "{dialect:?}");
    }
    assert_valid_in_every_dialect(&schema);
}

/// Anthropic checks `input_schema` against the draft 2020-12 meta-schema, which types the value
/// of each keyword (`description` a string, `minimum` a number, `maxLength` a count, `examples` a
/// list…), and refuses a schema that breaks it with 400 "tools.0.custom.input_schema: JSON
/// schema is invalid. It must match JSON Schema draft 2020-12"
/// (https://github.com/anthropics/claude-code/issues/9605,
/// https://github.com/MarkusPfundstein/mcp-gsuite/issues/19). Servers whose generators write
/// unset fields as `null` send exactly that; such a keyword says nothing and is removed.
#[test]
fn keyword_values_of_the_wrong_type_are_removed() {
    let schema = json!({"type": "object", "description": null, "properties": {
        "name": {"type": "string", "title": null, "pattern": null, "format": null,
            "minLength": -1, "maxLength": 1.5, "examples": "ada", "description": "who"},
        "size": {"type": "number", "minimum": null, "maximum": "9", "multipleOf": 0,
            "exclusiveMaximum": 10},
        "tags": {"type": "array", "items": {"type": "string"}, "uniqueItems": "yes",
            "minItems": 1, "deprecated": null}
    }});
    let expected = json!({"type": "object", "properties": {
        "name": {"type": "string", "description": "who"},
        "size": {"type": "number", "exclusiveMaximum": 10},
        "tags": {"type": "array", "items": {"type": "string"}, "minItems": 1}
    }});
    let sanitized = sanitize_schema(&schema, SchemaDialect::Anthropic);
    assert_eq!(sanitized.schema, expected);
    assert!(
        sanitized
            .warnings
            .iter()
            .any(|warning| warning == "#/properties/name: `minLength` is not a count: removed"),
        "{:?}",
        sanitized.warnings
    );
    assert_valid_in_every_dialect(&schema);
}

/// Found by the fixed-point property (a helper's run this session): a property whose `allOf`
/// cannot be merged in strict mode (its type does not overlap the property's) was made nullable
/// as an optional property, and the added `null` let a second pass merge the `allOf`.
#[test]
fn an_optional_property_with_an_unmergeable_all_of_is_a_fixed_point_for_strict() {
    let input = json!({"properties": {"a": {"type": "string", "allOf": [{"type": "null"}]}}});
    let once = sanitize_schema(&input, SchemaDialect::OpenAiStrict);
    assert!(!once.strict, "{}", once.schema);
    let twice = sanitize_schema(&once.schema, SchemaDialect::OpenAiStrict);
    assert_eq!(twice.schema, once.schema);
    assert!(!twice.strict);
}

/// A name `required` gives without a property (an argument the tool still requires) is taken
/// too: `c d` renamed to `c_d` beside a required `c_d` made `required` name one key twice, which
/// Anthropic refuses (found by `sanitized_output_is_valid_for_its_dialect_and_a_fixed_point`
/// with a random seed, kept in tools_sanitize.proptest-regressions).
#[test]
fn anthropic_renames_a_key_past_the_names_required_gives() {
    let schema = json!({"type": "object", "required": ["c_d", "c d"],
                        "properties": {"c d": {"type": "string"}}});
    let sanitized = sanitize_schema(&schema, SchemaDialect::Anthropic);
    assert_eq!(
        sanitized.schema,
        json!({"type": "object", "required": ["c_d", "c_d_2"],
               "properties": {"c_d_2": {"type": "string"}}})
    );
}

/// Anthropic refuses the whole request, every tool of it, when one tool's top-level property key
/// is outside `^[a-zA-Z0-9_.-]{1,64}$`: "tools.14.custom.input_schema.properties: Property keys
/// should match pattern '^[a-zA-Z0-9_.-]{1,64}$'" (anthropics/claude-code#79418, a space, an `@`
/// and a key over 64 characters; beautyfree/appstore-connect-mcp#2, `filter[id]`;
/// ComposioHQ/composio#3500, `$top` and `@microsoft.graph.conflictBehavior`). The check is on
/// the top level only: the error names `input_schema.properties`, decocms/studio#6874 renames
/// only top-level keys for that reason, and aws-solutions-library-samples/
/// accelerated-intelligent-document-processing-on-aws#709 measured that nested offenders pass
/// (Bedrock's Converse API gives the same error for Claude). No such rule was found for OpenAI
/// or Gemini, whose dialects keep the keys. The renamed keys stay unique (`filter_id_` is taken
/// here), and `required` follows them.
#[test]
fn anthropic_renames_the_property_keys_it_refuses() {
    let long_key = "x".repeat(70);
    let schema = json!({"type": "object", "properties": {
        "filter[id]": {"type": "string"},
        "filter_id_": {"type": "string"},
        "$top": {"type": "integer"},
        "@microsoft.graph.conflictBehavior": {"type": "string"},
        "Account Number": {"type": "string"},
        long_key.clone(): {"type": "string"},
        "nested": {"type": "object", "properties": {"filter[name]": {"type": "string"}}}
    }, "required": ["filter[id]", "nested"]});
    let sanitized = sanitize_schema(&schema, SchemaDialect::Anthropic);
    let long_sent = "x".repeat(64);
    let expected = json!({"type": "object", "properties": {
        "filter_id__2": {"type": "string"},
        "filter_id_": {"type": "string"},
        "_top": {"type": "integer"},
        "_microsoft_graph_conflictBehavior": {"type": "string"},
        "Account_Number": {"type": "string"},
        long_sent.clone(): {"type": "string"},
        "nested": {"type": "object", "properties": {"filter[name]": {"type": "string"}}}
    }, "required": ["filter_id__2", "nested"]});
    assert_eq!(sanitized.schema, expected);
    let renamed: Vec<(&str, &str)> = sanitized
        .renamed_properties
        .iter()
        .map(|renamed| (renamed.sent.as_str(), renamed.original.as_str()))
        .collect();
    assert_eq!(
        renamed,
        vec![
            ("filter_id__2", "filter[id]"),
            ("_top", "$top"),
            (
                "_microsoft_graph_conflictBehavior",
                "@microsoft.graph.conflictBehavior"
            ),
            ("Account_Number", "Account Number"),
            (long_sent.as_str(), long_key.as_str()),
        ]
    );
    assert_eq!(
        sanitized.warnings[0],
        "#/properties/filter[id]: renamed `filter_id__2`: Anthropic takes only keys of 1 to 64 characters of [a-zA-Z0-9_.-]"
    );
    assert_eq!(sanitized.warnings.len(), 5);
    assert_valid_in_every_dialect(&schema);
    assert_eq!(
        sanitize_schema(&sanitized.schema, SchemaDialect::Anthropic).schema,
        sanitized.schema
    );
    for dialect in [SchemaDialect::OpenAi, SchemaDialect::Gemini] {
        let kept = sanitize_schema(&schema, dialect);
        assert!(kept.schema["properties"].get("filter[id]").is_some());
        assert!(kept.renamed_properties.is_empty());
    }
}
