#![cfg(not(target_arch = "wasm32"))]
//! Whole (non-streaming) response bodies parsed into the model-event vocabulary. The bodies are
//! written to the shapes in each vendor's API reference for the non-streaming call.

use serde_json::json;

use mcp_agent_wasm::core::model_event::{
    ArgumentsDelta, FinishReason, ModelEvent, ProviderStreamError, ToolCallDelta, Usage,
};
use mcp_agent_wasm::core::provider::{ProviderConfig, ResolvedProvider};

fn provider(id: &str, model: &str) -> ResolvedProvider {
    ProviderConfig {
        id: id.into(),
        api_key: Some("sk-test".into()),
        model: Some(model.into()),
        project_id: Some("p".into()),
        ..ProviderConfig::default()
    }
    .resolve()
    .unwrap()
}

fn call(index: u32, id: Option<&str>, name: &str, arguments: ArgumentsDelta) -> ModelEvent {
    ModelEvent::ToolCallDelta(ToolCallDelta {
        index: Some(index),
        id: id.map(str::to_owned),
        name: Some(name.to_owned()),
        arguments: Some(arguments),
        thought_signature: None,
    })
}

fn usage(input_tokens: u64, output_tokens: u64) -> ModelEvent {
    ModelEvent::Usage(Usage {
        input_tokens,
        output_tokens,
        ..Default::default()
    })
}

/// Counts with the parts a provider reports apart: cached prompt tokens, reasoning tokens.
fn usage_with_parts(
    input: u64,
    output: u64,
    cached: Option<u64>,
    reasoning: Option<u64>,
) -> ModelEvent {
    ModelEvent::Usage(Usage {
        input_tokens: input,
        output_tokens: output,
        cached_input_tokens: cached,
        reasoning_tokens: reasoning,
    })
}

#[test]
fn openai_completion_with_reasoning_and_calls() {
    let body = r#"{
      "id": "chatcmpl-1", "object": "chat.completion", "model": "deepseek-flash",
      "choices": [{"index": 0, "finish_reason": "tool_calls", "message": {
        "role": "assistant", "content": null, "reasoning_content": "Two lookups.",
        "tool_calls": [
          {"id": "call_a", "type": "function", "function": {"name": "weather_get", "arguments": "{\"city\":\"Paris\"}"}},
          {"id": "call_b", "type": "function", "function": {"name": "clock_now", "arguments": "{}"}}
        ]}}],
      "usage": {"prompt_tokens": 120, "completion_tokens": 33, "total_tokens": 153}
    }"#;
    assert_eq!(
        provider("deepseek", "deepseek-flash")
            .parse_whole_response(body)
            .unwrap(),
        vec![
            ModelEvent::ReasoningDelta("Two lookups.".into()),
            call(
                0,
                Some("call_a"),
                "weather_get",
                ArgumentsDelta::Fragment(r#"{"city":"Paris"}"#.into())
            ),
            call(
                1,
                Some("call_b"),
                "clock_now",
                ArgumentsDelta::Fragment("{}".into())
            ),
            ModelEvent::Finish(FinishReason::ToolCalls),
            usage(120, 33),
        ]
    );
}

