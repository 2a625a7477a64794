//! A push decoder for newline-delimited JSON (Ollama's `/api/chat` stream).
//!
//! It splits lines and leaves the JSON parsing to the caller, which knows the shape it expects.
//! As with SSE, a chunk boundary may fall anywhere: bytes are kept until their line ends.

use super::stream::StreamError;

/// Splits one NDJSON body into its non-blank lines.
#[derive(Debug)]
pub struct NdjsonDecoder {
    max_line_bytes: usize,
    partial_line: Vec<u8>,
    failed: bool,
}

impl NdjsonDecoder {
    /// A decoder that refuses any line longer than `max_line_bytes`.
    pub fn new(max_line_bytes: usize) -> Self {
        Self {
            max_line_bytes,
            partial_line: Vec::new(),
            failed: false,
        }
    }

    /// Decodes `bytes`, appending every line they complete to `out`. Blank lines are skipped and
    /// a `\r` before the `\n` is dropped.
    pub fn push(&mut self, bytes: &[u8], out: &mut Vec<String>) -> Result<(), StreamError> {
        if self.failed {
            return Err(self.too_large());
        }
        let mut rest = bytes;
        while let Some(end) = rest.iter().position(|&byte| byte == b'\n') {
            let (line, after) = rest.split_at(end);
            rest = &after[1..];
            self.check_size(self.partial_line.len() + line.len())?;
            if self.partial_line.is_empty() {
                emit_line(line, out);
            } else {
                self.partial_line.extend_from_slice(line);
                emit_line(&self.partial_line, out);
                self.partial_line.clear();
            }
        }
        if !rest.is_empty() {
            self.check_size(self.partial_line.len() + rest.len())?;
            self.partial_line.extend_from_slice(rest);
        }
        Ok(())
    }

    /// Ends the body: a last line without `\n` is accepted.
    pub fn finish(&mut self, out: &mut Vec<String>) -> Result<(), StreamError> {
        if self.failed {
            return Err(self.too_large());
        }
        emit_line(&self.partial_line, out);
        self.partial_line.clear();
        Ok(())
    }

    fn too_large(&self) -> StreamError {
        StreamError::EventTooLarge {
            limit: self.max_line_bytes,
        }
    }

    fn check_size(&mut self, line_bytes: usize) -> Result<(), StreamError> {
        if line_bytes > self.max_line_bytes {
            self.failed = true;
            self.partial_line = Vec::new();
            return Err(self.too_large());
        }
        Ok(())
    }
}

fn emit_line(line: &[u8], out: &mut Vec<String>) {
    let line = line.strip_suffix(b"\r").unwrap_or(line);
    if line.iter().all(u8::is_ascii_whitespace) {
        return;
    }
    out.push(String::from_utf8_lossy(line).into_owned());
}
