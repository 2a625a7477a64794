//! One run: lists the tools, then performs the loop's actions until it finishes.

use std::cell::RefCell;
use std::collections::VecDeque;
use std::pin::pin;
use std::rc::Rc;

use futures::future::{select, Either};
use serde_json::Value;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use web_sys::{AbortController, AbortSignal};

use super::page_tools::{call_page_tool, PageTools, PAGE_SERVER};
use super::{approved, AgentShared, BuiltTools, Refusals};
use crate::core::agent_loop::{
    Action, AgentEvent, AgentLoop, FinalReason, ModelFailure, ModelRequest, OutcomeReason,
    ToolFailure, ToolInvocation, ToolOutcome, ToolResult,
};
use crate::core::assembler::{ToolInput, ToolInputTracker};
use crate::core::mcp::cache::ToolsCache;
use crate::core::mcp::tools::{check_structured_content, ToolCallResult};
use crate::core::mcp::McpError;
use crate::core::message::ChatMessage;
use crate::core::model_event::{queue_merging_pieces, ModelEvent, Usage};
use crate::core::provider::{ProviderError, ProviderTools, RetryPolicy};
use crate::core::tools::{tool_prompt, McpTool, ToolTable};
use crate::web::channel::{channel, Receiver, Sender};
use crate::web::error::{js_error, set_property};
use crate::web::join::join_every;
use crate::web::json::{messages_to_js, set_optional_text, set_tool_result_members, value_to_js};
use crate::web::mcp::{set_challenge_properties, CallWatch, UsageTally};
use crate::web::provider::{stream_model_call, whole_model_call, IdleLimit};
use crate::web::JsCallback;
use crate::web::{spawn, static_js_str};

/// What the background tasks of a run tell the driver.
pub enum Input {
    Model(ModelEvent),
    /// What the page is shown of a tool call the model is writing.
    ToolInput(ToolInput),
    /// A call the page was shown of an answer whose stream was cut, asked for again.
    ToolInputDiscarded {
        id: String,
    },
    ModelDone,
    /// `error` is the failure as JS sees it, with the HTTP `status` and `body` when an answer
    /// caused it: the run's error is that one.
    ModelFailed {
        failure: ModelFailure,
        error: JsValue,
    },
    ToolProgress {
        call_id: String,
        progress: f64,
        total: Option<f64>,
        message: Option<String>,
    },
    ToolOutcome {
        call_id: String,
        outcome: ToolOutcome,
    },
    /// Tokens the run's model spent answering a server's sampling requests during a call.
    SamplingUsage(Usage),
    /// A call the page approved has started: its expected duration.
    ToolEta {
        call_id: String,
        eta_ms: u64,
    },
    Abort,
}

/// What a run hands its stream.
pub enum Emitted {
    Event(JsValue),
    /// A piece of a call's arguments text, kept as text until the page takes it: the pieces of
    /// one call that the page has not read yet become one event (a model writing several calls
    /// a character at a time, in turns, brought as many events as characters).
    ToolInput {
        id: String,
        delta: String,
    },
    /// The run failed: the stream errors with this once the events before it are read.
    Failed(JsValue),
}

impl Emitted {
    /// The event as JS, or the run's error.
    pub fn into_js(self) -> Result<JsValue, JsValue> {
        match self {
            Emitted::Event(event) => Ok(event),
            Emitted::ToolInput { id, delta } => {
                Ok(event_to_js(&AgentEvent::ToolInputDelta { id, delta }))
            }
            Emitted::Failed(error) => Err(error),
        }
    }
}

/// Joins a piece of arguments text to the last piece of the same call still queued, as long as
/// only pieces were queued after it (the page sees each call's pieces in order, and every other
/// event where it was).
fn join_tool_input(queued: &mut VecDeque<Emitted>, piece: Emitted) -> Option<Emitted> {
    let Emitted::ToolInput { id, delta } = &piece else {
        return Some(piece);
    };
    for item in queued.iter_mut().rev() {
        let Emitted::ToolInput {
            id: queued_id,
            delta: joined,
        } = item
        else {
            break;
        };
        if queued_id == id {
            joined.push_str(delta);
            return None;
        }
    }
    Some(piece)
}

/// How a run ended for the stream: normally (a `final` event was sent), or with an error.
pub enum RunEnd {
    Finished,
    Failed(JsValue),
}

