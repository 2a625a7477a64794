//! The conversation, as OpenAI-style chat messages (the shape JS callers pass in and get back).
//!
//! Besides the OpenAI fields, an assistant message may carry what a provider needs echoed on the
//! next turn: DeepSeek's `reasoning_content`, Anthropic thinking blocks with their signatures, and
//! Gemini thought signatures on tool calls.

use serde::de::Error;
use serde::{Deserialize, Deserializer, Serialize};
use serde_json::{Map, Value};

use crate::core::json_read::{
    deserialize_named, invalid_type, list, named, object, optional, string,
};

/// Who wrote a message.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    System,
    User,
    Assistant,
    Tool,
}

const ROLE_NAMES: &[&str] = &["system", "user", "assistant", "tool"];
const ROLES: [Role; 4] = [Role::System, Role::User, Role::Assistant, Role::Tool];

impl Role {
    /// The name the wire formats write (`Serialize` writes the same).
    pub fn name(self) -> &'static str {
        ROLE_NAMES[self as usize]
    }
}

impl<'de> Deserialize<'de> for Role {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserialize_named(deserializer, ROLE_NAMES, &ROLES)
    }
}

/// One chat message. Unknown fields are dropped on input.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ChatMessage {
    pub role: Role,
    /// A string, or an array of OpenAI content parts (`text`, `image_url`); `None` for an
    /// assistant message that only calls tools.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub content: Option<MessageContent>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_calls: Option<Vec<MessageToolCall>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_call_id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// DeepSeek-style reasoning text, echoed back to providers that require it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reasoning_content: Option<String>,
    /// Anthropic thinking blocks (with signatures) and Responses API reasoning items (encrypted)
    /// that must be echoed in the next request.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub thinking_blocks: Option<Vec<ThinkingBlock>>,
}

impl ChatMessage {
    /// A message with only a role and plain text.
    pub fn text(role: Role, text: impl Into<String>) -> Self {
        ChatMessage {
            role,
            content: Some(MessageContent::Text(text.into())),
            tool_calls: None,
            tool_call_id: None,
            name: None,
            reasoning_content: None,
            thinking_blocks: None,
        }
    }

    /// The `role: "tool"` message answering the call `tool_call_id`.
    pub fn tool_result(tool_call_id: impl Into<String>, text: impl Into<String>) -> Self {
        ChatMessage {
            tool_call_id: Some(tool_call_id.into()),
            ..ChatMessage::text(Role::Tool, text)
        }
    }

    /// A tool message with the images the result holds after its text, for a provider that
    /// shows a model the images of tool results.
    pub fn tool_result_with_images(
        tool_call_id: impl Into<String>,
        text: impl Into<String>,
        images: Vec<ContentPart>,
    ) -> Self {
        if images.is_empty() {
            return ChatMessage::tool_result(tool_call_id, text);
        }
        let mut parts = vec![ContentPart::Text { text: text.into() }];
        parts.extend(images);
        ChatMessage {
            content: Some(MessageContent::Parts(parts)),
            ..ChatMessage::tool_result(tool_call_id, String::new())
        }
    }

    /// The text of the message: the string, or its text parts joined.
    pub fn text_content(&self) -> String {
        match &self.content {
            None => String::new(),
            Some(MessageContent::Text(text)) => text.clone(),
            Some(MessageContent::Parts(parts)) => {
                let mut joined = String::new();
                for part in parts {
                    if let ContentPart::Text { text } = part {
                        joined.push_str(text);
                    }
                }
                joined
            }
        }
    }
}

/// Message content: a plain string or OpenAI content parts.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(untagged)]
pub enum MessageContent {
    Text(String),
    Parts(Vec<ContentPart>),
}

/// An OpenAI content part.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ContentPart {
    Text { text: String },
    ImageUrl { image_url: ImageUrl },
}

/// An image by `data:` URL or `https:` URL.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ImageUrl {
    pub url: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub detail: Option<String>,
}

/// A tool call inside an assistant message.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct MessageToolCall {
    pub id: String,
    #[serde(rename = "type")]
    pub call_type: String,
    pub function: FunctionCall,
    /// Gemini's thought signature for this call, echoed on the next turn.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub thought_signature: Option<String>,
}

