//! Regression found by the `validate` fuzz target (fuzz/corpus/validate/ref-allof-fanout): a tool
//! schema whose definition refers to itself twice through `allOf` (`A = allOf[A, A]`) made
//! validation and `drop_optional_nulls` walk 2^128 paths, so one tool call from a hostile MCP
//! server's schema hung the page. Each call now visits a bounded number of schema nodes and
//! leaves the rest unchecked, and the problems found before that are still reported.

use mcp_agent_wasm::core::tools::{describe_errors, drop_optional_nulls, validate_arguments};
use serde_json::{json, Value};

fn fan_out(combinator: &str) -> Value {
    json!({
        "type": "object",
        "properties": {"query": {"type": "string"}, "note": {"type": "string"}},
        "required": ["query"],
        "$defs": {"A": {combinator: [{"$ref": "#/$defs/A"}, {"$ref": "#/$defs/A"}]}},
        "allOf": [{"$ref": "#/$defs/A"}]
    })
}

#[test]
fn self_referencing_combinators_end_and_keep_the_problems_found() {
    // (combinator, arguments, expected message)
    let cases = [
        ("allOf", json!({"query": "rust"}), ""),
        (
            "allOf",
            json!({}),
            "argument `query`: required property missing",
        ),
        (
            "anyOf",
            json!({"query": 7}),
            "argument `query`: expected string, got integer",
        ),
        // Both branches are the same schema, so a valid value matches two of them.
        (
            "oneOf",
            json!({"query": "rust"}),
            "arguments: matches several alternatives of `oneOf` (1, 2) but must match exactly one",
        ),
    ];
    for (combinator, arguments, expected) in cases {
        let errors = validate_arguments(&fan_out(combinator), &arguments);
        let message = describe_errors(&errors);
        assert!(
            message.starts_with(expected) && (expected.is_empty() == errors.is_empty()),
            "{combinator} {arguments}: got {message:?}, expected it to start with {expected:?}"
        );
    }
}

#[test]
fn dropping_optional_nulls_ends_on_self_referencing_schemas() {
    let mut arguments = json!({"query": "rust", "note": null});
    drop_optional_nulls(&fan_out("allOf"), &mut arguments);
    assert_eq!(arguments, json!({"query": "rust"}));
}
