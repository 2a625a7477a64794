//! Ollama native `/api/chat`: request bodies and whole-response parsing.
//!
//! Tool-call `arguments` go back as JSON objects (a string is an HTTP 400), images as bare base64
//! strings in `images`, and tool results name their function in `tool_name`.

use serde_json::{Map, Value};

use super::config::ResolvedProvider;
use super::error::ProviderError;
use super::request::{arguments_object, function_name_for_result, parse_data_url, ResponseMode};
use crate::core::json_text::{object, SetMember};
use crate::core::message::{ChatMessage, ContentPart, MessageContent, Role};
use crate::core::model_event::{
    ArgumentsDelta, FinishReason, ModelEvent, ProviderStreamError, ToolCallDelta,
};
use crate::core::stream::usage::ollama_usage;
use crate::core::text::find_str;

pub(super) fn headers(provider: &ResolvedProvider) -> Vec<(String, String)> {
    match &provider.api_key {
        Some(key) => vec![("authorization".to_owned(), format!("Bearer {key}"))],
        None => Vec::new(),
    }
}

pub(super) fn body(
    provider: &ResolvedProvider,
    messages: &[ChatMessage],
    mode: ResponseMode,
) -> Result<Map<String, Value>, ProviderError> {
    let mut body = Map::new();
    body.set("model", Value::from(provider.model.as_str()));
    let mut wire_messages = Vec::with_capacity(messages.len());
    for (position, message) in messages.iter().enumerate() {
        wire_messages.push(wire_message(provider, &messages[..position], message)?);
    }
    body.set("messages", Value::Array(wire_messages));
    body.set("stream", Value::Bool(mode == ResponseMode::Streaming));
    if provider.thinking_budget.is_some() {
        body.set("think", Value::Bool(true));
    }
    let mut options = Map::new();
    if let Some(temperature) = provider.temperature {
        options.set("temperature", Value::from(temperature));
    }
    if let Some(max_tokens) = provider.max_tokens {
        options.set("num_predict", Value::from(max_tokens));
    }
    if !options.is_empty() {
        body.set("options", Value::Object(options));
    }
    Ok(body)
}

/// `earlier`: the messages before `message`, where a tool result's call is looked up.
fn wire_message(
    provider: &ResolvedProvider,
    earlier: &[ChatMessage],
    message: &ChatMessage,
) -> Result<Value, ProviderError> {
    let mut wire = Map::new();
    wire.set("role", Value::from(message.role.name()));
    wire.set("content", Value::String(message.text_content()));
    // A tool message's images (a conversation begun with Anthropic) stay out, as on the other
    // wires that keep tool messages to text: this wire's runs never put them there.
    let parts = match &message.content {
        Some(MessageContent::Parts(parts)) if message.role != Role::Tool => Some(parts),
        _ => None,
    };
    if let Some(parts) = parts {
        let mut images = Vec::new();
        for part in parts {
            if let ContentPart::ImageUrl { image_url } = part {
                provider.check_images_accepted()?;
                let image = parse_data_url(&image_url.url).ok_or_else(|| {
                    provider.images_unsupported(
                        "Ollama takes inline images only: give a base64 data URL",
                    )
                })?;
                images.push(Value::from(image.base64));
            }
        }
        if !images.is_empty() {
            wire.set("images", Value::Array(images));
        }
    }
    match message.role {
        Role::Assistant => {
            let mut calls = Vec::new();
            for call in message.tool_calls.as_deref().unwrap_or_default() {
                let function = object([
                    ("name", Value::from(call.function.name.as_str())),
                    ("arguments", arguments_object(call)),
                ]);
                calls.push(object([("function", function)]));
            }
            if !calls.is_empty() {
                wire.set("tool_calls", Value::Array(calls));
            }
        }
        Role::Tool => {
            if let Some(name) = function_name_for_result(earlier, message) {
                wire.set("tool_name", Value::from(name));
            }
        }
        Role::System | Role::User => {}
    }
    Ok(Value::Object(wire))
}

/// Splits `<think>…</think>` off the front of a whole reply (the opening tag may be missing).
fn split_think_tags(content: &str) -> (Option<&str>, &str) {
    const CLOSE_TAG: &str = "</think>";
    match find_str(content, CLOSE_TAG) {
        Some(close) => {
            let (thinking, answer) = (&content[..close], &content[close + CLOSE_TAG.len()..]);
            let thinking = thinking.trim_start();
            let thinking = thinking.strip_prefix("<think>").unwrap_or(thinking);
            (Some(thinking.trim()), answer.trim_start())
        }
        None => (None, content),
    }
}

/// A whole (`stream: false`) `/api/chat` body as model events.
pub(super) fn response_events(
    body: &Value,
    splits_think_tags: bool,
) -> Result<Vec<ModelEvent>, String> {
    if let Some(error) = body.get("error").and_then(Value::as_str) {
        return Ok(vec![ModelEvent::Error(ProviderStreamError {
            code: None,
            message: error.to_owned(),
        })]);
    }
    let message = body.get("message").ok_or("no `message` in the response")?;
    let mut events = Vec::new();
    if let Some(thinking) = message
        .get("thinking")
        .and_then(Value::as_str)
        .filter(|thinking| !thinking.is_empty())
    {
        events.push(ModelEvent::ReasoningDelta(thinking.to_owned()));
    }
    let content = message
        .get("content")
        .and_then(Value::as_str)
        .unwrap_or_default();
    let (thinking, answer) = if splits_think_tags {
        split_think_tags(content)
    } else {
        (None, content)
    };
    if let Some(thinking) = thinking.filter(|thinking| !thinking.is_empty()) {
        events.push(ModelEvent::ReasoningDelta(thinking.to_owned()));
    }
    if !answer.is_empty() {
        events.push(ModelEvent::TextDelta(answer.to_owned()));
    }
    let calls = message
        .get("tool_calls")
        .and_then(Value::as_array)
        .map(Vec::as_slice)
        .unwrap_or_default();
    for (position, call) in calls.iter().enumerate() {
        let function = call.get("function");
        let index = function
            .and_then(|function| function.get("index"))
            .and_then(Value::as_u64)
            .and_then(|index| u32::try_from(index).ok())
            .or_else(|| u32::try_from(position).ok());
        events.push(ModelEvent::ToolCallDelta(ToolCallDelta {
            index,
            id: call.get("id").and_then(Value::as_str).map(str::to_owned),
            name: function
                .and_then(|function| function.get("name"))
                .and_then(Value::as_str)
                .map(str::to_owned),
            arguments: function
                .and_then(|function| function.get("arguments"))
                .map(|arguments| ArgumentsDelta::Whole(arguments.clone())),
            thought_signature: None,
        }));
    }
    if body.get("done").and_then(Value::as_bool) == Some(true) {
        events.push(ModelEvent::Usage(ollama_usage(body)));
        let reason = match body.get("done_reason").and_then(Value::as_str) {
            Some("length") => FinishReason::Length,
            Some("stop") | Some("") | None => FinishReason::Stop,
            Some(other) => FinishReason::Other(other.to_owned()),
        };
        events.push(ModelEvent::Finish(reason));
    }
    Ok(events)
}
