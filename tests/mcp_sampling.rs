//! Sampling in the pure core: a server's `sampling/createMessage` read into the conversation the
//! Agent's model is sent, and the model's answer written as the `CreateMessageResult` the server
//! gets. Shapes from the MCP specification 2025-11-25, "Client Features: Sampling" (its "Tools in
//! Sampling", "Message Content Constraints" and "Error Handling" sections for SEP-1577's tools),
//! the TypeScript SDK 1.32's `CreateMessageResultWithToolsSchema`, and the request
//! `@modelcontextprotocol/server-everything` 2026.8.31 sends (`trigger-sampling-request`).

use mcp_agent_wasm::core::mcp::sampling::{sampling_request, sampling_result, SamplingRequest};
use mcp_agent_wasm::core::mcp::session::{Sampling, Session, TransportMode};
use mcp_agent_wasm::core::message::{
    ChatMessage, ContentPart, FunctionCall, ImageUrl, MessageContent, MessageToolCall, Role,
};
use mcp_agent_wasm::core::model_event::{
    ArgumentsDelta, FinishReason, ModelEvent, ProviderStreamError, ToolCallDelta,
};
use mcp_agent_wasm::core::provider::{ProviderConfig, ResolvedProvider, ResponseMode, ToolChoice};
use mcp_agent_wasm::core::tools::{ArgumentKeys, ToolTable};
use serde_json::{json, Value};

fn read(params: &Value) -> Result<SamplingRequest, String> {
    sampling_request(params, true)
}

fn answer(events: &[ModelEvent], model: &str) -> Result<Value, String> {
    sampling_result(
        events,
        model,
        &ToolTable::default(),
        &ArgumentKeys::default(),
    )
}

#[test]
fn server_everythings_request_becomes_a_system_and_a_user_message() {
    let params = json!({
        "messages": [{"role": "user", "content": {"type": "text", "text": "Resource trigger-sampling-request context: hi"}}],
        "systemPrompt": "You are a helpful test server.",
        "maxTokens": 100,
        "temperature": 0.7
    });
    let request = read(&params).expect("a well-formed request");
    assert_eq!(
        request.messages,
        vec![
            ChatMessage::text(Role::System, "You are a helpful test server."),
            ChatMessage::text(Role::User, "Resource trigger-sampling-request context: hi"),
        ]
    );
    assert_eq!(request.max_tokens, 100);
    assert_eq!(request.temperature, Some(0.7));
}

#[test]
fn lists_of_blocks_and_images_become_content_parts() {
    let params = json!({
        "messages": [
            {"role": "user", "content": [
                {"type": "text", "text": "What is this?"},
                {"type": "image", "mimeType": "image/png", "data": "iVBORw0KGgo="}
            ]},
            {"role": "assistant", "content": {"type": "text", "text": "A logo."}},
            {"role": "user", "content": [{"type": "text", "text": "Sure?"}]}
        ],
        "maxTokens": 5
    });
    let request = read(&params).expect("a well-formed request");
    assert_eq!(request.messages.len(), 3, "no system prompt given");
    assert_eq!(
        request.messages[0].content,
        Some(MessageContent::Parts(vec![
            ContentPart::Text {
                text: "What is this?".to_owned()
            },
            ContentPart::ImageUrl {
                image_url: ImageUrl {
                    url: "data:image/png;base64,iVBORw0KGgo=".to_owned(),
                    detail: None
                }
            },
        ]))
    );
    assert_eq!(
        request.messages[1],
        ChatMessage::text(Role::Assistant, "A logo.")
    );
    assert_eq!(request.messages[2], ChatMessage::text(Role::User, "Sure?"));
    assert_eq!(request.temperature, None);
}

