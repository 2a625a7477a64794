//! OpenAI Chat Completions and every compatible API (and Azure's URL scheme): request bodies and
//! whole-response parsing. watsonx chat reuses the message and tool shapes.

use serde_json::{Map, Value};

use super::config::ResolvedProvider;
use super::error::ProviderError;
use super::gemini::sent_thought_signature;
use super::request::{named_tool, replaced_call_ids, sent_call_id, ResponseMode};
use super::table::{Endpoint, MaxTokensField, Reasoning, ToolCallIds, CHAT_COMPLETIONS_PATH};
use crate::core::json_text::{object, to_json_text, SetMember};
use crate::core::message::{ChatMessage, ContentPart, MessageContent, Role, ThinkingBlock};
use crate::core::model_event::{
    ArgumentsDelta, FinishReason, ModelEvent, ProviderStreamError, ToolCallDelta,
};
use crate::core::stream::openai_chat::{join_reasoning_details, thought_signature_of};
use crate::core::stream::usage::openai_usage;
use crate::core::tools::{sanitize_schema, SchemaDialect, ToolEntry};

/// Azure's `api-version` when the caller gives none: the latest GA data-plane inference version.
pub const AZURE_DEFAULT_API_VERSION: &str = "2024-10-21";

pub(super) fn url(provider: &ResolvedProvider) -> String {
    match provider.spec.endpoint {
        Endpoint::AzureDeployment => format!(
            "{}/openai/deployments/{}{CHAT_COMPLETIONS_PATH}?api-version={}",
            provider.base_url,
            super::request::form_encode(&provider.model),
            provider
                .api_version
                .as_deref()
                .unwrap_or(AZURE_DEFAULT_API_VERSION)
        ),
        _ => format!("{}{CHAT_COMPLETIONS_PATH}", provider.base_url),
    }
}

pub(super) fn auth_headers(provider: &ResolvedProvider) -> Vec<(String, String)> {
    match (&provider.api_key, provider.spec.endpoint) {
        (Some(key), Endpoint::AzureDeployment) => vec![("api-key".to_owned(), key.clone())],
        (Some(key), _) => vec![("authorization".to_owned(), format!("Bearer {key}"))],
        (None, _) => Vec::new(),
    }
}

pub(super) fn body(
    provider: &ResolvedProvider,
    messages: &[ChatMessage],
    mode: ResponseMode,
) -> Result<Map<String, Value>, ProviderError> {
    let mut body = Map::new();
    body.set("model", Value::from(provider.model.as_str()));
    body.set("messages", Value::Array(wire_messages(provider, messages)?));
    let streaming = mode == ResponseMode::Streaming;
    body.set("stream", Value::Bool(streaming));
    if streaming && provider.spec.stream_usage_option {
        body.set(
            "stream_options",
            object([("include_usage", Value::Bool(true))]),
        );
    }
    if let Some(temperature) = provider.temperature {
        body.set("temperature", Value::from(temperature));
    }
    if let Some(max_tokens) = provider.max_tokens {
        let field = match provider.spec.max_tokens_field {
            MaxTokensField::MaxTokens => "max_tokens",
            MaxTokensField::MaxCompletionTokens => "max_completion_tokens",
        };
        body.set(field, Value::from(max_tokens));
    }
    Ok(body)
}

/// How a wire writes a function in its tool list.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum FunctionToolShape {
    /// `{type: "function", function: {name, description, parameters, strict?}}` (Chat
    /// Completions and the wires copying its tools).
    Nested,
    /// `{type: "function", name, description, parameters, strict}` (Responses, where `strict`
    /// is true unless it says false).
    Flat,
}

