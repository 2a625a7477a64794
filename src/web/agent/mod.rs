//! The `Agent`: the web-layer driver that runs the core's [`AgentLoop`] with real I/O.
//!
//! It performs the loop's actions (model calls through the providers, tool calls through the MCP
//! clients, all of a round's calls at once) and feeds every outcome back as it completes. State
//! shared across runs lives in an `Rc`, never behind `&mut self`, so several `run()`s of one
//! Agent may be in flight at once (wasm-bindgen issue #4440).

mod driver;
mod options;
mod page_tools;
mod sampling;
mod stream;

use std::cell::{Cell, OnceCell, RefCell};
use std::fmt;
use std::pin::pin;
use std::rc::Rc;

use futures::future::{select, Either};
use js_sys::{Promise, Reflect};
use serde_json::Value;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use web_sys::AbortSignal;

use crate::core::agent_loop::{LoopConfig, MissingIdStrategy};
use crate::core::json_read::ReadError;
use crate::core::mcp::server_options::server_options;
use crate::core::message::chat_messages;
use crate::core::provider::{
    ProviderError, ProviderTools, ResolvedProvider, RetryPolicy, ToolChoice,
};
use crate::core::tools::{
    build_tool_table_allowing, sanitize_schema, unlisted_tools, McpTool, SchemaDialect, ToolTable,
};
use crate::web::channel::Sender;
use crate::web::error::{js_error, js_error_message, set_property};
use crate::web::join::join_every;
use crate::web::json::{from_js, value_to_js};
use crate::web::mcp::{
    elicitation_hook_of, entry_token_hook, has_authorization_header, notification_hook_of,
    McpClient, McpServerConfig, HOOK_AND_HEADER,
};
use crate::web::timer::aborted;
use crate::web::{is_options_object, option_member, promise_of};

use driver::{list_all_tools, Input};
use options::agent_options;
use page_tools::{PageTools, PAGE_SERVER};
use sampling::model_sampler;

/// Settings and connections shared by every run of one Agent.
pub(crate) struct AgentShared {
    provider: ResolvedProvider,
    servers: Vec<(String, McpClient)>,
    /// The servers given `allowedTools`, with the names: only those tools are offered.
    allowed_tools: Vec<(String, Vec<String>)>,
    retry_policy: RetryPolicy,
    max_rounds: u32,
    answer_after_max_rounds: bool,
    system_prompt: Option<String>,
    tool_prompt: bool,
    tool_timeout_ms: u64,
    idle_timeout_ms: u64,
    max_tool_result_chars: usize,
    time_zone: String,
    /// The tool prompt's clock in `time_zone`, made by the first run that needs it: building an
    /// `Intl.DateTimeFormat` costs about 65 µs in Node, 30 times a formatting with it.
    zone_format: OnceCell<Option<DateTimeFormat>>,
    max_concurrent_tools: Option<usize>,
    prompt_tool_mode: bool,
    tools_supported: bool,
    missing_id_strategy: MissingIdStrategy,
    /// The tool use the first call of each run asks for.
    tool_choice: ToolChoice,
    /// The page's own tools (`tools`), listed as the server [`PAGE_SERVER`].
    page_tools: Option<PageTools>,
    /// The page's `approveToolCall`: asked before each tool call runs.
    approve_tool_call: Option<js_sys::Function>,
    /// Per tool called so far: how many calls completed and their mean duration, for ETA events.
    durations: RefCell<Vec<ToolDurations>>,
    /// The tools built from the last listings: runs over the same listings reuse them.
    built_tools: RefCell<Option<Rc<BuiltTools>>>,
    /// Set by `close()`: later runs and listings fail with `mcp_closed`.
    closed: Cell<bool>,
    /// The inputs of the runs started so far (finished ones are dropped as new ones start):
    /// `close()` aborts those still going.
    runs: RefCell<Vec<Sender<Input>>>,
}

/// The completed calls of one tool, in a list rather than a hash map keyed by (server, tool): a
/// page calls a handful of tools, and the list is smaller in wasm and needs no key copies.
struct ToolDurations {
    server: String,
    tool: String,
    count: u32,
    mean_ms: f64,
}

impl ToolDurations {
    fn are_of(&self, server: &str, tool: &str) -> bool {
        self.server == server && self.tool == tool
    }
}