/// The function name and its arguments as a JSON text, as OpenAI sends them.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct FunctionCall {
    pub name: String,
    pub arguments: String,
}

/// Reasoning a provider wants back on the next turn, tagged with its wire's kind so that each
/// wire echoes only its own (a signature or encrypted content is refused by any other): an
/// Anthropic thinking block with its signature or redacted data, a Responses API reasoning item
/// (its summary text and encrypted content), a Gemini thought signature, or OpenRouter's
/// `reasoning_details`.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ThinkingBlock {
    Thinking {
        thinking: String,
        signature: String,
    },
    RedactedThinking {
        data: String,
    },
    Reasoning {
        summary: String,
        encrypted_content: String,
    },
    /// Gemini's signature of a part that was not a call, echoed on the turn's text.
    ThoughtSignature {
        signature: String,
    },
    /// OpenRouter's `reasoning_details` of one answer, each as it came (its pieces joined), from
    /// which OpenRouter rebuilds the model's own blocks: Claude's signed thinking, Gemini's
    /// thought signatures (an encrypted detail whose `id` is its call's).
    ReasoningDetails {
        /// Objects, checked when read.
        details: Vec<Value>,
    },
}

// Messages are read by hand through `Value`, whose reader is in the wasm anyway: serde's derived
// readers cost several KB of wasm per type (the tagged and untagged ones also buffer their input
// in serde's private `Content` type). The errors read as the derived ones do, field by field in
// the order the fields come (tests/message_readers.rs compares them with derived twins); a
// message written as an array of its fields, which a derived reader would take by position, is
// refused.

impl<'de> Deserialize<'de> for ChatMessage {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        chat_message(Value::deserialize(deserializer)?)
    }
}

/// A list of chat messages, read from parsed JSON as `Vec<ChatMessage>`'s `Deserialize` reads it
/// (same values, same error texts), without serde's sequence reader in the shipped wasm.
pub fn chat_messages<E: Error>(value: Value) -> Result<Vec<ChatMessage>, E> {
    list(value, chat_message)
}

fn chat_message<E: Error>(value: Value) -> Result<ChatMessage, E> {
    let fields = object(value, "struct ChatMessage")?;
    let mut role = None;
    let (mut content, mut tool_calls, mut tool_call_id) = (None, None, None);
    let (mut name, mut reasoning_content, mut thinking_blocks) = (None, None, None);
    for (key, value) in fields {
        match key.as_str() {
            "role" => role = Some(named(value, ROLE_NAMES, &ROLES)?),
            "content" => content = optional(value, message_content)?,
            "tool_calls" => tool_calls = optional(value, |calls| list(calls, tool_call))?,
            "tool_call_id" => tool_call_id = optional(value, string)?,
            "name" => name = optional(value, string)?,
            "reasoning_content" => reasoning_content = optional(value, string)?,
            "thinking_blocks" => {
                thinking_blocks = optional(value, |blocks| list(blocks, thinking_block))?;
            }
            _ => {}
        }
    }
    Ok(ChatMessage {
        role: role.ok_or_else(|| E::missing_field("role"))?,
        content,
        tool_calls,
        tool_call_id,
        name,
        reasoning_content,
        thinking_blocks,
    })
}

fn tool_call<E: Error>(value: Value) -> Result<MessageToolCall, E> {
    let fields = object(value, "struct MessageToolCall")?;
    let (mut id, mut call_type, mut function, mut thought_signature) = (None, None, None, None);
    for (key, value) in fields {
        match key.as_str() {
            "id" => id = Some(string(value)?),
            "type" => call_type = Some(string(value)?),
            "function" => function = Some(function_call(value)?),
            "thought_signature" => thought_signature = optional(value, string)?,
            _ => {}
        }
    }
    Ok(MessageToolCall {
        id: id.ok_or_else(|| E::missing_field("id"))?,
        call_type: call_type.unwrap_or_else(|| "function".to_owned()),
        function: function.ok_or_else(|| E::missing_field("function"))?,
        thought_signature,
    })
}