/// A listener on the caller's `AbortSignal` that turns an abort into [`Input::Abort`]; removed
/// when the run ends.
struct AbortForwarder {
    signal: AbortSignal,
    listener: JsCallback,
}

impl AbortForwarder {
    fn new(signal: AbortSignal, inputs: Sender<Input>) -> Self {
        if signal.aborted() {
            inputs.send(Input::Abort);
        }
        let listener = JsCallback::new(move |_| {
            inputs.send(Input::Abort);
            Ok(JsValue::UNDEFINED)
        });
        let _ = signal.add_event_listener_with_callback("abort", listener.as_ref().unchecked_ref());
        AbortForwarder { signal, listener }
    }
}

impl Drop for AbortForwarder {
    fn drop(&mut self) {
        let _ = self
            .signal
            .remove_event_listener_with_callback("abort", self.listener.as_ref().unchecked_ref());
    }
}

/// A tool call's controller, aborted when dropped so that nothing a run started outlives it;
/// [`OwnedAbort::release`] lets go of a call that has ended without aborting it, since `abort()`
/// builds a `DOMException` and wakes the call's listeners for nothing.
struct OwnedAbort {
    controller: AbortController,
    released: bool,
}

impl OwnedAbort {
    fn new() -> Self {
        OwnedAbort {
            controller: AbortController::new().expect_throw("AbortController is available"),
            released: false,
        }
    }

    fn signal(&self) -> AbortSignal {
        self.controller.signal()
    }

    fn release(mut self) {
        self.released = true;
    }
}

impl Drop for OwnedAbort {
    fn drop(&mut self) {
        if !self.released {
            self.controller.abort();
        }
    }
}

/// Cancels a model call when dropped, by dropping its future: the fetch's own guard then aborts
/// the request. Cheaper than an `AbortController` per call, whose signal the call would forward
/// to its fetch and whose `abort()` builds a `DOMException` even after the call has ended; a
/// stop notice rather than futures' `Abortable`, whose handle is built for threads.
struct ModelCallGuard {
    _stop: Sender<()>,
}

#[derive(Clone, Copy)]
enum TextKind {
    Text,
    Reasoning,
}

/// `{ type, text }` for a piece of answer or reasoning text, the same object the general
/// serializer makes, built directly: these are most of a run's events.
fn text_event(kind: TextKind, text: &str) -> JsValue {
    let event_type = match kind {
        TextKind::Text => "text",
        TextKind::Reasoning => "reasoning",
    };
    let event = event_of(event_type, None);
    set_property(&event, "text", &JsValue::from_str(text));
    event.into()
}

/// `{ type }`, or `{ type, id }` for a call's event: the start of an event.
fn event_of(event_type: &'static str, id: Option<&str>) -> js_sys::Object {
    let event = js_sys::Object::new();
    set_property(&event, "type", &static_js_str(event_type));
    set_optional_text(&event, "id", id);
    event
}

/// A number as its JSON text parsed gives it: `null` when it is not finite.
fn json_number(number: f64) -> JsValue {
    if number.is_finite() {
        JsValue::from_f64(number)
    } else {
        JsValue::NULL
    }
}

