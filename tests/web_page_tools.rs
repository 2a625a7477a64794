#![cfg(target_arch = "wasm32")]
//! The Agent's page tools in Chromium (the cases are in page_tools_cases, shared with Node).

mod node_common;
mod page_tools_cases;

wasm_bindgen_test::wasm_bindgen_test_configure!(run_in_browser);
