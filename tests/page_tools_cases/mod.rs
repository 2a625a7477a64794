//! The Agent's `tools` (functions the page implements), run in Chromium by web_page_tools.rs and
//! in Node by node_page_tools.rs against the local servers the test command starts: the
//! scripted provider makes the model's calls in OpenAI's streamed wire format and records each
//! model call; the MCP test server's `/json/` tools (`echo`) stand beside the page's.

use js_sys::{Function, Reflect};
use mcp_agent_wasm::core::tools::{sanitize_schema, SchemaDialect};
use mcp_agent_wasm::web::agent::Agent;
use serde_json::{json, Value};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use wasm_bindgen_futures::JsFuture;
use wasm_bindgen_test::wasm_bindgen_test;
use web_sys::{AbortController, AbortSignal, ReadableStream, ReadableStreamDefaultReader};

use super::node_common;

fn to_js(value: &Value) -> JsValue {
    js_sys::JSON::parse(&value.to_string()).expect("JSON.parse")
}

fn from_js(value: &JsValue) -> Value {
    let text = js_sys::JSON::stringify(value).expect("JSON.stringify");
    serde_json::from_str(&text.as_string().unwrap_or_else(|| "null".to_owned())).expect("JSON")
}

fn get(value: &JsValue, key: &str) -> JsValue {
    Reflect::get(value, &key.into()).expect("a member")
}

/// A JS function from its parameters and body: the page's `execute`, as a page writes it.
fn js_function(parameters: &str, body: &str) -> Function {
    Function::new_with_args(parameters, body)
}

/// A global the page functions write to, read back by the test.
fn global(name: &str) -> Value {
    from_js(&get(&js_sys::global(), name))
}

/// `name` made unique to this run: the test command runs these cases in Chromium and then in
/// Node against one provider server, which keeps every model call it was sent.
fn run_tag(name: &str) -> String {
    format!("{name}-{}", (js_sys::Math::random() * 1e12) as u64)
}

/// The scripted provider's OpenAI base URL tagged `tag`, to find this test's model calls.
fn provider_base_url(tag: &str) -> String {
    let options = js_sys::encode_uri_component(&format!("tag={tag}&"));
    format!("{}/_/{options}/v1", node_common::provider_server())
}

/// An Agent on the scripted provider (tagged `tag`) with `config`'s members, and `tools` (an
/// object of `{ description?, inputSchema?, execute }`, made in JS) as its page tools.
fn agent(tag: &str, config: Value, tools: &JsValue) -> Result<Agent, JsValue> {
    let mut full = json!({
        "provider": {"id": "openai", "apiKey": "k", "model": "m", "baseUrl": provider_base_url(tag)},
        "allowInsecureLocalUrls": true,
    });
    for (key, value) in config.as_object().expect("an object") {
        full[key] = value.clone();
    }
    let full = to_js(&full);
    Reflect::set(&full, &"tools".into(), tools).expect("set");
    Agent::new(full)
}

/// `{ name: { description, inputSchema?, execute } }` for (name, schema, execute) triples.
fn tools(entries: &[(&str, Option<Value>, Function)]) -> JsValue {
    let tools = js_sys::Object::new();
    for (name, schema, execute) in entries {
        let tool = js_sys::Object::new();
        Reflect::set(
            &tool,
            &"description".into(),
            &format!("The page's {name}").into(),
        )
        .unwrap();
        if let Some(schema) = schema {
            Reflect::set(&tool, &"inputSchema".into(), &to_js(schema)).unwrap();
        }
        Reflect::set(&tool, &"execute".into(), execute).unwrap();
        Reflect::set(&tools, &(*name).into(), &tool).unwrap();
    }
    tools.into()
}

