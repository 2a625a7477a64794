//! Agent-loop simulation harness: a scripted model and scripted tools drive an [`AgentLoop`]
//! to its end, the way quinn-proto's `Pair::drive` drives two endpoints, and record everything
//! the loop handed out.

// Each test target compiles this module and uses only part of it.
#![allow(dead_code)]

use std::collections::VecDeque;

use mcp_agent_wasm::core::agent_loop::{
    Action, AgentEvent, AgentLoop, ModelFailure, ModelRequest, Outcome, ToolInvocation, ToolOutcome,
};
use mcp_agent_wasm::core::message::{
    ChatMessage, FunctionCall, MessageContent, MessageToolCall, Role,
};
use mcp_agent_wasm::core::model_event::{
    ArgumentsDelta, FinishReason, ModelEvent, ToolCallDelta, Usage,
};
use mcp_agent_wasm::core::tools::{ToolEntry, ToolTable};
use serde_json::{json, Value};

/// What the scripted model does for one model call.
pub enum ModelTurn {
    Respond(Vec<ModelEvent>),
    Fail(ModelFailure),
}

/// One step of a scripted tool batch, in the order the steps happen.
pub enum ToolStep {
    Progress {
        id: &'static str,
        progress: f64,
        total: Option<f64>,
        message: Option<&'static str>,
    },
    Complete {
        id: &'static str,
        outcome: ToolOutcome,
    },
    /// The run's model answered a sampling request the server sent during a call.
    Sampled(Usage),
}

/// Where the user aborts. Counters are 0-based: `after` inputs of that call or batch were fed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AbortAt {
    Never,
    /// After `after` events of the `call`-th model call (before `done` when all were fed).
    ModelCall {
        call: usize,
        after: usize,
    },
    /// After `after` steps of the `batch`-th tool batch; with all steps fed, this is between
    /// rounds (the next model call is requested but not yet started).
    ToolBatch {
        batch: usize,
        after: usize,
    },
}

pub struct Simulation {
    pub agent: AgentLoop,
    pub model: VecDeque<ModelTurn>,
    pub tools: VecDeque<Vec<ToolStep>>,
    pub abort_at: AbortAt,
}

/// Everything a run handed out.
pub struct Run {
    /// Every action, in order, `Emit`s included.
    pub actions: Vec<Action>,
    pub events: Vec<AgentEvent>,
    pub requests: Vec<ModelRequest>,
    pub tool_batches: Vec<Vec<ToolInvocation>>,
    pub outcome: Outcome,
}

impl Run {
    /// The text the `text` events showed, joined.
    pub fn shown_text(&self) -> String {
        self.events
            .iter()
            .filter_map(|event| match event {
                AgentEvent::Text { text } => Some(text.as_str()),
                _ => None,
            })
            .collect()
    }

    /// The actions that are not `Emit`s, for asserting the work the loop asked for.
    pub fn work(&self) -> Vec<&Action> {
        self.actions
            .iter()
            .filter(|action| !matches!(action, Action::Emit(_)))
            .collect()
    }
}

impl Simulation {
    pub fn new(agent: AgentLoop, model: Vec<ModelTurn>, tools: Vec<Vec<ToolStep>>) -> Self {
        Simulation {
            agent,
            model: model.into(),
            tools: tools.into(),
            abort_at: AbortAt::Never,
        }
    }

    pub fn abort_at(mut self, abort_at: AbortAt) -> Self {
        self.abort_at = abort_at;
        self
    }

    /// Runs the loop to its `Finish`, panicking if it stalls or the script runs out.
    pub fn drive(mut self) -> Run {
        let mut actions = Vec::new();
        let mut events = Vec::new();
        let mut requests = Vec::new();
        let mut tool_batches = Vec::new();
        let mut outcome = None;
        let mut pending_model = None;
        let mut pending_tools = None;
        loop {
            while let Some(action) = self.agent.poll() {
                match &action {
                    Action::Emit(event) => events.push(event.clone()),
                    Action::CallModel(request) => pending_model = Some(request.clone()),
                    Action::CallTools(invocations) => pending_tools = Some(invocations.clone()),
                    Action::Finish(finished) => {
                        assert!(outcome.is_none(), "a second Finish");
                        outcome = Some(finished.clone());
                    }
                    Action::CancelModel | Action::CancelTools(_) => {}
                }
                actions.push(action);
            }
            if let Some(outcome) = outcome {
                assert_eq!(self.agent.poll(), None, "an action after Finish");
                return Run {
                    actions,
                    events,
                    requests,
                    tool_batches,
                    outcome,
                };
            }
            if let Some(request) = pending_model.take() {
                let call = requests.len();
                requests.push(request);
                self.feed_model_call(call);
            } else if let Some(invocations) = pending_tools.take() {
                let batch = tool_batches.len();
                tool_batches.push(invocations);
                self.feed_tool_batch(batch);
            } else {
                panic!("the loop stalled: nothing in flight and no Finish");
            }
        }
    }

