#![cfg(target_arch = "wasm32")]
//! The Agent's page tools in Node (the cases are in page_tools_cases, shared with Chromium).

mod node_common;
mod page_tools_cases;
