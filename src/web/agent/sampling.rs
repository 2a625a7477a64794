//! The Agent's answer to a server's `sampling/createMessage`: once the page's `approveSampling`
//! agreed (MCP: the user should see and approve a sampling request), the Agent's own provider
//! and model write the completion, so that a server's tool can use a model without keys of its
//! own. The server's tools, when it offers some, are the model's only tools: the Agent's are not
//! offered, and the model's calls go back to the server, which runs them. The reading of the
//! request and of the answer is `core::mcp::sampling`'s.

use std::rc::Rc;

use js_sys::Function;
use serde_json::Value;
use wasm_bindgen::JsValue;
use web_sys::AbortSignal;

use super::{approved, Refusals};
use crate::core::mcp::jsonrpc::{INTERNAL_ERROR, INVALID_PARAMS};
use crate::core::mcp::sampling::{sampling_request, sampling_result, USER_REJECTED};
use crate::core::model_event::ModelEvent;
use crate::core::provider::{ProviderError, ResolvedProvider, RetryPolicy};
use crate::web::error::set_property;
use crate::web::json::value_to_js;
use crate::web::mcp::{Answer, Sampler, UsageTally};
use crate::web::provider::{whole_model_call, IdleLimit};

/// A sampler for the server `server` that asks `approve`, then calls `provider`; with
/// `takes_tools` (the Agent gives its model native tools) a request's tools are passed on.
pub fn model_sampler(
    provider: Rc<ResolvedProvider>,
    approve: Function,
    server: String,
    retry_policy: RetryPolicy,
    idle_timeout_ms: u64,
    takes_tools: bool,
) -> Sampler {
    Sampler {
        takes_tools,
        answer: Rc::new(
            move |params: Value, signal: AbortSignal, tally: Option<UsageTally>| {
                let (provider, approve, server) =
                    (provider.clone(), approve.clone(), server.clone());
                Box::pin(async move {
                    let request = sampling_request(&params, takes_tools)
                        .map_err(|problem| (INVALID_PARAMS, problem))?;
                    approval(&approve, &params, &server, &signal).await?;
                    let failed = |error: ProviderError| {
                        (INTERNAL_ERROR, format!("the model failed: {error}"))
                    };
                    let mut provider = (*provider).clone();
                    provider.max_tokens = Some(request.max_tokens);
                    provider.temperature = request.temperature.or(provider.temperature);
                    let tools = request.provider_tools(&provider).map_err(failed)?;
                    let (events, _warnings) = whole_model_call(
                        &provider,
                        &request.messages,
                        &tools,
                        &retry_policy,
                        Some(&signal),
                        IdleLimit(Some(idle_timeout_ms)),
                    )
                    .await
                    .map_err(failed)?;
                    // A call's last count is its whole count, as in the loop.
                    let spent = events.iter().rev().find_map(|event| match event {
                        ModelEvent::Usage(usage) => Some(*usage),
                        _ => None,
                    });
                    if let (Some(tally), Some(spent)) = (tally, spent) {
                        tally.set(Some(tally.get().unwrap_or_default().plus(spent)));
                    }
                    let keys = tools.argument_keys();
                    sampling_result(&events, &provider.model, &request.tools, keys)
                        .map_err(|problem| (INTERNAL_ERROR, problem))
                })
            },
        ),
    }
}

/// Asks `approveSampling(request, { signal, server })`; a refusal is the spec's "user rejected"
/// error for the server, with the reason.
async fn approval(
    approve: &Function,
    params: &Value,
    server: &str,
    signal: &AbortSignal,
) -> Answer {
    let context = js_sys::Object::new();
    set_property(&context, "signal", signal);
    set_property(&context, "server", &JsValue::from_str(server));
    let refusals = Refusals {
        hook: "approveSampling",
        declined: "the user rejected the sampling request",
        aborted: "no longer awaited",
    };
    match approved(approve, &value_to_js(params), &context, signal, &refusals).await {
        Ok(()) => Ok(Value::Null),
        Err(why) => Err((USER_REJECTED, why)),
    }
}