    fn feed_model_call(&mut self, call: usize) {
        let turn = self
            .model
            .pop_front()
            .expect("the script has a turn for every model call");
        match turn {
            ModelTurn::Respond(model_events) => {
                for (fed, event) in model_events.into_iter().enumerate() {
                    if self.abort_at == (AbortAt::ModelCall { call, after: fed }) {
                        return self.agent.handle_abort();
                    }
                    self.agent.handle_model_event(event);
                }
                self.agent.handle_model_done();
            }
            ModelTurn::Fail(failure) => self.agent.handle_model_failed(failure),
        }
    }

    fn feed_tool_batch(&mut self, batch: usize) {
        let steps = self
            .tools
            .pop_front()
            .expect("the script has steps for every tool batch");
        let step_count = steps.len();
        for (fed, step) in steps.into_iter().enumerate() {
            if self.abort_at == (AbortAt::ToolBatch { batch, after: fed }) {
                return self.agent.handle_abort();
            }
            match step {
                ToolStep::Progress {
                    id,
                    progress,
                    total,
                    message,
                } => {
                    self.agent
                        .handle_tool_progress(id, progress, total, message.map(str::to_owned))
                }
                ToolStep::Complete { id, outcome } => self.agent.handle_tool_outcome(id, outcome),
                ToolStep::Sampled(usage) => self.agent.handle_sampling_usage(usage),
            }
        }
        if self.abort_at
            == (AbortAt::ToolBatch {
                batch,
                after: step_count,
            })
        {
            self.agent.handle_abort();
        }
    }
}

/// The tools of the scenarios: two servers, schemas that a full validator accepts for the
/// arguments the scripts send as valid.
pub fn tool_table() -> ToolTable {
    ToolTable::new(vec![
        ToolEntry {
            function_name: "web_search".to_owned(),
            server: "web".to_owned(),
            tool: "search".to_owned(),
            description: Some("Search the web".to_owned()),
            input_schema: json!({
                "type": "object",
                "properties": {"query": {"type": "string"}},
                "required": ["query"]
            }),
            annotations: None,
        },
        ToolEntry {
            function_name: "weather_forecast".to_owned(),
            server: "weather".to_owned(),
            tool: "forecast".to_owned(),
            description: Some("Weather forecast for a city".to_owned()),
            input_schema: json!({
                "type": "object",
                "properties": {"city": {"type": "string"}},
                "required": ["city"]
            }),
            annotations: None,
        },
    ])
}

pub fn text(piece: &str) -> ModelEvent {
    ModelEvent::TextDelta(piece.to_owned())
}

pub fn reasoning(piece: &str) -> ModelEvent {
    ModelEvent::ReasoningDelta(piece.to_owned())
}

pub fn finish(reason: FinishReason) -> ModelEvent {
    ModelEvent::Finish(reason)
}

pub fn usage(input_tokens: u64, output_tokens: u64) -> ModelEvent {
    ModelEvent::Usage(Usage {
        input_tokens,
        output_tokens,
        ..Default::default()
    })
}

/// The opening delta of an OpenAI-style streamed call.
pub fn call_start(index: u32, id: &str, name: &str) -> ModelEvent {
    ModelEvent::ToolCallDelta(ToolCallDelta {
        index: Some(index),
        id: Some(id.to_owned()),
        name: Some(name.to_owned()),
        ..ToolCallDelta::default()
    })
}

