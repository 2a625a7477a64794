//! What to do after a failed attempt: retry after how long, or which error to report. Pure: the
//! clock ("now") and the jitter random number come in as arguments.

use serde_json::Value;

use super::config::ResolvedProvider;
use super::error::ProviderError;
use crate::core::json_read::member_at;
use crate::core::json_text::to_json_text;
use crate::core::text::find_str;

/// How hard to retry. 429, 5xx and network failures before the first byte are retried; nothing
/// is retried once a stream has started.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RetryPolicy {
    /// Retries after the first attempt (so `max_retries + 1` attempts in all).
    pub max_retries: u32,
    /// The first backoff; each retry doubles it.
    pub base_delay_ms: u64,
    /// The longest wait: a `Retry-After` beyond it fails at once instead of hanging the caller.
    pub max_delay_ms: u64,
}

impl Default for RetryPolicy {
    fn default() -> Self {
        RetryPolicy {
            max_retries: 2,
            base_delay_ms: 500,
            max_delay_ms: 30_000,
        }
    }
}

/// The decision after one failed attempt.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RetryDecision {
    Retry { delay_ms: u64 },
    Fail(ProviderError),
}

/// Longest provider message kept in an error's text (the whole body stays in `body`).
const MESSAGE_LIMIT: usize = 500;

/// Whether a status is worth another attempt: a request timed out (408) or in conflict with
/// another (409), rate limiting, and server errors; the AI SDK retries the same.
pub fn is_retryable_status(status: u16) -> bool {
    matches!(status, 408 | 409 | 429) || (500..600).contains(&status)
}

/// Exponential backoff with "equal jitter": half the doubled delay is fixed, half is random, so
/// retrying clients spread out without ever retrying immediately. `jitter` is in `[0, 1)`.
pub fn backoff_delay_ms(policy: &RetryPolicy, retries_done: u32, jitter: f64) -> u64 {
    let doubled = policy
        .base_delay_ms
        .saturating_mul(1u64 << retries_done.min(32))
        .min(policy.max_delay_ms);
    let jitter = if jitter.is_finite() {
        jitter.clamp(0.0, 1.0)
    } else {
        0.0
    };
    let half = doubled / 2;
    half + (half as f64 * jitter) as u64
}

/// The wait a response asks for, in milliseconds: `retry-after-ms` (OpenAI), or `Retry-After` as
/// delay-seconds or an HTTP-date (IMF-fixdate) compared with `now_ms` (Unix epoch milliseconds).
pub fn parse_retry_after(headers: &[(String, String)], now_ms: u64) -> Option<u64> {
    let header = |name: &str| {
        headers
            .iter()
            .find(|(header, _)| header.eq_ignore_ascii_case(name))
            .map(|(_, value)| value.trim())
    };
    if let Some(milliseconds) = header("retry-after-ms").and_then(|value| decimal_ceil(value, 1)) {
        return Some(milliseconds);
    }
    let value = header("retry-after")?;
    if let Some(milliseconds) = decimal_ceil(value, 1000) {
        return Some(milliseconds);
    }
    let date_ms = parse_http_date(value)?;
    Some(date_ms.saturating_sub(now_ms))
}

/// A non-negative decimal (`12`, `0.5`, `.25`) times `scale` (at most 1000), rounded up and
/// saturating; `None` for anything else. Read digit by digit instead of through `f64`, whose
/// parser would add its table of powers of five (13.6 KB of gzipped wasm) for two header values.
fn decimal_ceil(text: &str, scale: u64) -> Option<u64> {
    let (whole, fraction) = text.split_once('.').unwrap_or((text, ""));
    let all_digits = |part: &str| part.bytes().all(|byte| byte.is_ascii_digit());
    if (whole.is_empty() && fraction.is_empty()) || !all_digits(whole) || !all_digits(fraction) {
        return None;
    }
    let digit = |byte: u8| u64::from(byte - b'0');
    let whole = whole.bytes().fold(0u64, |value, byte| {
        value.saturating_mul(10).saturating_add(digit(byte))
    });
    // The fraction's first digits (enough for a scale up to 1000 without overflow), then whether
    // any digit after them is not zero, which rounds up too.
    const KEPT_DIGITS: usize = 15;
    let kept = &fraction.as_bytes()[..fraction.len().min(KEPT_DIGITS)];
    let numerator = kept
        .iter()
        .fold(0u64, |value, &byte| value * 10 + digit(byte));
    let denominator = 10u64.pow(kept.len() as u32);
    let rest_nonzero = fraction.bytes().skip(KEPT_DIGITS).any(|byte| byte != b'0');
    let scaled = numerator * scale;
    let fraction_ms =
        scaled.div_ceil(denominator) + u64::from(rest_nonzero && scaled % denominator == 0);
    Some(whole.saturating_mul(scale).saturating_add(fraction_ms))
}

/// Parses an IMF-fixdate (`Sun, 06 Nov 1994 08:49:37 GMT`) to Unix epoch milliseconds.
pub fn parse_http_date(value: &str) -> Option<u64> {
    let rest = &value[find_str(value, ", ")? + 2..];
    let fields: Vec<&str> = rest.split(' ').collect();
    let [day, month, year, time, "GMT"] = fields.as_slice() else {
        return None;
    };
    const MONTHS: [&str; 12] = [
        "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
    ];
    let month = MONTHS.iter().position(|name| name == month)? as u64 + 1;
    let day: u64 = day.parse().ok()?;
    let year: u64 = year.parse().ok()?;
    let mut clock: Vec<u64> = Vec::new();
    for part in time.split(':') {
        clock.push(part.parse().ok()?);
    }
    let [hours, minutes, seconds] = clock.as_slice() else {
        return None;
    };
    if !(1..=31).contains(&day) || year < 1970 || *hours > 23 || *minutes > 59 || *seconds > 60 {
        return None;
    }
    let days = days_since_epoch(year, month, day);
    Some(((days * 24 + hours) * 60 + minutes) * 60_000 + seconds * 1000)
}

