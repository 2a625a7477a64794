//! Server requests answered later, in the background: an elicitation by the page's
//! `onElicitation`, a sampling request by a [`Sampler`] (an Agent's model). The checks of both
//! are `core::mcp::elicitation`'s and `core::mcp::sampling`'s.
//!
//! The request that carried one (a tool call, as a rule) has its timeout restarted when it
//! arrives and again when it is answered, as progress restarts it, so that a person (or a model)
//! gets the whole timeout to answer and the server the whole timeout after. The `signal` the
//! answer is given aborts when that request ends (answered, aborted, timed out) or the client
//! closes, so that a page can close its form and a model call stops.

use std::cell::Cell;
use std::pin::pin;
use std::rc::Rc;

use futures::future::{select, Either, LocalBoxFuture};
use js_sys::Function;
use serde_json::Value;
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::JsFuture;
use web_sys::AbortSignal;

use super::{restart, CallContext, McpClient};
use crate::core::mcp::elicitation::{elicitation_request, elicitation_result};
use crate::core::mcp::jsonrpc::{reply_to, INTERNAL_ERROR, INVALID_PARAMS};
use crate::core::model_event::Usage;
use crate::web::channel::channel;
use crate::web::error::{js_error_message, set_property};
use crate::web::json::{from_js, value_to_js};
use crate::web::spawn;

/// A server request's answer, or the JSON-RPC error code and message of its failure.
pub type Answer = Result<Value, (i64, String)>;

/// Makes a server request's answer, given the signal that aborts when it is no longer awaited.
/// Boxed, so that `answer_later`'s waiting is compiled once for elicitation and sampling alike.
type Answerer = Box<dyn FnOnce(AbortSignal) -> LocalBoxFuture<'static, Answer>>;

/// Token counts sampling answers add to: those of the run whose tool call brought the requests
/// (none until an answer reported some).
pub type UsageTally = Rc<Cell<Option<Usage>>>;

/// Answers `sampling/createMessage` params within the signal: an Agent's model, which adds what
/// it spent to the tally of the call that carried the request, when one did.
#[derive(Clone)]
pub struct Sampler {
    pub answer:
        Rc<dyn Fn(Value, AbortSignal, Option<UsageTally>) -> LocalBoxFuture<'static, Answer>>,
    /// Whether the model is given a request's tools, and so `sampling.tools` is declared.
    pub takes_tools: bool,
}

impl std::fmt::Debug for Sampler {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        formatter.write_str("Sampler")
    }
}

impl PartialEq for Sampler {
    fn eq(&self, other: &Self) -> bool {
        Rc::ptr_eq(&self.answer, &other.answer)
    }
}

impl McpClient {
    /// Shows the elicitation `id` to the page's `hook` and posts its answer, in the background;
    /// `carrier` is the request whose reply stream brought it, if any.
    pub(super) fn elicit_in_background(
        &self,
        hook: Function,
        id: &Value,
        params: &Value,
        carrier: Option<&CallContext<'_>>,
    ) {
        let request = match elicitation_request(params) {
            Ok(request) => request,
            Err(problem) => {
                return self.post_in_background(reply_to(id, Err((INVALID_PARAMS, problem))))
            }
        };
        let server = self.state.borrow().name.clone();
        let answer: Answerer = Box::new(move |signal| {
            Box::pin(async move {
                let answer = ask_page(&hook, &request, server, &signal).await;
                answer
                    .and_then(|answer| elicitation_result(&request, &answer))
                    .map_err(|problem| (INTERNAL_ERROR, problem))
            })
        });
        self.answer_later(id, carrier, answer);
    }

    /// Has `sampler` answer the sampling request `id`, in the background.
    pub(super) fn sample_in_background(
        &self,
        sampler: Sampler,
        id: &Value,
        params: &Value,
        carrier: Option<&CallContext<'_>>,
    ) {
        let params = params.clone();
        let tally = carrier.and_then(|carrier| carrier.watch.sampled.cloned());
        self.answer_later(
            id,
            carrier,
            Box::new(move |signal| (sampler.answer)(params, signal, tally)),
        );
    }

