//! The agent loop as a pure, deterministic state machine, shaped like quinn-proto: inputs go in
//! through `handle_*`, work comes out of [`AgentLoop::poll`] as [`Action`]s, and the driver (the
//! web layer, or a test harness) performs them. It never reads a clock and never panics on any
//! input order; inputs that make no sense in the current state are ignored.
//!
//! Contract for the driver: poll until `None` after every input; feed model events only for a
//! `CallModel` it has polled, and tool outcomes only for calls of a `CallTools` it has polled.
//! After `Finish`, nothing more comes out.
//!
//! Decisions where chat-ui has none:
//! - Abort while tools run keeps the assistant message with its calls and fills every missing
//!   result with `Error: aborted by the user`, so results already received are not lost.
//! - Abort during a model stream keeps the text (and reasoning) received so far as an assistant
//!   message without calls; a failed model call drops its interrupted round instead, so that a
//!   retry by the caller starts from complete, unambiguous messages.
//! - In prompt-based tool mode the provider knows nothing of tool messages, so the assistant
//!   message keeps the text as written and the results come back as one user message.
//! - Ids the provider did not send are made up as `call_<round>_<position>`, unique in the run.

mod events;
pub mod prompt_tools;

pub use events::{
    Action, AgentEvent, FinalReason, LoopConfig, MissingIdStrategy, ModelFailure, ModelRequest,
    Outcome, OutcomeReason, ToolFailure, ToolInvocation, ToolOutcome, ToolResult,
};

use std::collections::VecDeque;
use std::mem;
use std::rc::Rc;

use serde_json::Value;

use crate::core::assembler::{synthesized_call_id, ToolCallAssembler};
use crate::core::mcp::tools::model_images;
use crate::core::message::{
    ChatMessage, ContentPart, FunctionCall, MessageContent, MessageToolCall, Role, ThinkingBlock,
};
use crate::core::model_event::{FinishReason, ModelEvent, Usage};
use crate::core::text::{join, rfind_ascii};
use crate::core::tools::{ArgumentKeys, ToolTable};
use prompt_tools::{parse_prompt_calls, streamable_len, tool_prompt, Streamable};

/// Retries of a round whose tool call was cut off by the output token limit.
pub const MAX_TRUNCATION_RETRIES: u32 = 2;

/// Sent (for the retry only) after a round whose tool call was cut off.
pub const TRUNCATION_INSTRUCTION: &str = "Your previous answer was cut off by the output token \
     limit while writing a tool call. Call the tool again with smaller arguments, or split the \
     work into several smaller calls.";

/// The result the model sees when the retries did not help.
pub const TRUNCATION_GAVE_UP: &str = "the call was cut off by the output token limit before its \
     arguments were complete; make a smaller call";

/// The error of calls cut short by an abort.
pub const ABORTED: &str = "aborted by the user";

/// Code of the failure reported by a provider inside its stream.
pub const PROVIDER_STREAM_ERROR: &str = "provider_stream_error";

/// Where a round's tool calls come from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum CallSource {
    /// No tools this call: plain generation, tool-call deltas are ignored.
    None,
    /// Native function calling: tool-call deltas.
    Native,
    /// Prompt-based tool mode: JSON in the answer text.
    Prompt,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum CallKind {
    /// The first call of a round.
    First,
    /// The same round again, after a tool call was cut off.
    TruncationRetry,
    /// The same round again without streaming, because calls came without ids.
    NonStreaming,
}

/// The state machine of one agent run. See the module documentation.
#[derive(Debug)]
pub struct AgentLoop {
    config: LoopConfig,
    tools: ToolTable,
    /// The property keys the provider was sent renamed: calls use them, the tools take theirs.
    argument_keys: Rc<ArgumentKeys>,
    /// How tools are offered when they are: `Native`, `Prompt`, or `None` (gated off).
    tool_source: CallSource,
    /// The system prompt section of prompt-based tool mode.
    prompt_tool_section: Option<String>,
    /// The caller's messages and every complete message the run added.
    conversation: Vec<ChatMessage>,
    actions: VecDeque<Action>,
    phase: Phase,
    round: u32,
    tool_rounds: u32,
    truncation_retries: u32,
    /// The current call is the last one, made without tools.
    final_call: bool,
    usage: Usage,
    /// Why the last finished model call stopped, for the `final` event.
    last_finish: Option<FinishReason>,
}

