#![cfg(not(target_arch = "wasm32"))]
//! The MCP session state machine and JSON-RPC handling, driven with scripted server answers.

use mcp_agent_wasm::core::mcp::jsonrpc::{
    answer_server_request, cancelled_notification, parse_incoming, progress_of, request_id_of,
    IncomingMessage, METHOD_NOT_FOUND,
};
use mcp_agent_wasm::core::mcp::session::{
    needs_ping_before_reuse, roots_list, CallDeadline, Elicitation, FailureDecision,
    InitializeFailure, ResumeDecision, Session, SessionState, StreamResumption, Transport,
    TransportMode, DEFAULT_RETRY_MS, LATEST_PROTOCOL_VERSION, MAX_RESUME_ATTEMPTS,
};
use mcp_agent_wasm::core::mcp::McpError;
use mcp_agent_wasm::core::sse::SseDecoder;
use serde_json::{json, Value};

fn header<'a>(headers: &'a [(&'static str, String)], name: &str) -> Option<&'a str> {
    headers
        .iter()
        .find(|(header_name, _)| header_name.eq_ignore_ascii_case(name))
        .map(|(_, value)| value.as_str())
}

/// Answers the initialize `session` began, in a supported version and with `session_id`; its
/// `notifications/initialized` is not accepted yet.
fn answer_initialize(session: &mut Session, session_id: Option<&str>) {
    session
        .handle_initialize_response(session_id)
        .expect("initializing");
    session
        .handle_initialize_result(
            &json!({"protocolVersion": "2025-06-18", "serverInfo": {"name": "s"}, "capabilities": {"tools": {}}}),
        )
        .expect("supported version");
}

fn initialized(mode: TransportMode, session_id: Option<&str>) -> Session {
    let mut session = Session::new("mcp-agent-wasm", "0.1.0", mode);
    session.begin_initialize();
    answer_initialize(&mut session, session_id);
    session.handle_initialized_accepted();
    session
}

#[test]
fn initialize_offers_the_latest_version_and_client_info() {
    let mut session = Session::new("mcp-agent-wasm", "0.1.0", TransportMode::Auto);
    let request = session.begin_initialize();
    assert_eq!(request.body["method"], "initialize");
    assert_eq!(request.body["id"], json!(request.id));
    assert_eq!(
        request.body["params"]["protocolVersion"],
        LATEST_PROTOCOL_VERSION
    );
    assert_eq!(
        request.body["params"]["clientInfo"],
        json!({"name": "mcp-agent-wasm", "version": "0.1.0"})
    );
    assert_eq!(
        session.state(),
        SessionState::Initializing {
            request_id: request.id
        }
    );
    let headers = session.post_headers();
    assert_eq!(header(&headers, "content-type"), Some("application/json"));
    assert_eq!(
        header(&headers, "accept"),
        Some("application/json, text/event-stream")
    );
    assert_eq!(header(&headers, "mcp-protocol-version"), None);
    assert_eq!(header(&headers, "mcp-session-id"), None);
}

#[test]
fn initialized_session_sends_session_id_and_negotiated_version() {
    let mut session = Session::new("c", "1", TransportMode::Auto);
    session.begin_initialize();
    assert_eq!(
        session.handle_initialize_response(Some(" abc-123 ")),
        Ok(())
    );
    let notification = session
        .handle_initialize_result(
            &json!({"protocolVersion": "2025-06-18", "serverInfo": {"name": "srv", "version": "2"}, "capabilities": {}, "instructions": "be nice"}),
        )
        .expect("2025-06-18 is supported");
    assert_eq!(
        notification,
        json!({"jsonrpc": "2.0", "method": "notifications/initialized"})
    );
    assert_eq!(session.state(), SessionState::SendingInitialized);
    let notification_headers = session.post_headers();
    assert_eq!(
        header(&notification_headers, "mcp-protocol-version"),
        Some("2025-06-18")
    );
    session.handle_initialized_accepted();
    assert_eq!(session.state(), SessionState::Ready);
    assert_eq!(session.session_id(), Some("abc-123"));
    let server = session.server().expect("described");
    assert_eq!(server.server_info["name"], "srv");
    assert_eq!(server.instructions.as_deref(), Some("be nice"));
    let headers = session.post_headers();
    assert_eq!(header(&headers, "mcp-session-id"), Some("abc-123"));
    assert_eq!(header(&headers, "mcp-protocol-version"), Some("2025-06-18"));
    let get = session.get_headers(Some("ev-7"));
    assert_eq!(header(&get, "accept"), Some("text/event-stream"));
    assert_eq!(header(&get, "last-event-id"), Some("ev-7"));
    assert_eq!(header(&get, "mcp-session-id"), Some("abc-123"));
}

/// A session whose `notifications/initialized` was never accepted (refused, or lost to a timeout)
/// is not ready: the next use initializes again rather than sending requests the server refuses.
#[test]
fn a_session_is_ready_only_once_initialized_was_accepted() {
    let mut session = Session::new("c", "1", TransportMode::Auto);
    session.begin_initialize();
    answer_initialize(&mut session, Some("s"));
    assert_ne!(session.state(), SessionState::Ready);
    session.handle_initialized_accepted();
    assert_eq!(session.state(), SessionState::Ready);
    session.handle_initialized_accepted();
    assert_eq!(session.state(), SessionState::Ready, "accepted twice");
    session.close();
    session.handle_initialized_accepted();
    assert_eq!(session.state(), SessionState::Closed);
}

/// `close` while an initialize is on its way: its result does not revive the client.
#[test]
fn an_initialize_result_after_close_leaves_the_session_closed() {
    let mut session = Session::new("c", "1", TransportMode::Auto);
    session.begin_initialize();
    session.close();
    assert_eq!(
        session.handle_initialize_response(Some("s")),
        Err(McpError::Closed)
    );
    let delete_headers = session
        .give_up()
        .expect("the session opened meanwhile is ended");
    assert_eq!(header(&delete_headers, "mcp-session-id"), Some("s"));
    assert_eq!(session.state(), SessionState::Closed);
    let outcome = session.handle_initialize_result(&json!({"protocolVersion": "2025-06-18"}));
    assert_eq!(outcome, Err(McpError::Closed));
    assert_eq!(session.state(), SessionState::Closed);
    assert_eq!(header(&session.post_headers(), "mcp-session-id"), None);
}

#[test]
fn unsupported_server_version_fails_clearly() {
    let mut session = Session::new("c", "1", TransportMode::Auto);
    session.begin_initialize();
    let error = session
        .handle_initialize_result(&json!({"protocolVersion": "1999-01-01"}))
        .expect_err("unknown version");
    assert_eq!(error.code(), "mcp_unsupported_protocol_version");
    assert!(error.to_string().contains("1999-01-01"));
    assert_eq!(session.state(), SessionState::Uninitialized);
    session.begin_initialize();
    let missing_version = session
        .handle_initialize_result(&json!({}))
        .expect_err("no protocolVersion");
    assert_eq!(missing_version.code(), "mcp_invalid_message");
}

#[test]
fn request_ids_increase_and_tool_calls_carry_their_id_as_progress_token() {
    let mut session = initialized(TransportMode::Auto, Some("s"));
    let list = session.next_request("tools/list", json!({}));
    let call = session.tool_call_request("echo", json!({"message": "hi"}));
    assert!(call.id > list.id);
    assert_eq!(
        call.body["params"]["_meta"]["progressToken"],
        json!(call.id)
    );
    assert_eq!(call.body["params"]["arguments"]["message"], "hi");
    assert_eq!(call.body["params"]["name"], "echo");
}

/// (mode, status of the failed initialize POST, expected decision code, transport afterwards).
#[test]
fn initialize_failures_decide_the_legacy_fallback() {
    let cases: &[(TransportMode, u16, &str, Transport)] = &[
        (TransportMode::Auto, 400, "fallback", Transport::LegacySse),
        (TransportMode::Auto, 404, "fallback", Transport::LegacySse),
        (TransportMode::Auto, 405, "fallback", Transport::LegacySse),
        (
            TransportMode::Auto,
            401,
            "mcp_http_status",
            Transport::StreamableHttp,
        ),
        (
            TransportMode::Auto,
            500,
            "mcp_http_status",
            Transport::StreamableHttp,
        ),
        (
            TransportMode::StreamableHttp,
            405,
            "mcp_http_status",
            Transport::StreamableHttp,
        ),
        (
            TransportMode::StreamableHttp,
            404,
            "mcp_http_status",
            Transport::StreamableHttp,
        ),
        (
            TransportMode::Sse,
            404,
            "mcp_http_status",
            Transport::LegacySse,
        ),
    ];
    for (mode, status, expected, transport_after) in cases {
        let mut session = Session::new("c", "1", *mode);
        let initialize = session.begin_initialize();
        let decision = session.on_initialize_failure(initialize.id, *status, "nope");
        let code = match &decision {
            InitializeFailure::FallBackToLegacySse(_) => "fallback",
            InitializeFailure::Fail(error) => error.code(),
        };
        assert_eq!(code, *expected, "{mode:?} {status}");
        assert_eq!(session.transport(), *transport_after, "{mode:?} {status}");
    }
}

#[test]
fn a_second_legacy_failure_does_not_fall_back_again() {
    let mut session = Session::new("c", "1", TransportMode::Auto);
    let initialize = session.begin_initialize();
    assert!(matches!(
        session.on_initialize_failure(initialize.id, 405, ""),
        InitializeFailure::FallBackToLegacySse(McpError::HttpStatus { status: 405, .. })
    ));
    let initialize = session.begin_initialize();
    let decision = session.on_initialize_failure(initialize.id, 404, "gone");
    assert!(
        matches!(
            decision,
            InitializeFailure::Fail(McpError::HttpStatus { status: 404, .. })
        ),
        "{decision:?}"
    );
}

#[test]
fn expired_session_reinitializes_once_then_fails() {
    let mut session = initialized(TransportMode::Auto, Some("old"));
    assert_eq!(
        session.on_http_failure(404, "", Some("old"), false),
        FailureDecision::ReinitializeAndRetry
    );
    assert_eq!(session.state(), SessionState::Uninitialized);
    assert_eq!(session.session_id(), None);
    let request = session.begin_initialize();
    assert_eq!(header(&session.post_headers(), "mcp-session-id"), None);
    assert_eq!(request.body["method"], "initialize");
    session
        .handle_initialize_response(Some("new"))
        .expect("initializing");
    session
        .handle_initialize_result(&json!({"protocolVersion": "2025-11-25"}))
        .expect("supported");
    assert_eq!(
        header(&session.post_headers(), "mcp-session-id"),
        Some("new")
    );
    assert_eq!(
        session.on_http_failure(404, "", Some("new"), true),
        FailureDecision::Fail(McpError::SessionExpired)
    );
}

/// Servers built on the Python SDK until python-sdk#1808 (issue #1727) and on the TypeScript
/// SDK's example servers (typescript-sdk#389) answer a session id they no longer know
/// (after a restart or an idle expiry) with 400 `Bad Request: No valid session ID provided`
/// rather than the spec's 404. A request that carried the session id and got a 400 that speaks
/// of the session renews the session once, as a 404 does; a second such 400 is the server's own
/// error, and a 400 about anything else stays a plain failure.
#[test]
fn a_400_about_the_session_id_a_request_carried_renews_the_session_once() {
    let mut session = initialized(TransportMode::Auto, Some("old"));
    let unknown_session = r#"{"jsonrpc":"2.0","error":{"code":-32000,"message":"Bad Request: No valid session ID provided"},"id":null}"#;
    assert_eq!(
        session.on_http_failure(400, unknown_session, Some("old"), false),
        FailureDecision::ReinitializeAndRetry
    );
    assert_eq!(session.state(), SessionState::Uninitialized);
    assert_eq!(session.session_id(), None);
    session.begin_initialize();
    answer_initialize(&mut session, Some("new"));
    session.handle_initialized_accepted();
    assert!(matches!(
        session.on_http_failure(400, unknown_session, Some("new"), true),
        FailureDecision::Fail(McpError::HttpStatus { status: 400, .. })
    ));
    let mut other = initialized(TransportMode::Auto, Some("s"));
    assert!(matches!(
        other.on_http_failure(400, "Invalid request parameters", Some("s"), false),
        FailureDecision::Fail(McpError::HttpStatus { status: 400, .. })
    ));
    assert_eq!(other.state(), SessionState::Ready);
}

/// Many servers' CORS allow `Mcp-Session-Id` but not `MCP-Protocol-Version` (php-sdk#264,
/// netdata#22258, perplexityai/modelcontextprotocol#137): a browser's preflight then refuses
/// `notifications/initialized`, the first message that carries it, with a network error just
/// after the initialize went through. The notification is sent once more without the header,
/// which the session then leaves out (a server that keeps sessions knows the version from the
/// initialize); a new session tries the header again, and a ready session never drops it.
#[test]
fn an_unreachable_initialized_notification_is_retried_without_the_protocol_version_header() {
    let mut session = Session::new("c", "1", TransportMode::Auto);
    session.begin_initialize();
    answer_initialize(&mut session, Some("s1"));
    assert_eq!(
        header(&session.post_headers(), "mcp-protocol-version"),
        Some("2025-06-18")
    );
    assert!(session.retry_initialized_without_protocol_version_header());
    assert_eq!(
        header(&session.post_headers(), "mcp-protocol-version"),
        None
    );
    assert_eq!(
        header(&session.post_headers(), "mcp-session-id"),
        Some("s1")
    );
    assert!(
        !session.retry_initialized_without_protocol_version_header(),
        "only once"
    );
    session.handle_initialized_accepted();
    assert_eq!(session.state(), SessionState::Ready);
    assert_eq!(
        header(&session.get_headers(None), "mcp-protocol-version"),
        None
    );
    assert!(!session.retry_initialized_without_protocol_version_header());
    session.begin_initialize();
    answer_initialize(&mut session, Some("s2"));
    assert_eq!(
        header(&session.post_headers(), "mcp-protocol-version"),
        Some("2025-06-18")
    );
}

/// A server that refuses the offered version with an error naming the versions it supports (the
/// spec's own example under lifecycle "Error Handling": -32602 `Unsupported protocol version`
/// with `data.supported`) instead of answering with one of them is offered the newest of those
/// this client implements. A refusal naming none of them, or only the version just refused, or
/// naming no versions at all, ends the connect.
#[test]
fn a_version_refusal_naming_supported_versions_is_answered_with_one_of_them() {
    let refusal = |supported: Value| McpError::JsonRpc {
        code: -32602,
        message: "Unsupported protocol version".to_owned(),
        data: Some(json!({"supported": supported, "requested": LATEST_PROTOCOL_VERSION})),
    };
    let mut session = Session::new("c", "1", TransportMode::Auto);
    session.begin_initialize();
    assert!(session.offer_a_version_the_server_supports(&refusal(json!([
        "2099-01-01",
        "2024-11-05",
        "2025-03-26"
    ]))));
    let request = session.begin_initialize();
    assert_eq!(request.body["params"]["protocolVersion"], "2025-03-26");
    assert!(
        !session.offer_a_version_the_server_supports(&refusal(json!(["2025-03-26"]))),
        "the version just refused"
    );
    assert!(!session.offer_a_version_the_server_supports(&refusal(json!(["2099-01-01"]))));
    assert!(
        !session.offer_a_version_the_server_supports(&McpError::JsonRpc {
            code: -32602,
            message: "invalid params".to_owned(),
            data: None,
        })
    );
    assert_eq!(
        session.begin_initialize().body["params"]["protocolVersion"],
        "2025-03-26"
    );
}

/// Two requests in flight on one session both get 404 (the server restarted). The first re-
/// initializes; the second 404, judged while that initialize is in flight, is no refusal of an
/// initialize (so no legacy server): its request is sent again on the session being made, which
/// is left alone.
#[test]
fn a_second_404_during_a_reinitialization_waits_for_it_instead_of_falling_back() {
    let mut session = initialized(TransportMode::Auto, Some("s1"));
    assert_eq!(
        session.on_http_failure(404, "", Some("s1"), false),
        FailureDecision::ReinitializeAndRetry
    );
    let initialize = session.begin_initialize();
    assert_eq!(
        session.on_http_failure(404, "", Some("s1"), false),
        FailureDecision::ReinitializeAndRetry
    );
    assert_eq!(session.transport(), Transport::StreamableHttp);
    assert_eq!(
        session.state(),
        SessionState::Initializing {
            request_id: initialize.id
        }
    );
    answer_initialize(&mut session, Some("s2"));
    assert_eq!(
        header(&session.post_headers(), "mcp-session-id"),
        Some("s2")
    );
}

/// A request sent without a session id while another one re-initializes gets the spec's 400
/// ("Servers that require a session ID SHOULD respond to requests without an Mcp-Session-Id
/// header ... with HTTP 400"): a failure of that request, not a legacy server.
#[test]
fn a_400_for_a_request_sent_during_a_reinitialization_is_not_a_legacy_server() {
    let mut session = initialized(TransportMode::Auto, Some("s1"));
    session.on_http_failure(404, "", Some("s1"), false);
    let initialize = session.begin_initialize();
    let decision = session.on_http_failure(400, "no session id", None, false);
    assert!(
        matches!(
            decision,
            FailureDecision::Fail(McpError::HttpStatus { status: 400, .. })
        ),
        "{decision:?}"
    );
    assert_eq!(session.transport(), Transport::StreamableHttp);
    assert_eq!(
        session.state(),
        SessionState::Initializing {
            request_id: initialize.id
        }
    );
}

/// Only the refusal of the initialize in flight decides the transport: one of an earlier,
/// abandoned initialize does not.
#[test]
fn only_a_refusal_of_the_initialize_in_flight_falls_back_to_legacy_sse() {
    let mut session = Session::new("c", "1", TransportMode::Auto);
    let abandoned = session.begin_initialize();
    let current = session.begin_initialize();
    assert!(matches!(
        session.on_initialize_failure(abandoned.id, 404, ""),
        InitializeFailure::Fail(McpError::HttpStatus { status: 404, .. })
    ));
    assert_eq!(session.transport(), Transport::StreamableHttp);
    assert_eq!(
        session.state(),
        SessionState::Initializing {
            request_id: current.id
        }
    );
    assert!(matches!(
        session.on_initialize_failure(current.id, 404, ""),
        InitializeFailure::FallBackToLegacySse(_)
    ));
    assert_eq!(session.transport(), Transport::LegacySse);
}

/// A 404 that arrives after another request already replaced the expired session: the request
/// goes again on the new session, which stays.
#[test]
fn a_404_for_an_already_replaced_session_keeps_the_new_one() {
    let mut session = initialized(TransportMode::Auto, Some("new"));
    assert_eq!(
        session.on_http_failure(404, "", Some("old"), false),
        FailureDecision::ReinitializeAndRetry
    );
    assert_eq!(session.state(), SessionState::Ready);
    assert_eq!(session.session_id(), Some("new"));
}

#[test]
fn a_404_without_session_id_is_a_plain_http_error() {
    let mut session = initialized(TransportMode::Auto, Some("s"));
    let decision = session.on_http_failure(404, "not here", None, false);
    assert_eq!(
        decision,
        FailureDecision::Fail(McpError::HttpStatus {
            status: 404,
            body: "not here".to_owned()
        })
    );
}

#[test]
fn unreadable_session_id_is_reported_as_a_cors_problem() {
    let mut session = initialized(TransportMode::Auto, None);
    let decision = session.on_http_failure(400, "Bad Request: No valid session ID", None, false);
    let FailureDecision::Fail(error) = decision else {
        panic!("expected a failure, got {decision:?}");
    };
    assert_eq!(error.code(), "mcp_cors_header_missing");
    assert!(error
        .to_string()
        .contains("Access-Control-Expose-Headers: Mcp-Session-Id"));
    let mut legacy = initialized(TransportMode::Sse, None);
    assert!(matches!(
        legacy.on_http_failure(400, "", None, false),
        FailureDecision::Fail(McpError::HttpStatus { status: 400, .. })
    ));
}

#[test]
fn long_error_bodies_are_truncated() {
    let mut session = initialized(TransportMode::Auto, Some("s"));
    let body = "x".repeat(2000);
    let FailureDecision::Fail(McpError::HttpStatus { body, .. }) =
        session.on_http_failure(500, &body, Some("s"), false)
    else {
        panic!("expected an HTTP status error");
    };
    assert_eq!(body.chars().count(), 501);
}

#[test]
fn a_lost_connection_needs_a_new_initialize_but_a_closed_session_stays_closed() {
    let mut session = initialized(TransportMode::Sse, None);
    session.connection_lost();
    assert_eq!(session.state(), SessionState::Uninitialized);
    let mut closed = initialized(TransportMode::Auto, Some("s"));
    closed.close();
    closed.connection_lost();
    assert_eq!(closed.state(), SessionState::Closed);
    closed.on_http_failure(404, "", Some("s"), false);
    assert_eq!(closed.state(), SessionState::Closed);
}

#[test]
fn ping_requests_carry_no_params_member() {
    let mut session = initialized(TransportMode::Auto, Some("s"));
    let ping = session.next_request("ping", Value::Null);
    assert_eq!(
        ping.body,
        json!({"jsonrpc": "2.0", "id": ping.id, "method": "ping"})
    );
}

#[test]
fn close_asks_for_delete_only_with_a_streamable_session() {
    let mut with_id = initialized(TransportMode::Auto, Some("s"));
    let delete_headers = with_id.close().expect("a DELETE");
    assert_eq!(header(&delete_headers, "mcp-session-id"), Some("s"));
    assert_eq!(
        header(&delete_headers, "mcp-protocol-version"),
        Some("2025-06-18")
    );
    assert_eq!(with_id.state(), SessionState::Closed);
    assert_eq!(with_id.close(), None, "ended once");
    assert_eq!(initialized(TransportMode::Auto, None).close(), None);
    assert_eq!(initialized(TransportMode::Sse, Some("s")).close(), None);
}

/// A connect given up (timed out) after the server opened the session, its
/// `notifications/initialized` unanswered: the session is ended, and the next use starts anew.
#[test]
fn a_session_given_up_while_initializing_is_ended_and_started_anew() {
    let mut session = Session::new("c", "1", TransportMode::Auto);
    session.begin_initialize();
    assert_eq!(session.give_up(), None, "no session opened yet");
    session.begin_initialize();
    answer_initialize(&mut session, Some("s"));
    let delete_headers = session.give_up().expect("a DELETE");
    assert_eq!(header(&delete_headers, "mcp-session-id"), Some("s"));
    assert_eq!(session.state(), SessionState::Uninitialized);
    assert_eq!(header(&session.post_headers(), "mcp-session-id"), None);
    assert_eq!(session.give_up(), None, "ended once");
}

#[test]
fn resumption_waits_the_server_retry_and_is_bounded() {
    let mut stream = StreamResumption::new();
    assert!(matches!(
        stream.on_closed_early(),
        ResumeDecision::GiveUp(McpError::StreamEnded(_))
    ));
    stream.observe_event(Some("e1"), None);
    assert_eq!(
        stream.on_closed_early(),
        ResumeDecision::Reconnect {
            delay_ms: DEFAULT_RETRY_MS,
            last_event_id: "e1".to_owned()
        }
    );
    stream.observe_event(Some("e1"), Some(500));
    for _ in 1..MAX_RESUME_ATTEMPTS {
        assert_eq!(
            stream.on_closed_early(),
            ResumeDecision::Reconnect {
                delay_ms: 500,
                last_event_id: "e1".to_owned()
            }
        );
    }
    assert!(matches!(
        stream.on_closed_early(),
        ResumeDecision::GiveUp(McpError::StreamEnded(_))
    ));
    stream.observe_event(Some("e2"), None);
    assert_eq!(
        stream.on_closed_early(),
        ResumeDecision::Reconnect {
            delay_ms: 500,
            last_event_id: "e2".to_owned()
        }
    );
}

/// Some servers echo the client's numeric request id as a string (`"id": "3"`): the Python SDK's
/// client matches such replies since python-sdk#1720, which reports them timing out. The reply
/// still answers request 3, and a progress token echoed the same way still names it; another
/// spelling of the number does not.
#[test]
fn a_request_id_echoed_as_a_string_still_matches() {
    let messages = parse_incoming(
        r#"[{"jsonrpc":"2.0","id":"3","result":{}},
            {"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"3","progress":1}}]"#,
    )
    .expect("a batch");
    assert!(messages[0].answers(3));
    assert!(!messages[0].answers(30));
    let progress = progress_of(&messages[1]).expect("progress");
    assert_eq!(request_id_of(&progress.progress_token), Some(3));
    assert_eq!(request_id_of(&json!(3)), Some(3));
    for other in [
        json!("03"),
        json!("+3"),
        json!(" 3"),
        json!("three"),
        json!(3.5),
    ] {
        assert_eq!(request_id_of(&other), None, "{other}");
    }
}

/// What the web layer's `SseReader` and `read_reply` do with a POST's SSE stream whose connection
/// breaks: the stream's unfinished event is discarded, every dispatched event is parsed (a parse
/// failure ends the call), and the stream is resumed from the decoder's last event id.
fn resume_after_a_broken_stream(bytes: &[u8]) -> ResumeDecision {
    let mut decoder = SseDecoder::new(32 * 1024 * 1024);
    let mut events = Vec::new();
    decoder.push(bytes, &mut events).expect("under the cap");
    decoder.discard_unfinished_event();
    for event in &events {
        assert!(
            parse_incoming(&event.data).is_ok(),
            "an unfinished event was dispatched: {:?}",
            event.data
        );
    }
    let mut resumption = StreamResumption::new();
    resumption.observe_event(decoder.last_event_id(), decoder.retry());
    resumption.on_closed_early()
}

/// The connection breaks inside the response event, or right after its `id:` line: the call is
/// resumed (not failed as an invalid message) from the last whole event, so that the server
/// replays the response instead of what follows it.
#[test]
fn a_stream_broken_inside_the_response_is_resumed_from_the_last_whole_event() {
    let progress = r#"{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":3,"progress":1}}"#;
    let whole_event = format!("retry: 50\nid: e1\ndata: {progress}\n\n");
    for cut_event in [
        "id: e2\ndata: {\"jsonrpc\":\"2.0\",\"id\":3,\"res",
        "id: e2\n",
    ] {
        assert_eq!(
            resume_after_a_broken_stream(format!("{whole_event}{cut_event}").as_bytes()),
            ResumeDecision::Reconnect {
                delay_ms: 50,
                last_event_id: "e1".to_owned()
            },
            "{cut_event:?}"
        );
    }
}

#[test]
fn deadline_restarts_on_progress() {
    let mut deadline = CallDeadline::new(1000, 10_000.0);
    assert_eq!(deadline.remaining_ms(10_400.0), 600);
    deadline.on_progress(10_900.0);
    assert_eq!(deadline.remaining_ms(11_000.0), 900);
    assert_eq!(deadline.remaining_ms(12_000.0), 0);
    assert!(!needs_ping_before_reuse(0.0, 59_999.0));
    assert!(needs_ping_before_reuse(0.0, 60_000.0));
}

#[test]
fn incoming_messages_are_classified() {
    let batch = r#"[
        {"jsonrpc":"2.0","id":3,"result":{"tools":[]}},
        {"jsonrpc":"2.0","id":4,"error":{"code":-32602,"message":"bad params","data":{"x":1}}},
        {"jsonrpc":"2.0","id":"srv-1","method":"sampling/createMessage","params":{}},
        {"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":4,"progress":2,"total":5,"message":"half"}}
    ]"#;
    let messages = parse_incoming(batch).expect("valid batch");
    assert_eq!(messages.len(), 4);
    assert!(messages[0].answers(3));
    assert!(!messages[0].answers(4));
    assert_eq!(
        messages[1],
        IncomingMessage::Response {
            id: json!(4),
            outcome: Err(McpError::JsonRpc {
                code: -32602,
                message: "bad params".to_owned(),
                data: Some(json!({"x": 1}))
            })
        }
    );
    assert!(
        matches!(&messages[2], IncomingMessage::Request { method, .. } if method == "sampling/createMessage")
    );
    let progress = progress_of(&messages[3]).expect("a progress notification");
    assert_eq!(progress.progress_token, json!(4));
    assert_eq!(progress.progress, 2.0);
    assert_eq!(progress.total, Some(5.0));
    assert_eq!(progress.message.as_deref(), Some("half"));
    assert_eq!(progress_of(&messages[0]), None);
    for bad in ["not json", "42", r#"{"jsonrpc":"2.0"}"#, r#"{"method":7}"#] {
        assert_eq!(
            parse_incoming(bad).map_err(|error| error.code()).err(),
            Some("mcp_invalid_message"),
            "{bad}"
        );
    }
    let without_result = parse_incoming(r#"{"id":1}"#).expect("a response to id 1");
    assert!(matches!(
        &without_result[0],
        IncomingMessage::Response {
            outcome: Err(McpError::InvalidMessage(_)),
            ..
        }
    ));
}

#[test]
fn server_requests_are_answered_never_left_hanging() {
    assert_eq!(
        answer_server_request(&json!(7), "ping"),
        json!({"jsonrpc": "2.0", "id": 7, "result": {}})
    );
    for method in [
        "sampling/createMessage",
        "elicitation/create",
        "roots/list",
        "x/y",
    ] {
        let answer = answer_server_request(&json!("r1"), method);
        assert_eq!(answer["id"], "r1");
        assert_eq!(answer["error"]["code"], json!(METHOD_NOT_FOUND));
        assert!(answer["error"]["message"]
            .as_str()
            .unwrap_or_default()
            .contains(method));
        assert_eq!(answer.get("result"), None::<&Value>);
    }
    assert_eq!(
        cancelled_notification(9, "timeout"),
        json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 9, "reason": "timeout"}})
    );
}