    /// Posts the answer `answer` gives to the server request `id`, unless the request that
    /// carried it (`carrier`) ends or the client closes first, which aborts `answer`'s signal.
    fn answer_later(&self, id: &Value, carrier: Option<&CallContext<'_>>, answer: Answerer) {
        let deadline = carrier.map(|carrier| {
            carrier.restart_deadline();
            Rc::clone(&carrier.deadline)
        });
        let carrier_ended = carrier.map(|carrier| {
            let (ending, ended) = channel::<()>();
            carrier.answers_awaited.borrow_mut().push(ending);
            ended
        });
        let (client, id) = (self.clone(), id.clone());
        spawn(async move {
            let Ok(controller) = web_sys::AbortController::new() else {
                return;
            };
            let closed = client.state.borrow().closed.clone();
            let ended = pin!(async move {
                match carrier_ended {
                    Some(ended) => drop(select(ended, closed).await),
                    None => drop(closed.await),
                }
            });
            match select(answer(controller.signal()), ended).await {
                Either::Left((outcome, _)) => {
                    if let Some(deadline) = deadline {
                        restart(&deadline);
                    }
                    client.post_in_background(reply_to(&id, outcome));
                }
                // Nobody waits for the answer any more: the page may close its form.
                Either::Right(_) => controller.abort(),
            }
        });
    }
}

/// Calls `onElicitation(request, { signal, server? })` and waits for its answer as JSON.
async fn ask_page(
    hook: &Function,
    request: &Value,
    server: Option<String>,
    signal: &AbortSignal,
) -> Result<Value, String> {
    let context = js_sys::Object::new();
    set_property(&context, "signal", signal);
    if let Some(server) = server {
        set_property(&context, "server", &JsValue::from_str(&server));
    }
    let answer = hook
        .call2(&JsValue::UNDEFINED, &value_to_js(request), &context)
        .map_err(|error| format!("onElicitation threw: {}", js_error_message(&error)))?;
    let answer = JsFuture::from(js_sys::Promise::resolve(&answer))
        .await
        .map_err(|error| format!("onElicitation failed: {}", js_error_message(&error)))?;
    from_js(&answer).map_err(|problem| format!("onElicitation's answer is not JSON: {problem}"))
}

/// `onElicitation` of an options object (McpClient's, the Agent's): a function or absent.
pub fn elicitation_hook_of(options: &JsValue) -> Result<Option<Function>, String> {
    let signature = "(request, { signal }) => ElicitationAnswer | Promise<ElicitationAnswer>";
    crate::web::hook_of(options, "onElicitation", signature)
}

/// Tells `onNotification(notification, { server? })` of a server notification. A notification
/// expects no answer: what the hook throws or returns is the page's.
pub fn tell_page(hook: &Function, method: &str, params: &Value, server: Option<&str>) {
    let notification = js_sys::Object::new();
    set_property(&notification, "method", &JsValue::from_str(method));
    if !params.is_null() {
        set_property(&notification, "params", &value_to_js(params));
    }
    let context = js_sys::Object::new();
    if let Some(server) = server {
        set_property(&context, "server", &JsValue::from_str(server));
    }
    let _ = hook.call2(&JsValue::UNDEFINED, &notification, &context);
}

/// `onNotification` of an options object (McpClient's, the Agent's): a function or absent.
pub fn notification_hook_of(options: &JsValue) -> Result<Option<Function>, String> {
    let signature = "(notification, { server }) => void";
    crate::web::hook_of(options, "onNotification", signature)
}

#[wasm_bindgen(typescript_custom_section)]
const TYPESCRIPT: &str = r#"
/**
 * A server's `elicitation/create` (MCP 2025-11-25) as `onElicitation` gets it: a form to fill
 * (`requestedSchema`: a flat object schema of strings, numbers, booleans and enums), or a URL to
 * open for something the client must not see (sign-in, payment). Show which server asks; for a
 * URL, show its host and ask before opening it.
 */
export type ElicitationRequest =
  | { mode: "form"; message: string; requestedSchema: JsonObject; _meta?: JsonObject }
  | { mode: "url"; message: string; url: string; elicitationId: string; _meta?: JsonObject };
/** The user's answer: `accept` (with the form's values), `decline`, or `cancel` (dismissed). */
export interface ElicitationAnswer {
  action: "accept" | "decline" | "cancel";
  /** An accepted form's values, checked against `requestedSchema` before they are sent. */
  content?: Record<string, string | number | boolean | string[]>;
}
export interface ElicitationContext {
  /** Aborted when the answer is no longer awaited: the request that asked ended, or the client closed. */
  signal: AbortSignal;
  /** The Agent's name for the server that asks (Agent only). */
  server?: string;
}
export type OnElicitation = (request: ElicitationRequest, context: ElicitationContext) => ElicitationAnswer | Promise<ElicitationAnswer>;
"#;