#[derive(Debug)]
enum Phase {
    Model(ModelCall),
    Tools(ToolBatch),
    Finished,
}

#[derive(Debug)]
struct ModelCall {
    kind: CallKind,
    /// A user message added to this call only.
    instruction: Option<&'static str>,
    source: CallSource,
    /// The driver has polled the `CallModel`.
    handed_out: bool,
    response: Response,
}

/// What one model call said so far.
#[derive(Debug)]
struct Response {
    text: String,
    /// Bytes of `text` already emitted.
    shown_len: usize,
    /// Where the line holding `shown_len` starts.
    shown_line_start: usize,
    /// No more of this call's text is streamed (a tool call has started).
    text_stopped: bool,
    reasoning: String,
    /// Reasoning since the last thinking-block signature or encrypted reasoning item.
    open_thinking: String,
    thinking_blocks: Vec<ThinkingBlock>,
    assembler: ToolCallAssembler,
    finish: Option<FinishReason>,
    usage: Option<Usage>,
}

impl Response {
    /// Nothing yet, for a model call of round `round`.
    fn new(round: u32) -> Self {
        Response {
            text: String::new(),
            shown_len: 0,
            shown_line_start: 0,
            text_stopped: false,
            reasoning: String::new(),
            open_thinking: String::new(),
            thinking_blocks: Vec::new(),
            assembler: ToolCallAssembler::new(round),
            finish: None,
            usage: None,
        }
    }

    /// Whether an assistant message for this response would hold anything.
    fn has_content(&self) -> bool {
        !self.text.is_empty() || !self.reasoning.is_empty() || !self.thinking_blocks.is_empty()
    }
}

/// A round's calls, waiting for their outcomes.
#[derive(Debug)]
struct ToolBatch {
    assistant: ChatMessage,
    calls: Vec<BatchCall>,
    /// Prompt-based tool mode: results go back as one user message.
    results_as_user_message: bool,
    /// The driver has polled the `CallTools`.
    handed_out: bool,
}

#[derive(Debug)]
struct BatchCall {
    id: String,
    function_name: String,
    /// Sent to a server (false for invalid calls, which have their error result already).
    dispatched: bool,
    /// The text for the model once known.
    result: Option<String>,
    /// The result's images the model is shown (see `LoopConfig::images_in_tool_results`).
    images: Vec<ContentPart>,
}

/// One call of a finished round, whatever its source.
#[derive(Debug)]
struct RoundCall {
    id: String,
    name: String,
    arguments: Result<Value, String>,
    raw_arguments: String,
    thought_signature: Option<String>,
}

impl AgentLoop {
    /// A run over `conversation` (OpenAI-style, without the composed system prompt, which comes
    /// from `config`). The first actions are ready to poll.
    pub fn new(config: LoopConfig, conversation: Vec<ChatMessage>, tools: ToolTable) -> Self {
        let tool_source = if tools.is_empty() {
            CallSource::None
        } else if config.prompt_tool_mode {
            CallSource::Prompt
        } else if config.tools_supported {
            CallSource::Native
        } else {
            CallSource::None
        };
        let prompt_tool_section = (tool_source == CallSource::Prompt).then(|| tool_prompt(&tools));
        let mut agent = AgentLoop {
            config,
            tools,
            argument_keys: Rc::default(),
            tool_source,
            prompt_tool_section,
            conversation,
            actions: VecDeque::new(),
            phase: Phase::Finished,
            round: 1,
            tool_rounds: 0,
            truncation_retries: 0,
            final_call: false,
            usage: Usage::default(),
            last_finish: None,
        };
        agent.start_round();
        agent
    }

    /// The property keys the tools were sent to the provider with where they differ from the
    /// tools' own ([`crate::core::provider::ProviderTools::argument_keys`]): a call's arguments
    /// are read back to the tool's keys before they are checked, shown and dispatched, while the
    /// assistant message keeps what the model sent. Given by the driver with the tools it sends.
    pub fn use_argument_keys(&mut self, argument_keys: Rc<ArgumentKeys>) {
        self.argument_keys = argument_keys;
    }

    /// The caller's messages and every complete message the run added so far. While a round's
    /// tools run, the assistant message that called them is not in it yet: it is what the
    /// model was sent to make those calls, without the system prompt.
    pub fn conversation(&self) -> &[ChatMessage] {
        &self.conversation
    }

