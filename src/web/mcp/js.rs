//! The MCP client as a JS class, for pages that talk to one server directly (listing a server's
//! tools in a settings screen) and for the conformance harness's Node entry.

use std::cell::RefCell;
use std::rc::Rc;

use js_sys::Promise;
use serde_json::Value;
use wasm_bindgen::prelude::*;
use web_sys::AbortSignal;

use super::{
    elicitation_hook_of, has_authorization_header, notification_hook_of, token_hook_of, McpClient,
    McpServerConfig, HOOK_AND_HEADER,
};
use crate::core::json_read::{
    boolean, header_list, known_member, named, object, string, ReadError,
};
use crate::core::mcp::jsonrpc::Progress;
use crate::core::mcp::session::{roots_list, TransportMode, DEFAULT_CALL_TIMEOUT_MS};
use crate::core::mcp::tools::check_structured_content;
use crate::core::mcp::McpError;
use crate::core::tools::McpTool;
use crate::web::error::{js_error, set_property};
use crate::web::json::{from_js, set_tool_result_members, value_to_js};
use crate::web::{is_options_object, option_member, promise_of};

#[wasm_bindgen(typescript_custom_section)]
const TYPESCRIPT: &str = r#"
export interface McpClientOptions {
  url: string;
  headers?: Record<string, string> | undefined;
  transport?: "auto" | "streamable-http" | "sse" | undefined;
  allowInsecureLocalUrls?: boolean | undefined;
  /** Accept form elicitations with the schema's defaults instead of refusing them (unattended use). */
  acceptElicitationDefaults?: boolean | undefined;
  /** Answers the server's elicitations, form and URL mode (declares both); not with `acceptElicitationDefaults`. */
  onElicitation?: OnElicitation | undefined;
  /** The bearer token of each session, and a new one after a 401 (or a 403 insufficient_scope). */
  getAccessToken?: GetAccessToken | undefined;
  /** Told each notification the server sends but progress (logging, resource updates, …). */
  onNotification?: OnNotification | undefined;
  /** The roots a server may work in (MCP "Roots"), sent to its `roots/list`; declares `roots`. */
  roots?: McpRoot[] | undefined;
}
/** A root: a `file://` URI (the spec allows no other), and a name to show. */
export interface McpRoot {
  uri: string;
  name?: string;
}
/** A server notification as sent: `notifications/message` (logging), `notifications/resources/updated`, … */
export interface McpNotification {
  method: string;
  params?: JsonObject;
}
/** Told each server notification but progress; `server` is the Agent's name for the server. What it returns or throws is ignored. */
export type OnNotification = (notification: McpNotification, context: { server?: string }) => void;
/** What `getAccessToken` is told: why it is asked, and the server's challenge after a refusal. */
export interface AccessTokenContext {
  /** The server URL as configured. */
  url: string;
  /** `connect`: before a session's initialize; `unauthorized`: the server refused the token. */
  reason: "connect" | "unauthorized";
  /** The challenge's `resource_metadata` (RFC 9728): where the page's OAuth flow starts. */
  resourceMetadataUrl?: string;
  scope?: string;
  /** `invalid_token`, `insufficient_scope`, … */
  error?: string;
  /** Aborted when the request it is asked for is given up (aborted, timed out, client closed). */
  signal: AbortSignal;
}
/** Returns the token sent as `Authorization: Bearer <token>`; null or undefined sends none. */
export type GetAccessToken = (context: AccessTokenContext) => string | null | undefined | Promise<string | null | undefined>;
/** A tool as its server listed it (`tools/list`, every page). */
export interface McpTool {
  name: string;
  title?: string;
  description?: string;
  /** As the server sent it: a JSON Schema object, or null when the entry had none. */
  inputSchema: JsonValue;
  outputSchema?: JsonValue;
  annotations?: JsonObject;
  /** `{ taskSupport }` (MCP 2025-11-25); a tool whose `taskSupport` is `"required"` runs only as a task, which this client does not implement: `callTool` refuses it (`mcp_task_required`) and an Agent does not offer it. */
  execution?: JsonObject;
}
/** A `tools/call` result: what a model reads and what a UI shows. */
export interface McpToolResult {
  /** The text parts; structured content as JSON text when there is none; binary blocks by reference. */
  modelText: string;
  /** Every content block as the server sent it. */
  blocks: ContentBlock[];
  structuredContent?: JsonValue;
  /** The tool reported failure (the result is still a result, not a thrown error). */
  isError: boolean;
}
export interface McpCallOptions {
  onProgress?: ((progress: { progressToken: unknown; progress: number; total?: number; message?: string }) => void) | undefined;
  signal?: AbortSignal | undefined;
  /** Per call, restarted by each progress notification. Default 120000. */
  timeoutMs?: number | undefined;
}
"#;

