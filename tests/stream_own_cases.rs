#![cfg(not(target_arch = "wasm32"))]
//! The bodies in `tests/fixtures/streams` (written for this project, see the README there)
//! decoded to the outcome written here, identically under every split of the body.

mod common;
mod stream_support;

use std::path::Path;

use mcp_agent_wasm::core::assembler::AssembledToolCall;
use mcp_agent_wasm::core::model_event::{FinishReason, ModelEvent, Usage};
use mcp_agent_wasm::core::stream::{DecoderOptions, WireFormat, INVALID_PAYLOAD_CODE};
use serde_json::{json, Value};
use stream_support::{all_splits, decode, summarise, Outcome};

/// id, synthesized, name, arguments or a piece of the error, thought signature.
type ExpectedCall = (
    &'static str,
    bool,
    &'static str,
    Result<Value, &'static str>,
    Option<&'static str>,
);

#[derive(Debug, Default)]
struct Expected {
    text: &'static str,
    reasoning: &'static str,
    reasoning_signatures: Vec<&'static str>,
    encrypted_reasoning: Vec<&'static str>,
    redacted_reasoning: Vec<&'static str>,
    reasoning_details: Vec<Value>,
    calls: Vec<ExpectedCall>,
    finish: Option<FinishReason>,
    usage: Option<Usage>,
    /// code and a piece of the message.
    errors: Vec<(Option<&'static str>, &'static str)>,
}

/// Counts whose cached and reasoning parts are set apart by `with_parts`.
fn with_parts(
    usage: Option<Usage>,
    cached_input_tokens: Option<u64>,
    reasoning_tokens: Option<u64>,
) -> Option<Usage> {
    usage.map(|usage| Usage {
        cached_input_tokens,
        reasoning_tokens,
        ..usage
    })
}

fn usage(input_tokens: u64, output_tokens: u64) -> Option<Usage> {
    Some(Usage {
        input_tokens,
        output_tokens,
        ..Default::default()
    })
}

fn call_matches(
    call: &AssembledToolCall,
    (id, synthesized, name, arguments, signature): &ExpectedCall,
) -> bool {
    call.id == *id
        && call.id_synthesized == *synthesized
        && call.name == *name
        && call.thought_signature.as_deref() == *signature
        && match (&call.arguments, arguments) {
            (Ok(value), Ok(want)) => value == want,
            (Err(message), Err(piece)) => message.contains(piece),
            _ => false,
        }
}

fn matches(outcome: &Outcome, expected: &Expected) -> bool {
    outcome.text == expected.text
        && outcome.reasoning == expected.reasoning
        && outcome.reasoning_signatures == expected.reasoning_signatures
        && outcome.encrypted_reasoning == expected.encrypted_reasoning
        && outcome.redacted_reasoning == expected.redacted_reasoning
        && outcome.reasoning_details == expected.reasoning_details
        && outcome.finish == expected.finish
        && outcome.usage == expected.usage
        && outcome.calls.len() == expected.calls.len()
        && outcome
            .calls
            .iter()
            .zip(&expected.calls)
            .all(|(call, want)| call_matches(call, want))
        && outcome.errors.len() == expected.errors.len()
        && outcome
            .errors
            .iter()
            .zip(&expected.errors)
            .all(|(error, (code, piece))| {
                error.code.as_deref() == *code && error.message.contains(piece)
            })
}

