//! `McpClient`'s resources and prompts from JS (`listResources`, `listResourceTemplates`,
//! `readResource`, `listPrompts`, `getPrompt`; spec 2025-11-25, "Server features: Resources /
//! Prompts"), in Chromium (`web_mcp_catalog`) and Node (`node_mcp_catalog`). Against the real
//! `@modelcontextprotocol/server-everything` (2026.8.31: seven documents of its `docs/` as
//! static resources, two templates, four prompts, all in one page), over Streamable HTTP and
//! legacy SSE; the project's test server shows what it cannot: a server without the
//! capabilities, several pages, and a cursor loop.

use js_sys::{Promise, Reflect};
use mcp_agent_wasm::web::mcp::JsMcpClient;
use serde_json::{json, Value};
use wasm_bindgen::JsValue;
use wasm_bindgen_futures::JsFuture;
use wasm_bindgen_test::*;

use crate::web_mcp_common::{posted_methods, run_path, server_log, test_server, FetchStub};

/// What a promise settled with: its value as JSON, or the rejection's `code` and `message`.
async fn settle(promise: Promise) -> Result<Value, (String, String)> {
    match JsFuture::from(promise).await {
        Ok(value) => {
            let text = js_sys::JSON::stringify(&value).expect("JSON data");
            let text = text.as_string().unwrap_or_else(|| "null".to_owned());
            Ok(serde_json::from_str(&text).expect("valid JSON"))
        }
        Err(error) => {
            let property = |name: &str| {
                let value = Reflect::get(&error, &name.into()).unwrap_or_default();
                value.as_string().unwrap_or_default()
            };
            Err((property("code"), property("message")))
        }
    }
}

fn js(value: &Value) -> JsValue {
    js_sys::JSON::parse(&value.to_string()).expect("valid JSON")
}

fn client(url: &str, transport: &str) -> JsMcpClient {
    let options = json!({"url": url, "transport": transport, "allowInsecureLocalUrls": true});
    JsMcpClient::new(js(&options)).expect("loopback URLs pass with the opt-in")
}

/// server-everything over Streamable HTTP, then over legacy SSE.
fn everything_clients() -> [(&'static str, JsMcpClient); 2] {
    let url = |name: &str, value: Option<&'static str>| {
        value.unwrap_or_else(|| panic!("{name} was not set at compile time: run through the xtask"))
    };
    let streamable = url("MCP_EVERYTHING_URL", option_env!("MCP_EVERYTHING_URL"));
    let legacy = url(
        "MCP_EVERYTHING_SSE_URL",
        option_env!("MCP_EVERYTHING_SSE_URL"),
    );
    [
        ("streamable-http", client(streamable, "streamable-http")),
        ("sse", client(legacy, "sse")),
    ]
}

fn strings(entries: &Value, member: &str) -> Vec<String> {
    let mut names: Vec<String> = entries
        .as_array()
        .expect("a list")
        .iter()
        .map(|entry| entry[member].as_str().expect("a string member").to_owned())
        .collect();
    names.sort();
    names
}

