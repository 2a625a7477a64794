//! The tool-call assembler against the habits of real providers, one row per quirk.

use std::collections::HashSet;

use mcp_agent_wasm::core::assembler::{
    synthesized_call_id, ToolCallAssembler, ToolInput, ToolInputTracker,
};
use mcp_agent_wasm::core::model_event::{ArgumentsDelta, ToolCallDelta};
use serde_json::{json, Value};

/// A delta as written in the table: index, id, name, arguments fragment.
fn delta(
    index: Option<u32>,
    id: Option<&str>,
    name: Option<&str>,
    fragment: Option<&str>,
) -> ToolCallDelta {
    ToolCallDelta {
        index,
        id: id.map(str::to_owned),
        name: name.map(str::to_owned),
        arguments: fragment.map(|text| ArgumentsDelta::Fragment(text.to_owned())),
        thought_signature: None,
    }
}

fn whole(index: Option<u32>, id: Option<&str>, name: Option<&str>, value: Value) -> ToolCallDelta {
    ToolCallDelta {
        arguments: Some(ArgumentsDelta::Whole(value)),
        ..delta(index, id, name, None)
    }
}

/// What one assembled call must be: id, synthesized, name, arguments (or a piece of the error).
type Want = (
    &'static str,
    bool,
    &'static str,
    Result<Value, &'static str>,
);

struct Case {
    quirk: &'static str,
    deltas: Vec<ToolCallDelta>,
    want: Vec<Want>,
}

