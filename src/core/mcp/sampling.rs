//! Sampling (MCP 2025-06-18 and 2025-11-25, "Client Features: Sampling"): a server asks the
//! client's model for a completion, so that a tool can use a model without keys of its own. An
//! Agent answers with its own provider and model once the page agreed; this module reads the
//! server's `sampling/createMessage` into a conversation and the model's answer into the
//! `CreateMessageResult` the server gets.
//!
//! With `sampling.tools` declared (2025-11-25, SEP-1577) the request may offer the model tools:
//! they get function names as an Agent's MCP tools do, the model's calls go back to the server as
//! `tool_use` blocks with the server's own names, and the server runs them and sends their
//! `tool_result`s in its next request. The client never runs them.

use std::rc::Rc;

use serde_json::{Map, Value};

use crate::core::assembler::ToolCallAssembler;
use crate::core::json_text::{object, to_json_text, SetMember};
use crate::core::mcp::tools::{model_images, ToolCallResult};
use crate::core::message::{
    ChatMessage, ContentPart, FunctionCall, ImageUrl, MessageContent, MessageToolCall, Role,
};
use crate::core::model_event::{FinishReason, ModelEvent};
use crate::core::provider::{ProviderError, ProviderTools, ResolvedProvider, ToolChoice};
use crate::core::tools::{
    build_tool_table_allowing, drop_optional_nulls, sanitize_function_name, ArgumentKeys, McpTool,
    ToolTable,
};

/// The error code of a sampling request the user refused (the spec's example: -1, "User
/// rejected sampling request").
pub const USER_REJECTED: i64 = -1;

/// The server name a request's tools are filed under in their [`ToolTable`]: they are all one
/// server's, so it shows only in a name made unique (`get_weather_sampling`).
const SAMPLED_SERVER: &str = "sampling";

/// A `sampling/createMessage` as the provider call needs it.
#[derive(Debug, Clone, PartialEq)]
pub struct SamplingRequest {
    /// The server's `systemPrompt` first, then its messages; tool uses and results in the
    /// OpenAI shape every provider's request is built from.
    pub messages: Vec<ChatMessage>,
    pub max_tokens: u32,
    pub temperature: Option<f64>,
    /// The server's `tools`, named for the model; empty when it offered none.
    pub tools: ToolTable,
    /// `toolChoice.mode` (`auto` when absent).
    pub tool_choice: ToolChoice,
}

impl SamplingRequest {
    /// The request's tools in `provider`'s wire shape, asking for its `toolChoice`. A wire that
    /// cannot be told to call no tool (Ollama's, watsonx's) is offered none, which keeps the
    /// promise; one that cannot be told to call some tool fails, as do more tools than the
    /// provider takes.
    pub fn provider_tools(
        &self,
        provider: &ResolvedProvider,
    ) -> Result<ProviderTools, ProviderError> {
        let entries = self.tools.entries();
        provider.check_tool_count(entries)?;
        let offered = provider.provider_tools(entries);
        match provider.tools_choosing(&offered, entries, &self.tool_choice) {
            Err(ProviderError::ToolChoiceUnsupported { .. })
                if self.tool_choice == ToolChoice::None =>
            {
                Ok(ProviderTools::default())
            }
            chosen => chosen,
        }
    }
}