    /// The next thing to do, if any.
    #[must_use]
    pub fn poll(&mut self) -> Option<Action> {
        let action = self.actions.pop_front()?;
        match (&action, &mut self.phase) {
            (Action::CallModel(_), Phase::Model(call)) => call.handed_out = true,
            (Action::CallTools(_), Phase::Tools(batch)) => batch.handed_out = true,
            _ => {}
        }
        Some(action)
    }

    /// One event of the model call in flight.
    pub fn handle_model_event(&mut self, event: ModelEvent) {
        let Phase::Model(call) = &mut self.phase else {
            return;
        };
        if !call.handed_out {
            return;
        }
        // Repeat tries of a round show nothing while they stream: the first try already showed
        // its preamble, and the answer is shown whole if a repeat ends without calls.
        let streaming = call.kind == CallKind::First;
        let response = &mut call.response;
        match event {
            ModelEvent::TextDelta(text) => {
                response.text.push_str(&text);
                if let Some(piece) = showable_text(response, call.source, streaming) {
                    self.emit(AgentEvent::Text { text: piece });
                }
            }
            ModelEvent::ReasoningDelta(text) => {
                response.reasoning.push_str(&text);
                response.open_thinking.push_str(&text);
                if streaming {
                    self.emit(AgentEvent::Reasoning { text });
                }
            }
            ModelEvent::ReasoningSignature(signature) => {
                let thinking = mem::take(&mut response.open_thinking);
                response.thinking_blocks.push(ThinkingBlock::Thinking {
                    thinking,
                    signature,
                });
            }
            ModelEvent::RedactedReasoning(data) => {
                response
                    .thinking_blocks
                    .push(ThinkingBlock::RedactedThinking { data });
            }
            ModelEvent::TextSignature(signature) => {
                response
                    .thinking_blocks
                    .push(ThinkingBlock::ThoughtSignature { signature });
            }
            ModelEvent::EncryptedReasoning(encrypted_content) => {
                let summary = mem::take(&mut response.open_thinking);
                response.thinking_blocks.push(ThinkingBlock::Reasoning {
                    summary,
                    encrypted_content,
                });
            }
            ModelEvent::ReasoningDetails(details) => {
                response
                    .thinking_blocks
                    .push(ThinkingBlock::ReasoningDetails { details });
            }
            ModelEvent::ToolCallDelta(delta) => {
                if call.source == CallSource::Native {
                    response.text_stopped = true;
                    response.assembler.push(&delta);
                }
            }
            ModelEvent::Finish(reason) => response.finish = Some(reason),
            ModelEvent::Usage(usage) => response.usage = Some(usage),
            ModelEvent::Error(error) => {
                let message = match error.code {
                    Some(code) => format!("{code}: {}", error.message),
                    None => error.message,
                };
                self.fail(ModelFailure {
                    code: PROVIDER_STREAM_ERROR.to_owned(),
                    message,
                });
            }
        }
    }

    /// The model call in flight ended normally.
    pub fn handle_model_done(&mut self) {
        let Some(call) = self.take_model_call() else {
            return;
        };
        let ModelCall {
            kind,
            instruction,
            source,
            response,
            ..
        } = call;
        self.add_usage(response.usage);
        self.last_finish = response.finish.clone();
        match source {
            CallSource::None => self.answer(response),
            CallSource::Native => self.native_round_done(kind, instruction, response),
            CallSource::Prompt => self.prompt_round_done(response),
        }
    }

    /// The model call in flight failed for good: the run ends with the messages it has.
    pub fn handle_model_failed(&mut self, failure: ModelFailure) {
        let Some(call) = self.take_model_call() else {
            return;
        };
        self.add_usage(call.response.usage);
        self.finish(
            OutcomeReason::Failed {
                code: failure.code,
                message: failure.message,
            },
            String::new(),
        );
    }

