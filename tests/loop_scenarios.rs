//! Simulation tests of the agent loop: a scripted model and scripted tools, each test asserting
//! the exact events, the work asked for, and the final messages.

mod common;

use common::*;
use mcp_agent_wasm::core::agent_loop::prompt_tools::tool_prompt;
use mcp_agent_wasm::core::agent_loop::{
    Action, AgentEvent, AgentLoop, FinalReason, LoopConfig, MissingIdStrategy, ModelFailure,
    ModelRequest, OutcomeReason, ToolResult, ABORTED, MAX_TRUNCATION_RETRIES,
    PROVIDER_STREAM_ERROR, TRUNCATION_GAVE_UP, TRUNCATION_INSTRUCTION,
};
use mcp_agent_wasm::core::assembler::ToolCallAssembler;
use mcp_agent_wasm::core::message::{
    ChatMessage, ContentPart, FunctionCall, ImageUrl, MessageToolCall, ThinkingBlock,
};
use mcp_agent_wasm::core::model_event::{
    ArgumentsDelta, FinishReason, ModelEvent, ProviderStreamError, ToolCallDelta, Usage,
};
use mcp_agent_wasm::core::provider::{ProviderConfig, ResponseMode};
use mcp_agent_wasm::core::tools::{ToolEntry, ToolTable};
use serde_json::{json, Value};

const SYSTEM_PROMPT: &str = "You are a helpful assistant. Today is 2026-11-30.";

fn config() -> LoopConfig {
    LoopConfig {
        system_prompt: Some(SYSTEM_PROMPT.to_owned()),
        ..LoopConfig::default()
    }
}

/// The `final` event; `finish_reason` is the AI SDK's name of the last finished model call's.
fn final_event(
    text: &str,
    reason: FinalReason,
    messages: &[mcp_agent_wasm::core::message::ChatMessage],
    finish_reason: Option<&'static str>,
) -> AgentEvent {
    AgentEvent::Final {
        text: text.to_owned(),
        reason,
        messages: messages.to_vec(),
        finish_reason,
    }
}

/// The `final` event says why the answer ended, in the AI SDK's `finishReason` names, so that
/// a page can tell an answer cut at the token limit or by a content filter from a whole one.
#[test]
fn the_final_event_names_why_the_answer_ended() {
    for (reason, name) in [
        (FinishReason::Length, "length"),
        (FinishReason::ContentFilter, "content-filter"),
        (FinishReason::Other("recitation".to_owned()), "other"),
    ] {
        let agent = AgentLoop::new(config(), vec![user("Hi")], tool_table());
        let turn = ModelTurn::Respond(vec![text("Hello, and then"), finish(reason)]);
        let run = Simulation::new(agent, vec![turn], vec![]).drive();
        let final_reason = run.events.iter().find_map(|event| match event {
            AgentEvent::Final { finish_reason, .. } => Some(*finish_reason),
            _ => None,
        });
        assert_eq!(final_reason, Some(Some(name)));
    }
}

#[test]
fn plain_answer() {
    let conversation = vec![user("Hi")];
    let agent = AgentLoop::new(config(), conversation, tool_table());
    let run = Simulation::new(
        agent,
        vec![ModelTurn::Respond(vec![
            text("Hel"),
            text("lo!"),
            finish(FinishReason::Stop),
            usage(12, 3),
        ])],
        vec![],
    )
    .drive();

    let messages = vec![user("Hi"), assistant("Hello!")];
    assert_eq!(
        run.events,
        vec![
            round(1),
            text_event("Hel"),
            text_event("lo!"),
            usage_event(12, 3),
            final_event("Hello!", FinalReason::Completed, &messages, Some("stop")),
        ]
    );
    assert_eq!(
        run.requests,
        vec![ModelRequest {
            messages: vec![system(SYSTEM_PROMPT), user("Hi")],
            with_tools: true,
            stream: true,
            round: 1,
        }]
    );
    assert_eq!(run.outcome.reason, OutcomeReason::Completed);
    assert_eq!(run.outcome.messages, messages);
    assert_eq!(run.outcome.text, "Hello!");
    assert_eq!(
        run.outcome.usage,
        Usage {
            input_tokens: 12,
            output_tokens: 3,
            ..Default::default()
        }
    );
}

