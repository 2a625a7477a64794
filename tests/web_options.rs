#![cfg(target_arch = "wasm32")]
//! `new Agent(options)` reads its options by hand (`core::json_read`, written to keep serde's
//! derived readers out of the shipped wasm). Against derived twins with the attributes the option
//! types had: every input the twin refuses is refused with the twin's error text, and every input
//! it takes gets past the reading (a later check may still refuse it, with another message).

use std::collections::BTreeMap;

use mcp_agent_wasm::web::agent::Agent;
use serde::Deserialize;
use serde_json::{json, Value};
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

#[derive(Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[allow(dead_code)] // read only to compare errors
struct AgentOptions {
    provider: ProviderConfig,
    #[serde(default)]
    mcp_servers: Vec<ServerOptions>,
    #[serde(default)]
    max_rounds: u32,
    #[serde(default)]
    answer_after_max_rounds: bool,
    #[serde(default)]
    system_prompt: Option<String>,
    #[serde(default)]
    tool_prompt: bool,
    #[serde(default)]
    allow_insecure_local_urls: bool,
    #[serde(default)]
    tool_timeout_ms: u64,
    #[serde(default)]
    idle_timeout_ms: u64,
    #[serde(default)]
    max_tool_result_chars: usize,
    #[serde(default)]
    time_zone: Option<String>,
    #[serde(default)]
    max_concurrent_tools: Option<usize>,
    #[serde(default)]
    prompt_tool_mode: bool,
    #[serde(default)]
    tools_supported: bool,
    #[serde(default)]
    missing_id_strategy: MissingIdStrategy,
    /// Read by `ToolChoice::from_json` (its errors: tests/provider_requests.rs).
    #[serde(default)]
    tool_choice: Option<serde::de::IgnoredAny>,
    #[serde(default)]
    max_retries: u32,
    /// Read by `roots_list` (its errors: tests/mcp_session.rs).
    #[serde(default)]
    roots: Option<serde::de::IgnoredAny>,
    /// A function in JS, which JSON leaves out; only its place in the list of members matters.
    #[serde(default)]
    approve_tool_call: Option<serde::de::IgnoredAny>,
    /// Functions in JS too (tests/web_mcp_everything.rs, testing/tests/agent.test.mjs).
    #[serde(default)]
    approve_sampling: Option<serde::de::IgnoredAny>,
    #[serde(default)]
    on_elicitation: Option<serde::de::IgnoredAny>,
    #[serde(default)]
    on_notification: Option<serde::de::IgnoredAny>,
    /// Functions in JS too: read by `new Agent` from the JS object (tests/web_page_tools.rs).
    #[serde(default)]
    tools: Option<serde::de::IgnoredAny>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[allow(dead_code)]
struct ServerOptions {
    name: String,
    url: String,
    #[serde(default)]
    headers: BTreeMap<String, String>,
    #[serde(default)]
    transport: TransportMode,
    #[serde(default)]
    allowed_tools: Option<Vec<String>>,
    /// A function in JS, which JSON leaves out; only its place in the list of members matters.
    #[serde(default)]
    get_access_token: Option<serde::de::IgnoredAny>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
#[allow(dead_code)]
struct ProviderConfig {
    id: String,
    #[serde(default)]
    api_key: Option<String>,
    #[serde(default)]
    max_tokens: Option<u32>,
    #[serde(default)]
    headers: Option<BTreeMap<String, String>>,
}

#[derive(Default, Deserialize)]
#[serde(rename_all = "kebab-case")]
#[allow(dead_code)]
enum TransportMode {
    #[default]
    Auto,
    StreamableHttp,
    Sse,
}

#[derive(Default, Deserialize)]
#[serde(rename_all = "camelCase")]
#[allow(dead_code)]
enum MissingIdStrategy {
    #[default]
    Synthesize,
    ReRequestWithoutStreaming,
}

fn to_js(value: &Value) -> JsValue {
    js_sys::JSON::parse(&value.to_string()).expect("JSON.parse")
}

fn with(member: &str, value: Value) -> Value {
    let mut config =
        json!({"provider": {"id": "openai", "apiKey": "k"}, "allowInsecureLocalUrls": true});
    config[member] = value;
    config
}

#[wasm_bindgen_test]
fn options_are_refused_as_the_derived_readers_refused_them() {
    let server = |extra: Value| {
        let mut server = json!({"name": "s", "url": "http://127.0.0.1:9/mcp"});
        for (key, value) in extra.as_object().expect("an object") {
            server[key] = value.clone();
        }
        json!([server])
    };
    let inputs = [
        with("maxRounds", json!(3)),
        with("maxRounds", json!("three")),
        with("maxRounds", json!(-1)),
        with("maxRounds", json!(4294967296u64)),
        with("maxRounds", json!(2.5)),
        with("maxRounds", json!(null)),
        with("answerAfterMaxRounds", json!(false)),
        with("answerAfterMaxRounds", json!("no")),
        with("toolPrompt", json!(false)),
        with("toolPrompt", json!("no")),
        with("toolTimeoutMs", json!(1000)),
        with("toolTimeoutMs", json!(-5)),
        with("idleTimeoutMs", json!([])),
        with("maxToolResultChars", json!(4294967296u64)),
        with("maxConcurrentTools", json!(null)),
        with("maxConcurrentTools", json!(2)),
        with("maxConcurrentTools", json!("2")),
        with("systemPrompt", json!("be brief")),
        with("systemPrompt", json!(1)),
        with("timeZone", json!(false)),
        with("promptToolMode", json!(1)),
        with("toolsSupported", json!(null)),
        with("missingIdStrategy", json!("reRequestWithoutStreaming")),
        with("missingIdStrategy", json!("retry")),
        with("toolChoice", json!("required")),
        with("maxRetries", json!(0)),
        with("maxRetries", json!(-1)),
        with("maxRetries", json!("2")),
        with(
            "roots",
            json!([{"uri": "file:///home/ada/project", "name": "project"}]),
        ),
        with("maxRoundz", json!(3)),
        with("mcpServers", json!({})),
        with("mcpServers", json!(null)),
        with("mcpServers", json!([5])),
        with("mcpServers", server(json!({}))),
        with(
            "mcpServers",
            server(json!({"transport": "sse", "headers": {"x-a": "1"}})),
        ),
        with("mcpServers", server(json!({"transport": "ftp"}))),
        with("mcpServers", server(json!({"headers": {"x-a": 1}}))),
        with("mcpServers", server(json!({"headers": []}))),
        with("mcpServers", server(json!({"url": 9}))),
        with("mcpServers", server(json!({"extra": 1}))),
        with("mcpServers", server(json!({"allowedTools": ["echo"]}))),
        with("mcpServers", server(json!({"allowedTools": "echo"}))),
        with("mcpServers", server(json!({"allowedTools": [1]}))),
        with("mcpServers", server(json!({"getAccessToken": null}))),
        with("mcpServers", server(json!({"getAccessTokens": null}))),
        with("mcpServers", json!([{"name": "s"}])),
        with("mcpServers", json!([{"url": "http://127.0.0.1:9/mcp"}])),
        with("provider", json!({"id": 5})),
        with("provider", json!({"apiKey": "k"})),
        with(
            "provider",
            json!({"id": "openai", "apiKey": "k", "maxTokens": -3}),
        ),
        with(
            "provider",
            json!({"id": "openai", "apiKey": "k", "headers": {"a": true}}),
        ),
        with("provider", json!("openai")),
        json!({"maxRoundz": 1, "provider": {"id": "openai"}, "maxRounds": "x"}),
        json!({"maxRounds": "x", "maxRoundz": 1, "provider": {"id": "openai"}}),
        json!({"maxRounds": 3}),
        json!({"maxRounds": "x"}),
        json!({}),
    ];
    let mut refused = 0;
    for input in inputs {
        let twin = serde_json::from_value::<AgentOptions>(input.clone())
            .map_err(|error| error.to_string());
        let ours = Agent::new(to_js(&input)).err().map(|error| {
            let message: String = error.unchecked_ref::<js_sys::Error>().message().into();
            let code = js_sys::Reflect::get(&error, &"code".into())
                .ok()
                .and_then(|code| code.as_string())
                .unwrap_or_default();
            (code, message)
        });
        match twin {
            Err(expected) => {
                refused += 1;
                assert_eq!(
                    ours,
                    Some((
                        "invalid_config".to_owned(),
                        format!("invalid Agent config: {}{expected}", entry_label(&input))
                    )),
                    "{input}"
                );
            }
            Ok(_) => {
                let reading_failed = ours
                    .as_ref()
                    .is_some_and(|(_, message)| message.starts_with("invalid Agent config:"));
                assert!(!reading_failed, "{input}: {ours:?}");
            }
        }
    }
    assert!(refused >= 30, "only {refused} refusals compared");
}

/// How our error names the `mcpServers` entry an input's one fault is in, when it has entries:
/// its first (and only) entry.
fn entry_label(input: &Value) -> String {
    match input["mcpServers"].get(0) {
        Some(entry) => match entry["name"].as_str() {
            Some(name) => format!("MCP server `{name}`: "),
            None => "MCP server at mcpServers[0]: ".to_owned(),
        },
        None => String::new(),
    }
}

/// A name that is not a string: the derived enum readers said "expected value" (from JSON text)
/// or "expected string or map"; the names are read as strings, and the error says so.
#[wasm_bindgen_test]
fn a_name_that_is_not_a_string_is_refused_as_such() {
    let server = json!([{"name": "s", "url": "http://127.0.0.1:9/mcp", "transport": null}]);
    for (input, kind) in [
        (with("missingIdStrategy", json!(3)), "integer `3`"),
        (with("mcpServers", server), "null"),
    ] {
        let error = Agent::new(to_js(&input)).err().expect("refused");
        let message: String = error.unchecked_ref::<js_sys::Error>().message().into();
        assert_eq!(
            message,
            format!(
                "invalid Agent config: {}invalid type: {kind}, expected a string",
                entry_label(&input)
            )
        );
    }
}

/// An error about one of several MCP servers says which: by its name, also in the error's
/// `server` property, or by its place in `mcpServers` when it has none.
#[wasm_bindgen_test]
fn an_error_about_an_mcp_server_names_it() {
    let good = json!({"name": "ok", "url": "http://127.0.0.1:9/mcp"});
    let files = |extra: Value| {
        let mut files = json!({"name": "files", "url": "http://127.0.0.1:9/mcp"});
        for (key, value) in extra.as_object().expect("an object") {
            files[key] = value.clone();
        }
        json!([good, files])
    };
    let cases = [
        (
            files(json!({"url": "ftp://127.0.0.1/mcp"})),
            "mcp_url_refused",
            "MCP server `files`: ",
            Some("files"),
        ),
        (
            files(json!({"headers": {"x-key:": "v"}})),
            "mcp_invalid_header",
            "MCP server `files`: ",
            Some("files"),
        ),
        (
            files(json!({"transport": "ftp"})),
            "invalid_config",
            "invalid Agent config: MCP server `files`: unknown variant `ftp`",
            Some("files"),
        ),
        (
            json!([good, {"url": "http://127.0.0.1:9/mcp"}]),
            "invalid_config",
            "invalid Agent config: MCP server at mcpServers[1]: missing field `name`",
            None,
        ),
        (
            json!([good, good]),
            "invalid_config",
            "MCP server `ok`: another MCP server has this name",
            Some("ok"),
        ),
    ];
    for (servers, code, start, server) in cases {
        let error = Agent::new(to_js(&with("mcpServers", servers.clone())))
            .err()
            .expect("refused");
        let message: String = error.unchecked_ref::<js_sys::Error>().message().into();
        let property = |key: &str| {
            js_sys::Reflect::get(&error, &key.into())
                .ok()
                .and_then(|value| value.as_string())
        };
        assert_eq!(
            property("code").as_deref(),
            Some(code),
            "{servers}: {message}"
        );
        assert!(message.starts_with(start), "{servers}: {message}");
        assert_eq!(property("server").as_deref(), server, "{servers}");
    }
}

/// `run` and `listTools` read `signal` from their options: given a number or a string, reading a
/// member threw the engine's TypeError, which has no `code`.
#[wasm_bindgen_test]
fn options_of_run_and_list_tools_that_are_not_an_object_are_refused_with_a_code() {
    let agent = Agent::new(to_js(&with("maxRounds", json!(1)))).expect("a valid config");
    let messages = to_js(&json!([{"role": "user", "content": "hi"}]));
    for options in [JsValue::from(42), JsValue::from_str("stop")] {
        let refusals = [
            agent.run(messages.clone(), options.clone()).err(),
            agent.list_tools(options.clone()).err(),
        ];
        for refusal in refusals {
            let error = refusal.expect("refused at the call");
            let code = js_sys::Reflect::get(&error, &"code".into()).expect("readable");
            assert_eq!(
                code.as_string().as_deref(),
                Some("invalid_options"),
                "{options:?}"
            );
        }
    }
}
