//! Tools the page implements as JS functions (the Agent's `tools` option), offered beside the
//! MCP servers' tools. They are listed as one more server's tools, the reserved server
//! [`PAGE_SERVER`], so that names, schemas, the provider's tool limit, approval, validation,
//! concurrency and events treat both alike; only the call itself differs: the page's `execute`
//! instead of an MCP `tools/call`.

use std::cell::Cell;
use std::pin::pin;
use std::rc::{Rc, Weak};

use futures::future::{select, Either};
use js_sys::{Array, Date, Function, Object, Promise, Reflect};
use serde_json::{json, Value};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use wasm_bindgen_futures::JsFuture;
use web_sys::{AbortController, AbortSignal};

use super::config_error;
use super::driver::{tool_result, Input};
use crate::core::agent_loop::{ToolInvocation, ToolResult};
use crate::core::json_text::to_json_text;
use crate::core::mcp::session::CallDeadline;
use crate::core::mcp::tools::ToolCallResult;
use crate::core::tools::McpTool;
use crate::web::channel::Sender;
use crate::web::error::{js_error_message, set_property};
use crate::web::json::{from_js, value_from_js, value_to_js};
use crate::web::option_member;
use crate::web::timer::{aborted, sleep};
use crate::web::JsCallback;

/// The `server` of every page tool in events, `listTools()` and `approveToolCall`, and the
/// suffix a page tool whose name an MCP tool already has gets. Refused as an `mcpServers` name
/// when the Agent has page tools, so that it names one thing.
pub(crate) const PAGE_SERVER: &str = "page";

/// The page's tools as listed, and in the same order their entries with their `execute`.
pub(crate) struct PageTools {
    listing: Rc<[McpTool]>,
    executes: Vec<(JsValue, Function)>,
}

impl PageTools {
    /// The `tools` member of the Agent's options, read from the JS object (its functions do not
    /// survive JSON); `None` when it is absent or empty.
    pub(crate) fn from_config(config: &JsValue) -> Result<Option<PageTools>, JsValue> {
        let Some(tools) = option_member(config, "tools")? else {
            return Ok(None);
        };
        if !tools.is_object() || Array::is_array(&tools) || tools.is_function() {
            return Err(refused(
                "tools must be an object keyed by tool name: { name: { description?, inputSchema?, execute } }",
            ));
        }
        let mut listing = Vec::new();
        let mut executes = Vec::new();
        for name in Object::keys(tools.unchecked_ref::<Object>()).iter() {
            let name = name.as_string().unwrap_or_default();
            let entry = Reflect::get(&tools, &name.as_str().into())?;
            let (tool, execute) = page_tool(&name, &entry)?;
            listing.push(tool);
            executes.push((entry, execute));
        }
        Ok((!listing.is_empty()).then(|| PageTools {
            listing: listing.into(),
            executes,
        }))
    }

    /// The tools as a server's listing, the same `Rc` every time, so that runs reuse the tool
    /// table built from it.
    pub(crate) fn listing(&self) -> (String, Rc<[McpTool]>) {
        (PAGE_SERVER.to_owned(), self.listing.clone())
    }

    fn execute(&self, tool: &str) -> Option<&(JsValue, Function)> {
        let index = self.listing.iter().position(|listed| listed.name == tool)?;
        self.executes.get(index)
    }
}

fn refused(message: &str) -> JsValue {
    config_error(format_args!("{message}")).into()
}

/// The members of an entry of `tools`; others are refused, as unknown options are, so that a
/// misspelt `inputSchema` (or the AI SDK 4 name `parameters`) does not leave a tool that takes
/// anything.
const PAGE_TOOL_MEMBERS: [&str; 4] = ["description", "inputSchema", "execute", "annotations"];