#[test]
fn openai_plain_answer_and_in_body_error() {
    let openai = provider("openai", "gpt-4o");
    let answer = r#"{"choices":[{"index":0,"message":{"role":"assistant","content":"Hello!"},"finish_reason":"stop"}]}"#;
    assert_eq!(
        openai.parse_whole_response(answer).unwrap(),
        vec![
            ModelEvent::TextDelta("Hello!".into()),
            ModelEvent::Finish(FinishReason::Stop)
        ]
    );
    let error = r#"{"error":{"message":"Provider returned error","code":502}}"#;
    assert_eq!(
        openai.parse_whole_response(error).unwrap(),
        vec![ModelEvent::Error(ProviderStreamError {
            code: Some("502".into()),
            message: "Provider returned error".into()
        })]
    );
    let broken = openai.parse_whole_response("{\"choices\": [").unwrap_err();
    assert_eq!(broken.code(), "provider_invalid_response");
    assert_eq!(
        openai
            .parse_whole_response(r#"{"choices": []}"#)
            .unwrap_err()
            .code(),
        "provider_invalid_response"
    );
}

#[test]
fn anthropic_message_with_thinking_and_tool_use() {
    let body = json!({
        "id": "msg_1", "type": "message", "role": "assistant", "model": "claude-sonnet-4-5",
        "content": [
            {"type": "thinking", "thinking": "Need weather.", "signature": "EqQBsig"},
            {"type": "redacted_thinking", "data": "opaque"},
            {"type": "text", "text": "Let me check."},
            {"type": "tool_use", "id": "toolu_01", "name": "weather_get", "input": {"city": "Paris"}}
        ],
        "stop_reason": "tool_use",
        "usage": {"input_tokens": 50, "cache_read_input_tokens": 10, "output_tokens": 20}
    });
    assert_eq!(
        provider("anthropic", "claude-sonnet-4-5")
            .parse_whole_response(&body.to_string())
            .unwrap(),
        vec![
            ModelEvent::ReasoningDelta("Need weather.".into()),
            ModelEvent::ReasoningSignature("EqQBsig".into()),
            ModelEvent::RedactedReasoning("opaque".into()),
            ModelEvent::TextDelta("Let me check.".into()),
            call(
                0,
                Some("toolu_01"),
                "weather_get",
                ArgumentsDelta::Whole(json!({"city": "Paris"}))
            ),
            ModelEvent::Finish(FinishReason::ToolCalls),
            usage_with_parts(60, 20, Some(10), None),
        ]
    );
    let overloaded =
        r#"{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}"#;
    assert_eq!(
        provider("anthropic", "claude-sonnet-4-5")
            .parse_whole_response(overloaded)
            .unwrap(),
        vec![ModelEvent::Error(ProviderStreamError {
            code: Some("overloaded_error".into()),
            message: "Overloaded".into()
        })]
    );
}

/// Anthropic's `model_context_window_exceeded` (Messages API, "stop_reason": the answer reached
/// the model's context window) cuts an answer as `max_tokens` does; the AI SDK's Anthropic
/// provider names both `length` (map-anthropic-stop-reason.ts).
#[test]
fn an_anthropic_answer_cut_by_the_context_window_finished_at_the_length_limit() {
    let body = r#"{"type":"message","content":[{"type":"text","text":"An answer that"}],"stop_reason":"model_context_window_exceeded"}"#;
    let events = provider("anthropic", "claude-sonnet-4-5")
        .parse_whole_response(body)
        .unwrap();
    assert_eq!(
        events.last(),
        Some(&ModelEvent::Finish(FinishReason::Length))
    );
}

#[test]
fn a_stop_with_calls_is_reported_as_tool_calls_on_every_wire() {
    let openai = r#"{"choices":[{"index":0,"finish_reason":"stop","message":{"role":"assistant","content":null,
      "tool_calls":[{"id":"call_1","type":"function","function":{"name":"f","arguments":"{}"}}]}}]}"#;
    let anthropic = r#"{"type":"message","content":[{"type":"tool_use","id":"toolu_1","name":"f","input":{}}],"stop_reason":"end_turn"}"#;
    for (id, body) in [("openai", openai), ("anthropic", anthropic)] {
        let events = provider(id, "m").parse_whole_response(body).unwrap();
        assert_eq!(
            events.last(),
            Some(&ModelEvent::Finish(FinishReason::ToolCalls)),
            "{id}"
        );
    }
}

#[test]
fn gemini_candidate_with_thought_and_signed_call() {
    let body = json!({
        "candidates": [{
            "content": {"role": "model", "parts": [
                {"text": "Thinking about weather.", "thought": true, "thoughtSignature": "CiQBthought"},
                {"functionCall": {"name": "weather_get", "args": {"city": "Paris"}},
                 "thoughtSignature": "CiQBsig"},
                {"functionCall": {"name": "clock_now", "args": {}}}
            ]},
            "finishReason": "STOP", "index": 0
        }],
        "usageMetadata": {"promptTokenCount": 40, "candidatesTokenCount": 12, "thoughtsTokenCount": 30}
    });
    assert_eq!(
        provider("google", "gemini-2.5-flash")
            .parse_whole_response(&body.to_string())
            .unwrap(),
        vec![
            ModelEvent::ReasoningDelta("Thinking about weather.".into()),
            ModelEvent::TextSignature("CiQBthought".into()),
            ModelEvent::ToolCallDelta(ToolCallDelta {
                index: Some(0),
                id: None,
                name: Some("weather_get".into()),
                arguments: Some(ArgumentsDelta::Whole(json!({"city": "Paris"}))),
                thought_signature: Some("CiQBsig".into()),
            }),
            call(1, None, "clock_now", ArgumentsDelta::Whole(json!({}))),
            ModelEvent::Finish(FinishReason::ToolCalls),
            usage_with_parts(40, 42, None, Some(30)),
        ]
    );
    let blocked = r#"{"promptFeedback":{"blockReason":"SAFETY"}}"#;
    assert_eq!(
        provider("google", "gemini-2.5-flash")
            .parse_whole_response(blocked)
            .unwrap(),
        vec![ModelEvent::Error(ProviderStreamError {
            code: Some("SAFETY".into()),
            message: "the prompt was blocked (SAFETY)".into()
        })]
    );
}

