//! From MCP tools to provider tools: names, the dispatch table, schemas and argument checks.

mod format;
mod names;
mod pattern;
mod prompt;
mod property_keys;
mod refs;
mod sanitize;
mod validate;

use std::borrow::Cow;
use std::rc::Rc;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::core::json_read::{json_kind, strings_in};

pub use names::{
    build_tool_names, is_name_character, sanitize_function_name, with_name_characters, ToolName,
    FALLBACK_FUNCTION_NAME, MAX_FUNCTION_NAME_LENGTH,
};
pub use prompt::tool_prompt;
pub use property_keys::{ArgumentKeys, RenamedProperty};
pub use sanitize::sanitize_schema;
pub use validate::{
    describe_errors, drop_optional_nulls, validate_arguments, validate_value, ArgumentError,
    Subject,
};

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
    /// Shared: every run and model call of an Agent reads the same table without copying it.
    entries: Rc<[ToolEntry]>,
}

impl ToolTable {
    pub fn new(entries: Vec<ToolEntry>) -> Self {
        ToolTable {
            entries: entries.into(),
        }
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

    /// The function name the model sees for `tool` of `server` (the reverse of [`Self::get`]).
    pub fn function_name(&self, server: &str, tool: &str) -> Option<&str> {
        self.entries
            .iter()
            .find(|entry| entry.server == server && entry.tool == tool)
            .map(|entry| entry.function_name.as_str())
    }

    /// Checks a model's arguments for `function_name` against the tool's original schema (local
    /// `$ref`s resolved). The error is one short text written for the model, so that it can repair
    /// its call; several problems are joined with `; `. Arguments that are the empty string (some
    /// models send `""` for a call without parameters) are taken as `{}` here, so callers need not.
    pub fn check_arguments(&self, function_name: &str, arguments: &Value) -> Result<(), String> {
        let entry = self
            .get(function_name)
            .ok_or_else(|| format!("unknown tool `{function_name}`"))?;
        let errors = validate_arguments(&entry.input_schema, &empty_string_as_object(arguments));
        if errors.is_empty() {
            Ok(())
        } else {
            Err(describe_errors(&errors))
        }
    }

    /// The arguments to send to the MCP server: `""` becomes `{}`, the `null`s a strict provider
    /// puts in optional properties are removed (see [`drop_optional_nulls`]), then the result is
    /// checked as in [`Self::check_arguments`].
    pub fn prepare_arguments(
        &self,
        function_name: &str,
        arguments: &Value,
    ) -> Result<Value, String> {
        let entry = self
            .get(function_name)
            .ok_or_else(|| format!("unknown tool `{function_name}`"))?;
        let mut prepared = empty_string_as_object(arguments).into_owned();
        drop_optional_nulls(&entry.input_schema, &mut prepared);
        let errors = validate_arguments(&entry.input_schema, &prepared);
        if errors.is_empty() {
            Ok(prepared)
        } else {
            Err(describe_errors(&errors))
        }
    }
}

/// Some models send `""` (or whitespace) as the arguments of a call without parameters.
pub fn empty_string_as_object(arguments: &Value) -> Cow<'_, Value> {
    match arguments {
        Value::String(text) if text.trim().is_empty() => {
            Cow::Owned(Value::Object(serde_json::Map::new()))
        }
        _ => Cow::Borrowed(arguments),
    }
}

/// The tools of every server, in server order, with provider-facing names (see
/// [`build_tool_names`]). Tools with an empty name are skipped, and so are those that run only
/// as a task ([`McpTool::runs_only_as_task`]): neither can be called. A missing description
/// falls back to `annotations.title`, then to the tool's `title`.
pub fn build_tool_table<Tools: AsRef<[McpTool]>>(servers: &[(String, Tools)]) -> ToolTable {
    build_tool_table_allowing(servers, &[])
}

/// [`build_tool_table`] where each server named in `allowed` (those given `allowedTools`) offers
/// only the tools listed with it.
pub fn build_tool_table_allowing<Tools: AsRef<[McpTool]>>(
    servers: &[(String, Tools)],
    allowed: &[(String, Vec<String>)],
) -> ToolTable {
    let mut tools: Vec<(&str, &McpTool)> = Vec::new();
    for (server, listing) in servers {
        let allowed = allowed.iter().find(|(name, _)| name == server);
        for tool in listing.as_ref() {
            let offered = allowed.is_none_or(|(_, names)| names.contains(&tool.name));
            if offered && !tool.name.is_empty() && !tool.runs_only_as_task() {
                tools.push((server, tool));
            }
        }
    }
    // Plain loops: map and zip adapters compiled to functions of their own.
    let mut pairs: Vec<(&str, &str)> = Vec::with_capacity(tools.len());
    for (server, tool) in &tools {
        pairs.push((server, tool.name.as_str()));
    }
    let mut entries = Vec::with_capacity(tools.len());
    for (name, (_, tool)) in build_tool_names(&pairs).into_iter().zip(&tools) {
        entries.push(ToolEntry {
            function_name: name.name,
            server: name.server,
            tool: name.tool,
            description: tool_description(tool),
            input_schema: tool.input_schema.clone(),
            annotations: tool.annotations.clone(),
        });
    }
    ToolTable::new(entries)
}

