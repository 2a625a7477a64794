#![cfg(not(target_arch = "wasm32"))]
//! Properties of the agent loop under arbitrary input orders: it never panics, finishes at most
//! once, hands out nothing after finishing, always ends complete conversations, and ends even
//! with a model that never stops calling tools.

mod common;

use common::{tool_table, user};
use mcp_agent_wasm::core::agent_loop::{
    Action, AgentEvent, AgentLoop, LoopConfig, MissingIdStrategy, ModelFailure, Outcome,
    ToolOutcome, ToolResult, MAX_TRUNCATION_RETRIES,
};
use mcp_agent_wasm::core::message::{ChatMessage, Role};
use mcp_agent_wasm::core::model_event::{
    ArgumentsDelta, FinishReason, ModelEvent, ProviderStreamError, ToolCallDelta, Usage,
};
use mcp_agent_wasm::core::tools::ToolTable;
use proptest::prelude::*;
use serde_json::json;

#[derive(Debug, Clone)]
enum Input {
    Model(ModelEvent),
    ModelDone,
    ModelFailed,
    /// The outcome of the `pick`-th call handed out so far (or of an unknown id if none).
    ToolOutcome {
        pick: usize,
        ok: bool,
    },
    ToolProgress {
        pick: usize,
    },
    Abort,
    Poll,
}

fn tool_call_delta() -> impl Strategy<Value = ToolCallDelta> {
    let id = prop_oneof![
        Just(None),
        Just(Some("c1")),
        Just(Some("c2")),
        Just(Some(""))
    ];
    let name = prop_oneof![
        Just(None),
        Just(Some("web_search")),
        Just(Some("weather_forecast")),
        Just(Some("no_such_tool")),
        Just(Some("")),
    ];
    let arguments = prop_oneof![
        Just(None),
        Just(Some(ArgumentsDelta::Fragment("{\"query\":".to_owned()))),
        Just(Some(ArgumentsDelta::Fragment("\"rust\"}".to_owned()))),
        Just(Some(ArgumentsDelta::Fragment("[1".to_owned()))),
        Just(Some(ArgumentsDelta::Whole(json!({"city": "Oslo"})))),
        Just(Some(ArgumentsDelta::Whole(json!("not an object")))),
    ];
    (
        proptest::option::of(0u32..3),
        id,
        name,
        arguments,
        proptest::option::of(Just("sig".to_owned())),
    )
        .prop_map(
            |(index, id, name, arguments, thought_signature)| ToolCallDelta {
                index,
                id: id.map(str::to_owned),
                name: name.map(str::to_owned),
                arguments,
                thought_signature,
            },
        )
}

fn model_event() -> impl Strategy<Value = ModelEvent> {
    let text = prop_oneof![
        Just("Hello "),
        Just("\n```json\n"),
        Just("{\"name\": \"web_search\", \"arguments\": {\"query\": \"x\"}}"),
        Just("\n```\n"),
        Just("[{\"name\": \"nope\"}]"),
        Just("é`"),
    ];
    prop_oneof![
        16 => text.clone().prop_map(|piece| ModelEvent::TextDelta(piece.to_owned())),
        4 => text.prop_map(|piece| ModelEvent::ReasoningDelta(piece.to_owned())),
        4 => Just(ModelEvent::ReasoningSignature("sig".to_owned())),
        4 => Just(ModelEvent::RedactedReasoning("data".to_owned())),
        16 => tool_call_delta().prop_map(ModelEvent::ToolCallDelta),
        8 => prop_oneof![
            Just(FinishReason::Stop),
            Just(FinishReason::ToolCalls),
            Just(FinishReason::Length),
        ]
        .prop_map(ModelEvent::Finish),
        4 => (0u64..100, 0u64..100).prop_map(|(input_tokens, output_tokens)| {
            ModelEvent::Usage(Usage { input_tokens, output_tokens, ..Default::default() })
        }),
        // Rare: an error ends the run, which would hide the rest of the state space.
        1 => Just(ModelEvent::Error(ProviderStreamError {
            code: None,
            message: "boom".to_owned(),
        })),
    ]
}

