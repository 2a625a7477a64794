//! Elicitation checks of the pure core: the server's `elicitation/create` before the page sees
//! it, the page's answer before the server does, and the capability each way of answering
//! declares. Shapes from the MCP specification 2025-11-25, "Client Features: Elicitation", and
//! the form `@modelcontextprotocol/server-everything` 2026.8.31 sends (`trigger-elicitation-request`).

use mcp_agent_wasm::core::mcp::elicitation::{elicitation_request, elicitation_result};
use mcp_agent_wasm::core::mcp::jsonrpc::{
    parse_incoming, reply_to, IncomingMessage, INTERNAL_ERROR, INVALID_PARAMS,
    URL_ELICITATION_REQUIRED,
};
use mcp_agent_wasm::core::mcp::session::{Elicitation, Session, TransportMode};
use serde_json::{json, Value};

/// A form as server-everything asks it: titled and untitled enums, formats, bounds, `required`.
fn form() -> Value {
    json!({
        "message": "Please provide inputs for the following fields:",
        "requestedSchema": {
            "type": "object",
            "properties": {
                "name": {"type": "string", "title": "String"},
                "check": {"type": "boolean"},
                "email": {"type": "string", "format": "email"},
                "integer": {"type": "integer", "minimum": 1, "maximum": 100, "default": 42},
                "hero": {"type": "string", "oneOf": [
                    {"const": "hero-1", "title": "Superman"},
                    {"const": "hero-2", "title": "Green Lantern"}
                ]},
                "instruments": {"type": "array", "minItems": 1, "maxItems": 3,
                    "items": {"type": "string", "enum": ["Guitar", "Piano", "Drums"]}}
            },
            "required": ["name"]
        }
    })
}

fn checked_form() -> Value {
    elicitation_request(&form()).expect("a well-formed form")
}

#[test]
fn a_request_without_mode_is_a_form_and_keeps_every_member() {
    let request = checked_form();
    assert_eq!(request["mode"], "form");
    assert_eq!(request["message"], form()["message"]);
    assert_eq!(request["requestedSchema"], form()["requestedSchema"]);

    let url = json!({"mode": "url", "message": "Sign in", "url": "https://example.com/sign-in", "elicitationId": "e-1"});
    assert_eq!(elicitation_request(&url), Ok(url.clone()));
}

#[test]
fn malformed_requests_are_refused_with_the_reason() {
    let cases = [
        (json!("form"), "elicitation/create params must be an object"),
        (
            json!({"mode": "voice", "message": "m"}),
            "unknown elicitation mode \"voice\"",
        ),
        (
            json!({"requestedSchema": {"type": "object", "properties": {}}}),
            "form elicitation without a string `message`",
        ),
        (
            json!({"message": "m"}),
            "form elicitation without a `requestedSchema` with `properties`",
        ),
        (
            json!({"message": "m", "requestedSchema": {"type": "object"}}),
            "form elicitation without a `requestedSchema` with `properties`",
        ),
        (
            json!({"mode": "url", "message": "m", "elicitationId": "e"}),
            "url elicitation without a string `url`",
        ),
        (
            json!({"mode": "url", "message": "m", "url": "https://example.com"}),
            "url elicitation without a string `elicitationId`",
        ),
    ];
    for (params, expected) in cases {
        assert_eq!(
            elicitation_request(&params),
            Err(expected.to_owned()),
            "{params}"
        );
    }
}

#[test]
fn an_accepted_form_sends_the_content_the_schema_accepts() {
    let content = json!({"name": "Ada", "check": true, "email": "ada@example.com", "integer": 7,
        "hero": "hero-2", "instruments": ["Piano"]});
    assert_eq!(
        elicitation_result(
            &checked_form(),
            &json!({"action": "accept", "content": content})
        ),
        Ok(json!({"action": "accept", "content": content}))
    );
}

#[test]
fn declines_cancels_and_url_answers_carry_no_content() {
    for action in ["decline", "cancel"] {
        assert_eq!(
            elicitation_result(
                &checked_form(),
                &json!({"action": action, "content": {"name": "x"}})
            ),
            Ok(json!({"action": action}))
        );
    }
    let url = elicitation_request(
        &json!({"mode": "url", "message": "m", "url": "https://example.com", "elicitationId": "e"}),
    )
    .unwrap();
    assert_eq!(
        elicitation_result(&url, &json!({"action": "accept", "content": {"a": "b"}})),
        Ok(json!({"action": "accept"}))
    );
}

