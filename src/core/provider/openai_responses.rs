//! OpenAI's Responses API (`POST {base}/responses`): the request body. Its streamed events and
//! whole responses are read by `core::stream::openai_responses`.
//!
//! Nothing is left on the provider's side (`store: false`): every request carries the whole
//! conversation, as for the other wires, so a page keeps its history and no response id is
//! needed. A reasoning model's reasoning comes back encrypted and goes back with the next request
//! as a `reasoning` input item, without its id (with `store: false` an id names an item the
//! server never kept, and is refused).

use serde_json::{Map, Value};

use super::config::ResolvedProvider;
use super::error::ProviderError;
use super::openai::refused_call_ids;
use super::request::{sent_call_id, ResponseMode};
use crate::core::json_text::{object, SetMember};
use crate::core::message::{ChatMessage, ContentPart, MessageContent, Role, ThinkingBlock};

pub(super) fn body(
    provider: &ResolvedProvider,
    messages: &[ChatMessage],
    mode: ResponseMode,
) -> Result<Map<String, Value>, ProviderError> {
    let reasons = provider.spec.returns_encrypted_reasoning(&provider.model);
    let mut body = Map::new();
    body.set("model", Value::from(provider.model.as_str()));
    body.set(
        "input",
        Value::Array(input_items(provider, messages, reasons)?),
    );
    body.set("stream", Value::Bool(mode == ResponseMode::Streaming));
    body.set("store", Value::Bool(false));
    if reasons {
        body.set(
            "include",
            Value::Array(vec![Value::from("reasoning.encrypted_content")]),
        );
    }
    if let Some(temperature) = provider.temperature {
        body.set("temperature", Value::from(temperature));
    }
    if let Some(max_tokens) = provider.max_tokens {
        body.set("max_output_tokens", Value::from(max_tokens));
    }
    Ok(body)
}

/// The conversation as Responses input items: messages for what people and the model wrote,
/// `function_call` and `function_call_output` items for calls and results, and before an
/// assistant turn's text and calls the reasoning items it was given (when `echo_reasoning`).
fn input_items(
    provider: &ResolvedProvider,
    messages: &[ChatMessage],
    echo_reasoning: bool,
) -> Result<Vec<Value>, ProviderError> {
    let replaced_ids = refused_call_ids(provider, messages);
    // Reasoning models take their instructions as the developer's, the others as the system's.
    let instructions_role = if echo_reasoning {
        "developer"
    } else {
        "system"
    };
    let mut items = Vec::with_capacity(messages.len());
    for message in messages {
        match message.role {
            Role::System => items.push(object([
                ("role", Value::from(instructions_role)),
                ("content", Value::String(message.text_content())),
            ])),
            Role::User => items.push(object([
                ("role", Value::from("user")),
                ("content", user_content(provider, message)?),
            ])),
            Role::Assistant => {
                let text = message.text_content();
                let calls = message.tool_calls.as_deref().unwrap_or_default();
                // A reasoning item must be followed by what it led to: none is sent alone.
                if echo_reasoning && (!text.is_empty() || !calls.is_empty()) {
                    push_reasoning_items(&mut items, message);
                }
                if !text.is_empty() {
                    items.push(object([
                        ("role", Value::from("assistant")),
                        ("content", Value::String(text)),
                    ]));
                }
                for call in calls {
                    items.push(object([
                        ("type", Value::from("function_call")),
                        ("call_id", sent_call_id(&replaced_ids, &call.id)),
                        ("name", Value::from(call.function.name.as_str())),
                        ("arguments", Value::from(call.function.arguments.as_str())),
                    ]));
                }
            }
            Role::Tool => {
                let id = message.tool_call_id.as_deref().ok_or_else(|| {
                    provider.invalid_conversation("a tool message has no `tool_call_id`")
                })?;
                items.push(object([
                    ("type", Value::from("function_call_output")),
                    ("call_id", sent_call_id(&replaced_ids, id)),
                    ("output", Value::String(message.text_content())),
                ]));
            }
        }
    }
    Ok(items)
}

/// The message's reasoning items, each with its summary text. Another wire's reasoning
/// (Anthropic's thinking) cannot be given back: OpenAI could not read it.
fn push_reasoning_items(items: &mut Vec<Value>, message: &ChatMessage) {
    for block in message.thinking_blocks.as_deref().unwrap_or_default() {
        let ThinkingBlock::Reasoning {
            summary,
            encrypted_content,
        } = block
        else {
            continue;
        };
        let mut parts = Vec::new();
        if !summary.is_empty() {
            parts.push(object([
                ("type", Value::from("summary_text")),
                ("text", Value::from(summary.as_str())),
            ]));
        }
        items.push(object([
            ("type", Value::from("reasoning")),
            ("summary", Value::Array(parts)),
            ("encrypted_content", Value::from(encrypted_content.as_str())),
        ]));
    }
}

/// Plain text stays a string; parts become `input_text` and `input_image` parts, once the model
/// is known to see images.
fn user_content(
    provider: &ResolvedProvider,
    message: &ChatMessage,
) -> Result<Value, ProviderError> {
    let parts = match &message.content {
        None => return Ok(Value::from("")),
        Some(MessageContent::Text(text)) => return Ok(Value::from(text.as_str())),
        Some(MessageContent::Parts(parts)) => parts,
    };
    let mut wire_parts = Vec::with_capacity(parts.len());
    for part in parts {
        wire_parts.push(match part {
            ContentPart::Text { text } => object([
                ("type", Value::from("input_text")),
                ("text", Value::from(text.as_str())),
            ]),
            ContentPart::ImageUrl { image_url } => {
                provider.check_images_accepted()?;
                object([
                    ("type", Value::from("input_image")),
                    ("image_url", Value::from(image_url.url.as_str())),
                    (
                        "detail",
                        Value::from(image_url.detail.as_deref().unwrap_or("auto")),
                    ),
                ])
            }
        });
    }
    Ok(Value::Array(wire_parts))
}
