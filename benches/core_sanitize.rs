//! Cost of turning a large MCP `tools/list` answer (500 tools) into provider tools: parsing the
//! listing and building the tool table, and sanitizing every input schema for each dialect, in
//! listings per second; and a model request offering those tools, built with the schemas sanitized
//! for it and with the provider's tools prepared once (what an Agent does for every round after
//! its first). Run with `cargo bench --bench core_sanitize`.

mod core_common;

use std::rc::Rc;

use core_common::{Candidate, Workload};
use mcp_agent_wasm::core::message::{ChatMessage, Role};
use mcp_agent_wasm::core::provider::{ProviderConfig, ResolvedProvider, ResponseMode};
use mcp_agent_wasm::core::tools::{
    build_tool_table, sanitize_schema, McpTool, SchemaDialect, ToolEntry,
};
use serde_json::{json, Value};

const TOOL_COUNT: usize = 500;

const DIALECTS: [SchemaDialect; 4] = [
    SchemaDialect::OpenAi,
    SchemaDialect::OpenAiStrict,
    SchemaDialect::Gemini,
    SchemaDialect::Anthropic,
];

fn main() {
    let mut candidates = vec![Candidate::new("tools/parse+table/500-tools", || {
        let listing = Rc::new(listing_json());
        Workload {
            units_per_run: 1.0,
            rate_unit: "listings/s",
            run: Box::new(move || parse_and_build_table(&listing)),
        }
    })];
    for dialect in DIALECTS {
        candidates.push(Candidate::new(
            format!("sanitize/{}/500-tools", dialect.name()),
            move || {
                let schemas: Vec<Value> = parse_tools(&listing_json())
                    .into_iter()
                    .map(|tool| tool.input_schema)
                    .collect();
                Workload {
                    units_per_run: 1.0,
                    rate_unit: "listings/s",
                    run: Box::new(move || sanitize_all(&schemas, dialect)),
                }
            },
        ));
    }
    for prepare_once in [false, true] {
        let name = if prepare_once {
            "prepared"
        } else {
            "sanitized"
        };
        candidates.push(Candidate::new(
            format!("request/openai/500-tools/{name}"),
            move || {
                let (provider, tools) = openai_with_tools();
                let prepared = prepare_once.then(|| provider.provider_tools(&tools));
                Workload {
                    units_per_run: 1.0,
                    rate_unit: "requests/s",
                    run: Box::new(move || {
                        let mode = ResponseMode::Streaming;
                        let built = match &prepared {
                            Some(prepared) => {
                                provider.chat_request_with(&conversation(), prepared, mode)
                            }
                            None => provider.chat_request(&conversation(), &tools, mode),
                        };
                        built.expect("a valid request").request.body.len()
                    }),
                }
            },
        ));
    }
    core_common::main(candidates);
}

fn openai_with_tools() -> (ResolvedProvider, Vec<ToolEntry>) {
    let provider = ProviderConfig {
        id: "openai".to_owned(),
        api_key: Some("k".to_owned()),
        ..ProviderConfig::default()
    }
    .resolve()
    .expect("a complete config");
    let tools = build_tool_table(&[("bench-server".to_owned(), parse_tools(&listing_json()))])
        .entries()
        .to_vec();
    (provider, tools)
}

fn conversation() -> Vec<ChatMessage> {
    vec![ChatMessage::text(
        Role::User,
        "What is the weather in Paris?",
    )]
}

/// As the MCP client reads a `tools/list` result.
fn parse_tools(listing: &str) -> Vec<McpTool> {
    let result: Value = serde_json::from_str(listing).expect("the listing is JSON");
    result["tools"]
        .as_array()
        .expect("the listing holds tools")
        .iter()
        .map(|entry| McpTool::from_listing_entry(entry).expect("an MCP tool"))
        .collect()
}

fn parse_and_build_table(listing: &str) -> usize {
    let tools = parse_tools(listing);
    build_tool_table(&[("bench-server".to_owned(), tools)])
        .entries()
        .len()
}

fn sanitize_all(schemas: &[Value], dialect: SchemaDialect) -> usize {
    schemas
        .iter()
        .map(|schema| sanitize_schema(schema, dialect).warnings.len())
        .sum()
}

/// A `tools/list` result of TOOL_COUNT tools whose schemas mix what real servers send: nested
/// objects, arrays of objects, enums, formats, patterns, nullable unions, `$ref`s into `$defs`,
/// defaults, and names that need sanitizing.
fn listing_json() -> String {
    let tools: Vec<Value> = (0..TOOL_COUNT).map(tool).collect();
    json!({ "tools": tools }).to_string()
}

fn tool(index: usize) -> Value {
    let mut properties = serde_json::Map::new();
    let mut required = Vec::new();
    for field in 0..(2 + index % 7) {
        let name = format!("field_{field}");
        if field % 2 == 0 {
            required.push(name.clone());
        }
        properties.insert(name, property(index + field));
    }
    json!({
        "name": if index % 5 == 0 { format!("files.read/{index}") } else { format!("tool_{index}") },
        "title": format!("Tool {index}"),
        "description": format!("Does thing number {index} with the given fields."),
        "inputSchema": {
            "$schema": "http://json-schema.org/draft-07/schema#",
            "type": "object",
            "properties": properties,
            "required": required,
            "additionalProperties": false,
            "$defs": {
                "address": {
                    "type": "object",
                    "properties": {
                        "street": { "type": "string", "minLength": 1 },
                        "postcode": { "type": "string", "pattern": "^[0-9]{5}$" }
                    },
                    "required": ["street"]
                }
            }
        },
        "annotations": { "readOnlyHint": index % 2 == 0 }
    })
}

fn property(kind: usize) -> Value {
    match kind % 8 {
        0 => json!({ "type": "string", "description": "a name", "minLength": 1, "maxLength": 200 }),
        1 => json!({ "type": "integer", "minimum": 0, "maximum": 1000, "default": 10 }),
        2 => json!({ "type": "string", "enum": ["asc", "desc", "none"] }),
        3 => json!({ "type": "string", "format": "date-time" }),
        4 => json!({ "anyOf": [{ "type": "string", "format": "uri" }, { "type": "null" }] }),
        5 => json!({ "$ref": "#/$defs/address" }),
        6 => json!({
            "type": "array",
            "items": {
                "type": "object",
                "properties": {
                    "key": { "type": "string", "pattern": "^[a-z_]+$" },
                    "value": { "type": ["string", "number", "boolean"] }
                },
                "required": ["key"]
            },
            "maxItems": 50
        }),
        _ => json!({
            "type": "object",
            "properties": {
                "enabled": { "type": "boolean" },
                "limits": {
                    "type": "object",
                    "additionalProperties": { "type": "number", "exclusiveMinimum": 0 }
                }
            }
        }),
    }
}