/// An event as JS, with the members `AgentEvent`'s `Serialize` writes, in its order, built in JS
/// member by member: text and reasoning from the strings made once; a tool result's content
/// through `value_to_js` (no JSON text of megabytes); the others so too, since serializing them
/// to JSON text for `JSON.parse` compiled the derived serializer into the wasm for them alone.
fn event_to_js(event: &AgentEvent) -> JsValue {
    let event = match event {
        AgentEvent::Text { text } => return text_event(TextKind::Text, text),
        AgentEvent::Reasoning { text } => return text_event(TextKind::Reasoning, text),
        AgentEvent::ToolResult {
            id,
            text,
            content,
            structured_content,
            is_error,
        } => {
            let event = event_of("toolResult", Some(id));
            set_property(&event, "text", &JsValue::from_str(text));
            let structured_content = structured_content.as_ref();
            set_tool_result_members(&event, "content", content, structured_content, *is_error);
            event
        }
        AgentEvent::Round { round } => {
            let event = event_of("round", None);
            set_property(&event, "round", &JsValue::from(*round));
            event
        }
        AgentEvent::ToolCall {
            id,
            name,
            server,
            tool,
            arguments,
        } => {
            let event = event_of("toolCall", Some(id));
            set_property(&event, "name", &JsValue::from_str(name));
            set_property(&event, "server", &JsValue::from_str(server));
            set_property(&event, "tool", &JsValue::from_str(tool));
            set_property(&event, "arguments", &value_to_js(arguments));
            event
        }
        AgentEvent::ToolInputStart { id, name } => {
            let event = event_of("toolInputStart", Some(id));
            set_property(&event, "name", &JsValue::from_str(name));
            event
        }
        AgentEvent::ToolInputDelta { id, delta } => {
            let event = event_of("toolInputDelta", Some(id));
            set_property(&event, "delta", &JsValue::from_str(delta));
            event
        }
        AgentEvent::ToolInputDiscarded { id } => event_of("toolInputDiscarded", Some(id)),
        AgentEvent::ToolEta { id, eta_ms } => {
            let event = event_of("toolEta", Some(id));
            set_property(&event, "etaMs", &JsValue::from_f64(*eta_ms as f64));
            event
        }
        AgentEvent::ToolProgress {
            id,
            progress,
            total,
            message,
        } => {
            let event = event_of("toolProgress", Some(id));
            set_property(&event, "progress", &json_number(*progress));
            if let Some(total) = total {
                set_property(&event, "total", &json_number(*total));
            }
            set_optional_text(&event, "message", message.as_deref());
            event
        }
        AgentEvent::ToolError { id, message, code } => {
            let event = event_of("toolError", Some(id));
            set_property(&event, "message", &JsValue::from_str(message));
            set_optional_text(&event, "code", code.as_deref());
            event
        }
        AgentEvent::Usage(usage) => {
            let event = event_of("usage", None);
            let counts = [
                ("inputTokens", Some(usage.input_tokens)),
                ("outputTokens", Some(usage.output_tokens)),
                ("cachedInputTokens", usage.cached_input_tokens),
                ("reasoningTokens", usage.reasoning_tokens),
            ];
            for (key, count) in counts {
                if let Some(count) = count {
                    set_property(&event, key, &JsValue::from_f64(count as f64));
                }
            }
            event
        }
        AgentEvent::Final {
            text,
            reason,
            messages,
            finish_reason,
        } => {
            let event = event_of("final", None);
            let reason = match reason {
                FinalReason::Completed => "completed",
                FinalReason::Exhausted => "exhausted",
                FinalReason::Aborted => "aborted",
            };
            set_property(&event, "text", &JsValue::from_str(text));
            set_property(&event, "reason", &JsValue::from_str(reason));
            set_property(&event, "messages", &messages_to_js(messages));
            set_optional_text(&event, "finishReason", finish_reason.as_deref());
            event
        }
    };
    event.into()
}

/// Lists every server's tools concurrently (through the shared cache). A server that fails is
/// reported and left out; the others' tools still make the table.
pub async fn list_all_tools(
    shared: &AgentShared,
    signal: Option<&AbortSignal>,
) -> Result<(Rc<BuiltTools>, Vec<(String, JsValue)>), JsValue> {
    if signal.is_some_and(AbortSignal::aborted) {
        return Err(js_error("aborted", "listing tools was aborted").into());
    }
    let listings = join_every(shared.servers.iter().map(|(name, client)| {
        let cache = tools_cache();
        async move { (name.clone(), client.list_tools_cached(&cache).await) }
    }))
    .await;
    let mut listed: Vec<(String, Rc<[McpTool]>)> = Vec::new();
    let mut failures = Vec::new();
    for (name, listing) in listings {
        match listing {
            Ok(tools) => listed.push((name, tools)),
            Err(error) => failures.push((name.clone(), server_error(&name, error))),
        }
    }
    listed.extend(shared.page_tools.as_ref().map(PageTools::listing));
    Ok((shared.tools_for(listed), failures))
}

thread_local! {
    /// Listed tools shared by every Agent of the page, keyed by server URL and headers.
    static TOOLS_CACHE: Rc<RefCell<ToolsCache>> = Rc::new(RefCell::new(ToolsCache::new()));
}

fn tools_cache() -> Rc<RefCell<ToolsCache>> {
    TOOLS_CACHE.with(Rc::clone)
}