#[test]
fn ollama_reply_with_object_arguments_and_think_tags() {
    let body = json!({
        "model": "deepseek-r1:14b", "done": true, "done_reason": "stop",
        "message": {"role": "assistant",
                    "content": "<think>\nThe user wants weather.\n</think>\n\nChecking.",
                    "tool_calls": [{"function": {"name": "weather_get", "arguments": {"city": "Paris"}}}]},
        "prompt_eval_count": 26, "eval_count": 290
    });
    assert_eq!(
        provider("ollama", "deepseek-r1:14b")
            .parse_whole_response(&body.to_string())
            .unwrap(),
        vec![
            ModelEvent::ReasoningDelta("The user wants weather.".into()),
            ModelEvent::TextDelta("Checking.".into()),
            call(
                0,
                None,
                "weather_get",
                ArgumentsDelta::Whole(json!({"city": "Paris"}))
            ),
            usage(26, 290),
            ModelEvent::Finish(FinishReason::ToolCalls),
        ]
    );
    // A model outside the think-tag list keeps its text as it is.
    let plain = json!({"done": true, "done_reason": "length",
                       "message": {"role": "assistant", "content": "a </think> b", "thinking": "hmm"}});
    assert_eq!(
        provider("ollama", "qwen3:8b")
            .parse_whole_response(&plain.to_string())
            .unwrap(),
        vec![
            ModelEvent::ReasoningDelta("hmm".into()),
            ModelEvent::TextDelta("a </think> b".into()),
            usage(0, 0),
            ModelEvent::Finish(FinishReason::Length),
        ]
    );
}

#[test]
fn watsonx_chat_reply_is_openai_shaped() {
    let body = r#"{"id":"chat-1","model_id":"ibm/granite-4-h-small","created":1,
      "choices":[{"index":0,"message":{"role":"assistant","tool_calls":[{"id":"chatcmpl-tool-1","type":"function","function":{"name":"weather_get","arguments":"{\"city\": \"Paris\"}"}}]},"finish_reason":"tool_calls"}],
      "usage":{"completion_tokens":20,"prompt_tokens":200,"total_tokens":220}}"#;
    assert_eq!(
        provider("ibm", "ibm/granite-4-h-small")
            .parse_whole_response(body)
            .unwrap(),
        vec![
            call(
                0,
                Some("chatcmpl-tool-1"),
                "weather_get",
                ArgumentsDelta::Fragment(r#"{"city": "Paris"}"#.into())
            ),
            ModelEvent::Finish(FinishReason::ToolCalls),
            usage(200, 20),
        ]
    );
}

/// Gemini's OpenAI-compatible endpoint signs each call in `extra_content`; the non-streaming
/// reader keeps the signature, as the stream parser does.
#[test]
fn openai_shaped_reply_keeps_a_call_signature() {
    let body = json!({"choices": [{"index": 0, "finish_reason": "tool_calls", "message": {
        "role": "assistant",
        "tool_calls": [{"id": "call_a", "type": "function",
            "extra_content": {"google": {"thought_signature": "sig-A"}},
            "function": {"name": "weather_get", "arguments": "{\"city\":\"Paris\"}"}}]
    }}]});
    let gemini_openai = ProviderConfig {
        id: "openai_compatible".into(),
        base_url: Some("https://generativelanguage.googleapis.com/v1beta/openai".into()),
        model: Some("gemini-3-flash-preview".into()),
        ..ProviderConfig::default()
    };
    let events = gemini_openai
        .resolve()
        .expect("complete config")
        .parse_whole_response(&body.to_string())
        .expect("parses");
    let mut signed = call(
        0,
        Some("call_a"),
        "weather_get",
        ArgumentsDelta::Fragment(r#"{"city":"Paris"}"#.into()),
    );
    if let ModelEvent::ToolCallDelta(delta) = &mut signed {
        delta.thought_signature = Some("sig-A".into());
    }
    assert_eq!(
        events,
        [signed, ModelEvent::Finish(FinishReason::ToolCalls)]
    );
}

/// A whole answer's token counts are read as a stream's are: xAI's reasoning tokens, counted
/// apart from `completion_tokens` (its total says so), join the output, and the cached prompt
/// tokens are reported apart (the usage of shared/fixtures/openai-compatible/xai-tool-call).
#[test]
fn a_whole_answer_counts_tokens_as_its_stream_does() {
    let body = r#"{"choices":[{"index":0,"finish_reason":"stop","message":{"role":"assistant","content":"ok"}}],
      "usage":{"prompt_tokens":307,"completion_tokens":26,"total_tokens":560,
        "prompt_tokens_details":{"text_tokens":307,"cached_tokens":306},
        "completion_tokens_details":{"reasoning_tokens":227}}}"#;
    let events = provider("grok", "grok-4")
        .parse_whole_response(body)
        .unwrap();
    assert_eq!(
        events.last(),
        Some(&usage_with_parts(307, 26 + 227, Some(306), Some(227)))
    );
}

