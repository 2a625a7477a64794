#![cfg(not(target_arch = "wasm32"))]
//! The hand-written readers of a provider's settings (`ProviderConfig::from_json`, written to keep
//! serde's derived reader out of the shipped wasm) and of an `mcpServers` entry against derived
//! twins with the attributes the types had: the same settings or the same error text, read from
//! JSON text and from a `Value` (an entry only from a `Value`, as `new Agent` reads it).

use std::collections::BTreeMap;

use mcp_agent_wasm::core::mcp::server_options::server_options;
use mcp_agent_wasm::core::provider::ProviderConfig;
use serde::Deserialize;
use serde_json::{json, Value};

#[derive(Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct Twin {
    id: String,
    #[serde(default)]
    api_key: Option<String>,
    #[serde(default)]
    model: Option<String>,
    #[serde(default)]
    base_url: Option<String>,
    #[serde(default)]
    temperature: Option<f64>,
    #[serde(default)]
    max_tokens: Option<u32>,
    #[serde(default)]
    headers: Option<BTreeMap<String, String>>,
    #[serde(default)]
    project_id: Option<String>,
    #[serde(default)]
    api_version: Option<String>,
    #[serde(default)]
    thinking_budget: Option<u32>,
    #[serde(default)]
    iam_url: Option<String>,
    #[serde(default)]
    extra_body: Option<serde_json::Map<String, serde_json::Value>>,
}

impl From<Twin> for ProviderConfig {
    fn from(twin: Twin) -> Self {
        ProviderConfig {
            id: twin.id,
            api_key: twin.api_key,
            model: twin.model,
            base_url: twin.base_url,
            temperature: twin.temperature,
            max_tokens: twin.max_tokens,
            headers: twin.headers.map(|headers| headers.into_iter().collect()),
            project_id: twin.project_id,
            api_version: twin.api_version,
            thinking_budget: twin.thinking_budget,
            iam_url: twin.iam_url,
            extra_body: twin.extra_body,
        }
    }
}

fn without_position(error: serde_json::Error) -> String {
    let text = error.to_string();
    match text.rfind(" at line ") {
        Some(position) => text[..position].to_owned(),
        None => text,
    }
}

/// From JSON text and from a `Value`: the settings, or the error without its position.
fn read_both_ways<T: for<'de> Deserialize<'de> + Into<ProviderConfig>>(
    input: &str,
) -> [Result<ProviderConfig, String>; 2] {
    let value: Value = serde_json::from_str(input).expect("test inputs are JSON");
    [
        serde_json::from_str::<T>(input)
            .map(Into::into)
            .map_err(without_position),
        serde_json::from_value::<T>(value)
            .map(Into::into)
            .map_err(without_position),
    ]
}