fn cases() -> Vec<(&'static str, WireFormat, bool, Expected)> {
    use FinishReason::{Length, Stop, ToolCalls};
    use WireFormat::{AnthropicMessages, Gemini, OllamaNdjson, OpenAiChat, OpenAiResponses};
    vec![
        (
            "openrouter-claude-reasoning-details.sse",
            OpenAiChat,
            false,
            Expected {
                text: "Checking.",
                reasoning: "The user wants the weather in Paris; one forecast call.",
                reasoning_details: vec![json!({
                    "type": "reasoning.text",
                    "text": "The user wants the weather in Paris; one forecast call.",
                    "format": "anthropic-claude-v1",
                    "index": 0,
                    "signature": "ErUBCkYIBxgCIkDclaudeSignature==",
                })],
                calls: vec![(
                    "toolu_vrtx_01Paris",
                    false,
                    "weather_forecast",
                    Ok(json!({"city": "Paris"})),
                    None,
                )],
                finish: Some(ToolCalls),
                usage: with_parts(usage(512, 96), Some(0), Some(40)),
                ..Expected::default()
            },
        ),
        (
            "openrouter-gemini-reasoning-details.sse",
            OpenAiChat,
            false,
            Expected {
                reasoning: "**Checking the forecast**\n\nI will ask for Paris.",
                reasoning_details: vec![
                    json!({"type": "reasoning.text", "text": "**Checking the forecast**\n\nI will ask for Paris.",
                           "format": "google-gemini-v1", "index": 0}),
                    json!({"id": "tool_weather_forecast_Zm9yZWNhc3Q", "format": "google-gemini-v1",
                           "index": 1, "type": "reasoning.encrypted",
                           "data": "CiQBVKhc7gGeminiThoughtSignature=="}),
                ],
                calls: vec![(
                    "tool_weather_forecast_Zm9yZWNhc3Q",
                    false,
                    "weather_forecast",
                    Ok(json!({"city": "Paris"})),
                    None,
                )],
                finish: Some(ToolCalls),
                usage: with_parts(usage(300, 60), Some(0), Some(44)),
                ..Expected::default()
            },
        ),
        (
            "openai-responses-text.sse",
            OpenAiResponses,
            false,
            Expected {
                text: "Hello, world.",
                finish: Some(Stop),
                usage: with_parts(usage(1200, 300), Some(1024), Some(256)),
                ..Expected::default()
            },
        ),
        (
            "openai-responses-reasoning-calls.sse",
            OpenAiResponses,
            false,
            Expected {
                reasoning: "**Two cities**\n\nLook up both.\n\nThen compare.",
                encrypted_reasoning: vec!["enc-final"],
                calls: vec![
                    (
                        "call_paris",
                        false,
                        "get_weather",
                        Ok(json!({"city": "Paris"})),
                        None,
                    ),
                    (
                        "call_rome",
                        false,
                        "get_weather",
                        Ok(json!({"city": "Rome"})),
                        None,
                    ),
                ],
                finish: Some(ToolCalls),
                usage: with_parts(usage(80, 150), Some(0), Some(64)),
                ..Expected::default()
            },
        ),
        (
            "openai-responses-incomplete.sse",
            OpenAiResponses,
            false,
            Expected {
                text: "Writing the file.",
                calls: vec![("call_write", false, "write_file", Err("truncated"), None)],
                finish: Some(Length),
                usage: with_parts(usage(40, 32), Some(0), Some(0)),
                ..Expected::default()
            },
        ),
        (
            "openai-responses-error-then-failed.sse",
            OpenAiResponses,
            false,
            Expected {
                text: "Partial ",
                errors: vec![(Some("insufficient_quota"), "exceeded your current quota")],
                ..Expected::default()
            },
        ),
        (
            "openai-responses-failed.sse",
            OpenAiResponses,
            false,
            Expected {
                errors: vec![(Some("rate_limit_exceeded"), "Request too large")],
                ..Expected::default()
            },
        ),
        (
            "openai-responses-error-event.sse",
            OpenAiResponses,
            false,
            Expected {
                errors: vec![
                    (Some(INVALID_PAYLOAD_CODE), "not a JSON object"),
                    (Some("server_error"), "The server had an error"),
                ],
                ..Expected::default()
            },
        ),
        (
            "openai-responses-done-items-only.sse",
            OpenAiResponses,
            false,
            Expected {
                text: "Looking both up.",
                reasoning: "The user wants two lookups.",
                calls: vec![
                    ("call_a", false, "search", Ok(json!({"term": "rust"})), None),
                    ("call_b", false, "search", Ok(json!({"term": "wasm"})), None),
                ],
                finish: Some(ToolCalls),
                usage: usage(20, 10),
                ..Expected::default()
            },
        ),
        (
            "openai-responses-raw-reasoning-refusal.sse",
            OpenAiResponses,
            false,
            Expected {
                text: "I can't help with that.",
                reasoning: "Is this allowed?\n\nNo.",
                finish: Some(Stop),
                usage: with_parts(usage(15, 12), Some(0), Some(5)),
                ..Expected::default()
            },
        ),
        (
            "openai-error-first-chunk.sse",
            OpenAiChat,
            false,
            Expected {
                errors: vec![(Some("429"), "Rate limit reached for requests")],
                ..Expected::default()
            },
        ),
        (
            "openai-error-mid-stream.sse",
            OpenAiChat,
            false,
            Expected {
                text: "Partial ",
                errors: vec![(Some("provider_error"), "Upstream provider failed")],
                ..Expected::default()
            },
        ),
        (
            "openai-quirks.sse",
            OpenAiChat,
            false,
            Expected {
                text: "Hello world",
                reasoning: "Thinking hard. Mistral thinks.",
                calls: vec![
                    (
                        "function-call-1",
                        false,
                        "lookup",
                        Ok(json!({"term": "rust"})),
                        Some("c2lnLW9uZQ=="),
                    ),
                    (
                        "function-call-2",
                        false,
                        "lookup",
                        Ok(json!({"term": "wasm"})),
                        None,
                    ),
                ],
                finish: Some(ToolCalls),
                usage: usage(40, 12),
                errors: vec![(Some(INVALID_PAYLOAD_CODE), "not valid JSON")],
                ..Expected::default()
            },
        ),
        (
            "anthropic-quirks.sse",
            AnthropicMessages,
            false,
            Expected {
                text: "Writing both.",
                reasoning: "Two files to write.",
                reasoning_signatures: vec!["sig-thinking-0"],
                redacted_reasoning: vec!["EmwKAhgBEgy3va3pzix"],
                calls: vec![
                    (
                        "toolu_a",
                        false,
                        "write_file",
                        Ok(json!({"path": "a.txt"})),
                        None,
                    ),
                    ("toolu_b", false, "write_file", Err("truncated"), None),
                ],
                finish: Some(Length),
                usage: with_parts(usage(10 + 5 + 100, 64), Some(100), None),
                ..Expected::default()
            },
        ),
        (
            "anthropic-overloaded.sse",
            AnthropicMessages,
            false,
            Expected {
                usage: usage(12, 1),
                errors: vec![(Some("overloaded_error"), "Overloaded")],
                ..Expected::default()
            },
        ),
        (
            "gemini-quirks.sse",
            Gemini,
            false,
            Expected {
                text: "Searching now.",
                reasoning: "Let me think.",
                calls: vec![
                    (
                        "call_0",
                        true,
                        "search",
                        Ok(json!({
                            "limit": 3,
                            "exact": true,
                            "cursor": null,
                            "filters": [null, {"tags": ["rust"]}],
                            "odd key": "a",
                            "score": 0.5,
                        })),
                        Some("c2lnLXN0cmVhbWVk"),
                    ),
                    (
                        "call_1",
                        true,
                        "fetch",
                        Ok(json!({"url": "https://example.org"})),
                        None,
                    ),
                ],
                finish: Some(ToolCalls),
                usage: with_parts(usage(50, 20 + 7), None, Some(7)),
                ..Expected::default()
            },
        ),
        (
            "gemini-cut-mid-call.sse",
            Gemini,
            false,
            Expected {
                calls: vec![("call_0", true, "search", Err("truncated"), None)],
                ..Expected::default()
            },
        ),
        (
            "gemini-hostile-paths.sse",
            Gemini,
            false,
            Expected {
                calls: vec![("call_0", true, "probe", Ok(json!({"ok": 1})), None)],
                finish: Some(ToolCalls),
                errors: vec![
                    (Some(INVALID_PAYLOAD_CODE), "unusable partial argument"),
                    (Some(INVALID_PAYLOAD_CODE), "unusable partial argument"),
                    (Some(INVALID_PAYLOAD_CODE), "unusable partial argument"),
                    (Some(INVALID_PAYLOAD_CODE), "unusable partial argument"),
                ],
                ..Expected::default()
            },
        ),
        (
            "gemini-error.sse",
            Gemini,
            false,
            Expected {
                errors: vec![(Some("503"), "The model is overloaded")],
                ..Expected::default()
            },
        ),
        (
            "ollama-think-tags.ndjson",
            OllamaNdjson,
            true,
            Expected {
                text: "Hello!",
                reasoning: "\nThe user says hi. Greet back.",
                finish: Some(Stop),
                usage: usage(6, 20),
                ..Expected::default()
            },
        ),
        (
            "ollama-think-tags.ndjson",
            OllamaNdjson,
            false,
            Expected {
                text: "<think>\nThe user says hi. Greet back.</think>\n\nHello!",
                finish: Some(Stop),
                usage: usage(6, 20),
                ..Expected::default()
            },
        ),
        (
            "ollama-think-missing-open.ndjson",
            OllamaNdjson,
            true,
            Expected {
                text: "Hi there.",
                reasoning: "Okay, a greeting.",
                ..Expected::default()
            },
        ),
        (
            "ollama-thinking-field.ndjson",
            OllamaNdjson,
            true,
            Expected {
                text: "Answer streams at once.",
                reasoning: "Short thought.",
                finish: Some(Stop),
                usage: usage(4, 8),
                ..Expected::default()
            },
        ),
        (
            "ollama-calls-in-separate-lines.ndjson",
            OllamaNdjson,
            false,
            Expected {
                calls: vec![
                    (
                        "call_0",
                        true,
                        "get_weather",
                        Ok(json!({"city": "Oslo"})),
                        None,
                    ),
                    (
                        "call_1",
                        true,
                        "get_weather",
                        Ok(json!({"city": "Rome"})),
                        None,
                    ),
                ],
                finish: Some(ToolCalls),
                usage: usage(30, 9),
                ..Expected::default()
            },
        ),
        (
            "ollama-error.ndjson",
            OllamaNdjson,
            false,
            Expected {
                errors: vec![(None, "model \"nope\" not found")],
                ..Expected::default()
            },
        ),
    ]
}

