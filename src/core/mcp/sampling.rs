//! Sampling (MCP 2025-06-18 and 2025-11-25, "Client Features: Sampling"): a server asks the
//! client's model for a completion, so that a tool can use a model without keys of its own. An
//! Agent answers with its own provider and model once the page agreed; this module reads the
//! server's `sampling/createMessage` into a conversation and the model's answer into the
//! `CreateMessageResult` the server gets.

use serde_json::{Map, Value};

use crate::core::json_text::{object, SetMember};
use crate::core::message::{ChatMessage, ContentPart, ImageUrl, MessageContent, Role};
use crate::core::model_event::{FinishReason, ModelEvent};

/// The error code of a sampling request the user refused (the spec's example: -1, "User
/// rejected sampling request").
pub const USER_REJECTED: i64 = -1;

/// A `sampling/createMessage` as the provider call needs it.
#[derive(Debug, Clone, PartialEq)]
pub struct SamplingRequest {
    /// The server's `systemPrompt` first, then its messages.
    pub messages: Vec<ChatMessage>,
    pub max_tokens: u32,
    pub temperature: Option<f64>,
}

/// Reads the server's params. Text and image content is taken (each message's one block, or its
/// list of blocks); audio, tool use and tool results, which this client does not declare
/// (`sampling.tools`), are refused with the reason, as is a request without messages or
/// `maxTokens`.
pub fn sampling_request(params: &Value) -> Result<SamplingRequest, String> {
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
    let mut messages = Vec::new();
    if let Some(system) = params.get("systemPrompt").and_then(Value::as_str) {
        messages.push(ChatMessage::text(Role::System, system));
    }
    for (index, message) in listed.iter().enumerate() {
        let role = match message.get("role").and_then(Value::as_str) {
            Some("user") => Role::User,
            Some("assistant") => Role::Assistant,
            _ => {
                return Err(format!(
                    "messages[{index}]: `role` must be \"user\" or \"assistant\""
                ))
            }
        };
        let blocks = match message.get("content") {
            Some(Value::Array(blocks)) => blocks.as_slice(),
            Some(block @ Value::Object(_)) => std::slice::from_ref(block),
            _ => {
                return Err(format!(
                    "messages[{index}]: `content` must be a block or a list of blocks"
                ))
            }
        };
        let mut parts = Vec::new();
        for block in blocks {
            parts.push(
                content_part(block).map_err(|problem| format!("messages[{index}]: {problem}"))?,
            );
        }
        let content = match parts.as_slice() {
            [ContentPart::Text { text }] => MessageContent::Text(text.clone()),
            _ => MessageContent::Parts(parts),
        };
        messages.push(ChatMessage {
            content: Some(content),
            ..ChatMessage::text(role, "")
        });
    }
    Ok(SamplingRequest {
        messages,
        max_tokens,
        temperature: params.get("temperature").and_then(Value::as_f64),
    })
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
/// that wrote it and why it stopped (`endTurn`, `maxTokens`, or the provider's own reason). An
/// error the provider reported in its answer is the request's failure.
pub fn sampling_result(events: &[ModelEvent], model: &str) -> Result<Value, String> {
    let mut text = String::new();
    let mut stop_reason = None;
    for event in events {
        match event {
            ModelEvent::TextDelta(piece) => text.push_str(piece),
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
    let content = object([("type", Value::from("text")), ("text", Value::String(text))]);
    result.set("content", content);
    result.set("model", Value::from(model));
    if let Some(reason) = stop_reason {
        result.set("stopReason", Value::String(reason));
    }
    Ok(Value::Object(result))
}