#[test]
fn provider_settings_read_as_the_derived_reader_read_them() {
    let inputs = [
        r#"{"id": "openai"}"#,
        r#"{"id": "openai", "apiKey": "k", "model": "gpt-4o-mini", "baseUrl": "https://example.com/v1"}"#,
        r#"{"id": "openai", "temperature": 0.2, "maxTokens": 512, "thinkingBudget": 1024}"#,
        r#"{"id": "openai", "temperature": 1, "maxTokens": 0}"#,
        r#"{"id": "watsonx", "projectId": "p", "apiVersion": "2024-05-01", "iamUrl": "https://iam"}"#,
        r#"{"id": "openai", "headers": {"x-a": "1", "x-b": "2"}}"#,
        r#"{"id": "openai", "apiKey": null, "model": null, "headers": null, "temperature": null}"#,
        r#"{"id": "openai", "unknown": [1, 2], "also": {"x": 1}}"#,
        // The OpenAI and AI SDKs' spelling: the default base URL would get the key instead.
        r#"{"id": "openai", "apiKey": "k", "baseURL": "https://proxy.example/v1"}"#,
        r#"{"id": "openai", "api_key": "k"}"#,
        r#"{"apiKey": "k"}"#,
        r#"{}"#,
        r#"{"id": 5}"#,
        r#"{"id": null}"#,
        r#"{"id": "openai", "apiKey": 5}"#,
        r#"{"id": "openai", "model": ["m"]}"#,
        r#"{"id": "openai", "temperature": "hot"}"#,
        r#"{"id": "openai", "temperature": true}"#,
        r#"{"id": "openai", "maxTokens": -1}"#,
        r#"{"id": "openai", "maxTokens": 4294967296}"#,
        r#"{"id": "openai", "maxTokens": 1.5}"#,
        r#"{"id": "openai", "maxTokens": "512"}"#,
        r#"{"id": "openai", "thinkingBudget": {}}"#,
        r#"{"id": "openai", "headers": {"x-a": 1}}"#,
        r#"{"id": "openai", "headers": ["x-a"]}"#,
        r#"{"id": "openai", "headers": "x-a: 1"}"#,
        r#"{"id": "openai", "extraBody": {"reasoning_effort": "low", "options": {"num_ctx": 8192}}}"#,
        r#"{"id": "openai", "extraBody": null}"#,
        r#"{"id": "openai", "extraBody": ["top_p", 0.9]}"#,
        r#"{"id": "openai", "extraBody": "top_p=0.9"}"#,
        r#"{"model": 3, "id": "openai"}"#,
        r#"{"maxTokens": -1, "apiKey": 5}"#,
        r#"{"apiKey": 5, "maxTokens": -1}"#,
        r#""openai""#,
        r#"7"#,
        r#"null"#,
        r#"[]"#,
    ];
    let mut errors = 0;
    for input in inputs {
        let ours = read_both_ways::<ProviderConfig>(input);
        let derived = read_both_ways::<Twin>(input);
        if input == "[]" {
            // A derived reader takes an array as the fields by position; a caller passing one has
            // a bug, and it is refused.
            assert_eq!(
                derived[0],
                Err("invalid length 0, expected struct Twin with 12 elements".to_owned())
            );
            let refused = Err("invalid type: sequence, expected struct ProviderConfig".to_owned());
            assert_eq!(ours, [refused.clone(), refused]);
            continue;
        }
        let renamed =
            derived.map(|result| result.map_err(|error| error.replace("Twin", "ProviderConfig")));
        assert_eq!(ours, renamed, "{input}");
        errors += ours.iter().filter(|result| result.is_err()).count();
    }
    assert!(errors >= 40, "only {errors} error cases");
}

/// Extra headers keep the order they were written in (a list, not a sorted map).
#[test]
fn headers_keep_their_written_order() {
    let value = serde_json::json!({"id": "openai", "headers": {"x-b": "2", "X-A": "1", "x-c": ""}});
    let config = ProviderConfig::from_json::<serde_json::Error>(value).expect("valid settings");
    let pairs = [("x-b", "2"), ("X-A", "1"), ("x-c", "")];
    let expected: Vec<(String, String)> = pairs
        .iter()
        .map(|(name, value)| (name.to_string(), value.to_string()))
        .collect();
    assert_eq!(config.headers, Some(expected));
}

/// A header name written again in another case counts once, with the value written last, wherever
/// the two stood: HTTP names ignore case, and sending both would join their values.
#[test]
fn a_header_written_twice_in_different_cases_keeps_its_last_value() {
    let headers = serde_json::json!({"authorization": "b", "X-A": "1", "Authorization": "a"});
    let value = serde_json::json!({"id": "openai", "headers": headers});
    let config = ProviderConfig::from_json::<serde_json::Error>(value).expect("valid settings");
    let expected = vec![
        ("X-A".to_owned(), "1".to_owned()),
        ("Authorization".to_owned(), "a".to_owned()),
    ];
    assert_eq!(config.headers, Some(expected));
}