/// Tools in `shape`, strict where the provider supports it and the sanitizer says the schema can
/// be strict. A tool that cannot be strict is sent in the plain dialect (keeping its original
/// meaning), and the warnings say why.
pub(super) fn function_tools(
    provider: &ResolvedProvider,
    tools: &[ToolEntry],
    shape: FunctionToolShape,
    warnings: &mut Vec<String>,
) -> Vec<Value> {
    // A plain loop: the map and flat_map adapters took their own code in the wasm.
    let mut wire_tools = Vec::with_capacity(tools.len());
    for entry in tools {
        let mut note = |warning: &String| {
            warnings.push(format!("{}: {warning}", entry.function_name));
        };
        let strict = provider
            .spec
            .strict_tools
            .then(|| sanitize_schema(&entry.input_schema, SchemaDialect::OpenAiStrict));
        let (parameters, strict) = match strict {
            Some(sanitized) if sanitized.strict => {
                for warning in &sanitized.warnings {
                    note(warning);
                }
                (sanitized.schema, true)
            }
            attempt => {
                if let Some(attempt) = &attempt {
                    for warning in &attempt.warnings {
                        note(&format!("not strict: {warning}"));
                    }
                }
                let sanitized = sanitize_schema(&entry.input_schema, SchemaDialect::OpenAi);
                for warning in &sanitized.warnings {
                    note(warning);
                }
                (sanitized.schema, false)
            }
        };
        let mut function = named_tool(entry);
        let description = function.get_mut("description");
        if let (Some(Value::String(description)), Some(limit)) =
            (description, provider.spec.max_description_chars)
        {
            if let Some((cut_at, _)) = description.char_indices().nth(limit) {
                description.truncate(cut_at);
                note(&format!(
                    "the description is cut to the {limit} characters {} takes",
                    provider.spec.display_name
                ));
            }
        }
        function.set("parameters", parameters);
        wire_tools.push(match shape {
            FunctionToolShape::Nested => {
                if strict {
                    function.set("strict", Value::Bool(true));
                }
                object([
                    ("type", Value::from("function")),
                    ("function", Value::Object(function)),
                ])
            }
            FunctionToolShape::Flat => {
                let mut tool = Map::new();
                tool.set("type", Value::from("function"));
                tool.extend(function);
                tool.set("strict", Value::Bool(strict));
                Value::Object(tool)
            }
        });
    }
    wire_tools
}

/// The conversation in OpenAI message shape, without the fields only other wires use.
pub(super) fn wire_messages(
    provider: &ResolvedProvider,
    messages: &[ChatMessage],
) -> Result<Vec<Value>, ProviderError> {
    let echo_reasoning = provider.spec.reasoning == Reasoning::EchoReasoningContent;
    // Only OpenRouter's row: a conversation moved on to OpenAI or a server copying it would be
    // refused for a message member it does not know (see `Reasoning::ReasoningDetails`).
    let echo_details = matches!(provider.spec.reasoning, Reasoning::ReasoningDetails);
    // Parsing the base URL costs a request more than a short conversation: only done when a
    // call may carry a signature.
    let echo_signatures = messages.iter().any(|message| {
        message
            .tool_calls
            .as_ref()
            .is_some_and(|calls| !calls.is_empty())
    }) && provider.is_google_endpoint();
    let replaced_ids = refused_call_ids(provider, messages);
    let wire_id = |id: &str| sent_call_id(&replaced_ids, id);
    // A plain loop: a `Result` collect wrapped this body in a larger iterator adapter.
    let mut wire_messages = Vec::with_capacity(messages.len());
    for message in messages {
        let mut wire = Map::new();
        match message.role {
            Role::System | Role::User => {
                wire.set("role", Value::from(message.role.name()));
                wire.set("content", user_content(provider, message)?);
            }
            Role::Assistant => {
                wire.set("role", Value::from("assistant"));
                let text = message.text_content();
                let calls = message.tool_calls.as_deref().unwrap_or_default();
                // Some backends reject `content: ""` next to tool calls.
                if !text.is_empty() || calls.is_empty() {
                    wire.set("content", Value::String(text));
                }
                if !calls.is_empty() {
                    let mut wire_calls = Vec::with_capacity(calls.len());
                    for (position, call) in calls.iter().enumerate() {
                        let function = object([
                            ("name", Value::from(call.function.name.as_str())),
                            ("arguments", Value::from(call.function.arguments.as_str())),
                        ]);
                        let mut wire = Map::new();
                        wire.set("id", wire_id(&call.id));
                        wire.set("type", Value::from("function"));
                        wire.set("function", function);
                        // Gemini's OpenAI-compatible endpoint sends a signature with
                        // each call and refuses the next request without it; a first
                        // call it did not make gets Google's stand-in.
                        let signature = sent_thought_signature(call, position);
                        if let Some(signature) = signature.filter(|_| echo_signatures) {
                            wire.set(
                                "extra_content",
                                object([(
                                    "google",
                                    object([("thought_signature", Value::from(signature))]),
                                )]),
                            );
                        }
                        wire_calls.push(Value::Object(wire));
                    }
                    wire.set("tool_calls", Value::Array(wire_calls));
                }
                if let Some(reasoning) = message
                    .reasoning_content
                    .as_ref()
                    .filter(|_| echo_reasoning)
                {
                    wire.set("reasoning_content", Value::from(reasoning.as_str()));
                }
                for block in message.thinking_blocks.as_deref().unwrap_or_default() {
                    match block {
                        ThinkingBlock::ReasoningDetails { details } if echo_details => {
                            wire.set("reasoning_details", Value::Array(details.clone()));
                        }
                        _ => {}
                    }
                }
            }
            Role::Tool => {
                let id = message.tool_call_id.as_deref().ok_or_else(|| {
                    provider.invalid_conversation("a tool message has no `tool_call_id`")
                })?;
                wire.set("role", Value::from("tool"));
                wire.set("tool_call_id", wire_id(id));
                wire.set("content", Value::String(message.text_content()));
            }
        }
        wire_messages.push(Value::Object(wire));
    }
    Ok(wire_messages)
}