#[wasm_bindgen_test]
async fn every_resource_template_and_prompt_is_listed_as_sent() {
    let documents = [
        "architecture.md",
        "extension.md",
        "features.md",
        "how-it-works.md",
        "instructions.md",
        "startup.md",
        "structure.md",
    ];
    let document_uris: Vec<String> = documents
        .iter()
        .map(|name| format!("demo://resource/static/document/{name}"))
        .collect();
    for (transport, client) in everything_clients() {
        let resources = settle(client.list_resources(JsValue::UNDEFINED))
            .await
            .unwrap_or_else(|error| panic!("{transport}: {error:?}"));
        assert_eq!(strings(&resources, "uri"), document_uris, "{transport}");
        assert_eq!(strings(&resources, "name"), documents, "{transport}");
        let first = &resources[0];
        assert_eq!(first["mimeType"], "text/markdown", "{transport}: {first}");
        assert!(first["description"].is_string(), "{transport}");

        let templates = settle(client.list_resource_templates(JsValue::NULL))
            .await
            .unwrap_or_else(|error| panic!("{transport}: {error:?}"));
        assert_eq!(
            strings(&templates, "uriTemplate"),
            [
                "demo://resource/dynamic/blob/{resourceId}",
                "demo://resource/dynamic/text/{resourceId}"
            ],
            "{transport}"
        );
        assert_eq!(
            strings(&templates, "name"),
            ["Dynamic Blob Resource", "Dynamic Text Resource"]
        );

        let prompts = settle(client.list_prompts(js(&json!({}))))
            .await
            .unwrap_or_else(|error| panic!("{transport}: {error:?}"));
        assert_eq!(
            strings(&prompts, "name"),
            [
                "args-prompt",
                "completable-prompt",
                "resource-prompt",
                "simple-prompt"
            ],
            "{transport}"
        );
        let args_prompt = prompts
            .as_array()
            .and_then(|prompts| {
                prompts
                    .iter()
                    .find(|prompt| prompt["name"] == "args-prompt")
            })
            .expect("args-prompt");
        assert_eq!(args_prompt["title"], "Arguments Prompt");
        assert_eq!(args_prompt["arguments"][0]["name"], "city");
        assert_eq!(args_prompt["arguments"][0]["required"], true);
        let _ = JsFuture::from(client.close()).await;
    }
}

/// `btoa(text)`: the engine's base64, as the server's Node `Buffer` writes it.
fn base64(text: &str) -> String {
    let btoa = Reflect::get(&js_sys::global(), &"btoa".into()).expect("btoa");
    let btoa: js_sys::Function = btoa.into();
    let encoded = btoa.call1(&JsValue::NULL, &text.into()).expect("ASCII");
    encoded.as_string().expect("a string")
}

#[wasm_bindgen_test]
async fn a_text_a_blob_and_a_document_resource_are_read() {
    for (transport, client) in everything_clients() {
        let read = |uri: &str| settle(client.read_resource(uri.into(), JsValue::UNDEFINED));
        let text = read("demo://resource/dynamic/text/1")
            .await
            .unwrap_or_else(|error| panic!("{transport}: {error:?}"));
        let contents = &text["contents"][0];
        assert_eq!(contents["uri"], "demo://resource/dynamic/text/1");
        assert_eq!(contents["mimeType"], "text/plain");
        let body = contents["text"].as_str().expect("text contents");
        assert!(
            body.starts_with("Resource 1: This is a plaintext resource created at "),
            "{transport}: {body}"
        );

        let blob = read("demo://resource/dynamic/blob/2")
            .await
            .unwrap_or_else(|error| panic!("{transport}: {error:?}"));
        let contents = &blob["contents"][0];
        assert!(contents.get("text").is_none(), "{contents}");
        // 45 characters, a whole number of base64 groups: the blob's text starts with them.
        let prefix = base64("Resource 2: This is a base64 blob created at ");
        let data = contents["blob"].as_str().expect("base64 contents");
        assert!(data.starts_with(&prefix), "{transport}: {data}");

        let document = read("demo://resource/static/document/features.md")
            .await
            .unwrap_or_else(|error| panic!("{transport}: {error:?}"));
        assert_eq!(document["contents"][0]["mimeType"], "text/markdown");
        assert!(document["contents"][0]["text"]
            .as_str()
            .is_some_and(|text| text.len() > 100));
        let _ = JsFuture::from(client.close()).await;
    }
}

