#![cfg(not(target_arch = "wasm32"))]
//! Request bodies per wire format for one tool round: the tools and their dialect, the assistant
//! turn with two parallel calls and what must be echoed, and the two results. Each expectation is
//! the body the vendor documents.

use serde_json::{json, Value};

use mcp_agent_wasm::core::message::{
    ChatMessage, ContentPart, FunctionCall, ImageUrl, MessageContent, MessageToolCall, Role,
    ThinkingBlock,
};
use mcp_agent_wasm::core::provider::{ProviderConfig, ResolvedProvider, ResponseMode, ToolChoice};
use mcp_agent_wasm::core::tools::{sanitize_schema, SchemaDialect, ToolEntry};

/// The tools as the OpenAI wire carries them: the sanitizer decides the schema and whether it
/// can be strict; a provider without strict mode, or a schema that cannot be strict, gets the
/// plain dialect.
fn expected_tools(provider_strict: bool) -> Vec<Value> {
    tools()
        .iter()
        .map(|entry| {
            let strict = sanitize_schema(&entry.input_schema, SchemaDialect::OpenAiStrict);
            let (parameters, strict) = if provider_strict && strict.strict {
                (strict.schema, true)
            } else {
                let plain = sanitize_schema(&entry.input_schema, SchemaDialect::OpenAi);
                (plain.schema, false)
            };
            let mut function = json!({"name": entry.function_name, "parameters": parameters});
            if let Some(description) = &entry.description {
                function["description"] = json!(description);
            }
            if strict {
                function["strict"] = json!(true);
            }
            json!({"type": "function", "function": function})
        })
        .collect()
}

const KEY: &str = "sk-test-SECRET-0123456789";

fn provider(id: &str) -> ResolvedProvider {
    provider_with(id, |_| {})
}

fn provider_with(id: &str, adjust: impl FnOnce(&mut ProviderConfig)) -> ResolvedProvider {
    let mut config = ProviderConfig {
        id: id.to_owned(),
        api_key: Some(KEY.to_owned()),
        base_url: Some("http://127.0.0.1:9".to_owned()),
        project_id: Some("project-42".to_owned()),
        ..ProviderConfig::default()
    };
    adjust(&mut config);
    config
        .resolve()
        .expect("complete config")
        .with_access_token("iam-token")
}

fn tools() -> Vec<ToolEntry> {
    vec![
        ToolEntry {
            function_name: "weather_get".into(),
            server: "weather".into(),
            tool: "get".into(),
            description: Some("Current weather for a city".into()),
            input_schema: json!({
                "type": "object",
                "properties": {"city": {"type": "string"}},
                "required": ["city"],
                "additionalProperties": false
            }),
            annotations: Some(json!({"readOnlyHint": true})),
        },
        ToolEntry {
            function_name: "clock_now".into(),
            server: "clock".into(),
            tool: "now".into(),
            description: None,
            input_schema: json!({"type": "object", "properties": {}}),
            annotations: None,
        },
    ]
}

fn call(id: &str, name: &str, arguments: &str, signature: Option<&str>) -> MessageToolCall {
    MessageToolCall {
        id: id.into(),
        call_type: "function".into(),
        function: FunctionCall {
            name: name.into(),
            arguments: arguments.into(),
        },
        thought_signature: signature.map(str::to_owned),
    }
}

/// system, user, an assistant turn with reasoning and two parallel calls, both results.
fn tool_round() -> Vec<ChatMessage> {
    let mut assistant = ChatMessage::text(Role::Assistant, "");
    assistant.content = None;
    assistant.tool_calls = Some(vec![
        call(
            "call_1",
            "weather_get",
            r#"{"city":"Paris"}"#,
            Some("sig-A"),
        ),
        call("call_2", "clock_now", "", None),
    ]);
    assistant.reasoning_content = Some("I need the weather and the time.".into());
    assistant.thinking_blocks = Some(vec![
        ThinkingBlock::Thinking {
            thinking: "I need the weather and the time.".into(),
            signature: "EqQBCgIYAhIM".into(),
        },
        ThinkingBlock::RedactedThinking {
            data: "opaque-data".into(),
        },
        ThinkingBlock::Reasoning {
            summary: "Weather first, then the time.".into(),
            encrypted_content: "gAAAAABenc-1".into(),
        },
    ]);
    vec![
        ChatMessage::text(Role::System, "Be brief."),
        ChatMessage::text(Role::User, "Weather in Paris, and the time?"),
        assistant,
        ChatMessage::tool_result("call_1", "18°C, cloudy"),
        ChatMessage::tool_result("call_2", "12:00"),
    ]
}

fn body(provider: &ResolvedProvider, messages: &[ChatMessage], mode: ResponseMode) -> Value {
    let built = provider
        .chat_request(messages, &tools(), mode)
        .expect("builds");
    serde_json::from_str(&built.request.body).expect("body is JSON")
}

#[test]
fn openai_body_streams_with_usage_and_strict_tools() {
    let body = body(
        &provider_with("openai", |config| config.max_tokens = Some(256)),
        &tool_round(),
        ResponseMode::Streaming,
    );
    assert_eq!(
        body,
        json!({
            "model": "gpt-6.1-sol",
            "stream": true,
            "stream_options": {"include_usage": true},
            "max_completion_tokens": 256,
            "tool_choice": "auto",
            "tools": expected_tools(true),
            "messages": [
                {"role": "system", "content": "Be brief."},
                {"role": "user", "content": "Weather in Paris, and the time?"},
                {"role": "assistant", "tool_calls": [
                    {"id": "call_1", "type": "function",
                     "function": {"name": "weather_get", "arguments": "{\"city\":\"Paris\"}"}},
                    {"id": "call_2", "type": "function",
                     "function": {"name": "clock_now", "arguments": ""}}
                ]},
                {"role": "tool", "tool_call_id": "call_1", "content": "18°C, cloudy"},
                {"role": "tool", "tool_call_id": "call_2", "content": "12:00"}
            ]
        })
    );
}

#[test]
fn compatibles_differ_only_where_their_row_says() {
    // (id, strict tools, stream_options, echoes reasoning_content, max tokens field)
    let cases = [
        ("mistral", false, false, false, "max_tokens"),
        ("groq", false, true, false, "max_tokens"),
        ("deepseek", false, true, true, "max_tokens"),
        ("moonshot", false, false, true, "max_tokens"),
        ("azure_openai", true, true, false, "max_completion_tokens"),
        ("openrouter", false, true, false, "max_tokens"),
    ];
    for (id, strict, usage, echo, max_field) in cases {
        let body = body(
            &provider_with(id, |config| config.max_tokens = Some(100)),
            &tool_round(),
            ResponseMode::Streaming,
        );
        assert_eq!(body["tools"], json!(expected_tools(strict)), "{id}");
        assert_eq!(body.get("stream_options").is_some(), usage, "{id}");
        assert_eq!(body[max_field], 100, "{id}");
        let assistant = &body["messages"][2];
        assert_eq!(
            assistant.get("reasoning_content"),
            echo.then(|| json!("I need the weather and the time."))
                .as_ref(),
            "{id}"
        );
        // Fields of other wires never leak into an OpenAI-shaped body.
        let text = body.to_string();
        for foreign in [
            "thinking_blocks",
            "thought_signature",
            "sig-A",
            "annotations",
        ] {
            assert!(!text.contains(foreign), "{id}: {foreign}");
        }
    }
}

#[test]
fn whole_mode_does_not_stream() {
    for id in ["openai", "anthropic", "ollama", "ibm"] {
        let body = body(&provider(id), &tool_round(), ResponseMode::Whole);
        assert_eq!(
            body.get("stream").cloned().unwrap_or(json!(false)),
            false,
            "{id}"
        );
        assert!(body.get("stream_options").is_none(), "{id}");
    }
}

#[test]
fn anthropic_puts_all_results_of_a_round_in_one_user_message() {
    let body = body(
        &provider("anthropic"),
        &tool_round(),
        ResponseMode::Streaming,
    );
    assert_eq!(
        body,
        json!({
            "model": "claude-sonnet-4-5",
            "max_tokens": 4096,
            "stream": true,
            "system": "Be brief.",
            "tool_choice": {"type": "auto"},
            "tools": tools().iter().map(|entry| {
                let mut tool = json!({
                    "name": entry.function_name,
                    "input_schema": sanitize_schema(&entry.input_schema, SchemaDialect::Anthropic).schema,
                });
                if let Some(description) = &entry.description {
                    tool["description"] = json!(description);
                }
                tool
            }).collect::<Vec<_>>(),
            "messages": [
                {"role": "user", "content": [
                    {"type": "text", "text": "Weather in Paris, and the time?"}
                ]},
                {"role": "assistant", "content": [
                    {"type": "thinking", "thinking": "I need the weather and the time.",
                     "signature": "EqQBCgIYAhIM"},
                    {"type": "redacted_thinking", "data": "opaque-data"},
                    {"type": "tool_use", "id": "call_1", "name": "weather_get",
                     "input": {"city": "Paris"}},
                    {"type": "tool_use", "id": "call_2", "name": "clock_now", "input": {}}
                ]},
                {"role": "user", "content": [
                    {"type": "tool_result", "tool_use_id": "call_1", "content": "18°C, cloudy"},
                    {"type": "tool_result", "tool_use_id": "call_2", "content": "12:00"}
                ]}
            ]
        })
    );
}

#[test]
fn anthropic_thinking_budget_replaces_temperature_and_fits_under_max_tokens() {
    let body = body(
        &provider_with("anthropic", |config| {
            config.thinking_budget = Some(2000);
            config.max_tokens = Some(1000);
            config.temperature = Some(0.2);
        }),
        &[ChatMessage::text(Role::User, "hi")],
        ResponseMode::Streaming,
    );
    assert_eq!(
        body["thinking"],
        json!({"type": "enabled", "budget_tokens": 2000})
    );
    assert_eq!(body["max_tokens"], 6096);
    assert!(body.get("temperature").is_none());
}