/// OpenAI Responses, read directly (the provider row that uses this wire is the lead's): items
/// in output order, the reasoning summary's parts set apart as a stream's are, the reasoning's
/// `encrypted_content` as its signature, calls by `call_id` at their output index. Shape: the
/// response object of OpenAI's API reference and vercel/ai's captured
/// `packages/openai/src/responses/__fixtures__/openai-reasoning-encrypted-content.1.json`.
#[test]
fn openai_responses_reply_with_reasoning_text_and_calls() {
    let body = json!({
      "id": "resp_1", "object": "response", "status": "completed", "error": null,
      "incomplete_details": null, "model": "gpt-5-mini",
      "output": [
        {"id": "rs_1", "type": "reasoning", "encrypted_content": "gAAAA-enc",
         "summary": [{"type": "summary_text", "text": "**Plan**"},
                     {"type": "summary_text", "text": "Two lookups."}]},
        {"id": "msg_1", "type": "message", "status": "completed", "role": "assistant",
         "content": [{"type": "output_text", "annotations": [], "text": "Looking "},
                     {"type": "output_text", "annotations": [], "text": "both up."}]},
        {"id": "fc_1", "type": "function_call", "status": "completed",
         "call_id": "call_a", "name": "weather_get", "arguments": "{\"city\":\"Paris\"}"},
        {"id": "ws_1", "type": "web_search_call", "status": "completed"},
        {"id": "fc_2", "type": "function_call", "status": "completed",
         "call_id": "call_b", "name": "clock_now", "arguments": ""}
      ],
      "usage": {"input_tokens": 865, "input_tokens_details": {"cached_tokens": 512},
                "output_tokens": 163, "output_tokens_details": {"reasoning_tokens": 128},
                "total_tokens": 1028}
    });
    let events = mcp_agent_wasm::core::stream::responses_response_events(&body).unwrap();
    assert_eq!(
        events,
        vec![
            ModelEvent::ReasoningDelta("**Plan**".into()),
            ModelEvent::ReasoningDelta("\n\nTwo lookups.".into()),
            ModelEvent::EncryptedReasoning("gAAAA-enc".into()),
            ModelEvent::TextDelta("Looking ".into()),
            ModelEvent::TextDelta("both up.".into()),
            call(
                2,
                Some("call_a"),
                "weather_get",
                ArgumentsDelta::Fragment(r#"{"city":"Paris"}"#.into())
            ),
            ModelEvent::ToolCallDelta(ToolCallDelta {
                index: Some(4),
                id: Some("call_b".into()),
                name: Some("clock_now".into()),
                arguments: None,
                thought_signature: None,
            }),
            ModelEvent::Finish(FinishReason::Stop),
            usage_with_parts(865, 163, Some(512), Some(128)),
        ]
    );
}

/// Raw reasoning text (open-weight models behind a Responses server put it in `content` as
/// `reasoning_text`), a second reasoning item set apart from the first, a refusal as the answer,
/// and an incomplete response's reason (`incomplete_details.reason`, OpenAI's API reference:
/// `max_output_tokens` or `content_filter`).
#[test]
fn openai_responses_incomplete_reply_with_raw_reasoning_and_refusal() {
    let body = json!({
      "object": "response", "status": "incomplete", "error": null,
      "incomplete_details": {"reason": "content_filter"},
      "output": [
        {"id": "rs_1", "type": "reasoning", "summary": [],
         "content": [{"type": "reasoning_text", "text": "Is this allowed?"}]},
        {"id": "rs_2", "type": "reasoning", "summary": [],
         "content": [{"type": "reasoning_text", "text": "No."}]},
        {"id": "msg_1", "type": "message", "role": "assistant",
         "content": [{"type": "refusal", "refusal": "I can't help with that."}]}
      ],
      "usage": {"input_tokens": 15, "output_tokens": 12}
    });
    let events = mcp_agent_wasm::core::stream::responses_response_events(&body).unwrap();
    assert_eq!(
        events,
        vec![
            ModelEvent::ReasoningDelta("Is this allowed?".into()),
            ModelEvent::ReasoningDelta("\n\nNo.".into()),
            ModelEvent::TextDelta("I can't help with that.".into()),
            ModelEvent::Finish(FinishReason::ContentFilter),
            usage(15, 12),
        ]
    );
    let cut = json!({"status": "incomplete", "incomplete_details": {"reason": "max_output_tokens"},
                     "output": []});
    assert_eq!(
        mcp_agent_wasm::core::stream::responses_response_events(&cut).unwrap(),
        vec![ModelEvent::Finish(FinishReason::Length)]
    );
}

/// A failed response is its `error` alone (`{code, message}`, as vercel/ai's capture
/// `openai-response-failed-only.1.chunks.txt` shows it); a failed one without an error still
/// fails; a body without `output` is no response.
#[test]
fn openai_responses_failed_reply_is_one_error_and_a_body_without_output_is_refused() {
    let failed = json!({
      "object": "response", "status": "failed", "output": [], "usage": null,
      "error": {"code": "rate_limit_exceeded", "message": "Request too large for gpt-5-mini"}
    });
    assert_eq!(
        mcp_agent_wasm::core::stream::responses_response_events(&failed).unwrap(),
        vec![ModelEvent::Error(ProviderStreamError {
            code: Some("rate_limit_exceeded".into()),
            message: "Request too large for gpt-5-mini".into(),
        })]
    );
    let silent = json!({"status": "failed", "error": null, "output": []});
    assert_eq!(
        mcp_agent_wasm::core::stream::responses_response_events(&silent).unwrap(),
        vec![ModelEvent::Error(ProviderStreamError {
            code: None,
            message: "the response failed without an error message".into(),
        })]
    );
    assert_eq!(
        mcp_agent_wasm::core::stream::responses_response_events(&json!({"object": "list"})),
        Err("no `output` array in the response".to_owned())
    );
}

/// Hostile token counts cannot panic or wrap: a count past `u64` saturates, one that is not a
/// number counts as none, as on the other wires (`tests/fuzz_stream_usage_overflow.rs`).
#[test]
fn openai_responses_token_counts_too_large_saturate() {
    let body = json!({
      "status": "completed", "output": [],
      "usage": {"input_tokens": 1e30, "input_tokens_details": {"cached_tokens": "many"},
                "output_tokens": 18446744073709551615u64,
                "output_tokens_details": {"reasoning_tokens": -5}}
    });
    assert_eq!(
        mcp_agent_wasm::core::stream::responses_response_events(&body).unwrap(),
        vec![
            ModelEvent::Finish(FinishReason::Stop),
            usage_with_parts(u64::MAX, u64::MAX, Some(0), Some(0)),
        ]
    );
}

/// OpenRouter's whole answer carries its `reasoning_details` on the message, to go back on the
/// next request as a stream's do (OpenRouter's docs, "Reasoning Tokens": "Preserving reasoning
/// blocks"); Gemini 3's thought signature rides in the encrypted one, named by its call's id.
#[test]
fn an_openrouter_whole_answer_keeps_its_reasoning_details() {
    let details = json!([
        {"type": "reasoning.text", "text": "Look it up.", "format": "google-gemini-v1", "index": 0},
        {"id": "tool_1", "format": "google-gemini-v1", "index": 1, "type": "reasoning.encrypted",
         "data": "CiQBenc"},
    ]);
    let body = json!({"id": "gen-1", "provider": "Google AI Studio", "model": "google/gemini-3.5-flash",
        "object": "chat.completion", "choices": [{"index": 0, "finish_reason": "tool_calls",
        "native_finish_reason": "STOP", "message": {"role": "assistant", "content": "",
        "reasoning": "Look it up.", "refusal": null,
        "tool_calls": [{"type": "function", "index": 0, "id": "tool_1",
            "function": {"name": "weather_get", "arguments": "{}"}}],
        "reasoning_details": details}}]});
    let events = provider("openrouter", "google/gemini-3.5-flash")
        .parse_whole_response(&body.to_string())
        .expect("parses");
    let kept: Vec<serde_json::Value> = events
        .iter()
        .filter_map(|event| match event {
            ModelEvent::ReasoningDetails(details) => Some(details),
            _ => None,
        })
        .flatten()
        .cloned()
        .collect();
    assert_eq!(json!(kept), details);
    assert!(events.contains(&ModelEvent::ReasoningDelta("Look it up.".into())));
}