#[wasm_bindgen_test]
async fn prompts_are_got_with_and_without_arguments() {
    for (transport, client) in everything_clients() {
        let arguments = js(&json!({"city": "Oslo", "state": "Viken"}));
        let filled = settle(client.get_prompt("args-prompt".into(), arguments, JsValue::UNDEFINED))
            .await
            .unwrap_or_else(|error| panic!("{transport}: {error:?}"));
        assert_eq!(
            filled["messages"],
            json!([{"role": "user", "content": {"type": "text", "text": "What's weather in Oslo, Viken?"}}]),
            "{transport}"
        );

        let arguments = js(&json!({"resourceType": "Text", "resourceId": "3"}));
        let embedding =
            settle(client.get_prompt("resource-prompt".into(), arguments, JsValue::NULL))
                .await
                .unwrap_or_else(|error| panic!("{transport}: {error:?}"));
        let resource = &embedding["messages"][1]["content"];
        assert_eq!(resource["type"], "resource", "{transport}");
        assert_eq!(
            resource["resource"]["uri"],
            "demo://resource/dynamic/text/3"
        );

        let simple = settle(client.get_prompt(
            "simple-prompt".into(),
            JsValue::UNDEFINED,
            JsValue::UNDEFINED,
        ))
        .await
        .unwrap_or_else(|error| panic!("{transport}: {error:?}"));
        assert_eq!(
            simple["messages"][0]["content"]["text"],
            "This is a simple prompt without arguments."
        );
        let _ = JsFuture::from(client.close()).await;
    }
}

/// server-everything's `gzip-file-as-resource` registers a resource for the session and sends
/// `notifications/resources/list_changed`, which the client takes without harm: the next
/// listing (never cached) holds the new resource, and it reads as the blob the tool made.
#[wasm_bindgen_test]
async fn a_resource_a_tool_adds_is_listed_next_and_read() {
    let run = js_sys::Date::now() as u64;
    for (transport, client) in everything_clients() {
        let name = format!("catalog-{transport}-{run}.gz");
        let data = format!("data:text/plain;base64,{}", base64("hello, resources"));
        let arguments = js(&json!({"name": name, "data": data, "outputType": "resourceLink"}));
        let call = client.call_tool(
            "gzip-file-as-resource".to_owned(),
            arguments,
            JsValue::UNDEFINED,
        );
        let result = settle(call)
            .await
            .unwrap_or_else(|error| panic!("{transport}: {error:?}"));
        assert_eq!(result["isError"], false, "{transport}: {result}");

        let uri = format!("demo://resource/session/{name}");
        let resources = settle(client.list_resources(JsValue::UNDEFINED))
            .await
            .unwrap_or_else(|error| panic!("{transport}: {error:?}"));
        assert!(
            strings(&resources, "uri").contains(&uri),
            "{transport}: {resources}"
        );
        let read = settle(client.read_resource(uri.as_str().into(), JsValue::UNDEFINED))
            .await
            .unwrap_or_else(|error| panic!("{transport}: {error:?}"));
        let contents = &read["contents"][0];
        assert_eq!(contents["mimeType"], "application/gzip", "{transport}");
        // A gzip stream starts with the bytes 1f 8b 08, "H4sI" in base64.
        assert!(contents["blob"]
            .as_str()
            .is_some_and(|blob| blob.starts_with("H4sI")));
        let _ = JsFuture::from(client.close()).await;
    }
}

/// The server's refusal comes through as `mcp_jsonrpc_error` with its code: server-everything
/// (the TypeScript SDK's `McpServer`) answers an unknown resource or prompt with -32602.
#[wasm_bindgen_test]
async fn a_missing_resource_or_prompt_rejects_with_the_servers_error() {
    for (transport, client) in everything_clients() {
        let missing = "demo://resource/static/document/missing.md";
        let (code, message) = settle(client.read_resource(missing.into(), JsValue::UNDEFINED))
            .await
            .expect_err("no such resource");
        assert_eq!(code, "mcp_jsonrpc_error", "{transport}: {message}");
        assert!(message.starts_with("server error -32602: "), "{message}");
        assert!(message.contains("not found"), "{message}");

        let (code, message) = settle(client.get_prompt(
            "no-such-prompt".into(),
            JsValue::UNDEFINED,
            JsValue::UNDEFINED,
        ))
        .await
        .expect_err("no such prompt");
        assert_eq!(code, "mcp_jsonrpc_error", "{transport}: {message}");
        assert!(message.contains("no-such-prompt"), "{message}");
        let _ = JsFuture::from(client.close()).await;
    }
}

