//! Provider calls over browser `fetch`: send a request built by the core, retry as the core
//! decides, and hand the body out as byte chunks as they arrive.
//!
//! `fetch`, `setTimeout` and `clearTimeout` are bound as globals rather than through `Window`, so
//! this runs in Workers too. Each call owns an `AbortController` (the guard): a caller's
//! `AbortSignal` aborts it, and dropping the call's body stream aborts it as well, which cancels
//! the fetch and the body read at once.

use js_sys::{Function, Promise, Uint8Array};
use serde::Serialize;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use wasm_bindgen_futures::JsFuture;
use web_sys::{
    AbortController, AbortSignal, Headers, ReadableStreamDefaultReader, ReadableStreamReadResult,
    Request, RequestInit, Response,
};

use crate::core::provider::{
    HttpRequest, ProviderError, ResolvedProvider, RetryDecision, RetryPolicy, PROVIDERS,
};

#[wasm_bindgen]
extern "C" {
    #[wasm_bindgen(js_name = fetch)]
    fn global_fetch(request: &Request) -> Promise;

    #[wasm_bindgen(js_name = setTimeout)]
    fn set_timeout(handler: &Function, milliseconds: i32) -> JsValue;
}

#[wasm_bindgen(typescript_custom_section)]
const PROVIDER_INFO_TS: &str = r#"
/** One supported LLM provider, as `listProviders()` describes it. */
export interface ProviderInfo {
  id: string;
  displayName: string;
  wire: "openAiChat" | "anthropicMessages" | "gemini" | "ollamaChat";
  defaultBaseUrl: string | null;
  defaultModel: string | null;
  suggestedModels: string[];
  requiresApiKey: boolean;
  requiresBaseUrl: boolean;
  requiresModel: boolean;
}
"#;

/// Every supported provider with its defaults, for a provider picker.
#[wasm_bindgen(js_name = listProviders, unchecked_return_type = "ProviderInfo[]")]
pub fn list_providers() -> Result<JsValue, JsValue> {
    let listings: Vec<_> = PROVIDERS.iter().map(|spec| spec.listing()).collect();
    listings
        .serialize(&serde_wasm_bindgen::Serializer::json_compatible())
        .map_err(|error| JsValue::from(js_sys::Error::new(&error.to_string())))
}

/// The JS face of a provider error: an `Error` with a stable `code`, and `status`/`body` when an
/// HTTP answer caused it.
impl From<ProviderError> for JsValue {
    fn from(error: ProviderError) -> JsValue {
        let js_error = js_sys::Error::new(&error.to_string());
        let set = |name: &str, value: JsValue| {
            let _ = js_sys::Reflect::set(&js_error, &JsValue::from_str(name), &value);
        };
        set("code", JsValue::from_str(error.code()));
        if let Some(status) = error.status() {
            set("status", JsValue::from(status));
        }
        if let Some(body) = error.body() {
            set("body", JsValue::from_str(body));
        }
        js_error.into()
    }
}

/// The abort guard of one call: aborted by the caller's signal, and on drop.
struct CallGuard {
    controller: AbortController,
    caller: Option<(AbortSignal, Closure<dyn FnMut()>)>,
}

impl CallGuard {
    fn new(
        provider: &ResolvedProvider,
        caller: Option<&AbortSignal>,
    ) -> Result<Self, ProviderError> {
        let controller = AbortController::new().map_err(|error| network(provider, &error))?;
        let caller = match caller {
            Some(signal) => {
                if signal.aborted() {
                    controller.abort();
                }
                let inner = controller.clone();
                let on_abort = Closure::<dyn FnMut()>::new(move || inner.abort());
                signal
                    .add_event_listener_with_callback("abort", on_abort.as_ref().unchecked_ref())
                    .map_err(|error| network(provider, &error))?;
                Some((signal.clone(), on_abort))
            }
            None => None,
        };
        Ok(CallGuard { controller, caller })
    }

    fn signal(&self) -> AbortSignal {
        self.controller.signal()
    }

    fn aborted(&self) -> bool {
        self.controller.signal().aborted()
    }
}

impl Drop for CallGuard {
    fn drop(&mut self) {
        if let Some((signal, on_abort)) = &self.caller {
            let _ = signal
                .remove_event_listener_with_callback("abort", on_abort.as_ref().unchecked_ref());
        }
        self.controller.abort();
    }
}

fn js_message(value: &JsValue) -> String {
    value
        .dyn_ref::<js_sys::Error>()
        .map(|error| String::from(error.message()))
        .or_else(|| value.as_string())
        .unwrap_or_else(|| format!("{value:?}"))
}

fn network(provider: &ResolvedProvider, value: &JsValue) -> ProviderError {
    ProviderError::Network {
        provider: provider.spec.id.to_owned(),
        message: provider.redact(&js_message(value)),
    }
}

fn aborted(provider: &ResolvedProvider) -> ProviderError {
    ProviderError::Aborted {
        provider: provider.spec.id.to_owned(),
    }
}

/// Waits `milliseconds`, or less if `signal` aborts (then `false`).
async fn sleep(milliseconds: u64, signal: &AbortSignal) -> bool {
    if signal.aborted() {
        return false;
    }
    let delay = i32::try_from(milliseconds).unwrap_or(i32::MAX);
    let wait = Promise::new(&mut |resolve, reject| {
        set_timeout(&resolve, delay);
        let _ = signal.add_event_listener_with_callback("abort", &reject);
    });
    JsFuture::from(wait).await.is_ok()
}

