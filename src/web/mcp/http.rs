//! The fetch primitives the MCP client needs: one request, its status and headers, its body as
//! text or as SSE events, timers and abort signals. `fetch` and `setTimeout` are bound as globals
//! (not through `Window`) so that the same code runs in pages, workers and Node.

use js_sys::{Promise, Uint8Array};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use wasm_bindgen_futures::JsFuture;
use web_sys::{
    AbortController, AbortSignal, Headers, ReadableStreamDefaultReader, ReadableStreamReadResult,
    Request, RequestInit, RequestMode, Response,
};

use crate::core::mcp::McpError;
use crate::core::sse::{SseDecoder, SseEvent};

/// An event larger than this (a huge base64 image, a runaway stream) ends the stream.
const MAX_SSE_EVENT_BYTES: usize = 32 * 1024 * 1024;

#[wasm_bindgen]
extern "C" {
    #[wasm_bindgen(js_name = fetch)]
    fn fetch_request(request: &Request) -> Promise;

    #[wasm_bindgen(js_name = setTimeout)]
    fn set_timeout(handler: &js_sys::Function, milliseconds: f64) -> JsValue;
}

pub fn now_ms() -> f64 {
    js_sys::Date::now()
}

pub async fn sleep(milliseconds: u64) {
    let promise = Promise::new(&mut |resolve, _reject| {
        set_timeout(&resolve, milliseconds as f64);
    });
    let _ = JsFuture::from(promise).await;
}

/// Resolves once `signal` is aborted (at once if it already is).
pub async fn aborted(signal: &AbortSignal) {
    if signal.aborted() {
        return;
    }
    let promise = Promise::new(&mut |resolve, _reject| {
        // `addEventListener` rather than `onabort`, which would replace the caller's handler.
        let add_listener = js_sys::Reflect::get(signal, &"addEventListener".into())
            .ok()
            .and_then(|function| function.dyn_into::<js_sys::Function>().ok());
        if let Some(add_listener) = add_listener {
            let _ = add_listener.call2(signal, &"abort".into(), &resolve);
        }
    });
    let _ = JsFuture::from(promise).await;
}

/// Aborts its fetch when dropped, so that a response body nobody reads any more is closed
/// (a cancelled call, a finished exchange, a closed legacy stream).
struct FetchGuard {
    controller: AbortController,
}

impl Drop for FetchGuard {
    fn drop(&mut self) {
        self.controller.abort();
    }
}

fn js_message(error: &JsValue) -> String {
    error
        .dyn_ref::<js_sys::Error>()
        .map(|error| String::from(error.message()))
        .or_else(|| error.as_string())
        .unwrap_or_else(|| "fetch failed".to_owned())
}

/// One fetch: `headers` are the server's configured headers followed by the protocol's own.
pub async fn send(
    method: &str,
    url: &str,
    headers: &[(String, String)],
    body: Option<&str>,
) -> Result<HttpResponse, McpError> {
    let network = |error: JsValue| McpError::Network(js_message(&error));
    let controller = AbortController::new().map_err(network)?;
    let guard = FetchGuard { controller };
    let header_map = Headers::new().map_err(network)?;
    for (name, value) in headers {
        header_map.set(name, value).map_err(network)?;
    }
    let init = RequestInit::new();
    init.set_method(method);
    init.set_mode(RequestMode::Cors);
    init.set_headers(&header_map);
    init.set_signal(Some(&guard.controller.signal()));
    if let Some(body) = body {
        init.set_body(&JsValue::from_str(body));
    }
    let request = Request::new_with_str_and_init(url, &init).map_err(network)?;
    let response = JsFuture::from(fetch_request(&request))
        .await
        .map_err(network)?;
    let response: Response = response
        .dyn_into()
        .map_err(|_| McpError::Network("fetch did not return a Response".to_owned()))?;
    Ok(HttpResponse { response, guard })
}

pub struct HttpResponse {
    response: Response,
    guard: FetchGuard,
}

impl HttpResponse {
    pub fn status(&self) -> u16 {
        self.response.status()
    }

    pub fn ok(&self) -> bool {
        self.response.ok()
    }

    /// A response header, when the page may read it (CORS hides headers not exposed).
    pub fn header(&self, name: &str) -> Option<String> {
        self.response.headers().get(name).ok().flatten()
    }

    pub fn content_type(&self) -> String {
        self.header("content-type")
            .unwrap_or_default()
            .to_ascii_lowercase()
    }

    pub async fn text(self) -> Result<String, McpError> {
        let promise = self
            .response
            .text()
            .map_err(|error| McpError::Network(js_message(&error)))?;
        let text = JsFuture::from(promise)
            .await
            .map_err(|error| McpError::Network(js_message(&error)))?;
        Ok(text.as_string().unwrap_or_default())
    }

    /// The body as a stream of SSE events.
    pub fn into_events(self) -> Result<SseReader, McpError> {
        let body = self
            .response
            .body()
            .ok_or_else(|| McpError::StreamEnded("the event stream has no body".to_owned()))?;
        let reader = ReadableStreamDefaultReader::new(&body)
            .map_err(|error| McpError::Network(js_message(&error)))?;
        Ok(SseReader {
            reader,
            decoder: SseDecoder::new(MAX_SSE_EVENT_BYTES),
            ready: Vec::new(),
            finished: false,
            _guard: self.guard,
        })
    }
}

/// Reads SSE events from a response body, one at a time.
pub struct SseReader {
    reader: ReadableStreamDefaultReader,
    decoder: SseDecoder,
    /// Decoded events not handed out yet, in reverse order (popped from the end).
    ready: Vec<SseEvent>,
    finished: bool,
    _guard: FetchGuard,
}

impl SseReader {
    /// The next event; `None` once the stream ended (closed by the server or broken).
    pub async fn next_event(&mut self) -> Result<Option<SseEvent>, McpError> {
        loop {
            if let Some(event) = self.ready.pop() {
                return Ok(Some(event));
            }
            if self.finished {
                return Ok(None);
            }
            let mut events = Vec::new();
            match self.read_chunk().await {
                Some(bytes) => self.decoder.push(&bytes, &mut events),
                None => {
                    self.finished = true;
                    self.decoder.finish(&mut events)
                }
            }
            .map_err(|error| McpError::InvalidMessage(error.to_string()))?;
            events.reverse();
            self.ready = events;
        }
    }

    /// A broken stream counts as ended: the caller decides whether to resume it.
    async fn read_chunk(&self) -> Option<Vec<u8>> {
        let result = JsFuture::from(self.reader.read()).await.ok()?;
        let result: ReadableStreamReadResult = result.unchecked_into();
        if result.get_done().unwrap_or(true) {
            return None;
        }
        Some(Uint8Array::new(&result.get_value()).to_vec())
    }

    pub fn last_event_id(&self) -> Option<&str> {
        self.decoder.last_event_id()
    }

    pub fn retry_ms(&self) -> Option<u64> {
        self.decoder.retry()
    }
}
