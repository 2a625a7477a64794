//! Resources, prompts and the other server features on `McpClient`, as the MCP TypeScript
//! SDK's `Client` has them: `listResources`, `listResourceTemplates`, `readResource`,
//! `subscribeResource`, `unsubscribeResource`, `listPrompts`, `getPrompt`, `complete`,
//! `setLoggingLevel`. The
//! requests and their checks are `core::mcp::catalog`'s; replies reach JS built from the value
//! the engine's `JSON.parse` gave (`value_to_js`), as tool results do.

use std::cell::Cell;

use js_sys::Promise;
use serde_json::Value;
use wasm_bindgen::prelude::*;
use web_sys::AbortSignal;

use super::js::{request_options, JsMcpClient, RequestOptions};
use super::{CallWatch, McpClient, OnExpiredSession};
use crate::core::mcp::catalog::{
    require_capability, Catalog, EntryRequest, FeatureExchange, FeatureRequest,
};
use crate::core::mcp::McpError;
use crate::web::error::js_error;
use crate::web::json::{from_js, value_to_js};
use crate::web::promise_of;

#[wasm_bindgen(typescript_custom_section)]
const TYPESCRIPT: &str = r#"
/** What `readResource`, `getPrompt` and the listings take; `timeoutMs` is per request (each page of a listing). */
export interface McpRequestOptions {
  signal?: AbortSignal | undefined;
  /** Default: the client's 120000. */
  timeoutMs?: number | undefined;
}
/** A resource as its server listed it (`resources/list`, every page). */
export interface McpResource {
  uri: string;
  name: string;
  title?: string;
  description?: string;
  mimeType?: string;
  size?: number;
  annotations?: JsonObject;
  icons?: JsonObject[];
  _meta?: JsonObject;
}
/** A resource template (`resources/templates/list`): `uriTemplate` is an RFC 6570 URI template. */
export interface McpResourceTemplate {
  uriTemplate: string;
  name: string;
  title?: string;
  description?: string;
  mimeType?: string;
  annotations?: JsonObject;
  icons?: JsonObject[];
  _meta?: JsonObject;
}
/** One part of a resource's contents: text, or binary data as base64 in `blob`. */
export type McpResourceContents =
  | { uri: string; mimeType?: string; text: string; _meta?: JsonObject }
  | { uri: string; mimeType?: string; blob: string; _meta?: JsonObject };
/** A `resources/read` result as sent. */
export interface McpReadResourceResult {
  contents: McpResourceContents[];
  _meta?: JsonObject;
}
/** A prompt as its server listed it (`prompts/list`, every page). */
export interface McpPrompt {
  name: string;
  title?: string;
  description?: string;
  arguments?: { name: string; title?: string; description?: string; required?: boolean }[];
  icons?: JsonObject[];
  _meta?: JsonObject;
}
export interface McpPromptMessage {
  role: "user" | "assistant";
  content: ContentBlock;
}
/** The levels of `setLoggingLevel`, from the most verbose. */
export type McpLoggingLevel = "debug" | "info" | "notice" | "warning" | "error" | "critical" | "alert" | "emergency";
/** `completion/complete`'s params: the prompt or resource template, the argument being typed, and the values already chosen. */
export interface McpCompleteParams {
  ref: { type: "ref/prompt"; name: string } | { type: "ref/resource"; uri: string };
  argument: { name: string; value: string };
  context?: { arguments?: Record<string, string> };
}
/** A `completion/complete` result as sent: at most 100 `values`. */
export interface McpCompleteResult {
  completion: { values: string[]; total?: number; hasMore?: boolean };
  _meta?: JsonObject;
}
/** A `prompts/get` result as sent. */
export interface McpGetPromptResult {
  description?: string;
  messages: McpPromptMessage[];
  _meta?: JsonObject;
}
"#;

/// The listings, one exported method each, alike but for their names. Each doc is a plain
/// string: a doc comment passed through a macro would reach the TypeScript as a raw string.
macro_rules! listings {
    ($($js_name:ident, $name:ident, $returns:tt, $catalog:expr, $doc:tt;)*) => {
        #[wasm_bindgen(js_class = McpClient)]
        impl JsMcpClient {
            $(
                #[doc = $doc]
                #[wasm_bindgen(js_name = $js_name, unchecked_return_type = $returns)]
                pub fn $name(
                    &self,
                    #[wasm_bindgen(unchecked_optional_param_type = "McpRequestOptions")]
                    options: JsValue,
                ) -> Promise {
                    let feature = Ok(FeatureRequest::List($catalog));
                    feature_promise(self.client.clone(), feature, options)
                }
            )*
        }
    };
}

