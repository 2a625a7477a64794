//! A push decoder for Server-Sent Events, following the WHATWG "event stream" parsing rules.
//!
//! Bytes go in as they arrive from the network, in chunks of any size; whole events come out.
//! Lines end with `\n`, `\r\n` or `\r`, and a chunk boundary may fall anywhere, including between
//! `\r` and `\n` or inside a UTF-8 character: bytes are kept until their line is complete and only
//! then decoded (invalid UTF-8 becomes U+FFFD, as in a browser's `EventSource`).
//!
//! Used for provider streams and for MCP's Streamable HTTP, so it keeps the general parts of the
//! format: the event type, the last event id and the reconnection delay.

use super::stream::{StreamError, DEFAULT_MAX_EVENT_BYTES};

/// One dispatched event.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SseEvent {
    /// The `event` field, or `message` when the event named none.
    pub event: String,
    /// The `data` lines joined with `\n`.
    pub data: String,
    /// The last event id at dispatch time (it persists across events), `None` when unset or empty.
    pub id: Option<String>,
}

/// One dispatched event, borrowed from the decoder: what [`SseDecoder::push_with`] hands over.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SseEventRef<'a> {
    /// The `event` field, or `message` when the event named none.
    pub event: &'a str,
    /// The `data` lines joined with `\n`.
    pub data: &'a str,
    /// The last event id at dispatch time, `None` when unset or empty.
    pub id: Option<&'a str>,
}

impl SseEventRef<'_> {
    /// A copy that owns its strings, as [`SseDecoder::push`] collects them.
    pub fn to_owned_event(self) -> SseEvent {
        SseEvent {
            event: self.event.to_owned(),
            data: self.data.to_owned(),
            id: self.id.map(str::to_owned),
        }
    }
}

/// The data and line buffers keep their capacity from one event to the next, up to this many
/// bytes: a long-lived stream does not hold on to the memory of one large event.
const KEPT_DATA_CAPACITY: usize = 64 * 1024;

/// An unfinished line is held in blocks of at most this many bytes, joined once when its end
/// arrives: one growing buffer would copy itself at each doubling, and while a 10 MB line came
/// in it took some 2.7 times the line instead of about 2 (wasm memory never shrinks).
pub const LINE_BLOCK_BYTES: usize = 64 * 1024;

// A kept line buffer must fit in one block: `hold_in_blocks` fills the last block up to
// `LINE_BLOCK_BYTES` from whatever it already holds.
const _: () = assert!(KEPT_DATA_CAPACITY <= LINE_BLOCK_BYTES);

/// Decodes one SSE body. Feed it with [`SseDecoder::push`], then call [`SseDecoder::finish`] once
/// at the end of the body, or [`SseDecoder::discard_unfinished_event`] if its connection broke.
#[derive(Debug)]
pub struct SseDecoder {
    max_event_bytes: usize,
    /// The last block of the line being received, kept until its end arrives (the only block
    /// of nearly every line).
    partial_line: Vec<u8>,
    /// The line's earlier blocks, each of [`LINE_BLOCK_BYTES`] bytes.
    full_blocks: Vec<Vec<u8>>,
    /// The previous chunk ended with `\r`: a `\n` opening the next chunk belongs to that line end.
    skip_line_feed: bool,
    /// Nothing has been decoded yet, so a byte order mark may still have to be dropped.
    at_stream_start: bool,
    event_type: String,
    data: String,
    /// Whether any `data` field arrived for the pending event (it may be empty).
    has_data: bool,
    /// The `id` field's latest value; it becomes the last event id when its event is dispatched.
    event_id_buffer: String,
    last_event_id: String,
    retry: Option<u64>,
    /// Once an event went over the cap the body is not trusted any further.
    failed: bool,
}

const BYTE_ORDER_MARK: &[u8] = b"\xEF\xBB\xBF";

/// The position of the first `\n` or `\r`, looking at eight bytes at a time where none is one
/// (the "has a zero byte" bit trick): lines are long, and this is the decoder's inner loop.
#[cfg_attr(optimize_hot_paths, optimize(speed))]
fn line_end(bytes: &[u8]) -> Option<usize> {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGHS: u64 = 0x8080_8080_8080_8080;
    let has_zero = |word: u64| word.wrapping_sub(ONES) & !word & HIGHS != 0;
    let mut at = 0;
    while let Some(word) = bytes
        .get(at..at + 8)
        .and_then(|word| <[u8; 8]>::try_from(word).ok())
    {
        let word = u64::from_le_bytes(word);
        if has_zero(word ^ (ONES * u64::from(b'\n'))) || has_zero(word ^ (ONES * u64::from(b'\r')))
        {
            break;
        }
        at += 8;
    }
    bytes[at..]
        .iter()
        .position(|&byte| byte == b'\n' || byte == b'\r')
        .map(|offset| at + offset)
}