/// The conversation's tool call ids this provider's row says it refuses, each with the id sent
/// in its place (see [`replaced_call_ids`]).
pub(super) fn refused_call_ids(
    provider: &ResolvedProvider,
    messages: &[ChatMessage],
) -> Map<String, Value> {
    match provider.spec.tool_call_ids {
        ToolCallIds::Any => Map::new(),
        ToolCallIds::NineAlphanumeric => {
            replaced_call_ids(messages, is_nine_alphanumeric, nine_alphanumeric)
        }
        ToolCallIds::AtMost40 => replaced_call_ids(messages, is_at_most_40, shortened_to_40),
    }
}

const MAX_CALL_ID_LENGTH: usize = 40;

fn is_at_most_40(id: &str) -> bool {
    id.len() <= MAX_CALL_ID_LENGTH
}

/// The start of `id`, then `_` and 9 letters and digits derived from the whole of it: 40 bytes.
fn shortened_to_40(id: &str, attempt: u8) -> String {
    let suffix = nine_alphanumeric(id, attempt);
    let mut keep = MAX_CALL_ID_LENGTH - 1 - suffix.len();
    while !id.is_char_boundary(keep) {
        keep -= 1;
    }
    format!("{}_{suffix}", &id[..keep])
}

fn is_nine_alphanumeric(id: &str) -> bool {
    id.len() == 9 && id.bytes().all(|byte| byte.is_ascii_alphanumeric())
}

/// 9 letters and digits derived from `id` and `attempt` (FNV-1a): the same conversation gets the
/// same ids on every request.
fn nine_alphanumeric(id: &str, attempt: u8) -> String {
    const DIGITS: &[u8; 62] = b"0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for byte in id.bytes().chain([attempt]) {
        hash ^= u64::from(byte);
        hash = hash.wrapping_mul(0x0000_0100_0000_01b3);
    }
    (0..9)
        .map(|_| {
            let digit = DIGITS[(hash % 62) as usize];
            hash /= 62;
            char::from(digit)
        })
        .collect()
}

/// Plain text stays a string; content parts pass through, once the model is known to see images.
fn user_content(
    provider: &ResolvedProvider,
    message: &ChatMessage,
) -> Result<Value, ProviderError> {
    match &message.content {
        None => Ok(Value::from("")),
        Some(MessageContent::Text(text)) => Ok(Value::from(text.as_str())),
        Some(MessageContent::Parts(parts)) => {
            if parts
                .iter()
                .any(|part| matches!(part, ContentPart::ImageUrl { .. }))
            {
                provider.check_images_accepted()?;
            }
            let mut wire_parts = Vec::with_capacity(parts.len());
            for part in parts {
                wire_parts.push(part_value(part));
            }
            Ok(Value::Array(wire_parts))
        }
    }
}