/// The tool table built from the servers' listings, and lazily its provider wire shape. The
/// tools cache hands out the same listings until one changes or expires, so a run that finds
/// the listings of the run before reuses both instead of copying and sanitizing every schema
/// again (for 500 tools, tens of milliseconds per run and per model call).
pub(crate) struct BuiltTools {
    /// As the servers (or the cache) gave them, before `allowedTools`.
    listings: Vec<(String, Rc<[McpTool]>)>,
    table: ToolTable,
    provider_tools: OnceCell<Rc<ProviderTools>>,
    /// The same asking for the Agent's `toolChoice`, for the first call of a run.
    chosen_tools: OnceCell<Rc<ProviderTools>>,
    /// Per server, the names of its `allowedTools` that its listing lacks.
    unlisted_allowed: Vec<(String, Vec<String>)>,
}

impl BuiltTools {
    pub(crate) fn table(&self) -> &ToolTable {
        &self.table
    }

    pub(crate) fn unlisted_allowed(&self) -> &[(String, Vec<String>)] {
        &self.unlisted_allowed
    }

    /// The `outputSchema` `server` listed `tool` with, which the tool's results must keep.
    pub(crate) fn output_schema(&self, server: &str, tool: &str) -> Option<&Value> {
        let (_, listing) = self.listings.iter().find(|(name, _)| name == server)?;
        let listed = listing.iter().find(|listed| listed.name == tool)?;
        listed.output_schema.as_ref()
    }

    pub(crate) fn provider_tools(&self, provider: &ResolvedProvider) -> Rc<ProviderTools> {
        self.provider_tools
            .get_or_init(|| Rc::new(provider.provider_tools(self.table.entries())))
            .clone()
    }

    /// The tools to send with a model call: fails when they are more than the provider takes,
    /// or when `toolChoice` (asked on a run's first call) cannot be asked.
    pub(crate) fn provider_tools_for(
        &self,
        shared: &AgentShared,
        first_call: bool,
    ) -> Result<Rc<ProviderTools>, ProviderError> {
        let provider = &shared.provider;
        provider.check_tool_count(self.table.entries())?;
        let tools = self.provider_tools(provider);
        if !first_call || shared.tool_choice == ToolChoice::Auto {
            return Ok(tools);
        }
        if let Some(chosen) = self.chosen_tools.get() {
            return Ok(chosen.clone());
        }
        let chosen =
            Rc::new(provider.tools_choosing(&tools, self.table.entries(), &shared.tool_choice)?);
        Ok(self.chosen_tools.get_or_init(|| chosen).clone())
    }

    fn built_from(&self, listings: &[(String, Rc<[McpTool]>)]) -> bool {
        if self.listings.len() != listings.len() {
            return false;
        }
        for (index, (name, tools)) in listings.iter().enumerate() {
            let (built_name, built_tools) = &self.listings[index];
            if built_name != name || !Rc::ptr_eq(built_tools, tools) {
                return false;
            }
        }
        true
    }
}

impl AgentShared {
    fn loop_config(&self, system_prompt: Option<String>) -> LoopConfig {
        LoopConfig {
            max_rounds: self.max_rounds,
            answer_after_max_rounds: self.answer_after_max_rounds,
            system_prompt,
            tools_supported: self.tools_supported,
            prompt_tool_mode: self.prompt_tool_mode,
            missing_id_strategy: self.missing_id_strategy,
            images_in_tool_results: self.provider.shows_tool_result_images(),
        }
    }

    /// The tools for these listings: the last ones built when the listings are the same.
    fn tools_for(&self, listings: Vec<(String, Rc<[McpTool]>)>) -> Rc<BuiltTools> {
        let mut memo = self.built_tools.borrow_mut();
        if let Some(built) = memo.as_ref().filter(|built| built.built_from(&listings)) {
            return built.clone();
        }
        let mut unlisted_allowed = Vec::new();
        for (server, names) in &self.allowed_tools {
            if let Some((_, tools)) = listings.iter().find(|(name, _)| name == server) {
                let unlisted = unlisted_tools(tools, names);
                if !unlisted.is_empty() {
                    unlisted_allowed.push((server.clone(), unlisted));
                }
            }
        }
        let built = Rc::new(BuiltTools {
            table: build_tool_table_allowing(&listings, &self.allowed_tools),
            listings,
            provider_tools: OnceCell::new(),
            chosen_tools: OnceCell::new(),
            unlisted_allowed,
        });
        *memo = Some(built.clone());
        built
    }

