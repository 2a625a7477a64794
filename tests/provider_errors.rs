#![cfg(not(target_arch = "wasm32"))]
//! HTTP failure classification, the retry decision, `Retry-After` parsing and backoff. The error
//! bodies are the shapes each vendor documents for its errors.

use mcp_agent_wasm::core::provider::{
    backoff_delay_ms, parse_http_date, parse_retry_after, ProviderConfig, ProviderError,
    ResolvedProvider, RetryDecision, RetryPolicy,
};

const KEY: &str = "sk-test-SECRET-0123456789";

/// 2026-11-30T04:00:00Z in Unix epoch milliseconds.
const NOW_MS: u64 = 1_796_011_200_000;

fn provider(id: &str) -> ResolvedProvider {
    ProviderConfig {
        id: id.to_owned(),
        api_key: Some(KEY.to_owned()),
        model: Some("model-x".to_owned()),
        ..ProviderConfig::default()
    }
    .resolve()
    .expect("complete config")
}

fn headers(pairs: &[(&str, &str)]) -> Vec<(String, String)> {
    pairs
        .iter()
        .map(|(name, value)| (name.to_string(), value.to_string()))
        .collect()
}

#[test]
fn statuses_are_classified_with_the_providers_own_message() {
    // (provider, status, body, code, text the error message must contain)
    let cases = [
        (
            "openai",
            401,
            r#"{"error":{"message":"Incorrect API key provided","type":"invalid_request_error","code":"invalid_api_key"}}"#,
            "provider_auth",
            "Incorrect API key provided",
        ),
        (
            "anthropic",
            403,
            r#"{"type":"error","error":{"type":"permission_error","message":"Your API key does not have permission"}}"#,
            "provider_auth",
            "does not have permission",
        ),
        (
            "openai",
            404,
            r#"{"error":{"message":"The model `model-x` does not exist","type":"invalid_request_error","code":"model_not_found"}}"#,
            "provider_model_not_found",
            "no model `model-x`",
        ),
        (
            "ollama",
            404,
            r#"{"error":"model \"model-x\" not found, try pulling it first"}"#,
            "provider_model_not_found",
            "try pulling it first",
        ),
        (
            "anthropic",
            400,
            r#"{"type":"error","error":{"type":"invalid_request_error","message":"messages: roles must alternate"}}"#,
            "provider_http_status",
            "roles must alternate",
        ),
        (
            "google",
            400,
            r#"{"error":{"code":400,"message":"* GenerateContentRequest.tools[0]: parameters.properties: should be non-empty","status":"INVALID_ARGUMENT"}}"#,
            "provider_http_status",
            "should be non-empty",
        ),
        (
            "google",
            400,
            r#"[{"error":{"code":400,"message":"API key not valid.","status":"INVALID_ARGUMENT"}}]"#,
            "provider_http_status",
            "API key not valid.",
        ),
        (
            "ibm",
            400,
            r#"{"errors":[{"code":"json_validation_error","message":"Json document validation error: 'model_id' is required"}],"trace":"abc","status_code":400}"#,
            "provider_http_status",
            "'model_id' is required",
        ),
        (
            "mistral",
            422,
            r#"{"detail":"Extra inputs are not permitted"}"#,
            "provider_http_status",
            "Extra inputs are not permitted",
        ),
        (
            "openai",
            429,
            r#"{"error":{"message":"Rate limit reached for gpt-4o","type":"requests"}}"#,
            "provider_rate_limited",
            "Rate limit reached",
        ),
        (
            "anthropic",
            529,
            r#"{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}"#,
            "provider_http_status",
            "Overloaded",
        ),
        (
            "openai",
            502,
            "<html>Bad Gateway</html>",
            "provider_http_status",
            "<html>Bad Gateway</html>",
        ),
        (
            "openai",
            500,
            "",
            "provider_http_status",
            "no error message",
        ),
    ];
    for (id, status, body, code, needle) in cases {
        let provider = ProviderConfig {
            project_id: Some("p".into()),
            ..ProviderConfig {
                id: id.into(),
                api_key: Some(KEY.into()),
                model: Some("model-x".into()),
                ..ProviderConfig::default()
            }
        }
        .resolve()
        .unwrap();
        let error = provider.classify_http_failure(status, &[], body, NOW_MS);
        assert_eq!(error.code(), code, "{id} {status}");
        assert_eq!(error.status(), Some(status), "{id} {status}");
        assert_eq!(error.body(), Some(body), "{id} {status}: the body is kept");
        let message = error.to_string();
        assert!(message.contains(needle), "{id} {status}: {message}");
        assert!(
            message.contains(id),
            "{id} {status}: names the provider: {message}"
        );
    }
}

