#![cfg(not(target_arch = "wasm32"))]
//! The agent loop fed with real provider streams from `../shared/fixtures` (see its README for
//! where each capture comes from). The provider parsers live elsewhere; `replay` below is a
//! deliberately small, test-only reading of each wire shape into `ModelEvent`s, enough to put
//! real reasoning, signatures, ids and truncated arguments through the loop.

mod common;

use std::path::PathBuf;

use common::*;
use mcp_agent_wasm::core::agent_loop::{
    AgentEvent, AgentLoop, FinalReason, LoopConfig, OutcomeReason, TRUNCATION_GAVE_UP,
    TRUNCATION_INSTRUCTION,
};
use mcp_agent_wasm::core::message::{ChatMessage, ThinkingBlock};
use mcp_agent_wasm::core::model_event::{
    ArgumentsDelta, FinishReason, ModelEvent, ToolCallDelta, Usage,
};
use mcp_agent_wasm::core::tools::{ToolEntry, ToolTable};
use serde_json::{json, Value};

#[derive(Clone, Copy)]
enum Wire {
    OpenAiCompatible,
    Anthropic,
    Gemini,
}

fn fixture_payloads(relative: &str) -> Vec<Value> {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../shared/fixtures")
        .join(relative);
    let body = std::fs::read_to_string(&path)
        .unwrap_or_else(|error| panic!("fixture {}: {error}", path.display()));
    body.lines()
        .map(|line| line.strip_prefix("data:").unwrap_or(line).trim())
        .filter(|line| line.starts_with('{'))
        .map(|line| serde_json::from_str(line).expect("fixture payloads are JSON"))
        .collect()
}

fn text_of(value: &Value) -> Option<String> {
    value
        .as_str()
        .filter(|text| !text.is_empty())
        .map(str::to_owned)
}

fn finish_reason(reason: &str) -> FinishReason {
    match reason {
        "stop" | "end_turn" | "STOP" => FinishReason::Stop,
        "tool_calls" | "tool_use" => FinishReason::ToolCalls,
        "length" | "max_tokens" | "MAX_TOKENS" => FinishReason::Length,
        other => FinishReason::Other(other.to_owned()),
    }
}

/// The model events of one captured response.
fn replay(relative: &str, wire: Wire) -> Vec<ModelEvent> {
    let mut events = Vec::new();
    let mut input_tokens = 0;
    for payload in fixture_payloads(relative) {
        match wire {
            Wire::OpenAiCompatible => {
                for choice in payload["choices"].as_array().into_iter().flatten() {
                    let delta = &choice["delta"];
                    events.extend(
                        text_of(&delta["reasoning_content"]).map(ModelEvent::ReasoningDelta),
                    );
                    events.extend(text_of(&delta["content"]).map(ModelEvent::TextDelta));
                    for call in delta["tool_calls"].as_array().into_iter().flatten() {
                        events.push(ModelEvent::ToolCallDelta(ToolCallDelta {
                            index: call["index"].as_u64().map(|index| index as u32),
                            id: text_of(&call["id"]),
                            name: text_of(&call["function"]["name"]),
                            arguments: text_of(&call["function"]["arguments"])
                                .map(ArgumentsDelta::Fragment),
                            thought_signature: None,
                        }));
                    }
                    events.extend(
                        choice["finish_reason"]
                            .as_str()
                            .map(|reason| ModelEvent::Finish(finish_reason(reason))),
                    );
                }
                if let Some(usage) = payload["usage"].as_object() {
                    events.push(ModelEvent::Usage(Usage {
                        input_tokens: usage["prompt_tokens"].as_u64().unwrap_or(0),
                        output_tokens: usage["completion_tokens"].as_u64().unwrap_or(0),
                        ..Default::default()
                    }));
                }
            }
            Wire::Anthropic => match payload["type"].as_str() {
                Some("message_start") => {
                    input_tokens = payload["message"]["usage"]["input_tokens"]
                        .as_u64()
                        .unwrap_or(0);
                }
                Some("content_block_start") if payload["content_block"]["type"] == "tool_use" => {
                    events.push(ModelEvent::ToolCallDelta(ToolCallDelta {
                        index: payload["index"].as_u64().map(|index| index as u32),
                        id: text_of(&payload["content_block"]["id"]),
                        name: text_of(&payload["content_block"]["name"]),
                        ..ToolCallDelta::default()
                    }));
                }
                Some("content_block_delta") => {
                    let delta = &payload["delta"];
                    match delta["type"].as_str() {
                        Some("text_delta") => {
                            events.extend(text_of(&delta["text"]).map(ModelEvent::TextDelta))
                        }
                        Some("thinking_delta") => events
                            .extend(text_of(&delta["thinking"]).map(ModelEvent::ReasoningDelta)),
                        Some("signature_delta") => events.extend(
                            text_of(&delta["signature"]).map(ModelEvent::ReasoningSignature),
                        ),
                        Some("input_json_delta") => {
                            events.push(ModelEvent::ToolCallDelta(ToolCallDelta {
                                index: payload["index"].as_u64().map(|index| index as u32),
                                arguments: text_of(&delta["partial_json"])
                                    .map(ArgumentsDelta::Fragment),
                                ..ToolCallDelta::default()
                            }))
                        }
                        _ => {}
                    }
                }
                Some("message_delta") => {
                    events.extend(
                        payload["delta"]["stop_reason"]
                            .as_str()
                            .map(|reason| ModelEvent::Finish(finish_reason(reason))),
                    );
                    events.push(ModelEvent::Usage(Usage {
                        input_tokens,
                        output_tokens: payload["usage"]["output_tokens"].as_u64().unwrap_or(0),
                        ..Default::default()
                    }));
                }
                _ => {}
            },
            Wire::Gemini => {
                for candidate in payload["candidates"].as_array().into_iter().flatten() {
                    for part in candidate["content"]["parts"]
                        .as_array()
                        .into_iter()
                        .flatten()
                    {
                        if let Some(call) = part.get("functionCall") {
                            events.push(ModelEvent::ToolCallDelta(ToolCallDelta {
                                index: None,
                                id: None,
                                name: text_of(&call["name"]),
                                arguments: Some(ArgumentsDelta::Whole(call["args"].clone())),
                                thought_signature: text_of(&part["thoughtSignature"]),
                            }));
                        } else if part["thought"] == true {
                            events.extend(text_of(&part["text"]).map(ModelEvent::ReasoningDelta));
                        } else {
                            events.extend(text_of(&part["text"]).map(ModelEvent::TextDelta));
                        }
                    }
                    events.extend(
                        candidate["finishReason"]
                            .as_str()
                            .map(|reason| ModelEvent::Finish(finish_reason(reason))),
                    );
                }
            }
        }
    }
    events
}

