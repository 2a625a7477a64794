//! Sampling in the pure core: a server's `sampling/createMessage` read into the conversation the
//! Agent's model is sent, and the model's answer written as the `CreateMessageResult` the server
//! gets. Shapes from the MCP specification 2025-11-25, "Client Features: Sampling", and the
//! request `@modelcontextprotocol/server-everything` 2026.8.31 sends (`trigger-sampling-request`).

use mcp_agent_wasm::core::mcp::sampling::{sampling_request, sampling_result};
use mcp_agent_wasm::core::mcp::session::{Session, TransportMode};
use mcp_agent_wasm::core::message::{ChatMessage, ContentPart, ImageUrl, MessageContent, Role};
use mcp_agent_wasm::core::model_event::{FinishReason, ModelEvent, ProviderStreamError};
use serde_json::json;

#[test]
fn server_everythings_request_becomes_a_system_and_a_user_message() {
    let params = json!({
        "messages": [{"role": "user", "content": {"type": "text", "text": "Resource trigger-sampling-request context: hi"}}],
        "systemPrompt": "You are a helpful test server.",
        "maxTokens": 100,
        "temperature": 0.7
    });
    let request = sampling_request(&params).expect("a well-formed request");
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
    let request = sampling_request(&params).expect("a well-formed request");
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
        assert_eq!(
            sampling_request(&params),
            Err(expected.to_owned()),
            "{params}"
        );
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
        sampling_result(&events, "gpt-4o-mini"),
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
        sampling_result(&ended, "m").expect("an answer")["stopReason"],
        "endTurn"
    );
    let failed = [ModelEvent::Error(ProviderStreamError {
        code: None,
        message: "overloaded".to_owned(),
    })];
    assert_eq!(
        sampling_result(&failed, "m"),
        Err("the model failed: overloaded".to_owned())
    );
}

#[test]
fn a_client_that_samples_declares_it() {
    let mut session = Session::new("c", "1", TransportMode::Auto);
    session.set_sampling(true);
    let initialize = session.begin_initialize();
    assert_eq!(
        initialize.body["params"]["capabilities"],
        json!({"sampling": {}})
    );
}
