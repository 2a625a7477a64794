#![cfg(not(target_arch = "wasm32"))]
//! The hand-written readers of message content and thinking blocks (written to keep serde's
//! `Content` buffer out of the shipped wasm) against serde's own derived readers: for each input,
//! both give the same message or the same error text. The derived twins below carry the
//! attributes the message types had before.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use mcp_agent_wasm::core::message::ChatMessage;

/// Same names as the real types: serde's error texts name the type.
mod derived {
    use serde::{Deserialize, Serialize};

    #[derive(Serialize, Deserialize)]
    pub struct ChatMessage {
        role: super::derived_names::Role,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        content: Option<MessageContent>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        tool_calls: Option<Vec<MessageToolCall>>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        tool_call_id: Option<String>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        name: Option<String>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        reasoning_content: Option<String>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        thinking_blocks: Option<Vec<ThinkingBlock>>,
    }

    #[derive(Serialize, Deserialize)]
    pub struct MessageToolCall {
        id: String,
        #[serde(rename = "type", default = "function_type")]
        call_type: String,
        function: FunctionCall,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        thought_signature: Option<String>,
    }

    fn function_type() -> String {
        "function".to_owned()
    }

    #[derive(Serialize, Deserialize)]
    pub struct FunctionCall {
        name: String,
        arguments: String,
    }

    #[derive(Serialize, Deserialize)]
    #[serde(untagged)]
    pub enum MessageContent {
        Text(String),
        Parts(Vec<ContentPart>),
    }

    #[derive(Serialize, Deserialize)]
    #[serde(tag = "type", rename_all = "snake_case")]
    pub enum ContentPart {
        Text { text: String },
        ImageUrl { image_url: ImageUrl },
    }

    #[derive(Serialize, Deserialize)]
    pub struct ImageUrl {
        url: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        detail: Option<String>,
    }

    #[derive(Serialize, Deserialize)]
    #[serde(tag = "type", rename_all = "snake_case")]
    pub enum ThinkingBlock {
        Thinking {
            thinking: String,
            signature: String,
        },
        RedactedThinking {
            data: String,
        },
        Reasoning {
            summary: String,
            encrypted_content: String,
        },
        ThoughtSignature {
            signature: String,
        },
        ReasoningDetails {
            details: Vec<serde_json::Map<String, serde_json::Value>>,
        },
    }
}

/// The message as JSON, or the error text; read from JSON text and from a `Value`. Messages come
/// from JS objects, whose errors carry no position, so the JSON text's ` at line … column …` is
/// cut: a derived reader may fail before it reaches the end of the object.
fn read_both_ways<T: Serialize + for<'de> Deserialize<'de>>(
    input: &str,
) -> [Result<Value, String>; 2] {
    let from_text = serde_json::from_str::<T>(input);
    let from_value = serde_json::from_str::<Value>(input)
        .map_err(|error| error.to_string())
        .and_then(|value| serde_json::from_value::<T>(value).map_err(|error| error.to_string()));
    [
        from_text
            .map(|message| serde_json::to_value(message).unwrap_or_default())
            .map_err(|error| without_position(&error.to_string())),
        from_value.map(|message| serde_json::to_value(message).unwrap_or_default()),
    ]
}

fn without_position(error: &str) -> String {
    match error.rfind(" at line ") {
        Some(position) => error[..position].to_owned(),
        None => error.to_owned(),
    }
}