#[test]
fn malformed_or_unsupported_requests_are_refused_with_the_reason() {
    let text = json!({"type": "text", "text": "hi"});
    let cases = [
        (
            json!({"maxTokens": 5}),
            "sampling/createMessage without a `messages` list",
        ),
        (
            json!({"messages": [], "maxTokens": 5}),
            "sampling/createMessage with no messages",
        ),
        (
            json!({"messages": [{"role": "user", "content": text}]}),
            "sampling/createMessage without a positive integer `maxTokens`",
        ),
        (
            json!({"messages": [{"role": "user", "content": text}], "maxTokens": 0}),
            "sampling/createMessage without a positive integer `maxTokens`",
        ),
        (
            json!({"messages": [{"role": "system", "content": text}], "maxTokens": 5}),
            "messages[0]: `role` must be \"user\" or \"assistant\"",
        ),
        (
            json!({"messages": [{"role": "user", "content": "hi"}], "maxTokens": 5}),
            "messages[0]: `content` must be a block or a list of blocks",
        ),
        (
            json!({"messages": [{"role": "user", "content": {"type": "audio", "data": "", "mimeType": "audio/wav"}}], "maxTokens": 5}),
            "messages[0]: content of type `audio` is not supported",
        ),
        (
            json!({"messages": [{"role": "user", "content": {"type": "image", "data": "x"}}], "maxTokens": 5}),
            "messages[0]: an image block without `mimeType` and `data`",
        ),
        (
            json!({"messages": [{"role": "user", "content": {"text": "hi"}}], "maxTokens": 5}),
            "messages[0]: a content block without `type`",
        ),
    ];
    for (params, expected) in cases {
        assert_eq!(read(&params), Err(expected.to_owned()), "{params}");
    }
}

#[test]
fn the_answer_is_the_models_text_model_and_stop_reason() {
    let events = [
        ModelEvent::ReasoningDelta("thinking it over".to_owned()),
        ModelEvent::TextDelta("Hello".to_owned()),
        ModelEvent::TextDelta(", world".to_owned()),
        ModelEvent::Finish(FinishReason::Length),
    ];
    assert_eq!(
        answer(&events, "gpt-4o-mini"),
        Ok(json!({
            "role": "assistant",
            "content": {"type": "text", "text": "Hello, world"},
            "model": "gpt-4o-mini",
            "stopReason": "maxTokens"
        }))
    );
    let ended = [
        ModelEvent::TextDelta("ok".to_owned()),
        ModelEvent::Finish(FinishReason::Stop),
    ];
    assert_eq!(
        answer(&ended, "m").expect("an answer")["stopReason"],
        "endTurn"
    );
    let failed = [ModelEvent::Error(ProviderStreamError {
        code: None,
        message: "overloaded".to_owned(),
    })];
    assert_eq!(
        answer(&failed, "m"),
        Err("the model failed: overloaded".to_owned())
    );
}

#[test]
fn a_client_that_samples_declares_it() {
    let declared = |sampling: Sampling| {
        let mut session = Session::new("c", "1", TransportMode::Auto);
        session.set_sampling(sampling);
        session.begin_initialize().body["params"]["capabilities"].clone()
    };
    assert_eq!(declared(Sampling::Refused), json!({}));
    assert_eq!(declared(Sampling::WithoutTools), json!({"sampling": {}}));
    assert_eq!(
        declared(Sampling::WithTools),
        json!({"sampling": {"tools": {}}})
    );
}

/// The spec's tool: a name with a `.`, which no provider takes in a function name.
fn weather_tool() -> Value {
    json!({
        "name": "get.weather",
        "description": "Get current weather for a city",
        "inputSchema": {
            "type": "object",
            "properties": {"city": {"type": "string"}, "units": {"type": "string"}},
            "required": ["city"]
        }
    })
}

fn provider(id: &str) -> ResolvedProvider {
    ProviderConfig {
        id: id.to_owned(),
        api_key: Some("k".to_owned()),
        base_url: Some("http://127.0.0.1:9".to_owned()),
        ..ProviderConfig::default()
    }
    .resolve()
    .expect("complete config")
}

fn call(id: &str, name: &str, arguments: &str) -> ModelEvent {
    ModelEvent::ToolCallDelta(ToolCallDelta {
        id: Some(id.to_owned()),
        name: Some(name.to_owned()),
        arguments: Some(ArgumentsDelta::Fragment(arguments.to_owned())),
        ..ToolCallDelta::default()
    })
}