#[test]
fn one_tool_round() {
    let agent = AgentLoop::new(config(), vec![user("Weather in Paris?")], tool_table());
    let mut first_round = vec![text("Let me check.")];
    first_round.extend(streamed_call(
        0,
        "call_a",
        "weather_forecast",
        r#"{"city":"Paris"}"#,
    ));
    first_round.extend([finish(FinishReason::ToolCalls), usage(20, 10)]);
    let run = Simulation::new(
        agent,
        vec![
            ModelTurn::Respond(first_round),
            ModelTurn::Respond(vec![text("Sunny, 21 °C."), usage(40, 5)]),
        ],
        vec![vec![
            ToolStep::Progress {
                id: "call_a",
                progress: 1.0,
                total: Some(2.0),
                message: Some("fetching"),
            },
            ToolStep::Complete {
                id: "call_a",
                outcome: success("sunny, 21"),
            },
        ]],
    )
    .drive();

    let after_tools = vec![
        user("Weather in Paris?"),
        assistant_calls(
            Some("Let me check."),
            &[("call_a", "weather_forecast", r#"{"city":"Paris"}"#)],
        ),
        tool_message("call_a", "sunny, 21"),
    ];
    let mut messages = after_tools.clone();
    messages.push(assistant("Sunny, 21 °C."));
    assert_eq!(
        run.events,
        vec![
            round(1),
            text_event("Let me check."),
            usage_event(20, 10),
            tool_call_event(
                "call_a",
                "weather_forecast",
                "weather",
                "forecast",
                json!({"city": "Paris"})
            ),
            AgentEvent::ToolProgress {
                id: "call_a".to_owned(),
                progress: 1.0,
                total: Some(2.0),
                message: Some("fetching".to_owned()),
            },
            tool_result_event("call_a", "sunny, 21"),
            round(2),
            text_event("Sunny, 21 °C."),
            usage_event(60, 15),
            final_event("Sunny, 21 °C.", FinalReason::Completed, &messages, None),
        ]
    );
    assert_eq!(
        run.tool_batches,
        vec![vec![invocation(
            "call_a",
            "weather_forecast",
            "weather",
            "forecast",
            json!({"city": "Paris"})
        )]]
    );
    let mut second_request = vec![system(SYSTEM_PROMPT)];
    second_request.extend(after_tools);
    assert_eq!(run.requests[1].messages, second_request);
    assert_eq!(
        (run.requests[1].round, run.requests[1].with_tools),
        (2, true)
    );
    assert_eq!(run.outcome.messages, messages);
    assert_eq!(
        run.outcome.usage,
        Usage {
            input_tokens: 60,
            output_tokens: 15,
            ..Default::default()
        }
    );
    assert!(matches!(run.actions.last(), Some(Action::Finish(_))));
}

/// A server's sampling request during a call is answered by the run's model, on the run's key:
/// its tokens join the run's totals when they are reported, as the run's own calls' do.
#[test]
fn tokens_spent_sampling_for_a_tool_count_in_the_run() {
    let agent = AgentLoop::new(config(), vec![user("Summarize it")], tool_table());
    let mut first_round = streamed_call(0, "call_a", "weather_forecast", r#"{"city":"Oslo"}"#);
    first_round.push(usage(20, 10));
    let sampled = Usage {
        input_tokens: 7,
        output_tokens: 3,
        cached_input_tokens: Some(2),
        reasoning_tokens: None,
    };
    let run = Simulation::new(
        agent,
        vec![
            ModelTurn::Respond(first_round),
            ModelTurn::Respond(vec![text("Done."), usage(40, 5)]),
        ],
        vec![vec![
            ToolStep::Sampled(sampled),
            ToolStep::Complete {
                id: "call_a",
                outcome: success("cold"),
            },
        ]],
    )
    .drive();
    let totals: Vec<Usage> = run
        .events
        .iter()
        .filter_map(|event| match event {
            AgentEvent::Usage(usage) => Some(*usage),
            _ => None,
        })
        .collect();
    let with_cache = |input_tokens, output_tokens| Usage {
        input_tokens,
        output_tokens,
        cached_input_tokens: Some(2),
        reasoning_tokens: None,
    };
    let first = Usage {
        input_tokens: 20,
        output_tokens: 10,
        ..Default::default()
    };
    assert_eq!(totals, [first, with_cache(27, 13), with_cache(67, 18)]);
    assert_eq!(run.outcome.usage, with_cache(67, 18));
    let sampled_at = run
        .events
        .iter()
        .position(|event| event == &AgentEvent::Usage(with_cache(27, 13)));
    let result_at = run
        .events
        .iter()
        .position(|event| matches!(event, AgentEvent::ToolResult { .. }));
    assert!(
        sampled_at < result_at,
        "the sampled tokens show when they are reported"
    );
}

fn tool_round(calls: &[(u32, &str, &str, &str)]) -> Vec<ModelEvent> {
    let mut events = Vec::new();
    for (index, id, name, arguments) in calls {
        events.extend(streamed_call(*index, id, name, arguments));
    }
    events.push(finish(FinishReason::ToolCalls));
    events
}

/// A round in which the model makes one call (index 0).
fn one_call_round(id: &str, name: &str, arguments: &str) -> ModelTurn {
    ModelTurn::Respond(tool_round(&[(0, id, name, arguments)]))
}

fn answer(text_piece: &str) -> ModelTurn {
    ModelTurn::Respond(vec![text(text_piece), finish(FinishReason::Stop)])
}

fn with_system(messages: &[ChatMessage]) -> Vec<ChatMessage> {
    let mut request = vec![system(SYSTEM_PROMPT)];
    request.extend_from_slice(messages);
    request
}

#[test]
fn caller_system_message_is_merged_into_the_system_prompt() {
    let conversation = vec![system("Answer in French."), user("Hi")];
    let agent = AgentLoop::new(config(), conversation.clone(), tool_table());
    let run = Simulation::new(agent, vec![answer("Salut !")], vec![]).drive();

    assert_eq!(
        run.requests[0].messages,
        vec![
            system(&format!("{SYSTEM_PROMPT}\n\nAnswer in French.")),
            user("Hi")
        ]
    );
    assert_eq!(
        run.outcome.messages,
        vec![
            system("Answer in French."),
            user("Hi"),
            assistant("Salut !")
        ]
    );
}

#[test]
fn two_parallel_calls_finishing_in_reverse_order() {
    let agent = AgentLoop::new(
        config(),
        vec![user("Rust news and Oslo weather")],
        tool_table(),
    );
    let run = Simulation::new(
        agent,
        vec![
            ModelTurn::Respond(tool_round(&[
                (0, "call_a", "web_search", r#"{"query":"rust"}"#),
                (1, "call_b", "weather_forecast", r#"{"city":"Oslo"}"#),
            ])),
            answer("Both done."),
        ],
        vec![vec![
            ToolStep::Complete {
                id: "call_b",
                outcome: success("rain"),
            },
            ToolStep::Complete {
                id: "call_a",
                outcome: success("rust 2.0"),
            },
        ]],
    )
    .drive();

    let messages = vec![
        user("Rust news and Oslo weather"),
        assistant_calls(
            None,
            &[
                ("call_a", "web_search", r#"{"query":"rust"}"#),
                ("call_b", "weather_forecast", r#"{"city":"Oslo"}"#),
            ],
        ),
        tool_message("call_a", "rust 2.0"),
        tool_message("call_b", "rain"),
        assistant("Both done."),
    ];
    assert_eq!(
        run.events,
        vec![
            round(1),
            tool_call_event(
                "call_a",
                "web_search",
                "web",
                "search",
                json!({"query": "rust"})
            ),
            tool_call_event(
                "call_b",
                "weather_forecast",
                "weather",
                "forecast",
                json!({"city": "Oslo"})
            ),
            tool_result_event("call_b", "rain"),
            tool_result_event("call_a", "rust 2.0"),
            round(2),
            text_event("Both done."),
            final_event(
                "Both done.",
                FinalReason::Completed,
                &messages,
                Some("stop")
            ),
        ]
    );
    assert_eq!(
        run.tool_batches,
        vec![vec![
            invocation(
                "call_a",
                "web_search",
                "web",
                "search",
                json!({"query": "rust"})
            ),
            invocation(
                "call_b",
                "weather_forecast",
                "weather",
                "forecast",
                json!({"city": "Oslo"})
            ),
        ]],
        "both calls are dispatched together"
    );
    assert_eq!(run.outcome.messages, messages);
}

#[test]
fn failing_tools_become_error_results() {
    let agent = AgentLoop::new(config(), vec![user("Oslo and Atlantis?")], tool_table());
    let run = Simulation::new(
        agent,
        vec![
            ModelTurn::Respond(tool_round(&[
                (0, "call_a", "weather_forecast", r#"{"city":"Oslo"}"#),
                (1, "call_b", "weather_forecast", r#"{"city":"Atlantis"}"#),
            ])),
            answer("Only partly."),
        ],
        vec![vec![
            ToolStep::Complete {
                id: "call_a",
                outcome: Err("connection refused".to_owned().into()),
            },
            ToolStep::Complete {
                id: "call_b",
                outcome: Ok(ToolResult {
                    text: "unknown city".to_owned(),
                    content: vec![json!({"type": "text", "text": "unknown city"})],
                    structured_content: Some(json!({"code": 404})),
                    is_error: true,
                }),
            },
        ]],
    )
    .drive();

    let messages = vec![
        user("Oslo and Atlantis?"),
        assistant_calls(
            None,
            &[
                ("call_a", "weather_forecast", r#"{"city":"Oslo"}"#),
                ("call_b", "weather_forecast", r#"{"city":"Atlantis"}"#),
            ],
        ),
        tool_message("call_a", "Error: connection refused"),
        tool_message("call_b", "Error: unknown city"),
        assistant("Only partly."),
    ];
    assert_eq!(
        run.events,
        vec![
            round(1),
            tool_call_event(
                "call_a",
                "weather_forecast",
                "weather",
                "forecast",
                json!({"city": "Oslo"})
            ),
            tool_call_event(
                "call_b",
                "weather_forecast",
                "weather",
                "forecast",
                json!({"city": "Atlantis"})
            ),
            tool_error_event("call_a", "connection refused"),
            AgentEvent::ToolResult {
                id: "call_b".to_owned(),
                text: "unknown city".to_owned(),
                content: vec![json!({"type": "text", "text": "unknown city"})],
                structured_content: Some(json!({"code": 404})),
                is_error: true,
            },
            round(2),
            text_event("Only partly."),
            final_event(
                "Only partly.",
                FinalReason::Completed,
                &messages,
                Some("stop")
            ),
        ]
    );
    assert_eq!(run.outcome.messages, messages);
}

#[test]
fn unknown_tool_is_answered_without_dispatch() {
    let agent = AgentLoop::new(config(), vec![user("Price of ACME?")], tool_table());
    let run = Simulation::new(
        agent,
        vec![
            one_call_round("call_s", "stock_price", r#"{"ticker":"ACME"}"#),
            answer("I cannot look up prices."),
        ],
        vec![],
    )
    .drive();

    let unknown =
        "unknown tool `stock_price`; the available tools are: web_search, weather_forecast";
    let messages = vec![
        user("Price of ACME?"),
        assistant_calls(None, &[("call_s", "stock_price", r#"{"ticker":"ACME"}"#)]),
        tool_message("call_s", &format!("Error: {unknown}")),
        assistant("I cannot look up prices."),
    ];
    assert_eq!(
        run.events,
        vec![
            round(1),
            tool_call_event(
                "call_s",
                "stock_price",
                "",
                "stock_price",
                json!({"ticker": "ACME"})
            ),
            tool_error_event("call_s", unknown),
            round(2),
            text_event("I cannot look up prices."),
            final_event(
                "I cannot look up prices.",
                FinalReason::Completed,
                &messages,
                Some("stop")
            ),
        ]
    );
    assert!(run.tool_batches.is_empty(), "nothing reaches a server");
    assert_eq!(run.requests[1].messages, with_system(&messages[..3]));
    assert_eq!(run.outcome.messages, messages);
}

#[test]
fn invalid_arguments_then_a_repaired_call() {
    let not_json = r#"{"query": "rust"#;
    let missing_query = r#"{"q":"rust"}"#;
    // The texts the model is told come from the assembler and the tool table (both contracts
    // of their own), so this test holds whatever wording and validation depth they use.
    let mut assembler = ToolCallAssembler::new(0);
    for event in streamed_call(0, "call_1", "web_search", not_json) {
        if let ModelEvent::ToolCallDelta(delta) = event {
            assembler.push(&delta);
        }
    }
    let parse_error = assembler.finish()[0].arguments.clone().unwrap_err();
    let validation_error = tool_table()
        .check_arguments("web_search", &json!({"q": "rust"}))
        .unwrap_err();

    let agent = AgentLoop::new(config(), vec![user("Search rust")], tool_table());
    let run = Simulation::new(
        agent,
        vec![
            one_call_round("call_1", "web_search", not_json),
            one_call_round("call_2", "web_search", missing_query),
            one_call_round("call_3", "web_search", r#"{"query":"rust"}"#),
            answer("Found it."),
        ],
        vec![vec![ToolStep::Complete {
            id: "call_3",
            outcome: success("rust-lang.org"),
        }]],
    )
    .drive();

    let messages = vec![
        user("Search rust"),
        assistant_calls(None, &[("call_1", "web_search", not_json)]),
        tool_message("call_1", &format!("Error: {parse_error}")),
        assistant_calls(None, &[("call_2", "web_search", missing_query)]),
        tool_message("call_2", &format!("Error: {validation_error}")),
        assistant_calls(None, &[("call_3", "web_search", r#"{"query":"rust"}"#)]),
        tool_message("call_3", "rust-lang.org"),
        assistant("Found it."),
    ];
    assert_eq!(
        run.events,
        vec![
            round(1),
            tool_call_event("call_1", "web_search", "web", "search", json!(not_json)),
            tool_error_event("call_1", &parse_error),
            round(2),
            tool_call_event(
                "call_2",
                "web_search",
                "web",
                "search",
                json!({"q": "rust"})
            ),
            tool_error_event("call_2", &validation_error),
            round(3),
            tool_call_event(
                "call_3",
                "web_search",
                "web",
                "search",
                json!({"query": "rust"})
            ),
            tool_result_event("call_3", "rust-lang.org"),
            round(4),
            text_event("Found it."),
            final_event("Found it.", FinalReason::Completed, &messages, Some("stop")),
        ]
    );
    assert_eq!(
        run.tool_batches,
        vec![vec![invocation(
            "call_3",
            "web_search",
            "web",
            "search",
            json!({"query": "rust"})
        )]],
        "only the repaired call reaches a server"
    );
    assert_eq!(run.outcome.messages, messages);
}

#[test]
fn missing_ids_are_synthesized_by_default() {
    let agent = AgentLoop::new(config(), vec![user("Rust and Oslo")], tool_table());
    let run = Simulation::new(
        agent,
        vec![
            // The shape of ollama/api-chat-tool-call.ndjson: whole arguments, no ids.
            ModelTurn::Respond(vec![
                call_without_id(0, "web_search", json!({"query": "rust"})),
                call_without_id(1, "weather_forecast", json!({"city": "Oslo"})),
                finish(FinishReason::Stop),
            ]),
            answer("Done."),
        ],
        vec![vec![
            ToolStep::Complete {
                id: "call_1_1",
                outcome: success("rain"),
            },
            ToolStep::Complete {
                id: "call_1_0",
                outcome: success("rust 2.0"),
            },
        ]],
    )
    .drive();

    let messages = vec![
        user("Rust and Oslo"),
        assistant_calls(
            None,
            &[
                ("call_1_0", "web_search", r#"{"query":"rust"}"#),
                ("call_1_1", "weather_forecast", r#"{"city":"Oslo"}"#),
            ],
        ),
        tool_message("call_1_0", "rust 2.0"),
        tool_message("call_1_1", "rain"),
        assistant("Done."),
    ];
    assert_eq!(run.requests.len(), 2, "no re-request");
    assert_eq!(
        run.tool_batches,
        vec![vec![
            invocation(
                "call_1_0",
                "web_search",
                "web",
                "search",
                json!({"query": "rust"})
            ),
            invocation(
                "call_1_1",
                "weather_forecast",
                "weather",
                "forecast",
                json!({"city": "Oslo"})
            ),
        ]]
    );
    assert_eq!(run.outcome.messages, messages);
}

#[test]
fn missing_ids_re_requested_without_streaming() {
    let config = LoopConfig {
        missing_id_strategy: MissingIdStrategy::ReRequestWithoutStreaming,
        ..config()
    };
    let agent = AgentLoop::new(config, vec![user("Rust?")], tool_table());
    let mut with_ids = vec![text("Searching.")];
    with_ids.extend(tool_round(&[(
        0,
        "call_x",
        "web_search",
        r#"{"query":"rust"}"#,
    )]));
    let run = Simulation::new(
        agent,
        vec![
            ModelTurn::Respond(vec![
                text("Searching."),
                call_without_id(0, "web_search", json!({"query": "rust"})),
                finish(FinishReason::ToolCalls),
            ]),
            ModelTurn::Respond(with_ids),
            answer("Rust."),
        ],
        vec![vec![ToolStep::Complete {
            id: "call_x",
            outcome: success("rust-lang.org"),
        }]],
    )
    .drive();

    let messages = vec![
        user("Rust?"),
        assistant_calls(
            Some("Searching."),
            &[("call_x", "web_search", r#"{"query":"rust"}"#)],
        ),
        tool_message("call_x", "rust-lang.org"),
        assistant("Rust."),
    ];
    assert_eq!(
        run.requests[1],
        ModelRequest {
            messages: with_system(&[user("Rust?")]),
            with_tools: true,
            stream: false,
            round: 1,
        }
    );
    assert_eq!(
        run.events,
        vec![
            round(1),
            text_event("Searching."),
            tool_call_event(
                "call_x",
                "web_search",
                "web",
                "search",
                json!({"query": "rust"})
            ),
            tool_result_event("call_x", "rust-lang.org"),
            round(2),
            text_event("Rust."),
            final_event("Rust.", FinalReason::Completed, &messages, Some("stop")),
        ],
        "the re-request starts no round and streams nothing again"
    );
    assert_eq!(run.outcome.messages, messages);
}

fn truncated_call(id: &str) -> ModelTurn {
    ModelTurn::Respond(vec![
        call_start(0, id, "web_search"),
        call_arguments(0, r#"{"query": "a very long quer"#),
        finish(FinishReason::Length),
    ])
}

#[test]
fn truncation_retried_then_given_up() {
    let agent = AgentLoop::new(config(), vec![user("Search a lot")], tool_table());
    let run = Simulation::new(
        agent,
        vec![
            truncated_call("call_t1"),
            truncated_call("call_t2"),
            truncated_call("call_t3"),
            answer("Sorry."),
        ],
        vec![],
    )
    .drive();

    let raw = r#"{"query": "a very long quer"#;
    let messages = vec![
        user("Search a lot"),
        assistant_calls(None, &[("call_t3", "web_search", raw)]),
        tool_message("call_t3", &format!("Error: {TRUNCATION_GAVE_UP}")),
        assistant("Sorry."),
    ];
    let mut retry = with_system(&[user("Search a lot")]);
    retry.push(user(TRUNCATION_INSTRUCTION));
    assert_eq!(
        run.requests
            .iter()
            .map(|request| (request.round, request.messages.clone()))
            .collect::<Vec<_>>(),
        vec![
            (1, with_system(&[user("Search a lot")])),
            (1, retry.clone()),
            (1, retry),
            (2, with_system(&messages[..3])),
        ]
    );
    assert_eq!(MAX_TRUNCATION_RETRIES, 2);
    assert_eq!(
        run.events,
        vec![
            round(1),
            tool_call_event("call_t3", "web_search", "web", "search", json!(raw)),
            tool_error_event("call_t3", TRUNCATION_GAVE_UP),
            round(2),
            text_event("Sorry."),
            final_event("Sorry.", FinalReason::Completed, &messages, Some("stop")),
        ]
    );
    assert_eq!(run.outcome.messages, messages);
}

#[test]
fn truncation_retry_that_succeeds_keeps_only_the_complete_call() {
    let agent = AgentLoop::new(config(), vec![user("Search")], tool_table());
    let mut truncated = vec![text("Searching.")];
    truncated.extend([
        call_start(0, "call_t1", "web_search"),
        call_arguments(0, r#"{"query": "a very long quer"#),
        finish(FinishReason::Length),
    ]);
    let mut retried = vec![reasoning("Shorter now."), text("Searching.")];
    retried.extend(tool_round(&[(
        0,
        "call_ok",
        "web_search",
        r#"{"query":"x"}"#,
    )]));
    let run = Simulation::new(
        agent,
        vec![
            ModelTurn::Respond(truncated),
            ModelTurn::Respond(retried),
            answer("Here."),
        ],
        vec![vec![ToolStep::Complete {
            id: "call_ok",
            outcome: success("x found"),
        }]],
    )
    .drive();

    let messages = vec![
        user("Search"),
        ChatMessage {
            reasoning_content: Some("Shorter now.".to_owned()),
            ..assistant_calls(
                Some("Searching."),
                &[("call_ok", "web_search", r#"{"query":"x"}"#)],
            )
        },
        tool_message("call_ok", "x found"),
        assistant("Here."),
    ];
    assert_eq!(
        run.events,
        vec![
            round(1),
            text_event("Searching."),
            tool_call_event(
                "call_ok",
                "web_search",
                "web",
                "search",
                json!({"query": "x"})
            ),
            tool_result_event("call_ok", "x found"),
            round(2),
            text_event("Here."),
            final_event("Here.", FinalReason::Completed, &messages, Some("stop")),
        ],
        "the retry shows nothing again, and the cut-off call is never announced"
    );
    assert_eq!(run.requests.len(), 3);
    assert_eq!(run.outcome.messages, messages);
}

#[test]
fn round_cap_reached_makes_one_last_call_without_tools() {
    let config = LoopConfig {
        max_rounds: 2,
        ..config()
    };
    let agent = AgentLoop::new(config, vec![user("Dig deep")], tool_table());
    let mut last_turn = vec![text("From what I found: rust.")];
    // A model that calls a tool anyway on the last call is not obeyed.
    last_turn.extend(streamed_call(
        0,
        "call_3",
        "web_search",
        r#"{"query":"more"}"#,
    ));
    let run = Simulation::new(
        agent,
        vec![
            one_call_round("call_1", "web_search", r#"{"query":"a"}"#),
            one_call_round("call_2", "web_search", r#"{"query":"b"}"#),
            ModelTurn::Respond(last_turn),
        ],
        vec![
            vec![ToolStep::Complete {
                id: "call_1",
                outcome: success("a"),
            }],
            vec![ToolStep::Complete {
                id: "call_2",
                outcome: success("b"),
            }],
        ],
    )
    .drive();

    let messages = vec![
        user("Dig deep"),
        assistant_calls(None, &[("call_1", "web_search", r#"{"query":"a"}"#)]),
        tool_message("call_1", "a"),
        assistant_calls(None, &[("call_2", "web_search", r#"{"query":"b"}"#)]),
        tool_message("call_2", "b"),
        assistant("From what I found: rust."),
    ];
    assert_eq!(
        run.requests
            .iter()
            .map(|request| (request.round, request.with_tools))
            .collect::<Vec<_>>(),
        vec![(1, true), (2, true), (3, false)]
    );
    assert_eq!(run.requests[2].messages, with_system(&messages[..5]));
    assert_eq!(
        run.events,
        vec![
            round(1),
            tool_call_event(
                "call_1",
                "web_search",
                "web",
                "search",
                json!({"query": "a"})
            ),
            tool_result_event("call_1", "a"),
            round(2),
            tool_call_event(
                "call_2",
                "web_search",
                "web",
                "search",
                json!({"query": "b"})
            ),
            tool_result_event("call_2", "b"),
            round(3),
            text_event("From what I found: rust."),
            final_event(
                "From what I found: rust.",
                FinalReason::Exhausted,
                &messages,
                None
            ),
        ]
    );
    assert_eq!(run.outcome.reason, OutcomeReason::Exhausted);
    assert_eq!(run.outcome.messages, messages);
}

#[test]
fn round_cap_without_a_last_answer_ends_with_the_results() {
    let config = LoopConfig {
        max_rounds: 1,
        answer_after_max_rounds: false,
        ..config()
    };
    let agent = AgentLoop::new(config, vec![user("Dig deep")], tool_table());
    let run = Simulation::new(
        agent,
        vec![ModelTurn::Respond(tool_round(&[
            (0, "call_1", "web_search", r#"{"query":"a"}"#),
            (1, "call_2", "stock_price", r#"{"ticker":"ACME"}"#),
        ]))],
        vec![vec![ToolStep::Complete {
            id: "call_1",
            outcome: success("a"),
        }]],
    )
    .drive();

    let unknown =
        "unknown tool `stock_price`; the available tools are: web_search, weather_forecast";
    let messages = vec![
        user("Dig deep"),
        assistant_calls(
            None,
            &[
                ("call_1", "web_search", r#"{"query":"a"}"#),
                ("call_2", "stock_price", r#"{"ticker":"ACME"}"#),
            ],
        ),
        tool_message("call_1", "a"),
        tool_message("call_2", &format!("Error: {unknown}")),
    ];
    assert_eq!(run.requests.len(), 1, "no last call after the capped round");
    assert_eq!(
        run.events,
        vec![
            round(1),
            tool_call_event(
                "call_1",
                "web_search",
                "web",
                "search",
                json!({"query": "a"})
            ),
            tool_call_event(
                "call_2",
                "stock_price",
                "",
                "stock_price",
                json!({"ticker": "ACME"})
            ),
            tool_error_event("call_2", unknown),
            tool_result_event("call_1", "a"),
            final_event("", FinalReason::Exhausted, &messages, Some("tool-calls")),
        ]
    );
    assert_eq!(run.outcome.reason, OutcomeReason::Exhausted);
    assert_eq!(run.outcome.messages, messages, "every call has its result");
}

#[test]
fn round_cap_without_a_last_answer_after_a_round_of_unknown_tools() {
    let config = LoopConfig {
        max_rounds: 1,
        answer_after_max_rounds: false,
        ..config()
    };
    let agent = AgentLoop::new(config, vec![user("Price?")], tool_table());
    let run = Simulation::new(
        agent,
        vec![one_call_round(
            "call_s",
            "stock_price",
            r#"{"ticker":"ACME"}"#,
        )],
        vec![],
    )
    .drive();

    assert_eq!(run.requests.len(), 1);
    assert!(run.tool_batches.is_empty(), "nothing reaches a server");
    assert_eq!(run.outcome.reason, OutcomeReason::Exhausted);
    assert_eq!(run.outcome.text, "");
    assert_eq!(run.outcome.messages.len(), 3, "user, calls, error result");
}

#[test]
fn answer_after_max_rounds_off_changes_nothing_before_the_cap() {
    let config = LoopConfig {
        max_rounds: 2,
        answer_after_max_rounds: false,
        ..config()
    };
    let agent = AgentLoop::new(config, vec![user("Dig")], tool_table());
    let run = Simulation::new(
        agent,
        vec![
            one_call_round("call_1", "web_search", r#"{"query":"a"}"#),
            answer("Found it."),
        ],
        vec![vec![ToolStep::Complete {
            id: "call_1",
            outcome: success("a"),
        }]],
    )
    .drive();

    assert_eq!(run.requests.len(), 2);
    assert!(run.requests[1].with_tools, "round 2 still offers tools");
    assert_eq!(run.outcome.reason, OutcomeReason::Completed);
    assert_eq!(run.outcome.text, "Found it.");
}

#[test]
fn abort_during_the_stream() {
    let agent = AgentLoop::new(config(), vec![user("Tell a story")], tool_table());
    let run = Simulation::new(
        agent,
        vec![ModelTurn::Respond(vec![
            reasoning("A short one."),
            text("Once upon"),
            text(" a time"),
            usage(9, 4),
            text(" there was"),
        ])],
        vec![],
    )
    .abort_at(AbortAt::ModelCall { call: 0, after: 4 })
    .drive();

    let partial = ChatMessage {
        reasoning_content: Some("A short one.".to_owned()),
        ..assistant("Once upon a time")
    };
    let messages = vec![user("Tell a story"), partial];
    assert_eq!(
        run.events,
        vec![
            round(1),
            AgentEvent::Reasoning {
                text: "A short one.".to_owned()
            },
            text_event("Once upon"),
            text_event(" a time"),
            usage_event(9, 4),
            final_event("Once upon a time", FinalReason::Aborted, &messages, None),
        ]
    );
    assert!(matches!(
        run.work().as_slice(),
        [Action::CallModel(_), Action::CancelModel, Action::Finish(_)]
    ));
    assert_eq!(run.outcome.reason, OutcomeReason::Aborted);
    assert_eq!(run.outcome.messages, messages);
}

#[test]
fn abort_during_tools() {
    let agent = AgentLoop::new(config(), vec![user("Both please")], tool_table());
    let run = Simulation::new(
        agent,
        vec![ModelTurn::Respond(tool_round(&[
            (0, "call_a", "web_search", r#"{"query":"rust"}"#),
            (1, "call_b", "weather_forecast", r#"{"city":"Oslo"}"#),
        ]))],
        vec![vec![
            ToolStep::Complete {
                id: "call_a",
                outcome: success("rust 2.0"),
            },
            ToolStep::Complete {
                id: "call_b",
                outcome: success("never delivered"),
            },
        ]],
    )
    .abort_at(AbortAt::ToolBatch { batch: 0, after: 1 })
    .drive();

    let messages = vec![
        user("Both please"),
        assistant_calls(
            None,
            &[
                ("call_a", "web_search", r#"{"query":"rust"}"#),
                ("call_b", "weather_forecast", r#"{"city":"Oslo"}"#),
            ],
        ),
        tool_message("call_a", "rust 2.0"),
        tool_message("call_b", &format!("Error: {ABORTED}")),
    ];
    assert_eq!(
        run.events,
        vec![
            round(1),
            tool_call_event(
                "call_a",
                "web_search",
                "web",
                "search",
                json!({"query": "rust"})
            ),
            tool_call_event(
                "call_b",
                "weather_forecast",
                "weather",
                "forecast",
                json!({"city": "Oslo"})
            ),
            tool_result_event("call_a", "rust 2.0"),
            tool_error_event("call_b", ABORTED),
            final_event("", FinalReason::Aborted, &messages, None),
        ]
    );
    let work = run.work();
    assert!(matches!(work[2], Action::CancelTools(ids) if ids == &["call_b".to_owned()]));
    assert_eq!(work.len(), 4);
    assert_eq!(run.outcome.messages, messages);
}

#[test]
fn abort_between_rounds() {
    let agent = AgentLoop::new(config(), vec![user("Rust?")], tool_table());
    let run = Simulation::new(
        agent,
        vec![one_call_round(
            "call_a",
            "web_search",
            r#"{"query":"rust"}"#,
        )],
        vec![vec![ToolStep::Complete {
            id: "call_a",
            outcome: success("rust 2.0"),
        }]],
    )
    .abort_at(AbortAt::ToolBatch { batch: 0, after: 1 })
    .drive();

    let messages = vec![
        user("Rust?"),
        assistant_calls(None, &[("call_a", "web_search", r#"{"query":"rust"}"#)]),
        tool_message("call_a", "rust 2.0"),
    ];
    assert_eq!(
        run.events,
        vec![
            round(1),
            tool_call_event(
                "call_a",
                "web_search",
                "web",
                "search",
                json!({"query": "rust"})
            ),
            tool_result_event("call_a", "rust 2.0"),
            final_event("", FinalReason::Aborted, &messages, None),
        ],
        "round 2 never starts"
    );
    assert!(
        matches!(
            run.work().as_slice(),
            [
                Action::CallModel(_),
                Action::CallTools(_),
                Action::Finish(_)
            ]
        ),
        "the next model call is withdrawn, not started then cancelled"
    );
    assert_eq!(run.outcome.messages, messages);
}

#[test]
fn pre_tool_text_is_kept_but_not_streamed() {
    let agent = AgentLoop::new(config(), vec![user("Rust?")], tool_table());
    let mut first_round = vec![
        text("Let me "),
        call_start(0, "call_a", "web_search"),
        text("look that up."),
    ];
    first_round.push(call_arguments(0, r#"{"query":"rust"}"#));
    first_round.push(finish(FinishReason::ToolCalls));
    let run = Simulation::new(
        agent,
        vec![ModelTurn::Respond(first_round), answer("Rust it is.")],
        vec![vec![ToolStep::Complete {
            id: "call_a",
            outcome: success("rust 2.0"),
        }]],
    )
    .drive();

    let messages = vec![
        user("Rust?"),
        assistant_calls(
            Some("Let me look that up."),
            &[("call_a", "web_search", r#"{"query":"rust"}"#)],
        ),
        tool_message("call_a", "rust 2.0"),
        assistant("Rust it is."),
    ];
    assert_eq!(
        run.events,
        vec![
            round(1),
            text_event("Let me "),
            tool_call_event(
                "call_a",
                "web_search",
                "web",
                "search",
                json!({"query": "rust"})
            ),
            tool_result_event("call_a", "rust 2.0"),
            round(2),
            text_event("Rust it is."),
            final_event(
                "Rust it is.",
                FinalReason::Completed,
                &messages,
                Some("stop")
            ),
        ]
    );
    assert_eq!(run.outcome.messages, messages);
}

#[test]
fn reasoning_echoed_for_each_provider_kind() {
    let call = |id: &str, signature: Option<&str>| MessageToolCall {
        id: id.to_owned(),
        call_type: "function".to_owned(),
        function: FunctionCall {
            name: "weather_forecast".to_owned(),
            arguments: r#"{"city":"Oslo"}"#.to_owned(),
        },
        thought_signature: signature.map(str::to_owned),
    };
    let deepseek_events = {
        // The shape of openai-compatible/deepseek-reasoner-tool-call.chunks.txt.
        let mut events = vec![reasoning("The user wants"), reasoning(" the weather.")];
        events.extend(tool_round(&[(
            0,
            "call_ds",
            "weather_forecast",
            r#"{"city":"Oslo"}"#,
        )]));
        events
    };
    let anthropic_events = {
        // The shapes of anthropic/thinking.chunks.txt and anthropic/tool_use_response.sse.
        let mut events = vec![
            reasoning("I should"),
            reasoning(" check."),
            ModelEvent::ReasoningSignature("EqQBCkYIARgCKkA=".to_owned()),
            ModelEvent::RedactedReasoning("EmwKAhgBEgy3va3p".to_owned()),
            text("Checking."),
        ];
        events.extend(tool_round(&[(
            0,
            "toolu_01",
            "weather_forecast",
            r#"{"city":"Oslo"}"#,
        )]));
        events
    };
    // The Responses API's: two reasoning items, each closed by its encrypted content, one with
    // a summary in two deltas and one without any (tests/fixtures/streams/openai-responses-*).
    let responses_events = {
        let mut events = vec![
            reasoning("Oslo:"),
            reasoning(" forecast."),
            ModelEvent::EncryptedReasoning("gAAAAAB-first".to_owned()),
            ModelEvent::EncryptedReasoning("gAAAAAB-second".to_owned()),
        ];
        events.extend(tool_round(&[(
            1,
            "call_rs",
            "weather_forecast",
            r#"{"city":"Oslo"}"#,
        )]));
        events
    };
    // The shape of gemini/tool-call.chunks.txt: a whole call, no id, a thought signature.
    let gemini_events = vec![
        reasoning("Weather means forecast."),
        ModelEvent::TextSignature("CiQBtext".to_owned()),
        ModelEvent::ToolCallDelta(ToolCallDelta {
            name: Some("weather_forecast".to_owned()),
            arguments: Some(ArgumentsDelta::Whole(json!({"city": "Oslo"}))),
            thought_signature: Some("CiQBVKhc7g==".to_owned()),
            ..ToolCallDelta::default()
        }),
        finish(FinishReason::Stop),
    ];
    let cases = vec![
        (
            "deepseek",
            deepseek_events,
            "call_ds",
            ChatMessage {
                reasoning_content: Some("The user wants the weather.".to_owned()),
                ..assistant_calls(None, &[])
            },
            call("call_ds", None),
            vec!["The user wants", " the weather."],
        ),
        (
            "anthropic",
            anthropic_events,
            "toolu_01",
            ChatMessage {
                reasoning_content: Some("I should check.".to_owned()),
                thinking_blocks: Some(vec![
                    ThinkingBlock::Thinking {
                        thinking: "I should check.".to_owned(),
                        signature: "EqQBCkYIARgCKkA=".to_owned(),
                    },
                    ThinkingBlock::RedactedThinking {
                        data: "EmwKAhgBEgy3va3p".to_owned(),
                    },
                ]),
                ..assistant_calls(Some("Checking."), &[])
            },
            call("toolu_01", None),
            vec!["I should", " check."],
        ),
        (
            "responses",
            responses_events,
            "call_rs",
            ChatMessage {
                reasoning_content: Some("Oslo: forecast.".to_owned()),
                thinking_blocks: Some(vec![
                    ThinkingBlock::Reasoning {
                        summary: "Oslo: forecast.".to_owned(),
                        encrypted_content: "gAAAAAB-first".to_owned(),
                    },
                    ThinkingBlock::Reasoning {
                        summary: String::new(),
                        encrypted_content: "gAAAAAB-second".to_owned(),
                    },
                ]),
                ..assistant_calls(None, &[])
            },
            call("call_rs", None),
            vec!["Oslo:", " forecast."],
        ),
        (
            "gemini",
            gemini_events,
            "call_1_0",
            ChatMessage {
                reasoning_content: Some("Weather means forecast.".to_owned()),
                thinking_blocks: Some(vec![ThinkingBlock::ThoughtSignature {
                    signature: "CiQBtext".to_owned(),
                }]),
                ..assistant_calls(None, &[])
            },
            call("call_1_0", Some("CiQBVKhc7g==")),
            vec!["Weather means forecast."],
        ),
    ];
    for (provider, events, call_id, assistant_without_calls, tool_call, reasoning_pieces) in cases {
        let agent = AgentLoop::new(config(), vec![user("Oslo?")], tool_table());
        let run = Simulation::new(
            agent,
            vec![ModelTurn::Respond(events), answer("Cold.")],
            vec![vec![ToolStep::Complete {
                id: call_id,
                outcome: success("cold"),
            }]],
        )
        .drive();

        let echoed = ChatMessage {
            tool_calls: Some(vec![tool_call]),
            ..assistant_without_calls
        };
        assert_eq!(
            run.requests[1].messages[2], echoed,
            "{provider}: the echoed message"
        );
        assert_eq!(
            run.outcome.messages[1], echoed,
            "{provider}: the kept message"
        );
        let reasoning_events: Vec<AgentEvent> = run
            .events
            .iter()
            .filter(|event| matches!(event, AgentEvent::Reasoning { .. }))
            .cloned()
            .collect();
        let expected: Vec<AgentEvent> = reasoning_pieces
            .iter()
            .map(|piece| AgentEvent::Reasoning {
                text: (*piece).to_owned(),
            })
            .collect();
        assert_eq!(reasoning_events, expected, "{provider}: reasoning streamed");
    }
}

#[test]
fn gating_runs_a_plain_generation() {
    let cases = [
        ("no tools listed", ToolTable::default(), true),
        ("model without tool support", tool_table(), false),
    ];
    for (case, tools, tools_supported) in cases {
        let config = LoopConfig {
            tools_supported,
            ..config()
        };
        let agent = AgentLoop::new(config, vec![user("Hi")], tools);
        let mut turn = vec![text("Hello.")];
        turn.extend(streamed_call(0, "call_a", "web_search", r#"{"query":"x"}"#));
        let run = Simulation::new(agent, vec![ModelTurn::Respond(turn)], vec![]).drive();

        let messages = vec![user("Hi"), assistant("Hello.")];
        assert!(
            !run.requests[0].with_tools,
            "{case}: no tools in the request"
        );
        assert_eq!(
            run.requests[0].messages,
            with_system(&[user("Hi")]),
            "{case}"
        );
        assert_eq!(
            run.events,
            vec![
                round(1),
                text_event("Hello."),
                final_event("Hello.", FinalReason::Completed, &messages, None),
            ],
            "{case}"
        );
        assert_eq!(run.outcome.messages, messages, "{case}");
    }
}

/// JSON data in an answer (here a package.json, which has a `name`) is the answer, shown whole,
/// not a call to a tool named after it.
#[test]
fn prompt_tool_mode_takes_json_data_in_the_answer_for_the_answer() {
    let config = LoopConfig {
        prompt_tool_mode: true,
        tools_supported: false,
        ..config()
    };
    let agent = AgentLoop::new(config, vec![user("Write a package.json")], tool_table());
    let answer = "Here is a minimal package.json:\n```json\n{\"name\": \"my-app\", \"version\": \"1.0.0\", \"private\": true}\n```";
    let run = Simulation::new(
        agent,
        vec![ModelTurn::Respond(vec![
            text(answer),
            finish(FinishReason::Stop),
        ])],
        vec![],
    )
    .drive();
    assert_eq!(run.requests.len(), 1, "the answer is final");
    assert_eq!(run.outcome.reason, OutcomeReason::Completed);
    assert_eq!(run.outcome.text, answer);
    let shown = run.shown_text();
    assert_eq!(
        shown, answer,
        "the block held back while it might be a call is shown"
    );
}

#[test]
fn prompt_tool_mode_parses_calls_from_the_text() {
    let config = LoopConfig {
        prompt_tool_mode: true,
        tools_supported: false,
        ..config()
    };
    let agent = AgentLoop::new(config, vec![user("Rust?")], tool_table());
    let call_text = "I'll look it up.\n```json\n{\"name\": \"web_search\", \"arguments\": {\"query\": \"rust\"}}\n```";
    let answer_text = "Rust is a language:\n```rust\nfn main() {}\n```";
    let run = Simulation::new(
        agent,
        vec![
            ModelTurn::Respond(vec![
                reasoning("Need a search."),
                text("I'll look it up.\n"),
                text("```json\n{\"name\": "),
                text("\"web_search\", \"arguments\": {\"query\": \"rust\"}}\n```"),
                finish(FinishReason::Stop),
            ]),
            ModelTurn::Respond(vec![
                text("Rust is a language:\n"),
                text("```rust\nfn main() {}\n```"),
            ]),
        ],
        vec![vec![ToolStep::Complete {
            id: "call_1_0",
            outcome: success("rust-lang.org"),
        }]],
    )
    .drive();

    let messages = vec![
        user("Rust?"),
        ChatMessage {
            reasoning_content: Some("Need a search.".to_owned()),
            ..assistant(call_text)
        },
        user("Result of `web_search` (call call_1_0):\nrust-lang.org"),
        assistant(answer_text),
    ];
    let tool_system_prompt = format!("{SYSTEM_PROMPT}\n\n{}", tool_prompt(&tool_table()));
    assert_eq!(
        run.requests[0],
        ModelRequest {
            messages: vec![system(&tool_system_prompt), user("Rust?")],
            with_tools: false,
            stream: true,
            round: 1,
        }
    );
    assert_eq!(run.requests[1].messages[1..], messages[..3]);
    assert_eq!(
        run.events,
        vec![
            round(1),
            AgentEvent::Reasoning {
                text: "Need a search.".to_owned()
            },
            text_event("I'll look it up.\n"),
            tool_call_event(
                "call_1_0",
                "web_search",
                "web",
                "search",
                json!({"query": "rust"})
            ),
            tool_result_event("call_1_0", "rust-lang.org"),
            round(2),
            text_event("Rust is a language:\n"),
            text_event("```rust\nfn main() {}\n```"),
            final_event(answer_text, FinalReason::Completed, &messages, None),
        ],
        "the call is not streamed; a code block in the answer is shown once the answer is complete"
    );
    assert_eq!(run.outcome.messages, messages);
}

#[test]
fn model_failure_keeps_the_messages() {
    let agent = AgentLoop::new(config(), vec![user("Rust?")], tool_table());
    let run = Simulation::new(
        agent,
        vec![
            one_call_round("call_a", "web_search", r#"{"query":"rust"}"#),
            ModelTurn::Fail(ModelFailure {
                code: "http_status".to_owned(),
                message: "503 service unavailable".to_owned(),
            }),
        ],
        vec![vec![ToolStep::Complete {
            id: "call_a",
            outcome: success("rust 2.0"),
        }]],
    )
    .drive();

    assert_eq!(
        run.outcome.reason,
        OutcomeReason::Failed {
            code: "http_status".to_owned(),
            message: "503 service unavailable".to_owned()
        }
    );
    assert_eq!(
        run.outcome.messages,
        vec![
            user("Rust?"),
            assistant_calls(None, &[("call_a", "web_search", r#"{"query":"rust"}"#)]),
            tool_message("call_a", "rust 2.0"),
        ]
    );
    assert!(
        !run.events
            .iter()
            .any(|event| matches!(event, AgentEvent::Final { .. })),
        "a failure is not a final answer"
    );
    assert!(matches!(
        run.work().as_slice(),
        [
            Action::CallModel(_),
            Action::CallTools(_),
            Action::CallModel(_),
            Action::Finish(_)
        ]
    ));
}

#[test]
fn provider_error_in_the_stream_fails_the_run() {
    let agent = AgentLoop::new(config(), vec![user("Hi")], tool_table());
    let run = Simulation::new(
        agent,
        vec![ModelTurn::Respond(vec![
            text("Hel"),
            usage(7, 2),
            ModelEvent::Error(ProviderStreamError {
                code: Some("overloaded_error".to_owned()),
                message: "Overloaded".to_owned(),
            }),
            text("lo"),
        ])],
        vec![],
    )
    .drive();

    assert_eq!(
        run.outcome.reason,
        OutcomeReason::Failed {
            code: PROVIDER_STREAM_ERROR.to_owned(),
            message: "overloaded_error: Overloaded".to_owned()
        }
    );
    assert_eq!(run.outcome.messages, vec![user("Hi")]);
    assert_eq!(
        run.events,
        vec![round(1), text_event("Hel"), usage_event(7, 2)],
        "the tokens reported before the error count"
    );
    assert_eq!(
        run.outcome.usage,
        Usage {
            input_tokens: 7,
            output_tokens: 2,
            ..Default::default()
        }
    );
    assert!(matches!(
        run.work().as_slice(),
        [Action::CallModel(_), Action::CancelModel, Action::Finish(_)]
    ));
}

#[test]
fn prompt_tool_mode_feeds_a_malformed_call_back_for_repair() {
    let config = LoopConfig {
        prompt_tool_mode: true,
        ..config()
    };
    let malformed_body = r#"{"name": "web_search", "arguments": {"query": "rust",}}"#;
    let malformed = format!("```json\n{malformed_body}\n```");
    let repaired = "```json\n{\"name\": \"web_search\", \"arguments\": {\"query\": \"rust\"}}\n```";
    let json_error = serde_json::from_str::<serde_json::Value>(malformed_body).unwrap_err();
    let parse_error = format!("the tool call is not valid JSON: {json_error}");
    let agent = AgentLoop::new(config, vec![user("Rust?")], tool_table());
    let run = Simulation::new(
        agent,
        vec![
            ModelTurn::Respond(vec![text(&malformed)]),
            ModelTurn::Respond(vec![text(repaired)]),
            answer("Rust is fast."),
        ],
        vec![vec![ToolStep::Complete {
            id: "call_2_0",
            outcome: success("rust-lang.org"),
        }]],
    )
    .drive();

    let messages = vec![
        user("Rust?"),
        assistant(&malformed),
        user(&format!(
            "Result of `web_search` (call call_1_0):\nError: {parse_error}"
        )),
        assistant(repaired),
        user("Result of `web_search` (call call_2_0):\nrust-lang.org"),
        assistant("Rust is fast."),
    ];
    assert_eq!(
        run.events,
        vec![
            round(1),
            tool_call_event(
                "call_1_0",
                "web_search",
                "web",
                "search",
                json!(malformed_body)
            ),
            tool_error_event("call_1_0", &parse_error),
            round(2),
            tool_call_event(
                "call_2_0",
                "web_search",
                "web",
                "search",
                json!({"query": "rust"})
            ),
            tool_result_event("call_2_0", "rust-lang.org"),
            round(3),
            text_event("Rust is fast."),
            final_event(
                "Rust is fast.",
                FinalReason::Completed,
                &messages,
                Some("stop")
            ),
        ]
    );
    assert_eq!(
        run.tool_batches.len(),
        1,
        "only the repaired call is dispatched"
    );
    assert_eq!(run.outcome.messages, messages);
}

/// A screenshot result as an MCP server sends it: text, a PNG, an SVG (a type no provider takes
/// as an image) and a PNG over Anthropic's 5 MiB of base64.
fn screenshot_result() -> ToolResult {
    let big = "A".repeat(5 * 1024 * 1024 + 4);
    ToolResult {
        text: "Page shown. [image block 1] [image block 2] [image block 3]".to_owned(),
        content: vec![
            json!({"type": "text", "text": "Page shown."}),
            json!({"type": "image", "mimeType": "image/png", "data": "iVBORw0KGgo="}),
            json!({"type": "image", "mimeType": "image/svg+xml", "data": "PHN2Zy8+"}),
            json!({"type": "image", "mimeType": "image/png", "data": big}),
        ],
        structured_content: None,
        is_error: false,
    }
}

fn screenshot_tool_message(images_in_tool_results: bool) -> ChatMessage {
    let config = LoopConfig {
        images_in_tool_results,
        ..config()
    };
    let agent = AgentLoop::new(config, vec![user("Show Oslo's page")], tool_table());
    let run = Simulation::new(
        agent,
        vec![
            ModelTurn::Respond(tool_round(&[(
                0,
                "call_a",
                "weather_forecast",
                r#"{"city":"Oslo"}"#,
            )])),
            answer("Here it is."),
        ],
        vec![vec![ToolStep::Complete {
            id: "call_a",
            outcome: Ok(screenshot_result()),
        }]],
    )
    .drive();
    run.outcome.messages[2].clone()
}

/// For a provider that shows tool-result images, the images it can take follow the result's text
/// in the tool message; for others, the message is the text alone, as before.
#[test]
fn a_results_images_join_its_tool_message_where_the_provider_shows_them() {
    let text = screenshot_result().text;
    assert_eq!(
        screenshot_tool_message(false),
        tool_message("call_a", &text)
    );
    assert_eq!(
        screenshot_tool_message(true),
        ChatMessage::tool_result_with_images(
            "call_a",
            text,
            vec![ContentPart::ImageUrl {
                image_url: ImageUrl {
                    url: "data:image/png;base64,iVBORw0KGgo=".to_owned(),
                    detail: None,
                },
            }],
        )
    );
}

/// Anthropic refuses a tool whose top-level property key is outside `^[a-zA-Z0-9_.-]{1,64}$`
/// (anthropics/claude-code#79418, beautyfree/appstore-connect-mcp#2 for `filter[id]`), so the
/// keys go out renamed (tools_sanitize's `anthropic_renames_the_property_keys_it_refuses`) and
/// the model calls with the renamed keys. The MCP server knows only its own keys
/// (decocms/studio#6874 maps them back for the same reason): the invocation and the `toolCall`
/// event carry the original keys, the assistant message keeps what the model sent.
#[test]
fn a_call_with_renamed_property_keys_reaches_the_tool_with_its_own_keys() {
    let long_key = "k".repeat(70);
    let long_sent = "k".repeat(64);
    let table = ToolTable::new(vec![ToolEntry {
        function_name: "apps_list".to_owned(),
        server: "asc".to_owned(),
        tool: "list-apps".to_owned(),
        description: Some("List apps".to_owned()),
        input_schema: json!({"type": "object", "properties": {
            "filter[id]": {"type": "string"},
            long_key.clone(): {"type": "integer"}
        }, "required": ["filter[id]"]}),
        annotations: None,
    }]);
    let provider = ProviderConfig {
        id: "anthropic".to_owned(),
        api_key: Some("sk-test".to_owned()),
        base_url: Some("http://127.0.0.1:9".to_owned()),
        ..ProviderConfig::default()
    }
    .resolve()
    .expect("complete config");
    let provider_tools = provider.provider_tools(table.entries());
    let built = provider
        .chat_request_with(&[user("Apps?")], &provider_tools, ResponseMode::Streaming)
        .expect("request");
    let body: Value = serde_json::from_str(&built.request.body).expect("json body");
    let input_schema = &body["tools"][0]["input_schema"];
    let sent_keys: Vec<&str> = input_schema["properties"]
        .as_object()
        .expect("properties")
        .keys()
        .map(String::as_str)
        .collect();
    assert_eq!(sent_keys, ["filter_id_", long_sent.as_str()]);
    assert_eq!(input_schema["required"], json!(["filter_id_"]));

    let mut agent = AgentLoop::new(config(), vec![user("Apps?")], table);
    agent.use_argument_keys(provider_tools.argument_keys().clone());
    let sent_arguments = format!(r#"{{"filter_id_":"42","{long_sent}":3}}"#);
    let run = Simulation::new(
        agent,
        vec![
            one_call_round("call_a", "apps_list", &sent_arguments),
            answer("One app."),
        ],
        vec![vec![ToolStep::Complete {
            id: "call_a",
            outcome: success("app 42"),
        }]],
    )
    .drive();

    let original = json!({"filter[id]": "42", long_key: 3});
    assert_eq!(
        run.tool_batches,
        vec![vec![invocation(
            "call_a",
            "apps_list",
            "asc",
            "list-apps",
            original.clone()
        )]]
    );
    assert!(run.events.contains(&tool_call_event(
        "call_a",
        "apps_list",
        "asc",
        "list-apps",
        original
    )));
    assert_eq!(
        run.outcome.messages[1],
        assistant_calls(None, &[("call_a", "apps_list", &sent_arguments)])
    );
}
