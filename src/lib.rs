//! mcp-agent-wasm: an LLM tool-calling agent loop with MCP servers that runs in the browser.
//!
//! [`core`] is pure and sans-IO (bytes and values in, events and actions out); the `web` module,
//! compiled only for `wasm32`, performs the fetches the core asks for and exposes the JS API.
//! See ARCHITECTURE.md for the map and its invariants.

pub mod core;

#[cfg(target_arch = "wasm32")]
pub mod web;