#[wasm_bindgen_test]
async fn abort_and_timeout_end_a_request_as_they_end_a_tool_call() {
    for (transport, client) in everything_clients() {
        let controller = web_sys::AbortController::new().expect("AbortController");
        let options = js_sys::Object::new();
        Reflect::set(&options, &"signal".into(), &controller.signal()).expect("plain object");
        let listing = client.list_prompts(options.clone().into());
        let reading = client.read_resource("demo://resource/dynamic/text/1".into(), options.into());
        controller.abort();
        for promise in [listing, reading] {
            let (code, _) = settle(promise).await.expect_err("aborted");
            assert_eq!(code, "mcp_aborted", "{transport}");
        }

        // Connected, then a request given no time at all.
        settle(client.list_prompts(JsValue::UNDEFINED))
            .await
            .expect("connected");
        let no_time = js(&json!({"timeoutMs": 0}));
        let (code, message) =
            settle(client.get_prompt("simple-prompt".into(), JsValue::UNDEFINED, no_time))
                .await
                .expect_err("timed out");
        assert_eq!(
            (code.as_str(), message.as_str()),
            ("mcp_timeout", "no answer within 0 ms"),
            "{transport}"
        );
        let _ = JsFuture::from(client.close()).await;
    }
}

/// Arguments and options of the wrong type are refused before any request, as `callTool`
/// refuses them.
#[wasm_bindgen_test]
async fn wrong_arguments_and_options_are_refused_without_a_request() {
    let fetch = FetchStub::install();
    let client = JsMcpClient::new(js(&json!({"url": "https://example.com/mcp"}))).expect("client");
    let undefined = || JsValue::UNDEFINED;
    let attempts = [
        ("uri", client.read_resource(JsValue::from(42), undefined())),
        ("uri", client.read_resource(undefined(), undefined())),
        (
            "name",
            client.get_prompt(JsValue::NULL, undefined(), undefined()),
        ),
        (
            "arguments",
            client.get_prompt("p".into(), js(&json!({"count": 3})), undefined()),
        ),
        (
            "arguments",
            client.get_prompt("p".into(), js(&json!(["Oslo"])), undefined()),
        ),
        ("options", client.list_resources("fast".into())),
        (
            "signal",
            client.list_prompts(js(&json!({"signal": "stop"}))),
        ),
        (
            "timeoutMs",
            client.list_resource_templates(js(&json!({"timeoutMs": -1}))),
        ),
        (
            "timeoutMs",
            client.read_resource("demo://r".into(), js(&json!({"timeoutMs": "1s"}))),
        ),
    ];
    for (what, promise) in attempts {
        let (code, message) = settle(promise).await.expect_err("refused");
        assert_eq!(code, "mcp_invalid_options", "{what}: {message}");
    }
    assert_eq!(fetch.calls(), Vec::<String>::new(), "nothing was sent");
    let (_, message) = settle(client.get_prompt("p".into(), js(&json!({"n": 1})), undefined()))
        .await
        .expect_err("refused");
    assert_eq!(
        message,
        "invalid arguments: a prompt's arguments are an object of strings"
    );
}

fn test_server_client(path: &str) -> JsMcpClient {
    client(
        &format!("{}{}", test_server(), run_path(path)),
        "streamable-http",
    )
}

/// A server whose `initialize` declares only `tools` (spec, lifecycle: a client uses only the
/// capabilities negotiated): every method rejects with `mcp_capability_missing`, and none of
/// their requests reaches the server.
#[wasm_bindgen_test]
async fn undeclared_capabilities_are_refused_without_a_request() {
    let path = "/json/catalog-undeclared";
    let client = test_server_client(path);
    let undefined = || JsValue::UNDEFINED;
    let attempts = [
        ("resources", client.list_resources(undefined())),
        ("resources", client.list_resource_templates(undefined())),
        (
            "resources",
            client.read_resource("test://r".into(), undefined()),
        ),
        ("prompts", client.list_prompts(undefined())),
        (
            "prompts",
            client.get_prompt("p".into(), undefined(), undefined()),
        ),
    ];
    for (capability, promise) in attempts {
        let (code, message) = settle(promise).await.expect_err("undeclared");
        assert_eq!(code, "mcp_capability_missing", "{message}");
        assert!(
            message.starts_with(&format!(
                "the server did not declare the `{capability}` capability"
            )),
            "{message}"
        );
    }
    let methods = posted_methods(&server_log(path).await);
    assert_eq!(methods, ["initialize", "notifications/initialized"]);
    let _ = JsFuture::from(client.close()).await;
}