/// Days from 1970-01-01 to a civil date (Howard Hinnant's algorithm, for years from 1970).
fn days_since_epoch(year: u64, month: u64, day: u64) -> u64 {
    let year = if month <= 2 { year - 1 } else { year };
    let era = year / 400;
    let year_of_era = year - era * 400;
    let month_from_march = (month + 9) % 12;
    let day_of_year = (153 * month_from_march + 2) / 5 + day - 1;
    let day_of_era = year_of_era * 365 + year_of_era / 4 - year_of_era / 100 + day_of_year;
    era * 146_097 + day_of_era - 719_468
}

/// The provider's own error text from a JSON error body, whatever its vendor's shape:
/// OpenAI/Gemini/Anthropic `error.message`, Ollama `error`, watsonx `errors[0].message`, IAM
/// `errorMessage`, FastAPI-style `detail`, or a plain `message`.
pub fn error_message(body: &Value) -> Option<String> {
    if let Some(first) = body.as_array().and_then(|items| items.first()) {
        return error_message(first);
    }
    let text = |value: Option<&Value>| {
        value
            .and_then(Value::as_str)
            .map(str::trim)
            .filter(|text| !text.is_empty())
            .map(str::to_owned)
    };
    match body.get("error") {
        Some(Value::String(message)) if !message.trim().is_empty() => {
            return Some(message.trim().to_owned())
        }
        Some(error @ Value::Object(_)) => {
            if let Some(message) = text(error.get("message")) {
                return Some(message);
            }
        }
        _ => {}
    }
    // `/errors/0/message`: the first of an array, or a member named `0`, as a JSON pointer reads.
    let first_error = body
        .get("errors")
        .and_then(|errors| errors.get(0).or_else(|| errors.get("0")));
    text(member_at(first_error, "message"))
        .or_else(|| text(body.get("errorMessage")))
        .or_else(|| text(body.get("detail")))
        .or_else(|| text(body.get("message")))
}

fn truncate(text: &str) -> String {
    match text.char_indices().nth(MESSAGE_LIMIT) {
        Some((cut, _)) => format!("{}…", &text[..cut]),
        None => text.to_owned(),
    }
}

impl ResolvedProvider {
    /// The error for a non-success HTTP answer: 401/403 → auth, 404 → model not found, 429 →
    /// rate limited, anything else → the status with the provider's own message. Secrets are
    /// removed from the message and the kept body.
    pub fn classify_http_failure(
        &self,
        status: u16,
        headers: &[(String, String)],
        body: &str,
        now_ms: u64,
    ) -> ProviderError {
        let provider = self.provider_name();
        let parsed = serde_json::from_str::<Value>(body).ok();
        // Redacted after decoding too: a key written with JSON escapes (`\/`, `\u002B`) is not
        // found in the raw text, and the kept body then becomes the decoded JSON, redacted.
        let decoded = parsed.as_ref().map(to_json_text);
        let body = match decoded {
            Some(decoded) if self.redact(&decoded) != decoded => self.redact(&decoded),
            _ => self.redact(body),
        };
        let message = parsed
            .as_ref()
            .and_then(error_message)
            .or_else(|| {
                let trimmed = body.trim();
                (!trimmed.is_empty()).then(|| trimmed.to_owned())
            })
            .map(|message| truncate(&self.redact(&message)))
            .unwrap_or_else(|| "no error message".to_owned());
        match status {
            401 | 403 => ProviderError::Auth {
                provider,
                status,
                message,
                body,
            },
            404 => ProviderError::ModelNotFound {
                provider,
                model: self.model.clone(),
                status,
                message,
                body,
            },
            429 => ProviderError::RateLimited {
                provider,
                status,
                retry_after_ms: parse_retry_after(headers, now_ms),
                message,
                body,
            },
            _ => ProviderError::HttpStatus {
                provider,
                status,
                message,
                body,
            },
        }
    }

    /// After attempt number `retries_done + 1` answered `status`: retry (honouring
    /// `Retry-After`) or fail with the classified error.
    #[allow(clippy::too_many_arguments)]
    pub fn after_http_failure(
        &self,
        policy: &RetryPolicy,
        retries_done: u32,
        status: u16,
        headers: &[(String, String)],
        body: &str,
        now_ms: u64,
        jitter: f64,
    ) -> RetryDecision {
        let error = self.classify_http_failure(status, headers, body, now_ms);
        if !is_retryable_status(status) || retries_done >= policy.max_retries {
            return RetryDecision::Fail(error);
        }
        match parse_retry_after(headers, now_ms) {
            Some(wait) if wait > policy.max_delay_ms => RetryDecision::Fail(error),
            Some(wait) => RetryDecision::Retry { delay_ms: wait },
            None => RetryDecision::Retry {
                delay_ms: backoff_delay_ms(policy, retries_done, jitter),
            },
        }
    }

    /// After a network failure before any response byte arrived.
    pub fn after_network_failure(
        &self,
        policy: &RetryPolicy,
        retries_done: u32,
        message: &str,
        jitter: f64,
    ) -> RetryDecision {
        if retries_done >= policy.max_retries {
            return RetryDecision::Fail(ProviderError::Network {
                provider: self.provider_name(),
                message: self.redact(message),
            });
        }
        RetryDecision::Retry {
            delay_ms: backoff_delay_ms(policy, retries_done, jitter),
        }
    }
}