/// The names in `allowed` (a server's `allowedTools`) that `listing` offers no callable tool for
/// (not listed, or listed to run only as a task), each once, for the caller to report: a tool
/// asked for by name and left out without a word would be a mystery.
pub fn unlisted_tools(listing: &[McpTool], allowed: &[String]) -> Vec<String> {
    let mut unlisted: Vec<String> = Vec::new();
    for name in allowed {
        let callable = |tool: &McpTool| tool.name == *name && !tool.runs_only_as_task();
        if !listing.iter().any(callable) && !unlisted.contains(name) {
            unlisted.push(name.clone());
        }
    }
    unlisted
}

fn tool_description(tool: &McpTool) -> Option<String> {
    let non_empty = |text: &str| !text.trim().is_empty();
    tool.description
        .as_deref()
        .filter(|text| non_empty(text))
        .or_else(|| {
            tool.annotations
                .as_ref()
                .and_then(|annotations| annotations.get("title"))
                .and_then(Value::as_str)
                .filter(|text| non_empty(text))
        })
        .or_else(|| tool.title.as_deref().filter(|text| non_empty(text)))
        .map(str::to_owned)
}

/// A tool as an MCP server lists it in `tools/list` (wire field names).
#[derive(Debug, Clone, PartialEq, Serialize)]
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
    /// How the tool runs (MCP 2025-11-25: `taskSupport`), as sent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub execution: Option<Value>,
}

impl McpTool {
    /// Whether the tool runs only as a task (`execution.taskSupport: "required"`): servers
    /// refuse a plain `tools/call` of it (-32601), and this client does not implement tasks
    /// (experimental in MCP 2025-11-25, since moved to an extension of its own).
    pub fn runs_only_as_task(&self) -> bool {
        let support = self
            .execution
            .as_ref()
            .and_then(|execution| execution.get("taskSupport"));
        support.and_then(Value::as_str) == Some("required")
    }

    /// Reads one entry of a `tools/list` result: `name` must be a string; `title` and
    /// `description` are strings or absent (or null); the schemas and annotations are kept as
    /// sent; other members are ignored. Read by hand from the parsed JSON rather than through
    /// serde's `Value` deserializer, which this would be the only wasm user of (about 3 KB).
    pub fn from_listing_entry(entry: &Value) -> Result<McpTool, String> {
        let Value::Object(members) = entry else {
            return Err(format!("expected an object, got {}", json_kind(entry)));
        };
        let text = |key: &str| match members.get(key) {
            None | Some(Value::Null) => Ok(None),
            Some(Value::String(text)) => Ok(Some(text.clone())),
            Some(other) => Err(format!(
                "`{key}` must be a string, got {}",
                json_kind(other)
            )),
        };
        let kept = |key: &str| members.get(key).filter(|value| !value.is_null()).cloned();
        Ok(McpTool {
            name: text("name")?.ok_or("missing field `name`")?,
            title: text("title")?,
            description: text("description")?,
            input_schema: members.get("inputSchema").cloned().unwrap_or_default(),
            output_schema: kept("outputSchema"),
            annotations: kept("annotations"),
            execution: kept("execution"),
        })
    }
}

/// The JSON Schema subset a provider accepts for function parameters.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum SchemaDialect {
    /// OpenAI and compatibles, non-strict.
    #[default]
    OpenAi,
    /// OpenAI structured outputs (`strict: true`).
    OpenAiStrict,
    /// Gemini's OpenAPI 3.0 subset.
    Gemini,
    /// Anthropic `input_schema`.
    Anthropic,
}

impl SchemaDialect {
    /// The name used on the wire and in warnings (`openai-strict`).
    pub fn name(self) -> &'static str {
        match self {
            SchemaDialect::OpenAi => "openai",
            SchemaDialect::OpenAiStrict => "openai-strict",
            SchemaDialect::Gemini => "gemini",
            SchemaDialect::Anthropic => "anthropic",
        }
    }

    /// The dialect of a [`name`](Self::name).
    pub fn from_name(name: &str) -> Option<Self> {
        [
            SchemaDialect::OpenAi,
            SchemaDialect::OpenAiStrict,
            SchemaDialect::Gemini,
            SchemaDialect::Anthropic,
        ]
        .into_iter()
        .find(|dialect| dialect.name() == name)
    }
}

/// A sanitized schema and what the sanitizer had to change or could not keep.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SanitizedSchema {
    pub schema: Value,
    pub warnings: Vec<String>,
    /// For [`SchemaDialect::OpenAiStrict`]: whether `schema` is valid for OpenAI strict mode. When
    /// false, send the tool with `strict: false` (the warnings say why). False for other dialects.
    pub strict: bool,
    /// The top-level property keys renamed for the provider ([`SchemaDialect::Anthropic`]): a
    /// model's arguments use the sent keys, the tool expects the original ones.
    #[serde(
        rename = "renamedProperties",
        default,
        skip_serializing_if = "Vec::is_empty"
    )]
    pub renamed_properties: Vec<RenamedProperty>,
}

/// A schema node's `type` as a list of names: its one name, or the strings of its array; `None`
/// when it names none (no `type`, or one of another kind). The sanitizer and the validator read
/// it alike.
fn type_list(node: &serde_json::Map<String, Value>) -> Option<Vec<&str>> {
    match node.get("type")? {
        Value::String(type_name) => Some(vec![type_name.as_str()]),
        Value::Array(type_names) => Some(strings_in(type_names)),
        _ => None,
    }
}
