//! JSON-RPC 2.0 messages as MCP uses them: building what the client sends, classifying what the
//! server sends, and the client's answers to server requests.

use serde_json::{Map, Value};

use super::McpError;
use crate::core::json_read::member_at;
use crate::core::json_text::object;

/// JSON-RPC "method not found": the answer to server requests this client does not support.
pub const METHOD_NOT_FOUND: i64 = -32601;
/// A request whose params the receiver refuses (an elicitation the page cannot be shown).
pub const INVALID_PARAMS: i64 = -32602;
/// The receiver failed to answer (an elicitation the page answered wrongly or not at all).
pub const INTERNAL_ERROR: i64 = -32603;

/// A request the client sends; `id` is what its response will carry.
#[derive(Debug, Clone, PartialEq)]
pub struct OutgoingRequest {
    pub id: u64,
    pub method: String,
    pub body: Value,
}

/// A request; `Value::Null` params are left out (strict servers refuse `"params": null`).
pub fn request(id: u64, method: &str, params: Value) -> OutgoingRequest {
    let body = if params.is_null() {
        object([
            ("jsonrpc", Value::from("2.0")),
            ("id", Value::from(id)),
            ("method", Value::from(method)),
        ])
    } else {
        object([
            ("jsonrpc", Value::from("2.0")),
            ("id", Value::from(id)),
            ("method", Value::from(method)),
            ("params", params),
        ])
    };
    OutgoingRequest {
        id,
        method: method.to_owned(),
        body,
    }
}

pub fn notification(method: &str, params: Option<Value>) -> Value {
    match params {
        Some(params) => object([
            ("jsonrpc", Value::from("2.0")),
            ("method", Value::from(method)),
            ("params", params),
        ]),
        None => object([
            ("jsonrpc", Value::from("2.0")),
            ("method", Value::from(method)),
        ]),
    }
}

/// `notifications/cancelled` for a request given up on (abort or timeout).
pub fn cancelled_notification(request_id: u64, reason: &str) -> Value {
    notification(
        "notifications/cancelled",
        Some(object([
            ("requestId", Value::from(request_id)),
            ("reason", Value::from(reason)),
        ])),
    )
}

/// One message from the server.
#[derive(Debug, Clone, PartialEq)]
pub enum IncomingMessage {
    Response {
        id: Value,
        outcome: Result<Value, McpError>,
    },
    Request {
        id: Value,
        method: String,
        params: Value,
    },
    Notification {
        method: String,
        params: Value,
    },
}

impl IncomingMessage {
    /// True for the response to the client's request `request_id`.
    pub fn answers(&self, request_id: u64) -> bool {
        matches!(self, IncomingMessage::Response { id, .. } if request_id_of(id) == Some(request_id))
    }
}

/// The client request an id (or progress token) from the server names: the client numbers its
/// requests, and some servers echo the number as a string (`"3"`, python-sdk#1720), which still
/// names request 3. Only the number's own spelling counts.
pub fn request_id_of(id: &Value) -> Option<u64> {
    match id {
        Value::String(text) if !text.starts_with(['+', '0']) => text.parse().ok(),
        Value::String(_) => None,
        other => other.as_u64(),
    }
}

/// Parses a JSON body or SSE `data`: one message or a batch.
pub fn parse_incoming(text: &str) -> Result<Vec<IncomingMessage>, McpError> {
    let value: Value = serde_json::from_str(text)
        .map_err(|error| McpError::InvalidMessage(format!("not JSON: {error}")))?;
    incoming_messages(value)
}

/// The messages of a parsed JSON body or SSE `data`: one message or a batch.
pub fn incoming_messages(value: Value) -> Result<Vec<IncomingMessage>, McpError> {
    match value {
        Value::Array(items) => {
            let mut messages = Vec::with_capacity(items.len());
            for item in items {
                messages.push(classify(item)?);
            }
            Ok(messages)
        }
        single => Ok(vec![classify(single)?]),
    }
}

fn classify(value: Value) -> Result<IncomingMessage, McpError> {
    let Value::Object(mut object) = value else {
        return Err(McpError::InvalidMessage(
            "a message must be a JSON object".to_owned(),
        ));
    };
    let method = object.shift_remove("method");
    let id = object.shift_remove("id");
    let params = object.shift_remove("params").unwrap_or(Value::Null);
    match (method, id) {
        (Some(Value::String(method)), Some(id)) => {
            Ok(IncomingMessage::Request { id, method, params })
        }
        (Some(Value::String(method)), None) => Ok(IncomingMessage::Notification { method, params }),
        (None, Some(id)) => Ok(IncomingMessage::Response {
            id,
            outcome: response_outcome(object),
        }),
        _ => Err(McpError::InvalidMessage(
            "neither a request, a notification nor a response".to_owned(),
        )),
    }
}