const CLIENT_OPTIONS: &[&str] = &[
    "url",
    "headers",
    "transport",
    "allowInsecureLocalUrls",
    "acceptElicitationDefaults",
    "roots",
    // Functions, which JSON leaves out: read from the JS object by the constructor.
    "getAccessToken",
    "onElicitation",
    "onNotification",
];

/// `new McpClient(options)` read by hand (`core::json_read`), with serde's error texts; other
/// members are refused, as a misspelt one (`header`) would otherwise leave its setting out.
fn client_options(value: Value) -> Result<McpServerConfig, ReadError> {
    let mut url = None;
    let mut headers = Vec::new();
    let mut transport = TransportMode::default();
    let (mut allow_insecure_local_urls, mut accept_elicitation_defaults) = (false, false);
    let mut roots = None;
    for (key, value) in object(value, "struct ClientOptions")? {
        known_member(&key, CLIENT_OPTIONS)?;
        match key.as_str() {
            "url" => url = Some(string(value)?),
            "headers" => headers = header_list(value)?,
            "transport" => transport = named(value, TransportMode::NAMES, &TransportMode::ALL)?,
            "allowInsecureLocalUrls" => allow_insecure_local_urls = boolean(value)?,
            "acceptElicitationDefaults" => accept_elicitation_defaults = boolean(value)?,
            "roots" => roots = Some(roots_list(value).map_err(serde::de::Error::custom)?),
            // Here only when not functions, which the constructor refuses.
            "getAccessToken" | "onElicitation" | "onNotification" => {}
            _ => {} // refused by `known_member` above
        }
    }
    Ok(McpServerConfig {
        url: url.ok_or_else(|| serde::de::Error::missing_field("url"))?,
        headers,
        transport,
        allow_insecure_local_urls,
        accept_elicitation_defaults,
        on_elicitation: None,
        sampler: None,
        on_notification: None,
        roots,
        name: None,
        timeout_ms: DEFAULT_CALL_TIMEOUT_MS,
        get_access_token: None,
    })
}

fn options_error(error: impl std::fmt::Display) -> JsValue {
    js_error("mcp_invalid_options", &format!("invalid options: {error}")).into()
}

/// One MCP server's client (`new McpClient({ url, headers, transport, allowInsecureLocalUrls })`).
#[wasm_bindgen(js_name = McpClient)]
pub struct JsMcpClient {
    pub(super) client: McpClient,
    /// The tools of the latest `listTools()`, whose `outputSchema`s `callTool` checks results
    /// against, as the TypeScript SDK's client does with those of its latest listing.
    listed: Rc<RefCell<Rc<[McpTool]>>>,
}