#[test]
fn elicitations_are_refused_unless_defaults_are_accepted() {
    let params = json!({
        "message": "please accept",
        "requestedSchema": {"type": "object", "properties": {
            "name": {"type": "string", "default": "John Doe"},
            "age": {"type": "integer", "default": 30},
            "verified": {"type": "boolean", "default": true},
            "nickname": {"type": "string"}
        }}
    });
    let mut refusing = Session::new("c", "1", TransportMode::Auto);
    let initialize = refusing.begin_initialize();
    assert_eq!(initialize.body["params"]["capabilities"], json!({}));
    let refusal = refusing.answer_server_request(&json!(5), "elicitation/create", &params);
    assert_eq!(refusal["error"]["code"], json!(METHOD_NOT_FOUND));

    let mut accepting = Session::new("c", "1", TransportMode::Auto);
    accepting.set_elicitation(Elicitation::AcceptDefaults);
    let initialize = accepting.begin_initialize();
    assert_eq!(
        initialize.body["params"]["capabilities"],
        json!({"elicitation": {"form": {}}})
    );
    assert_eq!(
        accepting.answer_server_request(&json!(5), "elicitation/create", &params),
        json!({"jsonrpc": "2.0", "id": 5, "result": {"action": "accept", "content": {
            "name": "John Doe", "age": 30, "verified": true
        }}})
    );
    let url_mode = json!({"mode": "url", "url": "https://example.com/consent", "message": "m"});
    assert_eq!(
        accepting.answer_server_request(&json!(6), "elicitation/create", &url_mode)["result"],
        json!({"action": "decline"})
    );
    assert_eq!(
        accepting.answer_server_request(&json!(7), "sampling/createMessage", &json!({}))["error"]
            ["code"],
        json!(METHOD_NOT_FOUND)
    );
}