/// Reads the server's params. Text and image content is taken (each message's one block, or its
/// list of blocks), and with `takes_tools` (the client declared `sampling.tools`) also `tools`,
/// `toolChoice` and `tool_use` / `tool_result` blocks, each tool use answered by its result in
/// the next message and that message holding results only (the spec's "Message Content
/// Constraints"). Anything else is refused with the reason: audio, tools the client did not
/// declare (which the spec says it MUST refuse), a request without messages or `maxTokens`.
pub fn sampling_request(params: &Value, takes_tools: bool) -> Result<SamplingRequest, String> {
    let Some(listed) = params.get("messages").and_then(Value::as_array) else {
        return Err("sampling/createMessage without a `messages` list".to_owned());
    };
    if listed.is_empty() {
        return Err("sampling/createMessage with no messages".to_owned());
    }
    let max_tokens = match params.get("maxTokens").and_then(Value::as_u64) {
        Some(count) if count > 0 => u32::try_from(count).unwrap_or(u32::MAX),
        _ => {
            return Err("sampling/createMessage without a positive integer `maxTokens`".to_owned())
        }
    };
    let given = |name: &str| params.get(name).filter(|value| !value.is_null());
    if !takes_tools && (given("tools").is_some() || given("toolChoice").is_some()) {
        return Err("sampling/createMessage with `tools` or `toolChoice`, which this client does not declare (`sampling.tools`)".to_owned());
    }
    let tools = sampled_tools(given("tools"))?;
    let tool_choice = match given("toolChoice").map(|choice| (choice, choice.get("mode"))) {
        None | Some((Value::Object(_), None)) => ToolChoice::Auto,
        Some((Value::Object(_), Some(mode))) => match mode.as_str() {
            Some("auto") => ToolChoice::Auto,
            Some("required") => ToolChoice::Required,
            Some("none") => ToolChoice::None,
            _ => return Err(TOOL_CHOICE_MODES.to_owned()),
        },
        Some(_) => return Err(TOOL_CHOICE_MODES.to_owned()),
    };
    let mut messages = Vec::new();
    if let Some(system) = params.get("systemPrompt").and_then(Value::as_str) {
        messages.push(ChatMessage::text(Role::System, system));
    }
    // The ids of the tool uses the message before asked for, which this one must answer.
    let mut awaited: Vec<String> = Vec::new();
    for (index, message) in listed.iter().enumerate() {
        read_message(message, takes_tools, &tools, &mut awaited, &mut messages)
            .map_err(|problem| format!("messages[{index}]: {problem}"))?;
    }
    if let Some(id) = awaited.first() {
        let last = listed.len() - 1;
        return Err(format!(
            "messages[{last}]: the tool_use `{id}` has no tool_result after it"
        ));
    }
    Ok(SamplingRequest {
        messages,
        max_tokens,
        temperature: params.get("temperature").and_then(Value::as_f64),
        tools,
        tool_choice,
    })
}

const TOOL_CHOICE_MODES: &str = "`toolChoice` must be { mode: \"auto\" | \"required\" | \"none\" }";

/// Reads one sampling message into `messages`: it must answer each of the `awaited` tool uses
/// of the message before (and nothing else), which become the ones it asks for.
fn read_message(
    message: &Value,
    takes_tools: bool,
    tools: &ToolTable,
    awaited: &mut Vec<String>,
    messages: &mut Vec<ChatMessage>,
) -> Result<(), String> {
    let role = match message.get("role").and_then(Value::as_str) {
        Some("user") => Role::User,
        Some("assistant") => Role::Assistant,
        _ => return Err("`role` must be \"user\" or \"assistant\"".to_owned()),
    };
    let blocks = match message.get("content") {
        Some(Value::Array(blocks)) => blocks.as_slice(),
        Some(block @ Value::Object(_)) => std::slice::from_ref(block),
        _ => return Err("`content` must be a block or a list of blocks".to_owned()),
    };
    let mut read = ReadMessage::default();
    for block in blocks {
        read.add(block, role, takes_tools, tools)?;
    }
    if !read.results.is_empty() && (!read.parts.is_empty() || !read.calls.is_empty()) {
        return Err("a tool_result mixed with other content".to_owned());
    }
    for (id, ..) in &read.results {
        let Some(position) = awaited.iter().position(|awaited| awaited == id) else {
            return Err(format!(
                "the tool_result `{id}` answers no tool_use of the message before it"
            ));
        };
        awaited.remove(position);
    }
    if let Some(id) = awaited.first() {
        return Err(format!(
            "no tool_result for the tool_use `{id}` of the message before it"
        ));
    }
    for call in &read.calls {
        awaited.push(call.id.clone());
    }
    read.into_messages(role, messages);
    Ok(())
}