#[test]
fn wrong_answers_are_refused_with_the_reason() {
    let action = "the answer's `action` must be \"accept\", \"decline\" or \"cancel\"";
    let cases = [
        (json!(true), action.to_owned()),
        (json!({"action": "Accept"}), action.to_owned()),
        (json!({"content": {"name": "Ada"}}), action.to_owned()),
        (
            json!({"action": "accept", "content": "Ada"}),
            "the answer's `content` must be an object".to_owned(),
        ),
        (
            json!({"action": "accept", "content": {"name": "Ada", "extra": {"nested": 1}}}),
            "`content.extra` must be a string, a number, a boolean or an array of strings"
                .to_owned(),
        ),
        (
            json!({"action": "accept", "content": {"name": "Ada", "instruments": [1]}}),
            "`content.instruments` must be a string, a number, a boolean or an array of strings"
                .to_owned(),
        ),
        (
            json!({"action": "accept"}),
            "the answer does not match `requestedSchema`: field `name`: required property missing"
                .to_owned(),
        ),
        (
            json!({"action": "accept", "content": {"name": "Ada", "integer": 500}}),
            "the answer does not match `requestedSchema`: field `integer`: must be at most 100"
                .to_owned(),
        ),
        (
            json!({"action": "accept", "content": {"name": "Ada", "hero": "hero-9"}}),
            "the answer does not match `requestedSchema`".to_owned(),
        ),
    ];
    for (answer, expected) in cases {
        let refused = elicitation_result(&checked_form(), &answer).expect_err(&answer.to_string());
        assert!(refused.starts_with(&expected), "{answer}: {refused}");
    }
}

#[test]
fn replies_are_json_rpc_results_or_errors() {
    assert_eq!(
        reply_to(&json!("srv-1"), Ok(json!({"action": "cancel"}))),
        json!({"jsonrpc": "2.0", "id": "srv-1", "result": {"action": "cancel"}})
    );
    assert_eq!(
        reply_to(&json!(4), Err((INVALID_PARAMS, "bad".to_owned()))),
        json!({"jsonrpc": "2.0", "id": 4, "error": {"code": -32602, "message": "bad"}})
    );
    assert_eq!(INTERNAL_ERROR, -32603);
}

#[test]
fn a_page_that_answers_declares_form_and_url_modes() {
    let mut session = Session::new("c", "1", TransportMode::Auto);
    session.set_elicitation(Elicitation::ByPage);
    let initialize = session.begin_initialize();
    assert_eq!(
        initialize.body["params"]["capabilities"],
        json!({"elicitation": {"form": {}, "url": {}}})
    );
}

/// MCP 2025-11-25's error path of URL mode: a request refused with -32042 names the URLs the user
/// must open first in `data.elicitations`; they go into the error's message, which the model
/// reads, so it can tell the user where to go. Shape of server-everything's
/// `trigger-url-elicitation` with `errorPath: true`.
#[test]
fn a_url_elicitation_required_error_names_its_urls() {
    let reply = json!({"jsonrpc": "2.0", "id": 3, "error": {
        "code": URL_ELICITATION_REQUIRED,
        "message": "This request requires browser-based authorization.",
        "data": {"elicitations": [
            {"mode": "url", "url": "https://auth.example.com/start", "message": "Sign in", "elicitationId": "e1"},
            {"mode": "url", "url": "https://pay.example.com/", "elicitationId": "e2"},
            {"mode": "url", "message": "no url"}
        ]}
    }});
    let messages = parse_incoming(&reply.to_string()).expect("a response");
    let IncomingMessage::Response {
        outcome: Err(error),
        ..
    } = &messages[0]
    else {
        panic!("an error response: {messages:?}");
    };
    assert_eq!(
        error.to_string(),
        "server error -32042: This request requires browser-based authorization. (the user must \
         first open https://auth.example.com/start: Sign in, then https://pay.example.com/; then \
         ask again)"
    );
    let plain = json!({"jsonrpc": "2.0", "id": 4, "error": {"code": URL_ELICITATION_REQUIRED, "message": "m", "data": {}}});
    let messages = parse_incoming(&plain.to_string()).expect("a response");
    let IncomingMessage::Response {
        outcome: Err(error),
        ..
    } = &messages[0]
    else {
        panic!("an error response");
    };
    assert_eq!(error.to_string(), "server error -32042: m");
}