listings! {
    listResources, list_resources, "Promise<McpResource[]>", Catalog::Resources,
    "Every resource the server lists, page by page; rejects with `mcp_capability_missing`, sending nothing, when the server did not declare `resources`.";
    listResourceTemplates, list_resource_templates, "Promise<McpResourceTemplate[]>",
    Catalog::ResourceTemplates,
    "Every resource template the server lists; needs its `resources` capability.";
    listPrompts, list_prompts, "Promise<McpPrompt[]>", Catalog::Prompts,
    "Every prompt the server lists; needs its `prompts` capability.";
}

#[wasm_bindgen(js_class = McpClient)]
impl JsMcpClient {
    /// The contents of the resource at `uri`. A server's refusal (a resource not found)
    /// rejects with `mcp_jsonrpc_error` and the server's `code` and message.
    #[wasm_bindgen(
        js_name = readResource,
        unchecked_return_type = "Promise<McpReadResourceResult>"
    )]
    pub fn read_resource(
        &self,
        #[wasm_bindgen(unchecked_param_type = "string")] uri: JsValue,
        #[wasm_bindgen(unchecked_optional_param_type = "McpRequestOptions")] options: JsValue,
    ) -> Promise {
        let request = string_argument(&uri, "a resource's uri is a string")
            .map(|uri| FeatureRequest::Entry(EntryRequest::read_resource(&uri)));
        feature_promise(self.client.clone(), request, options)
    }

    /// The prompt `name` filled in with `args` (each a string).
    #[wasm_bindgen(js_name = getPrompt, unchecked_return_type = "Promise<McpGetPromptResult>")]
    pub fn get_prompt(
        &self,
        #[wasm_bindgen(unchecked_param_type = "string")] name: JsValue,
        #[wasm_bindgen(unchecked_optional_param_type = "Record<string, string>")] args: JsValue,
        #[wasm_bindgen(unchecked_optional_param_type = "McpRequestOptions")] options: JsValue,
    ) -> Promise {
        let request = string_argument(&name, "a prompt's name is a string").and_then(|name| {
            let arguments: Value = from_js(&args).map_err(|error| invalid_arguments(&error))?;
            let request = EntryRequest::get_prompt(&name, arguments);
            request
                .map(FeatureRequest::Entry)
                .map_err(|error| invalid_arguments(&error))
        });
        feature_promise(self.client.clone(), request, options)
    }
}

#[wasm_bindgen(js_class = McpClient)]
impl JsMcpClient {
    /// Asks the server to send `notifications/resources/updated` (to `onNotification`) when
    /// the resource at `uri` changes; needs the server's `resources.subscribe` capability.
    #[wasm_bindgen(js_name = subscribeResource, unchecked_return_type = "Promise<void>")]
    pub fn subscribe_resource(
        &self,
        #[wasm_bindgen(unchecked_param_type = "string")] uri: JsValue,
        #[wasm_bindgen(unchecked_optional_param_type = "McpRequestOptions")] options: JsValue,
    ) -> Promise {
        feature_promise(self.client.clone(), subscription(&uri, true), options)
    }

    /// Ends a subscription of `subscribeResource`.
    #[wasm_bindgen(js_name = unsubscribeResource, unchecked_return_type = "Promise<void>")]
    pub fn unsubscribe_resource(
        &self,
        #[wasm_bindgen(unchecked_param_type = "string")] uri: JsValue,
        #[wasm_bindgen(unchecked_optional_param_type = "McpRequestOptions")] options: JsValue,
    ) -> Promise {
        feature_promise(self.client.clone(), subscription(&uri, false), options)
    }

    /// Asks the server to send log messages (`notifications/message`, to `onNotification`) of
    /// `level` and above; needs the server's `logging` capability.
    #[wasm_bindgen(js_name = setLoggingLevel, unchecked_return_type = "Promise<void>")]
    pub fn set_logging_level(
        &self,
        #[wasm_bindgen(unchecked_param_type = "McpLoggingLevel")] level: JsValue,
        #[wasm_bindgen(unchecked_optional_param_type = "McpRequestOptions")] options: JsValue,
    ) -> Promise {
        let request = string_argument(&level, "the level is a string").and_then(|level| {
            EntryRequest::set_logging_level(&level)
                .map(FeatureRequest::Entry)
                .map_err(|error| invalid_arguments(&error))
        });
        feature_promise(self.client.clone(), request, options)
    }