/// The spec's "Sampling with Tools" request: the tools get provider names (sanitized as an
/// Agent's MCP tools are), `toolChoice` is read, and the messages are the user's question.
#[test]
fn a_request_with_tools_offers_them_under_names_providers_take() {
    let params = json!({
        "messages": [{"role": "user", "content": {"type": "text", "text": "What's the weather like in Paris and London?"}}],
        "tools": [weather_tool()],
        "toolChoice": {"mode": "required"},
        "maxTokens": 1000
    });
    let request = read(&params).expect("a well-formed request");
    assert_eq!(request.tool_choice, ToolChoice::Required);
    let [entry] = request.tools.entries() else {
        panic!("one tool: {:?}", request.tools)
    };
    assert_eq!(
        (entry.function_name.as_str(), entry.tool.as_str()),
        ("get_weather", "get.weather")
    );
    let built = provider("openai")
        .chat_request(
            &request.messages,
            request.tools.entries(),
            ResponseMode::Whole,
        )
        .expect("a request");
    let body: Value = serde_json::from_str(&built.request.body).expect("JSON");
    assert_eq!(body["tools"][0]["function"]["name"], "get_weather");
    assert_eq!(
        read(&json!({"messages": params["messages"], "tools": [], "maxTokens": 5}))
            .expect("no tools")
            .tool_choice,
        ToolChoice::Auto
    );
}

/// The spec's follow-up request: the assistant's `tool_use` blocks become its tool calls (under
/// the names the model was offered), the user's `tool_result` blocks one tool message each,
/// read as an Agent reads a tool result (an error marked, structured content as JSON when
/// there is no text).
#[test]
fn tool_uses_and_results_become_tool_calls_and_tool_messages() {
    let params = json!({
        "messages": [
            {"role": "user", "content": {"type": "text", "text": "Paris and London?"}},
            {"role": "assistant", "content": [
                {"type": "text", "text": "Looking."},
                {"type": "tool_use", "id": "call_abc123", "name": "get.weather", "input": {"city": "Paris"}},
                {"type": "tool_use", "id": "call_def456", "name": "get.weather", "input": {"city": "London"}}
            ]},
            {"role": "user", "content": [
                {"type": "tool_result", "toolUseId": "call_def456", "content": [], "structuredContent": {"celsius": 15}},
                {"type": "tool_result", "toolUseId": "call_abc123", "content": [{"type": "text", "text": "no data"}], "isError": true}
            ]}
        ],
        "tools": [weather_tool()],
        "maxTokens": 1000
    });
    let request = read(&params).expect("a well-formed request");
    let tool_call = |id: &str, city: &str| MessageToolCall {
        id: id.to_owned(),
        call_type: "function".to_owned(),
        function: FunctionCall {
            name: "get_weather".to_owned(),
            arguments: format!("{{\"city\":\"{city}\"}}"),
        },
        thought_signature: None,
    };
    assert_eq!(
        request.messages,
        vec![
            ChatMessage::text(Role::User, "Paris and London?"),
            ChatMessage {
                tool_calls: Some(vec![
                    tool_call("call_abc123", "Paris"),
                    tool_call("call_def456", "London")
                ]),
                ..ChatMessage::text(Role::Assistant, "Looking.")
            },
            ChatMessage::tool_result("call_def456", "{\"celsius\":15}"),
            ChatMessage::tool_result("call_abc123", "Error: no data"),
        ]
    );
}