impl Default for SseDecoder {
    /// A decoder with the default cap of [`DEFAULT_MAX_EVENT_BYTES`].
    fn default() -> Self {
        Self::new(DEFAULT_MAX_EVENT_BYTES)
    }
}

impl SseDecoder {
    /// A decoder that refuses any event (with its pending line) larger than `max_event_bytes`.
    pub fn new(max_event_bytes: usize) -> Self {
        Self {
            max_event_bytes,
            partial_line: Vec::new(),
            full_blocks: Vec::new(),
            skip_line_feed: false,
            at_stream_start: true,
            event_type: String::new(),
            data: String::new(),
            has_data: false,
            event_id_buffer: String::new(),
            last_event_id: String::new(),
            retry: None,
            failed: false,
        }
    }

    /// The id to send as `Last-Event-ID` when reconnecting, if the server set a non-empty one:
    /// that of the last dispatched event (an `id` field counts once its event ends).
    pub fn last_event_id(&self) -> Option<&str> {
        Some(self.last_event_id.as_str()).filter(|id| !id.is_empty())
    }

    /// The reconnection delay in milliseconds from the latest valid `retry` field.
    pub fn retry(&self) -> Option<u64> {
        self.retry
    }

    /// Decodes `bytes`, appending every event they complete to `out`.
    pub fn push(&mut self, bytes: &[u8], out: &mut Vec<SseEvent>) -> Result<(), StreamError> {
        self.push_with(bytes, &mut |event| out.push(event.to_owned_event()))
    }