fn server_error(server: &str, error: McpError) -> JsValue {
    let js = js_error(error.code(), &format!("MCP server `{server}`: {error}"));
    set_property(&js, "server", &JsValue::from_str(server));
    set_challenge_properties(&js, &error);
    js.into()
}

/// Names in a server's `allowedTools` that its listing lacks: reported, not fatal, since a
/// server's tools change with its versions and a stale name must not stop the others.
fn unlisted_allowed(server: &str, names: &[String]) -> JsValue {
    let mut message =
        format!("MCP server `{server}`: `allowedTools` names tools it does not list, or lists to run only as tasks (not implemented): ");
    for (index, name) in names.iter().enumerate() {
        let separator = if index == 0 { "`" } else { ", `" };
        message.push_str(separator);
        message.push_str(name);
        message.push('`');
    }
    js_error("mcp_unknown_allowed_tool", &message).into()
}

/// The tool preamble (when the run offers tools: some are listed, a round may use them, and the
/// model takes them natively or through the prompt) before the page's own system prompt.
fn composed_system_prompt(shared: &AgentShared, table: &ToolTable) -> Option<String> {
    let tools_offered = !table.is_empty()
        && shared.max_rounds > 0
        && (shared.tools_supported || shared.prompt_tool_mode);
    let preamble = (shared.tool_prompt && tools_offered).then(|| {
        let mut names = Vec::with_capacity(table.entries().len());
        for entry in table.entries() {
            names.push(entry.function_name.as_str());
        }
        tool_prompt(&names, &shared.local_now(), &shared.time_zone)
    });
    match (preamble, shared.system_prompt.clone()) {
        (Some(preamble), Some(own)) => Some(format!("{preamble}\n\n{own}")),
        (preamble, own) => preamble.or(own),
    }
}

/// Runs one agent run to its end, sending events to `events`.
pub async fn drive(
    shared: Rc<AgentShared>,
    messages: Vec<ChatMessage>,
    signal: Option<AbortSignal>,
    inputs: Sender<Input>,
    mut input_receiver: Receiver<Input>,
    events: &Sender<Emitted>,
) -> RunEnd {
    let _forwarder = signal.map(|signal| AbortForwarder::new(signal, inputs.clone()));

    // Tools first; an abort while servers are being listed ends the wait at once. The abort is
    // polled first, so that one already given (a signal aborted before the run) wins over a
    // listing ready at once (no servers, or the cache).
    let listing = list_all_tools(&shared, None);
    futures::pin_mut!(listing);
    let (tools, failures, aborted) = match select(&mut input_receiver, listing).await {
        Either::Right((Ok((tools, failures)), _)) => (Some(tools), failures, false),
        Either::Right((Err(error), _)) => return RunEnd::Failed(error),
        // Only an abort can arrive before the loop has started anything.
        Either::Left(_) => (None, Vec::new(), true),
    };
    let mut failures = failures;
    let unlisted = tools.as_deref().map(BuiltTools::unlisted_allowed);
    for (server, names) in unlisted.unwrap_or_default() {
        failures.push((server.clone(), unlisted_allowed(server, names)));
    }
    for (server, error) in failures {
        let event = js_sys::Object::new();
        set_property(&event, "type", &static_js_str("serverError"));
        set_property(&event, "server", &JsValue::from_str(&server));
        for key in ["code", "message", "resourceMetadataUrl", "scope"] {
            let value = js_sys::Reflect::get(&error, &JsValue::from_str(key)).unwrap_or_default();
            if !value.is_undefined() {
                set_property(&event, key, &value);
            }
        }
        events.send(Emitted::Event(event.into()));
    }

    let table = tools
        .as_ref()
        .map(|tools| tools.table().clone())
        .unwrap_or_default();
    let system_prompt = composed_system_prompt(&shared, &table);
    let mut run = Run {
        agent: AgentLoop::new(shared.loop_config(system_prompt), messages, table),
        shared: shared.clone(),
        tools,
        inputs,
        events,
        model_abort: None,
        tool_aborts: Vec::new(),
        queued_tools: VecDeque::new(),
        running_tools: 0,
        model_error: None,
        round_messages: None,
    };
    if aborted {
        run.agent.handle_abort();
    }
    loop {
        while let Some(action) = run.agent.poll() {
            if let Some(end) = run.perform(action) {
                return end;
            }
        }
        // Slots a finished call freed go to queued calls only now, after its `toolResult`.
        run.start_queued_tools();
        match (&mut input_receiver).await {
            Some(input) => run.feed(input),
            None => run.agent.handle_abort(),
        }
    }
}

