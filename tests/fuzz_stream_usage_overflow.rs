#![cfg(not(target_arch = "wasm32"))]
//! Regression found by the `stream_gemini` fuzz target (fuzz/corpus/stream_gemini/usage-overflow):
//! Gemini's `candidatesTokenCount` of 1.7e77 plus `thoughtsTokenCount` overflowed a `u64`
//! (a panic with overflow checks, a wrapped count without). Every parser that adds token counts
//! now saturates; a count that does not fit is reported as `u64::MAX`.

mod stream_support;

use mcp_agent_wasm::core::model_event::Usage;
use mcp_agent_wasm::core::stream::{DecoderOptions, WireFormat};
use stream_support::{decode, summarise, Split};

#[test]
fn token_counts_too_large_to_add_saturate() {
    // (wire format, body, expected usage)
    let cases = [
        (
            WireFormat::Gemini,
            concat!(
                r#"data: {"candidates":[{"content":{"parts":[{"text":"hi"}],"role":"model"},"finishReason":"STOP","index":0}],"#,
                r#""usageMetadata":{"promptTokenCount":29,"candidatesTokenCount":1.7e77,"thoughtsTokenCount":5}}"#,
                "\n\n"
            ),
            Usage {
                input_tokens: 29,
                output_tokens: u64::MAX,
                cached_input_tokens: None,
                reasoning_tokens: Some(5),
            },
        ),
        (
            // xAI-style usage, where reasoning tokens are counted apart when the total says so:
            // the saturated sum equals the saturated total, so they are added (12).
            WireFormat::OpenAiChat,
            concat!(
                r#"data: {"choices":[],"usage":{"prompt_tokens":1e30,"completion_tokens":5,"total_tokens":1e30,"#,
                r#""completion_tokens_details":{"reasoning_tokens":7}}}"#,
                "\n\ndata: [DONE]\n\n"
            ),
            Usage {
                input_tokens: u64::MAX,
                output_tokens: 12,
                cached_input_tokens: None,
                reasoning_tokens: Some(7),
            },
        ),
        (
            WireFormat::AnthropicMessages,
            concat!(
                "event: message_start\n",
                r#"data: {"type":"message_start","message":{"id":"m","type":"message","role":"assistant","content":[],"model":"x","#,
                r#""usage":{"input_tokens":18446744073709551615,"cache_read_input_tokens":10,"output_tokens":1}}}"#,
                "\n\nevent: message_stop\ndata: {\"type\":\"message_stop\"}\n\n"
            ),
            Usage {
                input_tokens: u64::MAX,
                output_tokens: 1,
                cached_input_tokens: Some(10),
                reasoning_tokens: None,
            },
        ),
    ];
    for (format, body, expected) in cases {
        let events = decode(
            format,
            DecoderOptions::default(),
            body.as_bytes(),
            Split::Whole,
        )
        .unwrap_or_else(|error| panic!("{format:?}: {error:?}"));
        assert_eq!(summarise(&events).usage, Some(expected), "{format:?}");
    }
}