/// One entry of `tools`: `{ description?, inputSchema?, execute, annotations? }`.
fn page_tool(name: &str, entry: &JsValue) -> Result<(McpTool, Function), JsValue> {
    if name.is_empty() {
        return Err(refused("a tool in `tools` has an empty name"));
    }
    let refused_member =
        |what: &str| JsValue::from(config_error(format_args!("tool `{name}`: {what}")));
    if !entry.is_object() || Array::is_array(entry) {
        return Err(refused_member(
            "expected an object { description?, inputSchema?, execute }",
        ));
    }
    for member in Object::keys(entry.unchecked_ref::<Object>()).iter() {
        let member = member.as_string().unwrap_or_default();
        if !PAGE_TOOL_MEMBERS.contains(&member.as_str()) {
            return Err(refused_member(&format!(
                "unknown member `{member}`, expected `description`, `inputSchema`, `execute` or `annotations`"
            )));
        }
    }
    let execute = option_member(entry, "execute")?
        .and_then(|execute| execute.dyn_into::<Function>().ok())
        .ok_or_else(|| {
            refused_member(
                "execute must be a function (input, { signal, toolCallId, onProgress }) => result",
            )
        })?;
    let description = match option_member(entry, "description")? {
        None => None,
        Some(text) => Some(
            text.as_string()
                .ok_or_else(|| refused_member("description must be a string"))?,
        ),
    };
    let plain_object = |member: &str, value: Option<JsValue>| -> Result<Option<Value>, JsValue> {
        let Some(value) = value else {
            return Ok(None);
        };
        if !value.is_object() || Array::is_array(&value) || value.is_function() {
            return Err(refused_member(&format!("{member} must be a plain object")));
        }
        from_js(&value)
            .map(Some)
            .map_err(|error| refused_member(&format!("{member}: {error}")))
    };
    // A Zod (or other Standard Schema) object, which the AI SDK's `tool()` takes, is an object
    // too, but its JSON is no schema: the tool would take any object, its checks lost.
    let schema = option_member(entry, "inputSchema")?;
    if schema
        .as_ref()
        .is_some_and(|schema| Reflect::has(schema, &"~standard".into()) == Ok(true))
    {
        return Err(refused_member(
            "inputSchema is a Standard Schema (Zod, Valibot, ArkType), not JSON Schema: pass z.toJSONSchema(schema) or its library's equivalent",
        ));
    }
    // The AI SDK's `jsonSchema(schema)` wraps a JSON Schema in an object marked with its symbol;
    // its own JSON is `{ jsonSchema }`, a schema taking any object. Its `jsonSchema` is read.
    let schema = match schema {
        Some(wrapper)
            if Reflect::has(&wrapper, &js_sys::Symbol::for_("vercel.ai.schema")) == Ok(true) =>
        {
            let inner = Reflect::get(&wrapper, &"jsonSchema".into())?;
            if inner.is_instance_of::<Promise>() {
                return Err(refused_member(
                    "inputSchema is the AI SDK's jsonSchema() of a promise: pass the JSON Schema itself",
                ));
            }
            Some(inner)
        }
        other => other,
    };
    let input_schema =
        plain_object("inputSchema", schema)?.unwrap_or_else(|| json!({"type": "object"}));
    let annotations = plain_object("annotations", option_member(entry, "annotations")?)?;
    let tool = McpTool {
        name: name.to_owned(),
        title: None,
        description,
        input_schema,
        output_schema: None,
        annotations,
        execution: None,
    };
    Ok((tool, execute))
}

/// Calls the page's `execute` for `invocation` (already approved, its arguments checked):
/// `{ signal, abortSignal, toolCallId, messages, onProgress }` as its second argument, as the
/// AI SDK's `execute` gets them (`messages`: what the model was sent to make this call, without
/// the system prompt or the calling assistant message). The signal aborts
/// when the run's call does (an abort, the run's end) and when `toolTimeoutMs` passes without an
/// answer or a progress report, which fails the call.
pub(crate) async fn call_page_tool(
    page_tools: &PageTools,
    invocation: &ToolInvocation,
    messages: &JsValue,
    call_signal: &AbortSignal,
    timeout_ms: u64,
    max_result_chars: usize,
    inputs: &Sender<Input>,
) -> Result<ToolResult, String> {
    let Some((entry, execute)) = page_tools.execute(&invocation.tool) else {
        return Err(format!("no page tool named `{}`", invocation.tool));
    };
    let controller = AbortController::new().expect_throw("AbortController is available");
    let _abort_on_drop = AbortOnDrop(&controller);
    let signal = controller.signal();
    let deadline = Rc::new(Cell::new(CallDeadline::new(timeout_ms, Date::now())));
    let context = Object::new();
    set_property(&context, "signal", &signal);
    // The AI SDK's name for it, so that tools written for its `execute` run unchanged.
    set_property(&context, "abortSignal", &signal);
    set_property(
        &context,
        "toolCallId",
        &JsValue::from_str(&invocation.call_id),
    );
    set_property(&context, "messages", messages);
    set_property(
        &context,
        "onProgress",
        &progress_reporter(Rc::downgrade(&deadline), &invocation.call_id, inputs),
    );
    // Called on its entry, as the AI SDK calls a tool's `execute`: a method may use `this`.
    let returned = execute
        .call2(entry, &value_to_js(&invocation.arguments), &context)
        .map_err(|error| js_error_message(&error))?;
    let settled = JsFuture::from(Promise::resolve(&returned));
    let expired = pin!(async {
        loop {
            let remaining = deadline.get().remaining_ms(Date::now());
            if remaining == 0 {
                break;
            }
            sleep(remaining).await;
        }
    });
    let ended = pin!(aborted(call_signal));
    match select(settled, select(expired, ended)).await {
        Either::Left((Ok(value), _)) => {
            page_result(&value).map(|result| tool_result(result, max_result_chars))
        }
        Either::Left((Err(error), _)) => Err(js_error_message(&error)),
        Either::Right((Either::Left(_), _)) => Err(format!("no answer within {timeout_ms} ms")),
        Either::Right((Either::Right(_), _)) => Err("aborted".to_owned()),
    }
}