#[wasm_bindgen(js_class = McpClient)]
impl JsMcpClient {
    /// Throws `mcp_url_refused` for a URL the policy refuses, before any request.
    #[wasm_bindgen(constructor)]
    pub fn new(
        #[wasm_bindgen(unchecked_param_type = "McpClientOptions")] options: JsValue,
    ) -> Result<JsMcpClient, JsValue> {
        let get_access_token = token_hook_of(&options).map_err(options_error)?;
        let on_elicitation = elicitation_hook_of(&options).map_err(options_error)?;
        let on_notification = notification_hook_of(&options).map_err(options_error)?;
        let options: Value = from_js(&options).map_err(options_error)?;
        let mut config = client_options(options).map_err(options_error)?;
        if get_access_token.is_some() && has_authorization_header(&config.headers) {
            return Err(options_error(HOOK_AND_HEADER));
        }
        if on_elicitation.is_some() && config.accept_elicitation_defaults {
            return Err(options_error(
                "`onElicitation` and `acceptElicitationDefaults` both answer elicitations: give one",
            ));
        }
        config.get_access_token = get_access_token;
        config.on_elicitation = on_elicitation;
        config.on_notification = on_notification;
        let client = McpClient::new(config)?;
        Ok(JsMcpClient {
            client,
            listed: Rc::default(),
        })
    }

    #[wasm_bindgen(unchecked_return_type = "Promise<void>")]
    pub fn connect(&self) -> Promise {
        let client = self.client.clone();
        promise_of(async move {
            client.connect().await?;
            Ok(JsValue::UNDEFINED)
        })
    }

    #[wasm_bindgen(js_name = listTools, unchecked_return_type = "Promise<McpTool[]>")]
    pub fn list_tools(&self) -> Promise {
        let (client, listed) = (self.client.clone(), self.listed.clone());
        promise_of(async move {
            let tools = client.list_tools().await?;
            *listed.borrow_mut() = tools.clone();
            Ok(tools_to_js(&tools))
        })
    }

    /// Calls `name` with `args` (`{}` when left out). A tool's own failure resolves with
    /// `isError: true`; a protocol, network or timeout failure rejects with a coded error, and
    /// so does a result that breaks the `outputSchema` of the latest `listTools()`.
    #[wasm_bindgen(js_name = callTool, unchecked_return_type = "Promise<McpToolResult>")]
    pub fn call_tool(
        &self,
        name: String,
        #[wasm_bindgen(unchecked_optional_param_type = "JsonObject")] args: JsValue,
        #[wasm_bindgen(unchecked_optional_param_type = "McpCallOptions")] options: JsValue,
    ) -> Promise {
        let (client, listed) = (self.client.clone(), self.listed.clone());
        promise_of(async move { call_tool(&client, &listed, &name, &args, &options).await })
    }

    #[wasm_bindgen(unchecked_return_type = "Promise<void>")]
    pub fn close(&self) -> Promise {
        let client = self.client.clone();
        promise_of(async move {
            client.close().await;
            Ok(JsValue::UNDEFINED)
        })
    }
}

/// The options every request takes: `{ signal, timeoutMs }`.
/// `{ progressToken, progress, total?, message? }` for `onProgress`, built in JS member by
/// member like the listing below. The numbers are finite: `progress_of` read them from JSON.
fn progress_to_js(progress: &Progress) -> JsValue {
    let object = js_sys::Object::new();
    set_property(
        &object,
        "progressToken",
        &value_to_js(&progress.progress_token),
    );
    set_property(&object, "progress", &JsValue::from_f64(progress.progress));
    if let Some(total) = progress.total {
        set_property(&object, "total", &JsValue::from_f64(total));
    }
    if let Some(message) = &progress.message {
        set_property(&object, "message", &JsValue::from_str(message));
    }
    object.into()
}

/// The tools as listed (`McpTool` in the TypeScript), built in JS member by member rather than
/// serialized and parsed: a type serialized for this alone costs the wasm its serializer.
fn tools_to_js(tools: &[McpTool]) -> JsValue {
    let listed = js_sys::Array::new();
    for tool in tools {
        let object = js_sys::Object::new();
        set_property(&object, "name", &JsValue::from_str(&tool.name));
        let texts = [("title", &tool.title), ("description", &tool.description)];
        for (key, text) in texts {
            if let Some(text) = text {
                set_property(&object, key, &JsValue::from_str(text));
            }
        }
        set_property(&object, "inputSchema", &value_to_js(&tool.input_schema));
        let values = [
            ("outputSchema", &tool.output_schema),
            ("annotations", &tool.annotations),
            ("execution", &tool.execution),
        ];
        for (key, value) in values {
            if let Some(value) = value {
                set_property(&object, key, &value_to_js(value));
            }
        }
        listed.push(&object);
    }
    listed.into()
}