fn cases() -> Vec<Case> {
    let one_char_each: Vec<ToolCallDelta> =
        std::iter::once(delta(Some(0), Some("call_a"), Some("search"), None))
            .chain(
                r#"{"query": "rust", "limit": 5}"#
                    .chars()
                    .map(|c| delta(Some(0), None, None, Some(&c.to_string()))),
            )
            .collect();
    vec![
        Case {
            quirk: "arguments split one character per chunk",
            deltas: one_char_each,
            want: vec![(
                "call_a",
                false,
                "search",
                Ok(json!({"query": "rust", "limit": 5})),
            )],
        },
        Case {
            quirk: "parallel calls at index 0 and 1, interleaved",
            deltas: vec![
                delta(Some(0), Some("call_a"), Some("weather"), Some("")),
                delta(Some(1), Some("call_b"), Some("stock"), Some("")),
                delta(Some(0), None, None, Some(r#"{"city":"#)),
                delta(Some(1), None, None, Some(r#"{"ticker":"#)),
                delta(Some(1), None, None, Some(r#""AAPL"}"#)),
                delta(Some(0), None, None, Some(r#""Paris"}"#)),
            ],
            want: vec![
                ("call_a", false, "weather", Ok(json!({"city": "Paris"}))),
                ("call_b", false, "stock", Ok(json!({"ticker": "AAPL"}))),
            ],
        },
        Case {
            quirk:
                "no index, each call whole in its own chunk with its own id (Gemini's OpenAI layer)",
            deltas: vec![
                delta(
                    None,
                    Some("g1"),
                    Some("weather"),
                    Some(r#"{"city":"Oslo"}"#),
                ),
                delta(
                    None,
                    Some("g2"),
                    Some("weather"),
                    Some(r#"{"city":"Rome"}"#),
                ),
            ],
            want: vec![
                ("g1", false, "weather", Ok(json!({"city": "Oslo"}))),
                ("g2", false, "weather", Ok(json!({"city": "Rome"}))),
            ],
        },
        Case {
            quirk: "every call at index 0 with distinct ids, continuations without id",
            deltas: vec![
                delta(Some(0), Some("o1"), Some("add"), Some(r#"{"a":"#)),
                delta(Some(0), None, None, Some("1}")),
                delta(Some(0), Some("o2"), Some("mul"), Some(r#"{"b":"#)),
                delta(Some(0), None, None, Some("2}")),
            ],
            want: vec![
                ("o1", false, "add", Ok(json!({"a": 1}))),
                ("o2", false, "mul", Ok(json!({"b": 2}))),
            ],
        },
        Case {
            quirk: "index starting at 1",
            deltas: vec![
                delta(Some(1), Some("toolu_x"), Some("read_file"), Some("")),
                delta(Some(1), None, None, Some(r#"{"pa"#)),
                delta(Some(1), None, None, Some(r#"th": "a.txt"}"#)),
            ],
            want: vec![("toolu_x", false, "read_file", Ok(json!({"path": "a.txt"})))],
        },
        Case {
            quirk: "id repeated on every chunk, no index",
            deltas: vec![
                delta(None, Some("r1"), Some("echo"), Some(r#"{"text":"#)),
                delta(None, Some("r1"), None, Some(r#""hi"}"#)),
                delta(None, Some("r2"), Some("echo"), Some(r#"{"text":"#)),
                delta(None, Some("r2"), None, Some(r#""yo"}"#)),
            ],
            want: vec![
                ("r1", false, "echo", Ok(json!({"text": "hi"}))),
                ("r2", false, "echo", Ok(json!({"text": "yo"}))),
            ],
        },
        Case {
            quirk: "id only on the first chunk, no index anywhere",
            deltas: vec![
                delta(None, Some("f1"), Some("echo"), Some(r#"{"text""#)),
                delta(None, None, None, Some(r#": "hi"}"#)),
            ],
            want: vec![("f1", false, "echo", Ok(json!({"text": "hi"})))],
        },
        Case {
            quirk: "name arriving after the first chunk, id arriving late at the same index",
            deltas: vec![
                delta(Some(0), None, None, Some(r#"{"x":"#)),
                delta(Some(0), Some("late"), Some("plot"), Some("3}")),
            ],
            want: vec![("late", false, "plot", Ok(json!({"x": 3})))],
        },
        Case {
            quirk: "an id arriving after the call was named: not taken, the page already shows the call under the loop's id",
            deltas: vec![
                delta(Some(0), None, Some("plot"), Some(r#"{"x":"#)),
                delta(Some(0), Some("late"), None, Some("3}")),
            ],
            want: vec![("call_0", true, "plot", Ok(json!({"x": 3})))],
        },
        Case {
            quirk: "continuation with an empty name (Mistral)",
            deltas: vec![
                delta(Some(0), Some("m1"), Some("webSearch"), Some("")),
                delta(Some(0), None, Some(""), Some(r#"{"query": "Berlin"}"#)),
            ],
            want: vec![("m1", false, "webSearch", Ok(json!({"query": "Berlin"})))],
        },
        Case {
            quirk: "whole arguments in one chunk",
            deltas: vec![delta(
                Some(0),
                Some("w1"),
                Some("weather"),
                Some(r#"{"location": "SF"}"#),
            )],
            want: vec![("w1", false, "weather", Ok(json!({"location": "SF"})))],
        },
        Case {
            quirk: "arguments \"\" and no arguments at all are {}",
            deltas: vec![
                delta(Some(0), Some("e1"), Some("list"), Some("")),
                delta(Some(1), Some("e2"), Some("refresh"), None),
                delta(Some(2), Some("e3"), Some("ping"), Some("null")),
            ],
            want: vec![
                ("e1", false, "list", Ok(json!({}))),
                ("e2", false, "refresh", Ok(json!({}))),
                ("e3", false, "ping", Ok(json!({}))),
            ],
        },
        Case {
            quirk: "arguments that parse before they are complete stay open until the round ends",
            deltas: vec![
                whole(Some(0), Some("p1"), Some("weather"), json!({})),
                delta(Some(0), None, None, Some(r#"{"city":"#)),
                delta(Some(0), None, None, Some(r#""Lima"}"#)),
                delta(Some(1), Some("p2"), Some("echo"), Some(r#"{"a": 1}"#)),
                delta(Some(1), None, None, Some(r#", "b": 2}"#)),
            ],
            want: vec![
                ("p1", false, "weather", Ok(json!({"city": "Lima"}))),
                ("p2", false, "echo", Err("not valid JSON")),
            ],
        },
        Case {
            quirk: "arguments as an object (Ollama native)",
            deltas: vec![whole(
                None,
                None,
                Some("get_weather"),
                json!({"city": "Tokyo"}),
            )],
            want: vec![("call_0", true, "get_weather", Ok(json!({"city": "Tokyo"})))],
        },
        Case {
            quirk: "no id anywhere: stable unique ids are made up and flagged",
            deltas: vec![
                delta(Some(0), None, Some("a"), Some("{}")),
                delta(Some(1), None, Some("b"), Some("{}")),
            ],
            want: vec![
                ("call_0", true, "a", Ok(json!({}))),
                ("call_1", true, "b", Ok(json!({}))),
            ],
        },
        Case {
            quirk: "given and missing ids mixed, a given id equal to a made-up one",
            deltas: vec![
                delta(Some(0), Some("call_1"), Some("a"), Some("{}")),
                delta(Some(1), None, Some("b"), Some("{}")),
                delta(Some(2), None, Some("c"), Some("{}")),
            ],
            want: vec![
                ("call_1", false, "a", Ok(json!({}))),
                ("call_1_1", true, "b", Ok(json!({}))),
                ("call_2", true, "c", Ok(json!({}))),
            ],
        },
        Case {
            quirk: "a provider id of the form the loop makes up for another call (found by fuzzing)",
            deltas: vec![
                delta(Some(0), None, Some("a"), Some("{}")),
                delta(Some(1), Some("call_3_0"), Some("b"), Some("{}")),
            ],
            want: vec![
                ("call_0", true, "a", Ok(json!({}))),
                ("call_3_0", false, "b", Ok(json!({}))),
            ],
        },
        Case {
            quirk: "invalid JSON at the end is a call carrying the parse error",
            deltas: vec![delta(
                Some(0),
                Some("bad"),
                Some("echo"),
                Some(r#"{"text": "unterminated"#),
            )],
            want: vec![("bad", false, "echo", Err("arguments are not valid JSON"))],
        },
        Case {
            quirk: "arguments that are JSON but not an object",
            deltas: vec![delta(Some(0), Some("arr"), Some("echo"), Some("[1, 2]"))],
            want: vec![("arr", false, "echo", Err("not a JSON object: an array"))],
        },
        Case {
            quirk: "an object encoded twice as a JSON string is decoded",
            deltas: vec![delta(
                Some(0),
                Some("s1"),
                Some("echo"),
                Some(r#""{\"text\": \"hi\"}""#),
            )],
            want: vec![("s1", false, "echo", Ok(json!({"text": "hi"})))],
        },
        Case {
            quirk: "a call the stream cut off is truncated, never valid",
            deltas: vec![
                delta(Some(1), Some("toolu_t"), Some("make_file"), None),
                delta(Some(1), None, None, Some(r#"{"filename": "taxes.txt"}"#)),
                ToolCallDelta {
                    arguments: Some(ArgumentsDelta::Truncated),
                    ..delta(Some(1), None, None, None)
                },
            ],
            want: vec![("toolu_t", false, "make_file", Err("truncated"))],
        },
    ]
}

#[test]
fn every_provider_quirk_assembles_into_the_expected_calls() {
    let mut failures = Vec::new();
    for case in cases() {
        let mut assembler = ToolCallAssembler::new(0);
        for delta in &case.deltas {
            assembler.push(delta);
        }
        let calls = assembler.finish();
        let got: Vec<String> = calls
            .iter()
            .map(|call| {
                let arguments = match &call.arguments {
                    Ok(value) => format!("Ok({value})"),
                    Err(message) => format!("Err({message})"),
                };
                format!(
                    "{} {} {} {arguments}",
                    call.id, call.id_synthesized, call.name
                )
            })
            .collect();
        let matches = calls.len() == case.want.len()
            && calls
                .iter()
                .zip(&case.want)
                .all(|(call, (id, synthesized, name, arguments))| {
                    call.id == *id
                        && call.id_synthesized == *synthesized
                        && call.name == *name
                        && match (&call.arguments, arguments) {
                            (Ok(value), Ok(want)) => value == want,
                            (Err(message), Err(piece)) => message.contains(piece),
                            _ => false,
                        }
                });
        if !matches {
            failures.push(format!("{}: got {got:?}, want {:?}", case.quirk, case.want));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// The page's view of each quirk's stream (`ToolInputTracker`) names the calls the assembler
/// makes, in their order, under the ids the loop gives them (`call_ids`: unique in the round),
/// and its deltas, joined, are each call's arguments text as received; a call is started
/// before any of its text is shown.
#[test]
fn the_streamed_tool_input_shows_every_quirk_s_calls_under_their_loop_ids() {
    const ROUND: u32 = 3;
    let mut failures = Vec::new();
    for case in cases() {
        let mut assembler = ToolCallAssembler::new(ROUND);
        let mut tracker = ToolInputTracker::new(ROUND);
        let mut started: Vec<(String, String)> = Vec::new();
        let mut texts: Vec<(String, String)> = Vec::new();
        for delta in &case.deltas {
            assembler.push(delta);
            for shown in tracker.push(delta) {
                match shown {
                    ToolInput::Start { id, name } => started.push((id, name)),
                    ToolInput::Delta { id, text } => {
                        if !started.iter().any(|(started_id, _)| *started_id == id) {
                            failures
                                .push(format!("{}: text for {id} before its start", case.quirk));
                        }
                        match texts.iter_mut().find(|(shown_id, _)| *shown_id == id) {
                            Some((_, joined)) => joined.push_str(&text),
                            None => texts.push((id, text)),
                        }
                    }
                }
            }
        }
        // Text that is empty or `null` is assembled as `{}`, and so is a whole `{}` or `null`.
        let mut want_started = Vec::new();
        let loop_ids = assembler.call_ids();
        let unique: HashSet<&String> = loop_ids.iter().collect();
        if unique.len() != loop_ids.len() {
            failures.push(format!("{}: ids shared in {loop_ids:?}", case.quirk));
        }
        for (call, id) in assembler.finish().into_iter().zip(loop_ids) {
            let shown = texts
                .iter()
                .find(|(shown_id, _)| *shown_id == id)
                .map_or("", |(_, text)| text.as_str());
            let as_assembled = shown == call.raw_arguments
                || (call.raw_arguments == "{}" && matches!(shown.trim(), "" | "null"));
            if !as_assembled {
                failures.push(format!(
                    "{}: {id} shown as {shown:?}, assembled from {:?}",
                    case.quirk, call.raw_arguments
                ));
            }
            want_started.push((id, call.name));
        }
        if started != want_started {
            failures.push(format!(
                "{}: started {started:?}, want {want_started:?}",
                case.quirk
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// Two calls of a round never share an id, whichever came first: a call without an id is
/// `call_<round>_<position>` unless a call named before it took that id, and a provider's id
/// that a call named before it took (made up or given) gets a suffix, on the page as in the loop.
#[test]
fn a_provider_id_of_the_made_up_form_leaves_every_call_its_own_id() {
    const ROUND: u32 = 3;
    let made_up_first = vec![
        delta(Some(0), None, Some("a"), Some("{}")),
        delta(Some(1), Some("call_3_0"), Some("b"), Some("{}")),
        delta(Some(2), Some("call_3_0"), None, Some("")),
    ];
    let given_first = vec![
        delta(Some(0), Some("call_3_1"), Some("a"), Some("{}")),
        delta(Some(1), None, Some("b"), Some("{}")),
    ];
    let named_late = vec![
        delta(Some(0), None, None, Some("{")),
        delta(Some(1), Some("call_3_0"), Some("b"), Some("{}")),
        delta(Some(0), None, Some("a"), Some("}")),
    ];
    // The deltas, the loop's ids by position, and the page's in the order the calls started.
    let cases = [
        (
            made_up_first,
            ["call_3_0", "call_3_0_1"],
            ["call_3_0", "call_3_0_1"],
        ),
        (
            given_first,
            ["call_3_1", "call_3_1_1"],
            ["call_3_1", "call_3_1_1"],
        ),
        (
            named_late,
            ["call_3_0_1", "call_3_0"],
            ["call_3_0", "call_3_0_1"],
        ),
    ];
    for (deltas, want_ids, want_started) in cases {
        let mut assembler = ToolCallAssembler::new(ROUND);
        let mut tracker = ToolInputTracker::new(ROUND);
        let mut started = Vec::new();
        for delta in &deltas {
            assembler.push(delta);
            for shown in tracker.push(delta) {
                if let ToolInput::Start { id, .. } = shown {
                    started.push(id);
                }
            }
        }
        assert_eq!(assembler.call_ids(), want_ids, "the loop's ids");
        assert_eq!(
            started, want_started,
            "the page's ids, as the calls were named"
        );
    }
    assert_eq!(synthesized_call_id(ROUND, 0), "call_3_0");
}

/// A cut answer's calls that the page was shown, for it to discard: those named, in the
/// answer's order, under the ids they were shown with; a call whose name had not come is not one.
#[test]
fn the_calls_shown_of_a_cut_answer_are_those_started() {
    let deltas = [
        delta(Some(1), None, None, Some(r#"{"q""#)),
        delta(Some(0), Some("call_b"), Some("search"), Some("{")),
        delta(Some(1), None, Some("fetch"), None),
        delta(Some(2), Some("call_c"), None, Some("{")),
    ];
    let mut tracker = ToolInputTracker::new(3);
    let mut started = Vec::new();
    for delta in &deltas {
        for shown in tracker.push(delta) {
            if let ToolInput::Start { id, .. } = shown {
                started.push(id);
            }
        }
    }
    let shown: Vec<String> = tracker.into_shown_ids().collect();
    assert_eq!(
        shown,
        ["call_3_0", "call_b"],
        "the named calls, in the answer's order"
    );
    started.sort();
    assert_eq!(
        shown, started,
        "each under the id its toolInputStart carried"
    );
}

#[test]
fn raw_arguments_keep_what_was_received() {
    let cases: Vec<(Vec<ToolCallDelta>, &str)> = vec![
        (
            vec![
                delta(Some(0), Some("a"), Some("f"), Some(r#"{"x": "#)),
                delta(Some(0), None, None, Some("1}")),
            ],
            r#"{"x": 1}"#,
        ),
        (vec![delta(Some(0), Some("a"), Some("f"), Some(""))], "{}"),
        (
            vec![whole(Some(0), Some("a"), Some("f"), json!({"b": [1]}))],
            r#"{"b":[1]}"#,
        ),
        (
            vec![delta(Some(0), Some("a"), Some("f"), Some("{oops"))],
            "{oops",
        ),
    ];
    for (deltas, want_raw) in cases {
        let mut assembler = ToolCallAssembler::new(0);
        deltas.iter().for_each(|delta| assembler.push(delta));
        let calls = assembler.finish();
        assert_eq!(calls[0].raw_arguments, want_raw);
    }
}

#[test]
fn the_latest_thought_signature_of_a_call_is_kept() {
    let mut assembler = ToolCallAssembler::new(0);
    assembler.push(&ToolCallDelta {
        thought_signature: Some("sig-1".to_owned()),
        ..whole(Some(0), None, Some("weather"), json!({"city": "Oslo"}))
    });
    assembler.push(&whole(
        Some(1),
        None,
        Some("weather"),
        json!({"city": "Rome"}),
    ));
    let signatures: Vec<_> = assembler
        .finish()
        .into_iter()
        .map(|call| call.thought_signature)
        .collect();
    assert_eq!(signatures, vec![Some("sig-1".to_owned()), None]);
}

#[test]
fn has_calls_turns_true_with_the_first_delta() {
    let mut assembler = ToolCallAssembler::new(0);
    let before = assembler.has_calls();
    assembler.push(&delta(Some(0), Some("a"), Some("f"), None));
    assert_eq!((before, assembler.has_calls()), (false, true));
}