/// Resources over three pages, every one asked for; prompts whose every page names the cursor
/// `again`, which ends the listing with `mcp_cursor_loop` after the second page.
#[wasm_bindgen_test]
async fn pages_are_followed_and_a_cursor_loop_is_refused() {
    let path = "/catalog/pages";
    let client = test_server_client(path);
    let resources = settle(client.list_resources(JsValue::UNDEFINED))
        .await
        .expect("every page");
    let uris: Vec<String> = (1..=7)
        .map(|index| format!("test://resource/{index}"))
        .collect();
    assert_eq!(strings(&resources, "uri"), uris);

    let (code, message) = settle(client.list_prompts(JsValue::UNDEFINED))
        .await
        .expect_err("a loop");
    assert_eq!(code, "mcp_cursor_loop");
    assert_eq!(message, "prompts/list returned the cursor `again` twice");

    let methods = posted_methods(&server_log(path).await);
    let count = |method: &str| methods.iter().filter(|posted| *posted == method).count();
    assert_eq!((count("resources/list"), count("prompts/list")), (3, 2));
    let _ = JsFuture::from(client.close()).await;
}

/// A session that expires while a listing is between pages: cursors are opaque and belong to
/// the session that gave them (spec 2025-11-25, "Pagination"; a 404 to a request carrying
/// `Mcp-Session-Id` means that session is gone, "Session Management"), so the listing starts
/// again from the first page on the new session, keeping nothing of the old one's pages and
/// sending none of its cursors there (the test server refuses them with -32602). `tools/list`
/// and `resources/list`, each over 3 pages, each 404 on its first cursor.
#[wasm_bindgen_test]
async fn a_listing_whose_session_expires_between_pages_starts_again_on_the_new_one() {
    let resources: Vec<String> = (1..=7)
        .map(|index| format!("test://resource/{index}"))
        .collect();
    let tools = [
        "add",
        "ask-client",
        "echo",
        "hang",
        "progress",
        "structured",
    ];
    for (path, method) in [
        ("/expire-paging/tools", "tools/list"),
        ("/expire-paging/resources", "resources/list"),
    ] {
        let client = test_server_client(path);
        let listed = if method == "tools/list" {
            settle(client.list_tools()).await
        } else {
            settle(client.list_resources(JsValue::UNDEFINED)).await
        };
        let listed = listed.unwrap_or_else(|error| panic!("{method}: {error:?}"));
        if method == "tools/list" {
            assert_eq!(strings(&listed, "name"), tools);
        } else {
            assert_eq!(strings(&listed, "uri"), resources);
        }
        let pages: Vec<(Value, Value)> = server_log(path)
            .await
            .into_iter()
            .filter(|entry| entry["body"]["method"] == method)
            .map(|entry| {
                let cursor = entry["body"]["params"]["cursor"].clone();
                (entry["headers"]["sessionId"].clone(), cursor)
            })
            .collect();
        let old = pages[0].0.as_str().expect("a session id").to_owned();
        let new = pages[2].0.as_str().expect("a session id").to_owned();
        assert_ne!(old, new, "{method}");
        let sent = |session: &str, cursor: Option<&str>| {
            let cursor = cursor.map_or(Value::Null, |at| json!(format!("{session}:{at}")));
            (json!(session), cursor)
        };
        assert_eq!(
            pages,
            [
                sent(&old, None),
                sent(&old, Some("page-3")),
                sent(&new, None),
                sent(&new, Some("page-3")),
                sent(&new, Some("page-6")),
            ],
            "{method}"
        );
        let _ = JsFuture::from(client.close()).await;
    }
}