/// Reads a run of one user message to its end (`on_event` may abort it through `controller`);
/// every event as JSON, or the error the stream ended with.
async fn run_events(
    agent: &Agent,
    signal: Option<&AbortSignal>,
    mut on_event: impl FnMut(&Value),
) -> Result<Vec<Value>, JsValue> {
    let messages = to_js(&json!([{"role": "user", "content": "go"}]));
    let options = js_sys::Object::new();
    if let Some(signal) = signal {
        Reflect::set(&options, &"signal".into(), signal).unwrap();
    }
    let stream: ReadableStream = agent.run(messages, options.into())?.unchecked_into();
    let reader: ReadableStreamDefaultReader = stream.get_reader().unchecked_into();
    let mut events = Vec::new();
    loop {
        let read = JsFuture::from(reader.read()).await?;
        if get(&read, "done").is_truthy() {
            return Ok(events);
        }
        let event = from_js(&get(&read, "value"));
        on_event(&event);
        events.push(event);
    }
}

fn of_type<'a>(events: &'a [Value], event_type: &str) -> Vec<&'a Value> {
    events
        .iter()
        .filter(|event| event["type"] == event_type)
        .collect()
}

/// The tool messages of a recorded model call, by `tool_call_id`.
fn tool_messages(request: &Value) -> Vec<(String, String)> {
    request["messages"]
        .as_array()
        .expect("messages")
        .iter()
        .filter(|message| message["role"] == "tool")
        .map(|message| {
            let id = message["tool_call_id"]
                .as_str()
                .unwrap_or_default()
                .to_owned();
            let content = match &message["content"] {
                Value::String(text) => text.clone(),
                other => other.to_string(),
            };
            (id, content)
        })
        .collect()
}

fn mcp_server(path: &str) -> Value {
    json!([{"name": "test", "url": format!("{}/json/{path}", node_common::mcp_test_server())}])
}

/// One round calling a page tool and an MCP tool together: both run, and both results reach the
/// next model call. The page's tool is named `echo` like the server's, so it is offered as
/// `echo_page` (the documented suffix, `page` being its server); its `execute` gets the checked
/// arguments, the call id, a signal and `onProgress`, whose report is a `toolProgress` event.
#[wasm_bindgen_test]
async fn a_round_runs_a_page_tool_beside_an_mcp_tool_and_the_model_gets_both_results() {
    let tag = &run_tag("page-and-mcp");
    node_common::script_provider(&json!({"rounds": [
        {"toolCalls": [
            {"id": "call_mcp", "name": "echo", "arguments": {"message": "hi"}},
            {"id": "call_page", "name": "echo_page", "arguments": {"words": 3}},
        ]},
        {"text": "Both done."},
    ]}))
    .await;
    let execute = js_function(
        "input, context",
        "context.onProgress({ progress: 1, total: 2, message: 'reading' });
         return Promise.resolve({ words: input.words, id: context.toolCallId,
                                  signal: context.signal instanceof AbortSignal && context.abortSignal === context.signal });",
    );
    let schema = json!({"type": "object", "properties": {"words": {"type": "integer"}}, "required": ["words"]});
    let agent = agent(
        tag,
        json!({"mcpServers": mcp_server("page-and-mcp")}),
        &tools(&[("echo", Some(schema), execute)]),
    )
    .expect("a valid config");
    let events = run_events(&agent, None, |_| {})
        .await
        .expect("the run ends");
    let calls: Vec<(&Value, &Value, &Value)> = of_type(&events, "toolCall")
        .into_iter()
        .map(|call| (&call["name"], &call["server"], &call["tool"]))
        .collect();
    assert_eq!(
        calls,
        [
            (&json!("echo"), &json!("test"), &json!("echo")),
            (&json!("echo_page"), &json!("page"), &json!("echo")),
        ]
    );
    assert_eq!(
        of_type(&events, "toolProgress"),
        [
            &json!({"type": "toolProgress", "id": "call_page", "progress": 1, "total": 2, "message": "reading"})
        ]
    );
    let page_result = json!({"words": 3, "id": "call_page", "signal": true});
    let result = of_type(&events, "toolResult")
        .into_iter()
        .find(|result| result["id"] == "call_page")
        .expect("the page tool's result");
    assert_eq!(result["structuredContent"], page_result);
    assert_eq!(result["isError"], false);
    let final_event = events.last().expect("events");
    assert_eq!(final_event["reason"], "completed");
    let requests = node_common::recorded_requests(tag).await;
    assert_eq!(requests.len(), 2);
    let offered: Vec<&Value> = requests[0]["tools"]
        .as_array()
        .expect("tools")
        .iter()
        .map(|tool| &tool["function"]["name"])
        .collect();
    assert!(offered.contains(&&json!("echo_page")), "{offered:?}");
    assert_eq!(
        tool_messages(&requests[1]),
        [
            ("call_mcp".to_owned(), "Echo: hi".to_owned()),
            ("call_page".to_owned(), page_result.to_string()),
        ]
    );
    JsFuture::from(agent.close()).await.unwrap();
}

