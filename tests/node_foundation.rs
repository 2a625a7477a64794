#![cfg(target_arch = "wasm32")]
//! The package runs in Node too (no `window`): the global `fetch` binding and the exports work there.

use mcp_agent_wasm::web::http::{fetch, HttpRequest};
use wasm_bindgen_test::*;

const STREAM_SERVER_URL: Option<&str> = option_env!("STREAM_SERVER_URL");

#[wasm_bindgen_test]
fn version_matches_the_crate() {
    assert_eq!(mcp_agent_wasm::web::version(), env!("CARGO_PKG_VERSION"));
}

#[wasm_bindgen_test]
async fn global_fetch_streams_in_node() {
    let base = STREAM_SERVER_URL.expect("STREAM_SERVER_URL is set by `cargo xtask test`");
    let url = format!("{base}/chunks?count=3&delayMs=20");
    let request = HttpRequest {
        method: "GET",
        url: &url,
        ..HttpRequest::default()
    };
    let mut response = fetch(&request, None).await.expect("response");
    assert_eq!(
        response.text().await.expect("body"),
        "chunk 0\nchunk 1\nchunk 2\n"
    );
}
