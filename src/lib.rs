//! mcp-agent-wasm: an LLM tool-calling agent loop with MCP servers that runs in the browser.
//!
//! [`core`] is pure and sans-IO (bytes and values in, events and actions out); the `web` module,
//! compiled only for `wasm32`, performs the fetches the core asks for and exposes the JS API.
//! See ARCHITECTURE.md for the map and its invariants.
//!
//! The shipped build is optimised for size, except the stream decoding every token passes through
//! (SSE framing, the OpenAI chunk scanner, text merging): with `--cfg optimize_hot_paths`, which
//! only the release build on its pinned nightly sets, those functions are optimised for speed.

#![cfg_attr(optimize_hot_paths, feature(optimize_attribute))]

pub mod core;

#[cfg(target_arch = "wasm32")]
pub mod web;

/// Talc in place of std's dlmalloc: 1.1 KB gzip less in the shipped wasm, stream throughput the
/// same within noise. `new_global` requires a single-threaded module, which this one is.
#[cfg(target_arch = "wasm32")]
#[global_allocator]
static ALLOCATOR: talc::TalckWasm = unsafe { talc::TalckWasm::new_global() };