/// What `execute` answers becomes an MCP result: a string one text block, an MCP
/// `CallToolResult` itself (here with `isError`), a number its JSON text, `undefined` no content
/// (`execute` is called on its entry, as the AI SDK calls it, so `this` is the tool); a throw and
/// a rejection are tool errors the model reads as `Error: <message>`, and the run
/// goes on to its answer.
#[wasm_bindgen_test]
async fn page_tool_answers_and_failures_become_results_and_tool_errors() {
    let tag = &run_tag("page-results");
    let calls: Vec<Value> = [
        "text", "mcp", "number", "nothing", "method", "throws", "rejects",
    ]
    .iter()
    .map(|name| json!({"id": format!("call_{name}"), "name": name, "arguments": {}}))
    .collect();
    node_common::script_provider(&json!({"rounds": [{"toolCalls": calls}, {"text": "Done."}]}))
        .await;
    let page_tools = tools(&[
        ("text", None, js_function("", "return 'plain text';")),
        (
            "mcp",
            None,
            js_function(
                "",
                "return { content: [{ type: 'text', text: 'not found' }], isError: true };",
            ),
        ),
        ("number", None, js_function("", "return 42;")),
        ("nothing", None, js_function("", "")),
        ("method", None, js_function("", "return this.description;")),
        (
            "throws",
            None,
            js_function("", "throw new Error('no selection');"),
        ),
        (
            "rejects",
            None,
            js_function("", "return Promise.reject(new TypeError('page gone'));"),
        ),
    ]);
    let agent = agent(tag, json!({}), &page_tools).expect("a valid config");
    let events = run_events(&agent, None, |_| {})
        .await
        .expect("the run ends");
    let results: Vec<Value> = of_type(&events, "toolResult")
        .into_iter()
        .map(|result| {
            json!([
                result["id"],
                result["text"],
                result["content"],
                result["isError"]
            ])
        })
        .collect();
    assert_eq!(
        results,
        [
            json!(["call_text", "plain text", [{"type": "text", "text": "plain text"}], false]),
            json!(["call_mcp", "not found", [{"type": "text", "text": "not found"}], true]),
            json!(["call_number", "42", [{"type": "text", "text": "42"}], false]),
            json!(["call_nothing", "", [], false]),
            json!(["call_method", "The page's method", [{"type": "text", "text": "The page's method"}], false]),
        ]
    );
    assert_eq!(
        of_type(&events, "toolError"),
        [
            &json!({"type": "toolError", "id": "call_throws", "message": "no selection"}),
            &json!({"type": "toolError", "id": "call_rejects", "message": "page gone"}),
        ]
    );
    assert_eq!(events.last().expect("events")["reason"], "completed");
    let requests = node_common::recorded_requests(tag).await;
    assert_eq!(requests.len(), 2);
    let messages = tool_messages(&requests[1]);
    assert_eq!(
        messages[5],
        ("call_throws".to_owned(), "Error: no selection".to_owned())
    );
    assert_eq!(
        messages[6],
        ("call_rejects".to_owned(), "Error: page gone".to_owned())
    );
}