fn response_outcome(mut object: Map<String, Value>) -> Result<Value, McpError> {
    if let Some(error) = object.shift_remove("error") {
        let code = error.get("code").and_then(Value::as_i64).unwrap_or(0);
        let mut message = error
            .get("message")
            .and_then(Value::as_str)
            .unwrap_or("(no message)")
            .to_owned();
        if code == URL_ELICITATION_REQUIRED {
            name_required_urls(&mut message, error.get("data"));
        }
        return Err(McpError::JsonRpc {
            code,
            message,
            data: error.get("data").cloned(),
        });
    }
    object
        .shift_remove("result")
        .ok_or_else(|| McpError::InvalidMessage("a response without result or error".to_owned()))
}

/// The client's reply to the server request `id` it answered later (an elicitation, a sampling
/// request): the result, or an error saying why there is none.
pub fn reply_to(id: &Value, outcome: Result<Value, (i64, String)>) -> Value {
    match outcome {
        Ok(result) => answer(id, "result", result),
        Err((code, message)) => {
            let error = object([
                ("code", Value::from(code)),
                ("message", Value::String(message)),
            ]);
            answer(id, "error", error)
        }
    }
}

/// MCP 2025-11-25's "URL elicitation required": the request needs the user to open the URLs of
/// the error's `data.elicitations` first, then to send it again.
pub const URL_ELICITATION_REQUIRED: i64 = -32042;

/// Adds the URLs a "URL elicitation required" error names to its message, which is what the
/// model and the page read of it: the model can then tell the user where to go, and the user
/// ask again once done there.
fn name_required_urls(message: &mut String, data: Option<&Value>) {
    let elicitations = data.and_then(|data| data.get("elicitations"));
    let mut named = 0;
    for elicitation in elicitations
        .and_then(Value::as_array)
        .map(Vec::as_slice)
        .unwrap_or_default()
    {
        let Some(url) = elicitation.get("url").and_then(Value::as_str) else {
            continue;
        };
        message.push_str(if named == 0 {
            " (the user must first open "
        } else {
            ", then "
        });
        message.push_str(url);
        if let Some(why) = elicitation.get("message").and_then(Value::as_str) {
            message.push_str(": ");
            message.push_str(why);
        }
        named += 1;
    }
    if named > 0 {
        message.push_str("; then ask again)");
    }
}

/// The client's answer to a server request: `ping` gets an empty result; sampling, elicitation,
/// roots and anything else the client did not declare get "method not found", so that no server
/// request is ever left hanging.
pub fn answer_server_request(id: &Value, method: &str) -> Value {
    if method == "ping" {
        answer(id, "result", Value::Object(Map::new()))
    } else {
        let error = object([
            ("code", Value::from(METHOD_NOT_FOUND)),
            (
                "message",
                Value::String(format!("this client does not support `{method}`")),
            ),
        ]);
        answer(id, "error", error)
    }
}

/// The answer to request `id`: its `result` or `error` (`member`).
pub fn answer(id: &Value, member: &str, value: Value) -> Value {
    object([
        ("jsonrpc", Value::from("2.0")),
        ("id", id.clone()),
        (member, value),
    ])
}

/// The answer to a form `elicitation/create` when the client accepts every field's default: the
/// `default` of each property of `requestedSchema` (fields without one are left out). A URL-mode
/// elicitation cannot be answered without a person, so it is declined.
pub fn accept_elicitation_defaults(id: &Value, params: &Value) -> Value {
    if params.get("mode").and_then(Value::as_str) == Some("url") {
        return answer(id, "result", object([("action", Value::from("decline"))]));
    }
    let mut content = Map::new();
    if let Some(properties) =
        member_at(Some(params), "requestedSchema.properties").and_then(Value::as_object)
    {
        for (name, schema) in properties {
            if let Some(default) = schema.get("default") {
                content.insert(name.clone(), default.clone());
            }
        }
    }
    let result = object([
        ("action", Value::from("accept")),
        ("content", Value::Object(content)),
    ]);
    answer(id, "result", result)
}

/// A `notifications/progress` for one of the client's calls.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Progress {
    pub progress_token: Value,
    pub progress: f64,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub total: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
}

/// The progress a notification reports, when it is a well-formed `notifications/progress`.
pub fn progress_of(message: &IncomingMessage) -> Option<Progress> {
    let IncomingMessage::Notification { method, params } = message else {
        return None;
    };
    if method != "notifications/progress" {
        return None;
    }
    Some(Progress {
        progress_token: params.get("progressToken")?.clone(),
        progress: params.get("progress")?.as_f64()?,
        total: params.get("total").and_then(Value::as_f64),
        message: params
            .get("message")
            .and_then(Value::as_str)
            .map(str::to_owned),
    })
}
