//! The agent loop on arbitrary input sequences (model events, done, failed, tool outcomes and
//! progress for ids taken from the polled `CallTools`, unknown ids, abort), inputs out of order
//! included. Checked: no panic; at most one `Finish` and nothing after it; the outcome keeps the
//! caller's messages and every assistant tool call has its result; an abort always ends the run.
#![no_main]

use std::collections::HashSet;

use arbitrary::Arbitrary;
use libfuzzer_sys::fuzz_target;
use mcp_agent_wasm::core::agent_loop::{
    Action, AgentEvent, AgentLoop, LoopConfig, MissingIdStrategy, ModelFailure, Outcome, ToolResult,
};
use mcp_agent_wasm::core::message::{ChatMessage, Role};
use mcp_agent_wasm::core::model_event::Usage;
use mcp_agent_wasm::core::tools::{ToolEntry, ToolTable};
use mcp_agent_wasm_fuzz::arbitrary_input::ModelEventInput;
use serde_json::json;

#[derive(Debug, Arbitrary)]
struct ConfigInput {
    max_rounds: u8,
    system_prompt: Option<String>,
    tools_supported: bool,
    prompt_tool_mode: bool,
    re_request_without_streaming: bool,
    answer_after_max_rounds: bool,
    with_tools: bool,
    history: Vec<String>,
}

#[derive(Debug, Arbitrary)]
enum Input {
    Model(ModelEventInput),
    ModelDone,
    ModelFailed(String),
    /// The outcome of the `pick`-th call handed out so far.
    ToolOutcome {
        pick: u8,
        ok: bool,
        is_error: bool,
        text: String,
    },
    ToolProgress {
        pick: u8,
        progress: f64,
        total: Option<f64>,
        message: Option<String>,
    },
    UnknownOutcome(String),
    /// Tokens the run's model spent on a server's sampling request during a call.
    SamplingUsage {
        input_tokens: u64,
        output_tokens: u64,
    },
    Abort,
}

#[derive(Debug, Arbitrary)]
struct Run {
    config: ConfigInput,
    inputs: Vec<Input>,
}

fn tool_table() -> ToolTable {
    let entry = |function_name: &str, property: &str| ToolEntry {
        function_name: function_name.to_owned(),
        server: "server".to_owned(),
        tool: function_name.to_owned(),
        description: Some(format!("{function_name} tool")),
        input_schema: json!({
            "type": "object",
            "properties": {property: {"type": "string", "maxLength": 20}},
            "required": [property]
        }),
        annotations: None,
    };
    ToolTable::new(vec![
        entry("web_search", "query"),
        entry("weather_forecast", "city"),
    ])
}

/// Polls the loop dry, remembering the call ids handed out and checking the `Finish` rules.
struct Driver {
    agent: AgentLoop,
    handed_out_ids: Vec<String>,
    outcome: Option<Outcome>,
    final_events: usize,
}

impl Driver {
    fn poll_all(&mut self) {
        while let Some(action) = self.agent.poll() {
            assert!(self.outcome.is_none(), "an action after Finish: {action:?}");
            match action {
                Action::CallTools(invocations) => {
                    assert!(!invocations.is_empty(), "an empty CallTools");
                    self.handed_out_ids
                        .extend(invocations.into_iter().map(|invocation| invocation.call_id));
                }
                Action::Emit(AgentEvent::Final { .. }) => self.final_events += 1,
                Action::Finish(outcome) => self.outcome = Some(outcome),
                _ => {}
            }
        }
    }

    fn pick(&self, pick: u8) -> String {
        if self.handed_out_ids.is_empty() {
            return "call_unknown".to_owned();
        }
        self.handed_out_ids[usize::from(pick) % self.handed_out_ids.len()].clone()
    }

    fn feed(&mut self, input: &Input) {
        match input {
            Input::Model(event) => self.agent.handle_model_event(event.to_event()),
            Input::ModelDone => self.agent.handle_model_done(),
            Input::ModelFailed(message) => self.agent.handle_model_failed(ModelFailure {
                code: "network".to_owned(),
                message: message.clone(),
            }),
            Input::ToolOutcome {
                pick,
                ok,
                is_error,
                text,
            } => {
                let id = self.pick(*pick);
                let outcome = if *ok {
                    Ok(ToolResult {
                        text: text.clone(),
                        content: vec![json!({"type": "text", "text": text})],
                        structured_content: None,
                        is_error: *is_error,
                    })
                } else {
                    Err(text.clone().into())
                };
                self.agent.handle_tool_outcome(&id, outcome);
            }
            Input::ToolProgress {
                pick,
                progress,
                total,
                message,
            } => {
                let id = self.pick(*pick);
                self.agent
                    .handle_tool_progress(&id, *progress, *total, message.clone());
            }
            Input::UnknownOutcome(id) => self
                .agent
                .handle_tool_outcome(id, Err("late".to_owned().into())),
            Input::SamplingUsage {
                input_tokens,
                output_tokens,
            } => self.agent.handle_sampling_usage(Usage {
                input_tokens: *input_tokens,
                output_tokens: *output_tokens,
                ..Usage::default()
            }),
            Input::Abort => self.agent.handle_abort(),
        }
    }
}

fn check_outcome(outcome: &Outcome, history: &[ChatMessage]) {
    assert!(
        outcome.messages.starts_with(history),
        "the caller's messages were not kept"
    );
    let mut answered: HashSet<&str> = HashSet::new();
    for message in outcome.messages.iter().rev() {
        if message.role == Role::Tool {
            if let Some(id) = message.tool_call_id.as_deref() {
                answered.insert(id);
            }
        }
        for call in message.tool_calls.iter().flatten() {
            assert!(
                answered.contains(call.id.as_str()),
                "the tool call {:?} has no result after it",
                call.id
            );
        }
    }
}

fuzz_target!(|run: Run| {
    let config = LoopConfig {
        max_rounds: u32::from(run.config.max_rounds % 6),
        system_prompt: run.config.system_prompt.clone(),
        tools_supported: run.config.tools_supported,
        prompt_tool_mode: run.config.prompt_tool_mode,
        missing_id_strategy: if run.config.re_request_without_streaming {
            MissingIdStrategy::ReRequestWithoutStreaming
        } else {
            MissingIdStrategy::Synthesize
        },
        answer_after_max_rounds: run.config.answer_after_max_rounds,
        ..LoopConfig::default()
    };
    let history: Vec<ChatMessage> = run
        .config
        .history
        .iter()
        .map(|text| ChatMessage::text(Role::User, text.clone()))
        .collect();
    let tools = if run.config.with_tools {
        tool_table()
    } else {
        ToolTable::default()
    };
    let mut driver = Driver {
        agent: AgentLoop::new(config, history.clone(), tools),
        handed_out_ids: Vec::new(),
        outcome: None,
        final_events: 0,
    };
    driver.poll_all();
    for input in &run.inputs {
        driver.feed(input);
        driver.poll_all();
    }
    driver.agent.handle_abort();
    driver.poll_all();
    let outcome = driver
        .outcome
        .as_ref()
        .expect("an abort did not end the run");
    assert!(driver.final_events <= 1, "more than one final event");
    check_outcome(outcome, &history);
    driver.agent.handle_abort();
    assert_eq!(
        driver.agent.poll(),
        None,
        "an abort after Finish did something"
    );
    driver.agent.handle_sampling_usage(Usage {
        input_tokens: 1,
        output_tokens: 1,
        ..Usage::default()
    });
    assert_eq!(
        driver.agent.poll(),
        None,
        "tokens reported after Finish did something"
    );
});
