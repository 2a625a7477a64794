//! `toolChoice`: the tool use a run's first model call asks for, in each wire's words.
//!
//! The choice holds for the first call of a run only; later rounds are `auto`, as the OpenAI
//! Agents SDK resets `tool_choice` after a tool call: forced on every round, a model could do
//! nothing but call tools until `maxRounds` (the AI SDK leaves that to `prepareStep`, which this
//! library has not).

use serde::de::Error;
use serde_json::{Map, Value};

use super::config::ResolvedProvider;
use super::error::ProviderError;
use super::request::{member_text, ProviderTools};
use super::table::Endpoint;
use crate::core::json_read::{invalid_type, known_member, object, string};
use crate::core::json_text::{object as json_object, SetMember};
use crate::core::tools::ToolEntry;

/// The AI SDK's `toolChoice`.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub enum ToolChoice {
    #[default]
    Auto,
    /// A call of some tool.
    Required,
    /// No call, the tools still shown.
    None,
    /// A call of this tool: its function name as offered, or its MCP name where one tool has it.
    Tool(String),
}

const NAMED_CHOICES: [&str; 3] = ["auto", "required", "none"];
const TOOL_CHOICE_MEMBERS: &[&str] = &["type", "toolName"];

impl ToolChoice {
    /// Reads `"auto" | "required" | "none" | { type: "tool", toolName }` with serde's error texts.
    pub fn from_json<E: Error>(value: Value) -> Result<Self, E> {
        let mut members = match value {
            Value::String(name) => {
                return match name.as_str() {
                    "auto" => Ok(ToolChoice::Auto),
                    "required" => Ok(ToolChoice::Required),
                    "none" => Ok(ToolChoice::None),
                    other => Err(E::unknown_variant(other, &NAMED_CHOICES)),
                };
            }
            other => object::<E>(
                other,
                "\"auto\", \"required\", \"none\" or { type: \"tool\", toolName }",
            )?,
        };
        for key in members.keys() {
            known_member::<E>(key, TOOL_CHOICE_MEMBERS)?;
        }
        let kind = string::<E>(
            members
                .shift_remove("type")
                .ok_or_else(|| E::missing_field("type"))?,
        )?;
        if kind != "tool" {
            return Err(E::unknown_variant(&kind, &["tool"]));
        }
        match members.shift_remove("toolName") {
            Some(Value::String(name)) if !name.is_empty() => Ok(ToolChoice::Tool(name)),
            Some(other) => Err(invalid_type(&other, &"a tool name")),
            None => Err(E::missing_field("toolName")),
        }
    }
}

impl ResolvedProvider {
    /// `tools` asking for `choice`, for the first call of a run. Fails for a tool name no tool
    /// has (or, as an MCP name, more than one server's), and for a wire that cannot be asked.
    pub fn tools_choosing(
        &self,
        tools: &ProviderTools,
        entries: &[ToolEntry],
        choice: &ToolChoice,
    ) -> Result<ProviderTools, ProviderError> {
        let function_name = match choice {
            ToolChoice::Tool(name) => Some(self.chosen_function(entries, name)?),
            _ => None,
        };
        let members = match (self.spec.endpoint, choice) {
            (_, ToolChoice::Auto) => return Ok(tools.clone()),
            (Endpoint::ChatCompletions | Endpoint::AzureDeployment | Endpoint::Responses, _) => {
                let forced = match function_name {
                    None => Value::from(choice_word(choice)),
                    Some(name) if self.spec.endpoint == Endpoint::Responses => json_object([
                        ("type", Value::from("function")),
                        ("name", Value::from(name)),
                    ]),
                    Some(name) => json_object([
                        ("type", Value::from("function")),
                        ("function", json_object([("name", Value::from(name))])),
                    ]),
                };
                member_text("tool_choice", forced)
            }
            (Endpoint::AnthropicMessages, _) => {
                let mut forced = Map::new();
                let kind = match choice {
                    ToolChoice::Required => "any",
                    ToolChoice::Tool(_) => "tool",
                    _ => "none",
                };
                forced.set("type", Value::from(kind));
                if let Some(name) = function_name {
                    forced.set("name", Value::from(name));
                }
                member_text("tool_choice", Value::Object(forced))
            }
            (Endpoint::GeminiModels, _) => {
                let mut config = Map::new();
                let mode = match choice {
                    ToolChoice::None => "NONE",
                    _ => "ANY",
                };
                config.set("mode", Value::from(mode));
                if let Some(name) = function_name {
                    config.set(
                        "allowedFunctionNames",
                        Value::Array(vec![Value::from(name)]),
                    );
                }
                member_text(
                    "toolConfig",
                    json_object([("functionCallingConfig", Value::Object(config))]),
                )
            }
            (Endpoint::OllamaChat | Endpoint::WatsonxChat, _) => {
                return Err(ProviderError::ToolChoiceUnsupported {
                    provider: self.provider_name(),
                });
            }
        };
        Ok(tools.with_choice(members))
    }

    /// The function name `name` stands for: a function name as offered, else the one tool
    /// whose MCP name it is.
    fn chosen_function<'a>(
        &self,
        entries: &'a [ToolEntry],
        name: &str,
    ) -> Result<&'a str, ProviderError> {
        let mut by_tool_name = None;
        let mut tool_name_count = 0;
        for entry in entries {
            if entry.function_name == name {
                return Ok(&entry.function_name);
            }
            if entry.tool == name {
                by_tool_name = Some(entry.function_name.as_str());
                tool_name_count += 1;
            }
        }
        match by_tool_name {
            Some(function_name) if tool_name_count == 1 => Ok(function_name),
            _ => Err(ProviderError::UnknownToolChoice {
                provider: self.provider_name(),
                name: name.to_owned(),
                problem: if tool_name_count > 1 {
                    "names a tool of several servers: give its function name"
                } else {
                    "names no tool the run offers"
                },
            }),
        }
    }
}

fn choice_word(choice: &ToolChoice) -> &'static str {
    match choice {
        ToolChoice::Required => "required",
        ToolChoice::None => "none",
        _ => "auto",
    }
}