/// A content part as its `Serialize` writes it, built directly: a serde serializer into `Value`
/// for this one use would add its own copy of every part type's writer to the wasm.
fn part_value(part: &ContentPart) -> Value {
    let mut object = Map::new();
    match part {
        ContentPart::Text { text } => {
            object.set("type", Value::from("text"));
            object.set("text", Value::from(text.as_str()));
        }
        ContentPart::ImageUrl { image_url } => {
            let mut url = Map::new();
            url.set("url", Value::from(image_url.url.as_str()));
            if let Some(detail) = &image_url.detail {
                url.set("detail", Value::from(detail.as_str()));
            }
            object.set("type", Value::from("image_url"));
            object.set("image_url", Value::Object(url));
        }
    }
    Value::Object(object)
}

pub(super) fn finish_reason(reason: &str) -> FinishReason {
    match reason {
        "stop" => FinishReason::Stop,
        "tool_calls" | "function_call" => FinishReason::ToolCalls,
        "length" => FinishReason::Length,
        "content_filter" => FinishReason::ContentFilter,
        other => FinishReason::Other(other.to_owned()),
    }
}

fn message_text(content: &Value) -> String {
    match content {
        Value::String(text) => text.clone(),
        Value::Array(parts) => {
            let mut text = String::new();
            for part in parts {
                if let Some(part_text) = part.get("text").and_then(Value::as_str) {
                    text.push_str(part_text);
                }
            }
            text
        }
        _ => String::new(),
    }
}

/// A whole (non-streaming) Chat Completions body as model events.
pub(super) fn response_events(body: &Value) -> Result<Vec<ModelEvent>, String> {
    let mut events = Vec::new();
    if let Some(error) = body.get("error").filter(|error| !error.is_null()) {
        events.push(ModelEvent::Error(ProviderStreamError {
            code: error
                .get("code")
                .or_else(|| error.get("type"))
                .filter(|code| !code.is_null())
                .map(|code| {
                    code.as_str()
                        .map_or_else(|| to_json_text(code), str::to_owned)
                }),
            message: super::retry::error_message(body).unwrap_or_else(|| to_json_text(error)),
        }));
        return Ok(events);
    }
    let choice = body
        .get("choices")
        .and_then(Value::as_array)
        .and_then(|choices| choices.first())
        .ok_or("no `choices[0]` in the response")?;
    let message = choice
        .get("message")
        .ok_or("no `message` in `choices[0]`")?;
    let reasoning = ["reasoning_content", "reasoning"]
        .iter()
        .find_map(|field| message.get(*field).and_then(Value::as_str))
        .filter(|reasoning| !reasoning.is_empty());
    if let Some(reasoning) = reasoning {
        events.push(ModelEvent::ReasoningDelta(reasoning.to_owned()));
    }
    if let Some(Value::Array(pieces)) = message.get("reasoning_details") {
        let mut details = Vec::new();
        join_reasoning_details(&mut details, pieces);
        if !details.is_empty() {
            events.push(ModelEvent::ReasoningDetails(details));
        }
    }
    let text = message.get("content").map(message_text).unwrap_or_default();
    if !text.is_empty() {
        events.push(ModelEvent::TextDelta(text));
    }
    let calls = message
        .get("tool_calls")
        .and_then(Value::as_array)
        .map(Vec::as_slice)
        .unwrap_or_default();
    for (index, call) in calls.iter().enumerate() {
        let function = call.get("function");
        let arguments = function.and_then(|function| function.get("arguments"));
        events.push(ModelEvent::ToolCallDelta(ToolCallDelta {
            index: u32::try_from(index).ok(),
            id: call.get("id").and_then(Value::as_str).map(str::to_owned),
            name: function
                .and_then(|function| function.get("name"))
                .and_then(Value::as_str)
                .map(str::to_owned),
            arguments: arguments.map(|arguments| match arguments {
                Value::String(text) => ArgumentsDelta::Fragment(text.clone()),
                other => ArgumentsDelta::Whole(other.clone()),
            }),
            thought_signature: thought_signature_of(call),
        }));
    }
    if let Some(reason) = choice.get("finish_reason").and_then(Value::as_str) {
        events.push(ModelEvent::Finish(finish_reason(reason)));
    }
    if let Some(usage) = body.get("usage").filter(|usage| usage.is_object()) {
        events.push(ModelEvent::Usage(openai_usage(usage)));
    }
    Ok(events)
}
