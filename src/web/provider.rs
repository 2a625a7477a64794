//! Provider calls over browser `fetch`: send a request the core built, retry as the core decides,
//! and decode the streamed body into model events as it arrives.
//!
//! Fetching, the abort guard and body reading are [`super::http`]'s; this module adds the retry
//! loop (timers through the global `setTimeout`, so it runs in Workers too), the watsonx token
//! exchange, the stream decoder, and the JS surface (`listProviders`, provider errors as JS
//! `Error`s with a `code`).

use std::collections::VecDeque;
use std::future::Future;
use std::pin::pin;

use futures::future::{select, Either};

use wasm_bindgen::prelude::*;
use web_sys::AbortSignal;

use super::error::{js_error, set_property};
use super::http::{fetch, HttpError, HttpRequest as FetchRequest, HttpResponse};
use super::json::{object_of, strings_to_js};
use super::timer::{sleep, sleep_unless_aborted, Sleep};
use crate::core::message::ChatMessage;
use crate::core::model_event::{queue_merging_pieces, ModelEvent};
use crate::core::provider::{
    HttpRequest, ProviderError, ProviderTools, ResolvedProvider, ResponseMode, RetryDecision,
    RetryPolicy, PROVIDERS,
};
use crate::core::stream::ModelStreamDecoder;

#[wasm_bindgen(typescript_custom_section)]
const PROVIDER_INFO_TS: &str = r#"
/** One supported LLM provider, as `listProviders()` describes it. */
export interface ProviderInfo {
  id: ProviderId;
  displayName: string;
  wire: "openAiChat" | "openAiResponses" | "anthropicMessages" | "gemini" | "ollamaNdjson";
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
    let listings = js_sys::Array::new();
    for spec in PROVIDERS {
        let listing = spec.listing();
        let text_or_null = |text: Option<&str>| text.map_or(JsValue::NULL, JsValue::from_str);
        listings.push(&object_of(&[
            ("id", JsValue::from_str(listing.id)),
            ("displayName", JsValue::from_str(listing.display_name)),
            ("wire", JsValue::from_str(listing.wire)),
            ("defaultBaseUrl", text_or_null(listing.default_base_url)),
            ("defaultModel", text_or_null(listing.default_model)),
            ("suggestedModels", strings_to_js(listing.suggested_models)),
            (
                "requiresApiKey",
                JsValue::from_bool(listing.requires_api_key),
            ),
            (
                "requiresBaseUrl",
                JsValue::from_bool(listing.requires_base_url),
            ),
            ("requiresModel", JsValue::from_bool(listing.requires_model)),
        ]));
    }
    Ok(listings.into())
}

/// A provider error as JS sees it: an `Error` with a stable `code`, plus `status` and `body`
/// when an HTTP answer caused it (the body is already free of the key).
impl From<ProviderError> for JsValue {
    fn from(error: ProviderError) -> JsValue {
        let js = js_error(error.code(), &error.to_string());
        if let Some(status) = error.status() {
            set_property(&js, "status", &JsValue::from(status));
        }
        if let Some(body) = error.body() {
            set_property(&js, "body", &JsValue::from_str(body));
        }
        js.into()
    }
}

fn from_http(provider: &ResolvedProvider, error: HttpError) -> ProviderError {
    let name = provider.spec.id.to_owned();
    match error {
        HttpError::Aborted => ProviderError::Aborted { provider: name },
        other => ProviderError::Network {
            provider: name,
            message: provider.redact(&other.to_string()),
        },
    }
}

/// A successful answer whose body is still to be read. Dropping it cancels the read and the
/// fetch.
pub struct ProviderResponse {
    pub status: u16,
    provider: ResolvedProvider,
    response: HttpResponse,
    /// The timer that bounded the wait for this answer: a stream keeps it for its first piece
    /// rather than setting another (see [`ModelEventStream::idle_timer`]).
    idle_timer: Option<Sleep>,
    /// How many of the policy's retries it took to get this answer.
    retries_done: u32,
}

impl ProviderResponse {
    /// The next piece of the body as it arrived, `None` at its end. An abort ends the read at
    /// once ([`ProviderError::Aborted`]); a connection lost mid-body is
    /// [`ProviderError::Network`], never retried: the stream had started.
    pub async fn next_chunk(&mut self) -> Result<Option<Vec<u8>>, ProviderError> {
        self.response
            .next_chunk()
            .await
            .map_err(|error| from_http(&self.provider, error))
    }
}

/// How long a call waits for the provider: for an answer to start, for each piece of a stream,
/// for a whole answer. `None`: as long as it takes (until aborted).
#[derive(Clone, Copy)]
pub struct IdleLimit(pub Option<u64>);

