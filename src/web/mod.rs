//! The web layer: the only code that touches JS. It performs the I/O the core asks for.

pub mod agent;
pub mod error;
pub mod http;
pub mod join;
pub mod json;
pub mod mcp;
pub mod provider;
pub mod timer;
pub mod tools_api;
mod types;

use wasm_bindgen::prelude::*;

/// Member `name` of an options object the caller may leave out; `undefined` and `null` count as
/// absent, for the object and for the member.
pub(crate) fn option_member(options: &JsValue, name: &str) -> Result<Option<JsValue>, JsValue> {
    if options.is_undefined() || options.is_null() {
        return Ok(None);
    }
    let member = js_sys::Reflect::get(options, &JsValue::from_str(name))?;
    Ok((!member.is_undefined() && !member.is_null()).then_some(member))
}

/// The package version, as built.
#[wasm_bindgen]
pub fn version() -> String {
    env!("CARGO_PKG_VERSION").to_owned()
}