#[test]
fn own_cases_decode_to_their_expected_outcome_under_every_split() {
    let directory = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/streams");
    let mut failures = Vec::new();
    for (file, format, split_think_tags, expected) in cases() {
        let body = std::fs::read(directory.join(file)).expect("own fixture exists");
        let options = DecoderOptions {
            split_think_tags,
            ..DecoderOptions::default()
        };
        let mut reference: Option<Vec<ModelEvent>> = None;
        for split in all_splits() {
            let events = decode(format, options.clone(), &body, split).expect("under the cap");
            match &reference {
                None => {
                    let outcome = summarise(&events);
                    if !matches(&outcome, &expected) {
                        failures.push(format!("{file}: got {outcome:#?}\nwant {expected:#?}"));
                    }
                    reference = Some(events);
                }
                Some(reference) if *reference != events => {
                    failures.push(format!("{file} {split:?}: events differ from a whole push"));
                }
                Some(_) => {}
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// A streamed Anthropic answer's `stop_reason` named as the AI SDK's Anthropic provider names it:
/// cut by the context window (`model_context_window_exceeded`) is `length`, as `max_tokens` is;
/// a turn a long-running server tool paused (`pause_turn`) is `stop`.
#[test]
fn a_streamed_anthropic_stop_reason_is_named_as_the_ai_sdk_names_it() {
    let body_with = |stop_reason: &str| {
        [
            "event: message_start\n",
            r#"data: {"type":"message_start","message":{"id":"m","type":"message","role":"assistant","content":[],"model":"x","usage":{"input_tokens":5,"output_tokens":1}}}"#,
            "\n\nevent: content_block_start\n",
            r#"data: {"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}"#,
            "\n\nevent: content_block_delta\n",
            r#"data: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"An answer that"}}"#,
            "\n\nevent: message_delta\n",
            &format!(
                r#"data: {{"type":"message_delta","delta":{{"stop_reason":"{stop_reason}"}},"usage":{{"output_tokens":3}}}}"#
            ),
            "\n\nevent: message_stop\ndata: {\"type\":\"message_stop\"}\n\n",
        ]
        .concat()
    };
    let cases = [
        ("model_context_window_exceeded", FinishReason::Length),
        ("pause_turn", FinishReason::Stop),
    ];
    for (stop_reason, want) in cases {
        let body = body_with(stop_reason);
        for split in all_splits() {
            let events = decode(
                WireFormat::AnthropicMessages,
                DecoderOptions::default(),
                body.as_bytes(),
                split,
            )
            .unwrap();
            let outcome = summarise(&events);
            assert_eq!(outcome.text, "An answer that", "{stop_reason} {split:?}");
            assert_eq!(
                outcome.finish,
                Some(want.clone()),
                "{stop_reason} {split:?}"
            );
        }
    }
}

#[test]
fn the_decoder_refuses_bytes_after_finish_and_finishes_once() {
    let mut decoder = mcp_agent_wasm::core::stream::ModelStreamDecoder::new(
        WireFormat::OpenAiChat,
        DecoderOptions::default(),
    );
    let mut events = Vec::new();
    decoder
        .push(
            b"data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"a\"}}]}",
            &mut events,
        )
        .expect("fits");
    decoder.finish(&mut events).expect("first finish");
    decoder
        .finish(&mut events)
        .expect("second finish is a no-op");
    let late = decoder.push(b"data: x\n\n", &mut events);
    assert_eq!(
        (events, late.map_err(|error| error.code())),
        (
            vec![ModelEvent::TextDelta("a".to_owned())],
            Err("stream_push_after_finish")
        )
    );
}

#[test]
fn with_think_splitting_on_text_still_streams_when_reasoning_has_its_own_field() {
    let body = std::fs::read(
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/fixtures/streams/ollama-thinking-field.ndjson"),
    )
    .expect("own fixture exists");
    let options = DecoderOptions {
        split_think_tags: true,
        ..DecoderOptions::default()
    };
    let mut decoder =
        mcp_agent_wasm::core::stream::ModelStreamDecoder::new(WireFormat::OllamaNdjson, options);
    let first_two_lines_end = body
        .iter()
        .enumerate()
        .filter(|(_, byte)| **byte == b'\n')
        .nth(1)
        .map(|(at, _)| at + 1)
        .expect("three lines");
    let mut events = Vec::new();
    decoder
        .push(&body[..first_two_lines_end], &mut events)
        .expect("fits");
    assert_eq!(
        events,
        vec![
            ModelEvent::ReasoningDelta("Short thought.".to_owned()),
            ModelEvent::TextDelta("Answer ".to_owned())
        ]
    );
}

#[test]
fn events_completed_before_the_cap_broke_are_still_delivered() {
    let options = DecoderOptions {
        max_event_bytes: 80,
        ..DecoderOptions::default()
    };
    let mut decoder =
        mcp_agent_wasm::core::stream::ModelStreamDecoder::new(WireFormat::OpenAiChat, options);
    let mut events = Vec::new();
    let body = format!(
        "data: {{\"choices\":[{{\"delta\":{{\"content\":\"kept\"}}}}]}}\n\ndata: {}\n\n",
        "x".repeat(100)
    );
    let result = decoder.push(body.as_bytes(), &mut events);
    assert_eq!(
        (events, result.map_err(|error| error.code())),
        (
            vec![ModelEvent::TextDelta("kept".to_owned())],
            Err("stream_event_too_large")
        )
    );
}

/// Neighbouring pieces of one kind merge; a piece of the other kind or any other event between
/// them keeps them apart, and nothing moves. A call's argument pieces merge while they carry
/// nothing but arguments and stay at one index.
#[test]
fn queued_pieces_merge_only_with_a_neighbour_of_their_kind() {
    use mcp_agent_wasm::core::model_event::{queue_merging_pieces, ArgumentsDelta, ToolCallDelta};
    use ModelEvent::{Finish, ReasoningDelta, TextDelta};
    let text = |piece: &str| TextDelta(piece.to_owned());
    let reasoning = |piece: &str| ReasoningDelta(piece.to_owned());
    let arguments = |index: u32, id: Option<&str>, piece: &str| {
        ModelEvent::ToolCallDelta(ToolCallDelta {
            index: Some(index),
            id: id.map(str::to_owned),
            arguments: Some(ArgumentsDelta::Fragment(piece.to_owned())),
            ..ToolCallDelta::default()
        })
    };
    let mut queue = std::collections::VecDeque::from([reasoning("already queued, ")]);
    for event in [
        reasoning("thinking"),
        reasoning(" more"),
        text("Hel"),
        text("lo"),
        reasoning("again"),
        text(""),
        text(" world"),
        arguments(0, Some("call_1"), "{\"a\""),
        arguments(0, None, ":"),
        arguments(0, Some(""), "1"),
        arguments(1, None, "{}"),
        arguments(0, None, "}"),
        Finish(FinishReason::Stop),
        text("after"),
    ] {
        queue_merging_pieces(&mut queue, event);
    }
    assert_eq!(
        Vec::from(queue),
        [
            reasoning("already queued, thinking more"),
            text("Hello"),
            reasoning("again"),
            text(" world"),
            arguments(0, Some("call_1"), "{\"a\""),
            arguments(0, None, ":1"),
            arguments(1, None, "{}"),
            arguments(0, None, "}"),
            Finish(FinishReason::Stop),
            text("after"),
        ]
    );
}

/// A body with no event in it, whatever the split, as `check_had_events` reports it.
fn no_events_report(format: WireFormat, body: &[u8]) -> Vec<Result<(), String>> {
    all_splits()
        .into_iter()
        .map(|split| {
            let mut decoder = mcp_agent_wasm::core::stream::ModelStreamDecoder::new(
                format,
                DecoderOptions::default(),
            );
            let mut events = Vec::new();
            for chunk in stream_support::chunks(body, split) {
                decoder.push(chunk, &mut events).expect("under the cap");
            }
            decoder.finish(&mut events).expect("under the cap");
            decoder
                .check_had_events()
                .map_err(|error| format!("{}: {error}", error.code()))
        })
        .collect()
}

#[test]
fn a_body_without_one_event_is_reported_with_how_it_begins() {
    let page = format!(
        "<!doctype html>\n<html><head><title>Sign in</title></head>\n<body>x{}</body></html>\n",
        "é".repeat(200)
    );
    // 65 bytes, then 47 two-byte characters and the first byte of one more, which is left out.
    let begins = format!(
        "<!doctype html> <html><head><title>Sign in</title></head> <body>x{}",
        "é".repeat(47)
    );
    let advice = "check `baseUrl` (a web page or a proxy may have answered instead of the API)";
    let json_error = r#"{"error":{"message":"model overloaded"}}"#;
    let cases: [(WireFormat, &[u8], String); 5] = [
        (
            WireFormat::OpenAiChat,
            page.as_bytes(),
            format!("stream_no_events: the answer is no event stream; it begins `{begins}`: {advice}"),
        ),
        (
            WireFormat::AnthropicMessages,
            json_error.as_bytes(),
            format!("stream_no_events: the answer is no event stream; it begins `{json_error}`: {advice}"),
        ),
        (
            WireFormat::Gemini,
            b": keep-alive\n\n",
            format!("stream_no_events: the answer is no event stream; it begins `: keep-alive`: {advice}"),
        ),
        (
            WireFormat::OllamaNdjson,
            b"",
            format!("stream_no_events: the answer is empty: {advice}"),
        ),
        (
            WireFormat::OpenAiChat,
            b"\r\n\r\n",
            format!("stream_no_events: the answer is empty: {advice}"),
        ),
    ];
    for (format, body, expected) in cases {
        for report in no_events_report(format, body) {
            assert_eq!(report, Err(expected.clone()), "{format:?}");
        }
    }
    for (format, body) in [
        (WireFormat::OpenAiChat, &b"data: [DONE]\n\n"[..]),
        (WireFormat::OllamaNdjson, b"{\"done\":true}\n"),
    ] {
        for report in no_events_report(format, body) {
            assert_eq!(report, Ok(()), "{format:?}");
        }
    }
}

/// A whole Responses body (the items of a stream's `response.output_item.done` events, in order,
/// under its last response's status and usage, as OpenAI's response object holds them) gives
/// what its stream gives, once a `Stop` with calls is made `ToolCalls` as `parse_whole_response`
/// does.
#[test]
fn a_whole_responses_body_gives_the_outcome_its_stream_gives() {
    let directory = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/streams");
    for file in [
        "openai-responses-text.sse",
        "openai-responses-reasoning-calls.sse",
        "openai-responses-done-items-only.sse",
        "openai-responses-raw-reasoning-refusal.sse",
    ] {
        let body = std::fs::read_to_string(directory.join(file)).expect("own fixture exists");
        let mut items = Vec::new();
        let mut response = Value::Null;
        for line in body.lines() {
            let Some(Ok(event)) = line
                .strip_prefix("data: ")
                .map(serde_json::from_str::<Value>)
            else {
                continue;
            };
            match event["type"].as_str() {
                // The done-only body repeats one done item, as a retrying server might.
                Some("response.output_item.done") if !items.contains(&event["item"]) => {
                    items.push(event["item"].clone())
                }
                Some("response.completed") => response = event["response"].clone(),
                _ => {}
            }
        }
        response["output"] = Value::Array(items);
        let mut whole =
            mcp_agent_wasm::core::stream::responses_response_events(&response).expect("a response");
        let streamed = decode(
            WireFormat::OpenAiResponses,
            DecoderOptions::default(),
            body.as_bytes(),
            stream_support::Split::Whole,
        )
        .expect("under the cap");
        if whole
            .iter()
            .any(|event| matches!(event, ModelEvent::ToolCallDelta(_)))
        {
            for event in &mut whole {
                if *event == ModelEvent::Finish(FinishReason::Stop) {
                    *event = ModelEvent::Finish(FinishReason::ToolCalls);
                }
            }
        }
        assert_eq!(summarise(&whole), summarise(&streamed), "{file}");
    }
}

/// OpenRouter streams reasoning twice: as `delta.reasoning` text and as `delta.reasoning_details`,
/// the structured blocks its docs ("Reasoning Tokens", "Preserving reasoning blocks") ask to be
/// sent back unmodified on the assistant message of a tool-calling turn. A block comes in pieces
/// of one `type` and `index`, joined as @openrouter/ai-sdk-provider's `doStream` joins them:
/// Claude's thinking text, then its signature alone in a last piece; Gemini 3's thought signature
/// as a `reasoning.encrypted` detail whose `id` is its call's (without it Gemini answers 400
/// "Function call is missing a thought_signature", cline/cline#7551; RooCodeInc/Roo-Code#10310
/// on the `id`). Both bodies are written as OpenRouter sends them, after those docs and the shapes
/// that provider reads. The page sees the reasoning once; the next request carries the details.
#[test]
fn an_openrouter_answer_sends_its_reasoning_details_back_on_the_next_request() {
    use common::{success, tool_table, ModelTurn, Simulation, ToolStep};
    use mcp_agent_wasm::core::agent_loop::{AgentEvent, AgentLoop, LoopConfig};
    use mcp_agent_wasm::core::message::{ChatMessage, Role};
    use mcp_agent_wasm::core::provider::{ProviderConfig, ResponseMode};

    let claude_details = json!([{
        "type": "reasoning.text",
        "text": "The user wants the weather in Paris; one forecast call.",
        "format": "anthropic-claude-v1",
        "index": 0,
        "signature": "ErUBCkYIBxgCIkDclaudeSignature==",
    }]);
    let gemini_details = json!([
        {"type": "reasoning.text", "text": "**Checking the forecast**\n\nI will ask for Paris.",
         "format": "google-gemini-v1", "index": 0},
        {"id": "tool_weather_forecast_Zm9yZWNhc3Q", "format": "google-gemini-v1", "index": 1,
         "type": "reasoning.encrypted", "data": "CiQBVKhc7gGeminiThoughtSignature=="},
    ]);
    let cases = [
        (
            "openrouter-claude-reasoning-details.sse",
            "toolu_vrtx_01Paris",
            "The user wants the weather in Paris; one forecast call.",
            claude_details,
        ),
        (
            "openrouter-gemini-reasoning-details.sse",
            "tool_weather_forecast_Zm9yZWNhc3Q",
            "**Checking the forecast**\n\nI will ask for Paris.",
            gemini_details,
        ),
    ];
    let directory = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/streams");
    let provider = ProviderConfig {
        id: "openrouter".to_owned(),
        api_key: Some("sk-or-test".to_owned()),
        model: Some("anthropic/claude-sonnet-4.5".to_owned()),
        ..ProviderConfig::default()
    }
    .resolve()
    .expect("a complete config");
    for (file, call_id, reasoning, details) in cases {
        let body = std::fs::read(directory.join(file)).expect("own fixture exists");
        for split in all_splits() {
            let events = decode(
                WireFormat::OpenAiChat,
                DecoderOptions::default(),
                &body,
                split,
            )
            .expect("under the cap");
            let agent = AgentLoop::new(
                LoopConfig::default(),
                vec![ChatMessage::text(Role::User, "Weather in Paris?")],
                tool_table(),
            );
            let run = Simulation::new(
                agent,
                vec![
                    ModelTurn::Respond(events),
                    ModelTurn::Respond(vec![ModelEvent::TextDelta("Mild.".to_owned())]),
                ],
                vec![vec![ToolStep::Complete {
                    id: call_id,
                    outcome: success("18°C"),
                }]],
            )
            .drive();
            let shown: String = run
                .events
                .iter()
                .filter_map(|event| match event {
                    AgentEvent::Reasoning { text } => Some(text.as_str()),
                    _ => None,
                })
                .collect();
            assert_eq!(shown, reasoning, "{file} {split:?}");
            let request = provider
                .chat_request(&run.requests[1].messages, &[], ResponseMode::Streaming)
                .expect("builds");
            let sent: Value = serde_json::from_str(&request.request.body).expect("JSON");
            let assistant = &sent["messages"][1];
            assert_eq!(assistant["tool_calls"][0]["id"], call_id, "{file}");
            assert_eq!(assistant["reasoning_details"], details, "{file} {split:?}");
        }
    }
}