    /// The server's suggestions for a prompt's or a resource template's argument
    /// (`completion/complete`, params as the spec has them); needs its `completions`
    /// capability.
    #[wasm_bindgen(unchecked_return_type = "Promise<McpCompleteResult>")]
    pub fn complete(
        &self,
        #[wasm_bindgen(unchecked_param_type = "McpCompleteParams")] params: JsValue,
        #[wasm_bindgen(unchecked_optional_param_type = "McpRequestOptions")] options: JsValue,
    ) -> Promise {
        let request = from_js::<Value>(&params)
            .map_err(|error| invalid_arguments(&error))
            .and_then(|params| {
                EntryRequest::complete(params)
                    .map(FeatureRequest::Entry)
                    .map_err(|error| invalid_arguments(&error))
            });
        feature_promise(self.client.clone(), request, options)
    }
}

/// `resources/subscribe` (or `unsubscribe`) of the page's `uri`.
fn subscription(uri: &JsValue, subscribe: bool) -> Result<FeatureRequest, JsValue> {
    let uri = string_argument(uri, "a resource's uri is a string")?;
    Ok(FeatureRequest::Entry(EntryRequest::resource_subscription(
        &uri, subscribe,
    )))
}

const OPTIONS_SHAPE: &str = "{ signal, timeoutMs }";

fn invalid_arguments(reason: &str) -> JsValue {
    js_error(
        "mcp_invalid_options",
        &format!("invalid arguments: {reason}"),
    )
    .into()
}

fn string_argument(value: &JsValue, refusal: &str) -> Result<String, JsValue> {
    value.as_string().ok_or_else(|| invalid_arguments(refusal))
}

/// One future for every method, so that its code is compiled once: a `feature` built from
/// arguments of the wrong type rejects, as every other failure does.
fn feature_promise(
    client: McpClient,
    feature: Result<FeatureRequest, JsValue>,
    options: JsValue,
) -> Promise {
    promise_of(async move {
        let feature = feature?;
        let answers_nothing =
            matches!(&feature, FeatureRequest::Entry(request) if request.answers_nothing());
        let RequestOptions { signal, timeout_ms } = request_options(&options, OPTIONS_SHAPE)?;
        let result = client
            .server_feature(feature, signal.as_ref(), timeout_ms)
            .await?;
        if answers_nothing {
            return Ok(JsValue::UNDEFINED);
        }
        Ok(value_to_js(&result))
    })
}

impl McpClient {
    /// A listing's every entry as a list (following `nextCursor` with the guards of
    /// `tools/list`, from the first page again if the session is renewed between pages), or a
    /// `resources/read` or `prompts/get` result as sent. Each request is sent connected, and
    /// none unless the server declared the feature's capability; abort and timeout as for a
    /// tool call.
    pub async fn server_feature(
        &self,
        feature: FeatureRequest,
        signal: Option<&AbortSignal>,
        timeout_ms: Option<u64>,
    ) -> Result<Value, McpError> {
        let mut exchange = FeatureExchange::new(feature.clone());
        let page_session = Cell::new(None);
        let mut restarts = 0;
        loop {
            self.connect_unless_aborted(signal).await?;
            let request = {
                let mut state = self.state.borrow_mut();
                let capabilities = state.session.server().map(|server| &server.capabilities);
                require_capability(capabilities, exchange.capability(), exchange.method())?;
                state
                    .session
                    .next_request(exchange.method(), exchange.params())
            };
            let timeout_ms = timeout_ms.unwrap_or(self.state.borrow().timeout_ms);
            let cursor_session = page_session.get();
            let page = OnExpiredSession::Page(&page_session);
            let result = self
                .request(request, timeout_ms, CallWatch::default(), signal, page)
                .await;
            if result.is_err() && self.restart_listing(cursor_session, &mut restarts) {
                exchange = FeatureExchange::new(feature.clone());
                page_session.set(None);
                continue;
            }
            if let Some(answer) = exchange.handle_result(result?)? {
                if let FeatureRequest::Entry(entry) = &feature {
                    self.state.borrow_mut().session_requests.accepted(entry);
                }
                return Ok(answer);
            }
        }
    }
}
