//! What the MCP client adds to the shared fetch path (`web::http`): its errors as `McpError`,
//! response bodies read as SSE events.

use crate::core::mcp::jsonrpc::{incoming_messages, IncomingMessage};
use crate::core::mcp::McpError;
use crate::core::sse::{SseDecoder, SseEvent};
use crate::web::error::js_error_message;
use crate::web::http::{fetch, HttpError, HttpRequest, HttpResponse};
use crate::web::json::{value_from_js, MAX_DEPTH};

/// An event larger than this (a huge base64 image, a runaway stream) ends the stream.
const MAX_SSE_EVENT_BYTES: usize = 32 * 1024 * 1024;

pub fn now_ms() -> f64 {
    js_sys::Date::now()
}

fn mcp_error(error: HttpError) -> McpError {
    match error {
        HttpError::Aborted => McpError::Aborted,
        HttpError::Network(message) | HttpError::Body(message) => McpError::Network(message),
    }
}

/// The messages of a JSON body or SSE `data`, parsed by the engine's `JSON.parse` (see
/// `value_from_js`); the text is let go before the value is read out of JS.
pub fn parse_messages(text: String) -> Result<Vec<IncomingMessage>, McpError> {
    let parsed = js_sys::JSON::parse(&text);
    drop(text);
    let parsed = parsed.map_err(|error| {
        McpError::InvalidMessage(format!("not JSON: {}", js_error_message(&error)))
    })?;
    let value = value_from_js(&parsed).ok_or_else(|| {
        McpError::InvalidMessage(format!("nested more than {MAX_DEPTH} levels deep"))
    })?;
    incoming_messages(value)
}

/// One request to the server: `headers` are the server's configured headers followed by the
/// protocol's own. Dropping the reply (or its [`SseReader`]) aborts the request.
pub async fn send(
    method: &str,
    url: &str,
    headers: &[(String, String)],
    body: Option<&str>,
) -> Result<Reply, McpError> {
    let request = HttpRequest {
        method,
        url,
        headers,
        body,
    };
    let response = fetch(&request, None).await.map_err(mcp_error)?;
    Ok(Reply { response })
}

pub struct Reply {
    response: HttpResponse,
}

impl Reply {
    pub fn status(&self) -> u16 {
        self.response.status
    }

    pub fn ok(&self) -> bool {
        (200..300).contains(&self.response.status)
    }

    /// A response header, when the page may read it (CORS hides headers not exposed).
    pub fn header(&self, name: &str) -> Option<String> {
        self.response.header(name)
    }

    pub fn content_type(&self) -> String {
        self.header("content-type")
            .unwrap_or_default()
            .to_ascii_lowercase()
    }

    pub async fn text(mut self) -> Result<String, McpError> {
        self.response.text().await.map_err(mcp_error)
    }

    /// The body as a stream of SSE events.
    pub fn into_events(self) -> SseReader {
        SseReader {
            response: self.response,
            decoder: SseDecoder::new(MAX_SSE_EVENT_BYTES),
            ready: Vec::new(),
            finished: false,
        }
    }
}

/// Reads SSE events from a response body, one at a time.
pub struct SseReader {
    response: HttpResponse,
    decoder: SseDecoder,
    /// Decoded events not handed out yet, in reverse order (popped from the end).
    ready: Vec<SseEvent>,
    finished: bool,
}

impl SseReader {
    /// The next event; `None` once the stream ended. A broken stream counts as ended, without
    /// the event it was cut in: the caller decides whether to resume it, from the last whole
    /// event.
    pub async fn next_event(&mut self) -> Result<Option<SseEvent>, McpError> {
        loop {
            if let Some(event) = self.ready.pop() {
                return Ok(Some(event));
            }
            if self.finished {
                return Ok(None);
            }
            let mut events = Vec::new();
            match self.response.next_chunk().await {
                Ok(Some(bytes)) => self.decoder.push(&bytes, &mut events),
                Ok(None) => {
                    self.finished = true;
                    self.decoder.finish(&mut events)
                }
                Err(_) => {
                    self.finished = true;
                    self.decoder.discard_unfinished_event();
                    Ok(())
                }
            }
            .map_err(|error| McpError::InvalidMessage(error.to_string()))?;
            events.reverse();
            self.ready = events;
        }
    }

    pub fn last_event_id(&self) -> Option<&str> {
        self.decoder.last_event_id()
    }

    pub fn retry_ms(&self) -> Option<u64> {
        self.decoder.retry()
    }
}
