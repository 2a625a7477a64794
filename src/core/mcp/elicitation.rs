//! Elicitation (MCP 2025-06-18 and 2025-11-25, "Client Features"): in the middle of a request a
//! server asks the user, through the client, for a few values (form mode) or to open a URL (URL
//! mode). The page answers through its `onElicitation`; this module checks the server's request
//! before the page sees it and the page's answer before the server does, so that neither side
//! gets a malformed message from the other.

use serde_json::{Map, Value};

use crate::core::json_text::{object, to_json_text};
use crate::core::tools::validate_arguments;

/// The request as the page gets it: the server's `params` with `mode` always written (`form`
/// when the server left it out, as servers of 2025-06-18 do). A request the page could not
/// answer is refused with an `invalid params` message for the server.
pub fn elicitation_request(params: &Value) -> Result<Value, String> {
    let Some(members) = params.as_object() else {
        return Err("elicitation/create params must be an object".to_owned());
    };
    let mode = match members.get("mode") {
        None => "form",
        Some(Value::String(mode)) if mode == "form" || mode == "url" => mode,
        // As compact JSON text: `Value`'s `Display` would bring a second JSON writer (and a
        // pretty one) into the wasm for this message alone.
        Some(other) => {
            return Err(format!("unknown elicitation mode {}", to_json_text(other)));
        }
    };
    let required: &[&str] = if mode == "form" {
        &["message"]
    } else {
        &["message", "url", "elicitationId"]
    };
    for name in required {
        if !members.get(*name).is_some_and(Value::is_string) {
            return Err(format!("{mode} elicitation without a string `{name}`"));
        }
    }
    if mode == "form" {
        let schema = members.get("requestedSchema");
        let properties = schema.and_then(|schema| schema.get("properties"));
        if !properties.is_some_and(Value::is_object) {
            return Err(
                "form elicitation without a `requestedSchema` with `properties`".to_owned(),
            );
        }
    }
    let mut request = members.clone();
    request.insert("mode".to_owned(), Value::String(mode.to_owned()));
    Ok(Value::Object(request))
}

/// The `result` for the server from the page's `answer` to `request` (as
/// [`elicitation_request`] gave it): `action` one of `accept`, `decline`, `cancel`; for an
/// accepted form, `content` (`{}` when left out) with string, number, boolean or string-array
/// values that `requestedSchema` accepts (MCP: clients validate the content they send).
/// `content` is dropped from other answers, which carry none.
pub fn elicitation_result(request: &Value, answer: &Value) -> Result<Value, String> {
    let action = match answer.get("action") {
        Some(Value::String(action))
            if ["accept", "decline", "cancel"].contains(&action.as_str()) =>
        {
            action
        }
        _ => {
            return Err(
                "the answer's `action` must be \"accept\", \"decline\" or \"cancel\"".to_owned(),
            )
        }
    };
    if action != "accept" || request["mode"] != "form" {
        return Ok(object([("action", Value::String(action.clone()))]));
    }
    let content = match answer.get("content") {
        None | Some(Value::Null) => Map::new(),
        Some(Value::Object(content)) => content.clone(),
        Some(_) => return Err("the answer's `content` must be an object".to_owned()),
    };
    for (name, value) in &content {
        let allowed = match value {
            Value::String(_) | Value::Number(_) | Value::Bool(_) => true,
            Value::Array(items) => items.iter().all(Value::is_string),
            _ => false,
        };
        if !allowed {
            return Err(format!(
                "`content.{name}` must be a string, a number, a boolean or an array of strings"
            ));
        }
    }
    let content = Value::Object(content);
    let problems = validate_arguments(&request["requestedSchema"], &content);
    if let Some(first) = problems.first() {
        let place = if first.path.is_empty() {
            "`content`".to_owned()
        } else {
            format!("field `{}`", first.path)
        };
        return Err(format!(
            "the answer does not match `requestedSchema`: {place}: {}",
            first.message
        ));
    }
    Ok(object([
        ("action", Value::String(action.clone())),
        ("content", content),
    ]))
}