/// A `tool_result`'s `content` may hold image blocks (MCP 2025-11-25, "Tools in Sampling":
/// `ToolResultContent.content` is `ContentBlock[]`): they reach the model as an Agent's own tool
/// results' images do (loop_scenarios' `a_results_images_join_its_tool_message_where_the_provider_shows_them`),
/// inside Anthropic's `tool_result`, and described in the text for OpenAI, whose tool messages
/// take text only.
#[test]
fn a_tool_results_images_reach_the_model_as_the_agents_do() {
    let params = json!({
        "messages": [
            {"role": "user", "content": {"type": "text", "text": "What is on the page?"}},
            {"role": "assistant", "content": [
                {"type": "tool_use", "id": "toolu_1", "name": "get.weather", "input": {"city": "Oslo"}}
            ]},
            {"role": "user", "content": [
                {"type": "tool_result", "toolUseId": "toolu_1", "content": [
                    {"type": "text", "text": "Page shown."},
                    {"type": "image", "mimeType": "image/png", "data": "iVBORw0KGgo="}
                ]}
            ]}
        ],
        "tools": [weather_tool()],
        "maxTokens": 100
    });
    let request = read(&params).expect("a well-formed request");
    let text = "Page shown.\n[image block 1: image/png, 8 bytes, shown to the user]";
    assert_eq!(
        request.messages[2],
        ChatMessage::tool_result_with_images(
            "toolu_1",
            text,
            vec![ContentPart::ImageUrl {
                image_url: ImageUrl {
                    url: "data:image/png;base64,iVBORw0KGgo=".to_owned(),
                    detail: None,
                },
            }],
        )
    );
    let body = |provider_id: &str| -> Value {
        let built = provider(provider_id)
            .chat_request(
                &request.messages,
                request.tools.entries(),
                ResponseMode::Whole,
            )
            .expect("a request");
        serde_json::from_str(&built.request.body).expect("JSON")
    };
    let anthropic = body("anthropic");
    assert_eq!(
        anthropic["messages"][2]["content"][0]["content"],
        json!([
            {"type": "text", "text": text},
            {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "iVBORw0KGgo="}}
        ])
    );
    let openai = body("openai");
    assert_eq!(
        openai["messages"][2],
        json!({"role": "tool", "tool_call_id": "toolu_1", "content": text})
    );
}

#[test]
fn malformed_tool_requests_are_refused_with_the_reason() {
    let question = json!({"role": "user", "content": {"type": "text", "text": "weather?"}});
    let uses = json!({"role": "assistant", "content": [
        {"type": "tool_use", "id": "a", "name": "get.weather", "input": {"city": "Paris"}},
        {"type": "tool_use", "id": "b", "name": "get.weather", "input": {"city": "Oslo"}}
    ]});
    let result = |id: &str| json!({"type": "tool_result", "toolUseId": id, "content": []});
    let results = |blocks: Value| json!({"role": "user", "content": blocks});
    let cases = [
        (
            json!([question, uses, results(json!([result("a")]))]),
            "messages[2]: no tool_result for the tool_use `b` of the message before it",
        ),
        (
            json!([question, uses]),
            "messages[1]: the tool_use `a` has no tool_result after it",
        ),
        (
            json!([question, uses, question]),
            "messages[2]: no tool_result for the tool_use `a` of the message before it",
        ),
        (
            json!([
                question,
                uses,
                results(json!([result("a"), result("b"), result("c")]))
            ]),
            "messages[2]: the tool_result `c` answers no tool_use of the message before it",
        ),
        (
            json!([results(json!([result("a")]))]),
            "messages[0]: the tool_result `a` answers no tool_use of the message before it",
        ),
        (
            json!([
                question,
                uses,
                results(json!([result("a"), result("b"), {"type": "text", "text": "here"}]))
            ]),
            "messages[2]: a tool_result mixed with other content",
        ),
        (
            json!([{"role": "user", "content": uses["content"]}]),
            "messages[0]: a tool_use block with `role` \"user\"",
        ),
        (
            json!([question, {"role": "assistant", "content": result("a")}]),
            "messages[1]: a tool_result block with `role` \"assistant\"",
        ),
        (
            json!([question, {"role": "assistant", "content": {"type": "tool_use", "id": "a", "name": "x"}}]),
            "messages[1]: a tool_use block without a string `id` and `name` and an object `input`",
        ),
        (
            json!([
                question,
                uses,
                results(json!([{"type": "tool_result", "toolUseId": "a"}]))
            ]),
            "messages[2]: a tool_result block without a string `toolUseId` and a `content` list",
        ),
    ];
    for (messages, expected) in cases {
        let params = json!({"messages": messages, "tools": [weather_tool()], "maxTokens": 5});
        assert_eq!(read(&params), Err(expected.to_owned()), "{params}");
    }
    let with = |member: &str, value: Value| {
        let mut params = json!({"messages": [question], "maxTokens": 5});
        params[member] = value;
        params
    };
    let modes = "`toolChoice` must be { mode: \"auto\" | \"required\" | \"none\" }";
    let refused = [
        (with("toolChoice", json!({"mode": "any"})), modes),
        (with("toolChoice", json!("required")), modes),
        (
            with("tools", json!({"name": "x"})),
            "`tools` must be a list of tools",
        ),
        (
            with("tools", json!([{"inputSchema": {"type": "object"}}])),
            "tools[0]: missing field `name`",
        ),
        (
            with(
                "tools",
                json!([{"name": "", "inputSchema": {"type": "object"}}]),
            ),
            "tools[0]: a tool without a name",
        ),
    ];
    for (params, expected) in refused {
        assert_eq!(read(&params), Err(expected.to_owned()), "{params}");
    }
    // The spec: "The client MUST return an error if this field is provided but
    // ClientCapabilities.sampling.tools is not declared."
    let undeclared = "sampling/createMessage with `tools` or `toolChoice`, which this client does not declare (`sampling.tools`)";
    for params in [
        with("tools", json!([weather_tool()])),
        with("toolChoice", json!({"mode": "auto"})),
    ] {
        assert_eq!(sampling_request(&params, false), Err(undeclared.to_owned()));
    }
    assert_eq!(
        sampling_request(
            &json!({"messages": [question, uses], "maxTokens": 5}),
            false
        ),
        Err("messages[1]: content of type `tool_use` is not supported".to_owned())
    );
}