    fn client(&self, server: &str) -> Option<&McpClient> {
        self.servers
            .iter()
            .find(|(name, _)| name == server)
            .map(|(_, client)| client)
    }

    /// Keeps a new run's inputs for `close()`, forgetting runs that ended.
    fn track_run(&self, inputs: Sender<Input>) {
        let mut runs = self.runs.borrow_mut();
        runs.retain(|run| !run.is_closed());
        runs.push(inputs);
    }

    /// The mean duration of past calls of this tool, if any completed.
    fn expected_duration_ms(&self, server: &str, tool: &str) -> Option<u64> {
        self.durations
            .borrow()
            .iter()
            .find(|durations| durations.are_of(server, tool))
            .map(|durations| durations.mean_ms.round() as u64)
    }

    fn record_duration(&self, server: &str, tool: &str, elapsed_ms: f64) {
        let mut all = self.durations.borrow_mut();
        let index = match all
            .iter()
            .position(|durations| durations.are_of(server, tool))
        {
            Some(index) => index,
            None => {
                all.push(ToolDurations {
                    server: server.to_owned(),
                    tool: tool.to_owned(),
                    count: 0,
                    mean_ms: 0.0,
                });
                all.len() - 1
            }
        };
        let durations = &mut all[index];
        durations.count += 1;
        durations.mean_ms += (elapsed_ms - durations.mean_ms) / f64::from(durations.count);
    }
}

/// Which entry of `mcpServers` an error concerns, so that a page with several servers learns
/// which to fix: "MCP server `files`", or "MCP server at mcpServers[1]" for one without a name.
fn server_label(name: Option<&str>, index: usize) -> String {
    match name {
        Some(name) => format!("MCP server `{name}`"),
        None => format!("MCP server at mcpServers[{index}]"),
    }
}

/// An `invalid_config` error saying "invalid Agent config: " and `problem`: written once here
/// for every option's refusal.
pub(super) fn config_error(problem: fmt::Arguments<'_>) -> js_sys::Error {
    js_error(
        "invalid_config",
        &format!("invalid Agent config: {problem}"),
    )
}

/// `error`, about the server `name` (see `server_label`), with that name as its `server` property
/// when it has one.
fn naming_server(error: js_sys::Error, name: Option<&str>) -> JsValue {
    if let Some(name) = name {
        set_property(&error, "server", &JsValue::from(name));
    }
    error.into()
}

/// An LLM tool-calling agent over MCP servers. See the package README for the API.
#[wasm_bindgen(js_name = Agent)]
pub struct Agent {
    shared: Rc<AgentShared>,
}

