//! Structured inputs for the assembler and loop targets. Ids, names and argument pieces come from
//! small vocabularies most of the time, so that deltas collide, calls complete and tools exist;
//! arbitrary strings stay possible.

use arbitrary::Arbitrary;
use mcp_agent_wasm::core::model_event::{
    ArgumentsDelta, FinishReason, ModelEvent, ProviderStreamError, ToolCallDelta, Usage,
};
use serde_json::Value;

#[derive(Debug, Arbitrary)]
pub enum Word {
    A,
    B,
    C,
    Empty,
    Any(String),
}

impl Word {
    fn text(&self, a: &str, b: &str, c: &str) -> String {
        match self {
            Word::A => a.to_owned(),
            Word::B => b.to_owned(),
            Word::C => c.to_owned(),
            Word::Empty => String::new(),
            Word::Any(text) => text.clone(),
        }
    }
}

/// Pieces of JSON text, so that fragments often join into valid (or nearly valid) arguments.
#[derive(Debug, Arbitrary)]
pub enum JsonPiece {
    Open,
    Close,
    Key,
    Colon,
    Comma,
    Number,
    Text,
    Null,
    OpenArray,
    CloseArray,
    Quote,
    Any(String),
}

impl JsonPiece {
    fn text(&self) -> &str {
        match self {
            JsonPiece::Open => "{",
            JsonPiece::Close => "}",
            JsonPiece::Key => "\"query\"",
            JsonPiece::Colon => ":",
            JsonPiece::Comma => ",",
            JsonPiece::Number => "-1.5e3",
            JsonPiece::Text => "\"rust \\u00e9\"",
            JsonPiece::Null => "null",
            JsonPiece::OpenArray => "[",
            JsonPiece::CloseArray => "]",
            JsonPiece::Quote => "\"",
            JsonPiece::Any(text) => text,
        }
    }
}

#[derive(Debug, Arbitrary)]
pub enum ArgumentsInput {
    Fragment(Vec<JsonPiece>),
    /// A whole value: the text as JSON, or as a JSON string when it does not parse.
    Whole(String),
    Truncated,
}

#[derive(Debug, Arbitrary)]
pub struct DeltaInput {
    index: Option<u8>,
    id: Option<Word>,
    name: Option<Word>,
    arguments: Option<ArgumentsInput>,
    thought_signature: Option<String>,
}

impl DeltaInput {
    pub fn to_delta(&self) -> ToolCallDelta {
        ToolCallDelta {
            // Mostly small indexes, which collide; now and then a large one.
            index: self.index.map(|index| {
                if index < 250 {
                    u32::from(index % 4)
                } else {
                    u32::MAX
                }
            }),
            id: self
                .id
                .as_ref()
                .map(|id| id.text("call_0", "call_1", "toolu_x")),
            name: self
                .name
                .as_ref()
                .map(|name| name.text("web_search", "weather_forecast", "no_such_tool")),
            arguments: self.arguments.as_ref().map(|arguments| match arguments {
                ArgumentsInput::Fragment(pieces) => {
                    ArgumentsDelta::Fragment(pieces.iter().map(JsonPiece::text).collect())
                }
                ArgumentsInput::Whole(text) => ArgumentsDelta::Whole(
                    serde_json::from_str(text).unwrap_or_else(|_| Value::String(text.clone())),
                ),
                ArgumentsInput::Truncated => ArgumentsDelta::Truncated,
            }),
            thought_signature: self.thought_signature.clone(),
        }
    }
}

/// Text pieces for the answer: prose, `<think>` tags and prompt-mode calls in fences or bare.
#[derive(Debug, Arbitrary)]
pub enum TextInput {
    Prose,
    Fence,
    FencedCall,
    BareCall,
    CallArray,
    BrokenCall,
    Any(String),
}

impl TextInput {
    fn text(&self) -> String {
        match self {
            TextInput::Prose => "The weather is fine. ".to_owned(),
            TextInput::Fence => "\n```json\n".to_owned(),
            TextInput::FencedCall => "```json\n{\"name\": \"web_search\", \"arguments\": \
                 {\"query\": \"rust\"}}\n```"
                .to_owned(),
            TextInput::BareCall => "{\"name\": \"weather_forecast\", \"arguments\": \
                 {\"city\": \"Oslo\"}}"
                .to_owned(),
            TextInput::CallArray => "```json\n[{\"name\": \"web_search\", \"arguments\": {}}, \
                 {\"name\": \"nope\", \"arguments\": 1}]\n```"
                .to_owned(),
            TextInput::BrokenCall => {
                "```json\n{\"name\": \"web_search\", \"arguments\": {\n```".to_owned()
            }
            TextInput::Any(text) => text.clone(),
        }
    }
}

#[derive(Debug, Arbitrary)]
pub enum FinishInput {
    Stop,
    ToolCalls,
    Length,
    ContentFilter,
    Other(String),
}

#[derive(Debug, Arbitrary)]
pub enum ModelEventInput {
    Text(TextInput),
    Reasoning(String),
    Signature(String),
    Redacted(String),
    Encrypted(String),
    TextSignature(String),
    ToolCall(DeltaInput),
    Finish(FinishInput),
    Usage {
        input_tokens: u64,
        output_tokens: u64,
    },
    Error {
        code: Option<String>,
        message: String,
    },
}

impl ModelEventInput {
    pub fn to_event(&self) -> ModelEvent {
        match self {
            ModelEventInput::Text(text) => ModelEvent::TextDelta(text.text()),
            ModelEventInput::Reasoning(text) => ModelEvent::ReasoningDelta(text.clone()),
            ModelEventInput::Signature(text) => ModelEvent::ReasoningSignature(text.clone()),
            ModelEventInput::Redacted(text) => ModelEvent::RedactedReasoning(text.clone()),
            ModelEventInput::Encrypted(text) => ModelEvent::EncryptedReasoning(text.clone()),
            ModelEventInput::TextSignature(text) => ModelEvent::TextSignature(text.clone()),
            ModelEventInput::ToolCall(delta) => ModelEvent::ToolCallDelta(delta.to_delta()),
            ModelEventInput::Finish(reason) => ModelEvent::Finish(match reason {
                FinishInput::Stop => FinishReason::Stop,
                FinishInput::ToolCalls => FinishReason::ToolCalls,
                FinishInput::Length => FinishReason::Length,
                FinishInput::ContentFilter => FinishReason::ContentFilter,
                FinishInput::Other(text) => FinishReason::Other(text.clone()),
            }),
            ModelEventInput::Usage {
                input_tokens,
                output_tokens,
            } => ModelEvent::Usage(Usage {
                input_tokens: *input_tokens,
                output_tokens: *output_tokens,
                ..Usage::default()
            }),
            ModelEventInput::Error { code, message } => ModelEvent::Error(ProviderStreamError {
                code: code.clone(),
                message: message.clone(),
            }),
        }
    }
}
