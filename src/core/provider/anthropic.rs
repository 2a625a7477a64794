//! Anthropic Messages: request bodies and whole-response parsing.
//!
//! The differences from OpenAI that matter: the system prompt is a top-level field, tool results
//! are `tool_result` blocks in a user message (all results of a round in ONE message, since
//! consecutive same-role messages are merged), and thinking blocks go back with their signatures.

use serde_json::{json, Map, Value};

use super::config::ResolvedProvider;
use super::error::ProviderError;
use super::request::{
    arguments_object, named_tool, parse_data_url, push_turn, replaced_call_ids, sanitized_schema,
    sent_call_id, turn_values, user_pieces, ImageBudget, ResponseMode, Turns,
};
use crate::core::json_text::{object, to_json_text, SetMember};
use crate::core::message::{ChatMessage, ContentPart, MessageContent, Role, ThinkingBlock};
use crate::core::model_event::{
    ArgumentsDelta, ModelEvent, ProviderStreamError, ToolCallDelta, Usage,
};
use crate::core::stream::anthropic_finish_reason;
use crate::core::stream::usage::update_anthropic_usage;
use crate::core::text::join;
use crate::core::tools::{
    is_name_character, with_name_characters, ArgumentKeys, SchemaDialect, ToolEntry,
};

pub const ANTHROPIC_VERSION: &str = "2023-06-01";

/// `max_tokens` is mandatory on this API; 4096 is within every current model's output limit.
pub const DEFAULT_MAX_TOKENS: u32 = 4096;

/// Anthropic's smallest accepted thinking budget.
const MIN_THINKING_BUDGET: u32 = 1024;

pub(super) fn headers(provider: &ResolvedProvider) -> Vec<(String, String)> {
    let mut headers = Vec::new();
    if let Some(key) = &provider.api_key {
        headers.push(("x-api-key".to_owned(), key.clone()));
    }
    headers.push(("anthropic-version".to_owned(), ANTHROPIC_VERSION.to_owned()));
    headers.push((
        "anthropic-dangerous-direct-browser-access".to_owned(),
        "true".to_owned(),
    ));
    headers
}

pub(super) fn body(
    provider: &ResolvedProvider,
    messages: &[ChatMessage],
    mode: ResponseMode,
) -> Result<Map<String, Value>, ProviderError> {
    let mut body = Map::new();
    body.set("model", Value::from(provider.model.as_str()));
    let mut turns = wire_messages(provider, messages)?;
    // `extraBody`'s `thinking` (adaptive thinking, which a budget cannot ask for) is the
    // request's thinking in place of the budget's, and is left off in the same case.
    let extra_thinking = provider.extra_body.get(EXTRA_THINKING);
    let thinking_on = match extra_thinking {
        Some(thinking) => thinking.get("type").and_then(Value::as_str) != Some("disabled"),
        None => provider.thinking_budget.is_some(),
    } && !lacks_leading_thinking(&turns);
    let thinking_budget = provider
        .thinking_budget
        .map(|budget| budget.max(MIN_THINKING_BUDGET))
        .filter(|_| thinking_on && extra_thinking.is_none());
    if !thinking_on {
        drop_final_thinking(&mut turns);
    }
    let extra_budget = extra_thinking
        .filter(|_| thinking_on)
        .and_then(|thinking| thinking.get("budget_tokens")?.as_u64())
        .and_then(|budget| u32::try_from(budget).ok());
    let requested_max = provider.max_tokens.unwrap_or(DEFAULT_MAX_TOKENS);
    // The budget counts against max_tokens, which must stay above it.
    let max_tokens = match thinking_budget.or(extra_budget) {
        Some(budget) if requested_max <= budget => budget.saturating_add(DEFAULT_MAX_TOKENS),
        _ => requested_max,
    };
    body.set("max_tokens", Value::from(max_tokens));
    let mut system: Vec<String> = Vec::new();
    for message in messages {
        let text = match message.role {
            Role::System => message.text_content(),
            _ => continue,
        };
        if !text.trim().is_empty() {
            system.push(text);
        }
    }
    if !system.is_empty() {
        body.set("system", Value::String(join(&system, "\n\n")));
    }
    body.set("messages", Value::Array(turns));
    body.set("stream", Value::Bool(mode == ResponseMode::Streaming));
    let thinking = match (extra_thinking, thinking_budget) {
        (Some(thinking), _) => Some(thinking.clone()),
        (None, Some(budget)) => Some(object([
            ("type", Value::from("enabled")),
            ("budget_tokens", Value::from(budget)),
        ])),
        (None, None) => None,
    };
    match thinking.filter(|_| thinking_on) {
        // Thinking is incompatible with a changed temperature.
        Some(thinking) => {
            body.set(EXTRA_THINKING, thinking);
        }
        None => {
            if let Some(temperature) = provider.temperature {
                body.set("temperature", Value::from(temperature));
            }
        }
    }
    Ok(body)
}

