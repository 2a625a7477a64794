//! Provider response streams: bytes in, [`ModelEvent`]s out.
//!
//! [`ModelStreamDecoder`] stacks three layers: the framing decoder (SSE or NDJSON), the parser of
//! one wire format (one file each here), and optionally the `<think>` splitter. It is fed the
//! body of ONE response, in chunks of any size; the events do not depend on where chunks split.
//!
//! Payloads that are not JSON, or not the JSON expected, never stop the decoder: each becomes a
//! [`ModelEvent::Error`] with the code [`INVALID_PAYLOAD_CODE`] and decoding goes on. Whether a
//! round with such an error is usable is the agent loop's call (it also sees provider errors the
//! same way). Only a broken framing limit is a [`StreamError`].
//!
//! Normalised across providers: [`Usage`](super::model_event::Usage) counts cached prompt tokens
//! as input and reasoning tokens as output; a `Stop` finish becomes `ToolCalls` when the response
//! carried a call; only the first choice / candidate is followed.

mod anthropic;
mod gemini;
mod json_scan;
mod ollama;
pub(crate) mod openai_chat;
pub(crate) mod openai_responses;
pub(crate) mod usage;

pub(crate) use anthropic::finish_reason as anthropic_finish_reason;
pub use openai_responses::response_events as responses_response_events;

use serde_json::Value;

use super::json_text::to_json_text;
use super::model_event::{FinishReason, ModelEvent, ProviderStreamError};
use super::ndjson::NdjsonDecoder;
use super::sse::{SseDecoder, SseEventRef};
use super::think_split::ThinkTagSplitter;

/// The code of the error event emitted for a payload that could not be understood.
pub const INVALID_PAYLOAD_CODE: &str = "invalid_stream_payload";

/// The body formats a provider may stream.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WireFormat {
    /// OpenAI Chat Completions and the many servers copying it (SSE, `data: [DONE]`).
    OpenAiChat,
    /// OpenAI's Responses API and the servers copying it (SSE with typed events).
    OpenAiResponses,
    /// Anthropic Messages (SSE with named events).
    AnthropicMessages,
    /// Gemini `streamGenerateContent?alt=sse`.
    Gemini,
    /// Ollama's native `/api/chat` (NDJSON).
    OllamaNdjson,
}

/// How a [`ModelStreamDecoder`] treats a body.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DecoderOptions {
    /// Split `<think>…</think>` out of the answer text into reasoning. Meant for models that
    /// reason inline; note that text not starting with `<think>` is held back until `</think>`,
    /// the end, or reasoning in the provider's own field shows what it was (see
    /// [`ThinkTagSplitter`]).
    pub split_think_tags: bool,
    /// The largest SSE event or NDJSON line accepted, in bytes.
    pub max_event_bytes: usize,
}

/// The default cap on one event: 16 MiB, as rmcp uses.
pub const DEFAULT_MAX_EVENT_BYTES: usize = 16 * 1024 * 1024;

impl Default for DecoderOptions {
    fn default() -> Self {
        Self {
            split_think_tags: false,
            max_event_bytes: DEFAULT_MAX_EVENT_BYTES,
        }
    }
}

/// Failures of the streaming layer itself (not of the provider, whose errors are events).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum StreamError {
    #[error("stream event larger than the limit of {limit} bytes")]
    EventTooLarge { limit: usize },
    #[error("bytes pushed after the end of the stream")]
    PushAfterFinish,
    /// The body ended without one event: it was something else (see
    /// [`ModelStreamDecoder::check_had_events`]).
    #[error("{}", no_events_message(body_start))]
    NoEvents { body_start: String },
}

fn no_events_message(body_start: &str) -> String {
    let what = if body_start.is_empty() {
        "the answer is empty".to_owned()
    } else {
        format!("the answer is no event stream; it begins `{body_start}`")
    };
    format!("{what}: check `baseUrl` (a web page or a proxy may have answered instead of the API)")
}

impl StreamError {
    /// A stable code for each variant.
    pub fn code(&self) -> &'static str {
        match self {
            StreamError::EventTooLarge { .. } => "stream_event_too_large",
            StreamError::PushAfterFinish => "stream_push_after_finish",
            StreamError::NoEvents { .. } => "stream_no_events",
        }
    }
}

#[derive(Debug)]
enum Framing {
    Sse(SseDecoder),
    Ndjson {
        decoder: NdjsonDecoder,
        lines: Vec<String>,
    },
}

#[derive(Debug)]
enum Parser {
    OpenAiChat(openai_chat::OpenAiChatParser),
    OpenAiResponses(openai_responses::ResponsesParser),
    Anthropic(anthropic::AnthropicParser),
    Gemini(gemini::GeminiParser),
    Ollama(ollama::OllamaParser),
}

