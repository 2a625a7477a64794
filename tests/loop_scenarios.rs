//! Simulation tests of the agent loop: a scripted model and scripted tools, each test asserting
//! the exact events, the work asked for, and the final messages.

mod common;

use common::*;
use mcp_agent_wasm::core::agent_loop::{
    Action, AgentEvent, AgentLoop, FinalReason, LoopConfig, ModelRequest, OutcomeReason,
};
use mcp_agent_wasm::core::model_event::{FinishReason, Usage};
use serde_json::json;

const SYSTEM_PROMPT: &str = "You are a helpful assistant. Today is 2026-11-30.";

fn config() -> LoopConfig {
    LoopConfig {
        system_prompt: Some(SYSTEM_PROMPT.to_owned()),
        ..LoopConfig::default()
    }
}

fn final_event(
    text: &str,
    reason: FinalReason,
    messages: &[mcp_agent_wasm::core::message::ChatMessage],
) -> AgentEvent {
    AgentEvent::Final {
        text: text.to_owned(),
        reason,
        messages: messages.to_vec(),
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
            final_event("Hello!", FinalReason::Completed, &messages),
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
            output_tokens: 3
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
            final_event("Sunny, 21 °C.", FinalReason::Completed, &messages),
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
            output_tokens: 15
        }
    );
    assert!(matches!(run.actions.last(), Some(Action::Finish(_))));
}