/// The body member that [`body`] writes from `extraBody` itself, whole or not at all, rather
/// than have it merged into the budget's (see `request::merge_members`).
pub(super) const EXTRA_THINKING: &str = "thinking";

fn is_thinking(block: &Value) -> bool {
    matches!(
        block.get("type").and_then(Value::as_str),
        Some("thinking" | "redacted_thinking")
    )
}

/// Whether the last assistant turn, when it used tools or ends the conversation, does not start
/// with a thinking block (it came from another provider or a run without thinking). With
/// thinking on, Anthropic refuses that ("a final `assistant` message must start with a thinking
/// block") and says to turn thinking off instead.
fn lacks_leading_thinking(turns: &[Value]) -> bool {
    let Some(position) = turns.iter().rposition(|turn| turn["role"] == "assistant") else {
        return false;
    };
    let blocks = turns[position]["content"]
        .as_array()
        .map(Vec::as_slice)
        .unwrap_or_default();
    let uses_tools = blocks.iter().any(|block| block["type"] == "tool_use");
    let is_last = position + 1 == turns.len();
    (uses_tools || is_last) && !blocks.first().is_some_and(is_thinking)
}

/// With thinking off, Anthropic refuses thinking blocks in an assistant turn in the final
/// position: they are left out, and the turn with them if nothing else is in it.
fn drop_final_thinking(turns: &mut Vec<Value>) {
    let Some(last) = turns.last_mut().filter(|turn| turn["role"] == "assistant") else {
        return;
    };
    if let Some(blocks) = last.get_mut("content").and_then(Value::as_array_mut) {
        blocks.retain(|block| !is_thinking(block));
        if blocks.is_empty() {
            turns.pop();
        }
    }
}

/// Messages with consecutive same-role turns merged (Anthropic requires alternation).
fn wire_messages(
    provider: &ResolvedProvider,
    messages: &[ChatMessage],
) -> Result<Vec<Value>, ProviderError> {
    let replaced_ids = replaced_call_ids(messages, is_tool_use_id, tool_use_id);
    let mut turns = Turns::new();
    let mut tool_images_to_leave_out = TOOL_IMAGE_BUDGET.tool_images_left_out(messages);
    for message in messages {
        let (role, blocks) = match message.role {
            Role::System => continue,
            Role::User => {
                let pieces = user_pieces(provider, message, text_block, |url| {
                    image_block(url).ok_or_else(|| {
                        provider.images_unsupported("images must be base64 data URLs or https URLs")
                    })
                })?;
                ("user", pieces)
            }
            Role::Assistant => ("assistant", assistant_blocks(message, &replaced_ids)),
            Role::Tool => {
                let id = message.tool_call_id.as_deref().ok_or_else(|| {
                    provider.invalid_conversation("a tool message has no `tool_call_id`")
                })?;
                let block = object([
                    ("type", Value::from("tool_result")),
                    ("tool_use_id", sent_call_id(&replaced_ids, id)),
                    (
                        "content",
                        tool_result_content(message, &mut tool_images_to_leave_out),
                    ),
                ]);
                ("user", vec![block])
            }
        };
        // tool_result blocks must lead a user turn; a user text after them follows.
        push_turn(&mut turns, role, blocks);
    }
    // A conversation ending with the assistant's text (an aborted run's, sent back as it is) asks
    // the model to go on from it, and the API refuses such a prefill ending with whitespace.
    if let Some(("assistant", blocks)) = turns.last_mut() {
        if let Some(Value::String(text)) = blocks.last_mut().and_then(|block| block.get_mut("text"))
        {
            text.truncate(text.trim_end().len());
        }
    }
    Ok(turn_values(turns, "content"))
}

