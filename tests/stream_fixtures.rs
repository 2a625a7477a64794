#![cfg(not(target_arch = "wasm32"))]
//! Every captured provider stream in `../shared/fixtures` (see its README for where each file
//! came from: vercel/ai, openai-python and anthropic-sdk-python test fixtures, and two Ollama
//! bodies written to the shape of Ollama's API docs) decoded to the result written here, and
//! identically whether the body is pushed whole, byte by byte or in seeded random chunks.

mod stream_support;

use std::path::{Path, PathBuf};

use mcp_agent_wasm::core::model_event::{ArgumentsDelta, FinishReason, ModelEvent, Usage};
use mcp_agent_wasm::core::stream::{DecoderOptions, WireFormat};
use serde_json::{json, Value};
use stream_support::{all_splits, decode, decode_merged, fingerprint, summarise, Outcome, Split};

struct ExpectedCall {
    id: &'static str,
    id_synthesized: bool,
    name: &'static str,
    /// The arguments object, or a piece of the error message.
    arguments: Result<Value, &'static str>,
    /// Checked exactly when given; otherwise the raw text must parse to `arguments`.
    raw_arguments: Option<&'static str>,
    signature: Option<(&'static str, usize)>,
}

struct Expected {
    text: &'static str,
    reasoning: &'static str,
    reasoning_signatures: Vec<(&'static str, usize)>,
    /// Gemini's signatures of parts that are not calls.
    text_signatures: Vec<(&'static str, usize)>,
    calls: Vec<ExpectedCall>,
    finish: Option<FinishReason>,
    usage: Option<Usage>,
}

struct FixtureCase {
    path: &'static str,
    format: WireFormat,
    expected: Expected,
}

fn call(id: &'static str, name: &'static str, arguments: Value) -> ExpectedCall {
    ExpectedCall {
        id,
        id_synthesized: false,
        name,
        arguments: Ok(arguments),
        raw_arguments: None,
        signature: None,
    }
}

/// The counts as each fixture's provider reported them: cached prompt tokens and reasoning
/// tokens are `None` where the provider has no such member.
fn usage(
    input_tokens: u64,
    output_tokens: u64,
    cached_input_tokens: Option<u64>,
    reasoning_tokens: Option<u64>,
) -> Option<Usage> {
    Some(Usage {
        input_tokens,
        output_tokens,
        cached_input_tokens,
        reasoning_tokens,
    })
}

fn fixtures_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/fixtures")
}

/// The body as a provider sends it, framed per the fixtures README.
fn body(path: &str, format: WireFormat) -> Vec<u8> {
    let bytes = std::fs::read(fixtures_root().join(path))
        .unwrap_or_else(|error| panic!("cannot read fixture {path}: {error}"));
    if !path.ends_with(".chunks.txt") {
        return bytes;
    }
    let text = String::from_utf8(bytes).expect("fixture is UTF-8");
    let mut framed = String::new();
    for line in text.lines().filter(|line| !line.trim().is_empty()) {
        if format == WireFormat::AnthropicMessages {
            let payload: Value = serde_json::from_str(line).expect("fixture line is JSON");
            let kind = payload["type"]
                .as_str()
                .expect("anthropic payload has a type");
            framed.push_str(&format!("event: {kind}\n"));
        }
        framed.push_str(&format!("data: {line}\n\n"));
    }
    if format == WireFormat::OpenAiChat {
        framed.push_str("data: [DONE]\n\n");
    }
    framed.into_bytes()
}

fn check(case: &FixtureCase, outcome: &Outcome) -> Vec<String> {
    let expected = &case.expected;
    let mut problems = Vec::new();
    let mut differ = |what: &str, got: String, want: String| {
        if got != want {
            problems.push(format!("{what}: got {got}, want {want}"));
        }
    };
    differ(
        "text",
        format!("{:?}", outcome.text),
        format!("{:?}", expected.text),
    );
    differ(
        "reasoning",
        format!("{:?}", outcome.reasoning),
        format!("{:?}", expected.reasoning),
    );
    let signature_kinds = [
        (
            "reasoning signatures",
            &outcome.reasoning_signatures,
            &expected.reasoning_signatures,
        ),
        (
            "text signatures",
            &outcome.text_signatures,
            &expected.text_signatures,
        ),
    ];
    for (what, got, want) in signature_kinds {
        let got: Vec<_> = got.iter().map(|signature| fingerprint(signature)).collect();
        let want: Vec<_> = want
            .iter()
            .map(|(start, length)| (start.to_string(), *length))
            .collect();
        differ(what, format!("{got:?}"), format!("{want:?}"));
    }
    differ(
        "finish",
        format!("{:?}", outcome.finish),
        format!("{:?}", expected.finish),
    );
    differ(
        "usage",
        format!("{:?}", outcome.usage),
        format!("{:?}", expected.usage),
    );
    differ("errors", format!("{:?}", outcome.errors), "[]".to_owned());
    differ(
        "call count",
        outcome.calls.len().to_string(),
        expected.calls.len().to_string(),
    );
    for (position, (got, want)) in outcome.calls.iter().zip(&expected.calls).enumerate() {
        differ("call id", got.id.clone(), want.id.to_owned());
        // The page is shown the call under the id the loop gives it, and its pieces joined are
        // the arguments text ("{}" also when the provider sent nothing, `null` or an empty object).
        let shown_id = &outcome.loop_ids[position];
        let shown = outcome.shown_calls.iter().find(|call| call.0 == *shown_id);
        let shown_text = shown.map(|call| match call.1.as_str() {
            "" | "null" => "{}",
            text => text,
        });
        differ(
            &format!("call {shown_id} shown while written"),
            format!("{shown_text:?}"),
            format!("{:?}", Some(got.raw_arguments.as_str())),
        );
        differ(
            "id synthesized",
            got.id_synthesized.to_string(),
            want.id_synthesized.to_string(),
        );
        differ("call name", got.name.clone(), want.name.to_owned());
        match (&got.arguments, &want.arguments) {
            (Ok(value), Ok(want_value)) => {
                differ("arguments", value.to_string(), want_value.to_string());
                let raw: Result<Value, _> = serde_json::from_str(&got.raw_arguments);
                differ(
                    "raw arguments parse to the arguments",
                    format!("{:?}", raw.ok()),
                    format!("{:?}", Some(value)),
                );
            }
            (Err(message), Err(piece)) if message.contains(piece) => {}
            (got_arguments, want_arguments) => differ(
                "arguments",
                format!("{got_arguments:?}"),
                format!("{want_arguments:?}"),
            ),
        }
        if let Some(raw) = want.raw_arguments {
            differ("raw arguments", got.raw_arguments.clone(), raw.to_owned());
        }
        differ(
            "call signature",
            format!("{:?}", got.thought_signature.as_deref().map(fingerprint)),
            format!(
                "{:?}",
                want.signature
                    .map(|(start, length)| (start.to_owned(), length))
            ),
        );
    }
    problems
}

#[test]
fn every_fixture_decodes_to_its_expected_outcome_under_every_split() {
    let mut failures = Vec::new();
    for case in fixture_cases() {
        let body = body(case.path, case.format);
        let mut reference: Option<Vec<ModelEvent>> = None;
        for split in all_splits() {
            let events = match decode(case.format, DecoderOptions::default(), &body, split) {
                Ok(events) => events,
                Err(error) => {
                    failures.push(format!("{} {split:?}: stream error {error}", case.path));
                    continue;
                }
            };
            match &reference {
                None => {
                    for problem in check(&case, &summarise(&events)) {
                        failures.push(format!("{}: {problem}", case.path));
                    }
                    reference = Some(events);
                }
                Some(reference) if *reference != events => {
                    failures.push(format!(
                        "{} {split:?}: events differ from a whole push",
                        case.path
                    ));
                }
                Some(_) => {}
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// A piece's kind, which merges with a neighbour of the same kind: `text`, `reasoning`, or the
/// arguments of the call at one index, for a delta that carries nothing else.
fn piece_kind(event: &ModelEvent) -> Option<String> {
    let absent = |field: &Option<String>| field.as_deref().is_none_or(str::is_empty);
    match event {
        ModelEvent::TextDelta(_) => Some("text".to_owned()),
        ModelEvent::ReasoningDelta(_) => Some("reasoning".to_owned()),
        ModelEvent::ToolCallDelta(delta)
            if absent(&delta.id)
                && absent(&delta.name)
                && delta.thought_signature.is_none()
                && matches!(delta.arguments, Some(ArgumentsDelta::Fragment(_))) =>
        {
            Some(format!("arguments at {:?}", delta.index))
        }
        _ => None,
    }
}

/// The web layer hands on the pieces of one network read (text, reasoning, a call's arguments)
/// as one event. For every shared fixture and split (whole, 4 KiB reads as the benchmark serves
/// them, seeded random): the outcome is the one of the unmerged events, every other event keeps
/// its place, no batch holds two neighbouring pieces of one kind, and a body read whole gives one
/// piece per run of pieces.
#[test]
fn pieces_read_together_merge_without_changing_what_the_round_said() {
    let mut failures = Vec::new();
    let splits = [
        Split::Whole,
        Split::Fixed(4096),
        Split::Random(3),
        Split::Random(7),
    ];
    for case in fixture_cases() {
        let body = body(case.path, case.format);
        let options = DecoderOptions::default();
        let unmerged =
            decode(case.format, options.clone(), &body, Split::Whole).expect("the fixture decodes");
        let not_pieces = |events: &[ModelEvent]| -> Vec<ModelEvent> {
            events
                .iter()
                .filter(|event| piece_kind(event).is_none())
                .cloned()
                .collect()
        };
        for split in splits {
            let batches = decode_merged(case.format, options.clone(), &body, split)
                .expect("the fixture decodes");
            let merged: Vec<ModelEvent> = batches.iter().flatten().cloned().collect();
            if summarise(&merged) != summarise(&unmerged) {
                failures.push(format!("{} {split:?}: the outcome changed", case.path));
            }
            if not_pieces(&merged) != not_pieces(&unmerged) {
                failures.push(format!("{} {split:?}: other events moved", case.path));
            }
            let unmerged_neighbours = batches.iter().any(|batch| {
                batch.windows(2).any(|pair| {
                    piece_kind(&pair[0]).is_some() && piece_kind(&pair[0]) == piece_kind(&pair[1])
                })
            });
            if unmerged_neighbours {
                failures.push(format!(
                    "{} {split:?}: neighbouring pieces left unmerged",
                    case.path
                ));
            }
        }
        let whole: Vec<ModelEvent> = decode_merged(case.format, options, &body, Split::Whole)
            .expect("the fixture decodes")
            .concat();
        let mut runs: Vec<Option<String>> = unmerged.iter().map(piece_kind).collect();
        runs.dedup();
        let pieces_expected = runs.iter().filter(|kind| kind.is_some()).count();
        let pieces = whole
            .iter()
            .filter(|event| piece_kind(event).is_some())
            .count();
        if pieces != pieces_expected {
            failures.push(format!(
                "{}: {pieces} pieces from a whole read, {pieces_expected} expected",
                case.path
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn the_table_covers_every_shared_fixture() {
    let covered: Vec<&str> = fixture_cases().iter().map(|case| case.path).collect();
    let mut missing = Vec::new();
    let root = fixtures_root();
    for provider in std::fs::read_dir(&root).expect("shared fixtures exist") {
        let provider = provider.expect("directory entry").path();
        if !provider.is_dir() {
            continue;
        }
        for file in std::fs::read_dir(&provider).expect("provider directory") {
            let file = file.expect("directory entry").path();
            let relative = file
                .strip_prefix(&root)
                .expect("under the root")
                .to_string_lossy()
                .replace('\\', "/");
            if !covered.contains(&relative.as_str()) {
                missing.push(relative);
            }
        }
    }
    assert!(
        missing.is_empty(),
        "fixtures without an expected outcome: {missing:?}"
    );
}

fn fixture_cases() -> Vec<FixtureCase> {
    use FinishReason::{Length, Stop, ToolCalls};
    use WireFormat::{AnthropicMessages, Gemini, OllamaNdjson, OpenAiChat};
    vec![
        FixtureCase {
            path: "openai/parallel-tool-calls.sse",
            format: OpenAiChat,
            expected: Expected {
                text: "",
                reasoning: "",
                reasoning_signatures: vec![],
                text_signatures: vec![],
                calls: vec![
                    ExpectedCall {
                        raw_arguments: Some(r#"{"city": "Edinburgh", "country": "GB", "units": "c"}"#),
                        ..call(
                            "call_JMW1whyEaYG438VE1OIflxA2",
                            "GetWeatherArgs",
                            json!({"city": "Edinburgh", "country": "GB", "units": "c"}),
                        )
                    },
                    call(
                        "call_DNYTawLBoN8fj3KN6qU9N1Ou",
                        "get_stock_price",
                        json!({"ticker": "AAPL", "exchange": "NASDAQ"}),
                    ),
                ],
                finish: Some(ToolCalls),
                usage: usage(149, 60, None, Some(0)),
            },
        },
        FixtureCase {
            path: "openai/multiple-choices.sse",
            format: OpenAiChat,
            expected: Expected {
                text: r#"{"city":"San Francisco","temperature":65,"units":"f"}"#,
                reasoning: "",
                reasoning_signatures: vec![],
                text_signatures: vec![],
                calls: vec![],
                finish: Some(Stop),
                usage: usage(79, 42, None, Some(0)),
            },
        },
        FixtureCase {
            path: "openai/text.chunks.txt",
            format: OpenAiChat,
            expected: Expected {
                text: OPENAI_TEXT,
                reasoning: "",
                reasoning_signatures: vec![],
                text_signatures: vec![],
                calls: vec![],
                finish: Some(Stop),
                usage: usage(16, 300, Some(0), Some(0)),
            },
        },
        FixtureCase {
            path: "openai-compatible/deepseek-reasoner-tool-call.chunks.txt",
            format: OpenAiChat,
            expected: Expected {
                text: "",
                reasoning: "The user is asking for the weather in San Francisco. I need to use the weather tool to get this information. Let me invoke the weather tool with the location parameter set to \"San Francisco\".",
                reasoning_signatures: vec![],
                text_signatures: vec![],
                calls: vec![ExpectedCall {
                    raw_arguments: Some(r#"{"location": "San Francisco"}"#),
                    ..call(
                        "call_00_ioIn7yN9p1ZOMNpDLwd4MgAF",
                        "weather",
                        json!({"location": "San Francisco"}),
                    )
                }],
                finish: Some(ToolCalls),
                usage: usage(339, 83, Some(320), Some(39)),
            },
        },
        FixtureCase {
            path: "openai-compatible/deepseek-reasoning.chunks.txt",
            format: OpenAiChat,
            expected: Expected {
                text: "The word \"strawberry\" contains three \"r\"s.",
                reasoning: DEEPSEEK_REASONING,
                reasoning_signatures: vec![],
                text_signatures: vec![],
                calls: vec![],
                finish: Some(Stop),
                usage: usage(18, 219, Some(0), Some(205)),
            },
        },
        FixtureCase {
            path: "openai-compatible/mistral-tool-call.chunks.txt",
            format: OpenAiChat,
            expected: Expected {
                text: "",
                reasoning: "",
                reasoning_signatures: vec![],
                text_signatures: vec![],
                calls: vec![call("gSIMJiOkT", "weather", json!({"location": "San Francisco"}))],
                finish: Some(ToolCalls),
                usage: usage(124, 22, None, None),
            },
        },
        FixtureCase {
            path: "openai-compatible/mistral-incremental-tool-call.chunks.txt",
            format: OpenAiChat,
            expected: Expected {
                text: "",
                reasoning: "",
                reasoning_signatures: vec![],
                text_signatures: vec![],
                calls: vec![call(
                    "chatcmpl-tool-9f149c74c42f265b",
                    "webSearchTool",
                    json!({"query": "current Berlin weather"}),
                )],
                finish: Some(ToolCalls),
                usage: usage(171, 14, Some(128), None),
            },
        },
        FixtureCase {
            path: "openai-compatible/groq-tool-call.chunks.txt",
            format: OpenAiChat,
            expected: Expected {
                text: "",
                reasoning: "",
                reasoning_signatures: vec![],
                text_signatures: vec![],
                calls: vec![ExpectedCall {
                    raw_arguments: Some("{}"),
                    ..call("tk85n1k4m", "weather", json!({}))
                }],
                finish: Some(ToolCalls),
                usage: usage(210, 15, None, None),
            },
        },
        FixtureCase {
            path: "openai-compatible/xai-tool-call.chunks.txt",
            format: OpenAiChat,
            expected: Expected {
                text: "",
                reasoning: XAI_REASONING,
                reasoning_signatures: vec![],
                text_signatures: vec![],
                calls: vec![call("call_79382389", "weather", json!({"location": "San Francisco"}))],
                finish: Some(ToolCalls),
                // xAI counts its 227 reasoning tokens apart from the 26 completion tokens.
                usage: usage(307, 26 + 227, Some(306), Some(227)),
            },
        },
        FixtureCase {
            path: "openai-compatible/anthropic-compat-index-starts-at-1.sse",
            format: OpenAiChat,
            expected: Expected {
                text: "Reading it.",
                reasoning: "",
                reasoning_signatures: vec![],
                text_signatures: vec![],
                calls: vec![call("toolu_sanitized", "read_file", json!({"path": "a.txt"}))],
                finish: Some(ToolCalls),
                usage: None,
            },
        },
        FixtureCase {
            path: "anthropic/basic_response.sse",
            format: AnthropicMessages,
            expected: Expected {
                text: "Hello there!",
                reasoning: "",
                reasoning_signatures: vec![],
                text_signatures: vec![],
                calls: vec![],
                finish: Some(Stop),
                usage: usage(11, 6, None, None),
            },
        },
        FixtureCase {
            path: "anthropic/tool_use_response.sse",
            format: AnthropicMessages,
            expected: Expected {
                text: "I'll check the current weather in Paris for you.",
                reasoning: "",
                reasoning_signatures: vec![],
                text_signatures: vec![],
                calls: vec![ExpectedCall {
                    raw_arguments: Some(r#"{"location": "Paris"}"#),
                    ..call(
                        "toolu_01NRLabsLyVHZPKxbKvkfSMn",
                        "get_weather",
                        json!({"location": "Paris"}),
                    )
                }],
                finish: Some(ToolCalls),
                usage: usage(377, 65, Some(0), None),
            },
        },
        FixtureCase {
            path: "anthropic/incomplete_partial_json_response.sse",
            format: AnthropicMessages,
            expected: Expected {
                text: "I'll create a comprehensive tax guide for someone with multiple W2s and save it in a file called taxes.txt. Let me do that for you now.",
                reasoning: "",
                reasoning_signatures: vec![],
                text_signatures: vec![],
                calls: vec![ExpectedCall {
                    id: "toolu_01EKqbqmZrGRXy18eN7m9kvY",
                    id_synthesized: false,
                    name: "make_file",
                    arguments: Err("truncated"),
                    raw_arguments: Some(
                        "{\"filename\": \"taxes.txt\", \"lines_of_text\": [\n\"# COMPREHENSIVE TAX GUIDE FOR INDIVIDUALS WITH MULTIPLE W-2s\",\n\"\",\n\"## INTRODUCTION\",\n\"\",\n\"Filing taxes",
                    ),
                    signature: None,
                }],
                finish: Some(Length),
                usage: usage(450, 124, Some(0), None),
            },
        },
        FixtureCase {
            path: "anthropic/thinking.chunks.txt",
            format: AnthropicMessages,
            expected: Expected {
                text: "925 ÷ 5 = 185",
                reasoning: "The previous result was 925. Now I need to divide that by 5.\n\n925 ÷ 5 = 185",
                reasoning_signatures: vec![("EvQBCkYICxgC", 332)],
                text_signatures: vec![],
                calls: vec![],
                finish: Some(Stop),
                usage: usage(69, 53, Some(0), None),
            },
        },
        FixtureCase {
            path: "anthropic/tool-no-args.chunks.txt",
            format: AnthropicMessages,
            expected: Expected {
                text: "I'll update the issue list for you.",
                reasoning: "",
                reasoning_signatures: vec![],
                text_signatures: vec![],
                calls: vec![ExpectedCall {
                    raw_arguments: Some("{}"),
                    ..call("toolu_01QE1WLsSVp5hy5Q3GmGTmjP", "updateIssueList", json!({}))
                }],
                finish: Some(ToolCalls),
                usage: usage(565, 48, Some(0), None),
            },
        },
        FixtureCase {
            path: "gemini/tool-call.chunks.txt",
            format: Gemini,
            expected: Expected {
                text: "",
                reasoning: "",
                reasoning_signatures: vec![],
                text_signatures: vec![],
                calls: vec![ExpectedCall {
                    id_synthesized: true,
                    signature: Some(("EqUCCqICAb4+", 396)),
                    ..call("call_0", "weather", json!({"location": "San Francisco"}))
                }],
                finish: Some(ToolCalls),
                usage: usage(29, 15 + 45, None, Some(45)),
            },
        },
        FixtureCase {
            path: "gemini/tool-call-gemini3.chunks.txt",
            format: Gemini,
            expected: Expected {
                text: "",
                reasoning: "",
                reasoning_signatures: vec![],
                text_signatures: vec![],
                calls: vec![ExpectedCall {
                    id_synthesized: true,
                    signature: Some(("EpEgCo4gAb4+", 5488)),
                    ..call("call_0", "weather", json!({"location": "San Francisco"}))
                }],
                finish: Some(ToolCalls),
                usage: usage(29, 15 + 804, None, Some(804)),
            },
        },
        FixtureCase {
            path: "gemini/stream-tool-call-arguments.chunks.txt",
            format: Gemini,
            expected: Expected {
                text: "",
                reasoning: "",
                reasoning_signatures: vec![],
                text_signatures: vec![],
                calls: vec![
                    ExpectedCall {
                        id_synthesized: true,
                        signature: Some(("CiMBjz1rX25K", 1032)),
                        ..call("call_0", "getWeather", json!({"location": "Boston"}))
                    },
                    ExpectedCall {
                        id_synthesized: true,
                        ..call("call_1", "getWeather", json!({"location": "San Francisco"}))
                    },
                ],
                finish: Some(ToolCalls),
                usage: usage(26, 23 + 132, None, Some(132)),
            },
        },
        FixtureCase {
            path: "gemini/vertex-stream-tool-call-arguments-nested.chunks.txt",
            format: Gemini,
            expected: Expected {
                text: "",
                reasoning: "",
                reasoning_signatures: vec![],
                text_signatures: vec![],
                calls: vec![ExpectedCall {
                    id_synthesized: true,
                    signature: Some(("CmIBjz1rX0OQ", 5832)),
                    ..call("call_0", "cookRecipe", lasagna_recipe())
                }],
                finish: Some(ToolCalls),
                usage: usage(31, 684 + 1026, None, Some(1026)),
            },
        },
        FixtureCase {
            path: "gemini/reasoning.chunks.txt",
            format: Gemini,
            expected: Expected {
                text: "There are **3** \"r\"s in strawberry.\n\nHere is the breakdown: st**r**awbe**rr**y.",
                reasoning: "",
                reasoning_signatures: vec![],
                text_signatures: vec![("Eo0HCooHAb4+", 1216)],
                calls: vec![],
                finish: Some(Stop),
                usage: usage(9, 29 + 256, None, Some(256)),
            },
        },
        FixtureCase {
            path: "gemini/text.chunks.txt",
            format: Gemini,
            expected: Expected {
                text: "There are **3** \"r\"s in strawberry.\n\nst**r**awbe**rr**y",
                reasoning: "",
                reasoning_signatures: vec![],
                text_signatures: vec![("EqsFCqgFAb4+", 916)],
                calls: vec![],
                finish: Some(Stop),
                usage: usage(9, 23 + 185, None, Some(185)),
            },
        },
        FixtureCase {
            path: "ollama/api-chat-tool-call.ndjson",
            format: OllamaNdjson,
            expected: Expected {
                text: "",
                reasoning: "",
                reasoning_signatures: vec![],
                text_signatures: vec![],
                calls: vec![ExpectedCall {
                    id_synthesized: true,
                    raw_arguments: Some(r#"{"city":"Tokyo"}"#),
                    ..call("call_0", "get_weather", json!({"city": "Tokyo"}))
                }],
                finish: Some(ToolCalls),
                usage: usage(169, 15, None, None),
            },
        },
        FixtureCase {
            path: "ollama/api-chat-tool-call-with-ids.ndjson",
            format: OllamaNdjson,
            expected: Expected {
                text: "",
                reasoning: "The user wants weather for two cities.",
                reasoning_signatures: vec![],
                text_signatures: vec![],
                calls: vec![
                    call("call_k3x9q2ab", "get_weather", json!({"city": "Tokyo"})),
                    call(
                        "call_p8m1z7cd",
                        "get_weather",
                        json!({"city": "Paris", "unit": "celsius"}),
                    ),
                ],
                finish: Some(ToolCalls),
                usage: usage(169, 31, None, None),
            },
        },
    ]
}

fn lasagna_recipe() -> Value {
    let ingredient = |amount: &str, name: &str| json!({"amount": amount, "name": name});
    json!({"recipe": {
        "ingredients": [
            ingredient("16 oz", "Lasagna noodles"),
            ingredient("1 lb", "Ground beef"),
            ingredient("15 oz", "Ricotta cheese"),
            ingredient("3 cups", "Mozzarella cheese"),
            ingredient("1/2 cup", "Parmesan cheese"),
            ingredient("24 oz", "Tomato sauce"),
            ingredient("1", "Egg"),
            ingredient("2 cloves", "Garlic"),
            ingredient("1 tsp", "Salt"),
            ingredient("1/2 tsp", "Pepper"),
        ],
        "name": "Lasagna",
        "steps": [
            "Preheat oven to 375°F (190°C).",
            "Cook lasagna noodles according to package directions, drain and set aside.",
            "Brown ground beef with minced garlic in a skillet. Drain fat and stir in tomato sauce. Simmer for 10 minutes.",
            "In a bowl, mix ricotta cheese, egg, salt, pepper, and Parmesan cheese.",
            "In a 9x13 baking dish, spread a thin layer of meat sauce.",
            "Layer noodles, ricotta mixture, mozzarella, and meat sauce. Repeat.",
            "Top with remaining mozzarella cheese.",
            "Cover with foil and bake for 25 minutes.",
            "Remove foil and bake for another 25 minutes until golden.",
            "Let stand for 15 minutes before serving.",
        ],
    }})
}

// The long texts, concatenated from the fixtures' deltas by hand (a script outside this crate).

const OPENAI_TEXT: &str = r#"**Holiday Name:** Harmony Day

**Date:** Celebrated annually on the first Saturday of May

**Purpose:** Harmony Day is dedicated to fostering understanding, kindness, and unity among diverse communities. It emphasizes celebrating cultural differences while promoting empathy and collaboration.

**Traditions:**

1. **Cultural Potluck Gatherings:** Communities come together to share traditional dishes from their backgrounds, encouraging conversation and curiosity about different cultures.

2. **Story Circles:** People of all ages are encouraged to share stories from their heritage or personal experiences that promote understanding and empathy.

3. **Decorate for Unity:** Public spaces and homes are decorated with symbols representing different cultures—flags, traditional art, and meaningful motifs—to visually celebrate diversity.

4. **Collaborative Art Projects:** Communities create murals or sculptures that symbolize unity and diversity, involving artists and residents of all ages.

5. **Acts of Kindness:** As a central activity, participants perform Small acts of kindness throughout the day, such as volunteering, helping neighbors, or inviting someone new to join festivities.

6. **Music & Dance Festivals:** Local performances showcase a variety of musical styles and dances from different parts of the world, emphasizing shared joy and creativity.

7. **Educational Workshops:** Interactive sessions teach about various cultures’ histories, traditions, and celebrations, fostering respect and knowledge.

**Overall Spirit:** Harmony Day aims to create a sense of global community, reminding everyone that despite our differences, we are all connected through shared human experiences and mutual respect."#;

const DEEPSEEK_REASONING: &str = r#"We need to count the number of the letter "r" in the word "strawberry". The word is spelled: s-t-r-a-w-b-e-r-r-y. Let's list the letters and count the "r"s:

Position 1: s
2: t
3: r (first r)
4: a
5: w
6: b
7: e
8: r (second r)
9: r (third r)
10: y

So there are three "r"s. But wait, let's double-check: "strawberry" indeed has three "r"s: one after "t", and then two consecutive "r"s before "y". So the answer is 3.

The question is straightforward. However, sometimes people might miscount. Let's ensure: The word has 10 letters. The "r"s are at positions 3, 8, and 9. So yes, 3.

Thus, the answer is 3."#;

const XAI_REASONING: &str = r#"First, the user is asking about the weather in San Francisco. I have a available function called "weather" that retrieves the weather for a given location.

The function requires a parameter: "location", which is a string. The user has provided "San Francisco" as the location, so that's clear and inferable.

I should call this function to get the weather information. The format for calling the function is specific: I need to use <function_call> tags with JSON inside, like <function_call>{"action": "weather", "action_input": {"location": "San Francisco"}}</function_call>.

This seems to be a direct match, so I don't need to ask for clarification. My response should only contain the function call if that's the next step, which it is.

The instructions say: "Keep your response to user clear; please do not make your response verbose!" So, I shouldn't add any extra text; just the function call.

Finally, after calling the function, if this were a multi-turn conversation, I might need to respond based on the result, but for now, this is the logical next step."#;