impl Parser {
    #[cfg_attr(optimize_hot_paths, optimize(speed))]
    fn parse(&mut self, event_type: &str, payload: &str, out: &mut Vec<ModelEvent>) {
        match self {
            Parser::OpenAiChat(parser) => parser.parse(payload, out),
            Parser::OpenAiResponses(parser) => parser.parse(payload, out),
            Parser::Anthropic(parser) => parser.parse(event_type, payload, out),
            Parser::Gemini(parser) => parser.parse(payload, out),
            Parser::Ollama(parser) => parser.parse(payload, out),
        }
    }

    fn finish(&mut self, out: &mut Vec<ModelEvent>) {
        match self {
            Parser::OpenAiChat(parser) => parser.finish(out),
            Parser::Ollama(_) => {}
            Parser::Anthropic(parser) => parser.finish(out),
            Parser::OpenAiResponses(parser) => parser.finish(out),
            Parser::Gemini(parser) => parser.finish(out),
        }
    }
}

/// Decodes the streamed body of one model response into [`ModelEvent`]s.
#[derive(Debug)]
pub struct ModelStreamDecoder {
    framing: Framing,
    parser: Parser,
    think_splitter: Option<ThinkTagSplitter>,
    /// Parser output, before the think splitter sees the text.
    parsed: Vec<ModelEvent>,
    finished: bool,
    /// An SSE event or NDJSON line was framed.
    framed_any: bool,
    /// The body's first bytes while nothing was framed, to show what came instead of a stream.
    body_start: Vec<u8>,
}

/// The bytes of a body kept for [`StreamError::NoEvents`].
const BODY_START_BYTES: usize = 160;

impl ModelStreamDecoder {
    pub fn new(format: WireFormat, options: DecoderOptions) -> Self {
        let framing = match format {
            WireFormat::OllamaNdjson => Framing::Ndjson {
                decoder: NdjsonDecoder::new(options.max_event_bytes),
                lines: Vec::new(),
            },
            _ => Framing::Sse(SseDecoder::new(options.max_event_bytes)),
        };
        let parser = match format {
            WireFormat::OpenAiChat => Parser::OpenAiChat(Default::default()),
            WireFormat::OpenAiResponses => Parser::OpenAiResponses(Default::default()),
            WireFormat::AnthropicMessages => Parser::Anthropic(Default::default()),
            WireFormat::Gemini => Parser::Gemini(Default::default()),
            WireFormat::OllamaNdjson => Parser::Ollama(Default::default()),
        };
        Self {
            framing,
            parser,
            think_splitter: options.split_think_tags.then(ThinkTagSplitter::new),
            parsed: Vec::new(),
            finished: false,
            framed_any: false,
            body_start: Vec::new(),
        }
    }

    /// Decodes the next chunk of the body, appending the events it completes to `out`.
    #[cfg_attr(optimize_hot_paths, optimize(speed))]
    pub fn push(&mut self, bytes: &[u8], out: &mut Vec<ModelEvent>) -> Result<(), StreamError> {
        if self.finished {
            return Err(StreamError::PushAfterFinish);
        }
        if !self.framed_any && self.body_start.len() < BODY_START_BYTES {
            self.keep_body_start(bytes);
        }
        let framed = self.frame(Some(bytes));
        self.deliver(out);
        framed
    }

    /// Ends the body: flushes what was held back and reports calls left incomplete.
    pub fn finish(&mut self, out: &mut Vec<ModelEvent>) -> Result<(), StreamError> {
        if self.finished {
            return Ok(());
        }
        self.finished = true;
        let framed = self.frame(None);
        self.parser.finish(&mut self.parsed);
        self.deliver(out);
        if let Some(splitter) = &mut self.think_splitter {
            splitter.finish(out);
        }
        framed
    }

    /// Out of the hot path: only the first pushes of a body come here.
    #[inline(never)]
    fn keep_body_start(&mut self, bytes: &[u8]) {
        let room = BODY_START_BYTES - self.body_start.len();
        self.body_start
            .extend_from_slice(&bytes[..bytes.len().min(room)]);
    }

    /// After [`Self::finish`]: fails when the whole body held not one event, as when a web page
    /// (a wrong `baseUrl`, a proxy's login page) or a JSON error answered with status 200. Apart
    /// from `finish`, whose errors stop the framing and leave the events before them valid.
    pub fn check_had_events(&self) -> Result<(), StreamError> {
        if self.framed_any || !self.finished {
            return Ok(());
        }
        let text = String::from_utf8_lossy(&self.body_start);
        let body_start = text
            .trim_end_matches('\u{FFFD}')
            .trim()
            .chars()
            .map(|c| if c.is_ascii_whitespace() { ' ' } else { c })
            .collect();
        Err(StreamError::NoEvents { body_start })
    }