struct Run<'a> {
    agent: AgentLoop,
    shared: Rc<AgentShared>,
    /// The run's tools; their provider wire shape is built by the first model call offering
    /// them (or was, by an earlier run over the same listings).
    tools: Option<Rc<BuiltTools>>,
    inputs: Sender<Input>,
    events: &'a Sender<Emitted>,
    model_abort: Option<ModelCallGuard>,
    tool_aborts: Vec<(String, OwnedAbort)>,
    /// Calls waiting for a slot under `maxConcurrentTools`.
    queued_tools: VecDeque<ToolInvocation>,
    running_tools: usize,
    /// The JS error of the model call that failed, for the run's error.
    model_error: Option<JsValue>,
    /// The round's conversation as JS for the page tools' `execute`, made by the round's first
    /// page tool call and shared by the others, as the AI SDK's calls of one step share theirs.
    round_messages: Option<JsValue>,
}

impl Run<'_> {
    fn emit(&self, event: &AgentEvent) {
        self.events.send(Emitted::Event(event_to_js(event)));
    }

    fn feed(&mut self, input: Input) {
        match input {
            Input::Model(event) => self.agent.handle_model_event(event),
            Input::ModelDone => {
                self.model_abort = None;
                self.agent.handle_model_done();
            }
            Input::ModelFailed { failure, error } => {
                self.model_abort = None;
                self.model_error = Some(error);
                self.agent.handle_model_failed(failure);
            }
            Input::ToolProgress {
                call_id,
                progress,
                total,
                message,
            } => self
                .agent
                .handle_tool_progress(&call_id, progress, total, message),
            Input::ToolOutcome { call_id, outcome } => {
                if let Some(index) = self.tool_aborts.iter().position(|(id, _)| *id == call_id) {
                    self.tool_aborts.swap_remove(index).1.release();
                }
                self.running_tools = self.running_tools.saturating_sub(1);
                self.agent.handle_tool_outcome(&call_id, outcome);
            }
            Input::ToolInput(ToolInput::Start { id, name }) => {
                self.emit(&AgentEvent::ToolInputStart { id, name })
            }
            Input::ToolInput(ToolInput::Delta { id, text }) => {
                let piece = Emitted::ToolInput { id, delta: text };
                self.events.send_merging(piece, join_tool_input);
            }
            Input::ToolInputDiscarded { id } => self.emit(&AgentEvent::ToolInputDiscarded { id }),
            Input::SamplingUsage(usage) => self.agent.handle_sampling_usage(usage),
            Input::ToolEta { call_id, eta_ms } => self.emit(&AgentEvent::ToolEta {
                id: call_id,
                eta_ms,
            }),
            Input::Abort => self.agent.handle_abort(),
        }
    }

    /// Performs one action; `Some` when the run is over.
    fn perform(&mut self, action: Action) -> Option<RunEnd> {
        match action {
            Action::CallModel(request) => self.call_model(request),
            Action::CancelModel => self.model_abort = None,
            Action::CallTools(invocations) => {
                self.round_messages = None;
                self.queued_tools.extend(invocations);
                self.start_queued_tools();
            }
            Action::CancelTools(ids) => {
                self.queued_tools
                    .retain(|call| !ids.contains(&call.call_id));
                self.tool_aborts.retain(|(id, _)| !ids.contains(id));
            }
            Action::Emit(event) => self.emit(&event),
            Action::Finish(outcome) => {
                self.model_abort = None;
                self.tool_aborts.clear();
                return Some(match outcome.reason {
                    OutcomeReason::Failed { code, message } => {
                        let error = self
                            .model_error
                            .take()
                            .unwrap_or_else(|| js_error(&code, &message).into());
                        set_property(&error, "messages", &messages_to_js(&outcome.messages));
                        RunEnd::Failed(error)
                    }
                    _ => RunEnd::Finished,
                });
            }
        }
        None
    }

    fn call_model(&mut self, request: ModelRequest) {
        let mut tools = Rc::default();
        if let Some(built) = self.tools.as_ref().filter(|_| request.with_tools) {
            // `toolChoice` asks the run's first call only.
            match built.provider_tools_for(&self.shared, request.round == 1) {
                Ok(prepared) => tools = prepared,
                Err(error) => {
                    self.inputs.send(model_failed(error));
                    return;
                }
            }
        }
        let (stop, stopped) = channel::<()>();
        self.model_abort = Some(ModelCallGuard { _stop: stop });
        let shared = self.shared.clone();
        if request.with_tools {
            self.agent.use_argument_keys(tools.argument_keys().clone());
        }
        let inputs = self.inputs.clone();
        spawn(async move {
            let call = model_call(
                &shared,
                &request.messages,
                &tools,
                request.stream,
                request.round,
                &inputs,
            );
            // Cancelled on the loop's request: it wants nothing more from this call. The stop is
            // looked at first, so that a call that ends as it is cancelled reports nothing.
            let result = match select(stopped, pin!(call)).await {
                Either::Left(_) => return,
                Either::Right((result, _)) => result,
            };
            let input = match result {
                Ok(()) => Input::ModelDone,
                Err(error) => model_failed(error),
            };
            inputs.send(input);
        });
    }

    /// What the model was sent for this round's calls (the conversation so far: the system
    /// prompt and the calling assistant message are not in it), as a JS copy a tool may change.
    fn round_messages(&mut self) -> JsValue {
        self.round_messages
            .get_or_insert_with(|| messages_to_js(self.agent.conversation()))
            .clone()
    }

    fn start_queued_tools(&mut self) {
        let limit = self.shared.max_concurrent_tools.unwrap_or(usize::MAX);
        while self.running_tools < limit {
            let Some(invocation) = self.queued_tools.pop_front() else {
                return;
            };
            self.running_tools += 1;
            self.call_tool(invocation);
        }
    }

    fn call_tool(&mut self, invocation: ToolInvocation) {
        let abort = OwnedAbort::new();
        let signal = abort.signal();
        self.tool_aborts.push((invocation.call_id.clone(), abort));
        let eta_ms = self
            .shared
            .expected_duration_ms(&invocation.server, &invocation.tool);
        let approval = self.shared.approve_tool_call.clone().map(|approve| {
            let annotations = self
                .tools
                .as_ref()
                .and_then(|tools| tools.table().get(&invocation.function_name))
                .and_then(|entry| entry.annotations.as_ref());
            (approve, approval_request(&invocation, annotations))
        });
        if let (None, Some(eta_ms)) = (&approval, eta_ms) {
            self.emit(&AgentEvent::ToolEta {
                id: invocation.call_id.clone(),
                eta_ms,
            });
        }
        let page_messages = (self.shared.page_tools.is_some() && invocation.server == PAGE_SERVER)
            .then(|| self.round_messages());
        let (shared, tools) = (self.shared.clone(), self.tools.clone());
        let inputs = self.inputs.clone();
        spawn(async move {
            if let Some((approve, request)) = approval {
                if let Err(declined) = approval_of(&approve, request, &signal).await {
                    inputs.send(Input::ToolOutcome {
                        call_id: invocation.call_id,
                        outcome: Err(declined.into()),
                    });
                    return;
                }
                // The estimate is of the call itself, so it starts once the page has said yes.
                if let Some(eta_ms) = eta_ms {
                    inputs.send(Input::ToolEta {
                        call_id: invocation.call_id.clone(),
                        eta_ms,
                    });
                }
            }
            let started = js_sys::Date::now();
            let outcome = tool_call(
                &shared,
                tools.as_deref(),
                &invocation,
                page_messages,
                &signal,
                &inputs,
            )
            .await;
            if outcome.is_ok() {
                shared.record_duration(
                    &invocation.server,
                    &invocation.tool,
                    js_sys::Date::now() - started,
                );
            }
            inputs.send(Input::ToolOutcome {
                call_id: invocation.call_id,
                outcome,
            });
        });
    }
}