/// MCP "Roots": a client with roots declares `roots` and answers `roots/list` with them; one
/// without refuses the request as unknown. The list is checked first: each `uri` a `file://`
/// URI, as the spec requires, and `name` a string.
#[test]
fn roots_are_declared_and_listed_as_given() {
    let roots =
        json!([{"uri": "file:///home/ada/project", "name": "project"}, {"uri": "file:///tmp"}]);
    let mut session = Session::new("c", "1", TransportMode::Auto);
    assert_eq!(
        session.answer_server_request(&json!(1), "roots/list", &Value::Null)["error"]["code"],
        json!(METHOD_NOT_FOUND)
    );
    session.set_roots(Some(roots_list(roots.clone()).expect("valid roots")));
    let initialize = session.begin_initialize();
    assert_eq!(
        initialize.body["params"]["capabilities"],
        json!({"roots": {}})
    );
    assert_eq!(
        session.answer_server_request(&json!(2), "roots/list", &json!({})),
        json!({"jsonrpc": "2.0", "id": 2, "result": {"roots": roots}})
    );
    for (refused, reason) in [
        (
            json!({"uri": "file:///a"}),
            "`roots` is a list of { uri, name? }",
        ),
        (
            json!([{"uri": "https://example.com/"}]),
            "roots[0]: `uri` must be a file:// URI",
        ),
        (
            json!([{"uri": "file:///a"}, {"name": "b"}]),
            "roots[1]: `uri` must be a file:// URI",
        ),
        (
            json!([{"uri": "file:///a", "name": 3}]),
            "roots[0]: `name` must be a string",
        ),
    ] {
        assert_eq!(
            roots_list(refused.clone()),
            Err(reason.to_owned()),
            "{refused}"
        );
    }
}

