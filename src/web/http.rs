//! `fetch` with a streamed body and cancellation: the one path every provider and MCP request takes.
//!
//! `fetch` is bound as a global (as gloo-net does), so the same code runs in pages, Web Workers
//! and Node. Each request owns an `AbortController`; the caller's `AbortSignal` is forwarded to
//! it, and dropping the [`HttpResponse`] aborts the request, so a body that is no longer read
//! never keeps a connection open (reqwest's wasm guard does the same).

use js_sys::{Object, Promise, Reflect, Uint8Array};
use thiserror::Error;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use wasm_bindgen_futures::JsFuture;
use web_sys::{
    AbortController, AbortSignal, Headers, ReadableStreamDefaultReader, ReadableStreamReadResult,
    RequestInit, RequestRedirect, Response,
};

use super::error::{js_error_message, js_error_name};
use super::JsCallback;

#[wasm_bindgen]
extern "C" {
    #[wasm_bindgen(js_name = fetch)]
    fn global_fetch(input: &str, init: &RequestInit) -> Promise;
}

/// Why an HTTP exchange failed before a status could be judged.
#[derive(Debug, Error, Clone, PartialEq)]
pub enum HttpError {
    #[error("request aborted")]
    Aborted,
    /// `fetch` rejected: the server is unreachable, CORS refused the response, or it redirected.
    #[error("network error (server unreachable, CORS refused, or a redirect, which is not followed): {0}")]
    Network(String),
    #[error("error while reading the response body: {0}")]
    Body(String),
}

impl HttpError {
    pub fn code(&self) -> &'static str {
        match self {
            HttpError::Aborted => "aborted",
            HttpError::Network(_) => "network",
            HttpError::Body(_) => "body_read",
        }
    }
}

/// What to send.
#[derive(Debug, Clone, Default)]
pub struct HttpRequest<'a> {
    pub method: &'a str,
    pub url: &'a str,
    pub headers: &'a [(String, String)],
    pub body: Option<&'a str>,
}

/// Keeps the request's own controller and the listener that forwards the caller's abort, when
/// there is a caller's signal (a model call has none: dropping its future is its cancellation).
struct AbortGuard {
    controller: AbortController,
    caller_forward: Option<(AbortSignal, JsCallback)>,
    /// Set once the body was read to its end: nothing is left to cancel then, and `abort()` would
    /// only build a `DOMException` (about a tenth of a small stream's cost in Node).
    body_ended: bool,
}

impl AbortGuard {
    fn new(caller_signal: Option<&AbortSignal>) -> Result<Self, HttpError> {
        if caller_signal.is_some_and(AbortSignal::aborted) {
            return Err(HttpError::Aborted);
        }
        let controller =
            AbortController::new().map_err(|error| HttpError::Network(js_error_message(&error)))?;
        let caller_forward = match caller_signal {
            Some(signal) => {
                let own = controller.clone();
                let forward = JsCallback::new(move |_| {
                    own.abort();
                    Ok(JsValue::UNDEFINED)
                });
                signal
                    .add_event_listener_with_callback("abort", forward.as_ref().unchecked_ref())
                    .map_err(|error| HttpError::Network(js_error_message(&error)))?;
                Some((signal.clone(), forward))
            }
            None => None,
        };
        Ok(AbortGuard {
            controller,
            caller_forward,
            body_ended: false,
        })
    }

    fn aborted(&self) -> bool {
        self.controller.signal().aborted()
    }
}

impl Drop for AbortGuard {
    fn drop(&mut self) {
        if let Some((signal, forward)) = &self.caller_forward {
            let _ = signal
                .remove_event_listener_with_callback("abort", forward.as_ref().unchecked_ref());
        }
        if !self.body_ended {
            self.controller.abort();
        }
    }
}

/// A response whose body has not been read yet.
pub struct HttpResponse {
    pub status: u16,
    pub headers: Headers,
    body: Body,
    guard: AbortGuard,
}

