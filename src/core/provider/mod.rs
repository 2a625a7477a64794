//! LLM providers: the table of vendors, settings validation, request building for each wire
//! format, whole-response parsing, and the retry and error rules for failed HTTP calls.
//!
//! Everything here is pure. The web layer sends the [`HttpRequest`]s built here, feeds streamed
//! bytes to the stream decoder, and asks [`ResolvedProvider::after_http_failure`] what to do when
//! a call fails.

mod anthropic;
mod config;
mod error;
mod gemini;
mod ollama;
mod openai;
mod openai_responses;
mod request;
mod retry;
pub mod table;
mod tool_choice;
mod watsonx;

pub use anthropic::{ANTHROPIC_VERSION, DEFAULT_MAX_TOKENS as ANTHROPIC_DEFAULT_MAX_TOKENS};
pub use config::{ProviderConfig, ResolvedProvider};
pub use error::ProviderError;
pub use openai::AZURE_DEFAULT_API_VERSION;
pub use request::{BuiltRequest, HttpRequest, ProviderTools, ResponseMode};
pub use retry::{
    backoff_delay_ms, error_message, is_retryable_status, parse_http_date, parse_retry_after,
    RetryDecision, RetryPolicy,
};
pub use table::{find_provider, wire_name, ProviderListing, ProviderSpec, WireFormat, PROVIDERS};
pub use tool_choice::ToolChoice;
pub use watsonx::{AccessToken, IBM_IAM_TOKEN_URL, WATSONX_DEFAULT_VERSION};

use serde_json::Value;

use crate::core::model_event::{FinishReason, ModelEvent};
use crate::core::stream::{openai_responses as responses_stream, DecoderOptions};

impl ResolvedProvider {
    /// How to decode this provider's streamed responses: its wire format, and whether the model
    /// writes its reasoning inline as `<think>` tags.
    pub fn decoder_options(&self) -> (WireFormat, DecoderOptions) {
        let options = DecoderOptions {
            split_think_tags: self.spec.splits_think_tags(&self.model),
            ..DecoderOptions::default()
        };
        (self.spec.wire, options)
    }

    /// A whole (non-streaming) response body as the same events a stream would give.
    pub fn parse_whole_response(&self, body: &str) -> Result<Vec<ModelEvent>, ProviderError> {
        let invalid = |message: String| ProviderError::InvalidResponse {
            provider: self.provider_name(),
            message: self.redact(&message),
        };
        let body: Value = serde_json::from_str(body).map_err(|error| invalid(error.to_string()))?;
        let events = match self.spec.wire {
            WireFormat::OpenAiChat => openai::response_events(&body),
            WireFormat::OpenAiResponses => responses_stream::response_events(&body),
            WireFormat::AnthropicMessages => anthropic::response_events(&body),
            WireFormat::Gemini => gemini::response_events(&body),
            WireFormat::OllamaNdjson => {
                ollama::response_events(&body, self.spec.splits_think_tags(&self.model))
            }
        };
        events.map(normalise_finish).map_err(invalid)
    }
}

/// Providers say "stop" even when the model asked for tools (Gemini always, Ollama and some
/// compatibles too): as the stream parsers do, the reason becomes `ToolCalls` whenever the
/// response carried a call, so whole and streamed responses give the same events.
fn normalise_finish(mut events: Vec<ModelEvent>) -> Vec<ModelEvent> {
    let made_calls = events
        .iter()
        .any(|event| matches!(event, ModelEvent::ToolCallDelta(_)));
    if made_calls {
        for event in &mut events {
            if *event == ModelEvent::Finish(FinishReason::Stop) {
                *event = ModelEvent::Finish(FinishReason::ToolCalls);
            }
        }
    }
    events
}