/// A model call's failure for the loop (code and message) and for the run's error (the JS
/// error, with the HTTP status and body when an answer caused it).
fn model_failed(error: ProviderError) -> Input {
    Input::ModelFailed {
        failure: ModelFailure {
            code: error.code().to_owned(),
            message: error.to_string(),
        },
        error: error.into(),
    }
}

async fn model_call(
    shared: &AgentShared,
    messages: &[ChatMessage],
    tools: &ProviderTools,
    stream: bool,
    round: u32,
    inputs: &Sender<Input>,
) -> Result<(), ProviderError> {
    if stream {
        // A connection lost before anything reached the loop (tool calls are held back until the
        // stream ends) costs the user nothing: the round is asked for again while the call's
        // retries last, one `maxRetries` budget for failed answers and cut streams alike; the
        // calls the page was shown of the cut answer are discarded there.
        let mut policy = shared.retry_policy;
        loop {
            match streamed_call(shared, &policy, messages, tools, round, inputs).await {
                Err(StreamFailure {
                    error: ProviderError::Network { .. },
                    forwarded_any: false,
                    retries_left,
                    tool_input,
                }) if retries_left > 0 => {
                    policy.max_retries = retries_left - 1;
                    for id in tool_input.into_shown_ids() {
                        inputs.send(Input::ToolInputDiscarded { id });
                    }
                }
                other => return other.map_err(|failure| failure.error),
            }
        }
    } else {
        let (events, _warnings) = whole_model_call(
            &shared.provider,
            messages,
            tools,
            &shared.retry_policy,
            None,
            IdleLimit(Some(shared.idle_timeout_ms)),
        )
        .await?;
        for event in events {
            inputs.send(Input::Model(event));
        }
    }
    Ok(())
}