#[wasm_bindgen(js_class = Agent)]
impl Agent {
    /// Checks the whole configuration (provider, keys, server URLs under the URL policy, time
    /// zone) and throws a JS `Error` with a stable `code` when anything is wrong.
    #[wasm_bindgen(constructor)]
    pub fn new(
        #[wasm_bindgen(unchecked_param_type = "AgentConfig")] config: JsValue,
    ) -> Result<Agent, JsValue> {
        if !config.is_object() {
            return Err(js_error(
                "invalid_config",
                "new Agent(config) takes an object: { provider: { id, model, apiKey? }, mcpServers?: [{ name, url }], ... }",
            )
            .into());
        }
        let options = from_js::<Value>(&config)
            .and_then(|value| agent_options::<ReadError>(value).map_err(|e| e.to_string()))
            .map_err(|error| config_error(format_args!("{error}")))?;
        // A getter that throws passes its exception on, as the other members' readers do.
        let function_option = |name: &str, signature: &str| {
            option_member(&config, name)?
                .map(JsCast::dyn_into::<js_sys::Function>)
                .transpose()
                .map_err(|_| {
                    JsValue::from(config_error(format_args!(
                        "{name} must be a function {signature}"
                    )))
                })
        };
        let approve_tool_call =
            function_option("approveToolCall", "(call) => boolean | Promise<boolean>")?;
        let on_elicitation = elicitation_hook_of(&config)
            .map_err(|problem| config_error(format_args!("{problem}")))?;
        let on_notification = notification_hook_of(&config)
            .map_err(|problem| config_error(format_args!("{problem}")))?;
        let approve_sampling = function_option(
            "approveSampling",
            "(request, { signal, server }) => boolean | Promise<boolean>",
        )?;
        let page_tools = PageTools::from_config(&config)?;
        let provider = options.provider.resolve()?;
        let sampling_provider = Rc::new(provider.clone());
        let retry_policy = RetryPolicy {
            max_retries: options.max_retries,
            ..RetryPolicy::default()
        };
        let mut servers: Vec<(String, McpClient)> = Vec::new();
        let mut allowed_tools = Vec::new();
        for (index, entry) in options.mcp_servers.into_iter().enumerate() {
            let name = entry.get("name").and_then(Value::as_str).map(str::to_owned);
            let label = server_label(name.as_deref(), index);
            let refused = |error: js_sys::Error| naming_server(error, name.as_deref());
            let server = server_options(entry)
                .map_err(|error| refused(config_error(format_args!("{label}: {error}"))))?;
            if page_tools.is_some() && server.name == PAGE_SERVER {
                return Err(refused(js_error(
                    "invalid_config",
                    &format!("{label}: `{PAGE_SERVER}` names the page's own `tools`: give this MCP server another name"),
                )));
            }
            if servers.iter().any(|(name, _)| *name == server.name) {
                return Err(refused(js_error(
                    "invalid_config",
                    &format!("{label}: another MCP server has this name: names must be unique"),
                )));
            }
            let get_access_token = entry_token_hook(&config, index)
                .map_err(|problem| refused(config_error(format_args!("{label}: {problem}"))))?;
            if get_access_token.is_some() && has_authorization_header(&server.headers) {
                let problem = format_args!("{label}: {HOOK_AND_HEADER}");
                return Err(refused(config_error(problem)));
            }
            let client = McpClient::new(McpServerConfig {
                url: server.url,
                headers: server.headers,
                transport: server.transport,
                allow_insecure_local_urls: options.allow_insecure_local_urls,
                accept_elicitation_defaults: false,
                on_elicitation: on_elicitation.clone(),
                on_notification: on_notification.clone(),
                roots: options.roots.clone(),
                sampler: approve_sampling.clone().map(|approve| {
                    let provider = Rc::clone(&sampling_provider);
                    model_sampler(
                        provider,
                        approve,
                        server.name.clone(),
                        retry_policy,
                        options.idle_timeout_ms,
                        options.tools_supported && !options.prompt_tool_mode,
                    )
                }),
                name: Some(server.name.clone()),
                timeout_ms: options.tool_timeout_ms,
                get_access_token,
            })
            .map_err(|error| refused(js_error(error.code(), &format!("{label}: {error}"))))?;
            if let Some(names) = server.allowed_tools {
                allowed_tools.push((server.name.clone(), names));
            }
            servers.push((server.name, client));
        }
        let time_zone = match options.time_zone {
            Some(zone) => checked_time_zone(&zone)?,
            None => browser_time_zone(),
        };
        Ok(Agent {
            shared: Rc::new(AgentShared {
                provider,
                servers,
                allowed_tools,
                retry_policy,
                max_rounds: options.max_rounds,
                answer_after_max_rounds: options.answer_after_max_rounds,
                system_prompt: options.system_prompt,
                tool_prompt: options.tool_prompt,
                tool_timeout_ms: options.tool_timeout_ms,
                idle_timeout_ms: options.idle_timeout_ms,
                max_tool_result_chars: options.max_tool_result_chars,
                time_zone,
                zone_format: OnceCell::new(),
                max_concurrent_tools: options.max_concurrent_tools.filter(|limit| *limit > 0),
                prompt_tool_mode: options.prompt_tool_mode,
                tools_supported: options.tools_supported,
                missing_id_strategy: options.missing_id_strategy,
                tool_choice: options.tool_choice,
                page_tools,
                approve_tool_call,
                durations: RefCell::default(),
                built_tools: RefCell::default(),
                closed: Cell::new(false),
                runs: RefCell::default(),
            }),
        })
    }

