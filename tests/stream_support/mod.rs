//! Shared by the `stream_*` tests: replaying a body in chunks and summarising what came out.
//! Each test target uses a part of it.
#![allow(dead_code)]

use std::collections::VecDeque;

use mcp_agent_wasm::core::assembler::{
    AssembledToolCall, ToolCallAssembler, ToolInput, ToolInputTracker,
};
use mcp_agent_wasm::core::model_event::{
    queue_merging_pieces, FinishReason, ModelEvent, ProviderStreamError, Usage,
};
use mcp_agent_wasm::core::stream::{DecoderOptions, ModelStreamDecoder, StreamError, WireFormat};
use serde_json::Value;

/// A small deterministic generator, so that random splits are the same on every run.
pub struct SplitRng(u64);

impl SplitRng {
    pub fn new(seed: u64) -> Self {
        Self(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1)
    }

    pub fn below(&mut self, bound: usize) -> usize {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 % bound as u64) as usize
    }
}

/// How a body is cut into chunks before it is pushed.
#[derive(Debug, Clone, Copy)]
pub enum Split {
    Whole,
    ByteByByte,
    /// Chunks of 0 to 63 bytes, from the given seed.
    Random(u64),
    /// Chunks of this many bytes (the last one shorter).
    Fixed(usize),
}

/// Every split a replay test runs: whole, byte by byte, and eight seeded random splits.
pub fn all_splits() -> Vec<Split> {
    let mut splits = vec![Split::Whole, Split::ByteByByte];
    splits.extend((1..=8).map(Split::Random));
    splits
}

pub fn chunks(body: &[u8], split: Split) -> Vec<&[u8]> {
    match split {
        Split::Whole => vec![body],
        Split::ByteByByte => body.chunks(1).collect(),
        Split::Fixed(size) => body.chunks(size).collect(),
        Split::Random(seed) => {
            let mut rng = SplitRng::new(seed);
            let mut pieces = Vec::new();
            let mut start = 0;
            while start < body.len() {
                let end = (start + rng.below(64)).min(body.len());
                pieces.push(&body[start..end]);
                start = end;
            }
            pieces
        }
    }
}

/// Decodes a whole body cut as `split`.
pub fn decode(
    format: WireFormat,
    options: DecoderOptions,
    body: &[u8],
    split: Split,
) -> Result<Vec<ModelEvent>, StreamError> {
    let mut decoder = ModelStreamDecoder::new(format, options);
    let mut events = Vec::new();
    for chunk in chunks(body, split) {
        decoder.push(chunk, &mut events)?;
    }
    decoder.finish(&mut events)?;
    Ok(events)
}

/// Decodes a body cut as `split` as the web layer hands it on: the events of each chunk queued
/// with `queue_merging_pieces`, each chunk's events returned as one batch.
pub fn decode_merged(
    format: WireFormat,
    options: DecoderOptions,
    body: &[u8],
    split: Split,
) -> Result<Vec<Vec<ModelEvent>>, StreamError> {
    let mut decoder = ModelStreamDecoder::new(format, options);
    let mut batches = Vec::new();
    let pieces = chunks(body, split);
    for index in 0..=pieces.len() {
        let mut events = Vec::new();
        match pieces.get(index) {
            Some(piece) => decoder.push(piece, &mut events)?,
            None => decoder.finish(&mut events)?,
        }
        let mut queue = VecDeque::new();
        for event in events {
            queue_merging_pieces(&mut queue, event);
        }
        batches.push(queue.into());
    }
    Ok(batches)
}

/// What a round said, as the agent loop would keep it.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Outcome {
    pub text: String,
    pub reasoning: String,
    pub reasoning_signatures: Vec<String>,
    pub redacted_reasoning: Vec<String>,
    pub encrypted_reasoning: Vec<String>,
    pub text_signatures: Vec<String>,
    pub reasoning_details: Vec<Value>,
    pub calls: Vec<AssembledToolCall>,
    /// The ids the loop gives `calls` in round 0, by position.
    pub loop_ids: Vec<String>,
    /// What a page is shown of the calls while they are written (round 0): each call's id, in
    /// the order they started, with its pieces joined.
    pub shown_calls: Vec<(String, String)>,
    pub finish: Option<FinishReason>,
    pub usage: Option<Usage>,
    pub errors: Vec<ProviderStreamError>,
}

pub fn summarise(events: &[ModelEvent]) -> Outcome {
    let mut outcome = Outcome::default();
    let mut assembler = ToolCallAssembler::new(0);
    let mut tracker = ToolInputTracker::new(0);
    for event in events {
        match event {
            ModelEvent::TextDelta(text) => outcome.text.push_str(text),
            ModelEvent::ReasoningDelta(text) => outcome.reasoning.push_str(text),
            ModelEvent::ReasoningSignature(signature) => {
                outcome.reasoning_signatures.push(signature.clone())
            }
            ModelEvent::RedactedReasoning(data) => outcome.redacted_reasoning.push(data.clone()),
            ModelEvent::EncryptedReasoning(data) => outcome.encrypted_reasoning.push(data.clone()),
            ModelEvent::TextSignature(signature) => outcome.text_signatures.push(signature.clone()),
            ModelEvent::ReasoningDetails(details) => {
                outcome.reasoning_details.extend(details.iter().cloned())
            }
            ModelEvent::ToolCallDelta(delta) => {
                assembler.push(delta);
                for shown in tracker.push(delta) {
                    match shown {
                        ToolInput::Start { id, .. } => {
                            outcome.shown_calls.push((id, String::new()))
                        }
                        ToolInput::Delta { id, text } => {
                            let call = outcome.shown_calls.iter_mut().find(|call| call.0 == id);
                            call.expect("a piece after its call's start")
                                .1
                                .push_str(&text);
                        }
                    }
                }
            }
            ModelEvent::Finish(reason) => outcome.finish = Some(reason.clone()),
            ModelEvent::Usage(usage) => outcome.usage = Some(*usage),
            ModelEvent::Error(error) => outcome.errors.push(error.clone()),
        }
    }
    outcome.loop_ids = assembler.call_ids();
    outcome.calls = assembler.finish();
    outcome
}

/// A long opaque token (thought signature) as its first twelve characters and its length.
pub fn fingerprint(token: &str) -> (String, usize) {
    (token.chars().take(12).collect(), token.len())
}