fn image_block(url: &str) -> Option<Value> {
    let source = match parse_data_url(url) {
        Some(image) => object([
            ("type", Value::from("base64")),
            ("media_type", Value::from(image.media_type)),
            ("data", Value::from(image.base64)),
        ]),
        None if url.starts_with("https://") => {
            object([("type", Value::from("url")), ("url", Value::from(url))])
        }
        None => return None,
    };
    Some(object([("type", Value::from("image")), ("source", source)]))
}

/// Anthropic takes up to 100 images in a request, but holds each to 2000 × 2000 px once there are
/// more than 20, which screenshots pass; and it refuses a request over 32 MB (413
/// `request_too_large`), which a conversation of large screenshots passes on every later call:
/// the rest of the 32 MB is left to the text.
const TOOL_IMAGE_BUDGET: ImageBudget = ImageBudget {
    count: 20,
    bytes: 24 * 1024 * 1024,
    sendable: |_| true,
};

/// A `tool_result`'s content: the text, or the text and then the result's images, the first
/// `*left_out` of them skipped (and counted off).
fn tool_result_content(message: &ChatMessage, left_out: &mut usize) -> Value {
    let Some(MessageContent::Parts(parts)) = &message.content else {
        return Value::String(message.text_content());
    };
    let mut blocks = Vec::new();
    for part in parts {
        match part {
            ContentPart::Text { text } => {
                if let Some(block) = text_block(text) {
                    blocks.push(block);
                }
            }
            ContentPart::ImageUrl { .. } if *left_out > 0 => *left_out -= 1,
            ContentPart::ImageUrl { image_url } => {
                if let Some(block) = image_block(&image_url.url) {
                    blocks.push(block);
                }
            }
        }
    }
    if blocks.is_empty() {
        return Value::String(message.text_content());
    }
    Value::Array(blocks)
}

/// Text blocks that are empty or only whitespace (Claude may write "\n\n" before a tool call) are
/// rejected by the API ("text content blocks must contain non-whitespace text"): left out.
fn text_block(text: &str) -> Option<Value> {
    (!text.trim().is_empty())
        .then(|| object([("type", Value::from("text")), ("text", Value::from(text))]))
}

/// Anthropic's pattern for `tool_use` ids, `^[a-zA-Z0-9_-]+$`: a request with another id is a 400.
fn is_tool_use_id(id: &str) -> bool {
    !id.is_empty() && id.chars().all(is_name_character)
}

/// `id` with every character outside the pattern made `_` (`call` when empty), and `_<attempt>`
/// after the first attempt.
fn tool_use_id(id: &str, attempt: u8) -> String {
    let mut derived = with_name_characters(id);
    if derived.is_empty() {
        derived.push_str("call");
    }
    if attempt > 0 {
        derived.push_str(&format!("_{attempt}"));
    }
    derived
}

