//! The one conversion from Rust errors to JS: an `Error` whose `code` property is a stable string.

use wasm_bindgen::{JsCast, JsValue};

use super::static_js_str;

/// Builds a JS `Error` with `message`, a stable `code`, and optional extra properties.
pub fn js_error(code: &str, message: &str) -> js_sys::Error {
    let error = js_sys::Error::new(message);
    set_property(&error, "code", &JsValue::from_str(code));
    error
}

/// Sets `key` on a JS object (errors' `code`, `status`, `messages`, and every object the crate
/// builds member by member); the key's JS string is made once.
pub fn set_property(target: &JsValue, key: &'static str, value: &JsValue) {
    // Reflect.set only fails on frozen objects, which these never are.
    let _ = js_sys::Reflect::set(target, &static_js_str(key), value);
}

/// The `name` of a thrown JS value (`"AbortError"`, `"TypeError"`, …), if it is an object.
pub fn js_error_name(value: &JsValue) -> Option<String> {
    value
        .dyn_ref::<js_sys::Error>()
        .map(|error| String::from(error.name()))
        .or_else(|| {
            js_sys::Reflect::get(value, &JsValue::from_str("name"))
                .ok()
                .and_then(|name| name.as_string())
        })
}

/// The message of a thrown JS value, for wrapping it in one of our errors: an `Error`'s message,
/// a string, the string `message` of an error from another realm (an iframe's, a test runner's
/// `vm` context: not `instanceof Error` here, and JSON would write it as `{}`), other values as
/// JSON (`42`, `{"code":1}`), and what JSON cannot write by its type.
pub fn js_error_message(value: &JsValue) -> String {
    value
        .dyn_ref::<js_sys::Error>()
        .map(|error| String::from(error.message()))
        .or_else(|| value.as_string())
        .or_else(|| {
            value
                .is_object()
                .then(|| js_sys::Reflect::get(value, &JsValue::from_str("message")).ok())
                .flatten()
                .and_then(|message| message.as_string())
        })
        .or_else(|| {
            js_sys::JSON::stringify(value)
                .ok()
                .and_then(|text| text.as_string())
        })
        .unwrap_or_else(|| value.js_typeof().as_string().unwrap_or_default())
}