/// The server's `tools`, read as `tools/list` entries are and named as an Agent's MCP tools are
/// (sanitized, made unique), so that strict providers take them.
fn sampled_tools(listed: Option<&Value>) -> Result<ToolTable, String> {
    let Some(listed) = listed else {
        return Ok(ToolTable::default());
    };
    let Some(listed) = listed.as_array() else {
        return Err("`tools` must be a list of tools".to_owned());
    };
    let mut tools = Vec::with_capacity(listed.len());
    for (index, entry) in listed.iter().enumerate() {
        let tool = McpTool::from_listing_entry(entry)
            .map_err(|problem| format!("tools[{index}]: {problem}"))?;
        if tool.name.is_empty() {
            return Err(format!("tools[{index}]: a tool without a name"));
        }
        tools.push(tool);
    }
    // The listing type the Agent's tables are built from: one instance of the builder.
    let listing: Rc<[McpTool]> = tools.into();
    Ok(build_tool_table_allowing(
        &[(SAMPLED_SERVER.to_owned(), listing)],
        &[],
    ))
}

/// One sampling message's blocks, sorted by kind.
#[derive(Default)]
struct ReadMessage {
    parts: Vec<ContentPart>,
    calls: Vec<MessageToolCall>,
    /// Each `tool_result`'s `toolUseId`, the text the model reads and the images it may be
    /// shown.
    results: Vec<(String, String, Vec<ContentPart>)>,
}

impl ReadMessage {
    fn add(
        &mut self,
        block: &Value,
        role: Role,
        takes_tools: bool,
        tools: &ToolTable,
    ) -> Result<(), String> {
        let text_of = |name: &str| block.get(name).and_then(Value::as_str);
        match (text_of("type"), role) {
            (Some("tool_use"), Role::Assistant) if takes_tools => {
                let (Some(id), Some(name), Some(input @ Value::Object(_))) =
                    (text_of("id"), text_of("name"), block.get("input"))
                else {
                    return Err(
                        "a tool_use block without a string `id` and `name` and an object `input`"
                            .to_owned(),
                    );
                };
                let function_name = tools
                    .function_name(SAMPLED_SERVER, name)
                    .map_or_else(|| sanitize_function_name(name), str::to_owned);
                self.calls.push(MessageToolCall {
                    id: id.to_owned(),
                    call_type: "function".to_owned(),
                    function: FunctionCall {
                        name: function_name,
                        arguments: to_json_text(input),
                    },
                    thought_signature: None,
                });
            }
            (Some("tool_result"), Role::User) if takes_tools => {
                // The block has a tool call result's members: read as one, as the Agent reads them.
                let (Some(id), Some(Value::Array(_)), Ok(result)) = (
                    text_of("toolUseId"),
                    block.get("content"),
                    ToolCallResult::from_result(block.clone()),
                ) else {
                    return Err(
                        "a tool_result block without a string `toolUseId` and a `content` list"
                            .to_owned(),
                    );
                };
                let text = if result.is_error {
                    format!("Error: {}", result.model_text)
                } else {
                    result.model_text
                };
                self.results
                    .push((id.to_owned(), text, model_images(&result.blocks)));
            }
            (Some(kind @ ("tool_use" | "tool_result")), _) if takes_tools => {
                return Err(format!("a {kind} block with `role` \"{}\"", role.name()));
            }
            _ => self.parts.push(content_part(block)?),
        }
        Ok(())
    }

    /// The chat messages: one per tool result (the `tool` role), else one message. A result's
    /// images join its message as an Agent's tool results' do where the provider shows them;
    /// each wire's request building leaves them out where it does not (its text describes them).
    fn into_messages(self, role: Role, messages: &mut Vec<ChatMessage>) {
        for (id, text, images) in self.results {
            messages.push(ChatMessage::tool_result_with_images(id, text, images));
        }
        if self.parts.is_empty() && self.calls.is_empty() {
            return;
        }
        let content = match self.parts.as_slice() {
            [] => None,
            [ContentPart::Text { text }] => Some(MessageContent::Text(text.clone())),
            _ => Some(MessageContent::Parts(self.parts)),
        };
        messages.push(ChatMessage {
            content,
            tool_calls: (!self.calls.is_empty()).then_some(self.calls),
            ..ChatMessage::text(role, "")
        });
    }
}