/// An abort while a page tool runs aborts the signal its `execute` was given, and the run ends
/// `aborted` at once, without waiting for a promise that never settles.
#[wasm_bindgen_test]
async fn an_abort_during_a_page_tool_aborts_its_signal_and_ends_the_run_at_once() {
    let tag = &run_tag("page-abort");
    node_common::script_provider(&json!({"rounds": [
        {"toolCalls": [{"id": "call_slow", "name": "slow", "arguments": {}}]},
    ]}))
    .await;
    let execute = js_function(
        "input, { signal }",
        "globalThis.pageAbortSeen = false;
         signal.addEventListener('abort', () => { globalThis.pageAbortSeen = true; });
         return new Promise(() => {});",
    );
    let agent = agent(tag, json!({}), &tools(&[("slow", None, execute)])).expect("a valid config");
    let controller = AbortController::new().unwrap();
    let mut aborted_at = 0.0;
    let events = run_events(&agent, Some(&controller.signal()), |event| {
        if event["type"] == "toolCall" {
            aborted_at = js_sys::Date::now();
            controller.abort();
        }
    })
    .await
    .expect("the run ends");
    let took_ms = js_sys::Date::now() - aborted_at;
    assert_eq!(events.last().expect("events")["reason"], "aborted");
    assert!(
        took_ms < 1000.0,
        "the run took {took_ms} ms to end after the abort"
    );
    assert_eq!(global("pageAbortSeen"), json!(true));
}

/// `toolTimeoutMs` bounds a page tool as it bounds an MCP call: its signal is aborted, the call
/// fails with the same message, and the run goes on.
#[wasm_bindgen_test]
async fn a_page_tool_past_the_tool_timeout_is_aborted_and_fails() {
    let tag = &run_tag("page-timeout");
    node_common::script_provider(&json!({"rounds": [
        {"toolCalls": [{"id": "call_stuck", "name": "stuck", "arguments": {}}]},
        {"text": "It timed out."},
    ]}))
    .await;
    let execute = js_function(
        "input, { signal }",
        "globalThis.pageTimeoutAborted = false;
         signal.addEventListener('abort', () => { globalThis.pageTimeoutAborted = true; });
         return new Promise(() => {});",
    );
    let agent = agent(
        tag,
        json!({"toolTimeoutMs": 150}),
        &tools(&[("stuck", None, execute)]),
    )
    .expect("a valid config");
    let events = run_events(&agent, None, |_| {})
        .await
        .expect("the run ends");
    assert_eq!(
        of_type(&events, "toolError"),
        [&json!({"type": "toolError", "id": "call_stuck", "message": "no answer within 150 ms"})]
    );
    assert_eq!(global("pageTimeoutAborted"), json!(true));
    assert_eq!(events.last().expect("events")["reason"], "completed");
}

/// `approveToolCall` is asked about a page tool as about an MCP tool, with `server: "page"`; a
/// declined call never reaches `execute`.
#[wasm_bindgen_test]
async fn a_declined_page_tool_call_never_runs() {
    let tag = &run_tag("page-declined");
    node_common::script_provider(&json!({"rounds": [
        {"toolCalls": [{"id": "call_nav", "name": "navigate", "arguments": {"url": "/settings"}}]},
        {"text": "Not allowed."},
    ]}))
    .await;
    let execute = js_function("", "globalThis.pageNavigated = true; return 'went';");
    Reflect::set(&js_sys::global(), &"pageNavigated".into(), &false.into()).unwrap();
    let page_tools = tools(&[("navigate", None, execute)]);
    let approve = js_function(
        "call",
        "globalThis.pageAskedAbout = [call.server, call.tool, call.arguments]; return false;",
    );
    let config = to_js(&json!({
        "provider": {"id": "openai", "apiKey": "k", "model": "m", "baseUrl": provider_base_url(tag)},
    }));
    Reflect::set(&config, &"tools".into(), &page_tools).unwrap();
    Reflect::set(&config, &"approveToolCall".into(), &approve).unwrap();
    let agent = Agent::new(config).expect("a valid config");
    let events = run_events(&agent, None, |_| {})
        .await
        .expect("the run ends");
    assert_eq!(global("pageNavigated"), json!(false));
    assert_eq!(
        global("pageAskedAbout"),
        json!(["page", "navigate", {"url": "/settings"}])
    );
    assert_eq!(
        of_type(&events, "toolError"),
        [
            &json!({"type": "toolError", "id": "call_nav", "message": "the user declined this tool call"})
        ]
    );
}