    /// Frames `bytes` (`None`: the end of the body) and parses every payload completed, even
    /// those completed before the framing failed: what arrived intact is still delivered. SSE
    /// payloads are parsed as they are dispatched, borrowed from the decoder.
    #[cfg_attr(optimize_hot_paths, optimize(speed))]
    fn frame(&mut self, bytes: Option<&[u8]>) -> Result<(), StreamError> {
        let Self {
            framing,
            parser,
            parsed,
            framed_any,
            ..
        } = self;
        match framing {
            Framing::Sse(decoder) => {
                let on_event = &mut |event: SseEventRef<'_>| {
                    *framed_any = true;
                    parser.parse(event.event, event.data, parsed)
                };
                match bytes {
                    Some(bytes) => decoder.push_with(bytes, on_event),
                    None => decoder.finish_with(on_event),
                }
            }
            Framing::Ndjson { decoder, lines } => {
                let framed = match bytes {
                    Some(bytes) => decoder.push(bytes, lines),
                    None => decoder.finish(lines),
                };
                for line in lines.drain(..) {
                    *framed_any = true;
                    parser.parse("", &line, parsed);
                }
                framed
            }
        }
    }

    #[cfg_attr(optimize_hot_paths, optimize(speed))]
    fn deliver(&mut self, out: &mut Vec<ModelEvent>) {
        match &mut self.think_splitter {
            None => out.append(&mut self.parsed),
            Some(splitter) => {
                for event in self.parsed.drain(..) {
                    match event {
                        ModelEvent::TextDelta(text) => splitter.push(&text, out),
                        reasoning @ ModelEvent::ReasoningDelta(_) => {
                            splitter.reasoning_arrived_separately(out);
                            out.push(reasoning);
                        }
                        other => out.push(other),
                    }
                }
            }
        }
    }
}

/// The error event for a payload that is not the JSON expected.
fn invalid_payload(problem: &str, payload: &str) -> ModelEvent {
    const SHOWN_CHARS: usize = 200;
    // Cut where the next character starts, as the rest of the crate cuts text.
    let cut_at = payload
        .char_indices()
        .nth(SHOWN_CHARS)
        .map_or(payload.len(), |(at, _)| at);
    let shown = &payload[..cut_at];
    let ellipsis = if cut_at < payload.len() { "…" } else { "" };
    ModelEvent::Error(ProviderStreamError {
        code: Some(INVALID_PAYLOAD_CODE.to_owned()),
        message: format!("{problem}: {shown}{ellipsis}"),
    })
}

/// Parses one payload as a JSON object, or reports it. An empty payload (a keep-alive some
/// servers send) is skipped silently.
fn parse_object(payload: &str, out: &mut Vec<ModelEvent>) -> Option<Value> {
    if payload.trim().is_empty() {
        return None;
    }
    match serde_json::from_str::<Value>(payload) {
        Ok(value @ Value::Object(_)) => Some(value),
        Ok(_) => {
            out.push(invalid_payload(
                "stream payload is not a JSON object",
                payload,
            ));
            None
        }
        Err(error) => {
            out.push(invalid_payload(
                &format!("stream payload is not valid JSON ({error})"),
                payload,
            ));
            None
        }
    }
}

/// A provider's `error` member as an event: `{"message", "type"|"status", "code"}` or a string.
fn provider_error(error: &Value) -> ModelEvent {
    let code = ["code", "type", "status"]
        .iter()
        .find_map(|key| match error.get(key) {
            Some(Value::String(text)) if !text.is_empty() => Some(text.clone()),
            Some(Value::Number(number)) => Some(number.to_string()),
            _ => None,
        });
    let message = match error {
        Value::String(text) => text.clone(),
        _ => error
            .get("message")
            .and_then(Value::as_str)
            .map(str::to_owned)
            .unwrap_or_else(|| to_json_text(error)),
    };
    ModelEvent::Error(ProviderStreamError { code, message })
}

/// A non-empty string member.
fn non_empty_str<'a>(value: &'a Value, key: &str) -> Option<&'a str> {
    value
        .get(key)
        .and_then(Value::as_str)
        .filter(|text| !text.is_empty())
}

/// A token count member (providers send integers; a float is truncated, anything else is 0).
/// Counts are added with `saturating_add`: a hostile stream may send `u64::MAX`.
fn token_count(value: &Value, key: &str) -> u64 {
    match value.get(key) {
        Some(Value::Number(number)) => number
            .as_u64()
            .or_else(|| number.as_f64().map(|float| float.max(0.0) as u64))
            .unwrap_or(0),
        _ => 0,
    }
}

/// Providers report "stop" even when the model asked for tools (Gemini always does, some
/// OpenAI-compatible servers and Ollama too): the reason is made `ToolCalls` whenever the
/// response carried a call, so the loop sees one vocabulary.
fn normalise_finish(reason: FinishReason, saw_tool_call: bool) -> FinishReason {
    match reason {
        FinishReason::Stop if saw_tool_call => FinishReason::ToolCalls,
        other => other,
    }
}