fn content_part(block: &Value) -> Result<ContentPart, String> {
    let text_of = |name: &str| block.get(name).and_then(Value::as_str);
    match text_of("type") {
        Some("text") => match text_of("text") {
            Some(text) => Ok(ContentPart::Text {
                text: text.to_owned(),
            }),
            None => Err("a text block without `text`".to_owned()),
        },
        Some("image") => match (text_of("mimeType"), text_of("data")) {
            (Some(mime_type), Some(data)) => Ok(ContentPart::ImageUrl {
                image_url: ImageUrl {
                    url: format!("data:{mime_type};base64,{data}"),
                    detail: None,
                },
            }),
            _ => Err("an image block without `mimeType` and `data`".to_owned()),
        },
        Some(other) => Err(format!("content of type `{other}` is not supported")),
        None => Err("a content block without `type`".to_owned()),
    }
}

/// The `CreateMessageResult` for the model's answer: its text (reasoning left out), the model
/// that wrote it and why it stopped (`endTurn`, `maxTokens`, or the provider's own reason). Calls
/// of `tools` are `tool_use` blocks after the text, with the server's own tool names and their
/// arguments' keys as the tool has them (`argument_keys` undoes a provider's renaming, and the
/// `null`s a strict provider puts in optional properties are left out), and stop the answer with
/// `toolUse` whatever the provider said (Gemini ends a call with `STOP`). Without calls the
/// content is one block, as results were before SEP-1577. An error the provider reported in its
/// answer, or a call whose arguments are not a JSON object, is the request's failure.
pub fn sampling_result(
    events: &[ModelEvent],
    model: &str,
    tools: &ToolTable,
    argument_keys: &ArgumentKeys,
) -> Result<Value, String> {
    let mut text = String::new();
    let mut stop_reason = None;
    // Outside the loop: no round, and the calls keep the ids `finish` gives them.
    let mut assembler = ToolCallAssembler::new(0);
    for event in events {
        match event {
            ModelEvent::TextDelta(piece) => text.push_str(piece),
            ModelEvent::ToolCallDelta(delta) => assembler.push(delta),
            ModelEvent::Finish(reason) => {
                stop_reason = Some(match reason {
                    FinishReason::Stop => "endTurn".to_owned(),
                    FinishReason::Length => "maxTokens".to_owned(),
                    FinishReason::ToolCalls => "toolUse".to_owned(),
                    FinishReason::ContentFilter => "contentFilter".to_owned(),
                    FinishReason::Other(reason) => reason.clone(),
                });
            }
            ModelEvent::Error(error) => return Err(format!("the model failed: {}", error.message)),
            _ => {}
        }
    }
    let mut result = Map::new();
    result.set("role", Value::from("assistant"));
    let calls = assembler.finish();
    let has_text = !text.is_empty();
    let text_block = object([("type", Value::from("text")), ("text", Value::String(text))]);
    if calls.is_empty() {
        result.set("content", text_block);
    } else {
        let mut content = Vec::with_capacity(calls.len() + 1);
        if has_text {
            content.push(text_block);
        }
        for call in calls {
            let arguments = call.arguments.map_err(|problem| {
                format!(
                    "the model's call of `{}` cannot be sent: {problem}",
                    call.name
                )
            })?;
            let mut input = argument_keys.restore(&call.name, arguments);
            let name = match tools.get(&call.name) {
                Some(entry) => {
                    drop_optional_nulls(&entry.input_schema, &mut input);
                    entry.tool.clone()
                }
                None => call.name,
            };
            content.push(object([
                ("type", Value::from("tool_use")),
                ("id", Value::String(call.id)),
                ("name", Value::String(name)),
                ("input", input),
            ]));
        }
        result.set("content", Value::Array(content));
        stop_reason = Some("toolUse".to_owned());
    }
    result.set("model", Value::from(model));
    if let Some(reason) = stop_reason {
        result.set("stopReason", Value::String(reason));
    }
    Ok(Value::Object(result))
}
