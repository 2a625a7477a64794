#![cfg(target_arch = "wasm32")]
//! Provider calls through the real browser fetch path, against testing/provider-server.mjs
//! (started by the test command; its URL arrives as the compile-time `PROVIDER_SERVER_URL`). The
//! server replays fixtures from ../shared/fixtures byte for byte and records every request.

use std::cell::Cell;
use std::rc::Rc;

use js_sys::Promise;
use serde_json::{json, Value};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use wasm_bindgen_futures::JsFuture;
use wasm_bindgen_test::*;

use mcp_agent_wasm::core::assembler::ToolCallAssembler;
use mcp_agent_wasm::core::message::{
    ChatMessage, FunctionCall, MessageToolCall, Role, ThinkingBlock,
};
use mcp_agent_wasm::core::model_event::{FinishReason, ModelEvent, Usage};
use mcp_agent_wasm::core::provider::{
    HttpRequest, ProviderConfig, ProviderError, ProviderTools, ResolvedProvider, ResponseMode,
    RetryPolicy, WireFormat, PROVIDERS,
};
use mcp_agent_wasm::core::tools::ToolEntry;
use mcp_agent_wasm::web::json::from_js;
use mcp_agent_wasm::web::provider::{
    authorize, list_providers, send, stream_model_call, whole_model_call, IdleLimit,
    ProviderResponse,
};

wasm_bindgen_test_configure!(run_in_browser);

const SERVER: Option<&str> = option_env!("PROVIDER_SERVER_URL");
const KEY: &str = "sk-test-SECRET-0123456789";

#[wasm_bindgen]
extern "C" {
    #[wasm_bindgen(js_name = fetch)]
    fn fetch_url(url: &str) -> Promise;
    #[wasm_bindgen(js_name = fetch)]
    fn fetch_with_init(url: &str, init: &web_sys::RequestInit) -> Promise;
    #[wasm_bindgen(js_name = setTimeout)]
    fn set_timeout(handler: &js_sys::Function, milliseconds: i32) -> JsValue;
}

fn server() -> &'static str {
    SERVER
        .filter(|url| !url.is_empty())
        .expect("PROVIDER_SERVER_URL must name the running testing/provider-server.mjs")
}

thread_local! {
    /// Distinguishes this run's records from earlier runs against the same server.
    static RUN: String = format!("{:x}", (js_sys::Math::random() * 1e15) as u64);
}

/// A tag unique to this run, for `tag=` in the options and for [`recorded`].
fn tag(name: &str) -> String {
    RUN.with(|run| format!("{run}-{name}"))
}

/// A base URL whose path prefix carries the server options (fixture, faults, a tag that keeps
/// this test's records apart).
fn base_url(options: &str) -> String {
    format!(
        "{}/_/{}",
        server(),
        String::from(js_sys::encode_uri_component(options))
    )
}

async fn response_text(promise: Promise) -> String {
    let response: web_sys::Response = JsFuture::from(promise).await.unwrap().unchecked_into();
    let text = JsFuture::from(response.text().unwrap()).await.unwrap();
    text.as_string().unwrap()
}

/// The requests the server recorded whose URL carries `tag`.
async fn recorded(tag: &str) -> Vec<Value> {
    let text = response_text(fetch_url(&format!("{}/__requests", server()))).await;
    let all: Vec<Value> = serde_json::from_str(&text).unwrap();
    // Every options string ends with `&`, so a tag cannot match a longer tag.
    let marker = format!("tag%3D{tag}%26");
    all.into_iter()
        .filter(|record| record["url"].as_str().unwrap_or_default().contains(&marker))
        .collect()
}

/// The CORS preflights the server answered for URLs carrying `tag`.
async fn preflights(tag: &str) -> Vec<Value> {
    let text = response_text(fetch_url(&format!("{}/__preflights", server()))).await;
    let all: Vec<Value> = serde_json::from_str(&text).unwrap();
    let marker = format!("tag%3D{tag}%26");
    all.into_iter()
        .filter(|record| record["url"].as_str().unwrap_or_default().contains(&marker))
        .collect()
}

async fn framed_fixture(name: &str) -> Vec<u8> {
    let url = format!("{}/__fixture?name={}", server(), name);
    let response: web_sys::Response = JsFuture::from(fetch_url(&url))
        .await
        .unwrap()
        .unchecked_into();
    let buffer = JsFuture::from(response.array_buffer().unwrap())
        .await
        .unwrap();
    js_sys::Uint8Array::new(&buffer).to_vec()
}