/// The model's calls go back as the spec's `tool_use` blocks after its text, with the server's
/// tool names and `stopReason: "toolUse"` (also when the provider said `stop`, as Gemini does
/// for a call); the keys Anthropic was sent renamed are the tool's own again, and the `null` a
/// strict provider gives an optional property is left out.
#[test]
fn the_models_calls_are_tool_use_blocks_with_the_servers_names() {
    let mut tool = weather_tool();
    tool["inputSchema"]["properties"]["filter[id]"] = json!({"type": "string"});
    let params = json!({
        "messages": [{"role": "user", "content": {"type": "text", "text": "weather?"}}],
        "tools": [tool],
        "maxTokens": 100
    });
    let request = read(&params).expect("a well-formed request");
    let offered = provider("anthropic").provider_tools(request.tools.entries());
    let body: Value = serde_json::from_str(
        &provider("anthropic")
            .chat_request_with(&request.messages, &offered, ResponseMode::Whole)
            .expect("a request")
            .request
            .body,
    )
    .expect("JSON");
    let sent_keys: Vec<&String> = body["tools"][0]["input_schema"]["properties"]
        .as_object()
        .expect("properties")
        .keys()
        .collect();
    let renamed = sent_keys
        .iter()
        .find(|key| !["city", "units", "filter[id]"].contains(&key.as_str()))
        .expect("Anthropic refuses `filter[id]`: renamed");
    let events = [
        ModelEvent::TextDelta("Checking both.".to_owned()),
        call(
            "toolu_1",
            "get_weather",
            &format!("{{\"city\":\"Paris\",\"units\":null,\"{renamed}\":\"x\"}}"),
        ),
        call("toolu_2", "get_weather", "{\"city\":\"London\"}"),
        ModelEvent::Finish(FinishReason::Stop),
    ];
    let expected = json!({
        "role": "assistant",
        "content": [
            {"type": "text", "text": "Checking both."},
            {"type": "tool_use", "id": "toolu_1", "name": "get.weather", "input": {"city": "Paris", "filter[id]": "x"}},
            {"type": "tool_use", "id": "toolu_2", "name": "get.weather", "input": {"city": "London"}}
        ],
        "model": "claude",
        "stopReason": "toolUse"
    });
    let keys = offered.argument_keys();
    assert_eq!(
        sampling_result(&events, "claude", &request.tools, keys),
        Ok(expected)
    );
    let only_a_call = [call("c", "get_weather", "{\"city\":\"Oslo\"}")];
    assert_eq!(
        sampling_result(&only_a_call, "m", &request.tools, keys).expect("an answer")["content"],
        json!([{"type": "tool_use", "id": "c", "name": "get.weather", "input": {"city": "Oslo"}}]),
        "no empty text block"
    );
    let broken = [call("c", "get_weather", "{\"city\":")];
    let refused = sampling_result(&broken, "m", &request.tools, keys).expect_err("no input");
    assert!(
        refused.starts_with(
            "the model's call of `get_weather` cannot be sent: arguments are not valid JSON"
        ),
        "{refused}"
    );
}