fn entry(function_name: &str, property: &str) -> ToolEntry {
    ToolEntry {
        function_name: function_name.to_owned(),
        server: "fixtures".to_owned(),
        tool: function_name.to_owned(),
        description: None,
        input_schema: json!({
            "type": "object",
            "properties": {property: {"type": "string"}},
            "required": [property]
        }),
        annotations: None,
    }
}

/// The tools the captured responses call.
fn fixture_tools() -> ToolTable {
    ToolTable::new(vec![
        entry("weather", "location"),
        entry("get_weather", "location"),
        entry("make_file", "filename"),
    ])
}

fn reasoning_text(events: &[AgentEvent]) -> String {
    events
        .iter()
        .filter_map(|event| match event {
            AgentEvent::Reasoning { text } => Some(text.as_str()),
            _ => None,
        })
        .collect()
}

/// Each capture ends a round with one call; the loop must echo what its provider needs.
#[test]
fn captured_tool_rounds_are_echoed_with_what_each_provider_needs() {
    let cases = [
        (
            "openai-compatible/deepseek-reasoner-tool-call.chunks.txt",
            Wire::OpenAiCompatible,
            "call_00_ioIn7yN9p1ZOMNpDLwd4MgAF",
            "weather",
            json!({"location": "San Francisco"}),
        ),
        (
            "anthropic/tool_use_response.sse",
            Wire::Anthropic,
            "toolu_01NRLabsLyVHZPKxbKvkfSMn",
            "get_weather",
            json!({"location": "Paris"}),
        ),
        (
            "gemini/tool-call.chunks.txt",
            Wire::Gemini,
            "call_1_0",
            "weather",
            json!({"location": "San Francisco"}),
        ),
    ];
    for (fixture, wire, call_id, function_name, arguments) in cases {
        let model_events = replay(fixture, wire);
        let streamed_reasoning: String = model_events
            .iter()
            .filter_map(|event| match event {
                ModelEvent::ReasoningDelta(text) => Some(text.as_str()),
                _ => None,
            })
            .collect();
        let streamed_text: String = model_events
            .iter()
            .filter_map(|event| match event {
                ModelEvent::TextDelta(text) => Some(text.as_str()),
                _ => None,
            })
            .collect();
        let signature = model_events.iter().find_map(|event| match event {
            ModelEvent::ToolCallDelta(delta) => delta.thought_signature.clone(),
            _ => None,
        });
        let agent = AgentLoop::new(
            LoopConfig::default(),
            vec![user("Weather?")],
            fixture_tools(),
        );
        let run = Simulation::new(
            agent,
            vec![
                ModelTurn::Respond(model_events),
                ModelTurn::Respond(vec![text("Mild.")]),
            ],
            vec![vec![ToolStep::Complete {
                id: call_id,
                outcome: success("mild"),
            }]],
        )
        .drive();

        let echoed = &run.requests[1].messages[1];
        let call = &echoed
            .tool_calls
            .as_ref()
            .expect("an assistant message with calls")[0];
        assert_eq!(call.id, call_id, "{fixture}");
        assert_eq!(call.function.name, function_name, "{fixture}");
        assert_eq!(
            serde_json::from_str::<Value>(&call.function.arguments).unwrap(),
            arguments,
            "{fixture}"
        );
        assert_eq!(
            call.thought_signature, signature,
            "{fixture}: Gemini's signature kept"
        );
        assert_eq!(
            echoed.reasoning_content.clone().unwrap_or_default(),
            streamed_reasoning,
            "{fixture}: DeepSeek's reasoning kept"
        );
        assert_eq!(
            echoed.text_content(),
            streamed_text,
            "{fixture}: pre-tool text kept"
        );
        assert_eq!(reasoning_text(&run.events), streamed_reasoning, "{fixture}");
        assert_eq!(run.outcome.reason, OutcomeReason::Completed, "{fixture}");
        assert_eq!(
            run.outcome.messages[2],
            tool_message(call_id, "mild"),
            "{fixture}"
        );
    }
}