fn assistant_blocks(message: &ChatMessage, replaced_ids: &Map<String, Value>) -> Vec<Value> {
    let mut blocks = Vec::new();
    for block in message.thinking_blocks.as_deref().unwrap_or_default() {
        blocks.push(match block {
            // Other wires' reasoning, which Anthropic could not read.
            ThinkingBlock::Reasoning { .. }
            | ThinkingBlock::ThoughtSignature { .. }
            | ThinkingBlock::ReasoningDetails { .. } => continue,
            ThinkingBlock::Thinking {
                thinking,
                signature,
            } => object([
                ("type", Value::from("thinking")),
                ("thinking", Value::from(thinking.as_str())),
                ("signature", Value::from(signature.as_str())),
            ]),
            ThinkingBlock::RedactedThinking { data } => object([
                ("type", Value::from("redacted_thinking")),
                ("data", Value::from(data.as_str())),
            ]),
        });
    }
    if let Some(block) = text_block(&message.text_content()) {
        blocks.push(block);
    }
    for call in message.tool_calls.as_deref().unwrap_or_default() {
        blocks.push(object([
            ("type", Value::from("tool_use")),
            ("id", sent_call_id(replaced_ids, &call.id)),
            ("name", Value::from(call.function.name.as_str())),
            ("input", arguments_object(call)),
        ]));
    }
    blocks
}

/// A whole (non-streaming) Messages body as model events.
pub(super) fn response_events(body: &Value) -> Result<Vec<ModelEvent>, String> {
    if body.get("type").and_then(Value::as_str) == Some("error") {
        let error = body.get("error");
        return Ok(vec![ModelEvent::Error(ProviderStreamError {
            code: error
                .and_then(|error| error.get("type"))
                .and_then(Value::as_str)
                .map(str::to_owned),
            message: super::retry::error_message(body).unwrap_or_else(|| to_json_text(body)),
        })]);
    }
    let blocks = body
        .get("content")
        .and_then(Value::as_array)
        .ok_or("no `content` array in the response")?;
    let mut events = Vec::new();
    let mut call_index = 0u32;
    for block in blocks {
        match block.get("type").and_then(Value::as_str) {
            Some("text") => {
                if let Some(text) = block.get("text").and_then(Value::as_str) {
                    events.push(ModelEvent::TextDelta(text.to_owned()));
                }
            }
            Some("thinking") => {
                if let Some(thinking) = block.get("thinking").and_then(Value::as_str) {
                    events.push(ModelEvent::ReasoningDelta(thinking.to_owned()));
                }
                if let Some(signature) = block.get("signature").and_then(Value::as_str) {
                    events.push(ModelEvent::ReasoningSignature(signature.to_owned()));
                }
            }
            Some("redacted_thinking") => {
                if let Some(data) = block.get("data").and_then(Value::as_str) {
                    events.push(ModelEvent::RedactedReasoning(data.to_owned()));
                }
            }
            Some("tool_use") => {
                events.push(ModelEvent::ToolCallDelta(ToolCallDelta {
                    index: Some(call_index),
                    id: block.get("id").and_then(Value::as_str).map(str::to_owned),
                    name: block.get("name").and_then(Value::as_str).map(str::to_owned),
                    arguments: Some(ArgumentsDelta::Whole(
                        block.get("input").cloned().unwrap_or_else(|| json!({})),
                    )),
                    thought_signature: None,
                }));
                call_index += 1;
            }
            _ => {}
        }
    }
    if let Some(reason) = body.get("stop_reason").and_then(Value::as_str) {
        events.push(ModelEvent::Finish(anthropic_finish_reason(reason)));
    }
    if let Some(usage) = body.get("usage") {
        let mut counts = Usage::default();
        update_anthropic_usage(&mut counts, usage);
        events.push(ModelEvent::Usage(counts));
    }
    Ok(events)
}

/// The `tools` value: each tool's schema in the Anthropic dialect as `input_schema`, the
/// property keys it renamed noted in `argument_keys`.
pub(super) fn tools(
    tools: &[ToolEntry],
    warnings: &mut Vec<String>,
    argument_keys: &mut ArgumentKeys,
) -> Value {
    let mut wire_tools = Vec::with_capacity(tools.len());
    for entry in tools {
        let sanitized = sanitized_schema(entry, SchemaDialect::Anthropic, warnings);
        argument_keys.insert(&entry.function_name, sanitized.renamed_properties);
        let mut tool = named_tool(entry);
        tool.set("input_schema", sanitized.schema);
        wire_tools.push(Value::Object(tool));
    }
    Value::Array(wire_tools)
}