/// A call the tool table accepts, so that rounds often reach the tools.
fn valid_call_delta() -> impl Strategy<Value = ModelEvent> {
    (0u32..3, any::<bool>()).prop_map(|(index, with_id)| {
        ModelEvent::ToolCallDelta(ToolCallDelta {
            index: Some(index),
            id: with_id.then(|| format!("id{index}")),
            name: Some("weather_forecast".to_owned()),
            arguments: Some(ArgumentsDelta::Whole(json!({"city": "Oslo"}))),
            thought_signature: None,
        })
    })
}

/// Inputs that end the run are rare, so that most runs visit several rounds before they end.
fn input() -> impl Strategy<Value = Input> {
    prop_oneof![
        30 => model_event().prop_map(Input::Model),
        40 => valid_call_delta().prop_map(Input::Model),
        10 => Just(Input::ModelDone),
        1 => Just(Input::ModelFailed),
        40 => (0usize..8, any::<bool>()).prop_map(|(pick, ok)| Input::ToolOutcome { pick, ok }),
        5 => (0usize..8).prop_map(|pick| Input::ToolProgress { pick }),
        1 => Just(Input::Abort),
        40 => Just(Input::Poll),
    ]
}

/// Mostly native tools with a few rounds allowed, so that every state is visited often.
fn loop_config() -> impl Strategy<Value = (LoopConfig, bool)> {
    (
        prop_oneof![1 => Just(0u32), 19 => 1u32..4],
        0u8..20,
        any::<bool>(),
        0u8..20,
        any::<bool>(),
    )
        .prop_map(
            |(max_rounds, mode, re_request, tool_table_choice, answer_after_max_rounds)| {
                let config = LoopConfig {
                    max_rounds,
                    answer_after_max_rounds,
                    system_prompt: Some("Be brief.".to_owned()),
                    tools_supported: mode != 0,
                    prompt_tool_mode: mode == 1,
                    missing_id_strategy: if re_request {
                        MissingIdStrategy::ReRequestWithoutStreaming
                    } else {
                        MissingIdStrategy::Synthesize
                    },
                    ..LoopConfig::default()
                };
                (config, tool_table_choice != 0)
            },
        )
}

/// Records what a run hands out and checks the invariants on every action.
#[derive(Default)]
struct Observer {
    call_ids: Vec<String>,
    model_calls: usize,
    last_final: Option<Vec<ChatMessage>>,
    outcome: Option<Outcome>,
}

impl Observer {
    fn poll_all(&mut self, agent: &mut AgentLoop) -> Result<(), TestCaseError> {
        while let Some(action) = agent.poll() {
            prop_assert!(self.outcome.is_none(), "an action after Finish: {action:?}");
            match action {
                Action::CallModel(_) => self.model_calls += 1,
                Action::CallTools(invocations) => self
                    .call_ids
                    .extend(invocations.into_iter().map(|invocation| invocation.call_id)),
                Action::Emit(AgentEvent::Final { messages, .. }) => {
                    self.last_final = Some(messages)
                }
                Action::Finish(outcome) => {
                    assert_complete(&outcome.messages)?;
                    if let Some(final_messages) = &self.last_final {
                        prop_assert_eq!(final_messages, &outcome.messages);
                    }
                    self.outcome = Some(outcome);
                }
                Action::Emit(_) | Action::CancelModel | Action::CancelTools(_) => {}
            }
        }
        Ok(())
    }

    fn pick(&self, pick: usize) -> String {
        if self.call_ids.is_empty() {
            "unknown".to_owned()
        } else {
            self.call_ids[pick % self.call_ids.len()].clone()
        }
    }
}