#[test]
fn the_key_never_appears_in_an_error() {
    let provider = provider("openai");
    let echoing = format!(
        r#"{{"error":{{"message":"Incorrect API key provided: {KEY}. You can find your API key at …"}}}}"#
    );
    for status in [400, 401, 404, 429, 500] {
        let error = provider.classify_http_failure(status, &[], &echoing, NOW_MS);
        let shown = format!("{error} {error:?} {}", error.body().unwrap_or_default());
        assert!(!shown.contains(KEY), "{status}: {shown}");
        assert!(shown.contains("[redacted]"), "{status}");
    }
    let RetryDecision::Fail(error) =
        provider.after_network_failure(&RetryPolicy::default(), 2, &format!("fetch {KEY}"), 0.5)
    else {
        panic!("third network failure must fail");
    };
    assert_eq!(error.code(), "provider_network");
    assert!(!error.to_string().contains(KEY));
}

/// A key with characters JSON encoders may escape (PHP writes `\/`, .NET `\u002B`): the raw
/// body then does not hold the key as written, its decoded text does.
#[test]
fn a_key_written_with_json_escapes_never_appears_in_an_error() {
    let key = "sk-test/SECRET+0123456789";
    let provider = ProviderConfig {
        id: "openai".to_owned(),
        api_key: Some(key.to_owned()),
        ..ProviderConfig::default()
    }
    .resolve()
    .expect("complete config");
    for escaped in [
        r"sk-test\/SECRET+0123456789",
        r"sk-test/SECRET\u002B0123456789",
        r"sk-test\/SECRET\u002b0123456789",
    ] {
        let body = format!(r#"{{"error":{{"message":"Incorrect API key provided: {escaped}"}}}}"#);
        let error = provider.classify_http_failure(401, &[], &body, NOW_MS);
        let kept = error.body().unwrap_or_default();
        assert!(!error.to_string().contains(key), "{escaped}: {error}");
        assert!(!kept.contains(key), "{escaped}: {kept}");
        assert!(!kept.contains(escaped), "{escaped}: {kept}");
        assert!(error
            .to_string()
            .contains("Incorrect API key provided: [redacted]"));
    }
}

/// The watsonx token exchange carries the key in its body, which debug output leaves out.
#[test]
fn debug_output_of_a_request_shows_no_key() {
    let provider = ProviderConfig {
        id: "ibm".to_owned(),
        api_key: Some(KEY.to_owned()),
        project_id: Some("p".to_owned()),
        ..ProviderConfig::default()
    }
    .resolve()
    .expect("complete config");
    let exchange = provider.token_request().expect("watsonx exchanges its key");
    assert!(
        exchange.body.contains("SECRET"),
        "the exchange sends the key"
    );
    let shown = format!("{exchange:?}");
    assert!(!shown.contains("SECRET"), "{shown}");
}

type HeaderPairs = &'static [(&'static str, &'static str)];

#[test]
fn retry_after_is_read_as_seconds_dates_or_milliseconds() {
    let cases: [(HeaderPairs, Option<u64>); 20] = [
        (&[("Retry-After", "1")], Some(1000)),
        (&[("retry-after", " 30 ")], Some(30_000)),
        (&[("retry-after", "0.5")], Some(500)),
        (
            &[("retry-after", "Mon, 30 Nov 2026 04:00:07 GMT")],
            Some(7000),
        ),
        (&[("retry-after", "Mon, 30 Nov 2026 03:59:00 GMT")], Some(0)),
        (
            &[("retry-after-ms", "250"), ("retry-after", "9")],
            Some(250),
        ),
        (&[("retry-after", ".25")], Some(250)),
        (&[("retry-after", "2.")], Some(2000)),
        (&[("retry-after", "0.0015")], Some(2)),
        (&[("retry-after", "0.0000000000000000001")], Some(1)),
        (
            &[("retry-after", "99999999999999999999999")],
            Some(u64::MAX),
        ),
        (&[("retry-after-ms", "12.25")], Some(13)),
        (
            &[("retry-after-ms", "later"), ("retry-after", "3")],
            Some(3000),
        ),
        (&[("retry-after", "soon")], None),
        (&[("retry-after", "-3")], None),
        (&[("retry-after", "+3")], None),
        (&[("retry-after", ".")], None),
        (&[("retry-after", "1.2.3")], None),
        (&[("retry-after", "1e3")], None),
        (&[], None),
    ];
    for (pairs, expected) in cases {
        assert_eq!(
            parse_retry_after(&headers(pairs), NOW_MS),
            expected,
            "{pairs:?}"
        );
    }
}

#[test]
fn http_dates_convert_to_epoch_milliseconds() {
    let cases = [
        ("Thu, 01 Jan 1970 00:00:00 GMT", Some(0)),
        ("Sun, 06 Nov 1994 08:49:37 GMT", Some(784_111_777_000)),
        ("Tue, 29 Feb 2028 12:00:00 GMT", Some(1_835_438_400_000)),
        ("Mon, 30 Nov 2026 04:00:00 GMT", Some(NOW_MS)),
        ("Sunday, 06-Nov-94 08:49:37 GMT", None),
        ("Sun, 06 Foo 1994 08:49:37 GMT", None),
        ("Sun, 06 Nov 1994 25:49:37 GMT", None),
    ];
    for (text, expected) in cases {
        assert_eq!(parse_http_date(text), expected, "{text}");
    }
}

#[test]
fn backoff_doubles_with_equal_jitter_and_is_capped() {
    let policy = RetryPolicy::default();
    let cases = [
        (0, 0.0, 250),
        (0, 0.999, 499),
        (1, 0.0, 500),
        (1, 0.5, 750),
        (2, 1.0, 2000),
        (20, 0.0, 15_000),
        (40, 1.0, 30_000),
        (0, f64::NAN, 250),
        (0, -4.0, 250),
    ];
    for (retries_done, jitter, expected) in cases {
        assert_eq!(
            backoff_delay_ms(&policy, retries_done, jitter),
            expected,
            "{retries_done} {jitter}"
        );
    }
}

/// Runs the decision loop against a scripted sequence of statuses; returns the attempts made,
/// the waits between them, and the final error if every attempt failed.
fn drive(
    provider: &ResolvedProvider,
    answers: &[(u16, &[(&str, &str)])],
) -> (usize, Vec<u64>, Option<ProviderError>) {
    let policy = RetryPolicy::default();
    let mut waits = Vec::new();
    for (attempt, (status, pairs)) in answers.iter().enumerate() {
        if *status == 200 {
            return (attempt + 1, waits, None);
        }
        let retries_done = u32::try_from(attempt).unwrap();
        match provider.after_http_failure(
            &policy,
            retries_done,
            *status,
            &headers(pairs),
            "{}",
            NOW_MS,
            0.5,
        ) {
            RetryDecision::Retry { delay_ms } => waits.push(delay_ms),
            RetryDecision::Fail(error) => return (attempt + 1, waits, Some(error)),
        }
    }
    panic!("the script ran out before a decision")
}

#[test]
fn retries_follow_the_rules() {
    let provider = provider("openai");
    let retry_after_1: &[(&str, &str)] = &[("retry-after", "1")];
    // 429 + Retry-After: 1, then success: one wait of exactly 1 s.
    assert_eq!(
        drive(&provider, &[(429, retry_after_1), (200, &[])]),
        (2, vec![1000], None)
    );
    // 500 three times: exactly three attempts, backoff between them, then the error.
    let (attempts, waits, error) = drive(&provider, &[(500, &[]), (500, &[]), (500, &[])]);
    assert_eq!((attempts, waits), (3, vec![375, 750]));
    assert_eq!(error.unwrap().code(), "provider_http_status");
    // 408 (the server timed the request out) and 409 (a conflict with a concurrent request) are
    // passing states, as the AI SDK also treats them: asked again, then answered.
    for status in [408, 409] {
        assert_eq!(
            drive(&provider, &[(status, &[]), (200, &[])]),
            (2, vec![375], None),
            "{status}"
        );
    }
    // Not retried: auth, model not found, other 4xx.
    for (status, code) in [
        (401, "provider_auth"),
        (403, "provider_auth"),
        (404, "provider_model_not_found"),
        (400, "provider_http_status"),
        (413, "provider_http_status"),
        (422, "provider_http_status"),
    ] {
        let (attempts, waits, error) = drive(&provider, &[(status, &[])]);
        assert_eq!((attempts, waits.len()), (1, 0), "{status}");
        assert_eq!(error.unwrap().code(), code, "{status}");
    }
    // A Retry-After beyond the policy's longest wait fails at once, keeping the wait asked for.
    let (attempts, _, error) = drive(&provider, &[(429, &[("retry-after", "3600")])]);
    assert_eq!(attempts, 1);
    match error.unwrap() {
        error @ ProviderError::RateLimited { retry_after_ms, .. } => {
            assert_eq!(retry_after_ms, Some(3_600_000));
            assert!(
                error
                    .to_string()
                    .ends_with("; it asks to wait 3600 s before the next request"),
                "{error}"
            );
        }
        other => panic!("expected rate limited, got {other:?}"),
    }
    // Three 429s: the last one is reported as rate limiting.
    let (attempts, waits, error) = drive(
        &provider,
        &[
            (429, retry_after_1),
            (429, retry_after_1),
            (429, retry_after_1),
        ],
    );
    assert_eq!((attempts, waits), (3, vec![1000, 1000]));
    assert_eq!(error.unwrap().code(), "provider_rate_limited");
}

#[test]
fn network_failures_before_the_first_byte_are_retried_twice() {
    let provider = provider("anthropic");
    let policy = RetryPolicy::default();
    let decisions: Vec<RetryDecision> = (0..3)
        .map(|retries_done| {
            provider.after_network_failure(&policy, retries_done, "Failed to fetch", 0.0)
        })
        .collect();
    assert_eq!(decisions[0], RetryDecision::Retry { delay_ms: 250 });
    assert_eq!(decisions[1], RetryDecision::Retry { delay_ms: 500 });
    assert_eq!(
        decisions[2],
        RetryDecision::Fail(ProviderError::Network {
            provider: "anthropic".into(),
            message: "Failed to fetch".into()
        })
    );
}