/// A streamed call that failed, whether any of its events but token counts had already reached
/// the loop, how many retries the call had left when its stream broke (none when it never
/// started: its retries were spent or did not apply), and the calls the page was shown.
struct StreamFailure {
    error: ProviderError,
    forwarded_any: bool,
    retries_left: u32,
    tool_input: ToolInputTracker,
}

/// One streamed model call. Events reach the loop as they come until the first tool-call delta;
/// from there on they are held until the stream ends, so that a failure mid tool-call leaves the
/// loop untouched (a call's argument pieces held as one string, however many pieces came). The
/// page is shown the calls as they come all the same (`toolInputStart`, `toolInputDelta`): an
/// answer asked for again after a cut discards them there (`toolInputDiscarded`), and its calls
/// start again.
async fn streamed_call(
    shared: &AgentShared,
    policy: &RetryPolicy,
    messages: &[ChatMessage],
    tools: &ProviderTools,
    round: u32,
    inputs: &Sender<Input>,
) -> Result<(), StreamFailure> {
    let mut forwarded_any = false;
    let mut held = VecDeque::new();
    let mut tool_input = ToolInputTracker::new(round);
    let started = stream_model_call(
        &shared.provider,
        messages,
        tools,
        policy,
        None,
        IdleLimit(Some(shared.idle_timeout_ms)),
    )
    .await;
    let (mut events, _warnings) = match started {
        Ok(started) => started,
        Err(error) => {
            return Err(StreamFailure {
                error,
                forwarded_any: false,
                retries_left: 0,
                tool_input,
            })
        }
    };
    let retries_left = policy.max_retries.saturating_sub(events.retries_done());
    loop {
        match events.next_event().await {
            Ok(Some(event)) => {
                if held.is_empty() && !matches!(event, ModelEvent::ToolCallDelta(_)) {
                    // A token count shows nothing and the next try's count replaces it
                    // (Anthropic's comes before anything else).
                    forwarded_any |= !matches!(event, ModelEvent::Usage(_));
                    inputs.send(Input::Model(event));
                } else {
                    if let ModelEvent::ToolCallDelta(delta) = &event {
                        for shown in tool_input.push(delta) {
                            inputs.send(Input::ToolInput(shown));
                        }
                    }
                    queue_merging_pieces(&mut held, event);
                }
            }
            Ok(None) => break,
            Err(error) => {
                return Err(StreamFailure {
                    error,
                    forwarded_any,
                    retries_left,
                    tool_input,
                })
            }
        }
    }
    for event in held {
        inputs.send(Input::Model(event));
    }
    Ok(())
}