#[test]
fn hand_written_readers_agree_with_the_derived_ones() {
    let contents = [
        r#""plain text""#,
        r#"null"#,
        r#"[]"#,
        r#"[{"type": "text", "text": "hi"}, {"type": "image_url", "image_url": {"url": "data:image/png;base64,AA"}}]"#,
        r#"[{"type": "image_url", "image_url": {"url": "https://example.com/a.png", "detail": "low", "extra": 1}}]"#,
        r#"[{"type": "image_url", "image_url": {"url": "https://example.com/a.png", "detail": null}}]"#,
        r#"[{"type": "text", "text": "hi", "cache_control": {"type": "ephemeral"}}]"#,
        r#"[{"type": "image_url", "image_url": {"url": "u", "detail": 3}}]"#,
        r#"[{"type": "image_url", "image_url": "u"}]"#,
        r#"[{"type": "image_url"}]"#,
        r#"[{"type": "text"}]"#,
        r#"[{"type": "text", "text": 5}]"#,
        r#"[{"type": "audio", "data": "x"}]"#,
        r#"[{"text": "no type"}]"#,
        r#"["a string part"]"#,
        r#"42"#,
        r#"true"#,
        r#"{"type": "text", "text": "an object, not a list"}"#,
    ];
    let blocks = [
        r#"[{"type": "thinking", "thinking": "t", "signature": "s"}, {"type": "redacted_thinking", "data": "d"}]"#,
        r#"[{"signature": "s", "thinking": "t", "type": "thinking", "extra": [1]}]"#,
        r#"[{"type": "thinking", "thinking": "t"}]"#,
        r#"[{"type": "thinking", "signature": "s"}]"#,
        r#"[{"type": "redacted_thinking"}]"#,
        r#"[{"type": "thinking", "thinking": null, "signature": "s"}]"#,
        r#"[{"type": "thinking", "thinking": "t", "signature": -7}]"#,
        r#"[{"type": "redacted_thinking", "data": 1.5}]"#,
        r#"[{"type": "redacted_thinking", "data": {"a": 1}}]"#,
        r#"[{"type": "reasoning", "summary": "s", "encrypted_content": "gAAAA"}]"#,
        r#"[{"type": "reasoning", "summary": "s"}]"#,
        r#"[{"type": "thought_signature", "signature": "CiQB"}, {"type": "thought_signature"}]"#,
        r#"[{"type": "thought_signature", "signature": "CiQB"}]"#,
        r#"[{"type": "reasoning", "encrypted_content": 4, "summary": ""}]"#,
        r#"[{"type": "reasoning_details", "details": [{"type": "reasoning.text", "text": "t", "signature": "s", "index": 0}, {"type": "reasoning.encrypted", "data": "d", "extra": [1, {"a": null}]}]}]"#,
        r#"[{"type": "reasoning_details", "details": []}]"#,
        r#"[{"type": "reasoning_details"}]"#,
        r#"[{"type": "reasoning_details", "details": null}]"#,
        r#"[{"type": "reasoning_details", "details": {"type": "reasoning.text"}}]"#,
        r#"[{"type": "reasoning_details", "details": ["reasoning.text"]}]"#,
        r#"[{"type": "reasoning_details", "details": [7]}]"#,
        r#"[{"type": "reasoning_details", "details": [null]}]"#,
        r#"[{"type": "thought", "thinking": "t"}]"#,
        r#"[{"thinking": "t", "signature": "s"}]"#,
        r#"[{"type": 3, "data": "d"}]"#,
        r#"[{"type": null, "data": "d"}]"#,
        r#"["thinking"]"#,
        r#"[7]"#,
        r#"[null]"#,
    ];
    let call = r#"{"id": "c1", "type": "function", "function": {"name": "f", "arguments": "{}"}}"#;
    let tool_calls = [
        format!("[{call}]"),
        format!("[{call}, {call}]"),
        r#"[{"id": "c1", "function": {"name": "f", "arguments": "{}"}}]"#.to_owned(),
        r#"[{"id": "c1", "type": null, "function": {"name": "f", "arguments": "{}"}}]"#.to_owned(),
        r#"[{"id": "c1", "function": {"name": "f", "arguments": "{}"}, "thought_signature": "s"}]"#.to_owned(),
        r#"[{"id": "c1", "function": {"name": "f", "arguments": "{}"}, "thought_signature": null}]"#.to_owned(),
        r#"[{"id": "c1", "function": {"name": "f", "arguments": "{}"}, "thought_signature": 5}]"#.to_owned(),
        r#"[{"function": {"name": "f", "arguments": "{}"}}]"#.to_owned(),
        r#"[{"id": "c1"}]"#.to_owned(),
        r#"[{"id": 7, "function": {"name": "f", "arguments": "{}"}}]"#.to_owned(),
        r#"[{"id": "c1", "function": "f"}]"#.to_owned(),
        r#"[{"id": "c1", "function": {"name": "f"}}]"#.to_owned(),
        r#"[{"id": "c1", "function": {"arguments": "{}"}}]"#.to_owned(),
        r#"[{"id": "c1", "function": {"name": "f", "arguments": {"a": 1}}}]"#.to_owned(),
        r#"[{"function": 3, "id": 4}]"#.to_owned(),
        r#"[5]"#.to_owned(),
        r#"{}"#.to_owned(),
        r#""calls""#.to_owned(),
        r#"null"#.to_owned(),
    ];
    let whole_messages = [
        r#"{"role": "tool", "tool_call_id": "c1", "content": "result"}"#,
        r#"{"role": "tool", "tool_call_id": 3, "content": "result"}"#,
        r#"{"role": "user", "name": "bob", "content": "hi"}"#,
        r#"{"role": "user", "name": [], "content": "hi"}"#,
        r#"{"role": "assistant", "reasoning_content": "because", "content": "x"}"#,
        r#"{"role": "assistant", "reasoning_content": false, "content": "x"}"#,
        r#"{"role": "system", "content": "be brief", "extra": {"nested": [1, 2]}}"#,
        r#"{"content": "x"}"#,
        r#"{}"#,
        r#"{"role": "robot", "content": "x"}"#,
        r#"{"role": "User", "content": "x"}"#,
        r#"{"role": "user", "content": 5, "tool_call_id": 3}"#,
        r#"{"tool_call_id": 3, "content": 5, "role": "user"}"#,
        r#"{"content": 5, "role": "robot"}"#,
        r#"{"role": "robot", "content": 5}"#,
        r#"{"name": null, "tool_call_id": null, "reasoning_content": null, "thinking_blocks": null, "tool_calls": null, "content": null, "role": "assistant"}"#,
        r#""a string""#,
        r#"5"#,
        r#"null"#,
        r#"true"#,
    ];
    let inputs = contents
        .iter()
        .map(|content| format!(r#"{{"role": "user", "content": {content}}}"#))
        .chain(blocks.iter().map(|blocks| {
            format!(r#"{{"role": "assistant", "content": "x", "thinking_blocks": {blocks}}}"#)
        }))
        .chain(tool_calls.iter().map(|calls| {
            format!(r#"{{"role": "assistant", "content": null, "tool_calls": {calls}}}"#)
        }))
        .chain(whole_messages.iter().map(|message| (*message).to_owned()));
    let mut checked_errors = 0;
    for input in inputs {
        let ours = read_both_ways::<ChatMessage>(&input);
        let derived = read_both_ways::<derived::ChatMessage>(&input);
        assert_eq!(ours, derived, "input: {input}");
        checked_errors += ours.iter().filter(|result| result.is_err()).count();
    }
    assert!(checked_errors >= 60, "only {checked_errors} error cases");
}

/// A role of the wrong type: the derived enum reader said "expected value" from JSON text and
/// "expected string or map" from a `Value`; the role is read as a string, and says so.
#[test]
fn a_role_that_is_not_a_string_is_refused_as_such() {
    for (input, kind) in [
        (r#"{"role": 1}"#, "integer `1`"),
        (r#"{"role": null}"#, "null"),
    ] {
        let expected = format!("invalid type: {kind}, expected a string");
        assert_eq!(
            read_both_ways::<ChatMessage>(input),
            [Err(expected.clone()), Err(expected)]
        );
    }
}

/// serde's derived reader would also take a message written as an array of its fields, by
/// position; a caller passing that has a bug, so it is refused.
#[test]
fn a_message_written_as_an_array_is_refused() {
    for input in [r#"["user", "hi"]"#, "[]"] {
        let [from_text, from_value] = read_both_ways::<ChatMessage>(input);
        assert_eq!(
            from_text,
            Err("invalid type: sequence, expected struct ChatMessage".to_owned())
        );
        assert_eq!(from_value, from_text, "{input}");
    }
}

/// Derived twins of the enums read by name (`core::json_read`), with the attributes they had.
mod derived_names {
    use serde::{Deserialize, Serialize};

    #[derive(Debug, PartialEq, Serialize, Deserialize)]
    #[serde(rename_all = "lowercase")]
    pub enum Role {
        System,
        User,
        Assistant,
        Tool,
    }

    #[derive(Debug, PartialEq, Serialize, Deserialize)]
    #[serde(rename_all = "kebab-case")]
    pub enum TransportMode {
        Auto,
        StreamableHttp,
        Sse,
    }

    #[derive(Debug, PartialEq, Serialize, Deserialize)]
    #[serde(rename_all = "camelCase")]
    pub enum MissingIdStrategy {
        Synthesize,
        ReRequestWithoutStreaming,
    }
}

/// Every name reads as it did with serde's derived readers, an unknown name fails with the same
/// text, and anything but a string fails.
#[test]
fn enums_read_by_name_agree_with_the_derived_ones() {
    fn check<Ours, Derived>(names: &[&str])
    where
        Ours: Serialize + for<'de> Deserialize<'de>,
        Derived: Serialize + for<'de> Deserialize<'de>,
    {
        let unknown = ["", "User", "sse ", "nope", "\u{e9}"];
        for name in names.iter().chain(&unknown) {
            let input = Value::String((*name).to_owned()).to_string();
            assert_eq!(
                read_both_ways::<Ours>(&input),
                read_both_ways::<Derived>(&input),
                "{input}"
            );
        }
        for name in names {
            let input = Value::String((*name).to_owned()).to_string();
            assert!(
                read_both_ways::<Ours>(&input).iter().all(Result::is_ok),
                "{input}"
            );
        }
        for not_a_string in ["3", "null", "[]", "{}", "true"] {
            for result in read_both_ways::<Ours>(not_a_string) {
                let error = result.expect_err(not_a_string);
                assert!(error.starts_with("invalid type"), "{not_a_string}: {error}");
            }
        }
    }
    use mcp_agent_wasm::core::agent_loop::MissingIdStrategy;
    use mcp_agent_wasm::core::mcp::session::TransportMode;
    use mcp_agent_wasm::core::message::Role;
    check::<Role, derived_names::Role>(&["system", "user", "assistant", "tool"]);
    check::<TransportMode, derived_names::TransportMode>(&["auto", "streamable-http", "sse"]);
    check::<MissingIdStrategy, derived_names::MissingIdStrategy>(&[
        "synthesize",
        "reRequestWithoutStreaming",
    ]);
}

/// `Agent.run` reads its list through `chat_messages`, not serde's sequence reader: the same
/// messages, or the same error text, as `Vec<ChatMessage>`'s own reader. Both read each element
/// with the same `chat_message` (compared with derived twins above), so what this compares is the
/// list level: what is not a list, and an element's error passed on unchanged.
#[test]
fn the_message_list_reader_agrees_with_serdes() {
    use mcp_agent_wasm::core::message::chat_messages;

    let inputs = [
        r#"[]"#,
        r#"[{"role": "user", "content": "hi"}, {"role": "assistant", "content": null}]"#,
        r#"[{"role": "user", "content": "hi"}, 7]"#,
        r#"[{"role": "robot"}]"#,
        r#""hello""#,
        r#"{"role": "user", "content": "not in a list"}"#,
        r#"null"#,
        r#"12"#,
    ];
    for input in inputs {
        let value: Value = serde_json::from_str(input).expect("JSON");
        let ours = chat_messages::<serde_json::Error>(value.clone()).map_err(|e| e.to_string());
        let serdes = serde_json::from_value::<Vec<ChatMessage>>(value).map_err(|e| e.to_string());
        assert_eq!(ours, serdes, "{input}");
    }
}

/// The readers quote a string of the wrong type themselves, as JSON, since the shipped build
/// compiles `Debug` formatting out: the same text as serde's (`Unexpected::Str`, quoted by
/// `str`'s `Debug`) for strings of printable characters, JSON escapes for control characters.
#[test]
fn a_string_of_the_wrong_type_is_quoted_as_serde_quotes_it() {
    use mcp_agent_wasm::core::json_read::invalid_type;
    use serde::de::{Error, Unexpected};

    let texts = [
        "three",
        "",
        "it's \"quoted\" \\ here",
        "tab\tnew line\ncarriage\r",
        "emoji 🦀, CJK 漢字, accents é",
    ];
    for text in texts {
        let ours: serde_json::Error = invalid_type(&Value::String(text.to_owned()), &"u32");
        let serdes = serde_json::Error::invalid_type(Unexpected::Str(text), &"u32");
        assert_eq!(ours.to_string(), serdes.to_string());
    }
    let control = invalid_type::<serde_json::Error>(&Value::String("a\0b\u{7}".into()), &"u32");
    assert_eq!(
        control.to_string(),
        r#"invalid type: string "a\u0000b\u0007", expected u32"#
    );
    // DEL, C1, bidi override, zero-width space, BOM, soft hyphen: shown, not hidden or obeyed.
    let hidden = "a\u{7f}b\u{85}c\u{202e}d\u{200b}e\u{feff}f\u{ad}g";
    let hidden = invalid_type::<serde_json::Error>(&Value::String(hidden.into()), &"u32");
    assert_eq!(
        hidden.to_string(),
        r#"invalid type: string "a\u007fb\u0085c\u202ed\u200be\ufefff\u00adg", expected u32"#
    );
}

proptest::proptest! {
    /// Whatever a string holds, its quoted form in a message is JSON that reads back as it, with
    /// no control or invisible character left in the message.
    #[test]
    fn any_string_of_the_wrong_type_is_quoted_as_json_that_reads_back(text in "(?s).*") {
        use mcp_agent_wasm::core::json_read::invalid_type;

        let message = invalid_type::<serde_json::Error>(&Value::String(text.clone()), &"u32").to_string();
        let quoted = message
            .strip_prefix("invalid type: string ")
            .and_then(|rest| rest.strip_suffix(", expected u32"))
            .expect("the message's shape");
        proptest::prop_assert_eq!(serde_json::from_str::<String>(quoted).expect("JSON"), text);
        let hidden = |c: char| {
            c.is_control()
                || matches!(c, '\u{ad}' | '\u{200b}'..='\u{200f}' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}' | '\u{feff}')
        };
        let shows_everything = !quoted.chars().any(hidden);
        proptest::prop_assert!(shows_everything);
    }

    #[test]
    fn any_printable_string_of_the_wrong_type_is_quoted_as_serde_quotes_it(
        text in "[ -~éü漢字🦀]*"
    ) {
        use mcp_agent_wasm::core::json_read::invalid_type;
        use serde::de::{Error, Unexpected};

        let ours: serde_json::Error = invalid_type(&Value::String(text.clone()), &"a boolean");
        let serdes = serde_json::Error::invalid_type(Unexpected::Str(&text), &"a boolean");
        proptest::prop_assert_eq!(ours.to_string(), serdes.to_string());
    }
}

/// Every kind of value is named in errors as serde_json's own readers name it (the readers word
/// these errors themselves: serde's wording needs `Debug` and core's float printing).
#[test]
fn values_of_every_kind_are_named_as_serde_names_them() {
    use mcp_agent_wasm::core::json_read::unsigned;
    use serde_json::json;

    let values = [
        json!(null),
        json!(true),
        json!(false),
        json!(7),
        json!(300),
        json!(-1),
        json!(u64::MAX),
        json!(i64::MIN),
        json!(1.5),
        json!(2.0),
        json!(-0.25),
        json!(1e300),
        json!("seven"),
        json!([7]),
        json!({"n": 7}),
    ];
    for value in values {
        let ours =
            unsigned::<u8, serde_json::Error>(value.clone(), "u8").map_err(|e| e.to_string());
        let serdes = serde_json::from_value::<u8>(value.clone()).map_err(|e| e.to_string());
        assert_eq!(ours, serdes, "{value}");
    }
}

/// The shipped readers report through `json_read::ReadError`, the message alone, where the tests
/// above read with serde_json's error (whose `custom` also looks for a position at the end of the
/// message): the same texts for every kind of refusal, a text that names a position included.
#[test]
fn read_errors_say_what_serde_json_errors_say() {
    use mcp_agent_wasm::core::json_read::{known_member, unsigned, ReadError};
    use mcp_agent_wasm::core::message::chat_messages;

    let inputs = [
        r#"[{"role": "user", "content": "hi"}, {"role": "assistant", "content": null}]"#,
        r#"[{"role": "robot at line 3 column 4"}]"#,
        r#"[{"role": 5}]"#,
        r#"[{"content": "x"}]"#,
        r#"[{"role": "user", "content": [{"type": "audio at line 1 column 2"}]}]"#,
        r#"[{"role": "user", "content": [{"type": "image_url", "image_url": {"detail": "low"}}]}]"#,
        r#"[{"role": "assistant", "tool_calls": [{"id": "c1", "function": {"name": 3}}]}]"#,
        r#"[{"role": "assistant", "thinking_blocks": [{"type": "thinking", "thinking": "t"}]}]"#,
        r#"[{"role": "assistant", "thinking_blocks": [{"type": "reasoning_details", "details": [7]}]}]"#,
        r#"[{"role": "tool", "tool_call_id": "at line 1 column 2"}, 7]"#,
        r#"{"role": "user"}"#,
        r#""a string at line 9 column 9""#,
    ];
    let mut errors = 0;
    for input in inputs {
        let value: Value = serde_json::from_str(input).expect("JSON");
        let ours = chat_messages::<ReadError>(value.clone()).map_err(|e| e.to_string());
        let serdes = chat_messages::<serde_json::Error>(value).map_err(|e| e.to_string());
        assert_eq!(ours, serdes, "{input}");
        errors += usize::from(ours.is_err());
    }
    assert_eq!(errors, 11);
    for number in [
        serde_json::json!(300),
        serde_json::json!(-1),
        serde_json::json!(1.5),
    ] {
        let ours = unsigned::<u8, ReadError>(number.clone(), "u8").map_err(|e| e.to_string());
        let serdes = unsigned::<u8, serde_json::Error>(number, "u8").map_err(|e| e.to_string());
        assert_eq!(ours, serdes);
    }
    let known = &["url", "headers"];
    let ours = known_member::<ReadError>("header", known).map_err(|e| e.to_string());
    let serdes = known_member::<serde_json::Error>("header", known).map_err(|e| e.to_string());
    assert_eq!(ours, serdes);
}
