//! Helpers shared by the MCP browser tests: server URLs, the test server's log, fetch stubbing.

use js_sys::{Array, Function, Reflect};
use mcp_agent_wasm::core::mcp::session::TransportMode;
use mcp_agent_wasm::web::mcp::{McpClient, McpServerConfig};
use serde_json::Value;
use wasm_bindgen::JsValue;

/// A server URL handed over at compile time by the test command (`cargo xtask`), which starts
/// the servers on free 127.0.0.1 ports first.
pub fn server_url(name: &str, value: Option<&'static str>) -> &'static str {
    value.unwrap_or_else(|| {
        panic!("{name} was not set at compile time: run the browser tests through the xtask")
    })
}

pub fn test_server() -> &'static str {
    server_url("MCP_TEST_SERVER_URL", option_env!("MCP_TEST_SERVER_URL")).trim_end_matches('/')
}

/// `path` made unique to this run (`/mode/rest` becomes `/mode/run<time>/rest`), so that a test
/// reads only its own traffic even from a server that served earlier runs.
pub fn run_path(path: &str) -> String {
    thread_local!(static RUN: String = format!("run{}", js_sys::Date::now() as u64));
    let trimmed = path.trim_start_matches('/');
    let (mode, rest) = trimmed.split_once('/').unwrap_or((trimmed, ""));
    RUN.with(|run| format!("/{mode}/{run}/{rest}"))
}

/// A client for `path` (see [`run_path`]) on the project's test server (loopback, so the
/// opt-in is needed).
pub fn test_client(path: &str, transport: TransportMode) -> McpClient {
    client_for(&format!("{}{}", test_server(), run_path(path)), transport)
}

pub fn client_for(url: &str, transport: TransportMode) -> McpClient {
    let mut config = McpServerConfig::new(url);
    config.transport = transport;
    config.allow_insecure_local_urls = true;
    McpClient::new(config).expect("loopback URLs pass with the opt-in")
}

/// What the test server received in this run on paths starting with `prefix`.
pub async fn server_log(prefix: &str) -> Vec<Value> {
    match test_server_report("__log", prefix).await {
        Value::Array(entries) => entries,
        other => panic!("the log is not a list: {other}"),
    }
}

/// The JSON the test server answers on one of its own routes (`__log`, `__legacy-open`) about
/// this run's paths starting with `prefix`.
pub async fn test_server_report(route: &str, prefix: &str) -> Value {
    let url = format!("{}/{route}?path={}", test_server(), run_path(prefix));
    let request = mcp_agent_wasm::web::http::HttpRequest {
        method: "GET",
        url: &url,
        ..Default::default()
    };
    let mut response = mcp_agent_wasm::web::http::fetch(&request, None)
        .await
        .unwrap_or_else(|_| panic!("the test server answers /{route}"));
    let text = response.text().await.expect("a body");
    serde_json::from_str(&text).expect("the test server answers JSON")
}

/// The JSON-RPC methods of the POSTs in a log, in order.
pub fn posted_methods(log: &[Value]) -> Vec<String> {
    log.iter()
        .filter(|entry| entry["method"] == "POST")
        .map(|entry| {
            entry["body"]["method"]
                .as_str()
                .unwrap_or("(response)")
                .to_owned()
        })
        .collect()
}

/// Replaces `globalThis.fetch` with a stub that records each URL and fails, so that a policy
/// regression fails a test instead of connecting anywhere. Dropping it restores `fetch`.
pub struct FetchStub {
    original: JsValue,
    calls: Array,
}

impl FetchStub {
    pub fn install() -> Self {
        let global = js_sys::global();
        let original = Reflect::get(&global, &"fetch".into()).expect("fetch exists");
        let calls = Array::new();
        let stub = Function::new_with_args(
            "input",
            "this.calls.push(String((input && input.url) || input)); \
             return Promise.reject(new TypeError('fetch is stubbed in this test'));",
        );
        let context = js_sys::Object::new();
        Reflect::set(&context, &"calls".into(), &calls).expect("plain object");
        let bound = stub.bind0(&context);
        Reflect::set(&global, &"fetch".into(), &bound).expect("fetch is writable");
        FetchStub { original, calls }
    }

    pub fn calls(&self) -> Vec<String> {
        self.calls
            .iter()
            .map(|call| call.as_string().unwrap_or_default())
            .collect()
    }
}

impl Drop for FetchStub {
    fn drop(&mut self) {
        let _ = Reflect::set(&js_sys::global(), &"fetch".into(), &self.original);
    }
}

/// Waits `milliseconds` on the JS timer (tests that let a server or a session move on).
pub async fn sleep_ms(milliseconds: i32) {
    let promise = js_sys::Promise::new(&mut |resolve, _| {
        let set_timeout: Function = Reflect::get(&js_sys::global(), &"setTimeout".into())
            .expect("setTimeout exists")
            .into();
        set_timeout
            .call2(&JsValue::NULL, &resolve, &milliseconds.into())
            .expect("setTimeout accepts a function");
    });
    wasm_bindgen_futures::JsFuture::from(promise)
        .await
        .expect("a timer resolves");
}