/// Calls `invocation`'s tool: a page tool when `page_messages` (its `execute`'s `messages`)
/// is given, an MCP server's otherwise, whose result must keep the `outputSchema` of its
/// listing in `tools`. An MCP failure keeps its code for the `toolError` event.
async fn tool_call(
    shared: &AgentShared,
    tools: Option<&BuiltTools>,
    invocation: &ToolInvocation,
    page_messages: Option<JsValue>,
    signal: &AbortSignal,
    inputs: &Sender<Input>,
) -> ToolOutcome {
    if let (Some(page_tools), Some(messages)) = (shared.page_tools.as_ref(), page_messages) {
        let (timeout_ms, max_chars) = (shared.tool_timeout_ms, shared.max_tool_result_chars);
        return call_page_tool(
            page_tools, invocation, &messages, signal, timeout_ms, max_chars, inputs,
        )
        .await
        .map_err(ToolFailure::from);
    }
    let Some(client) = shared.client(&invocation.server) else {
        return Err(format!("no MCP server named `{}`", invocation.server).into());
    };
    let call_id = invocation.call_id.clone();
    let progress_inputs = inputs.clone();
    let on_progress = move |progress: &crate::core::mcp::jsonrpc::Progress| {
        progress_inputs.send(Input::ToolProgress {
            call_id: call_id.clone(),
            progress: progress.progress,
            total: progress.total,
            message: progress.message.clone(),
        });
    };
    let arguments: Value = invocation.arguments.clone();
    let output_schema =
        tools.and_then(|tools| tools.output_schema(&invocation.server, &invocation.tool));
    let sampled = UsageTally::default();
    let watch = CallWatch {
        on_progress: Some(&on_progress),
        sampled: Some(&sampled),
    };
    let outcome = client
        .call_tool_watched(
            &invocation.tool,
            arguments,
            watch,
            Some(signal),
            Some(shared.tool_timeout_ms),
        )
        .await
        .and_then(|result| {
            check_structured_content(&invocation.tool, output_schema, &result)?;
            Ok(tool_result(result, shared.max_tool_result_chars))
        })
        .map_err(|error| ToolFailure {
            code: Some(error.code()),
            message: error.to_string(),
        });
    // A sampling answer the server asked for during the call was the run's model, on its key.
    if let Some(usage) = sampled.take() {
        inputs.send(Input::SamplingUsage(usage));
    }
    outcome
}

/// What `approveToolCall` is asked about: the call as the `toolCall` event showed it, with the
/// tool's MCP annotations (`readOnlyHint`, `destructiveHint`, …) so that a page can let
/// read-only tools through without asking.
fn approval_request(invocation: &ToolInvocation, annotations: Option<&Value>) -> JsValue {
    let request = js_sys::Object::new();
    for (key, value) in [
        ("id", &invocation.call_id),
        ("name", &invocation.function_name),
        ("server", &invocation.server),
        ("tool", &invocation.tool),
    ] {
        set_property(&request, key, &JsValue::from_str(value));
    }
    set_property(&request, "arguments", &value_to_js(&invocation.arguments));
    if let Some(annotations) = annotations {
        set_property(&request, "annotations", &value_to_js(annotations));
    }
    request.into()
}

/// Asks the page's `approveToolCall` whether a call may run (MCP: hosts obtain the user's
/// consent before invoking a tool); the model learns why a call was declined.
async fn approval_of(
    approve: &js_sys::Function,
    request: JsValue,
    signal: &AbortSignal,
) -> Result<(), String> {
    let context = js_sys::Object::new();
    set_property(&context, "signal", signal);
    let refusals = Refusals {
        hook: "approveToolCall",
        declined: "the user declined this tool call",
        aborted: "aborted before the user answered",
    };
    approved(approve, &request, &context, signal, &refusals).await
}

/// A tool's result for the loop: the text the model reads cut to `max_chars` (see
/// [`cut_for_model`]), the blocks for the UI whole.
pub(super) fn tool_result(result: ToolCallResult, max_chars: usize) -> ToolResult {
    ToolResult {
        text: cut_for_model(result.model_text, max_chars),
        content: result.blocks,
        structured_content: result.structured_content,
        is_error: result.is_error,
    }
}

/// The first `max_chars` characters of a tool result and a note saying what was left out; the
/// content blocks the UI gets stay whole.
fn cut_for_model(text: String, max_chars: usize) -> String {
    let Some((cut_at, _)) = text.char_indices().nth(max_chars) else {
        return text;
    };
    let total = text.chars().count();
    format!(
        "{}\n\n[truncated: the first {max_chars} of {total} characters; the app received the full result]",
        &text[..cut_at]
    )
}