/// Every assistant message with calls is directly followed by one tool message per call, in
/// call order.
fn assert_complete(messages: &[ChatMessage]) -> Result<(), TestCaseError> {
    for (position, message) in messages.iter().enumerate() {
        let Some(calls) = &message.tool_calls else {
            continue;
        };
        let answers: Vec<Option<&str>> = messages[position + 1..]
            .iter()
            .take(calls.len())
            .map(|answer| {
                (answer.role == Role::Tool)
                    .then_some(answer.tool_call_id.as_deref())
                    .flatten()
            })
            .collect();
        let expected: Vec<Option<&str>> = calls.iter().map(|call| Some(call.id.as_str())).collect();
        prop_assert_eq!(
            answers,
            expected,
            "incomplete calls at message {}",
            position
        );
    }
    Ok(())
}

fn tools_for(with_tools: bool) -> ToolTable {
    if with_tools {
        tool_table()
    } else {
        ToolTable::default()
    }
}

fn outcome_for(ok: bool) -> ToolOutcome {
    if ok {
        Ok(ToolResult {
            text: "done".to_owned(),
            content: vec![],
            structured_content: None,
            is_error: false,
        })
    } else {
        Err("failed".to_owned().into())
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn any_input_order_is_safe_and_ends_at_most_once(
        (config, with_tools) in loop_config(),
        inputs in proptest::collection::vec(input(), 0..150),
    ) {
        let mut agent = AgentLoop::new(config, vec![user("Hi")], tools_for(with_tools));
        let mut observer = Observer::default();
        for input in inputs {
            match input {
                Input::Model(event) => agent.handle_model_event(event),
                Input::ModelDone => agent.handle_model_done(),
                Input::ModelFailed => agent.handle_model_failed(ModelFailure {
                    code: "network".to_owned(),
                    message: "reset".to_owned(),
                }),
                Input::ToolOutcome { pick, ok } => {
                    let id = observer.pick(pick);
                    agent.handle_tool_outcome(&id, outcome_for(ok));
                }
                Input::ToolProgress { pick } => {
                    let id = observer.pick(pick);
                    agent.handle_tool_progress(&id, 1.0, None, None);
                }
                Input::Abort => agent.handle_abort(),
                Input::Poll => observer.poll_all(&mut agent)?,
            }
        }
        observer.poll_all(&mut agent)?;
        agent.handle_abort();
        observer.poll_all(&mut agent)?;
        prop_assert!(observer.outcome.is_some(), "an abort always ends the run");
        let messages = observer.outcome.map(|outcome| outcome.messages).unwrap_or_default();
        prop_assert_eq!(messages.first(), Some(&user("Hi")), "the caller's messages are kept");
    }

    #[test]
    fn a_model_that_never_stops_calling_tools_still_ends(
        (config, with_tools) in loop_config(),
        turns in proptest::collection::vec(proptest::collection::vec(model_event(), 0..12), 1..8),
        completion_orders in proptest::collection::vec(any::<bool>(), 1..8),
    ) {
        let max_rounds = config.max_rounds as usize;
        let mut agent = AgentLoop::new(config, vec![user("Hi")], tools_for(with_tools));
        let mut observer = Observer::default();
        let mut pending_tools: Vec<String> = Vec::new();
        let mut turn = 0;
        // Each round may be tried 1 + retries times, each try possibly re-requested once.
        let bound = (max_rounds + 1) * (MAX_TRUNCATION_RETRIES as usize + 1) * 2;
        for _ in 0..10 * bound + 10 {
            let model_calls_before = observer.model_calls;
            let ids_before = observer.call_ids.len();
            observer.poll_all(&mut agent)?;
            if observer.outcome.is_some() {
                break;
            }
            pending_tools.extend(observer.call_ids[ids_before..].iter().cloned());
            if observer.model_calls > model_calls_before {
                for event in turns[turn % turns.len()].iter().cloned() {
                    agent.handle_model_event(event);
                }
                // Whatever the script said, end the round as a tool round when it can be one.
                agent.handle_model_event(ModelEvent::ToolCallDelta(ToolCallDelta {
                    index: Some(7),
                    id: None,
                    name: Some("web_search".to_owned()),
                    arguments: Some(ArgumentsDelta::Whole(json!({"query": "more"}))),
                    thought_signature: None,
                }));
                agent.handle_model_done();
                turn += 1;
            } else if !pending_tools.is_empty() {
                if completion_orders[turn % completion_orders.len()] {
                    pending_tools.reverse();
                }
                for id in pending_tools.drain(..) {
                    agent.handle_tool_outcome(&id, outcome_for(true));
                }
            } else {
                return Err(TestCaseError::fail("the loop stalled"));
            }
        }
        prop_assert!(observer.outcome.is_some(), "the run ended");
        prop_assert!(observer.model_calls <= bound, "{} model calls", observer.model_calls);
    }
}

/// Answer texts in prompt-based tool mode, and the part of each that the user may see while it
/// streams: everything when it holds no call, the text before the call otherwise.
const PROMPT_MODE_TEXTS: &[(&str, &str)] = &[
    (
        "Plain answer with `code`, a [link](https://example.org) and {braces}.\n- item\n",
        "Plain answer with `code`, a [link](https://example.org) and {braces}.\n- item\n",
    ),
    (
        "Answer:\n```rust\nfn main() {}\n```\n[Rust](https://www.rust-lang.org)\nDone.",
        "Answer:\n```rust\nfn main() {}\n```\n[Rust](https://www.rust-lang.org)\nDone.",
    ),
    (
        "Let me check.\n```json\n{\"name\": \"web_search\", \"arguments\": {\"query\": \"x\"}}\n```",
        "Let me check.\n",
    ),
    (
        "Checking:\n  {\"name\": \"web_search\", \"arguments\": {\"query\": \"x\"}}",
        "Checking:\n",
    ),
    (
        "Both:\n[{\"name\": \"web_search\", \"arguments\": {\"query\": \"x\"}}, \
         {\"name\": \"weather_forecast\", \"arguments\": {\"city\": \"Oslo\"}}]",
        "Both:\n",
    ),
];

proptest! {
    #[test]
    fn prompt_mode_streams_the_same_text_however_it_is_split(
        case in 0..PROMPT_MODE_TEXTS.len(),
        cuts in proptest::collection::vec(0usize..200, 0..12),
    ) {
        let (answer, visible) = PROMPT_MODE_TEXTS[case];
        let config = LoopConfig {
            prompt_tool_mode: true,
            ..LoopConfig::default()
        };
        let mut agent = AgentLoop::new(config, vec![user("Hi")], tool_table());
        let mut observer = Observer::default();
        observer.poll_all(&mut agent)?;
        let mut boundaries: Vec<usize> = cuts
            .into_iter()
            .map(|cut| cut % (answer.len() + 1))
            .filter(|&cut| answer.is_char_boundary(cut))
            .collect();
        boundaries.extend([0, answer.len()]);
        boundaries.sort_unstable();
        boundaries.dedup();
        let mut shown = String::new();
        for piece in boundaries.windows(2) {
            agent.handle_model_event(ModelEvent::TextDelta(answer[piece[0]..piece[1]].to_owned()));
            while let Some(action) = agent.poll() {
                if let Action::Emit(AgentEvent::Text { text }) = action {
                    shown.push_str(&text);
                }
            }
            prop_assert!(visible.starts_with(&shown), "shown too much: {:?}", shown);
        }
        agent.handle_model_done();
        while let Some(action) = agent.poll() {
            if let Action::Emit(AgentEvent::Text { text }) = action {
                shown.push_str(&text);
            }
        }
        prop_assert_eq!(shown, visible);
    }
}
