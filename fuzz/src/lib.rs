//! Shared pieces of the fuzz targets: chunking a body the way a network might, and the checks
//! every decoder must pass (no panic, and the same output whatever the chunking).

pub mod arbitrary_input;

use mcp_agent_wasm::core::model_event::ModelEvent;
use mcp_agent_wasm::core::ndjson::NdjsonDecoder;
use mcp_agent_wasm::core::sse::{SseDecoder, SseEvent};
use mcp_agent_wasm::core::stream::{
    DecoderOptions, ModelStreamDecoder, StreamError, WireFormat, DEFAULT_MAX_EVENT_BYTES,
};

/// A cap small enough that fuzz inputs reach it, so the over-limit path is exercised too.
pub const SMALL_CAP: usize = 64;

/// What the first byte of a decoder input selects; the rest of the input is the body.
#[derive(Debug, Clone, Copy)]
pub struct BodyOptions {
    /// Seed of the chunking compared with the whole body (see [`chunks`]).
    pub chunk_seed: u8,
    /// [`SMALL_CAP`] instead of the default 16 MiB cap.
    pub small_cap: bool,
    /// Provider streams only: run the `<think>` splitter.
    pub split_think_tags: bool,
}

impl BodyOptions {
    /// Bit 7: small cap; bit 6: think splitting; bits 0–5: chunk seed.
    pub fn split(data: &[u8]) -> Option<(BodyOptions, &[u8])> {
        let (&first, body) = data.split_first()?;
        let options = BodyOptions {
            chunk_seed: first & 0x3f,
            small_cap: first & 0x80 != 0,
            split_think_tags: first & 0x40 != 0,
        };
        Some((options, body))
    }

    pub fn cap(self) -> usize {
        if self.small_cap {
            SMALL_CAP
        } else {
            DEFAULT_MAX_EVENT_BYTES
        }
    }
}

/// Cuts `body` into chunks: seed 0 gives the whole body, seed 1 single bytes, a larger seed
/// pseudo-random lengths from 1 to `seed`, so that a boundary falls inside line ends, fields and
/// UTF-8 characters.
pub fn chunks(body: &[u8], seed: u8) -> Vec<&[u8]> {
    if seed == 0 {
        return vec![body];
    }
    let mut state = u32::from(seed);
    let mut pieces = Vec::new();
    let mut rest = body;
    while !rest.is_empty() {
        state = state.wrapping_mul(1_103_515_245).wrapping_add(12_345);
        let length = 1 + (state >> 16) as usize % usize::from(seed);
        let (piece, after) = rest.split_at(length.min(rest.len()));
        pieces.push(piece);
        rest = after;
    }
    pieces
}

/// Everything a decoder produced for one body: its output, and the first error if any.
#[derive(Debug, PartialEq)]
pub struct Decoded<T> {
    pub output: Vec<T>,
    pub error: Option<StreamError>,
}

/// The push/finish pair of a decoder (framing or provider stream).
pub trait PushDecoder {
    type Item;
    fn push(&mut self, bytes: &[u8], out: &mut Vec<Self::Item>) -> Result<(), StreamError>;
    fn finish(&mut self, out: &mut Vec<Self::Item>) -> Result<(), StreamError>;
}

/// The decoders' own `push`/`finish`, which have the same signatures, as [`PushDecoder`].
macro_rules! push_decoder {
    ($($decoder:ty => $item:ty),* $(,)?) => {$(
        impl PushDecoder for $decoder {
            type Item = $item;
            fn push(&mut self, bytes: &[u8], out: &mut Vec<$item>) -> Result<(), StreamError> {
                <$decoder>::push(self, bytes, out)
            }
            fn finish(&mut self, out: &mut Vec<$item>) -> Result<(), StreamError> {
                <$decoder>::finish(self, out)
            }
        }
    )*};
}

push_decoder!(SseDecoder => SseEvent, NdjsonDecoder => String, ModelStreamDecoder => ModelEvent);

/// An [`SseDecoder`] driven through `push_with`/`finish_with`, the borrowed events that model
/// streams parse, copied out so that they compare with `push`'s.
pub struct BorrowedSse(pub SseDecoder);

impl PushDecoder for BorrowedSse {
    type Item = SseEvent;
    fn push(&mut self, bytes: &[u8], out: &mut Vec<SseEvent>) -> Result<(), StreamError> {
        self.0
            .push_with(bytes, &mut |event| out.push(event.to_owned_event()))
    }
    fn finish(&mut self, out: &mut Vec<SseEvent>) -> Result<(), StreamError> {
        self.0
            .finish_with(&mut |event| out.push(event.to_owned_event()))
    }
}

/// Feeds `pieces` to a decoder the way the web layer does: stop at the first error, then finish,
/// which must keep reporting that error.
pub fn drive<D: PushDecoder>(decoder: &mut D, pieces: &[&[u8]]) -> Decoded<D::Item> {
    let mut output = Vec::new();
    let mut error = None;
    for piece in pieces {
        if let Err(failure) = decoder.push(piece, &mut output) {
            error = Some(failure);
            break;
        }
    }
    let finished = decoder.finish(&mut output);
    match (&error, finished) {
        (None, Err(failure)) => error = Some(failure),
        (Some(stopped), finished) => assert_eq!(
            finished.as_ref().err(),
            Some(stopped),
            "finish forgot the error that stopped the body"
        ),
        (None, Ok(())) => {}
    }
    Decoded { output, error }
}

pub fn decode_model_stream(
    format: WireFormat,
    options: BodyOptions,
    pieces: &[&[u8]],
) -> Decoded<ModelEvent> {
    let mut decoder = ModelStreamDecoder::new(
        format,
        DecoderOptions {
            split_think_tags: options.split_think_tags,
            max_event_bytes: options.cap(),
        },
    );
    let mut decoded = drive(&mut decoder, pieces);
    assert_eq!(
        decoder.push(b"x", &mut decoded.output),
        Err(StreamError::PushAfterFinish),
        "a finished decoder took more bytes"
    );
    decoded
}

/// The provider stream check shared by the four stream targets: no panic, the same events for
/// the whole body and for a chunked one, and nothing but a typed error at the cap.
pub fn check_model_stream(format: WireFormat, data: &[u8]) {
    let Some((options, body)) = BodyOptions::split(data) else {
        return;
    };
    let whole = decode_model_stream(format, options, &[body]);
    let chunked = decode_model_stream(format, options, &chunks(body, options.chunk_seed));
    assert_eq!(whole, chunked, "events depend on where the body was cut");
    if let Some(error) = &whole.error {
        assert_eq!(error.code(), "stream_event_too_large");
    }
}
