//! The web layer: the only code that touches JS. It performs the I/O the core asks for.

pub mod error;
pub mod http;
pub mod mcp;
pub mod provider;
pub mod tools_api;

use wasm_bindgen::prelude::*;

/// The package version, as built.
#[wasm_bindgen]
pub fn version() -> String {
    env!("CARGO_PKG_VERSION").to_owned()
}