#[test]
fn gemini_echoes_thought_signatures_and_answers_by_function_name() {
    let body = body(
        &provider_with("google", |config| {
            config.model = Some("gemini-2.5-flash".into());
            config.temperature = Some(0.5);
            config.thinking_budget = Some(512);
        }),
        &tool_round(),
        ResponseMode::Streaming,
    );
    assert_eq!(
        body,
        json!({
            "systemInstruction": {"parts": [{"text": "Be brief."}]},
            "generationConfig": {
                "temperature": 0.5,
                "thinkingConfig": {"thinkingBudget": 512, "includeThoughts": true}
            },
            "tools": [{"functionDeclarations": [
                {"name": "weather_get", "description": "Current weather for a city",
                 "parameters": sanitize_schema(&tools()[0].input_schema, SchemaDialect::Gemini).schema},
                // No properties: Gemini rejects an empty OBJECT, so no `parameters` at all.
                {"name": "clock_now"}
            ]}],
            "contents": [
                {"role": "user", "parts": [{"text": "Weather in Paris, and the time?"}]},
                {"role": "model", "parts": [
                    {"functionCall": {"name": "weather_get", "args": {"city": "Paris"}},
                     "thoughtSignature": "sig-A"},
                    {"functionCall": {"name": "clock_now", "args": {}}}
                ]},
                {"role": "user", "parts": [
                    {"functionResponse": {"name": "weather_get",
                                          "response": {"content": "18°C, cloudy"}}},
                    {"functionResponse": {"name": "clock_now", "response": {"content": "12:00"}}}
                ]}
            ]
        })
    );
}

#[test]
fn ollama_sends_arguments_as_objects() {
    let body = body(
        &provider_with("ollama", |config| {
            config.api_key = None;
            config.model = Some("deepseek-r1:14b".into());
            config.temperature = Some(0.1);
            config.max_tokens = Some(64);
            config.thinking_budget = Some(1);
        }),
        &tool_round(),
        ResponseMode::Streaming,
    );
    assert_eq!(body["model"], "deepseek-r1:14b");
    assert_eq!(body["stream"], true);
    assert_eq!(body["think"], true);
    assert_eq!(
        body["options"],
        json!({"temperature": 0.1, "num_predict": 64})
    );
    assert_eq!(body["tools"][0]["function"]["name"], "weather_get");
    assert_eq!(
        body["messages"][2],
        json!({"role": "assistant", "content": "", "tool_calls": [
            {"function": {"name": "weather_get", "arguments": {"city": "Paris"}}},
            {"function": {"name": "clock_now", "arguments": {}}}
        ]})
    );
    assert_eq!(
        body["messages"][3],
        json!({"role": "tool", "content": "18°C, cloudy", "tool_name": "weather_get"})
    );
}

#[test]
fn watsonx_names_model_and_project() {
    let body = body(&provider("ibm"), &tool_round(), ResponseMode::Streaming);
    assert_eq!(body["model_id"], "ibm/granite-4-h-small");
    assert_eq!(body["project_id"], "project-42");
    assert_eq!(body["messages"][4]["tool_call_id"], "call_2");
    assert_eq!(body["tools"][1]["function"]["name"], "clock_now");
    assert!(body.get("model").is_none());
}

