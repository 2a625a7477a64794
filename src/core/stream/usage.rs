//! Token counts per wire format, for streamed and whole responses alike.
//!
//! Normalised: cached prompt tokens are counted in the input (and apart, as
//! `cached_input_tokens`, since they are billed lower), reasoning tokens in the output (and
//! apart, as `reasoning_tokens`). A part count is `None` when the provider does not report it.

use serde_json::Value;

use super::token_count;
use crate::core::model_event::Usage;

/// A count that is `None` when `key` is missing, so that "not reported" differs from zero.
fn reported(value: &Value, key: &str) -> Option<u64> {
    value.get(key).map(|_| token_count(value, key))
}

/// OpenAI Chat Completions and its copies. OpenAI and DeepSeek count reasoning tokens in
/// `completion_tokens` already; xAI does not, which shows in `total_tokens` being the sum of all
/// three, and then they are added. Cached prompt tokens are OpenAI's
/// `prompt_tokens_details.cached_tokens`, DeepSeek's older `prompt_cache_hit_tokens`.
pub(crate) fn openai_usage(usage: &Value) -> Usage {
    let input_tokens = token_count(usage, "prompt_tokens");
    let completion_tokens = token_count(usage, "completion_tokens");
    let reasoning_tokens = usage
        .get("completion_tokens_details")
        .and_then(|details| reported(details, "reasoning_tokens"));
    let total_tokens = token_count(usage, "total_tokens");
    let reasoning = reasoning_tokens.unwrap_or(0);
    let reasoning_counted_apart = reasoning > 0
        && total_tokens
            == input_tokens
                .saturating_add(completion_tokens)
                .saturating_add(reasoning);
    Usage {
        input_tokens,
        output_tokens: if reasoning_counted_apart {
            completion_tokens.saturating_add(reasoning)
        } else {
            completion_tokens
        },
        cached_input_tokens: usage
            .get("prompt_tokens_details")
            .and_then(|details| reported(details, "cached_tokens"))
            .or_else(|| reported(usage, "prompt_cache_hit_tokens")),
        reasoning_tokens,
    }
}

/// Anthropic's `usage`, on a whole message or on a stream's `message_start` and `message_delta`:
/// counts present replace earlier ones. Cache writes and reads are input too; thinking tokens are
/// in `output_tokens` and not reported apart.
pub(crate) fn update_anthropic_usage(current: &mut Usage, usage: &Value) {
    const INPUT_KEYS: [&str; 3] = [
        "input_tokens",
        "cache_creation_input_tokens",
        "cache_read_input_tokens",
    ];
    if INPUT_KEYS.iter().any(|key| usage.get(key).is_some()) {
        current.input_tokens = INPUT_KEYS
            .iter()
            .map(|key| token_count(usage, key))
            .fold(0, u64::saturating_add);
        current.cached_input_tokens = reported(usage, "cache_read_input_tokens");
    }
    if usage.get("output_tokens").is_some() {
        current.output_tokens = token_count(usage, "output_tokens");
    }
}

/// Gemini's `usageMetadata`: thinking tokens (`thoughtsTokenCount`) are outside
/// `candidatesTokenCount`, and added to the output.
pub(crate) fn gemini_usage(metadata: &Value) -> Usage {
    let reasoning_tokens = reported(metadata, "thoughtsTokenCount");
    Usage {
        input_tokens: token_count(metadata, "promptTokenCount"),
        output_tokens: token_count(metadata, "candidatesTokenCount")
            .saturating_add(reasoning_tokens.unwrap_or(0)),
        cached_input_tokens: reported(metadata, "cachedContentTokenCount"),
        reasoning_tokens,
    }
}

/// Ollama's last chunk (or whole answer): prompt and answer counts only.
pub(crate) fn ollama_usage(done: &Value) -> Usage {
    Usage {
        input_tokens: token_count(done, "prompt_eval_count"),
        output_tokens: token_count(done, "eval_count"),
        ..Usage::default()
    }
}

/// OpenAI Responses' `usage`: as in Chat Completions, `input_tokens` already holds the cached
/// ones (`input_tokens_details.cached_tokens`) and `output_tokens` the reasoning ones
/// (`output_tokens_details.reasoning_tokens`).
pub(crate) fn responses_usage(usage: &Value) -> Usage {
    Usage {
        input_tokens: token_count(usage, "input_tokens"),
        output_tokens: token_count(usage, "output_tokens"),
        cached_input_tokens: usage
            .get("input_tokens_details")
            .and_then(|details| reported(details, "cached_tokens")),
        reasoning_tokens: usage
            .get("output_tokens_details")
            .and_then(|details| reported(details, "reasoning_tokens")),
    }
}