/// `listTools()` lists the page's tools after the servers', with `server: "page"`, the schema
/// as the provider gets it (sanitized as a server's is), and the suffix on a name a server's
/// tool already has.
#[wasm_bindgen_test]
async fn list_tools_shows_the_page_tools_after_the_servers_with_sanitized_schemas() {
    let schema = json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "type": "object",
        "properties": {"query": {"type": ["string", "null"], "format": "regex"}},
    });
    let agent = agent(
        "page-list",
        json!({"mcpServers": mcp_server("page-list")}),
        &tools(&[
            ("read.selection", Some(schema.clone()), js_function("", "")),
            ("echo", None, js_function("", "")),
        ]),
    )
    .expect("a valid config");
    let listed = JsFuture::from(agent.list_tools(JsValue::UNDEFINED).unwrap())
        .await
        .expect("listed");
    let listed = from_js(&listed);
    let page: Vec<&Value> = listed
        .as_array()
        .expect("a list")
        .iter()
        .filter(|tool| tool["server"] == "page")
        .collect();
    assert_eq!(
        page,
        [
            &json!({"name": "read_selection", "server": "page", "tool": "read.selection",
                "description": "The page's read.selection",
                "parameters": sanitize_schema(&schema, SchemaDialect::OpenAi).schema}),
            &json!({"name": "echo_page", "server": "page", "tool": "echo",
                "description": "The page's echo", "parameters": {"type": "object", "properties": {}}}),
        ]
    );
    assert_eq!(listed[0]["name"], "echo");
    assert_eq!(listed[0]["server"], "test");
    JsFuture::from(agent.close()).await.unwrap();
}

/// The AI SDK's `jsonSchema(schema)` (ai@7's provider-utils: an object marked with
/// `Symbol.for("vercel.ai.schema")` whose `jsonSchema` getter gives the schema) is read for its
/// schema: its own JSON, `{ jsonSchema }`, would offer a tool that takes any object. One whose
/// schema is a promise cannot be read when the Agent is made, and is refused.
#[wasm_bindgen_test]
async fn an_ai_sdk_json_schema_wrapper_gives_its_schema() {
    let schema = json!({"type": "object", "properties": {"city": {"type": "string"}},
                        "required": ["city"]});
    let wrap = js_function(
        "schema",
        "return { [Symbol.for('vercel.ai.schema')]: true, _type: undefined, \
         get jsonSchema() { return schema; }, validate: undefined };",
    );
    let page_tools = |inner: &JsValue| {
        let tool = js_sys::Object::new();
        let wrapper = wrap.call1(&JsValue::UNDEFINED, inner).expect("a wrapper");
        Reflect::set(&tool, &"inputSchema".into(), &wrapper).unwrap();
        Reflect::set(&tool, &"execute".into(), &js_function("", "")).unwrap();
        let tools = js_sys::Object::new();
        Reflect::set(&tools, &"weather".into(), &tool).unwrap();
        JsValue::from(tools)
    };
    let wrapped = agent("page-wrapper", json!({}), &page_tools(&to_js(&schema))).expect("valid");
    let listed = JsFuture::from(wrapped.list_tools(JsValue::UNDEFINED).unwrap())
        .await
        .expect("listed");
    assert_eq!(
        from_js(&listed)[0]["parameters"],
        sanitize_schema(&schema, SchemaDialect::OpenAi).schema
    );
    JsFuture::from(wrapped.close()).await.unwrap();
    let promised = js_sys::Promise::resolve(&to_js(&schema));
    let error = agent("page-wrapper", json!({}), &page_tools(&promised))
        .err()
        .expect("refused");
    assert_eq!(
        get(&error, "code").as_string().as_deref(),
        Some("invalid_config")
    );
    assert_eq!(
        String::from(error.unchecked_ref::<js_sys::Error>().message()),
        "invalid Agent config: tool `weather`: inputSchema is the AI SDK's jsonSchema() of a promise: pass the JSON Schema itself"
    );
}