fn function_call<E: Error>(value: Value) -> Result<FunctionCall, E> {
    let fields = object(value, "struct FunctionCall")?;
    let (mut name, mut arguments) = (None, None);
    for (key, value) in fields {
        match key.as_str() {
            "name" => name = Some(string(value)?),
            "arguments" => arguments = Some(string(value)?),
            _ => {}
        }
    }
    Ok(FunctionCall {
        name: name.ok_or_else(|| E::missing_field("name"))?,
        arguments: arguments.ok_or_else(|| E::missing_field("arguments"))?,
    })
}

const UNTAGGED_CONTENT: &str = "data did not match any variant of untagged enum MessageContent";

fn message_content<E: Error>(value: Value) -> Result<MessageContent, E> {
    match value {
        Value::String(text) => Ok(MessageContent::Text(text)),
        Value::Array(items) => {
            let mut parts = Vec::with_capacity(items.len());
            for item in items {
                parts.push(content_part(item).ok_or_else(|| E::custom(UNTAGGED_CONTENT))?);
            }
            Ok(MessageContent::Parts(parts))
        }
        _ => Err(E::custom(UNTAGGED_CONTENT)),
    }
}

/// One content part, or `None` when it is not one (the untagged content error names no detail).
fn content_part(value: Value) -> Option<ContentPart> {
    let Value::Object(mut fields) = value else {
        return None;
    };
    match fields.get("type")?.as_str()? {
        "text" => Some(ContentPart::Text {
            text: take_string(&mut fields, "text").ok()??,
        }),
        "image_url" => {
            let Value::Object(mut image) = fields.shift_remove("image_url")? else {
                return None;
            };
            Some(ContentPart::ImageUrl {
                image_url: ImageUrl {
                    url: take_string(&mut image, "url").ok()??,
                    detail: take_string(&mut image, "detail").ok()?,
                },
            })
        }
        _ => None,
    }
}

/// Removes the string `key` of an object: `Ok(None)` when absent or null, `Err` with the value
/// when it is something else.
fn take_string(fields: &mut Map<String, Value>, key: &str) -> Result<Option<String>, Value> {
    match fields.shift_remove(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(text)) => Ok(Some(text)),
        Some(other) => Err(other),
    }
}

/// One of OpenRouter's `reasoning_details`, kept as it came: any object.
fn reasoning_detail<E: Error>(value: Value) -> Result<Value, E> {
    object(value, "a map").map(Value::Object)
}

fn thinking_block<E: Error>(value: Value) -> Result<ThinkingBlock, E> {
    let mut fields = object(value, "internally tagged enum ThinkingBlock")?;
    let mut required = |key: &'static str, expected: &'static str| match fields.shift_remove(key) {
        None => Err(E::missing_field(key)),
        Some(Value::String(text)) => Ok(text),
        Some(other) => Err(invalid_type(&other, &expected)),
    };
    let tag = required("type", "variant identifier")?;
    match tag.as_str() {
        "thinking" => Ok(ThinkingBlock::Thinking {
            thinking: required("thinking", "a string")?,
            signature: required("signature", "a string")?,
        }),
        "redacted_thinking" => Ok(ThinkingBlock::RedactedThinking {
            data: required("data", "a string")?,
        }),
        "reasoning" => Ok(ThinkingBlock::Reasoning {
            summary: required("summary", "a string")?,
            encrypted_content: required("encrypted_content", "a string")?,
        }),
        "thought_signature" => Ok(ThinkingBlock::ThoughtSignature {
            signature: required("signature", "a string")?,
        }),
        "reasoning_details" => {
            let details = fields.shift_remove("details");
            let details = details.ok_or_else(|| E::missing_field("details"))?;
            Ok(ThinkingBlock::ReasoningDetails {
                details: list(details, reasoning_detail)?,
            })
        }
        other => Err(E::unknown_variant(
            other,
            &[
                "thinking",
                "redacted_thinking",
                "reasoning",
                "thought_signature",
                "reasoning_details",
            ],
        )),
    }
}
