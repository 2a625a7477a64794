//! The JSON shape of the loop's events: the discriminated union the JS API exposes (issue 8).

use mcp_agent_wasm::core::agent_loop::{AgentEvent, FinalReason, Outcome, OutcomeReason};
use mcp_agent_wasm::core::message::{ChatMessage, Role};
use mcp_agent_wasm::core::model_event::Usage;
use serde_json::json;

#[test]
fn events_serialize_to_the_js_shape() {
    let cases = vec![
        (
            AgentEvent::Round { round: 2 },
            json!({"type": "round", "round": 2}),
        ),
        (
            AgentEvent::Text {
                text: "hi".to_owned(),
            },
            json!({"type": "text", "text": "hi"}),
        ),
        (
            AgentEvent::Reasoning {
                text: "hmm".to_owned(),
            },
            json!({"type": "reasoning", "text": "hmm"}),
        ),
        (
            AgentEvent::ToolCall {
                id: "c1".to_owned(),
                name: "web_search".to_owned(),
                server: "web".to_owned(),
                tool: "search".to_owned(),
                arguments: json!({"query": "rust"}),
            },
            json!({"type": "toolCall", "id": "c1", "name": "web_search", "server": "web",
                   "tool": "search", "arguments": {"query": "rust"}}),
        ),
        (
            AgentEvent::ToolInputStart {
                id: "c1".to_owned(),
                name: "web_search".to_owned(),
            },
            json!({"type": "toolInputStart", "id": "c1", "name": "web_search"}),
        ),
        (
            AgentEvent::ToolInputDelta {
                id: "c1".to_owned(),
                delta: "{\"q\":".to_owned(),
            },
            json!({"type": "toolInputDelta", "id": "c1", "delta": "{\"q\":"}),
        ),
        (
            AgentEvent::ToolInputDiscarded {
                id: "c1".to_owned(),
            },
            json!({"type": "toolInputDiscarded", "id": "c1"}),
        ),
        (
            AgentEvent::ToolEta {
                id: "c1".to_owned(),
                eta_ms: 1500,
            },
            json!({"type": "toolEta", "id": "c1", "etaMs": 1500}),
        ),
        (
            AgentEvent::ToolProgress {
                id: "c1".to_owned(),
                progress: 0.5,
                total: None,
                message: None,
            },
            json!({"type": "toolProgress", "id": "c1", "progress": 0.5}),
        ),
        (
            AgentEvent::ToolProgress {
                id: "c1".to_owned(),
                progress: 3.0,
                total: Some(4.0),
                message: Some("step 3".to_owned()),
            },
            json!({"type": "toolProgress", "id": "c1", "progress": 3.0, "total": 4.0,
                   "message": "step 3"}),
        ),
        (
            AgentEvent::ToolResult {
                id: "c1".to_owned(),
                text: "ok".to_owned(),
                content: vec![json!({"type": "text", "text": "ok"})],
                structured_content: None,
                is_error: false,
            },
            json!({"type": "toolResult", "id": "c1", "text": "ok",
                   "content": [{"type": "text", "text": "ok"}], "isError": false}),
        ),
        (
            AgentEvent::ToolResult {
                id: "c1".to_owned(),
                text: "bad".to_owned(),
                content: vec![],
                structured_content: Some(json!({"code": 1})),
                is_error: true,
            },
            json!({"type": "toolResult", "id": "c1", "text": "bad", "content": [],
                   "structuredContent": {"code": 1}, "isError": true}),
        ),
        (
            AgentEvent::ToolError {
                id: "c1".to_owned(),
                message: "timeout".to_owned(),
                code: None,
            },
            json!({"type": "toolError", "id": "c1", "message": "timeout"}),
        ),
        (
            AgentEvent::ToolError {
                id: "c1".to_owned(),
                message: "no answer within 5 ms".to_owned(),
                code: Some("mcp_timeout"),
            },
            json!({"type": "toolError", "id": "c1", "message": "no answer within 5 ms",
                   "code": "mcp_timeout"}),
        ),
        (
            AgentEvent::Usage(Usage {
                input_tokens: 10,
                output_tokens: 2,
                ..Default::default()
            }),
            json!({"type": "usage", "inputTokens": 10, "outputTokens": 2}),
        ),
        (
            AgentEvent::Usage(Usage {
                input_tokens: 10,
                output_tokens: 9,
                cached_input_tokens: Some(8),
                reasoning_tokens: Some(0),
            }),
            json!({"type": "usage", "inputTokens": 10, "outputTokens": 9,
                   "cachedInputTokens": 8, "reasoningTokens": 0}),
        ),
        (
            AgentEvent::Final {
                text: "done".to_owned(),
                reason: FinalReason::Exhausted,
                messages: vec![ChatMessage::text(Role::User, "hi")],
                finish_reason: None,
            },
            json!({"type": "final", "text": "done", "reason": "exhausted",
                   "messages": [{"role": "user", "content": "hi"}]}),
        ),
        (
            AgentEvent::Final {
                text: "cut".to_owned(),
                reason: FinalReason::Completed,
                messages: Vec::new(),
                finish_reason: Some("length"),
            },
            json!({"type": "final", "text": "cut", "reason": "completed", "messages": [],
                   "finishReason": "length"}),
        ),
    ];
    for (event, expected) in cases {
        assert_eq!(serde_json::to_value(&event).unwrap(), expected, "{event:?}");
    }
    let reasons = [
        (FinalReason::Completed, "completed"),
        (FinalReason::Exhausted, "exhausted"),
        (FinalReason::Aborted, "aborted"),
    ];
    for (reason, expected) in reasons {
        assert_eq!(serde_json::to_value(reason).unwrap(), json!(expected));
    }
}

#[test]
fn outcome_serializes_with_its_reason_kind() {
    let outcome = Outcome {
        reason: OutcomeReason::Failed {
            code: "http_status".to_owned(),
            message: "503".to_owned(),
        },
        messages: vec![ChatMessage::text(Role::User, "hi")],
        text: String::new(),
        usage: Usage {
            input_tokens: 1,
            output_tokens: 0,
            ..Default::default()
        },
    };
    assert_eq!(
        serde_json::to_value(&outcome).unwrap(),
        json!({
            "reason": {"kind": "failed", "code": "http_status", "message": "503"},
            "messages": [{"role": "user", "content": "hi"}],
            "text": "",
            "usage": {"inputTokens": 1, "outputTokens": 0}
        })
    );
}

/// A run's counts are summed over its model calls; a part count one call reported and another
/// did not (a retried call through another route, a whole answer) is kept, never dropped.
#[test]
fn usage_parts_are_summed_when_any_call_reports_them() {
    let first = Usage {
        input_tokens: 100,
        output_tokens: 10,
        cached_input_tokens: Some(80),
        reasoning_tokens: None,
    };
    let second = Usage {
        input_tokens: 120,
        output_tokens: u64::MAX,
        cached_input_tokens: None,
        reasoning_tokens: Some(4),
    };
    assert_eq!(
        first.plus(second),
        Usage {
            input_tokens: 220,
            output_tokens: u64::MAX,
            cached_input_tokens: Some(80),
            reasoning_tokens: Some(4),
        }
    );
    assert_eq!(Usage::default().plus(Usage::default()), Usage::default());
}
