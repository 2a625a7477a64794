//! What to do after a failed attempt: retry after how long, or which error to report. Pure: the
//! clock ("now") and the jitter random number come in as arguments.

use serde_json::Value;

use super::config::ResolvedProvider;
use super::error::ProviderError;

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

/// Whether a status is worth another attempt.
pub fn is_retryable_status(status: u16) -> bool {
    status == 429 || (500..600).contains(&status)
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
    if let Some(milliseconds) = header("retry-after-ms").and_then(|value| value.parse::<f64>().ok())
    {
        if milliseconds.is_finite() && milliseconds >= 0.0 {
            return Some(milliseconds.ceil() as u64);
        }
    }
    let value = header("retry-after")?;
    if let Ok(seconds) = value.parse::<u64>() {
        return Some(seconds.saturating_mul(1000));
    }
    if let Ok(seconds) = value.parse::<f64>() {
        return (seconds.is_finite() && seconds >= 0.0).then(|| (seconds * 1000.0).ceil() as u64);
    }
    let date_ms = parse_http_date(value)?;
    Some(date_ms.saturating_sub(now_ms))
}

/// Parses an IMF-fixdate (`Sun, 06 Nov 1994 08:49:37 GMT`) to Unix epoch milliseconds.
pub fn parse_http_date(value: &str) -> Option<u64> {
    let (_weekday, rest) = value.split_once(", ")?;
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
    let clock: Vec<u64> = time
        .split(':')
        .map(|part| part.parse().ok())
        .collect::<Option<_>>()?;
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
    text(body.pointer("/errors/0/message"))
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
        let body = self.redact(body);
        let message = serde_json::from_str::<Value>(&body)
            .ok()
            .as_ref()
            .and_then(error_message)
            .or_else(|| {
                let trimmed = body.trim();
                (!trimmed.is_empty()).then(|| trimmed.to_owned())
            })
            .map(|message| truncate(&message))
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