    /// Connects to every MCP server and lists its tools as the model will see them.
    #[wasm_bindgen(js_name = listTools, unchecked_return_type = "Promise<ToolInfo[]>")]
    pub fn list_tools(
        &self,
        #[wasm_bindgen(unchecked_optional_param_type = "RunOptions")] options: JsValue,
    ) -> Result<Promise, JsValue> {
        if let Err(closed) = self.refuse_if_closed() {
            return Ok(Promise::reject(&closed));
        }
        let signal = abort_signal_of(&options)?;
        let shared = self.shared.clone();
        Ok(promise_of(async move {
            let listing = list_all_tools(&shared, signal.as_ref());
            // An abort ends the wait at once; dropping the listing cancels its fetches.
            let (tools, failures) = match &signal {
                Some(signal) => match select(pin!(listing), aborted(signal)).await {
                    Either::Left((listed, _)) => listed?,
                    Either::Right(_) => {
                        return Err(js_error("aborted", "listing tools was aborted").into())
                    }
                },
                None => listing.await?,
            };
            if let Some((_, error)) = failures.into_iter().next() {
                return Err(error);
            }
            tool_infos(tools.table())
        }))
    }

    /// Runs the agent on `messages`. The stream yields `AgentEvent`s and ends with a `final`
    /// event; it errors (with `code` and `messages`) only on a fatal failure. Aborting `signal`
    /// or cancelling the stream (`break` out of `for await`) aborts the run.
    #[wasm_bindgen(unchecked_return_type = "AgentEventStream")]
    pub fn run(
        &self,
        #[wasm_bindgen(unchecked_param_type = "ChatMessage[]")] messages: JsValue,
        #[wasm_bindgen(unchecked_optional_param_type = "RunOptions")] options: JsValue,
    ) -> Result<JsValue, JsValue> {
        self.refuse_if_closed()?;
        let messages = from_js::<Value>(&messages)
            .and_then(|value| chat_messages::<ReadError>(value).map_err(|error| error.to_string()))
            .map_err(|error| js_error("invalid_messages", &format!("invalid messages: {error}")))?;
        let signal = abort_signal_of(&options)?;
        stream::start_run(self.shared.clone(), messages, signal).map(JsValue::from)
    }
}

impl Agent {
    fn refuse_if_closed(&self) -> Result<(), JsValue> {
        if self.shared.closed.get() {
            return Err(js_error(
                "mcp_closed",
                "this Agent was closed: create a new Agent to run again",
            )
            .into());
        }
        Ok(())
    }
}

#[wasm_bindgen(js_class = Agent)]
impl Agent {
    /// Ends every MCP session (DELETE, streams closed). Later runs throw, and later `listTools()`
    /// calls reject, with `mcp_closed`. Call it before `free()` where an open server stream would
    /// keep the process alive (Node).
    #[wasm_bindgen(unchecked_return_type = "Promise<void>")]
    pub fn close(&self) -> Promise {
        self.shared.closed.set(true);
        for run in self.shared.runs.take() {
            run.send(Input::Abort);
        }
        let shared = self.shared.clone();
        promise_of(async move {
            join_every(shared.servers.iter().map(|(_, client)| client.close())).await;
            Ok(JsValue::UNDEFINED)
        })
    }
}

/// What `listTools()` returns: per tool `{ name, server, tool, description?, parameters,
/// annotations? }`, the parameters as the model sees them. Built in JS member by member rather
/// than serialized and parsed: a type serialized for this alone costs the wasm its serializer.
fn tool_infos(table: &ToolTable) -> Result<JsValue, JsValue> {
    let infos = js_sys::Array::new();
    for entry in table.entries() {
        let info = js_sys::Object::new();
        set_property(&info, "name", &JsValue::from_str(&entry.function_name));
        set_property(&info, "server", &JsValue::from_str(&entry.server));
        set_property(&info, "tool", &JsValue::from_str(&entry.tool));
        if let Some(description) = &entry.description {
            set_property(&info, "description", &JsValue::from_str(description));
        }
        let parameters = sanitize_schema(&entry.input_schema, SchemaDialect::OpenAi).schema;
        set_property(&info, "parameters", &value_to_js(&parameters));
        if let Some(annotations) = &entry.annotations {
            set_property(&info, "annotations", &value_to_js(annotations));
        }
        infos.push(&info);
    }
    Ok(infos.into())
}

