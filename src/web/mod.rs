//! The web layer: the only code that touches JS. It performs the I/O the core asks for.

pub mod agent;
pub mod channel;
pub mod error;
pub mod http;
pub mod join;
pub mod json;
pub mod mcp;
pub mod oauth;
pub mod provider;
pub mod timer;
pub mod tools_api;
mod types;

use std::cell::RefCell;
use std::future::Future;
use std::pin::Pin;

use js_sys::Promise;
use wasm_bindgen::prelude::*;

/// An options argument that may be read: an object, or left out (`undefined` or `null`).
pub(crate) fn is_options_object(options: &JsValue) -> bool {
    options.is_undefined() || options.is_null() || options.is_object()
}

thread_local! {
    /// The JS strings made by [`static_js_str`], by the address and length of their text.
    static STATIC_JS_STRINGS: RefCell<Vec<(u64, JsValue)>> = const { RefCell::new(Vec::new()) };
}

/// `text` as a JS string, made once: the crate's own texts (property keys, event types, roles)
/// recur in every event and message, and each new JS string is a crossing that decodes its
/// bytes (a run over a small body set about 75 of them, 7 % of its CPU). A `'static` text never
/// changes, so its address and length (one `u64` on wasm32) identify it; a run meets a few
/// dozen, so a list is enough.
pub fn static_js_str(text: &'static str) -> JsValue {
    let key = (text.as_ptr() as u64) << 32 | text.len() as u64;
    STATIC_JS_STRINGS.with(|made| {
        let mut made = made.borrow_mut();
        for (made_key, string) in made.iter() {
            if *made_key == key {
                return string.clone();
            }
        }
        let string = JsValue::from_str(text);
        made.push((key, string.clone()));
        string
    })
}

/// The one closure type handed to JS (timers, listeners, the run stream's callbacks, the OAuth
/// hook): each closure type brings its own call adapter to the wasm and the glue, so every one
/// takes an argument (ignored where JS passes none) and returns a value or a throw.
pub type JsCallback = Closure<dyn FnMut(JsValue) -> Result<JsValue, JsValue>>;

/// Member `name` of an options object the caller may leave out; `undefined` and `null` count as
/// absent, for the object and for the member.
pub(crate) fn option_member(options: &JsValue, name: &str) -> Result<Option<JsValue>, JsValue> {
    if options.is_undefined() || options.is_null() {
        return Ok(None);
    }
    let member = js_sys::Reflect::get(options, &JsValue::from_str(name))?;
    Ok((!member.is_undefined() && !member.is_null()).then_some(member))
}

/// The hook `options[name]` of an options object (`getAccessToken`, `onElicitation`): a function
/// or absent (`undefined`, `null`). Options that are no object have none; their reader refuses
/// them. `signature` says what the function must look like, in the message for another value.
pub(crate) fn hook_of(
    options: &JsValue,
    name: &str,
    signature: &str,
) -> Result<Option<js_sys::Function>, String> {
    if !options.is_object() {
        return Ok(None);
    }
    match option_member(options, name) {
        Ok(None) => Ok(None),
        Ok(Some(hook)) => hook
            .dyn_into::<js_sys::Function>()
            .map(Some)
            .map_err(|_| format!("`{name}` must be a function {signature}")),
        Err(_) => Err(format!("`{name}` could not be read")),
    }
}

/// A JS promise for `future`. The future is boxed, so that wasm-bindgen-futures' task and
/// promise code is compiled once for the crate, not once per future type (1.9 KB gzip for the
/// 14 places that hand a future to JS).
pub(crate) fn promise_of(
    future: impl Future<Output = Result<JsValue, JsValue>> + 'static,
) -> Promise {
    let boxed: Pin<Box<dyn Future<Output = Result<JsValue, JsValue>>>> = Box::pin(future);
    wasm_bindgen_futures::future_to_promise(boxed)
}

/// Runs `future` to its end on the JS event loop; boxed for the reason [`promise_of`] is.
pub(crate) fn spawn(future: impl Future<Output = ()> + 'static) {
    let boxed: Pin<Box<dyn Future<Output = ()>>> = Box::pin(future);
    wasm_bindgen_futures::spawn_local(boxed);
}

/// The package version, as built.
#[wasm_bindgen]
pub fn version() -> String {
    env!("CARGO_PKG_VERSION").to_owned()
}
