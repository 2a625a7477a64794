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

/// The package version, as built.
#[wasm_bindgen]
pub fn version() -> String {
    env!("CARGO_PKG_VERSION").to_owned()
}
