//! Helpers shared by the Node tests: the servers the test command starts, and reading a run.

// Each test target compiles this module and uses only part of it.
#![allow(dead_code)]

use js_sys::Reflect;
use mcp_agent_wasm::web::agent::Agent;
use mcp_agent_wasm::web::http::{fetch, HttpRequest};
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_futures::JsFuture;
use web_sys::{ReadableStream, ReadableStreamDefaultReader};

fn server(url: Option<&'static str>, variable: &str) -> &'static str {
    url.filter(|url| !url.is_empty())
        .unwrap_or_else(|| panic!("{variable} is set by `cargo xtask test`"))
}

pub fn provider_server() -> &'static str {
    server(option_env!("PROVIDER_SERVER_URL"), "PROVIDER_SERVER_URL")
}

pub fn mcp_test_server() -> &'static str {
    server(option_env!("MCP_TEST_SERVER_URL"), "MCP_TEST_SERVER_URL")
}

/// Scripts the provider server's next model calls (`{"rounds": [...]}`, see
/// testing/provider-server.mjs); fails the test when the server refuses the script.
pub async fn script_provider(script: &serde_json::Value) {
    let body = script.to_string();
    let headers = [("content-type".to_owned(), "application/json".to_owned())];
    let request = HttpRequest {
        method: "POST",
        url: &format!("{}/__script", provider_server()),
        headers: &headers,
        body: Some(&body),
    };
    let mut response = fetch(&request, None).await.expect("script posted");
    let status = response.status;
    assert_eq!(status, 200, "{}", response.text().await.unwrap_or_default());
}

/// The bodies of the model calls the provider server recorded for `tag` (which a test's
/// provider `baseUrl` carries, see testing/provider-server.mjs), in the order they came.
pub async fn recorded_requests(tag: &str) -> Vec<serde_json::Value> {
    let url = format!("{}/__requests", provider_server());
    let request = HttpRequest {
        method: "GET",
        url: &url,
        headers: &[],
        body: None,
    };
    let mut response = fetch(&request, None).await.expect("records");
    let text = response.text().await.expect("text");
    let all: Vec<serde_json::Value> = serde_json::from_str(&text).expect("JSON");
    let marker = format!("tag%3D{tag}%26");
    all.into_iter()
        .filter(|record| record["url"].as_str().unwrap_or_default().contains(&marker))
        .map(|record| record["json"].clone())
        .collect()
}

/// Reads a run of one user message to its end, handing each event to `on_event` with its type;
/// returns the last event's type, or the error the stream ended with.
pub async fn read_run(
    agent: &Agent,
    mut on_event: impl FnMut(&str, &JsValue),
) -> Result<String, JsValue> {
    let messages = js_sys::JSON::parse(r#"[{"role":"user","content":"go"}]"#).unwrap();
    let stream: ReadableStream = agent
        .run(messages, JsValue::UNDEFINED)
        .unwrap()
        .unchecked_into();
    let reader: ReadableStreamDefaultReader = stream.get_reader().unchecked_into();
    let mut last_type = String::new();
    loop {
        let read = JsFuture::from(reader.read()).await?;
        if Reflect::get(&read, &"done".into()).unwrap().is_truthy() {
            return Ok(last_type);
        }
        let event = Reflect::get(&read, &"value".into()).unwrap();
        last_type = Reflect::get(&event, &"type".into())
            .unwrap()
            .as_string()
            .unwrap();
        on_event(&last_type, &event);
    }
}