pub(super) struct RequestOptions {
    pub signal: Option<AbortSignal>,
    pub timeout_ms: Option<u64>,
}

/// Reads `{ signal, timeoutMs }` out of a method's options (`shape` names every member the method
/// takes, for the error); a member whose getter throws counts as absent.
pub(super) fn request_options(options: &JsValue, shape: &str) -> Result<RequestOptions, JsValue> {
    if !is_options_object(options) {
        return Err(options_error(format!(
            "the options are an object such as {shape}"
        )));
    }
    let field = |name: &str| option_member(options, name).ok().flatten();
    let signal = field("signal")
        .map(|value| value.dyn_into::<AbortSignal>())
        .transpose()
        .map_err(|_| options_error("`signal` must be an AbortSignal"))?;
    let timeout_ms = match field("timeoutMs").map(|value| value.as_f64()) {
        None => None,
        Some(Some(ms)) if ms.is_finite() && ms >= 0.0 => Some(ms as u64),
        Some(_) => {
            return Err(options_error(
                "`timeoutMs` must be a number of milliseconds, 0 or more",
            ))
        }
    };
    Ok(RequestOptions { signal, timeout_ms })
}

/// `McpClient.callTool`: every failure, bad arguments and options included, rejects the promise.
/// A tool missing from `listed` (never listed, or not since the latest listing) is not checked;
/// one it shows running only as a task is refused before anything is sent.
async fn call_tool(
    client: &McpClient,
    listed: &RefCell<Rc<[McpTool]>>,
    name: &str,
    args: &JsValue,
    options: &JsValue,
) -> Result<JsValue, JsValue> {
    let arguments: Value = if args.is_undefined() || args.is_null() {
        Value::Object(Default::default())
    } else {
        from_js(args).map_err(|error| {
            js_error(
                "mcp_invalid_options",
                &format!("invalid arguments: {error}"),
            )
        })?
    };
    // MCP's `arguments` is an object; a server would refuse anything else after a round trip.
    if !arguments.is_object() {
        return Err(js_error(
            "mcp_invalid_options",
            "invalid arguments: a tool's arguments are an object of named values",
        )
        .into());
    }
    let RequestOptions { signal, timeout_ms } =
        request_options(options, "{ signal, timeoutMs, onProgress }")?;
    let on_progress = option_member(options, "onProgress")
        .ok()
        .flatten()
        .map(|value| value.dyn_into::<js_sys::Function>())
        .transpose()
        .map_err(|_| options_error("`onProgress` must be a function"))?;
    let report = |progress: &Progress| {
        if let Some(callback) = &on_progress {
            let _ = callback.call1(&JsValue::NULL, &progress_to_js(progress));
        }
    };
    let tools = listed.borrow().clone();
    let tool = tools.iter().find(|tool| tool.name == name);
    if tool.is_some_and(McpTool::runs_only_as_task) {
        return Err(McpError::TaskRequired(name.to_owned()).into());
    }
    let result = client
        .call_tool(name, arguments, Some(&report), signal.as_ref(), timeout_ms)
        .await?;
    let output_schema = tool.and_then(|tool| tool.output_schema.as_ref());
    check_structured_content(name, output_schema, &result)?;
    let object = js_sys::Object::new();
    set_property(&object, "modelText", &JsValue::from_str(&result.model_text));
    let structured_content = result.structured_content.as_ref();
    set_tool_result_members(
        &object,
        "blocks",
        &result.blocks,
        structured_content,
        result.is_error,
    );
    Ok(object.into())
}