/// How far the body has been read: its reader is taken only when it is read piece by piece, so
/// that a whole-body read ([`HttpResponse::text`]) is one call into the runtime.
enum Body {
    Unread(Response),
    Streaming(ReadableStreamDefaultReader),
    Ended,
}

/// Sends `request`; resolves once the status and headers have arrived.
pub async fn fetch(
    request: &HttpRequest<'_>,
    signal: Option<&AbortSignal>,
) -> Result<HttpResponse, HttpError> {
    let guard = AbortGuard::new(signal)?;
    // A plain record rather than a `Headers`: `fetch` builds its own from either, and the names
    // are already unique ignoring case (`header_list`). An invalid name or value rejects `fetch`.
    let headers = Object::new();
    for (name, value) in request.headers {
        Reflect::set(&headers, &name.into(), &value.into())
            .map_err(|error| HttpError::Network(js_error_message(&error)))?;
    }
    let init = RequestInit::new();
    init.set_method(request.method);
    init.set_headers(&headers);
    init.set_signal(Some(&guard.controller.signal()));
    // A redirect is refused, not followed: the URL policy judged only the first URL, and
    // `fetch` would carry the body and the custom headers (API keys among them) to wherever the
    // server points.
    init.set_redirect(RequestRedirect::Error);
    if let Some(body) = request.body {
        init.set_body(&JsValue::from_str(body));
    }
    let response = JsFuture::from(global_fetch(request.url, &init))
        .await
        .map_err(|error| classify_rejection(&error, guard.aborted(), HttpError::Network))?;
    let response: Response = response.unchecked_into();
    Ok(HttpResponse {
        status: response.status(),
        headers: response.headers(),
        body: Body::Unread(response),
        guard,
    })
}

fn classify_rejection(
    error: &JsValue,
    aborted: bool,
    otherwise: fn(String) -> HttpError,
) -> HttpError {
    if aborted || js_error_name(error).as_deref() == Some("AbortError") {
        HttpError::Aborted
    } else {
        otherwise(js_error_message(error))
    }
}

impl HttpResponse {
    /// A response header, case-insensitively.
    pub fn header(&self, name: &str) -> Option<String> {
        self.headers.get(name).ok().flatten()
    }

    /// The next piece of the body as it arrived from the network; `None` at its end.
    pub async fn next_chunk(&mut self) -> Result<Option<Vec<u8>>, HttpError> {
        if let Body::Unread(response) = &self.body {
            self.body = match response.body() {
                Some(stream) => Body::Streaming(stream.get_reader().unchecked_into()),
                None => Body::Ended,
            };
        }
        let Body::Streaming(reader) = &self.body else {
            return Ok(None);
        };
        let result: ReadableStreamReadResult = JsFuture::from(reader.read())
            .await
            .map_err(|error| classify_rejection(&error, self.guard.aborted(), HttpError::Body))?
            .unchecked_into();
        if result.get_done().unwrap_or(true) {
            self.body = Body::Ended;
            self.guard.body_ended = true;
            return Ok(None);
        }
        Ok(Some(
            result.get_value().unchecked_into::<Uint8Array>().to_vec(),
        ))
    }

    /// The whole body as text (invalid UTF-8 replaced), for JSON replies and error bodies.
    pub async fn text(&mut self) -> Result<String, HttpError> {
        if let Body::Unread(response) = &self.body {
            let read = response
                .text()
                .map_err(|error| HttpError::Body(js_error_message(&error)))?;
            let text = JsFuture::from(read).await.map_err(|error| {
                classify_rejection(&error, self.guard.aborted(), HttpError::Body)
            })?;
            self.body = Body::Ended;
            self.guard.body_ended = true;
            return Ok(text.as_string().unwrap_or_default());
        }
        let mut bytes = Vec::new();
        while let Some(chunk) = self.next_chunk().await? {
            bytes.extend_from_slice(&chunk);
        }
        Ok(String::from_utf8_lossy(&bytes).into_owned())
    }
}