    /// Decodes `bytes`, handing every event they complete to `on_event` as it is dispatched,
    /// borrowed: a model stream parses each payload in place instead of copying it first.
    #[cfg_attr(optimize_hot_paths, optimize(speed))]
    pub fn push_with(
        &mut self,
        bytes: &[u8],
        on_event: &mut dyn FnMut(SseEventRef<'_>),
    ) -> Result<(), StreamError> {
        if self.failed {
            return Err(self.too_large());
        }
        let mut rest = bytes;
        if self.skip_line_feed && !rest.is_empty() {
            self.skip_line_feed = false;
            rest = rest.strip_prefix(b"\n").unwrap_or(rest);
        }
        while let Some(end) = line_end(rest) {
            let (line, after) = rest.split_at(end);
            let ending = after[0];
            rest = &after[1..];
            if ending == b'\r' {
                match rest.first() {
                    Some(b'\n') => rest = &rest[1..],
                    Some(_) => {}
                    None => self.skip_line_feed = true,
                }
            }
            if self.partial_line.is_empty() {
                self.check_size(line.len())?;
                self.process_line(line, on_event);
            } else {
                self.check_size(self.held_line_bytes() + line.len())?;
                self.process_held_line(line, on_event);
            }
        }
        if !rest.is_empty() {
            self.check_size(self.held_line_bytes() + rest.len())?;
            if self.partial_line.len() + rest.len() <= self.partial_line.capacity() {
                self.partial_line.extend_from_slice(rest);
            } else {
                self.hold_in_blocks(rest);
            }
        }
        Ok(())
    }

    /// Bytes of the unfinished line held so far.
    fn held_line_bytes(&self) -> usize {
        self.full_blocks.len() * LINE_BLOCK_BYTES + self.partial_line.len()
    }

    /// Adds `bytes` to the unfinished line when they do not fit its last block's capacity: that
    /// block grows as a vector does up to [`LINE_BLOCK_BYTES`], then a new block is started.
    #[cold]
    fn hold_in_blocks(&mut self, mut bytes: &[u8]) {
        while !bytes.is_empty() {
            if self.partial_line.len() == LINE_BLOCK_BYTES {
                let full_block =
                    std::mem::replace(&mut self.partial_line, Vec::with_capacity(LINE_BLOCK_BYTES));
                self.full_blocks.push(full_block);
            }
            let held = self.partial_line.len();
            let (into_block, after) = bytes.split_at(bytes.len().min(LINE_BLOCK_BYTES - held));
            let wanted = held + into_block.len();
            if wanted > self.partial_line.capacity() {
                let grown = (2 * self.partial_line.capacity())
                    .max(wanted)
                    .min(LINE_BLOCK_BYTES);
                self.partial_line.reserve_exact(grown - held);
            }
            self.partial_line.extend_from_slice(into_block);
            bytes = after;
        }
    }

    /// Processes the held line completed by `rest_of_line`, joined into one buffer, and keeps a
    /// small buffer for the next line.
    fn process_held_line(
        &mut self,
        rest_of_line: &[u8],
        on_event: &mut dyn FnMut(SseEventRef<'_>),
    ) {
        let mut whole_line = if self.full_blocks.is_empty() {
            std::mem::take(&mut self.partial_line)
        } else {
            let mut joined = Vec::with_capacity(self.held_line_bytes() + rest_of_line.len());
            for block in &self.full_blocks {
                joined.extend_from_slice(block);
            }
            joined.extend_from_slice(&self.partial_line);
            self.full_blocks = Vec::new();
            self.partial_line.clear();
            joined
        };
        whole_line.extend_from_slice(rest_of_line);
        self.process_line(&whole_line, on_event);
        if whole_line.capacity() <= KEPT_DATA_CAPACITY {
            whole_line.clear();
            self.partial_line = whole_line;
        }
    }

    /// Ends a body that ended cleanly. Unlike a browser, a last line without its line end and a
    /// last event without its blank line are still delivered: providers and proxies do cut the
    /// final blank line, and a truncated payload is better judged by the parser above (whose JSON
    /// check will fail) than silently lost. A broken connection is
    /// [`Self::discard_unfinished_event`].
    pub fn finish(&mut self, out: &mut Vec<SseEvent>) -> Result<(), StreamError> {
        self.finish_with(&mut |event| out.push(event.to_owned_event()))
    }

    /// [`Self::finish`], handing the last events to `on_event` like [`Self::push_with`].
    pub fn finish_with(
        &mut self,
        on_event: &mut dyn FnMut(SseEventRef<'_>),
    ) -> Result<(), StreamError> {
        if self.failed {
            return Err(self.too_large());
        }
        if !self.partial_line.is_empty() {
            self.process_held_line(b"", on_event);
        }
        self.dispatch(on_event);
        self.skip_line_feed = false;
        Ok(())
    }

    /// Ends a body whose connection broke: the event it was receiving is dropped, with its
    /// fields and its `id`, as WHATWG drops an incomplete event. Unlike [`Self::finish`], nothing
    /// is delivered: a stream to be resumed must resume from its last dispatched event.
    pub fn discard_unfinished_event(&mut self) {
        self.full_blocks = Vec::new();
        self.partial_line.clear();
        self.skip_line_feed = false;
        self.event_type.clear();
        self.data.clear();
        self.has_data = false;
        self.event_id_buffer.clone_from(&self.last_event_id);
    }

    fn too_large(&self) -> StreamError {
        StreamError::EventTooLarge {
            limit: self.max_event_bytes,
        }
    }

    #[cfg_attr(optimize_hot_paths, optimize(speed))]
    fn check_size(&mut self, line_bytes: usize) -> Result<(), StreamError> {
        let pending = self.data.len() + self.event_type.len() + line_bytes;
        if pending > self.max_event_bytes {
            return Err(self.fail_as_too_large());
        }
        Ok(())
    }

    /// Refuses the rest of the body and lets go of what the event held. Out of line: every line
    /// passes through [`Self::check_size`].
    #[cold]
    #[inline(never)]
    fn fail_as_too_large(&mut self) -> StreamError {
        self.failed = true;
        self.partial_line = Vec::new();
        self.full_blocks = Vec::new();
        self.data = String::new();
        self.too_large()
    }

    #[cfg_attr(optimize_hot_paths, optimize(speed))]
    fn process_line(&mut self, line: &[u8], on_event: &mut dyn FnMut(SseEventRef<'_>)) {
        let mut line = line;
        if self.at_stream_start {
            self.at_stream_start = false;
            line = line.strip_prefix(BYTE_ORDER_MARK).unwrap_or(line);
        }
        if line.is_empty() {
            self.dispatch(on_event);
            return;
        }
        if line[0] == b':' {
            return;
        }
        let (field, value) = match line.iter().position(|&byte| byte == b':') {
            Some(colon) => {
                let value = &line[colon + 1..];
                (&line[..colon], value.strip_prefix(b" ").unwrap_or(value))
            }
            None => (line, &b""[..]),
        };
        match field {
            b"data" => {
                if self.has_data {
                    self.data.push('\n');
                }
                // Checking alone is much cheaper than the lossy conversion, and nearly every
                // line is valid.
                match std::str::from_utf8(value) {
                    Ok(text) => self.data.push_str(text),
                    Err(_) => self.data.push_str(&String::from_utf8_lossy(value)),
                }
                self.has_data = true;
            }
            b"event" => {
                self.event_type.clear();
                self.event_type.push_str(&String::from_utf8_lossy(value));
            }
            b"id" if !value.contains(&0) => {
                self.event_id_buffer = String::from_utf8_lossy(value).into_owned();
            }
            b"retry" if !value.is_empty() && value.iter().all(u8::is_ascii_digit) => {
                if let Ok(delay) = std::str::from_utf8(value).unwrap_or("").parse() {
                    self.retry = Some(delay);
                }
            }
            _ => {}
        }
    }

    /// Delivers the pending event. Per the spec an event without any `data` field is not
    /// delivered (its `id` and `retry` still took effect).
    #[cfg_attr(optimize_hot_paths, optimize(speed))]
    fn dispatch(&mut self, on_event: &mut dyn FnMut(SseEventRef<'_>)) {
        if self.last_event_id != self.event_id_buffer {
            self.last_event_id.clone_from(&self.event_id_buffer);
        }
        if self.has_data {
            self.has_data = false;
            on_event(SseEventRef {
                event: match self.event_type.as_str() {
                    "" => "message",
                    named => named,
                },
                data: &self.data,
                id: self.last_event_id(),
            });
        }
        self.event_type.clear();
        if self.data.capacity() > KEPT_DATA_CAPACITY {
            self.data = String::new();
        } else {
            self.data.clear();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_long_line_leaves_no_large_buffer_behind() {
        let mut decoder = SseDecoder::default();
        let mut events = Vec::new();
        let line = format!("data: {}", "x".repeat(1 << 20));
        for piece in line.as_bytes().chunks(1000) {
            decoder.push(piece, &mut events).unwrap();
        }
        decoder.push(b"\n\ndata: next\n\n", &mut events).unwrap();
        assert_eq!(events.len(), 2);
        assert_eq!(events[0].data.len(), 1 << 20);
        assert!(decoder.partial_line.capacity() <= KEPT_DATA_CAPACITY);
        assert!(decoder.full_blocks.is_empty());
        assert!(decoder.data.capacity() <= KEPT_DATA_CAPACITY);
    }

    #[test]
    fn a_broken_long_line_leaves_at_most_one_block_behind() {
        let mut decoder = SseDecoder::default();
        let mut events = Vec::new();
        let line = format!("data: {}", "x".repeat(1 << 20));
        for piece in line.as_bytes().chunks(1000) {
            decoder.push(piece, &mut events).unwrap();
            assert!(decoder.partial_line.capacity() <= LINE_BLOCK_BYTES);
        }
        assert_eq!(decoder.held_line_bytes(), line.len());
        decoder.discard_unfinished_event();
        assert_eq!(decoder.full_blocks.capacity(), 0);
        assert!(decoder.partial_line.capacity() <= LINE_BLOCK_BYTES);
        decoder.push(b"data: next\n\n", &mut events).unwrap();
        assert_eq!(
            events,
            [SseEvent {
                event: "message".into(),
                data: "next".into(),
                id: None
            }]
        );
    }

    #[test]
    fn line_end_finds_the_first_line_break_wherever_it_falls() {
        for length in 0..24 {
            for position in 0..=length {
                for line_break in [b'\n', b'\r'] {
                    let mut bytes = vec![b'a'; length];
                    bytes.extend_from_slice("é\x0b\x0c".as_bytes());
                    if position < bytes.len() {
                        bytes[position] = line_break;
                    }
                    let naive = bytes
                        .iter()
                        .position(|&byte| byte == b'\n' || byte == b'\r');
                    assert_eq!(line_end(&bytes), naive, "{bytes:?}");
                }
            }
        }
    }
}