#[test]
fn captured_anthropic_thinking_is_kept_with_its_signature() {
    let model_events = replay("anthropic/thinking.chunks.txt", Wire::Anthropic);
    let agent = AgentLoop::new(
        LoopConfig::default(),
        vec![user("925 / 5?")],
        fixture_tools(),
    );
    let run = Simulation::new(agent, vec![ModelTurn::Respond(model_events)], vec![]).drive();

    let thinking = "The previous result was 925. Now I need to divide that by 5.\n\n925 ÷ 5 = 185";
    let answer = ChatMessage {
        reasoning_content: Some(thinking.to_owned()),
        thinking_blocks: Some(vec![ThinkingBlock::Thinking {
            thinking: thinking.to_owned(),
            signature:
                "EvQBCkYICxgCKkAxhD4NUKFzudtZ6NzbZdEiBACIScTzqjPViM596iWLZIk4EFKYYBj3B6Ptl3b0dcQv/\
                VeJBNbejNWIWRBn+KPNEgz6HWtKx7p+QRgKsEoaDGjsiqfht7gTRFYHiyIwD1VSmNqHxv3wy8KEMP+LYb/\
                TC4UH3H97tuoaADARFFcA0phdfxnzKQxFnc9lwY+dKlzUsaKSUAFeu1bDL5ikZJ1vL0Fkz6JjoFke0L/\
                wOJRIUDUlDUOFJ1tZ3ea7g6LGE/5hwuvWgLwewdcm64d+43l7F57XrOmqNd6flI2K/oPr/\
                4yzNgvi/EhT6Ca17BgB"
                    .to_owned(),
        }]),
        ..assistant("925 ÷ 5 = 185")
    };
    assert_eq!(run.outcome.messages, vec![user("925 / 5?"), answer]);
    assert_eq!(
        run.outcome.usage,
        Usage {
            input_tokens: 69,
            output_tokens: 53,
            ..Default::default()
        }
    );
    assert!(matches!(
        run.events.last(),
        Some(AgentEvent::Final { reason: FinalReason::Completed, text, .. }) if text == "925 ÷ 5 = 185"
    ));
}

/// anthropic/incomplete_partial_json_response.sse: `max_tokens` in the middle of the arguments.
#[test]
fn captured_truncated_call_is_retried_then_given_up() {
    let truncated = || {
        ModelTurn::Respond(replay(
            "anthropic/incomplete_partial_json_response.sse",
            Wire::Anthropic,
        ))
    };
    let agent = AgentLoop::new(
        LoopConfig::default(),
        vec![user("Write a tax guide")],
        fixture_tools(),
    );
    let run = Simulation::new(
        agent,
        vec![
            truncated(),
            truncated(),
            truncated(),
            ModelTurn::Respond(vec![text("Too long, sorry.")]),
        ],
        vec![],
    )
    .drive();

    let preamble =
        "I'll create a comprehensive tax guide for someone with multiple W2s and save it \
                    in a file called taxes.txt. Let me do that for you now.";
    let retry_instruction = user(TRUNCATION_INSTRUCTION);
    assert_eq!(run.requests.len(), 4);
    assert_eq!(run.requests[1].messages.last(), Some(&retry_instruction));
    assert_eq!(run.requests[2].messages.last(), Some(&retry_instruction));
    let given_up = &run.outcome.messages;
    assert_eq!(given_up[1].text_content(), preamble);
    let call = &given_up[1]
        .tool_calls
        .as_ref()
        .expect("the cut-off call is kept")[0];
    assert_eq!(call.id, "toolu_01EKqbqmZrGRXy18eN7m9kvY");
    assert!(serde_json::from_str::<Value>(&call.function.arguments).is_err());
    assert_eq!(
        given_up[2],
        tool_message(
            "toolu_01EKqbqmZrGRXy18eN7m9kvY",
            &format!("Error: {TRUNCATION_GAVE_UP}")
        )
    );
    let shown = run.shown_text();
    assert_eq!(
        shown,
        format!("{preamble}Too long, sorry."),
        "the retries do not show the preamble again"
    );
    assert_eq!(run.outcome.usage.output_tokens, 3 * 124);
}