    /// The outcome of one dispatched call, in any order.
    pub fn handle_tool_outcome(&mut self, call_id: &str, outcome: ToolOutcome) {
        let shows_images = self.config.images_in_tool_results;
        let Some(call) = self.pending_call(call_id) else {
            return;
        };
        let (event, text_for_model) = match outcome {
            Ok(result) => {
                if shows_images {
                    call.images = model_images(&result.content);
                }
                let text_for_model = if result.is_error {
                    format!("Error: {}", result.text)
                } else {
                    result.text.clone()
                };
                let event = AgentEvent::ToolResult {
                    id: call_id.to_owned(),
                    text: result.text,
                    content: result.content,
                    structured_content: result.structured_content,
                    is_error: result.is_error,
                };
                (event, text_for_model)
            }
            Err(ToolFailure { code, message }) => {
                let text_for_model = format!("Error: {message}");
                let event = AgentEvent::ToolError {
                    id: call_id.to_owned(),
                    message,
                    code,
                };
                (event, text_for_model)
            }
        };
        call.result = Some(text_for_model);
        self.emit(event);
        let all_done = matches!(&self.phase, Phase::Tools(batch)
            if batch.calls.iter().all(|call| call.result.is_some()));
        if all_done {
            if let Phase::Tools(batch) = mem::replace(&mut self.phase, Phase::Finished) {
                self.commit_batch(batch);
                self.next_round();
            }
        }
    }

    /// A progress notification of one dispatched call.
    pub fn handle_tool_progress(
        &mut self,
        call_id: &str,
        progress: f64,
        total: Option<f64>,
        message: Option<String>,
    ) {
        if self.pending_call(call_id).is_some() {
            self.emit(AgentEvent::ToolProgress {
                id: call_id.to_owned(),
                progress,
                total,
                message,
            });
        }
    }

    /// Tokens the run's model spent answering the sampling requests a server sent while it ran
    /// one of the run's tool calls: the run's totals include them, as they do its own calls'.
    pub fn handle_sampling_usage(&mut self, usage: Usage) {
        if !matches!(self.phase, Phase::Finished) {
            self.add_usage(Some(usage));
        }
    }

    /// The user stopped the run: cancel what is in flight and finish with what is complete.
    pub fn handle_abort(&mut self) {
        match mem::replace(&mut self.phase, Phase::Finished) {
            Phase::Finished => {}
            Phase::Model(call) => {
                if call.handed_out {
                    self.actions.push_back(Action::CancelModel);
                } else {
                    // The call never went out, so its round never started.
                    self.actions.retain(|action| {
                        !matches!(
                            action,
                            Action::CallModel(_) | Action::Emit(AgentEvent::Round { .. })
                        )
                    });
                }
                let response = call.response;
                self.add_usage(response.usage);
                let text = response.text.clone();
                if response.has_content() {
                    self.conversation.push(assistant_message(
                        response.text,
                        response.reasoning,
                        response.thinking_blocks,
                        None,
                    ));
                }
                self.finish(OutcomeReason::Aborted, text);
            }
            Phase::Tools(mut batch) => {
                let mut unfinished = Vec::new();
                for call in &batch.calls {
                    if call.result.is_none() {
                        unfinished.push(call.id.clone());
                    }
                }
                if batch.handed_out {
                    self.actions
                        .push_back(Action::CancelTools(unfinished.clone()));
                } else {
                    self.actions
                        .retain(|action| !matches!(action, Action::CallTools(_)));
                }
                for call in &mut batch.calls {
                    if call.result.is_none() {
                        call.result = Some(format!("Error: {ABORTED}"));
                    }
                }
                for id in unfinished {
                    self.emit(AgentEvent::ToolError {
                        id,
                        message: ABORTED.to_owned(),
                        code: None,
                    });
                }
                self.commit_batch(batch);
                self.finish(OutcomeReason::Aborted, String::new());
            }
        }
    }

    fn emit(&mut self, event: AgentEvent) {
        self.actions.push_back(Action::Emit(event));
    }

    /// After a round's results: the next round, unless the cap is reached and no last answer
    /// is wanted.
    fn next_round(&mut self) {
        if self.tool_rounds >= self.config.max_rounds && !self.config.answer_after_max_rounds {
            return self.finish(OutcomeReason::Exhausted, String::new());
        }
        self.round = self.round.saturating_add(1);
        self.start_round();
    }

    fn start_round(&mut self) {
        self.final_call = self.tool_rounds >= self.config.max_rounds;
        self.emit(AgentEvent::Round { round: self.round });
        self.request_model(CallKind::First, None);
    }