/// Two runs of one conversation on a provider that sends no call ids: the loop makes up
/// `call_<round>_<position>` ids, which start again at `call_1_0` in the second run.
fn two_runs_with_made_up_ids() -> Vec<ChatMessage> {
    let asking = |id: &str, name: &str, arguments: &str| {
        let mut assistant = ChatMessage::text(Role::Assistant, "");
        assistant.content = None;
        assistant.tool_calls = Some(vec![call(id, name, arguments, None)]);
        assistant
    };
    vec![
        ChatMessage::text(Role::User, "Weather in Paris?"),
        asking("call_1_0", "weather_get", r#"{"city":"Paris"}"#),
        ChatMessage::tool_result("call_1_0", "18°C, cloudy"),
        ChatMessage::text(Role::Assistant, "18°C and cloudy."),
        ChatMessage::text(Role::User, "And the time?"),
        asking("call_1_0", "clock_now", "{}"),
        ChatMessage::tool_result("call_1_0", "12:00"),
    ]
}

#[test]
fn a_result_is_named_after_the_nearest_call_with_its_id() {
    let messages = two_runs_with_made_up_ids();
    let gemini = body(&provider("google"), &messages, ResponseMode::Streaming);
    let names: Vec<&Value> = gemini["contents"]
        .as_array()
        .expect("contents")
        .iter()
        .filter_map(|turn| turn["parts"][0].get("functionResponse"))
        .map(|response| &response["name"])
        .collect();
    assert_eq!(names, [&json!("weather_get"), &json!("clock_now")]);
    let ollama = body(
        &provider_with("ollama", |config| config.api_key = None),
        &messages,
        ResponseMode::Streaming,
    );
    let names: Vec<&Value> = ollama["messages"]
        .as_array()
        .expect("messages")
        .iter()
        .filter(|message| message["role"] == "tool")
        .map(|message| &message["tool_name"])
        .collect();
    assert_eq!(names, [&json!("weather_get"), &json!("clock_now")]);
}

/// Gemini 3 "always returns a unique `id` with every `functionCall`. Include this exact `id` in
/// your `functionResponse`" (ai.google.dev/gemini-api/docs/function-calling, quoted in
/// NousResearch/hermes-agent#46077; earendil-works/pi#7494 sends ids to Gemini 3 and later only):
/// two calls of one function are told apart by their ids, not by name and order.
#[test]
fn gemini_3_echoes_each_call_id_on_the_call_and_its_response() {
    let mut messages = tool_round();
    messages[2].tool_calls.as_mut().unwrap()[1].function.name = "weather_get".into();
    for model in [
        "gemini-3-flash-preview",
        "models/gemini-3.1-pro-preview",
        "gemini-3.5-flash",
        "gemini-flash-latest",
    ] {
        let body = body(
            &provider_with("google", |config| config.model = Some(model.into())),
            &messages,
            ResponseMode::Streaming,
        );
        let calls: Vec<&Value> = body["contents"][1]["parts"]
            .as_array()
            .unwrap()
            .iter()
            .map(|part| &part["functionCall"])
            .collect();
        assert_eq!(
            calls,
            [
                &json!({"name": "weather_get", "args": {"city": "Paris"}, "id": "call_1"}),
                &json!({"name": "weather_get", "args": {}, "id": "call_2"})
            ],
            "{model}"
        );
        assert_eq!(
            body["contents"][2]["parts"],
            json!([
                {"functionResponse": {"name": "weather_get", "id": "call_1",
                                      "response": {"content": "18°C, cloudy"}}},
                {"functionResponse": {"name": "weather_get", "id": "call_2",
                                      "response": {"content": "12:00"}}}
            ]),
            "{model}"
        );
    }
    for model in ["gemini-2.5-flash", "gemini-exp-1206", "gemma-3-27b-it"] {
        let body = body(
            &provider_with("google", |config| config.model = Some(model.into())),
            &messages,
            ResponseMode::Streaming,
        );
        let text = body["contents"].to_string();
        assert!(
            !text.contains("call_1") && !text.contains("call_2"),
            "{model}: {text}"
        );
    }
}

#[test]
fn gemini_refuses_a_result_whose_call_comes_after_it() {
    let mut messages = two_runs_with_made_up_ids();
    messages.swap(1, 2);
    let error = provider("google")
        .chat_request(&messages, &tools(), ResponseMode::Streaming)
        .expect_err("the first result answers no earlier call");
    assert!(
        error.to_string().contains("answers no earlier call"),
        "{error}"
    );
}

/// Gemini's OpenAI-compatible endpoints (Gemini API, Vertex AI) get the signature each call
/// came with back in `extra_content`; other OpenAI-style servers never see the field.
#[test]
fn google_openai_endpoints_get_thought_signatures_back() {
    for (base_url, echoed) in [
        ("https://generativelanguage.googleapis.com/v1beta/openai", true),
        ("https://us-central1-aiplatform.googleapis.com/v1/projects/p/locations/l/endpoints/openapi", true),
        ("https://GENERATIVELANGUAGE.googleapis.com:443/v1beta/openai", true),
        ("https://googleapis.com.example.net/v1", false),
        ("https://api.example.net/googleapis.com/v1", false),
        ("http://127.0.0.1:9/v1beta/openai", false),
    ] {
        let provider = provider_with("openai_compatible", |config| {
            config.base_url = Some(base_url.into());
            config.model = Some("gemini-3-flash-preview".into());
        });
        let body = body(&provider, &tool_round(), ResponseMode::Streaming);
        let calls = &body["messages"][2]["tool_calls"];
        let expected = echoed.then(|| json!({"google": {"thought_signature": "sig-A"}}));
        assert_eq!(calls[0].get("extra_content"), expected.as_ref(), "{base_url}");
        assert_eq!(calls[1].get("extra_content"), None, "{base_url}: a call without one");
    }
}

/// Claude may write "\n\n" before a tool call; the API refuses text blocks of whitespace only.
#[test]
fn anthropic_leaves_out_text_blocks_of_whitespace_only() {
    let mut messages = tool_round();
    messages[0] = ChatMessage::text(Role::System, " \n");
    messages[2].content = Some(MessageContent::Text("\n\n".into()));
    messages.push(ChatMessage::text(Role::User, "  "));
    messages.push(ChatMessage::text(Role::User, " thanks "));
    let body = body(&provider("anthropic"), &messages, ResponseMode::Streaming);
    assert!(body.get("system").is_none(), "{body:#}");
    let turns = body["messages"].as_array().expect("messages");
    assert_eq!(turns[1]["content"][0]["type"], "thinking");
    let texts: Vec<&Value> = turns
        .iter()
        .flat_map(|turn| turn["content"].as_array().expect("blocks"))
        .filter(|block| block["type"] == "text")
        .map(|block| &block["text"])
        .collect();
    assert_eq!(
        texts,
        [
            &json!("Weather in Paris, and the time?"),
            &json!(" thanks ")
        ]
    );
}

/// An aborted run's messages end with the text streamed so far; sent back as they are, that last
/// assistant turn is a prefill, which the API refuses when it ends with whitespace ("final
/// assistant content cannot end with trailing whitespace"). Earlier turns keep theirs.
#[test]
fn anthropic_trims_the_end_of_a_final_assistant_text_only() {
    let earlier = ChatMessage::text(Role::Assistant, "First answer.\n\n");
    let cut = ChatMessage::text(Role::Assistant, "Here is the plan:\n\n1. ");
    let messages = vec![
        ChatMessage::text(Role::User, "Plan my day."),
        earlier,
        ChatMessage::text(Role::User, "Again, shorter."),
        cut,
    ];
    let body = body(&provider("anthropic"), &messages, ResponseMode::Streaming);
    let texts: Vec<&Value> = body["messages"]
        .as_array()
        .expect("messages")
        .iter()
        .map(|turn| &turn["content"][0]["text"])
        .collect();
    assert_eq!(
        texts,
        [
            &json!("Plan my day."),
            &json!("First answer.\n\n"),
            &json!("Again, shorter."),
            &json!("Here is the plan:\n\n1."),
        ]
    );
}

fn image_message(url: &str) -> Vec<ChatMessage> {
    let mut message = ChatMessage::text(Role::User, "");
    message.content = Some(MessageContent::Parts(vec![
        ContentPart::Text {
            text: "What is this?".into(),
        },
        ContentPart::ImageUrl {
            image_url: ImageUrl {
                url: url.into(),
                detail: None,
            },
        },
    ]));
    vec![message]
}

/// The OpenAI wire carries content parts as the message type's own `Serialize` writes them,
/// member order included.
#[test]
fn openai_content_parts_are_written_as_the_message_writes_them() {
    let mut messages = image_message(PNG);
    if let Some(MessageContent::Parts(parts)) = &mut messages[0].content {
        parts.push(ContentPart::ImageUrl {
            image_url: ImageUrl {
                url: HTTPS_IMAGE.into(),
                detail: Some("low".into()),
            },
        });
    }
    let body = body(&provider("openai"), &messages, ResponseMode::Streaming);
    let Some(MessageContent::Parts(parts)) = &messages[0].content else {
        unreachable!("the message was built with parts");
    };
    assert_eq!(
        serde_json::to_string(&body["messages"][0]["content"]).unwrap(),
        serde_json::to_string(parts).unwrap()
    );
    assert_eq!(
        body["messages"][0]["content"][2]["image_url"]["detail"],
        "low"
    );
}

const PNG: &str = "data:image/png;base64,iVBORw0KGgo=";
const HTTPS_IMAGE: &str = "https://127.0.0.1/cat.png";

#[test]
fn images_are_converted_per_wire() {
    let user_content = |id: &str, url: &str| -> Value {
        let body = body(&provider(id), &image_message(url), ResponseMode::Streaming);
        match id {
            "anthropic" => body["messages"][0]["content"].clone(),
            "google" => body["contents"][0]["parts"].clone(),
            _ => body["messages"][0].clone(),
        }
    };
    assert_eq!(
        user_content("openai", PNG)["content"],
        json!([
            {"type": "text", "text": "What is this?"},
            {"type": "image_url", "image_url": {"url": PNG}}
        ])
    );
    assert_eq!(
        user_content("anthropic", PNG),
        json!([
            {"type": "text", "text": "What is this?"},
            {"type": "image", "source":
                {"type": "base64", "media_type": "image/png", "data": "iVBORw0KGgo="}}
        ])
    );
    assert_eq!(
        user_content("anthropic", HTTPS_IMAGE)[1],
        json!({"type": "image", "source": {"type": "url", "url": HTTPS_IMAGE}})
    );
    assert_eq!(
        user_content("google", PNG),
        json!([
            {"text": "What is this?"},
            {"inlineData": {"mimeType": "image/png", "data": "iVBORw0KGgo="}}
        ])
    );
    assert_eq!(
        user_content("ollama", PNG),
        json!({"role": "user", "content": "What is this?", "images": ["iVBORw0KGgo="]})
    );
}

#[test]
fn images_a_provider_cannot_take_are_a_clear_error() {
    let cases = [
        ("google", HTTPS_IMAGE, None),
        ("ollama", HTTPS_IMAGE, None),
        ("deepseek", PNG, Some("deepseek-v4-pro")),
        ("groq", PNG, None),
        ("anthropic", "http://127.0.0.1/cat.png", None),
    ];
    for (id, url, model) in cases {
        let provider = provider_with(id, |config| config.model = model.map(str::to_owned));
        let error = provider
            .chat_request(&image_message(url), &[], ResponseMode::Streaming)
            .expect_err(id);
        assert_eq!(error.code(), "provider_images_unsupported", "{id}");
        assert!(error.to_string().contains(&provider.model), "{id}: {error}");
    }
    let accepted = provider_with("deepseek", |config| {
        config.model = Some("deepseek-flash".into())
    });
    assert!(accepted
        .chat_request(&image_message(PNG), &[], ResponseMode::Streaming)
        .is_ok());
}

#[test]
fn results_without_a_matching_call_are_refused_where_the_wire_needs_the_link() {
    let orphan = vec![
        ChatMessage::text(Role::User, "hi"),
        ChatMessage::tool_result("call_unknown", "42"),
    ];
    let error = provider("google")
        .chat_request(&orphan, &[], ResponseMode::Streaming)
        .expect_err("gemini needs the function name");
    assert_eq!(error.code(), "provider_invalid_conversation");

    let mut no_id = ChatMessage::tool_result("x", "42");
    no_id.tool_call_id = None;
    for id in ["openai", "anthropic"] {
        let error = provider(id)
            .chat_request(&[no_id.clone()], &[], ResponseMode::Streaming)
            .expect_err(id);
        assert_eq!(error.code(), "provider_invalid_conversation", "{id}");
    }
}

#[test]
fn caller_headers_replace_built_in_ones() {
    let provider = provider_with("openai", |config| {
        config.headers = Some(
            [
                ("Authorization".to_owned(), "Bearer proxy-token".to_owned()),
                ("x-trace".to_owned(), "abc".to_owned()),
            ]
            .into_iter()
            .collect(),
        );
    });
    let request = provider
        .chat_request(
            &[ChatMessage::text(Role::User, "hi")],
            &[],
            ResponseMode::Streaming,
        )
        .unwrap()
        .request;
    assert_eq!(request.header("authorization"), Some("Bearer proxy-token"));
    assert_eq!(request.header("x-trace"), Some("abc"));
    let authorizations = request
        .headers
        .iter()
        .filter(|(name, _)| name.eq_ignore_ascii_case("authorization"))
        .count();
    assert_eq!(authorizations, 1);
}

#[test]
fn a_plain_generation_sends_no_tools() {
    for id in ["openai", "anthropic", "google", "ollama", "ibm"] {
        let built = provider(id)
            .chat_request(
                &[ChatMessage::text(Role::User, "hi")],
                &[],
                ResponseMode::Streaming,
            )
            .unwrap();
        let body: Value = serde_json::from_str(&built.request.body).unwrap();
        assert!(body.get("tools").is_none(), "{id}");
        assert!(body.get("tool_choice").is_none(), "{id}");
        assert!(built.warnings.is_empty(), "{id}");
    }
}

/// A tool whose one parameter is a map (free-form keys), which has no strict-mode equivalent.
fn map_tool() -> ToolEntry {
    ToolEntry {
        function_name: "tags_set".into(),
        server: "notes".into(),
        tool: "set".into(),
        description: None,
        input_schema: json!({
            "type": "object",
            "properties": {"tags": {"type": "object", "additionalProperties": {"type": "string"}}},
            "required": ["tags"]
        }),
        annotations: None,
    }
}

#[test]
fn a_tool_that_cannot_be_strict_goes_plain_with_the_reason_as_a_warning() {
    let map_tool = map_tool();
    let built = provider("openai")
        .chat_request(
            &[ChatMessage::text(Role::User, "tag it")],
            std::slice::from_ref(&map_tool),
            ResponseMode::Streaming,
        )
        .unwrap();
    let body: Value = serde_json::from_str(&built.request.body).unwrap();
    let function = &body["tools"][0]["function"];
    assert!(function.get("strict").is_none());
    assert_eq!(
        function["parameters"],
        sanitize_schema(&map_tool.input_schema, SchemaDialect::OpenAi).schema
    );
    assert!(
        built
            .warnings
            .iter()
            .any(|warning| warning.starts_with("tags_set: not strict: ")),
        "{:?}",
        built.warnings
    );
}

#[test]
fn tools_prepared_once_give_the_same_requests_as_tools_sanitized_per_request() {
    let mut tools = tools();
    // Cannot be strict: OpenAI gets the plain dialect and a warning saying why.
    tools.push(map_tool());
    let conversations = [vec![ChatMessage::text(Role::User, "hi")], tool_round()];
    for id in ["openai", "anthropic", "google", "ollama", "ibm", "deepseek"] {
        let provider = provider(id);
        let prepared = provider.provider_tools(&tools);
        for messages in &conversations {
            for mode in [ResponseMode::Streaming, ResponseMode::Whole] {
                let each_time = provider.chat_request(messages, &tools, mode).unwrap();
                let reused = provider
                    .chat_request_with(messages, &prepared, mode)
                    .unwrap();
                assert_eq!(reused, each_time, "{id} {mode:?}");
                assert!(reused.request.body.contains("\"weather_get\""), "{id}");
                assert_eq!(reused.warnings, prepared.warnings(), "{id}");
            }
        }
    }
    let openai_warnings = provider("openai")
        .provider_tools(&tools)
        .warnings()
        .to_vec();
    assert!(
        openai_warnings
            .iter()
            .any(|warning| warning.starts_with("tags_set: not strict")),
        "{openai_warnings:?}"
    );
}

/// Whether Mistral takes `id` as a tool call id: exactly 9 of `a-z A-Z 0-9`.
fn mistral_accepts_call_id(id: &Value) -> bool {
    id.as_str()
        .is_some_and(|id| id.len() == 9 && id.bytes().all(|byte| byte.is_ascii_alphanumeric()))
}

/// Mistral refuses any other tool call id in the conversation with 400 "Tool call id was
/// call_PTLP8xhu3uwZk4l3nlnrrJha but must be a-z, A-Z, 0-9, with a length of 9."
/// (https://github.com/anomalyco/opencode/issues/1680, https://github.com/nearai/ironclaw/issues/1241;
/// the rule: https://github.com/langchain-ai/langchain/pull/24668). A conversation begun with
/// another provider, or ids this loop made up (`call_1_0`), must still go: each id is sent in a
/// form Mistral takes, the same for a call and its result, and an id Mistral gave is kept.
#[test]
fn mistral_gets_tool_call_ids_of_nine_letters_and_digits() {
    let mut messages = tool_round();
    messages.extend(two_runs_with_made_up_ids());
    let mut own = ChatMessage::text(Role::Assistant, "");
    own.tool_calls = Some(vec![call("D681PevKs", "clock_now", "{}", None)]);
    messages.push(own);
    messages.push(ChatMessage::tool_result("D681PevKs", "12:01"));
    let body = body(&provider("mistral"), &messages, ResponseMode::Streaming);
    let mut calls: Vec<(String, Value)> = Vec::new();
    let mut results: Vec<(String, Value)> = Vec::new();
    for message in body["messages"].as_array().expect("messages") {
        for call in message["tool_calls"].as_array().into_iter().flatten() {
            calls.push((call["function"]["name"].to_string(), call["id"].clone()));
        }
        if message["role"] == "tool" {
            results.push((
                message["content"].to_string(),
                message["tool_call_id"].clone(),
            ));
        }
    }
    let all_ids = calls.iter().chain(&results).map(|(_, id)| id);
    for id in all_ids {
        assert!(mistral_accepts_call_id(id), "{id}");
    }
    let call_ids: Vec<&Value> = calls.iter().map(|(_, id)| id).collect();
    let result_ids: Vec<&Value> = results.iter().map(|(_, id)| id).collect();
    assert_eq!(call_ids, result_ids, "each result answers its call");
    assert_ne!(call_ids[0], call_ids[1], "distinct ids stay distinct");
    assert_eq!(
        call_ids[4],
        &json!("D681PevKs"),
        "an id Mistral gave is kept"
    );
}

/// Anthropic refuses a `tool_use` id (and a `tool_result`'s `tool_use_id`) outside
/// `^[a-zA-Z0-9_-]+$` with 400 "String should match pattern" — ids other providers give
/// (Kimi's `functions.get_weather:0`) or a restored conversation's
/// (https://github.com/HKUDS/nanobot/pull/4356). Each is sent in a form Anthropic takes, the same
/// for a call and its result; ids that differ stay different, and valid ones are kept.
#[test]
fn anthropic_gets_tool_use_ids_of_its_pattern() {
    let asking = |ids: &[&str]| {
        let mut assistant = ChatMessage::text(Role::Assistant, "");
        assistant.tool_calls = Some(
            ids.iter()
                .map(|id| call(id, "clock_now", "{}", None))
                .collect(),
        );
        assistant
    };
    let ids = [
        "functions.clock_now:0",
        "call|x",
        "call.x",
        "",
        "toolu_01A-b",
    ];
    let mut messages = vec![ChatMessage::text(Role::User, "The time?"), asking(&ids)];
    messages.extend(ids.iter().map(|id| ChatMessage::tool_result(*id, "12:00")));
    let body = body(&provider("anthropic"), &messages, ResponseMode::Streaming);
    let blocks: Vec<&Value> = body["messages"]
        .as_array()
        .expect("messages")
        .iter()
        .flat_map(|message| message["content"].as_array().expect("blocks"))
        .collect();
    let uses: Vec<&Value> = blocks
        .iter()
        .filter(|block| block["type"] == "tool_use")
        .map(|block| &block["id"])
        .collect();
    let results: Vec<&Value> = blocks
        .iter()
        .filter(|block| block["type"] == "tool_result")
        .map(|block| &block["tool_use_id"])
        .collect();
    let accepted = |id: &Value| {
        id.as_str().is_some_and(|id| {
            !id.is_empty()
                && id
                    .bytes()
                    .all(|byte| byte.is_ascii_alphanumeric() || byte == b'_' || byte == b'-')
        })
    };
    assert!(uses.iter().all(|id| accepted(id)), "{uses:?}");
    assert_eq!(uses, results, "each result answers its call");
    for (index, id) in uses.iter().enumerate() {
        assert!(!uses[..index].contains(id), "{id} given twice");
    }
    assert_eq!(uses[4], &json!("toolu_01A-b"));
}

/// OpenAI's Chat Completions (Azure's and GitHub Copilot's at least) refuse a tool call id longer
/// than 40 characters: 400 "Invalid 'messages[2].tool_calls[0].id': string too long. Expected
/// a string with maximum length 40, but got a string with length 44 instead." — ids made by
/// gateways or other providers, replayed (https://github.com/Portkey-AI/gateway/issues/1062,
/// https://github.com/BerriAI/litellm/issues/17343, https://github.com/anomalyco/opencode/issues/12653).
/// Such ids are sent shortened, still distinct and the same for a call and its result.
#[test]
fn openai_rows_get_tool_call_ids_of_at_most_40_characters() {
    let long = "portkey-6aa6db90-1b84-4155-9f32-f658c97d6b1b";
    let longer = "portkey-6aa6db90-1b84-4155-9f32-f658c97d6b1c";
    let mut assistant = ChatMessage::text(Role::Assistant, "");
    assistant.tool_calls = Some(vec![
        call(long, "clock_now", "{}", None),
        call(longer, "clock_now", "{}", None),
        call("call_abc", "clock_now", "{}", None),
    ]);
    let mut messages = vec![ChatMessage::text(Role::User, "The time?"), assistant];
    for id in [long, longer, "call_abc"] {
        messages.push(ChatMessage::tool_result(id, "12:00"));
    }
    for id in ["openai", "azure_openai"] {
        let body = body(&provider(id), &messages, ResponseMode::Streaming);
        let wire = body["messages"].as_array().expect("messages");
        let calls: Vec<&Value> = wire[1]["tool_calls"]
            .as_array()
            .expect("calls")
            .iter()
            .map(|call| &call["id"])
            .collect();
        let results: Vec<&Value> = wire[2..]
            .iter()
            .map(|result| &result["tool_call_id"])
            .collect();
        assert!(
            calls
                .iter()
                .all(|call| call.as_str().is_some_and(|call| call.len() <= 40)),
            "{id}: {calls:?}"
        );
        assert_eq!(calls, results, "{id}");
        assert_ne!(calls[0], calls[1], "{id}");
        assert_eq!(calls[2], &json!("call_abc"), "{id}");
    }
}

/// With thinking on, Anthropic refuses a conversation whose last assistant turn, when it used
/// tools or ends the conversation, does not start with a thinking block: 400 "Expected
/// `thinking` or `redacted_thinking`, but found `tool_use`. When `thinking` is enabled, a final
/// `assistant` message must start with a thinking block … To avoid this requirement, disable
/// `thinking`" (https://github.com/OpenRouterTeam/ai-sdk-provider/issues/162,
/// https://github.com/n8n-io/n8n/issues/22550). A conversation begun with another provider, or
/// thinking turned on mid-run, gives exactly that; such a request goes without thinking. With
/// thinking off, an assistant turn in the final position must not hold thinking blocks ("When
/// thinking is disabled, an `assistant` message in the final position cannot contain
/// `thinking`", https://github.com/tailcallhq/forgecode/issues/1853): they are left out.
#[test]
fn anthropic_thinking_follows_the_last_assistant_turn() {
    let thinking = |config: &mut ProviderConfig| config.thinking_budget = Some(2000);
    let mut asking = ChatMessage::text(Role::Assistant, "");
    asking.tool_calls = Some(vec![call("toolu_1", "clock_now", "{}", None)]);
    let unsigned_round = vec![
        ChatMessage::text(Role::User, "The time?"),
        asking,
        ChatMessage::tool_result("toolu_1", "12:00"),
    ];
    let body_of = |messages: &[ChatMessage], with_thinking: bool| {
        let provider = if with_thinking {
            provider_with("anthropic", thinking)
        } else {
            provider("anthropic")
        };
        body(&provider, messages, ResponseMode::Streaming)
    };
    let body = body_of(&unsigned_round, true);
    assert!(body.get("thinking").is_none(), "{body}");
    let mut partial = ChatMessage::text(Role::Assistant, "It is");
    partial.thinking_blocks = Some(vec![ThinkingBlock::Thinking {
        thinking: "Read the clock.".into(),
        signature: "EqQBCgIYAhIM".into(),
    }]);
    let ending_in_text = vec![ChatMessage::text(Role::User, "The time?"), partial];
    assert!(body_of(&ending_in_text[..1], true)
        .get("thinking")
        .is_some());
    let body = body_of(&ending_in_text, false);
    assert_eq!(
        body["messages"][1]["content"],
        json!([{"type": "text", "text": "It is"}])
    );
    let body = body_of(&ending_in_text, true);
    assert_eq!(body["messages"][1]["content"][0]["type"], "thinking");
    assert!(body.get("thinking").is_some());
    let body = body_of(&tool_round(), true);
    assert!(
        body.get("thinking").is_some(),
        "a signed round keeps thinking"
    );
}

/// Gemini 3 refuses a model turn whose first `functionCall` part carries no thought signature:
/// 400 "Function call is missing a thought_signature in functionCall parts"
/// (https://ai.google.dev/gemini-api/docs/thought-signatures: "you must pass back thought
/// signatures during function calling, otherwise you will get a validation error"). Calls that
/// Gemini did not make (another provider's, a conversation built by hand) have none; Google's
/// documented stand-in for them is `skip_thought_signature_validator`. Only the first call of a
/// turn needs one (parallel calls carry one on the first), and a real signature is kept.
#[test]
fn gemini_calls_without_a_signature_get_the_documented_stand_in() {
    let mut asking = ChatMessage::text(Role::Assistant, "");
    asking.tool_calls = Some(vec![
        call("call_1", "weather_get", r#"{"city":"Paris"}"#, None),
        call("call_2", "clock_now", "{}", None),
    ]);
    let mut messages = vec![ChatMessage::text(Role::User, "Weather and time?"), asking];
    messages.push(ChatMessage::tool_result("call_1", "18°C"));
    messages.push(ChatMessage::tool_result("call_2", "12:00"));
    let foreign = body(&provider("google"), &messages, ResponseMode::Streaming);
    let parts = &foreign["contents"][1]["parts"];
    assert_eq!(
        parts[0]["thoughtSignature"],
        "skip_thought_signature_validator"
    );
    assert!(parts[1].get("thoughtSignature").is_none(), "{parts}");
    let signed = body(&provider("google"), &tool_round(), ResponseMode::Streaming);
    assert_eq!(
        signed["contents"][1]["parts"][0]["thoughtSignature"],
        "sig-A"
    );
}

/// Google's OpenAI-compatible endpoints carry the thought signature in `extra_content` and
/// hold Gemini 3's rule there too: a turn whose first call has none is refused ("Function call
/// is missing a thought_signature", https://ai.google.dev/gemini-api/docs/thought-signatures).
/// A first call without one (another provider's) gets Google's stand-in; other servers get
/// nothing of the kind.
#[test]
fn google_openai_endpoints_get_the_stand_in_for_a_foreign_first_call() {
    let mut asking = ChatMessage::text(Role::Assistant, "");
    asking.tool_calls = Some(vec![
        call("call_1", "clock_now", "{}", None),
        call("call_2", "clock_now", "{}", None),
    ]);
    let messages = vec![
        ChatMessage::text(Role::User, "The time?"),
        asking,
        ChatMessage::tool_result("call_1", "12:00"),
        ChatMessage::tool_result("call_2", "12:00"),
    ];
    for (base_url, stand_in) in [
        (
            "https://generativelanguage.googleapis.com/v1beta/openai",
            true,
        ),
        ("http://127.0.0.1:9/v1beta/openai", false),
    ] {
        let provider = provider_with("openai_compatible", |config| {
            config.base_url = Some(base_url.into());
            config.model = Some("gemini-3-flash-preview".into());
        });
        let sent = body(&provider, &messages, ResponseMode::Streaming);
        let calls = &sent["messages"][1]["tool_calls"];
        let expected = stand_in
            .then(|| json!({"google": {"thought_signature": "skip_thought_signature_validator"}}));
        assert_eq!(
            calls[0].get("extra_content"),
            expected.as_ref(),
            "{base_url}"
        );
        assert_eq!(calls[1].get("extra_content"), None, "{base_url}");
    }
}

/// OpenAI (and Azure, which hosts its models) refuse a function description over 1 024
/// characters: 400 "Invalid 'tools[13].function.description': string too long. Expected a
/// string with maximum length 1024, but got a string with length 1103 instead."
/// (`string_above_max_length`), which MCP servers' descriptions often pass
/// (https://github.com/getsentry/sentry-mcp/issues/106, https://github.com/aaif-goose/goose/pull/739,
/// https://github.com/danny-avila/LibreChat/issues/5741). Such a description is cut there, with a
/// warning; other providers get it whole.
#[test]
fn openai_rows_get_function_descriptions_of_at_most_1024_characters() {
    let long = format!("Reads a file. {}", "é".repeat(1500));
    let mut entries = tools();
    entries[0].description = Some(long.clone());
    let messages = [ChatMessage::text(Role::User, "Read it")];
    for (id, expected) in [
        ("openai", long.chars().take(1024).collect::<String>()),
        ("azure_openai", long.chars().take(1024).collect()),
        ("groq", long.clone()),
        ("deepseek", long.clone()),
    ] {
        let built = provider(id)
            .chat_request(&messages, &entries, ResponseMode::Streaming)
            .expect("builds");
        let body: Value = serde_json::from_str(&built.request.body).expect("body is JSON");
        assert_eq!(
            body["tools"][0]["function"]["description"],
            json!(expected),
            "{id}"
        );
        let cut = expected.len() < long.len();
        assert_eq!(
            built
                .warnings
                .iter()
                .any(|warning| warning.starts_with("weather_get: the description is cut")),
            cut,
            "{id}: {:?}",
            built.warnings
        );
    }
}

const SCREENSHOT_TEXT: &str = "[image block 0: image/png, 7 bytes, shown to the user]";

/// `rounds` screenshot calls, one a round, each answered with its text and one image, as the loop
/// writes a result for a provider that shows tool-result images; the user's question holds
/// `user_images` images of its own.
fn screenshot_rounds(rounds: usize, user_images: usize) -> Vec<ChatMessage> {
    let mut question = ChatMessage::text(Role::User, "");
    let mut parts = vec![ContentPart::Text {
        text: "Take screenshots.".into(),
    }];
    parts.extend((0..user_images).map(|_| png_part()));
    question.content = Some(MessageContent::Parts(parts));
    let mut messages = vec![question];
    for round in 0..rounds {
        let id = format!("call_{round}");
        let mut assistant = ChatMessage::text(Role::Assistant, "");
        assistant.content = None;
        assistant.tool_calls = Some(vec![call(&id, "screenshot", "{}", None)]);
        messages.push(assistant);
        messages.push(ChatMessage::tool_result_with_images(
            id,
            SCREENSHOT_TEXT,
            vec![png_part()],
        ));
    }
    messages
}

fn png_part() -> ContentPart {
    ContentPart::ImageUrl {
        image_url: ImageUrl {
            url: PNG.into(),
            detail: None,
        },
    }
}

/// Anthropic's `tool_result` takes image blocks (its docs' "tool result with images") and Gemini
/// 3's `functionResponse` media `parts` (its "multimodal function responses"); OpenAI's tool
/// messages take text parts only ("Image URLs are only allowed for messages with role 'user'")
/// and earlier Gemini models' functionResponse a JSON object: theirs keep the text describing the
/// image.
#[test]
fn tool_result_images_go_to_anthropic_and_gemini_3_and_the_other_wires_get_the_text() {
    let shown: Vec<&str> = ["anthropic", "openai", "google", "ollama", "deepseek"]
        .into_iter()
        .filter(|id| provider(id).shows_tool_result_images())
        .collect();
    assert_eq!(shown, ["anthropic", "google"]);
    let messages = screenshot_rounds(1, 0);
    let anthropic = body(&provider("anthropic"), &messages, ResponseMode::Streaming);
    assert_eq!(
        anthropic["messages"][2]["content"],
        json!([{"type": "tool_result", "tool_use_id": "call_0", "content": [
            {"type": "text", "text": SCREENSHOT_TEXT},
            {"type": "image", "source":
                {"type": "base64", "media_type": "image/png", "data": "iVBORw0KGgo="}}
        ]}])
    );
    let openai = body(&provider("openai"), &messages, ResponseMode::Streaming);
    assert_eq!(
        openai["messages"][2],
        json!({"role": "tool", "tool_call_id": "call_0", "content": SCREENSHOT_TEXT})
    );
    let gemini_3 = body(&provider("google"), &messages, ResponseMode::Streaming);
    assert_eq!(
        gemini_3["contents"][2]["parts"][0]["functionResponse"],
        json!({"name": "screenshot", "id": "call_0", "response": {"content": SCREENSHOT_TEXT},
               "parts": [{"inlineData": {"mimeType": "image/png", "data": "iVBORw0KGgo="}}]})
    );
    let gemini_2 = provider_with("google", |config| {
        config.model = Some("gemini-2.5-flash".into())
    });
    assert!(!gemini_2.shows_tool_result_images());
    let google = body(&gemini_2, &messages, ResponseMode::Streaming);
    assert_eq!(
        google["contents"][2]["parts"][0]["functionResponse"],
        json!({"name": "screenshot", "response": {"content": SCREENSHOT_TEXT}})
    );
}

/// Gemini's function responses take PNG, JPEG and WebP (not GIF), and its documented inline
/// request limit is 20 MB: the latest 20 images that fit in 15 MiB are sent, counting the user's,
/// a GIF stays text and takes no room.
#[test]
fn gemini_3_sends_the_latest_tool_result_images_it_takes_within_its_budget() {
    let mut messages = screenshot_rounds(23, 1);
    let gif = "data:image/gif;base64,R0lGODlh";
    let last = messages.last_mut().unwrap();
    let Some(MessageContent::Parts(parts)) = &mut last.content else {
        panic!("a result with an image")
    };
    parts.push(ContentPart::ImageUrl {
        image_url: ImageUrl {
            url: gif.into(),
            detail: None,
        },
    });
    let images_sent = |body: &Value| -> Vec<usize> {
        body["contents"]
            .as_array()
            .unwrap()
            .iter()
            .flat_map(|turn| turn["parts"].as_array().unwrap())
            .filter_map(|part| part.get("functionResponse"))
            .map(|response| {
                response
                    .get("parts")
                    .map_or(0, |media| media.as_array().unwrap().len())
            })
            .collect()
    };
    let gemini = body(&provider("google"), &messages, ResponseMode::Streaming);
    assert_eq!(images_sent(&gemini), [vec![0; 4], vec![1; 19]].concat());
    assert!(!gemini.to_string().contains("image/gif"));

    let large = format!("data:image/png;base64,{}", "A".repeat(6 * 1024 * 1024));
    let mut messages = screenshot_rounds(4, 0);
    for message in messages
        .iter_mut()
        .filter(|message| message.role == Role::Tool)
    {
        message.content = Some(MessageContent::Parts(vec![
            ContentPart::Text {
                text: SCREENSHOT_TEXT.into(),
            },
            ContentPart::ImageUrl {
                image_url: ImageUrl {
                    url: large.clone(),
                    detail: None,
                },
            },
        ]));
    }
    let gemini = body(&provider("google"), &messages, ResponseMode::Streaming);
    assert_eq!(images_sent(&gemini), [0, 0, 1, 1]);
}

/// Over 20 images in a request, Anthropic holds each to 2000 × 2000 px (its vision docs), which
/// screenshots pass: only the latest tool-result images that keep the request at 20, counting
/// the user's own, are sent; older results keep their text.
#[test]
fn anthropic_sends_the_latest_tool_result_images_up_to_twenty_in_all() {
    let anthropic = body(
        &provider("anthropic"),
        &screenshot_rounds(25, 2),
        ResponseMode::Streaming,
    );
    let results: Vec<&Value> = anthropic["messages"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|turn| turn["content"][0]["type"] == "tool_result")
        .map(|turn| &turn["content"][0]["content"])
        .collect();
    assert_eq!(results.len(), 25);
    let images_sent: Vec<usize> = results
        .iter()
        .map(|content| {
            content.as_array().map_or(0, |blocks| {
                blocks
                    .iter()
                    .filter(|block| block["type"] == "image")
                    .count()
            })
        })
        .collect();
    assert_eq!(images_sent, [vec![0; 7], vec![1; 18]].concat());
    assert_eq!(
        results[0],
        &json!([{"type": "text", "text": SCREENSHOT_TEXT}])
    );
}

fn with_extra_body(id: &str, extra: Value) -> Value {
    let provider = provider_with(id, |config| {
        config.temperature = Some(0.2);
        config.extra_body = extra.as_object().cloned();
    });
    body(&provider, &tool_round(), ResponseMode::Streaming)
}

/// `extraBody` sets what the settings do not name; an object goes into the object the request
/// already has, member by member.
#[test]
fn extra_body_members_are_merged_into_every_wire() {
    let openai = with_extra_body(
        "openai",
        json!({"reasoning_effort": "low", "stream_options": {"include_obfuscation": false}}),
    );
    assert_eq!(openai["reasoning_effort"], "low");
    assert_eq!(
        openai["stream_options"],
        json!({"include_usage": true, "include_obfuscation": false})
    );
    assert_eq!(openai["temperature"], 0.2);
    assert_eq!(openai["tools"], json!(expected_tools(true)));
    let ollama = with_extra_body(
        "ollama",
        json!({"options": {"num_ctx": 32768}, "keep_alive": "10m"}),
    );
    assert_eq!(
        ollama["options"],
        json!({"temperature": 0.2, "num_ctx": 32768})
    );
    assert_eq!(ollama["keep_alive"], "10m");
    let gemini = with_extra_body("google", json!({"generationConfig": {"topP": 0.9}}));
    assert_eq!(gemini["generationConfig"]["topP"], 0.9);
    assert_eq!(gemini["generationConfig"]["temperature"], 0.2);
    let anthropic = with_extra_body("anthropic", json!({"top_k": 5, "temperature": 1}));
    assert_eq!(anthropic["top_k"], 5);
    assert_eq!(
        anthropic["temperature"], 1,
        "the caller's value replaces the setting's"
    );
    // Anthropic's automatic prompt caching is one member at the top of the request (its prompt
    // caching docs), which the README gives as an example.
    let cached = with_extra_body("anthropic", json!({"cache_control": {"type": "ephemeral"}}));
    assert_eq!(cached["cache_control"], json!({"type": "ephemeral"}));
    assert!(!cached["messages"].to_string().contains("cache_control"));
}

#[test]
fn extra_body_cannot_set_what_each_request_writes() {
    for member in [
        "model",
        "messages",
        "contents",
        "system",
        "systemInstruction",
        "tools",
        "tool_choice",
        "stream",
    ] {
        let config = ProviderConfig {
            id: "openai".to_owned(),
            api_key: Some(KEY.to_owned()),
            extra_body: json!({ member: true }).as_object().cloned(),
            ..ProviderConfig::default()
        };
        let error = config.resolve().expect_err(member);
        assert_eq!(error.code(), "provider_reserved_body_member");
        assert_eq!(
            error.to_string(),
            format!("provider `openai`: `extraBody` cannot set `{member}`, which each request writes from the run and the settings")
        );
    }
}

/// `count` tools, the first `first_server` of server `files`, the rest of `github`.
fn many_tools(count: usize, first_server: usize) -> Vec<ToolEntry> {
    (0..count)
        .map(|index| {
            let server = if index < first_server {
                "files"
            } else {
                "github"
            };
            ToolEntry {
                function_name: format!("tool_{index}"),
                server: server.into(),
                tool: format!("tool-{index}"),
                description: None,
                input_schema: json!({"type": "object"}),
                annotations: None,
            }
        })
        .collect()
}

/// Providers that refuse a request offering more tools than they take, with a 400 that fails
/// every call of a run, are told the count before the first call:
/// - OpenAI: 128, "Invalid 'tools': array too long. Expected an array with maximum length 128,
///   but got an array with length 133 instead." (`array_above_max_length`;
///   openai/openai-openapi#76 sets `maxItems: 128`; zed-industries/zed#42393,
///   musistudio/claude-code-router#686 with 129);
/// - Groq: 128, "'tools' : maximum number of items is 128" (gsd-build/gsd-2#4376,
///   HunorLaczko/ha-groq-cloud-api#25);
/// - Gemini: 512, "tools[0].function_declarations: [FIELD_INVALID] At most 512 function
///   declarations can be specified." (google-gemini/gemini-cli#19083; google-genai's
///   `Tool.functionDeclarations`: "Maximum 512 function declarations can be provided"); all
///   declarations go in one `tools[0]`.
///
/// No limit is set where none was found (Anthropic, Mistral, DeepSeek), where the reports found
/// disagree (xAI: 200 in opencode#20500, 350 for grok-4.5 in github/copilot-cli#4836), or for
/// Azure OpenAI, for which no report of its own was found.
#[test]
fn a_tool_table_over_the_providers_limit_is_refused_with_the_count_of_each_server() {
    for (id, limit) in [("openai", 128), ("groq", 128), ("google", 512)] {
        let provider = provider(id);
        assert_eq!(provider.check_tool_count(&many_tools(limit, 100)), Ok(()));
        let error = provider
            .check_tool_count(&many_tools(limit + 2, 100))
            .expect_err("over the limit");
        assert_eq!(error.code(), "provider_too_many_tools");
        assert_eq!(
            error.to_string(),
            format!(
                "provider `{id}` takes at most {limit} tools in a request, and the run offers \
                 {} (`files` 100, `github` {}): offer fewer with `allowedTools` on an \
                 `mcpServers` entry, connect fewer MCP servers or give fewer `tools`",
                limit + 2,
                limit + 2 - 100
            )
        );
    }
    for id in ["anthropic", "azure_openai", "deepseek", "grok", "mistral"] {
        assert_eq!(
            provider(id).check_tool_count(&many_tools(600, 300)),
            Ok(()),
            "{id}"
        );
    }
}

/// watsonx writes the model as `model_id` and the project as `project_id` (IBM's text/chat
/// API), so `extraBody` may no more set them than it may set `model` elsewhere.
#[test]
fn extra_body_cannot_set_the_watsonx_model_or_project() {
    for member in ["model_id", "project_id"] {
        let config = ProviderConfig {
            id: "ibm".to_owned(),
            api_key: Some(KEY.to_owned()),
            project_id: Some("project-42".to_owned()),
            extra_body: json!({ member: "other" }).as_object().cloned(),
            ..ProviderConfig::default()
        };
        let error = config.resolve().expect_err(member);
        assert_eq!(error.code(), "provider_reserved_body_member", "{member}");
    }
}

/// Adaptive thinking (`thinking: {type: "adaptive"}`, required by Claude Opus 4.7, which refuses
/// `type: "enabled"`; Anthropic's extended-thinking docs) is asked for through `extraBody`: it
/// replaces the budget's `thinking` whole (`budget_tokens` is refused beside `adaptive`), keeps
/// `temperature` out as the budget does, and is left out with the budget's when the last
/// tool-using assistant turn does not start with a thinking block, which Anthropic refuses
/// while thinking is on.
#[test]
fn anthropic_thinking_from_extra_body_is_the_requests_thinking() {
    let adaptive = |config: &mut ProviderConfig| {
        config.temperature = Some(0.2);
        config.thinking_budget = Some(2000);
        config.extra_body = json!({"thinking": {"type": "adaptive"}})
            .as_object()
            .cloned();
    };
    let first_turn = body(
        &provider_with("anthropic", adaptive),
        &[ChatMessage::text(Role::User, "hi")],
        ResponseMode::Streaming,
    );
    assert_eq!(first_turn["thinking"], json!({"type": "adaptive"}));
    assert!(first_turn.get("temperature").is_none());
    let mut from_another_provider = tool_round();
    from_another_provider[2].thinking_blocks = None;
    let after_a_turn_without_thinking = body(
        &provider_with("anthropic", adaptive),
        &from_another_provider,
        ResponseMode::Streaming,
    );
    assert!(after_a_turn_without_thinking.get("thinking").is_none());
    assert_eq!(after_a_turn_without_thinking["temperature"], 0.2);
}

/// OpenAI takes `stream_options` only with `stream: true` ("Only set this when you set `stream:
/// true`", the Chat Completions reference): a whole-answer request (`missingIdStrategy`'s
/// re-request) leaves `extraBody`'s out, where a streamed one merges it.
#[test]
fn extra_body_stream_options_stay_out_of_a_whole_answer_request() {
    let provider = provider_with("openai", |config| {
        config.extra_body = json!({"stream_options": {"include_obfuscation": false}, "seed": 7})
            .as_object()
            .cloned();
    });
    let whole = body(&provider, &tool_round(), ResponseMode::Whole);
    assert!(whole.get("stream_options").is_none(), "{whole}");
    assert_eq!(whole["seed"], 7);
    let streamed = body(&provider, &tool_round(), ResponseMode::Streaming);
    assert_eq!(streamed["stream_options"]["include_obfuscation"], false);
}

/// A conversation begun with Anthropic holds its tool results' images; sent on to Ollama, whose
/// own runs keep tool messages to text (README), the tool message is its text alone, as on the
/// OpenAI-style and Gemini wires, rather than images an Ollama run would never have sent.
#[test]
fn ollama_tool_messages_carried_over_from_anthropic_are_their_text() {
    let ollama = body(
        &provider("ollama"),
        &screenshot_rounds(1, 0),
        ResponseMode::Streaming,
    );
    assert_eq!(
        ollama["messages"][2],
        json!({"role": "tool", "content": SCREENSHOT_TEXT, "tool_name": "screenshot"})
    );
}

/// Anthropic refuses a request over 32 MB (413 `request_too_large`, its API overview's request
/// size limits), and a conversation of large screenshots would then fail every call: the latest
/// tool-result images are sent only up to 24 MiB of image data, older ones as their text.
#[test]
fn anthropic_keeps_the_tool_result_images_of_a_request_under_its_size_limit() {
    let large_png = format!("data:image/png;base64,{}", "A".repeat(5 * 1024 * 1024 - 32));
    let mut messages = screenshot_rounds(6, 0);
    for message in &mut messages {
        if let Some(MessageContent::Parts(parts)) = &mut message.content {
            for part in parts {
                if let ContentPart::ImageUrl { image_url } = part {
                    image_url.url.clone_from(&large_png);
                }
            }
        }
    }
    let anthropic = body(&provider("anthropic"), &messages, ResponseMode::Streaming);
    let images_sent: Vec<usize> = anthropic["messages"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|turn| turn["content"][0]["type"] == "tool_result")
        .map(|turn| {
            turn["content"][0]["content"]
                .as_array()
                .map_or(0, |blocks| {
                    blocks.iter().filter(|b| b["type"] == "image").count()
                })
        })
        .collect();
    assert_eq!(images_sent, [0, 0, 1, 1, 1, 1]);
}

/// `max_tokens` must stay above `thinking.budget_tokens` (Anthropic's extended-thinking docs),
/// whichever setting gave the budget: `extraBody`'s raises the default as `thinkingBudget` does.
#[test]
fn anthropic_max_tokens_stays_above_a_budget_from_extra_body() {
    let body = body(
        &provider_with("anthropic", |config| {
            config.extra_body = json!({"thinking": {"type": "enabled", "budget_tokens": 8000}})
                .as_object()
                .cloned();
        }),
        &[ChatMessage::text(Role::User, "hi")],
        ResponseMode::Streaming,
    );
    assert_eq!(
        body["thinking"],
        json!({"type": "enabled", "budget_tokens": 8000})
    );
    assert_eq!(body["max_tokens"], 12096);
}

/// Gemini 3 takes `thinkingLevel`, and refuses a request holding it beside `thinkingBudget`
/// with a 400 (Google's Gemini 3 guide): `extraBody`'s `generationConfig.thinkingConfig`
/// replaces the budget's whole instead of being merged into it.
#[test]
fn gemini_thinking_config_from_extra_body_replaces_the_budgets() {
    let body = body(
        &provider_with("google", |config| {
            config.temperature = Some(0.5);
            config.thinking_budget = Some(512);
            config.extra_body = json!({"generationConfig": {"thinkingConfig":
                {"thinkingLevel": "low", "includeThoughts": true}}})
            .as_object()
            .cloned();
        }),
        &[ChatMessage::text(Role::User, "hi")],
        ResponseMode::Streaming,
    );
    assert_eq!(
        body["generationConfig"],
        json!({"temperature": 0.5, "thinkingConfig": {"thinkingLevel": "low", "includeThoughts": true}})
    );
}

/// The tools as the Responses API takes them: flat, with `strict` always written (it defaults to
/// true there, so a schema that cannot be strict must say false).
fn expected_flat_tools() -> Vec<Value> {
    let mut flat = Vec::new();
    for nested in expected_tools(true) {
        let mut tool = json!({"type": "function"});
        for (key, value) in nested["function"].as_object().unwrap() {
            tool[key] = value.clone();
        }
        if tool.get("strict").is_none() {
            tool["strict"] = json!(false);
        }
        flat.push(tool);
    }
    flat
}

/// OpenAI's Responses API reference (`POST /v1/responses`, input items, function tools) and its
/// reasoning guide (encrypted reasoning items with `store: false`): the conversation goes as
/// input items; the assistant turn's encrypted reasoning goes back first, without an id, and
/// Anthropic's thinking blocks, which the API could not read, are left out.
#[test]
fn responses_body_sends_input_items_and_echoes_encrypted_reasoning() {
    let body = body(
        &provider_with("openai_responses", |config| {
            config.max_tokens = Some(256);
            config.temperature = Some(0.2);
        }),
        &tool_round(),
        ResponseMode::Streaming,
    );
    assert_eq!(
        body,
        json!({
            "model": "gpt-6.1-sol",
            "stream": true,
            "store": false,
            "include": ["reasoning.encrypted_content"],
            "temperature": 0.2,
            "max_output_tokens": 256,
            "tool_choice": "auto",
            "tools": expected_flat_tools(),
            "input": [
                {"role": "developer", "content": "Be brief."},
                {"role": "user", "content": "Weather in Paris, and the time?"},
                {"type": "reasoning", "encrypted_content": "gAAAAABenc-1", "summary": [
                    {"type": "summary_text", "text": "Weather first, then the time."}
                ]},
                {"type": "function_call", "call_id": "call_1", "name": "weather_get",
                 "arguments": "{\"city\":\"Paris\"}"},
                {"type": "function_call", "call_id": "call_2", "name": "clock_now",
                 "arguments": ""},
                {"type": "function_call_output", "call_id": "call_1", "output": "18°C, cloudy"},
                {"type": "function_call_output", "call_id": "call_2", "output": "12:00"}
            ]
        })
    );
}

/// A model that does not reason refuses `include: ["reasoning.encrypted_content"]` with a 400
/// ("Encrypted content is not supported with this model"): it gets none, no reasoning items, and
/// its instructions as the system's; `extraBody` can still set `include` and `reasoning`.
#[test]
fn responses_body_for_a_model_that_does_not_reason() {
    let mut messages = tool_round();
    messages.push(ChatMessage::text(Role::Assistant, "Paris: 18°C at noon."));
    let body = body(
        &provider_with("openai_responses", |config| {
            config.model = Some("gpt-4.1".into())
        }),
        &messages,
        ResponseMode::Whole,
    );
    assert_eq!(body["stream"], json!(false));
    assert_eq!(body.get("include"), None);
    let input = body["input"].as_array().unwrap();
    assert_eq!(input[0], json!({"role": "system", "content": "Be brief."}));
    assert!(
        input.iter().all(|item| item["type"] != "reasoning"),
        "{input:?}"
    );
    assert_eq!(
        input.last(),
        Some(&json!({"role": "assistant", "content": "Paris: 18°C at noon."}))
    );
    let with_extra = body_with_extra(json!({"include": [], "reasoning": {"effort": "low"}}));
    assert_eq!(with_extra["include"], json!([]));
    assert_eq!(with_extra["reasoning"], json!({"effort": "low"}));
}

fn body_with_extra(extra: Value) -> Value {
    body(
        &provider_with("openai_responses", |config| {
            config.extra_body = Some(extra.as_object().unwrap().clone())
        }),
        &tool_round(),
        ResponseMode::Streaming,
    )
}

/// Images as `input_image` parts (OpenAI's "Images and vision" guide for the Responses API),
/// ids longer than 40 characters shortened the same way for a call and its result, and reasoning
/// with nothing after it (a turn stopped while the model reasoned) not sent: the API refuses a
/// reasoning item without the item it led to.
#[test]
fn responses_body_writes_images_long_ids_and_no_lone_reasoning() {
    let long_id = "toolu_01ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
    let mut lone_reasoning = ChatMessage::text(Role::Assistant, "");
    lone_reasoning.thinking_blocks = Some(vec![ThinkingBlock::Reasoning {
        summary: String::new(),
        encrypted_content: "gAAAA-lone".into(),
    }]);
    let mut calling = ChatMessage::text(Role::Assistant, "");
    calling.tool_calls = Some(vec![call(long_id, "clock_now", "{}", None)]);
    let mut user = ChatMessage::text(Role::User, "");
    user.content = Some(MessageContent::Parts(vec![
        ContentPart::Text {
            text: "What is this?".into(),
        },
        ContentPart::ImageUrl {
            image_url: ImageUrl {
                url: "data:image/png;base64,iVBORw0KGgo=".into(),
                detail: None,
            },
        },
    ]));
    let messages = vec![
        user,
        lone_reasoning,
        calling,
        ChatMessage::tool_result(long_id, "12:00"),
    ];
    let body = body(
        &provider("openai_responses"),
        &messages,
        ResponseMode::Streaming,
    );
    let input = body["input"].as_array().unwrap();
    assert_eq!(
        input[0]["content"],
        json!([
            {"type": "input_text", "text": "What is this?"},
            {"type": "input_image", "image_url": "data:image/png;base64,iVBORw0KGgo=",
             "detail": "auto"}
        ])
    );
    assert_eq!(input.len(), 3, "{input:?}");
    let sent_id = input[1]["call_id"].as_str().unwrap();
    assert_eq!(sent_id.len(), 40);
    assert_eq!(input[2]["call_id"], json!(sent_id));
}

/// Gemini's thought signature on a part that is not a call goes back on the turn's text (Gemini
/// API "Thought signatures": return each signature in the part it came with), and only to Gemini:
/// Anthropic would refuse it as a thinking block's signature, as Gemini would Anthropic's.
#[test]
fn a_gemini_text_signature_goes_back_to_gemini_alone() {
    let mut answer = ChatMessage::text(Role::Assistant, "Sunny.");
    answer.thinking_blocks = Some(vec![
        ThinkingBlock::Thinking {
            thinking: "Look outside.".into(),
            signature: "EqQBanthropic".into(),
        },
        ThinkingBlock::ThoughtSignature {
            signature: "CiQBtext".into(),
        },
    ]);
    let messages = vec![
        ChatMessage::text(Role::User, "Weather?"),
        answer,
        ChatMessage::text(Role::User, "And tomorrow?"),
    ];
    let gemini = body(&provider("google"), &messages, ResponseMode::Streaming);
    assert_eq!(
        gemini["contents"][1],
        json!({"role": "model", "parts": [{"text": "Sunny.", "thoughtSignature": "CiQBtext"}]})
    );
    let anthropic = body(&provider("anthropic"), &messages, ResponseMode::Streaming);
    let blocks = anthropic["messages"][1]["content"].as_array().unwrap();
    assert!(
        blocks
            .iter()
            .all(|block| block.get("signature") != Some(&json!("CiQBtext"))),
        "{blocks:?}"
    );
    assert_eq!(blocks[0]["signature"], "EqQBanthropic");
}

/// `toolChoice` in each wire's words, from the vendors' references: OpenAI Chat Completions
/// (`tool_choice`: "required", "none", `{type: "function", function: {name}}`), the Responses
/// API (`{type: "function", name}`), Anthropic (`{type: "any" | "none" | "tool", name}`), Gemini
/// (`toolConfig.functionCallingConfig`: mode `ANY`/`NONE`, `allowedFunctionNames`).
#[test]
fn tool_choice_is_asked_in_each_wire_s_words() {
    let named = ToolChoice::Tool("weather_get".into());
    let cases = [
        (
            "openai",
            ToolChoice::Required,
            "tool_choice",
            json!("required"),
        ),
        ("openai", ToolChoice::None, "tool_choice", json!("none")),
        (
            "openai",
            named.clone(),
            "tool_choice",
            json!({"type": "function", "function": {"name": "weather_get"}}),
        ),
        (
            "openai_responses",
            named.clone(),
            "tool_choice",
            json!({"type": "function", "name": "weather_get"}),
        ),
        (
            "anthropic",
            ToolChoice::Required,
            "tool_choice",
            json!({"type": "any"}),
        ),
        (
            "anthropic",
            ToolChoice::None,
            "tool_choice",
            json!({"type": "none"}),
        ),
        (
            "anthropic",
            named.clone(),
            "tool_choice",
            json!({"type": "tool", "name": "weather_get"}),
        ),
        (
            "google",
            ToolChoice::Required,
            "toolConfig",
            json!({"functionCallingConfig": {"mode": "ANY"}}),
        ),
        (
            "google",
            named.clone(),
            "toolConfig",
            json!({"functionCallingConfig": {"mode": "ANY", "allowedFunctionNames": ["weather_get"]}}),
        ),
        (
            "google",
            ToolChoice::None,
            "toolConfig",
            json!({"functionCallingConfig": {"mode": "NONE"}}),
        ),
    ];
    for (id, choice, member, expected) in cases {
        let provider = provider(id);
        let prepared = provider.provider_tools(&tools());
        let chosen = provider
            .tools_choosing(&prepared, &tools(), &choice)
            .expect("a choice this wire takes");
        let built = provider
            .chat_request_with(&tool_round(), &chosen, ResponseMode::Streaming)
            .unwrap();
        let body: Value = serde_json::from_str(&built.request.body).unwrap();
        assert_eq!(body[member], expected, "{id} {choice:?}");
        // The tools themselves are those of the plain request.
        let plain = provider
            .chat_request_with(&tool_round(), &prepared, ResponseMode::Streaming)
            .unwrap();
        let plain: Value = serde_json::from_str(&plain.request.body).unwrap();
        assert_eq!(body["tools"], plain["tools"], "{id}");
        assert_eq!(
            provider
                .tools_choosing(&prepared, &tools(), &ToolChoice::Auto)
                .unwrap(),
            prepared,
            "{id}: auto is the plain request"
        );
    }
}

/// A tool named by its MCP name is found when one server has it; a name no tool has, or a
/// wire that cannot be asked, fails with a coded error before anything is sent.
#[test]
fn tool_choice_names_a_tool_the_run_offers_on_a_wire_that_takes_it() {
    let openai = provider("openai");
    let prepared = openai.provider_tools(&tools());
    let by_mcp_name = openai
        .tools_choosing(&prepared, &tools(), &ToolChoice::Tool("now".into()))
        .unwrap();
    let built = openai
        .chat_request_with(&tool_round(), &by_mcp_name, ResponseMode::Streaming)
        .unwrap();
    let body: Value = serde_json::from_str(&built.request.body).unwrap();
    assert_eq!(body["tool_choice"]["function"]["name"], "clock_now");

    let mut twice = tools();
    twice.push(ToolEntry {
        function_name: "other_now".into(),
        server: "other".into(),
        ..twice[1].clone()
    });
    for (entries, name, problem) in [
        (tools(), "forecast", "names no tool the run offers"),
        (
            twice,
            "now",
            "names a tool of several servers: give its function name",
        ),
    ] {
        let error = openai
            .tools_choosing(&prepared, &entries, &ToolChoice::Tool(name.into()))
            .unwrap_err();
        assert_eq!(error.code(), "provider_unknown_tool_choice");
        assert_eq!(
            error.to_string(),
            format!("provider `openai`: `toolChoice` `{name}` {problem}")
        );
    }
    let ollama = provider("ollama");
    let error = ollama
        .tools_choosing(
            &ollama.provider_tools(&tools()),
            &tools(),
            &ToolChoice::Required,
        )
        .unwrap_err();
    assert_eq!(error.code(), "provider_tool_choice_unsupported");
}

/// `toolChoice` as JS gives it, with serde's error texts for what it is not.
#[test]
fn tool_choice_is_read_as_the_ai_sdk_writes_it() {
    let read = |value: Value| ToolChoice::from_json::<serde_json::Error>(value);
    assert_eq!(read(json!("auto")).unwrap(), ToolChoice::Auto);
    assert_eq!(read(json!("required")).unwrap(), ToolChoice::Required);
    assert_eq!(read(json!("none")).unwrap(), ToolChoice::None);
    assert_eq!(
        read(json!({"type": "tool", "toolName": "echo"})).unwrap(),
        ToolChoice::Tool("echo".into())
    );
    for (value, message) in [
        (
            json!("any"),
            "unknown variant `any`, expected one of `auto`, `required`, `none`",
        ),
        (json!({"type": "tool"}), "missing field `toolName`"),
        (
            json!({"type": "function", "toolName": "echo"}),
            "unknown variant `function`, expected `tool`",
        ),
        (
            json!({"type": "tool", "toolName": "echo", "name": "x"}),
            "unknown field `name`, expected `type` or `toolName`",
        ),
        (
            json!({"type": "tool", "toolName": ""}),
            "invalid type: string \"\", expected a tool name",
        ),
        (
            json!(3),
            "invalid type: integer `3`, expected \"auto\", \"required\", \"none\" or { type: \"tool\", toolName }",
        ),
    ] {
        assert_eq!(read(value.clone()).unwrap_err().to_string(), message, "{value}");
    }
}

/// OpenRouter's `reasoning_details`, kept on an assistant message as a `reasoning_details`
/// thinking block and read back from JS (`final.messages`), go back on that message unchanged,
/// as OpenRouter's docs ("Reasoning Tokens", "Preserving reasoning blocks") ask. Only the
/// OpenRouter row sends them: OpenAI's Chat Completions refuses a message member it does not
/// know with a 400, so a conversation moved from OpenRouter to OpenAI, DeepSeek or a
/// compatible server leaves them out, as it leaves out Anthropic's blocks.
#[test]
fn openrouter_alone_sends_reasoning_details_back() {
    let details = json!([
        {"type": "reasoning.text", "text": "Weather first.", "signature": "EqQBsig",
         "format": "anthropic-claude-v1", "index": 0},
        {"type": "reasoning.encrypted", "data": "CiQBenc", "id": "call_1",
         "format": "google-gemini-v1", "index": 1, "unknown_member": {"kept": [1, 2]}},
    ]);
    let mut messages = serde_json::to_value(tool_round()).expect("JSON");
    messages[2]["thinking_blocks"] = json!([{"type": "reasoning_details", "details": details}]);
    let messages: Vec<ChatMessage> = serde_json::from_value(messages).expect("messages read");
    for (id, sent) in [
        ("openrouter", Some(&details)),
        ("openai", None),
        ("deepseek", None),
        ("openai_compatible", None),
        ("anthropic", None),
    ] {
        let body = body(
            &provider_with(id, |config| config.model = Some("m".into())),
            &messages,
            ResponseMode::Streaming,
        );
        assert_eq!(body["messages"][2].get("reasoning_details"), sent, "{id}");
        let leaked = body.to_string().contains("CiQBenc");
        assert_eq!(leaked, sent.is_some(), "{id}: {body}");
    }
}