fn build_request(
    provider: &ResolvedProvider,
    request: &HttpRequest,
    signal: &AbortSignal,
) -> Result<Request, ProviderError> {
    let headers = Headers::new().map_err(|error| network(provider, &error))?;
    for (name, value) in &request.headers {
        headers
            .set(name, value)
            .map_err(|error| network(provider, &error))?;
    }
    let init = RequestInit::new();
    init.set_method(request.method);
    init.set_headers(&headers);
    init.set_body(&JsValue::from_str(&request.body));
    init.set_signal(Some(signal));
    Request::new_with_str_and_init(&request.url, &init).map_err(|error| network(provider, &error))
}

fn response_headers(response: &Response) -> Vec<(String, String)> {
    let Ok(Some(entries)) = js_sys::try_iter(&response.headers()) else {
        return Vec::new();
    };
    entries
        .flatten()
        .filter_map(|entry| {
            let pair: js_sys::Array = entry.dyn_into().ok()?;
            Some((pair.get(0).as_string()?, pair.get(1).as_string()?))
        })
        .collect()
}

/// A successful answer whose body has not been read yet.
pub struct ProviderResponse {
    pub status: u16,
    pub headers: Vec<(String, String)>,
    body: BodyReader,
}

impl ProviderResponse {
    /// The body as it arrives, chunk by chunk.
    pub fn into_body(self) -> BodyReader {
        self.body
    }

    /// The whole body as text (for non-streaming calls).
    pub async fn text(self) -> Result<String, ProviderError> {
        let mut reader = self.body;
        let mut bytes = Vec::new();
        while let Some(chunk) = reader.next_chunk().await? {
            bytes.extend_from_slice(&chunk);
        }
        Ok(String::from_utf8_lossy(&bytes).into_owned())
    }
}

/// Reads a response body as byte chunks. Dropping it cancels the read and the fetch.
pub struct BodyReader {
    provider: ResolvedProvider,
    reader: Option<ReadableStreamDefaultReader>,
    guard: CallGuard,
}

impl BodyReader {
    /// The next chunk, `None` at the end. An abort ends the read at once with
    /// [`ProviderError::Aborted`]; a connection lost mid-body is [`ProviderError::Network`] (and
    /// is never retried: the stream had started).
    pub async fn next_chunk(&mut self) -> Result<Option<Vec<u8>>, ProviderError> {
        if self.guard.aborted() {
            return Err(aborted(&self.provider));
        }
        let Some(reader) = &self.reader else {
            return Ok(None);
        };
        let result = match JsFuture::from(reader.read()).await {
            Ok(result) => result,
            Err(_) if self.guard.aborted() => return Err(aborted(&self.provider)),
            Err(error) => return Err(network(&self.provider, &error)),
        };
        let result: ReadableStreamReadResult = result.unchecked_into();
        if result.get_done().unwrap_or(false) {
            self.reader = None;
            return Ok(None);
        }
        Ok(Some(Uint8Array::new(&result.get_value()).to_vec()))
    }
}

/// Sends `request`, retrying 429, 5xx and network failures before any byte as `policy` and the
/// core's rules say, until an answer succeeds or the call fails. Aborting `signal` ends it at once.
pub async fn send(
    provider: &ResolvedProvider,
    request: &HttpRequest,
    policy: &RetryPolicy,
    signal: Option<&AbortSignal>,
) -> Result<ProviderResponse, ProviderError> {
    let guard = CallGuard::new(provider, signal)?;
    let mut retries_done = 0;
    loop {
        if guard.aborted() {
            return Err(aborted(provider));
        }
        let fetch_request = build_request(provider, request, &guard.signal())?;
        let decision = match JsFuture::from(global_fetch(&fetch_request)).await {
            Err(_) if guard.aborted() => return Err(aborted(provider)),
            Err(error) => provider.after_network_failure(
                policy,
                retries_done,
                &js_message(&error),
                js_sys::Math::random(),
            ),
            Ok(response) => {
                let response: Response = response.unchecked_into();
                let status = response.status();
                let headers = response_headers(&response);
                if response.ok() {
                    let reader = response
                        .body()
                        .map(|stream| stream.get_reader().unchecked_into());
                    return Ok(ProviderResponse {
                        status,
                        headers,
                        body: BodyReader {
                            provider: provider.clone(),
                            reader,
                            guard,
                        },
                    });
                }
                let body = match response.text() {
                    Ok(promise) => JsFuture::from(promise)
                        .await
                        .ok()
                        .and_then(|text| text.as_string())
                        .unwrap_or_default(),
                    Err(_) => String::new(),
                };
                if guard.aborted() {
                    return Err(aborted(provider));
                }
                provider.after_http_failure(
                    policy,
                    retries_done,
                    status,
                    &headers,
                    &body,
                    js_sys::Date::now() as u64,
                    js_sys::Math::random(),
                )
            }
        };
        match decision {
            RetryDecision::Fail(error) => return Err(error),
            RetryDecision::Retry { delay_ms } => {
                if !sleep(delay_ms, &guard.signal()).await {
                    return Err(aborted(provider));
                }
                retries_done += 1;
            }
        }
    }
}

/// For watsonx: exchanges the API key at IAM and returns the settings carrying the token. Other
/// providers come back unchanged.
pub async fn authorize(
    provider: &ResolvedProvider,
    policy: &RetryPolicy,
    signal: Option<&AbortSignal>,
) -> Result<ResolvedProvider, ProviderError> {
    let Some(exchange) = provider.token_request() else {
        return Ok(provider.clone());
    };
    let body = send(provider, &exchange, policy, signal)
        .await?
        .text()
        .await?;
    let token = provider.parse_token_response(&body)?;
    Ok(provider.clone().with_access_token(token.access_token))
}