    fn request_model(&mut self, kind: CallKind, instruction: Option<&'static str>) {
        let source = if self.final_call {
            CallSource::None
        } else {
            self.tool_source
        };
        let request = ModelRequest {
            messages: self.request_messages(source, instruction),
            with_tools: source == CallSource::Native,
            stream: kind != CallKind::NonStreaming,
            round: self.round,
        };
        self.actions.push_back(Action::CallModel(request));
        self.phase = Phase::Model(ModelCall {
            kind,
            instruction,
            source,
            handed_out: false,
            response: Response::new(self.round),
        });
    }

    /// The system prompt (merged with the caller's own system message, if the conversation
    /// starts with one), the conversation, and this call's instruction.
    fn request_messages(
        &self,
        source: CallSource,
        instruction: Option<&'static str>,
    ) -> Vec<ChatMessage> {
        let tool_section = match source {
            CallSource::Prompt => self.prompt_tool_section.as_deref(),
            CallSource::None | CallSource::Native => None,
        };
        let mut composed: Vec<&str> = Vec::new();
        for part in [self.config.system_prompt.as_deref(), tool_section] {
            if let Some(part) = part.filter(|part| !part.is_empty()) {
                composed.push(part);
            }
        }
        let mut messages = Vec::with_capacity(self.conversation.len() + 2);
        let mut rest = self.conversation.as_slice();
        if !composed.is_empty() {
            let mut system_text = join(&composed, "\n\n");
            if let Some((first, after)) = rest.split_first() {
                if first.role == Role::System {
                    system_text.push_str("\n\n");
                    system_text.push_str(&first.text_content());
                    rest = after;
                }
            }
            messages.push(ChatMessage::text(Role::System, system_text));
        }
        messages.extend_from_slice(rest);
        if let Some(instruction) = instruction {
            messages.push(ChatMessage::text(Role::User, instruction));
        }
        messages
    }

    fn take_model_call(&mut self) -> Option<ModelCall> {
        match mem::replace(&mut self.phase, Phase::Finished) {
            Phase::Model(call) if call.handed_out => Some(call),
            other => {
                self.phase = other;
                None
            }
        }
    }

    /// The dispatched call `call_id` that still waits for its outcome.
    fn pending_call(&mut self, call_id: &str) -> Option<&mut BatchCall> {
        let Phase::Tools(batch) = &mut self.phase else {
            return None;
        };
        if !batch.handed_out {
            return None;
        }
        batch
            .calls
            .iter_mut()
            .find(|call| call.id == call_id && call.dispatched && call.result.is_none())
    }

    fn add_usage(&mut self, usage: Option<Usage>) {
        let Some(usage) = usage else {
            return;
        };
        self.usage = self.usage.plus(usage);
        self.emit(AgentEvent::Usage(self.usage));
    }

    fn native_round_done(
        &mut self,
        kind: CallKind,
        instruction: Option<&'static str>,
        response: Response,
    ) {
        if !response.assembler.has_calls() {
            return self.answer(response);
        }
        let Response {
            text,
            reasoning,
            thinking_blocks,
            assembler,
            finish,
            ..
        } = response;
        let ids = assembler.call_ids();
        let assembled = assembler.finish();
        let truncated = finish == Some(FinishReason::Length)
            && assembled.iter().any(|call| call.arguments.is_err());
        if truncated && self.truncation_retries < MAX_TRUNCATION_RETRIES {
            self.truncation_retries += 1;
            return self.request_model(CallKind::TruncationRetry, Some(TRUNCATION_INSTRUCTION));
        }
        let ids_missing = assembled.iter().any(|call| call.id_synthesized);
        if ids_missing
            && kind != CallKind::NonStreaming
            && self.config.missing_id_strategy == MissingIdStrategy::ReRequestWithoutStreaming
        {
            return self.request_model(CallKind::NonStreaming, instruction);
        }
        self.truncation_retries = 0;
        // Plain loops: iterator adapters over the calls compiled to functions of their own.
        let mut calls = Vec::with_capacity(assembled.len());
        let mut message_calls = Vec::with_capacity(assembled.len());
        for (call, id) in assembled.into_iter().zip(ids) {
            let call = RoundCall {
                id,
                name: call.name,
                arguments: call.arguments,
                raw_arguments: call.raw_arguments,
                thought_signature: call.thought_signature,
            };
            message_calls.push(MessageToolCall {
                id: call.id.clone(),
                call_type: "function".to_owned(),
                function: FunctionCall {
                    name: call.name.clone(),
                    arguments: call.raw_arguments.clone(),
                },
                thought_signature: call.thought_signature.clone(),
            });
            calls.push(call);
        }
        let assistant = assistant_message(text, reasoning, thinking_blocks, Some(message_calls));
        self.run_calls(assistant, calls, truncated, false);
    }