/// Aborts the signal `execute` was given unless the call has answered: on a timeout, an abort,
/// or the run dropping the call.
struct AbortOnDrop<'a>(&'a AbortController);

impl Drop for AbortOnDrop<'_> {
    fn drop(&mut self) {
        // Aborting an answered call would wake its listeners for nothing.
        if !self.0.signal().aborted() {
            self.0.abort();
        }
    }
}

/// `onProgress({ progress, total?, message? })`: a `toolProgress` event, and the timeout starts
/// over, as an MCP progress notification does. Left to the JS garbage collector, since a page may
/// keep it past the call; once the call has ended (its deadline dropped) it does nothing.
fn progress_reporter(
    deadline: Weak<Cell<CallDeadline>>,
    call_id: &str,
    inputs: &Sender<Input>,
) -> JsValue {
    let call_id = call_id.to_owned();
    let inputs = inputs.clone();
    JsCallback::new(move |update: JsValue| {
        let Some(deadline) = deadline.upgrade() else {
            return Ok(JsValue::UNDEFINED);
        };
        let number = |key: &str| Reflect::get(&update, &key.into()).ok()?.as_f64();
        let Some(progress) = number("progress") else {
            return Ok(JsValue::UNDEFINED);
        };
        let mut restarted = deadline.get();
        restarted.on_progress(Date::now());
        deadline.set(restarted);
        let message = Reflect::get(&update, &"message".into())
            .ok()
            .and_then(|message| message.as_string());
        inputs.send(Input::ToolProgress {
            call_id: call_id.clone(),
            progress,
            total: number("total"),
            message,
        });
        Ok(JsValue::UNDEFINED)
    })
    .into_js_value()
}

/// What `execute` answered, as an MCP result: a string is one text block; an object whose
/// `content` is an array of content blocks (objects with a `type`) is an MCP `CallToolResult`
/// (images, `isError`, `structuredContent` as from a server); `undefined` is no content;
/// anything else is its JSON text, and also the structured content when it is an object. Page
/// data with a `content` array of other things (an article's paragraphs) is data, as the AI SDK
/// takes it, not a result whose blocks the model could not read.
fn page_result(value: &JsValue) -> Result<ToolCallResult, String> {
    if value.is_undefined() {
        return Ok(text_result(String::new(), None));
    }
    if let Some(text) = value.as_string() {
        return Ok(text_result(text, None));
    }
    let has_content_array = value.is_object()
        && Reflect::get(value, &"content".into()).is_ok_and(|content| Array::is_array(&content));
    if has_content_array {
        let result = value_from_js(value).ok_or("the result is nested too deeply")?;
        if is_call_result(&result) {
            return ToolCallResult::from_result(result).map_err(|error| error.to_string());
        }
    }
    let value: Value =
        from_js(value).map_err(|error| format!("the result is not JSON data: {error}"))?;
    let text = to_json_text(&value);
    Ok(text_result(text, value.is_object().then_some(value)))
}

/// Whether every entry of `result`'s `content` is an MCP content block, as far as telling a
/// `CallToolResult` from data needs: an object with a string `type`.
fn is_call_result(result: &Value) -> bool {
    result["content"]
        .as_array()
        .is_some_and(|blocks| blocks.iter().all(|block| block["type"].is_string()))
}

fn text_result(text: String, structured_content: Option<Value>) -> ToolCallResult {
    let blocks = if text.is_empty() {
        Vec::new()
    } else {
        vec![json!({"type": "text", "text": text})]
    };
    ToolCallResult {
        model_text: text,
        blocks,
        structured_content,
        is_error: false,
    }
}