/// The session id is the session's as soon as the initialize response's headers arrive, before
/// its result: a reply stream closed early is resumed with it, and a connect given up before the
/// result ends the session.
#[test]
fn the_session_id_is_known_from_the_initialize_response_headers() {
    let mut session = Session::new("c", "1", TransportMode::Auto);
    session.begin_initialize();
    assert_eq!(session.handle_initialize_response(Some("s")), Ok(()));
    let resume = session.get_headers(Some("event-1"));
    assert_eq!(header(&resume, "mcp-session-id"), Some("s"));
    assert_eq!(
        header(&resume, "mcp-protocol-version"),
        None,
        "none agreed yet"
    );
    let delete_headers = session.give_up().expect("a DELETE");
    assert_eq!(header(&delete_headers, "mcp-session-id"), Some("s"));
}

/// An idle session that failed its ping is replaced: ended, unless calls still run on it or the
/// server already forgot it (404).
#[test]
fn an_idle_session_whose_ping_failed_is_ended_unless_busy_or_forgotten() {
    let mut failed = initialized(TransportMode::Auto, Some("s"));
    let delete_headers = failed.give_up_after_failed_ping(false).expect("a DELETE");
    assert_eq!(header(&delete_headers, "mcp-session-id"), Some("s"));
    assert_eq!(failed.state(), SessionState::Uninitialized);
    let mut busy = initialized(TransportMode::Auto, Some("s"));
    assert_eq!(busy.give_up_after_failed_ping(true), None);
    assert_eq!(
        busy.state(),
        SessionState::Uninitialized,
        "replaced all the same"
    );
    let mut forgotten = initialized(TransportMode::Auto, Some("s"));
    forgotten.on_http_failure(404, "", Some("s"), true);
    assert_eq!(forgotten.give_up_after_failed_ping(false), None);
}