    fn prompt_round_done(&mut self, response: Response) {
        let parsed = parse_prompt_calls(&response.text);
        if parsed.is_empty() {
            return self.answer(response);
        }
        // The provider saw a text answer; the run, calls written in it.
        self.last_finish = Some(FinishReason::ToolCalls);
        let round = self.round;
        let mut calls = Vec::with_capacity(parsed.len());
        for (position, call) in parsed.into_iter().enumerate() {
            calls.push(RoundCall {
                id: synthesized_call_id(round, position),
                name: call.name,
                arguments: call.arguments,
                raw_arguments: call.raw_arguments,
                thought_signature: None,
            });
        }
        let assistant = assistant_message(
            response.text,
            response.reasoning,
            response.thinking_blocks,
            None,
        );
        self.run_calls(assistant, calls, false, true);
    }

    /// Announces a round's calls, turns invalid ones into error results, and dispatches the
    /// valid ones together.
    fn run_calls(
        &mut self,
        assistant: ChatMessage,
        calls: Vec<RoundCall>,
        truncated: bool,
        results_as_user_message: bool,
    ) {
        self.tool_rounds = self.tool_rounds.saturating_add(1);
        let mut batch_calls = Vec::with_capacity(calls.len());
        let mut invocations = Vec::new();
        for mut call in calls {
            // The owning server and tool, copied rather than the whole entry with its schema.
            let target = self
                .tools
                .get(&call.name)
                .map(|entry| (entry.server.clone(), entry.tool.clone()));
            call.arguments = call
                .arguments
                .map(|arguments| self.argument_keys.restore(&call.name, arguments));
            let arguments_shown = match &call.arguments {
                Ok(arguments) => arguments.clone(),
                Err(_) => Value::String(call.raw_arguments.clone()),
            };
            self.emit(AgentEvent::ToolCall {
                id: call.id.clone(),
                name: call.name.clone(),
                server: target
                    .as_ref()
                    .map_or_else(String::new, |(server, _)| server.clone()),
                tool: target
                    .as_ref()
                    .map_or_else(|| call.name.clone(), |(_, tool)| tool.clone()),
                arguments: arguments_shown,
            });
            let validated = match (target, call.arguments) {
                (_, Err(_)) if truncated => Err(TRUNCATION_GAVE_UP.to_owned()),
                (_, Err(parse_error)) => Err(parse_error),
                (None, Ok(_)) => Err(self.unknown_tool_message(&call.name)),
                // Dispatched as prepared: `""` as `{}`, without the nulls strict mode adds.
                (Some(target), Ok(arguments)) => self
                    .tools
                    .prepare_arguments(&call.name, &arguments)
                    .map(|prepared| (target, prepared)),
            };
            match validated {
                Ok(((server, tool), arguments)) => {
                    invocations.push(ToolInvocation {
                        call_id: call.id.clone(),
                        function_name: call.name.clone(),
                        server,
                        tool,
                        arguments,
                    });
                    batch_calls.push(BatchCall {
                        id: call.id,
                        function_name: call.name,
                        dispatched: true,
                        result: None,
                        images: Vec::new(),
                    });
                }
                Err(message) => {
                    self.emit(AgentEvent::ToolError {
                        id: call.id.clone(),
                        message: message.clone(),
                        code: None,
                    });
                    batch_calls.push(BatchCall {
                        id: call.id,
                        function_name: call.name,
                        dispatched: false,
                        result: Some(format!("Error: {message}")),
                        images: Vec::new(),
                    });
                }
            }
        }
        let batch = ToolBatch {
            assistant,
            calls: batch_calls,
            results_as_user_message,
            handed_out: false,
        };
        if invocations.is_empty() {
            self.commit_batch(batch);
            self.next_round();
        } else {
            self.actions.push_back(Action::CallTools(invocations));
            self.phase = Phase::Tools(batch);
        }
    }

    fn unknown_tool_message(&self, name: &str) -> String {
        let mut available: Vec<&str> = Vec::new();
        for entry in self.tools.entries() {
            available.push(&entry.function_name);
        }
        format!(
            "unknown tool `{name}`; the available tools are: {}",
            join(&available, ", ")
        )
    }