/// A `tools` option `new Agent` cannot use is refused at once with `invalid_config`, naming
/// the tool (a member it does not know too, as unknown options are); so is an MCP server named
/// `page`, the page tools' server. A Zod schema as `inputSchema` (what the AI SDK's `tool()`
/// takes) is refused too: its JSON (`{"type":"object","def":…}`) would offer a tool that takes
/// any object, its checks lost.
#[wasm_bindgen_test]
fn unusable_page_tools_are_refused_by_new_agent() {
    let execute: JsValue = js_function("", "").into();
    let named = |name: &str, members: &[(&str, &JsValue)]| {
        let tool = js_sys::Object::new();
        for (key, value) in members {
            Reflect::set(&tool, &(*key).into(), value).unwrap();
        }
        let tools = js_sys::Object::new();
        Reflect::set(&tools, &name.into(), &tool).unwrap();
        JsValue::from(tools)
    };
    let entry = |members: &[(&str, &JsValue)]| named("find", members);
    let with_name = |name: &str| named(name, &[("execute", &execute)]);
    // A Zod schema as the AI SDK takes it: a Standard Schema object, whose JSON is no schema.
    let zod_schema: JsValue = js_function(
        "",
        "return { '~standard': { version: 1, vendor: 'zod', validate: (value) => ({ value }) }, \
         type: 'object', def: { type: 'object', shape: {} } };",
    )
    .call0(&JsValue::UNDEFINED)
    .expect("a schema");
    let cases: [(JsValue, Value, &str); 9] = [
        (
            entry(&[("execute", &execute), ("inputSchema", &zod_schema)]),
            json!({}),
            "tool `find`: inputSchema is a Standard Schema (Zod, Valibot, ArkType), not JSON Schema: pass z.toJSONSchema(schema) or its library's equivalent",
        ),
        (
            JsValue::from(3),
            json!({}),
            "tools must be an object keyed by tool name: { name: { description?, inputSchema?, execute } }",
        ),
        (
            entry(&[]),
            json!({}),
            "tool `find`: execute must be a function (input, { signal, toolCallId, onProgress }) => result",
        ),
        (
            entry(&[("execute", &"run".into())]),
            json!({}),
            "tool `find`: execute must be a function (input, { signal, toolCallId, onProgress }) => result",
        ),
        (
            entry(&[("execute", &execute), ("inputSchema", &true.into())]),
            json!({}),
            "tool `find`: inputSchema must be a plain object",
        ),
        (
            entry(&[("execute", &execute), ("description", &5.into())]),
            json!({}),
            "tool `find`: description must be a string",
        ),
        (
            entry(&[("execute", &execute), ("parameters", &js_sys::Object::new().into())]),
            json!({}),
            "tool `find`: unknown member `parameters`, expected `description`, `inputSchema`, `execute` or `annotations`",
        ),
        (with_name(""), json!({}), "a tool in `tools` has an empty name"),
        (
            with_name("find"),
            json!({"mcpServers": [{"name": "page", "url": "http://127.0.0.1:9/mcp"}]}),
            "MCP server `page`: `page` names the page's own `tools`: give this MCP server another name",
        ),
    ];
    for (page_tools, config, expected) in cases {
        let error = agent("page-config", config, &page_tools)
            .err()
            .expect("refused");
        let message: String = error.unchecked_ref::<js_sys::Error>().message().into();
        let expected = if expected.starts_with("MCP server") {
            expected.to_owned()
        } else {
            format!("invalid Agent config: {expected}")
        };
        assert_eq!(message, expected);
        assert_eq!(
            get(&error, "code").as_string().as_deref(),
            Some("invalid_config")
        );
    }
}

/// The page's tools count in the provider's tool limit with the servers' (OpenAI takes 128): a
/// run offering more fails before its first model call with `provider_too_many_tools`, naming
/// `page` among the servers.
#[wasm_bindgen_test]
async fn page_tools_count_in_the_providers_tool_limit() {
    let tag = &run_tag("page-too-many");
    let names: Vec<String> = (1..=126).map(|number| format!("read_{number}")).collect();
    let entries: Vec<(&str, Option<Value>, Function)> = names
        .iter()
        .map(|name| (name.as_str(), None, js_function("", "")))
        .collect();
    let agent = agent(
        tag,
        json!({"mcpServers": mcp_server("page-too-many")}),
        &tools(&entries),
    )
    .expect("a valid config");
    let error = run_events(&agent, None, |_| {})
        .await
        .expect_err("the run fails");
    assert_eq!(
        get(&error, "code").as_string().as_deref(),
        Some("provider_too_many_tools")
    );
    let message: String = error.unchecked_ref::<js_sys::Error>().message().into();
    assert!(
        message.contains("and the run offers 132 (`test` 6, `page` 126)"),
        "{message}"
    );
    assert_eq!(
        node_common::recorded_requests(tag).await,
        Vec::<Value>::new()
    );
    JsFuture::from(agent.close()).await.unwrap();
}