impl IdleLimit {
    /// `work`'s outcome, or [`ProviderError::IdleTimeout`] once it has waited past the limit
    /// (dropping `work` then cancels its fetch). The timer is set in `timer`, and left there for
    /// the caller to keep using.
    async fn bound<T>(
        self,
        provider: &ResolvedProvider,
        timer: &mut Option<Sleep>,
        work: impl Future<Output = Result<T, ProviderError>>,
    ) -> Result<T, ProviderError> {
        let Some(idle_ms) = self.0 else {
            return work.await;
        };
        let timer = timer.get_or_insert_with(|| sleep(idle_ms));
        match select(pin!(work), timer).await {
            Either::Left((outcome, _)) => outcome,
            Either::Right(_) => Err(ProviderError::IdleTimeout {
                provider: provider.spec.id.to_owned(),
                idle_ms,
            }),
        }
    }

    /// A whole body within the limit; one function for every such read, so that the bound is
    /// compiled once for them.
    async fn read_text(
        self,
        provider: &ResolvedProvider,
        response: &mut HttpResponse,
    ) -> Result<Result<String, HttpError>, ProviderError> {
        self.bound(provider, &mut None, async { Ok(response.text().await) })
            .await
    }
}

/// Sends `request`, retrying 429, 5xx and network failures before any byte as `policy` and the
/// core's rules say (honouring `Retry-After`), until an answer succeeds or the call fails.
/// Aborting `signal` ends the call at once, during a fetch or a wait; each attempt waits for its
/// answer to start at most `idle`.
pub async fn send(
    provider: &ResolvedProvider,
    request: &HttpRequest,
    policy: &RetryPolicy,
    signal: Option<&AbortSignal>,
    idle: IdleLimit,
) -> Result<ProviderResponse, ProviderError> {
    let fetch_request = FetchRequest {
        method: request.method,
        url: &request.url,
        headers: &request.headers,
        body: Some(&request.body),
    };
    let mut retries_done = 0;
    loop {
        let attempt = async { Ok(fetch(&fetch_request, signal).await) };
        let mut idle_timer = None;
        let decision = match idle.bound(provider, &mut idle_timer, attempt).await? {
            Err(HttpError::Aborted) => return Err(from_http(provider, HttpError::Aborted)),
            Err(error) => provider.after_network_failure(
                policy,
                retries_done,
                &error.to_string(),
                js_sys::Math::random(),
            ),
            Ok(response) if (200..300).contains(&response.status) => {
                return Ok(ProviderResponse {
                    status: response.status,
                    provider: provider.clone(),
                    response,
                    idle_timer,
                    retries_done,
                });
            }
            Ok(mut response) => {
                // Retry-After is readable cross-origin only when the server exposes it.
                let mut headers: Vec<(String, String)> = Vec::new();
                for name in ["retry-after", "retry-after-ms"] {
                    if let Some(value) = response.header(name) {
                        headers.push((name.to_owned(), value));
                    }
                }
                let body = match idle.read_text(provider, &mut response).await? {
                    Ok(body) => body,
                    Err(HttpError::Aborted) => return Err(from_http(provider, HttpError::Aborted)),
                    Err(_) => String::new(),
                };
                provider.after_http_failure(
                    policy,
                    retries_done,
                    response.status,
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
                if !sleep_unless_aborted(delay_ms, signal).await {
                    return Err(from_http(provider, HttpError::Aborted));
                }
                retries_done += 1;
            }
        }
    }
}

/// For watsonx: exchanges the API key at IAM and returns the settings carrying the token (IAM
/// tokens last an hour: authorize once per run and reuse the result). Settings that already carry
/// a token, and other providers, come back unchanged.
pub async fn authorize(
    provider: &ResolvedProvider,
    policy: &RetryPolicy,
    signal: Option<&AbortSignal>,
    idle: IdleLimit,
) -> Result<ResolvedProvider, ProviderError> {
    let exchange = match provider.token_request() {
        Some(exchange) if provider.access_token.is_none() => exchange,
        _ => return Ok(provider.clone()),
    };
    let body = whole_answer(provider, &exchange, policy, signal, idle).await?;
    let token = provider.parse_token_response(&body)?;
    Ok(provider.clone().with_access_token(token.access_token))
}

/// A streamed model response, decoded into model events as its bytes arrive.
pub struct ModelEventStream {
    response: ProviderResponse,
    decoder: ModelStreamDecoder,
    /// Events decoded and not handed out yet; the pieces of text one read carried are merged.
    ready: VecDeque<ModelEvent>,
    /// A decoding failure, reported once the events decoded before it are delivered.
    failure: Option<ProviderError>,
    finished: bool,
    /// Longest wait for the next piece of the body; no limit when `None`.
    idle_timeout_ms: Option<u64>,
    /// The idle timer, kept across pieces and re-armed only when it fires while a wait is shorter
    /// than the limit: a `setTimeout` and `clearTimeout` per piece of body cost more than decoding
    /// the piece. The first is the one that bounded the wait for the answer to start.
    idle_timer: Option<Sleep>,
    /// The events one piece of body decodes to, before they are queued; kept for its capacity.
    decoded: Vec<ModelEvent>,
}

impl ModelEventStream {
    /// How many of the call's retries were spent before this stream started.
    pub fn retries_done(&self) -> u32 {
        self.response.retries_done
    }

    fn new(mut response: ProviderResponse, idle: IdleLimit) -> Self {
        let (wire, options) = response.provider.decoder_options();
        let idle_timer = response.idle_timer.take();
        ModelEventStream {
            response,
            decoder: ModelStreamDecoder::new(wire, options),
            ready: VecDeque::new(),
            failure: None,
            finished: false,
            idle_timeout_ms: idle.0,
            idle_timer,
            decoded: Vec::new(),
        }
    }

    /// The next piece of the body, failing once a wait for it lasts `idle_timeout_ms`.
    async fn next_chunk_in_time(&mut self) -> Result<Option<Vec<u8>>, ProviderError> {
        let Some(idle_ms) = self.idle_timeout_ms else {
            return self.response.next_chunk().await;
        };
        let wait_started = js_sys::Date::now();
        let provider = self.response.provider.spec.id;
        let chunk = self.response.next_chunk();
        futures::pin_mut!(chunk);
        loop {
            let timer = self.idle_timer.get_or_insert_with(|| sleep(idle_ms));
            match select(chunk.as_mut(), timer).await {
                Either::Left((chunk, _)) => return chunk,
                Either::Right(_) => {
                    // The timer was armed during an earlier wait: only this wait's length counts.
                    let waited_ms = (js_sys::Date::now() - wait_started).max(0.0) as u64;
                    if waited_ms >= idle_ms {
                        self.idle_timer = None;
                        return Err(ProviderError::IdleTimeout {
                            provider: provider.to_owned(),
                            idle_ms,
                        });
                    }
                    self.idle_timer = Some(sleep(idle_ms - waited_ms));
                }
            }
        }
    }

    /// The next event, `None` once the body has ended and everything it held was delivered.
    pub async fn next_event(&mut self) -> Result<Option<ModelEvent>, ProviderError> {
        loop {
            if let Some(event) = self.ready.pop_front() {
                return Ok(Some(event));
            }
            if let Some(failure) = self.failure.take() {
                return Err(failure);
            }
            if self.finished {
                return Ok(None);
            }
            let decoded = match self.next_chunk_in_time().await? {
                Some(chunk) => self.decoder.push(&chunk, &mut self.decoded),
                None => {
                    self.finished = true;
                    self.decoder
                        .finish(&mut self.decoded)
                        .and_then(|()| self.decoder.check_had_events())
                }
            };
            let provider = &self.response.provider;
            for mut event in self.decoded.drain(..) {
                // An error the provider reports inside its stream may quote the key.
                if let ModelEvent::Error(error) = &mut event {
                    error.message = provider.redact(&error.message);
                }
                queue_merging_pieces(&mut self.ready, event);
            }
            if let Err(error) = decoded {
                self.finished = true;
                self.failure = Some(ProviderError::InvalidResponse {
                    provider: provider.spec.id.to_owned(),
                    message: provider.redact(&error.to_string()),
                });
            }
        }
    }
}

/// One streamed model call: the watsonx token exchange if needed, the request, retries, and the
/// decoder. Returns the event stream and the schema sanitizer's warnings about the tools.
pub async fn stream_model_call(
    provider: &ResolvedProvider,
    messages: &[ChatMessage],
    tools: &ProviderTools,
    policy: &RetryPolicy,
    signal: Option<&AbortSignal>,
    idle: IdleLimit,
) -> Result<(ModelEventStream, Vec<String>), ProviderError> {
    let provider = authorize(provider, policy, signal, idle).await?;
    let built = provider.chat_request_with(messages, tools, ResponseMode::Streaming)?;
    let response = send(&provider, &built.request, policy, signal, idle).await?;
    Ok((ModelEventStream::new(response, idle), built.warnings))
}

/// One non-streaming model call, its whole answer as model events (for re-requests that need
/// whole tool calls, and models that cannot stream with tools).
pub async fn whole_model_call(
    provider: &ResolvedProvider,
    messages: &[ChatMessage],
    tools: &ProviderTools,
    policy: &RetryPolicy,
    signal: Option<&AbortSignal>,
    idle: IdleLimit,
) -> Result<(Vec<ModelEvent>, Vec<String>), ProviderError> {
    let provider = authorize(provider, policy, signal, idle).await?;
    let built = provider.chat_request_with(messages, tools, ResponseMode::Whole)?;
    let body = whole_answer(&provider, &built.request, policy, signal, idle).await?;
    Ok((provider.parse_whole_response(&body)?, built.warnings))
}

/// A successful answer's whole body, read within the idle limit.
async fn whole_answer(
    provider: &ResolvedProvider,
    request: &HttpRequest,
    policy: &RetryPolicy,
    signal: Option<&AbortSignal>,
    idle: IdleLimit,
) -> Result<String, ProviderError> {
    let mut answer = send(provider, request, policy, signal, idle).await?;
    // The whole body gets a wait of its own.
    answer.idle_timer = None;
    idle.read_text(provider, &mut answer.response)
        .await?
        .map_err(|error| from_http(provider, error))
}