    /// Appends a round's assistant message and its results, in the original call order.
    fn commit_batch(&mut self, batch: ToolBatch) {
        self.conversation.push(batch.assistant);
        if batch.results_as_user_message {
            let mut results = Vec::with_capacity(batch.calls.len());
            for call in batch.calls {
                results.push(format!(
                    "Result of `{}` (call {}):\n{}",
                    call.function_name,
                    call.id,
                    call.result.unwrap_or_default()
                ));
            }
            self.conversation
                .push(ChatMessage::text(Role::User, join(&results, "\n\n")));
        } else {
            for call in batch.calls {
                self.conversation.push(ChatMessage::tool_result_with_images(
                    call.id,
                    call.result.unwrap_or_default(),
                    call.images,
                ));
            }
        }
    }

    /// The round produced no calls: its text is the answer.
    fn answer(&mut self, response: Response) {
        if response.shown_len < response.text.len() {
            let rest = response.text[response.shown_len..].to_owned();
            self.emit(AgentEvent::Text { text: rest });
        }
        let text = response.text.clone();
        if response.has_content() {
            self.conversation.push(assistant_message(
                response.text,
                response.reasoning,
                response.thinking_blocks,
                None,
            ));
        }
        let reason = if self.final_call && self.tool_rounds > 0 {
            OutcomeReason::Exhausted
        } else {
            OutcomeReason::Completed
        };
        self.finish(reason, text);
    }

    fn fail(&mut self, failure: ModelFailure) {
        if let Some(call) = self.take_model_call() {
            // The tokens the provider reported before its error were spent all the same.
            self.add_usage(call.response.usage);
            self.actions.push_back(Action::CancelModel);
            self.finish(
                OutcomeReason::Failed {
                    code: failure.code,
                    message: failure.message,
                },
                String::new(),
            );
        }
    }

    fn finish(&mut self, reason: OutcomeReason, text: String) {
        let final_reason = match &reason {
            OutcomeReason::Completed => Some(FinalReason::Completed),
            OutcomeReason::Exhausted => Some(FinalReason::Exhausted),
            OutcomeReason::Aborted => Some(FinalReason::Aborted),
            OutcomeReason::Failed { .. } => None,
        };
        if let Some(final_reason) = final_reason {
            self.emit(AgentEvent::Final {
                text: text.clone(),
                reason: final_reason,
                messages: self.conversation.clone(),
                // The reason of the call that ended the run; an aborted run ended none.
                finish_reason: (final_reason != FinalReason::Aborted)
                    .then(|| self.last_finish.as_ref().map(FinishReason::name))
                    .flatten(),
            });
        }
        self.actions.push_back(Action::Finish(Outcome {
            reason,
            messages: mem::take(&mut self.conversation),
            text,
            usage: self.usage,
        }));
        self.phase = Phase::Finished;
    }
}

/// The text of a call that may be shown now, if any.
fn showable_text(response: &mut Response, source: CallSource, streaming: bool) -> Option<String> {
    if !streaming || response.text_stopped {
        return None;
    }
    let end = if source == CallSource::Prompt {
        match streamable_len(
            &response.text,
            response.shown_line_start,
            response.shown_len,
        ) {
            Streamable::StopAt(end) => {
                response.text_stopped = true;
                end
            }
            Streamable::UpTo(end) => end,
        }
    } else {
        response.text.len()
    };
    if end <= response.shown_len {
        return None;
    }
    let piece = response.text[response.shown_len..end].to_owned();
    if let Some(newline) = rfind_ascii(&piece, b'\n') {
        response.shown_line_start = response.shown_len + newline + 1;
    }
    response.shown_len = end;
    Some(piece)
}

/// An assistant message; empty parts are omitted (some backends reject `content: ""`). All
/// echo data is kept: the provider request builder drops what its wire does not use.
fn assistant_message(
    text: String,
    reasoning: String,
    thinking_blocks: Vec<ThinkingBlock>,
    tool_calls: Option<Vec<MessageToolCall>>,
) -> ChatMessage {
    ChatMessage {
        content: (!text.is_empty()).then_some(MessageContent::Text(text)),
        tool_calls,
        reasoning_content: (!reasoning.is_empty()).then_some(reasoning),
        thinking_blocks: (!thinking_blocks.is_empty()).then_some(thinking_blocks),
        ..ChatMessage::text(Role::Assistant, "")
    }
}