/// `toolChoice` in each wire's words (the spec's modes: `auto`, `required`, `none`): a wire
/// that cannot be told `none` (Ollama) is offered no tools, so its model cannot call one; one
/// that cannot be told `required` fails rather than answering without a call.
#[test]
fn the_tool_choice_reaches_each_wire_or_the_tools_are_left_out() {
    let request_with = |mode: &str| {
        read(&json!({
            "messages": [{"role": "user", "content": {"type": "text", "text": "weather?"}}],
            "tools": [weather_tool()],
            "toolChoice": {"mode": mode},
            "maxTokens": 100
        }))
        .expect("a well-formed request")
    };
    let body = |provider_id: &str, mode: &str| -> Result<Value, String> {
        let request = request_with(mode);
        let provider = provider(provider_id);
        let tools = request
            .provider_tools(&provider)
            .map_err(|error| error.code().to_owned())?;
        let built = provider
            .chat_request_with(&request.messages, &tools, ResponseMode::Whole)
            .expect("a request");
        Ok(serde_json::from_str(&built.request.body).expect("JSON"))
    };
    let openai = body("openai", "required").expect("a body");
    assert_eq!(openai["tool_choice"], "required");
    assert_eq!(openai["tools"][0]["function"]["name"], "get_weather");
    assert_eq!(
        body("openai", "auto").expect("a body")["tool_choice"],
        "auto"
    );
    let anthropic = body("anthropic", "none").expect("a body");
    assert_eq!(anthropic["tool_choice"], json!({"type": "none"}));
    assert_eq!(anthropic["tools"][0]["name"], "get_weather");
    let ollama = body("ollama", "none").expect("a body");
    assert!(ollama.get("tools").is_none(), "{ollama}");
    assert_eq!(
        body("ollama", "auto").expect("a body")["tools"][0]["function"]["name"],
        "get_weather"
    );
    assert_eq!(
        body("ollama", "required"),
        Err("provider_tool_choice_unsupported".to_owned())
    );
}

/// Two server tools whose names sanitize alike are told apart as an Agent's MCP tools are (the
/// second gets a suffix), and each call goes back under the tool's own name.
#[test]
fn tools_named_alike_are_told_apart_and_mapped_back() {
    let mut second = weather_tool();
    second["name"] = json!("get_weather");
    let request = read(&json!({
        "messages": [{"role": "user", "content": {"type": "text", "text": "weather?"}}],
        "tools": [weather_tool(), second],
        "maxTokens": 100
    }))
    .expect("a well-formed request");
    let names: Vec<(&str, &str)> = request
        .tools
        .entries()
        .iter()
        .map(|entry| (entry.function_name.as_str(), entry.tool.as_str()))
        .collect();
    assert_eq!(
        names,
        [
            ("get_weather", "get.weather"),
            ("get_weather_sampling", "get_weather")
        ]
    );
    let events = [
        call("a", "get_weather_sampling", "{\"city\":\"Oslo\"}"),
        call("b", "get_weather", "{\"city\":\"Rome\"}"),
    ];
    let answer =
        sampling_result(&events, "m", &request.tools, &ArgumentKeys::default()).expect("an answer");
    let called: Vec<&Value> = answer["content"]
        .as_array()
        .expect("blocks")
        .iter()
        .map(|block| &block["name"])
        .collect();
    assert_eq!(called, [&json!("get_weather"), &json!("get.weather")]);
}