async fn read_all(body: &mut ProviderResponse) -> Result<(Vec<u8>, usize), ProviderError> {
    let mut bytes = Vec::new();
    let mut chunks = 0;
    while let Some(chunk) = body.next_chunk().await? {
        bytes.extend_from_slice(&chunk);
        chunks += 1;
    }
    Ok((bytes, chunks))
}

fn fixture_for(wire: WireFormat) -> &'static str {
    match wire {
        WireFormat::OpenAiChat => "openai/parallel-tool-calls.sse",
        WireFormat::OpenAiResponses => "own/openai-responses-web-round.sse",
        WireFormat::AnthropicMessages => "anthropic/tool_use_response.sse",
        WireFormat::Gemini => "gemini/tool-call.chunks.txt",
        WireFormat::OllamaNdjson => "ollama/api-chat-tool-call.ndjson",
    }
}

fn tools() -> Vec<ToolEntry> {
    vec![ToolEntry {
        function_name: "weather_get".into(),
        server: "weather".into(),
        tool: "get".into(),
        description: Some("Current weather".into()),
        input_schema: json!({"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}),
        annotations: None,
    }]
}

/// One tool round with two parallel calls and everything a provider may need echoed.
fn tool_round() -> Vec<ChatMessage> {
    let call = |id: &str, city: &str| MessageToolCall {
        id: id.into(),
        call_type: "function".into(),
        function: FunctionCall {
            name: "weather_get".into(),
            arguments: format!(r#"{{"city":"{city}"}}"#),
        },
        thought_signature: Some(format!("sig-{id}")),
    };
    let mut assistant = ChatMessage::text(Role::Assistant, "");
    assistant.content = None;
    assistant.tool_calls = Some(vec![call("call_1", "Paris"), call("call_2", "Rome")]);
    assistant.reasoning_content = Some("Two cities.".into());
    assistant.thinking_blocks = Some(vec![ThinkingBlock::Thinking {
        thinking: "Two cities.".into(),
        signature: "sig-thinking".into(),
    }]);
    vec![
        ChatMessage::text(Role::System, "Be brief."),
        ChatMessage::text(Role::User, "Weather in Paris and Rome?"),
        assistant,
        ChatMessage::tool_result("call_1", "18°C"),
        ChatMessage::tool_result("call_2", "21°C"),
    ]
}

/// `send` with the default retry policy and no idle limit, as most tests here want.
async fn send_with_defaults(
    provider: &ResolvedProvider,
    request: &HttpRequest,
    signal: Option<&web_sys::AbortSignal>,
) -> Result<ProviderResponse, ProviderError> {
    send(
        provider,
        request,
        &RetryPolicy::default(),
        signal,
        IdleLimit(None),
    )
    .await
}

fn config(id: &str, base_url: String) -> ProviderConfig {
    ProviderConfig {
        id: id.into(),
        api_key: Some(KEY.into()),
        base_url: Some(base_url),
        model: (id == "openai_compatible").then(|| "local-model".to_owned()),
        project_id: Some("project-42".into()),
        ..ProviderConfig::default()
    }
}

/// Checks what must have reached the wire for this provider's body.
fn check_wire_body(id: &str, body: &Value) {
    match id {
        "anthropic" => {
            let last = &body["messages"][2];
            assert_eq!(last["role"], "user");
            let kinds: Vec<&str> = last["content"]
                .as_array()
                .unwrap()
                .iter()
                .map(|block| block["type"].as_str().unwrap())
                .collect();
            assert_eq!(
                kinds,
                ["tool_result", "tool_result"],
                "one message, both results"
            );
            assert_eq!(
                body["messages"][1]["content"][0]["signature"],
                "sig-thinking"
            );
        }
        "google" => {
            assert_eq!(
                body["contents"][1]["parts"][0]["thoughtSignature"],
                "sig-call_1"
            );
            assert!(body["tools"][0]["functionDeclarations"].is_array());
        }
        "ollama" => {
            assert_eq!(
                body["messages"][2]["tool_calls"][0]["function"]["arguments"],
                json!({"city": "Paris"})
            );
        }
        "deepseek" | "moonshot" => {
            assert_eq!(body["messages"][2]["reasoning_content"], "Two cities.");
        }
        "openai_responses" => {
            assert_eq!(body["tools"][0]["name"], "weather_get");
            let kinds: Vec<&str> = body["input"]
                .as_array()
                .unwrap()
                .iter()
                .map(|item| item["type"].as_str().unwrap_or("message"))
                .collect();
            assert!(
                kinds.ends_with(&["function_call_output", "function_call_output"]),
                "{kinds:?}"
            );
        }
        _ => {
            assert_eq!(body["tools"][0]["type"], "function", "{id}");
            assert!(
                body["messages"][2].get("reasoning_content").is_none(),
                "{id}"
            );
        }
    }
}

#[wasm_bindgen_test]
async fn every_provider_streams_its_fixture_and_sends_the_right_request() {
    for spec in PROVIDERS {
        let fixture = fixture_for(spec.wire);
        let tag = tag(&format!("all-{}", spec.id));
        let base = base_url(&format!("fixture={fixture}&chunk=97&tag={tag}&"));
        let mut config = config(spec.id, base.clone());
        config.iam_url = Some(format!("{base}/identity/token"));
        let policy = RetryPolicy::default();
        let provider = authorize(&config.resolve().unwrap(), &policy, None, IdleLimit(None))
            .await
            .unwrap_or_else(|error| panic!("{}: {error}", spec.id));
        let built = provider
            .chat_request(&tool_round(), &tools(), ResponseMode::Streaming)
            .unwrap();
        let mut response = send(&provider, &built.request, &policy, None, IdleLimit(None))
            .await
            .unwrap();
        assert_eq!(response.status, 200);
        let (bytes, _) = read_all(&mut response).await.unwrap();
        assert_eq!(
            bytes,
            framed_fixture(fixture).await,
            "{}: bytes as served",
            spec.id
        );

        let records = recorded(&tag).await;
        let chat = records.last().unwrap();
        let expected_path = built.request.url.strip_prefix(&base).unwrap();
        assert_eq!(chat["path"], expected_path, "{}", spec.id);
        assert_eq!(chat["body"], built.request.body.as_str(), "{}", spec.id);
        check_wire_body(spec.id, &chat["json"]);
        let headers = &chat["headers"];
        for (name, value) in &built.request.headers {
            assert_eq!(
                headers[name.to_ascii_lowercase()],
                value.as_str(),
                "{} {name}",
                spec.id
            );
        }
        let key_headers: Vec<&String> = headers
            .as_object()
            .unwrap()
            .iter()
            .filter(|(_, value)| value.as_str().is_some_and(|value| value.contains(KEY)))
            .map(|(name, _)| name)
            .collect();
        match spec.id {
            "ibm" => {
                assert_eq!(records.len(), 2, "token exchange, then the chat");
                assert!(records[0]["body"].as_str().unwrap().contains(KEY));
                assert!(key_headers.is_empty());
                assert!(headers["authorization"]
                    .as_str()
                    .unwrap()
                    .starts_with("Bearer test-iam-token-"));
            }
            "anthropic" => {
                assert_eq!(key_headers, ["x-api-key"]);
                assert_eq!(headers["anthropic-dangerous-direct-browser-access"], "true");
                // The browser asked first, and the answer let these headers through.
                let asked = preflights(&tag).await;
                let requested = asked[0]["headers"].as_str().unwrap_or_default();
                for name in [
                    "anthropic-dangerous-direct-browser-access",
                    "anthropic-version",
                    "x-api-key",
                ] {
                    assert!(requested.contains(name), "{requested}");
                }
            }
            "google" => assert_eq!(key_headers, ["x-goog-api-key"]),
            "azure_openai" => assert_eq!(key_headers, ["api-key"]),
            _ => assert_eq!(key_headers, ["authorization"], "{}", spec.id),
        }
    }
}

#[wasm_bindgen_test]
async fn a_sse_fixture_arrives_byte_for_byte_in_several_chunks() {
    // openai/parallel-tool-calls.sse: captured by openai/openai-python (see the fixtures README).
    let expected: &[u8] = include_bytes!(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../shared/fixtures/openai/parallel-tool-calls.sse"
    ));
    let provider = config(
        "openai",
        base_url(&format!(
            "fixture=openai/parallel-tool-calls.sse&chunk=512&delay=3&tag={}&",
            tag("bytes")
        )),
    )
    .resolve()
    .unwrap();
    let request = provider
        .chat_request(
            &[ChatMessage::text(Role::User, "hi")],
            &[],
            ResponseMode::Streaming,
        )
        .unwrap()
        .request;
    let mut response = send_with_defaults(&provider, &request, None).await.unwrap();
    let (bytes, chunks) = read_all(&mut response).await.unwrap();
    assert_eq!(bytes, expected);
    assert!(chunks > 1, "read as a stream, got {chunks} chunk(s)");
}

fn now_ms() -> f64 {
    js_sys::Date::now()
}

async fn attempt(options: &str) -> (Result<Vec<u8>, ProviderError>, ResolvedProvider) {
    let provider = config("openai", base_url(options)).resolve().unwrap();
    let request = provider
        .chat_request(
            &[ChatMessage::text(Role::User, "hi")],
            &[],
            ResponseMode::Streaming,
        )
        .unwrap()
        .request;
    let outcome = match send_with_defaults(&provider, &request, None).await {
        Ok(mut response) => read_all(&mut response).await.map(|(bytes, _)| bytes),
        Err(error) => Err(error),
    };
    (outcome, provider)
}

#[wasm_bindgen_test]
async fn a_429_with_retry_after_is_retried_after_that_wait() {
    let (outcome, _) = attempt(&format!(
        "fixture=openai/text.chunks.txt&status=429&retryAfter=1&times=1&tag={}&",
        tag("retry429")
    ))
    .await;
    assert_eq!(
        outcome.unwrap(),
        framed_fixture("openai/text.chunks.txt").await
    );
    let records = recorded(&tag("retry429")).await;
    assert_eq!(records.len(), 2);
    let waited = records[1]["at"].as_f64().unwrap() - records[0]["at"].as_f64().unwrap();
    assert!((990.0..3000.0).contains(&waited), "waited {waited} ms");
}

#[wasm_bindgen_test]
async fn three_500s_fail_after_exactly_three_attempts() {
    let (outcome, _) = attempt(&format!("status=500&tag={}&", tag("fail500"))).await;
    let error = outcome.unwrap_err();
    assert_eq!(error.code(), "provider_http_status");
    assert_eq!(error.status(), Some(500));
    assert!(error.to_string().contains("injected HTTP 500"));
    assert_eq!(recorded(&tag("fail500")).await.len(), 3);
}

#[wasm_bindgen_test]
async fn auth_and_missing_model_fail_at_once() {
    let (outcome, _) = attempt(&format!("status=401&tag={}&", tag("auth401"))).await;
    assert_eq!(outcome.unwrap_err().code(), "provider_auth");
    assert_eq!(recorded(&tag("auth401")).await.len(), 1);
    let (outcome, _) = attempt(&format!("status=404&tag={}&", tag("missing404"))).await;
    let error = outcome.unwrap_err();
    assert_eq!(error.code(), "provider_model_not_found");
    assert!(error.to_string().contains("gpt-6.1-sol"), "{error}");
    assert_eq!(recorded(&tag("missing404")).await.len(), 1);
}

#[wasm_bindgen_test]
async fn a_connection_lost_mid_stream_is_a_network_error_and_not_retried() {
    let (outcome, _) = attempt(&format!(
        "fixture=openai/text.chunks.txt&chunk=200&disconnectAfter=1000&tag={}&",
        tag("cut")
    ))
    .await;
    assert_eq!(outcome.unwrap_err().code(), "provider_network");
    assert_eq!(recorded(&tag("cut")).await.len(), 1);
}

/// The idle limit bounds each wait, not the whole stream: pieces 250 ms apart under a limit of
/// 400 ms are all read, though the stream lasts longer than the limit and the timer that bounded
/// the wait for the answer goes on bounding the first pieces.
#[wasm_bindgen_test]
async fn a_stream_slower_in_all_than_the_idle_limit_is_read_when_each_piece_comes_in_time() {
    let provider = config(
        "openai",
        base_url(&format!(
            "fixture=openai/parallel-tool-calls.sse&chunk=2048&delay=250&tag={}&",
            tag("slow-pieces")
        )),
    )
    .resolve()
    .unwrap();
    let messages = [ChatMessage::text(Role::User, "hi")];
    let started = js_sys::Date::now();
    let (mut events, _) = stream_model_call(
        &provider,
        &messages,
        &ProviderTools::default(),
        &RetryPolicy::default(),
        None,
        IdleLimit(Some(400)),
    )
    .await
    .unwrap();
    let mut calls = 0;
    while let Some(event) = events.next_event().await.unwrap() {
        calls += usize::from(matches!(event, ModelEvent::ToolCallDelta(_)));
    }
    let elapsed = js_sys::Date::now() - started;
    assert!(calls > 0, "no tool-call deltas read");
    assert!(
        elapsed > 600.0,
        "read in {elapsed} ms: the pieces came too fast to test the limit"
    );
}

/// A provider that never answers: every kind of call gives up after the idle limit, the watsonx
/// token exchange included, and a call without a limit is still waiting.
#[wasm_bindgen_test]
async fn a_provider_that_never_answers_is_given_up_after_the_idle_limit() {
    let limit = IdleLimit(Some(300));
    let silent = |id: &str| {
        let base = base_url(&format!("silent=1&tag={}&", tag(&format!("silent-{id}"))));
        let mut config = config(id, base.clone());
        config.iam_url = Some(format!("{base}/identity/token"));
        config.resolve().unwrap()
    };
    let (openai, deepseek, watsonx, mistral) = (
        silent("openai"),
        silent("deepseek"),
        silent("ibm"),
        silent("mistral"),
    );
    let (messages, policy, tools) = (
        tool_round(),
        RetryPolicy::default(),
        ProviderTools::default(),
    );
    let started = js_sys::Date::now();
    let (streamed, whole, exchange) = futures::join!(
        stream_model_call(&openai, &messages, &tools, &policy, None, limit),
        whole_model_call(&deepseek, &messages, &tools, &policy, None, limit),
        authorize(&watsonx, &policy, None, limit),
    );
    let elapsed = js_sys::Date::now() - started;
    for (what, error) in [
        ("stream", streamed.map(drop).unwrap_err()),
        ("whole", whole.map(drop).unwrap_err()),
        ("token exchange", exchange.map(drop).unwrap_err()),
    ] {
        assert!(
            matches!(error, ProviderError::IdleTimeout { idle_ms: 300, .. }),
            "{what}: {error}"
        );
    }
    assert!(elapsed < 3000.0, "gave up after {elapsed} ms");
    let unbounded = whole_model_call(&mistral, &messages, &tools, &policy, None, IdleLimit(None));
    let half_a_second = wasm_bindgen_futures::JsFuture::from(Promise::new(&mut |resolve, _| {
        set_timeout(&resolve, 500);
    }));
    let still_waiting = futures::future::select(Box::pin(unbounded), half_a_second).await;
    assert!(
        matches!(still_waiting, futures::future::Either::Right(_)),
        "without a limit the call waits"
    );
}

#[wasm_bindgen_test]
async fn abort_mid_stream_ends_the_read_within_100_ms() {
    let provider = config(
        "openai",
        base_url(&format!(
            "fixture=openai/text.chunks.txt&chunk=300&hangAfter=300&tag={}&",
            tag("abort")
        )),
    )
    .resolve()
    .unwrap();
    let request = provider
        .chat_request(
            &[ChatMessage::text(Role::User, "hi")],
            &[],
            ResponseMode::Streaming,
        )
        .unwrap()
        .request;
    let controller = web_sys::AbortController::new().unwrap();
    let signal = controller.signal();
    let response = send_with_defaults(&provider, &request, Some(&signal))
        .await
        .unwrap();
    let mut body = response;
    let first = body.next_chunk().await.unwrap().unwrap();
    assert!(!first.is_empty());

    let aborted_at = Rc::new(Cell::new(0.0));
    let abort_later = {
        let aborted_at = aborted_at.clone();
        Closure::once_into_js(move || {
            aborted_at.set(now_ms());
            controller.abort();
        })
    };
    set_timeout(abort_later.unchecked_ref(), 30);
    // The server hangs after 300 bytes: this read only ends through the abort.
    let error = read_all(&mut body).await.unwrap_err();
    let took = now_ms() - aborted_at.get();
    console_log!("abort to end of read: {took} ms");
    assert_eq!(
        error,
        ProviderError::Aborted {
            provider: "openai".into()
        }
    );
    assert!(aborted_at.get() > 0.0 && took < 100.0, "took {took} ms");
}

#[wasm_bindgen_test]
async fn a_missing_key_sends_nothing() {
    let mut config = config(
        "anthropic",
        base_url(&format!(
            "fixture=anthropic/basic_response.sse&tag={}&",
            tag("nokey")
        )),
    );
    config.api_key = None;
    let error = config.resolve().unwrap_err();
    assert_eq!(error.code(), "provider_missing_api_key");
    let js_error: JsValue = error.into();
    let code = js_sys::Reflect::get(&js_error, &"code".into()).unwrap();
    assert_eq!(
        code.as_string().as_deref(),
        Some("provider_missing_api_key")
    );
    assert!(recorded(&tag("nokey")).await.is_empty());
}

#[wasm_bindgen_test]
fn list_providers_describes_every_row() {
    let listed: Vec<Value> = from_js(&list_providers().unwrap()).unwrap();
    assert_eq!(listed.len(), PROVIDERS.len());
    // Every member of every row as the listing serializes natively.
    for (row, spec) in listed.iter().zip(PROVIDERS) {
        assert_eq!(*row, serde_json::to_value(spec.listing()).unwrap());
    }
    let ollama = listed.iter().find(|row| row["id"] == "ollama").unwrap();
    assert_eq!(ollama["requiresApiKey"], false);
    assert_eq!(ollama["defaultBaseUrl"], "http://localhost:11434");
    let compatible = listed
        .iter()
        .find(|row| row["id"] == "openai_compatible")
        .unwrap();
    assert_eq!(compatible["defaultModel"], Value::Null);
}

#[wasm_bindgen_test]
async fn an_unreachable_server_is_retried_twice_then_a_network_error() {
    // Port 9 (discard) on loopback: nothing listens there, so every fetch fails before a byte.
    let provider = config("openai", "http://127.0.0.1:9/v1".into())
        .resolve()
        .unwrap();
    let request = provider
        .chat_request(
            &[ChatMessage::text(Role::User, "hi")],
            &[],
            ResponseMode::Streaming,
        )
        .unwrap()
        .request;
    let started = now_ms();
    let error = send_with_defaults(&provider, &request, None)
        .await
        .err()
        .unwrap();
    let took = now_ms() - started;
    assert_eq!(error.code(), "provider_network");
    // Two backoffs of at least 250 ms and 500 ms (half of each doubled delay is fixed).
    assert!(took >= 750.0, "took {took} ms");
}

#[wasm_bindgen_test]
async fn abort_during_a_retry_wait_ends_the_call_at_once() {
    let provider = config(
        "openai",
        base_url(&format!("status=503&tag={}&", tag("abortwait"))),
    )
    .resolve()
    .unwrap();
    let request = provider
        .chat_request(
            &[ChatMessage::text(Role::User, "hi")],
            &[],
            ResponseMode::Streaming,
        )
        .unwrap()
        .request;
    let controller = web_sys::AbortController::new().unwrap();
    let signal = controller.signal();
    let aborted_at = Rc::new(Cell::new(0.0));
    let abort_later = {
        let aborted_at = aborted_at.clone();
        Closure::once_into_js(move || {
            aborted_at.set(now_ms());
            controller.abort();
        })
    };
    // The first 503 answers at once; the abort lands inside the following backoff wait.
    set_timeout(abort_later.unchecked_ref(), 150);
    let error = send_with_defaults(&provider, &request, Some(&signal))
        .await
        .err()
        .unwrap();
    let took = now_ms() - aborted_at.get();
    assert_eq!(error.code(), "provider_aborted");
    assert!(aborted_at.get() > 0.0 && took < 100.0, "took {took} ms");
    assert_eq!(recorded(&tag("abortwait")).await.len(), 1);
}

/// What a fixture must decode to, written from the fixture's own content.
struct Expected {
    provider: &'static str,
    fixture: &'static str,
    text: &'static str,
    /// (id, function name, arguments)
    calls: Vec<(Option<&'static str>, &'static str, Value)>,
    usage: Usage,
}

#[wasm_bindgen_test]
async fn each_wire_format_streams_through_fetch_into_the_expected_events() {
    let cases = [
        // openai/parallel-tool-calls.sse: openai/openai-python inline snapshot (fixtures README).
        Expected {
            provider: "openai",
            fixture: "openai/parallel-tool-calls.sse",
            text: "",
            calls: vec![
                (
                    Some("call_JMW1whyEaYG438VE1OIflxA2"),
                    "GetWeatherArgs",
                    json!({"city": "Edinburgh", "country": "GB", "units": "c"}),
                ),
                (
                    Some("call_DNYTawLBoN8fj3KN6qU9N1Ou"),
                    "get_stock_price",
                    json!({"ticker": "AAPL", "exchange": "NASDAQ"}),
                ),
            ],
            usage: Usage {
                input_tokens: 149,
                output_tokens: 60,
                cached_input_tokens: None,
                reasoning_tokens: Some(0),
            },
        },
        // own/openai-responses-web-round.sse: written for this project to OpenAI's Responses
        // streaming reference (tests/fixtures/streams/README.md).
        Expected {
            provider: "openai_responses",
            fixture: "own/openai-responses-web-round.sse",
            text: "Checking the weather in Paris.",
            calls: vec![(
                Some("call_Wq3rT8uVx1"),
                "weather_get",
                json!({"city": "Paris"}),
            )],
            usage: Usage {
                input_tokens: 312,
                output_tokens: 85,
                cached_input_tokens: Some(256),
                reasoning_tokens: Some(64),
            },
        },
        // anthropic/tool_use_response.sse: anthropics/anthropic-sdk-python streaming fixtures.
        Expected {
            provider: "anthropic",
            fixture: "anthropic/tool_use_response.sse",
            text: "I'll check the current weather in Paris for you.",
            calls: vec![(
                Some("toolu_01NRLabsLyVHZPKxbKvkfSMn"),
                "get_weather",
                json!({"location": "Paris"}),
            )],
            usage: Usage {
                input_tokens: 377,
                output_tokens: 65,
                cached_input_tokens: Some(0),
                reasoning_tokens: None,
            },
        },
        // gemini/tool-call.chunks.txt: vercel/ai packages/google (framed as `data:` lines).
        Expected {
            provider: "google",
            fixture: "gemini/tool-call.chunks.txt",
            text: "",
            calls: vec![(None, "weather", json!({"location": "San Francisco"}))],
            usage: Usage {
                input_tokens: 29,
                output_tokens: 60,
                cached_input_tokens: None,
                reasoning_tokens: Some(45),
            },
        },
        // ollama/api-chat-tool-call.ndjson: written to ollama/ollama docs/api.md.
        Expected {
            provider: "ollama",
            fixture: "ollama/api-chat-tool-call.ndjson",
            text: "",
            calls: vec![(None, "get_weather", json!({"city": "Tokyo"}))],
            usage: Usage {
                input_tokens: 169,
                output_tokens: 15,
                cached_input_tokens: None,
                reasoning_tokens: None,
            },
        },
    ];
    for case in cases {
        let tag = tag(&format!("events-{}", case.provider));
        let provider = config(
            case.provider,
            base_url(&format!("fixture={}&chunk=41&tag={tag}&", case.fixture)),
        )
        .resolve()
        .unwrap();
        let (mut stream, warnings) = stream_model_call(
            &provider,
            &tool_round(),
            &provider.provider_tools(&tools()),
            &RetryPolicy::default(),
            None,
            IdleLimit(None),
        )
        .await
        .unwrap();
        assert!(warnings.is_empty(), "{}: {warnings:?}", case.provider);
        let mut text = String::new();
        let mut assembler = ToolCallAssembler::new(0);
        let mut finish = None;
        let mut usage = None;
        while let Some(event) = stream.next_event().await.unwrap() {
            match event {
                ModelEvent::TextDelta(delta) => text.push_str(&delta),
                ModelEvent::ToolCallDelta(delta) => assembler.push(&delta),
                ModelEvent::Finish(reason) => finish = Some(reason),
                ModelEvent::Usage(reported) => usage = Some(reported),
                _ => {}
            }
        }
        assert_eq!(text, case.text, "{}", case.provider);
        assert_eq!(finish, Some(FinishReason::ToolCalls), "{}", case.provider);
        assert_eq!(usage, Some(case.usage), "{}", case.provider);
        let calls = assembler.finish();
        assert_eq!(calls.len(), case.calls.len(), "{}", case.provider);
        for (call, (id, name, arguments)) in calls.iter().zip(&case.calls) {
            if let Some(id) = id {
                assert_eq!(call.id, *id, "{}", case.provider);
            }
            assert_eq!(call.name, *name, "{}", case.provider);
            assert_eq!(
                call.arguments.as_ref().ok(),
                Some(arguments),
                "{}",
                case.provider
            );
        }
        if case.provider == "google" {
            let signature = calls[0].thought_signature.as_deref().unwrap_or_default();
            assert!(
                signature.starts_with("EqUC"),
                "the thought signature is kept"
            );
        }
        assert_eq!(recorded(&tag).await.len(), 1);
    }
}

/// The only test that loads a script: a script is server-wide, and browser tests run concurrently.
#[wasm_bindgen_test]
async fn a_scripted_round_comes_back_whole_through_the_non_streaming_path() {
    let init = web_sys::RequestInit::new();
    init.set_method("POST");
    init.set_body(&JsValue::from_str(
        r#"{"rounds":[{"text":"Sunny.","reasoning":"Look it up.","toolCalls":[{"id":"call_7","name":"weather_get","arguments":{"city":"Lima"}}]}]}"#,
    ));
    response_text(fetch_with_init(&format!("{}/__script", server()), &init)).await;
    let provider = config("deepseek", base_url(&format!("tag={}&", tag("whole-call"))))
        .resolve()
        .unwrap();
    let (events, _) = whole_model_call(
        &provider,
        &[ChatMessage::text(Role::User, "hi")],
        &provider.provider_tools(&tools()),
        &RetryPolicy::default(),
        None,
        IdleLimit(None),
    )
    .await
    .unwrap();
    assert_eq!(events[0], ModelEvent::ReasoningDelta("Look it up.".into()));
    assert_eq!(events[1], ModelEvent::TextDelta("Sunny.".into()));
    assert_eq!(events[3], ModelEvent::Finish(FinishReason::ToolCalls));
    let recorded = recorded(&tag("whole-call")).await;
    assert_eq!(recorded[0]["json"]["stream"], false);
}

#[wasm_bindgen_test]
async fn watsonx_exchanges_its_key_once_and_reuses_the_token() {
    let tag = tag("watsonx-reuse");
    let base = base_url(&format!("fixture=openai/text.chunks.txt&tag={tag}&"));
    let mut config = config("ibm", base.clone());
    config.iam_url = Some(format!("{base}/identity/token"));
    let policy = RetryPolicy::default();
    let provider = authorize(&config.resolve().unwrap(), &policy, None, IdleLimit(None))
        .await
        .unwrap();
    for _ in 0..2 {
        let (mut stream, _) = stream_model_call(
            &provider,
            &[ChatMessage::text(Role::User, "hi")],
            &ProviderTools::default(),
            &policy,
            None,
            IdleLimit(None),
        )
        .await
        .unwrap();
        while stream.next_event().await.unwrap().is_some() {}
    }
    let records = recorded(&tag).await;
    let paths: Vec<&str> = records
        .iter()
        .map(|record| record["path"].as_str().unwrap())
        .collect();
    assert_eq!(
        paths,
        [
            "/identity/token",
            "/ml/v1/text/chat_stream?version=2025-02-11",
            "/ml/v1/text/chat_stream?version=2025-02-11",
        ]
    );
    let token = format!("Bearer {}", provider.access_token.as_deref().unwrap());
    assert_eq!(records[1]["headers"]["authorization"], token.as_str());
    assert_eq!(records[2]["headers"]["authorization"], token.as_str());
    assert_eq!(records[1]["json"]["project_id"], "project-42");
}

/// Replaces `globalThis.fetch` with one that answers every request with `body` as one piece (a
/// `Response` made from a string), so that no request leaves the page. Dropping it restores `fetch`.
struct OnePieceResponse {
    original: JsValue,
}

impl OnePieceResponse {
    fn install(body: &str) -> Self {
        let global = js_sys::global();
        let original = js_sys::Reflect::get(&global, &"fetch".into()).expect("fetch exists");
        let stub = js_sys::Function::new_with_args(
            "body",
            "return () => Promise.resolve(new Response(body, \
             { status: 200, headers: { 'content-type': 'text/event-stream' } }));",
        )
        .call1(&JsValue::NULL, &JsValue::from_str(body))
        .expect("the stub is built");
        js_sys::Reflect::set(&global, &"fetch".into(), &stub).expect("fetch is writable");
        OnePieceResponse { original }
    }
}

impl Drop for OnePieceResponse {
    fn drop(&mut self) {
        let _ = js_sys::Reflect::set(&js_sys::global(), &"fetch".into(), &self.original);
    }
}

/// The pieces of text one read brings reach the loop as one event per kind, in order.
#[wasm_bindgen_test]
async fn pieces_of_text_that_arrive_together_come_as_one_event() {
    let chunk = |delta: Value, finish: Value| {
        let payload = json!({"choices": [{"index": 0, "delta": delta, "finish_reason": finish}]});
        format!("data: {payload}\n\n")
    };
    let body = [
        chunk(
            json!({"role": "assistant", "reasoning_content": "Think"}),
            Value::Null,
        ),
        chunk(json!({"reasoning_content": "ing."}), Value::Null),
        chunk(json!({"content": "Hel"}), Value::Null),
        chunk(json!({"content": "lo, "}), Value::Null),
        chunk(json!({"content": "world"}), json!("stop")),
        "data: [DONE]\n\n".to_owned(),
    ]
    .concat();
    let provider = config("deepseek", format!("{}/v1", server()))
        .resolve()
        .unwrap();
    let _stub = OnePieceResponse::install(&body);
    let (mut stream, _) = stream_model_call(
        &provider,
        &[ChatMessage::text(Role::User, "hi")],
        &ProviderTools::default(),
        &RetryPolicy::default(),
        None,
        IdleLimit(None),
    )
    .await
    .unwrap();
    let mut events = Vec::new();
    while let Some(event) = stream.next_event().await.unwrap() {
        events.push(event);
    }
    assert_eq!(
        events,
        [
            ModelEvent::ReasoningDelta("Thinking.".into()),
            ModelEvent::TextDelta("Hello, world".into()),
            ModelEvent::Finish(FinishReason::Stop),
        ]
    );
}
