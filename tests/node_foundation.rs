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

/// The crate's own texts become JS strings once, told apart by address and length: a text that
/// begins another (the same address) is a string of its own.
#[wasm_bindgen_test]
fn static_texts_become_their_own_js_strings() {
    use mcp_agent_wasm::web::static_js_str;
    static KEYS: &str = "toolInputDelta";
    let (short, long) = (&KEYS[..4], KEYS);
    for _ in 0..2 {
        assert_eq!(static_js_str(short).as_string().as_deref(), Some("tool"));
        assert_eq!(static_js_str(long).as_string().as_deref(), Some(KEYS));
        assert_eq!(static_js_str("").as_string().as_deref(), Some(""));
    }
}

/// The conversation handed to JS (a run's `final` event and failure, a page tool's `messages`)
/// is built member by member: it must be what `JSON.parse` made of `ChatMessage`'s `Serialize`
/// text before, every optional member and every kind of block included.
#[wasm_bindgen_test]
fn messages_reach_js_as_their_serialize_writes_them() {
    use mcp_agent_wasm::core::message::{
        ChatMessage, ContentPart, FunctionCall, ImageUrl, MessageContent, MessageToolCall, Role,
        ThinkingBlock,
    };
    let image = |url: &str, detail: Option<&str>| ContentPart::ImageUrl {
        image_url: ImageUrl {
            url: url.to_owned(),
            detail: detail.map(str::to_owned),
        },
    };
    let call = |id: &str, signature: Option<&str>| MessageToolCall {
        id: id.to_owned(),
        call_type: "function".to_owned(),
        function: FunctionCall {
            name: "files__read".to_owned(),
            arguments: r#"{"path":"a \"b\""}"#.to_owned(),
        },
        thought_signature: signature.map(str::to_owned),
    };
    let details = serde_json::json!([
        {"type": "reasoning.text", "text": "é\u{1F600}", "index": 0, "format": null},
        {"type": "reasoning.encrypted", "data": "x", "nested": {"list": [1, 2.5, true]}},
    ]);
    let messages = vec![
        ChatMessage::text(Role::System, "be brief"),
        ChatMessage {
            content: Some(MessageContent::Parts(vec![
                ContentPart::Text {
                    text: "look".to_owned(),
                },
                image("data:image/png;base64,AAAA", Some("low")),
                image("https://example.com/a.png", None),
            ])),
            name: Some("ann".to_owned()),
            ..ChatMessage::text(Role::User, "")
        },
        ChatMessage {
            content: None,
            tool_calls: Some(vec![call("c1", Some("sig")), call("c2", None)]),
            reasoning_content: Some("because".to_owned()),
            thinking_blocks: Some(vec![
                ThinkingBlock::Thinking {
                    thinking: "hmm".to_owned(),
                    signature: "s1".to_owned(),
                },
                ThinkingBlock::RedactedThinking {
                    data: "d".to_owned(),
                },
                ThinkingBlock::Reasoning {
                    summary: "sum".to_owned(),
                    encrypted_content: "enc".to_owned(),
                },
                ThinkingBlock::ThoughtSignature {
                    signature: "s2".to_owned(),
                },
                ThinkingBlock::ReasoningDetails {
                    details: details.as_array().cloned().unwrap_or_default(),
                },
            ]),
            ..ChatMessage::text(Role::Assistant, "")
        },
        ChatMessage::tool_result("c1", "read"),
        ChatMessage {
            thinking_blocks: Some(Vec::new()),
            tool_calls: Some(Vec::new()),
            ..ChatMessage::text(Role::Assistant, "done")
        },
    ];
    let serialized = serde_json::to_string(&messages).expect("messages serialize");
    let parsed = js_sys::JSON::parse(&serialized).expect("JSON text");
    let expected = js_sys::JSON::stringify(&parsed).expect("stringify");
    let built = mcp_agent_wasm::web::json::messages_to_js(&messages);
    let actual = js_sys::JSON::stringify(&built).expect("stringify");
    assert_eq!(actual, expected);
}

/// A value serde_json refuses reports its reason without the position in JSON text the caller
/// never wrote (`from_js` cuts ` at line … column …` by its length; `JSON.stringify` writes one
/// line, and the column here runs to three digits and to five).
#[wasm_bindgen_test]
fn a_refused_value_is_reported_without_its_position_in_the_json_text() {
    let nested = format!("{}{}", "[".repeat(200), "]".repeat(200));
    let long = format!(r#"["{}", {nested}]"#, "x".repeat(12_000));
    for text in [nested.clone(), long] {
        let value = js_sys::JSON::parse(&text).expect("JSON text");
        let error = mcp_agent_wasm::web::json::from_js::<serde_json::Value>(&value)
            .expect_err("nested deeper than serde_json reads");
        assert_eq!(error, "recursion limit exceeded", "{}", &text[..40]);
    }
}
