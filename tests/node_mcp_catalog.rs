#![cfg(target_arch = "wasm32")]
//! `McpClient`'s resources and prompts from JS in Node (the cases: `mcp_catalog_cases`).

#[allow(dead_code)] // the cases use part of it
mod web_mcp_common;

mod mcp_catalog_cases;