/// Data that merely has a `content` array (an article's paragraphs) is the page's data, not an
/// MCP `CallToolResult`: the AI SDK sends a tool's output as its JSON, and MCP's `content` holds
/// content blocks (objects with a `type`, spec 2025-11-25 "Tools"). It reaches the model whole,
/// not as `[unknown block 0]` with its other members lost.
#[wasm_bindgen_test]
async fn a_page_tools_data_with_a_content_array_is_json_not_an_mcp_result() {
    let tag = &run_tag("page-content-data");
    let call = json!({"id": "call_article", "name": "article", "arguments": {}});
    node_common::script_provider(&json!({"rounds": [{"toolCalls": [call]}, {"text": "Done."}]}))
        .await;
    let page_tools = tools(&[(
        "article",
        None,
        js_function(
            "",
            "return { title: 'Notes', content: ['first', 'second'] };",
        ),
    )]);
    let agent = agent(tag, json!({}), &page_tools).expect("a valid config");
    let events = run_events(&agent, None, |_| {})
        .await
        .expect("the run ends");
    let data = json!({"title": "Notes", "content": ["first", "second"]});
    let result = of_type(&events, "toolResult")[0];
    assert_eq!(result["structuredContent"], data);
    let sent: Value = serde_json::from_str(result["text"].as_str().expect("text")).expect("JSON");
    assert_eq!(sent, data);
    let messages = tool_messages(&node_common::recorded_requests(tag).await[1]);
    let read: Value = serde_json::from_str(&messages[0].1).expect("JSON");
    assert_eq!(read, data);
}

/// `execute` gets `messages` as the AI SDK's does (ai@6 `ToolExecutionOptions.messages`, "the
/// messages that were sent to the language model to initiate the response that contained the
/// tool call", without the system prompt or that response): here the run's messages as the
/// `final` event shows them, without the composed system prompt or the round's assistant
/// message. They are a copy: a tool that changes them changes neither what the next model call
/// is sent nor the run's messages.
#[wasm_bindgen_test]
async fn a_page_tool_gets_the_messages_that_led_to_its_call_as_a_copy() {
    let tag = &run_tag("page-messages");
    node_common::script_provider(&json!({"rounds": [
        {"toolCalls": [{"id": "call_first", "name": "note", "arguments": {}}]},
        {"toolCalls": [{"id": "call_second", "name": "note", "arguments": {}}]},
        {"text": "Noted twice."},
    ]}))
    .await;
    Reflect::set(
        &js_sys::global(),
        &"pageMessagesSeen".into(),
        &js_sys::Array::new(),
    )
    .unwrap();
    let execute = js_function(
        "input, { messages }",
        "globalThis.pageMessagesSeen.push(JSON.parse(JSON.stringify(messages)));
         messages[0].content = 'changed by the tool';
         messages.push({ role: 'user', content: 'added by the tool' });
         return 'noted';",
    );
    let agent = agent(
        tag,
        json!({"systemPrompt": "Be brief."}),
        &tools(&[("note", None, execute)]),
    )
    .expect("a valid config");
    let events = run_events(&agent, None, |_| {})
        .await
        .expect("the run ends");
    let final_event = events.last().expect("events");
    assert_eq!(final_event["reason"], "completed");
    let conversation = final_event["messages"].as_array().expect("messages");
    assert_eq!(conversation.len(), 6, "{conversation:?}");
    assert_eq!(conversation[0], json!({"role": "user", "content": "go"}));
    let seen = global("pageMessagesSeen");
    assert_eq!(
        seen,
        json!([conversation[..1].to_vec(), conversation[..3].to_vec()])
    );
    for request in node_common::recorded_requests(tag).await {
        let sent = request["messages"].to_string();
        assert!(!sent.contains("by the tool"), "{sent}");
    }
    assert!(!final_event.to_string().contains("by the tool"));
}
