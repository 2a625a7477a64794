//! Lone surrogate escapes in JSON text written by `JSON.stringify` (the web layer reads every JS
//! value through such text): they become U+FFFD, and the rest of the text is left alone.
#![cfg(not(target_arch = "wasm32"))]

use mcp_agent_wasm::core::json_text::replace_lone_surrogate_escapes;
use serde_json::Value;

#[test]
fn lone_surrogates_become_replacement_characters_and_the_rest_is_kept() {
    // (JSON text as JSON.stringify writes it, the string serde_json then reads)
    let cases = [
        (r#""plain""#, "plain"),
        (r#""tab\tand \u0001 control""#, "tab\tand \u{1} control"),
        (r#""cut emoji \ud83d end""#, "cut emoji \u{FFFD} end"),
        (r#""low first \ude00""#, "low first \u{FFFD}"),
        (r#""whole emoji \ud83d\ude00""#, "whole emoji \u{1F600}"),
        (
            r#""two highs \ud83d\ud83d\ude00""#,
            "two highs \u{FFFD}\u{1F600}",
        ),
        (
            r#""escaped backslash then u: \\ud83d""#,
            r"escaped backslash then u: \ud83d",
        ),
        (r#""high at the end \uD83D""#, "high at the end \u{FFFD}"),
        (
            "\"unicode kept: é 😀 \\ud800\"",
            "unicode kept: é 😀 \u{FFFD}",
        ),
    ];
    for (text, expected) in cases {
        let repaired = replace_lone_surrogate_escapes(text);
        let read: Value = serde_json::from_str(&repaired)
            .unwrap_or_else(|error| panic!("{text}: {error} in {repaired}"));
        assert_eq!(read, Value::String(expected.to_owned()), "{text}");
    }
}

#[test]
fn text_without_lone_surrogates_is_borrowed_unchanged() {
    for text in [
        r#"{"a":"b"}"#,
        r#""\ud83d\ude00""#,
        r#""\\ud800""#,
        r#""\u0000""#,
    ] {
        assert!(
            matches!(
                replace_lone_surrogate_escapes(text),
                std::borrow::Cow::Borrowed(_)
            ),
            "{text}"
        );
    }
}