fn abort_signal_of(options: &JsValue) -> Result<Option<AbortSignal>, JsValue> {
    // Reading a member of a number or a string would throw a TypeError without a code.
    if !is_options_object(options) {
        return Err(js_error(
            "invalid_options",
            "the options are an object such as { signal }",
        )
        .into());
    }
    option_member(options, "signal")?
        .map(JsCast::dyn_into::<AbortSignal>)
        .transpose()
        .map_err(|_| js_error("invalid_options", "options.signal must be an AbortSignal").into())
}

/// How an approval hook's refusals read: `hook` names it in a throw or a rejection.
struct Refusals {
    hook: &'static str,
    /// Any answer but `true`.
    declined: &'static str,
    /// `signal` aborted before the answer came.
    aborted: &'static str,
}

/// Asks an approval hook (`approveToolCall`, `approveSampling`) with `request` and `context`.
/// Only `true`, or a promise of it, approves; any other answer, a throw or a rejection refuses,
/// and so does `signal` aborting first. `context` carries the signal, so that a page can close
/// its question. One future for both hooks, so that its code is compiled once.
async fn approved(
    hook: &js_sys::Function,
    request: &JsValue,
    context: &js_sys::Object,
    signal: &AbortSignal,
    refusals: &Refusals,
) -> Result<(), String> {
    let failed = |how: &str, error: &JsValue| {
        format!("{} {how}: {}", refusals.hook, js_error_message(error))
    };
    let answer = hook
        .call2(&JsValue::UNDEFINED, request, context)
        .map_err(|error| failed("threw", &error))?;
    let answer = wasm_bindgen_futures::JsFuture::from(Promise::resolve(&answer));
    match select(answer, pin!(aborted(signal))).await {
        Either::Left((Ok(answer), _)) if answer == JsValue::TRUE => Ok(()),
        Either::Left((Ok(_), _)) => Err(refusals.declined.to_owned()),
        Either::Left((Err(error), _)) => Err(failed("failed", &error)),
        Either::Right(_) => Err(refusals.aborted.to_owned()),
    }
}

#[wasm_bindgen]
extern "C" {
    #[wasm_bindgen(js_namespace = Intl, js_name = DateTimeFormat)]
    type DateTimeFormat;
    #[wasm_bindgen(catch, constructor, js_namespace = Intl, js_class = "DateTimeFormat")]
    fn new_date_time_format(locale: &str, options: &JsValue) -> Result<DateTimeFormat, JsValue>;
    #[wasm_bindgen(method, js_name = resolvedOptions)]
    fn resolved_options(this: &DateTimeFormat) -> JsValue;
    #[wasm_bindgen(method)]
    fn format(this: &DateTimeFormat, date: &js_sys::Date) -> String;
}

fn zone_formatter(time_zone: Option<&str>) -> Result<DateTimeFormat, JsValue> {
    let options = js_sys::Object::new();
    if let Some(zone) = time_zone {
        Reflect::set(&options, &"timeZone".into(), &zone.into())?;
    }
    for (key, value) in [
        ("year", "numeric"),
        ("month", "2-digit"),
        ("day", "2-digit"),
        ("hour", "2-digit"),
        ("minute", "2-digit"),
        ("weekday", "long"),
    ] {
        Reflect::set(&options, &key.into(), &value.into())?;
    }
    Reflect::set(&options, &"hourCycle".into(), &"h23".into())?;
    DateTimeFormat::new_date_time_format("en-CA", &options)
}

fn checked_time_zone(zone: &str) -> Result<String, JsValue> {
    zone_formatter(Some(zone))
        .map(|_| zone.to_owned())
        .map_err(|_| {
            js_error(
                "invalid_time_zone",
                &format!("unknown time zone `{zone}`: use an IANA name such as Europe/Paris"),
            )
            .into()
        })
}

fn browser_time_zone() -> String {
    zone_formatter(None)
        .ok()
        .and_then(|format| Reflect::get(&format.resolved_options(), &"timeZone".into()).ok())
        .and_then(|zone| zone.as_string())
        .unwrap_or_else(|| "UTC".to_owned())
}

impl AgentShared {
    /// "Monday, 2026-11-30, 10:15" in the Agent's time zone (already checked), for the tool
    /// prompt.
    pub(crate) fn local_now(&self) -> String {
        self.zone_format
            .get_or_init(|| zone_formatter(Some(&self.time_zone)).ok())
            .as_ref()
            .map(|format| format.format(&js_sys::Date::new_0()))
            .unwrap_or_default()
    }
}