/// A derived twin of an `mcpServers` entry, with the attributes the reader follows.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[allow(dead_code)] // only `allowed_tools` is compared, with the errors
struct ServerTwin {
    name: String,
    url: String,
    #[serde(default)]
    headers: BTreeMap<String, String>,
    #[serde(default)]
    transport: Option<String>,
    #[serde(default)]
    allowed_tools: Option<Vec<String>>,
    /// A function in JS, which JSON leaves out; only its place in the list of members matters.
    #[serde(default)]
    get_access_token: Option<serde::de::IgnoredAny>,
}

/// An `mcpServers` entry's `allowedTools` is read by hand as a derived `Option<Vec<String>>`
/// reads it: the names as written, null as absent, and the same error text for anything that is
/// not a list of strings.
#[test]
fn allowed_tools_read_as_the_derived_reader_read_them() {
    let inputs = [
        json!({"name": "s", "url": "u"}),
        json!({"name": "s", "url": "u", "allowedTools": ["echo", "add"]}),
        json!({"name": "s", "url": "u", "allowedTools": []}),
        json!({"name": "s", "url": "u", "allowedTools": null}),
        json!({"name": "s", "url": "u", "allowedTools": "echo"}),
        json!({"name": "s", "url": "u", "allowedTools": {"echo": true}}),
        json!({"name": "s", "url": "u", "allowedTools": ["echo", 5]}),
        json!({"name": "s", "url": "u", "allowedTools": [null]}),
        json!({"name": "s", "url": "u", "allowedTools": [["echo"]]}),
        json!({"name": "s", "allowedTools": true, "url": 3}),
        json!({"name": "s", "url": 3, "allowedTools": true}),
        json!({"name": "s", "url": "u", "allowed_tools": ["echo"]}),
        json!({"name": "s", "url": "u", "getAccessToken": "token"}),
        json!({"name": "s", "url": "u", "get_access_token": null}),
    ];
    let mut errors = 0;
    for input in inputs {
        let ours = server_options(input.clone())
            .map(|options| options.allowed_tools)
            .map_err(|error| error.to_string());
        let derived = serde_json::from_value::<ServerTwin>(input.clone())
            .map(|twin| twin.allowed_tools)
            .map_err(|error| error.to_string());
        assert_eq!(ours, derived, "{input}");
        errors += usize::from(ours.is_err());
    }
    assert_eq!(errors, 9);
}

/// `json_read::value_at_pointer`, which `$ref`s are resolved with in place of serde_json's
/// `Value::pointer` (RFC 6901: `~1` is `/`, `~0` is `~`, array indexes without a leading zero or
/// a sign), finds what that one finds, escapes, arrays, members named by digits and misses too.
#[test]
fn value_at_pointer_finds_what_serde_json_pointer_finds() {
    use mcp_agent_wasm::core::json_read::value_at_pointer;
    let root = json!({
        "$defs": {"a/b": {"type": "string"}, "m~n": 1, "~1": 2, "~": 3, "": {"": 4}},
        "list": [10, {"x": [20, 21]}, 30],
        "0": "zero",
        "digits": {"0": "a", "01": "b", "+1": "c"},
        "é ü": true,
        "null": null,
    });
    let pointers = [
        "",
        "/",
        "//",
        "/$defs",
        "/$defs/a~1b",
        "/$defs/a~1b/type",
        "/$defs/m~0n",
        "/$defs/~01",
        "/$defs/~0",
        "/$defs/~",
        "/$defs/~2",
        "/$defs/~~1",
        "/$defs/a/b",
        "/$defs//",
        "/list/0",
        "/list/1/x/1",
        "/list/2",
        "/list/3",
        "/list/01",
        "/list/+1",
        "/list/-1",
        "/list/ 1",
        "/list/1x",
        "/list/",
        "/list/99999999999999999999",
        "/0",
        "/digits/0",
        "/digits/01",
        "/digits/+1",
        "/é ü",
        "/null",
        "/null/x",
        "/list/0/x",
        "$defs",
        "#/list",
        "/missing",
        "/$defs/a~1b/type/x",
        "/list/1/x/01",
    ];
    for pointer in pointers {
        assert_eq!(
            value_at_pointer(&root, pointer),
            root.pointer(pointer),
            "{pointer:?}"
        );
    }
}