/// A continuation delta carrying a piece of the arguments text.
pub fn call_arguments(index: u32, fragment: &str) -> ModelEvent {
    ModelEvent::ToolCallDelta(ToolCallDelta {
        index: Some(index),
        arguments: Some(ArgumentsDelta::Fragment(fragment.to_owned())),
        ..ToolCallDelta::default()
    })
}

/// A whole call in one delta, without an id (Ollama native, Gemini).
pub fn call_without_id(index: u32, name: &str, arguments: Value) -> ModelEvent {
    ModelEvent::ToolCallDelta(ToolCallDelta {
        index: Some(index),
        name: Some(name.to_owned()),
        arguments: Some(ArgumentsDelta::Whole(arguments)),
        ..ToolCallDelta::default()
    })
}

/// A complete streamed call: start, then its arguments in two fragments.
pub fn streamed_call(index: u32, id: &str, name: &str, arguments: &str) -> Vec<ModelEvent> {
    let middle = arguments.len() / 2;
    let split = (middle..=arguments.len())
        .find(|&at| arguments.is_char_boundary(at))
        .unwrap_or(arguments.len());
    vec![
        call_start(index, id, name),
        call_arguments(index, &arguments[..split]),
        call_arguments(index, &arguments[split..]),
    ]
}

pub fn success(text: &str) -> ToolOutcome {
    Ok(mcp_agent_wasm::core::agent_loop::ToolResult {
        text: text.to_owned(),
        content: vec![json!({"type": "text", "text": text})],
        structured_content: None,
        is_error: false,
    })
}

pub fn user(text: &str) -> ChatMessage {
    ChatMessage::text(Role::User, text)
}

pub fn system(text: &str) -> ChatMessage {
    ChatMessage::text(Role::System, text)
}

pub fn assistant(text: &str) -> ChatMessage {
    ChatMessage::text(Role::Assistant, text)
}

/// An assistant message with calls `(id, name, arguments text)`; `None` text omits `content`.
pub fn assistant_calls(text: Option<&str>, calls: &[(&str, &str, &str)]) -> ChatMessage {
    ChatMessage {
        content: text.map(|text| MessageContent::Text(text.to_owned())),
        tool_calls: Some(
            calls
                .iter()
                .map(|(id, name, arguments)| MessageToolCall {
                    id: (*id).to_owned(),
                    call_type: "function".to_owned(),
                    function: FunctionCall {
                        name: (*name).to_owned(),
                        arguments: (*arguments).to_owned(),
                    },
                    thought_signature: None,
                })
                .collect(),
        ),
        ..ChatMessage::text(Role::Assistant, "")
    }
}

pub fn tool_message(id: &str, text: &str) -> ChatMessage {
    ChatMessage::tool_result(id, text)
}

pub fn round(round: u32) -> AgentEvent {
    AgentEvent::Round { round }
}

pub fn text_event(text: &str) -> AgentEvent {
    AgentEvent::Text {
        text: text.to_owned(),
    }
}

pub fn usage_event(input_tokens: u64, output_tokens: u64) -> AgentEvent {
    AgentEvent::Usage(Usage {
        input_tokens,
        output_tokens,
        ..Default::default()
    })
}

pub fn tool_call_event(
    id: &str,
    name: &str,
    server: &str,
    tool: &str,
    arguments: Value,
) -> AgentEvent {
    AgentEvent::ToolCall {
        id: id.to_owned(),
        name: name.to_owned(),
        server: server.to_owned(),
        tool: tool.to_owned(),
        arguments,
    }
}

pub fn tool_result_event(id: &str, text: &str) -> AgentEvent {
    AgentEvent::ToolResult {
        id: id.to_owned(),
        text: text.to_owned(),
        content: vec![json!({"type": "text", "text": text})],
        structured_content: None,
        is_error: false,
    }
}

pub fn tool_error_event(id: &str, message: &str) -> AgentEvent {
    AgentEvent::ToolError {
        id: id.to_owned(),
        message: message.to_owned(),
        code: None,
    }
}

pub fn invocation(
    id: &str,
    function_name: &str,
    server: &str,
    tool: &str,
    arguments: Value,
) -> ToolInvocation {
    ToolInvocation {
        call_id: id.to_owned(),
        function_name: function_name.to_owned(),
        server: server.to_owned(),
        tool: tool.to_owned(),
        arguments,
    }
}
