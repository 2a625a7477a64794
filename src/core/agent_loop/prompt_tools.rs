//! Prompt-based tool mode, for models without native function calling: the tools are described
//! in the system prompt, and calls are parsed out of the answer text.

use serde_json::Value;

use crate::core::json_text::to_json_text;
use crate::core::text::{find_str, rfind_ascii};
use crate::core::tools::{sanitize_schema, SchemaDialect, ToolTable};

const FENCE: &str = "```";

/// The system prompt section that lists the tools and the one call format the parser accepts.
pub fn tool_prompt(tools: &ToolTable) -> String {
    let mut prompt = String::from(
        "You can call tools. To call a tool, write a JSON object in a ```json fenced block, \
         exactly in this form, and stop writing after the block:\n\
         ```json\n{\"name\": \"<tool name>\", \"arguments\": {<arguments>}}\n```\n\
         To call several tools at once, put a JSON array of such objects in one block. \
         The arguments must be a JSON object that matches the tool's parameters. \
         The results come back in the next message. \
         When you can answer, answer in plain text without any tool call.\n\nTools:",
    );
    for entry in tools.entries() {
        let parameters = sanitize_schema(&entry.input_schema, SchemaDialect::OpenAi).schema;
        prompt.push_str("\n- ");
        prompt.push_str(&entry.function_name);
        if let Some(description) = entry.description.as_deref().filter(|d| !d.is_empty()) {
            prompt.push_str(": ");
            prompt.push_str(description);
        }
        prompt.push_str("\n  parameters: ");
        prompt.push_str(&to_json_text(&parameters));
    }
    prompt
}

/// A call found in the answer text.
#[derive(Debug, Clone, PartialEq)]
pub struct PromptCall {
    /// The function name; empty when a malformed call did not reveal it.
    pub name: String,
    /// The arguments, or why the call's JSON does not parse (fed back so the model can repair).
    pub arguments: Result<Value, String>,
    /// The arguments as JSON text, or the whole block for a malformed call.
    pub raw_arguments: String,
}

/// The calls written in `text`: from fenced blocks when any holds a call (or a malformed
/// attempt at one), otherwise from bare JSON. JSON that is not in the call format is ordinary
/// answer text, not a call.
pub fn parse_prompt_calls(text: &str) -> Vec<PromptCall> {
    let mut fenced = Vec::new();
    for block in fenced_blocks(text) {
        match serde_json::from_str::<Value>(block) {
            Ok(value) => push_calls_in_value(value, &mut fenced),
            Err(error) => {
                if let Some(call) = malformed_call(block, &error) {
                    fenced.push(call);
                }
            }
        }
    }
    if !fenced.is_empty() {
        return fenced;
    }
    bare_calls(text)
}

/// A fenced block that does not parse but names a function was meant as a call.
fn malformed_call(block: &str, error: &serde_json::Error) -> Option<PromptCall> {
    let after_key = &block[find_str(block, "\"name\"")? + "\"name\"".len()..];
    let name = after_key
        .trim_start()
        .strip_prefix(':')
        .map(str::trim_start)
        .and_then(|value| value.strip_prefix('"'))
        .and_then(|value| value.split('"').next())
        .unwrap_or_default();
    Some(PromptCall {
        name: name.to_owned(),
        arguments: Err(format!("the tool call is not valid JSON: {error}")),
        raw_arguments: block.trim().to_owned(),
    })
}

/// The contents of the closed fenced blocks, without their info strings.
fn fenced_blocks(text: &str) -> impl Iterator<Item = &str> {
    let mut rest = text;
    std::iter::from_fn(move || {
        let open = find_str(rest, FENCE)?;
        let after_open = &rest[open + FENCE.len()..];
        let body_start = after_open.find('\n').map_or(after_open.len(), |i| i + 1);
        let body = &after_open[body_start..];
        let close = find_str(body, FENCE)?;
        rest = &body[close + FENCE.len()..];
        Some(&body[..close])
    })
}

fn bare_calls(text: &str) -> Vec<PromptCall> {
    let mut calls = Vec::new();
    let mut position = 0;
    while let Some(offset) = text[position..].find(['{', '[']) {
        let start = position + offset;
        let rest = &text[start..];
        let value = value_end(rest)
            .and_then(|end| Some((end, serde_json::from_str::<Value>(&rest[..end]).ok()?)));
        match value {
            Some((end, value)) => {
                // Skip the whole value either way: a call nested in other JSON is an example,
                // not a call.
                push_calls_in_value(value, &mut calls);
                position = start + end;
            }
            None => position = start + 1,
        }
    }
    calls
}

/// Where the object or array `text` begins with (`{` or `[`) ends, just past its closing bracket,
/// its strings skipped: the value is then read alone, where serde_json's stream reader, which finds
/// the end as it reads, brought a second copy of the value reader into the wasm.
fn value_end(text: &str) -> Option<usize> {
    let mut depth = 0usize;
    let mut in_string = false;
    let mut escaped = false;
    for (index, byte) in text.bytes().enumerate() {
        if in_string {
            match byte {
                _ if escaped => escaped = false,
                b'\\' => escaped = true,
                b'"' => in_string = false,
                _ => {}
            }
            continue;
        }
        match byte {
            b'"' => in_string = true,
            b'{' | b'[' => depth += 1,
            b'}' | b']' => {
                depth -= 1;
                if depth == 0 {
                    return Some(index + 1);
                }
            }
            _ => {}
        }
    }
    None
}

/// Adds to `calls` the call of a call object, or the calls of an array made only of call
/// objects. Plain loops: a flat_map and an `Option<Vec>` collect took 1.5 KB of wasm.
fn push_calls_in_value(value: Value, calls: &mut Vec<PromptCall>) {
    match value {
        Value::Array(items) => {
            let mut found = Vec::with_capacity(items.len());
            for item in items {
                let Some(call) = call_in_value(item) else {
                    return;
                };
                found.push(call);
            }
            calls.append(&mut found);
        }
        other => {
            if let Some(call) = call_in_value(other) {
                calls.push(call);
            }
        }
    }
}

/// An object is a call when it has the call format's members and no other: a string `name`
/// and the `arguments` (`parameters` in Llama's own format; none for a tool without
/// parameters), and beside them at most the `"type": "function"` and the `id` that Llama 3.2
/// and 3.3 write. Any other object with a `name` (a package.json, a person) is data in the
/// answer.
fn call_in_value(value: Value) -> Option<PromptCall> {
    let Value::Object(mut object) = value else {
        return None;
    };
    if object.get("type").is_some_and(|kind| kind == "function") {
        object.shift_remove("type");
    }
    if object.get("id").is_some_and(Value::is_string) {
        object.shift_remove("id");
    }
    if object.len() > 2 {
        return None;
    }
    let Some(Value::String(name)) = object.shift_remove("name") else {
        return None;
    };
    let arguments = match object
        .shift_remove("arguments")
        .or_else(|| object.shift_remove("parameters"))
    {
        None if object.is_empty() => Value::Object(Default::default()),
        None => return None,
        // Some models write the arguments as a JSON text, the way OpenAI sends them.
        Some(Value::String(text)) => serde_json::from_str(&text).unwrap_or(Value::String(text)),
        Some(arguments) => arguments,
    };
    Some(PromptCall {
        name,
        raw_arguments: to_json_text(&arguments),
        arguments: Ok(arguments),
    })
}

/// How much of a round's text can be shown while it streams. A tool call must not flash on
/// screen, so streaming stops at the first place a call may start (a fence, or a line opening
/// with `{` or `[{`), and a tail that may still become one is held back until more text
/// arrives. `shown` is where the previous answer left off (no fence or call start lies before
/// it), `line_start` the start of its line: only the text after `shown` is scanned, so that a
/// long line streamed in many pieces costs time in proportion to its length, not its square.
pub fn streamable_len(text: &str, line_start: usize, shown: usize) -> Streamable {
    // While `Some`, the current line holds only whitespace so far, and starts here.
    let mut blank_line_from = text[line_start..shown]
        .bytes()
        .all(|byte| matches!(byte, b' ' | b'\t' | b'\r'))
        .then_some(line_start);
    for (offset, character) in text[shown..].char_indices() {
        let index = shown + offset;
        if text[index..].starts_with(FENCE) {
            return Streamable::StopAt(index);
        }
        if let Some(line_begin) = blank_line_from {
            match character {
                '{' => return Streamable::StopAt(line_begin),
                '[' => {
                    let after_bracket = text[index + 1..].trim_start();
                    if after_bracket.starts_with('{') {
                        return Streamable::StopAt(line_begin);
                    }
                    if after_bracket.is_empty() {
                        return Streamable::UpTo(line_begin);
                    }
                }
                _ => {}
            }
        }
        match character {
            '\n' => blank_line_from = Some(index + 1),
            ' ' | '\t' | '\r' => {}
            _ => blank_line_from = None,
        }
    }
    let last_line_start =
        rfind_ascii(&text[shown..], b'\n').map_or(line_start, |newline| shown + newline + 1);
    let last_line = &text[last_line_start..];
    if last_line.trim().is_empty() {
        return Streamable::UpTo(last_line_start);
    }
    let trailing_ticks = last_line.len() - last_line.trim_end_matches('`').len();
    Streamable::UpTo(text.len() - trailing_ticks)
}

/// The answer of [`streamable_len`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Streamable {
    /// A call may start here: show text up to this byte, and nothing after it this round.
    StopAt(usize),
    /// Show text up to this byte for now.
    UpTo(usize),
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// A bare value is found where serde_json's stream reader found it (`value_end`, then the
    /// value read alone): the same value and the same end, or none, for every text an object or
    /// array begins, complete or cut, nested, with strings holding brackets and escapes.
    #[test]
    fn a_bare_value_ends_where_serde_jsons_stream_reader_ends_it() {
        let pieces = [
            "{", "}", "[", "]", "\"", "\\", "\\\"", "a", ":", ",", "1", " ", "\"k\"", "null", "{}",
            "[]", "\"}\"", "\"]\"", "\n", "x", "\u{e9}",
        ];
        let mut state = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = move || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        let mut found = 0;
        for round in 0..100_000 {
            let mut text = String::from(if round % 2 == 0 { "{" } else { "[" });
            for _ in 0..next() % 14 {
                text.push_str(pieces[(next() % pieces.len() as u64) as usize]);
            }
            let mut stream = serde_json::Deserializer::from_str(&text).into_iter::<Value>();
            let expected = match stream.next() {
                Some(Ok(value)) => Some((stream.byte_offset(), value)),
                _ => None,
            };
            let ours = value_end(&text)
                .and_then(|end| Some((end, serde_json::from_str::<Value>(&text[..end]).ok()?)));
            assert_eq!(ours, expected, "{text:?}");
            found += usize::from(ours.is_some());
        }
        assert!(found > 1_000, "only {found} values found");
    }

    #[test]
    fn parses_calls_from_fenced_and_bare_json() {
        let cases: &[(&str, Vec<(&str, Value)>)] = &[
            (
                "Let me look.\n```json\n{\"name\": \"search\", \"arguments\": {\"q\": \"rust\"}}\n```",
                vec![("search", json!({"q": "rust"}))],
            ),
            (
                "```\n[{\"name\": \"a\", \"arguments\": {}}, {\"name\": \"b\", \"arguments\": {\"x\": 1}}]\n```",
                vec![("a", json!({})), ("b", json!({"x": 1}))],
            ),
            (
                "{\"name\": \"echo\", \"arguments\": \"{\\\"message\\\": \\\"hi\\\"}\"}",
                vec![("echo", json!({"message": "hi"}))],
            ),
            (
                "I will call {\"name\": \"now\"} and then {\"name\": \"echo\", \"arguments\": [1]}",
                vec![("now", json!({})), ("echo", json!([1]))],
            ),
            ("Use a map like {\"a\": 1} or ```json\n{\"b\": 2}\n```", vec![]),
            ("```json\n[{\"name\": \"a\"}, {\"city\": \"Oslo\"}]\n```", vec![]),
            ("An unclosed ```json\n{\"name\": \"x\", \"arguments\": {", vec![]),
            ("No JSON at all { [ ", vec![]),
            ("Example: {\"call\": {\"name\": \"a\", \"arguments\": {}}}", vec![]),
            (
                "```json\n{\"name\": \"lookup\", \"parameters\": {\"id\": 7}}\n```",
                vec![("lookup", json!({"id": 7}))],
            ),
            // Data with a `name` is not a call: only the call format's members make one.
            (
                "Here is a minimal package.json:\n```json\n{\"name\": \"my-app\", \"version\": \"1.0.0\"}\n```",
                vec![],
            ),
            ("The user is {\"name\": \"Alice\", \"age\": 30}.", vec![]),
            ("{\"name\": \"a\", \"arguments\": {}, \"id\": 1}", vec![]),
            (
                "{\"type\": \"function\", \"name\": \"lookup\", \"parameters\": {\"id\": 7}}",
                vec![("lookup", json!({"id": 7}))],
            ),
            (
                "{\"name\": \"a\", \"arguments\": {}, \"id\": \"call_1\"}",
                vec![("a", json!({}))],
            ),
            ("{\"type\": \"module\", \"name\": \"a\", \"arguments\": {}}", vec![]),
            ("{\"name\": \"a\", \"args\": {}}", vec![]),
        ];
        for (text, expected) in cases {
            let calls: Vec<(String, Value)> = parse_prompt_calls(text)
                .into_iter()
                .map(|call| (call.name, call.arguments.expect("well-formed")))
                .collect();
            let expected: Vec<(String, Value)> = expected
                .iter()
                .map(|(name, arguments)| (name.to_string(), arguments.clone()))
                .collect();
            assert_eq!(calls, expected, "text: {text}");
        }
    }

    #[test]
    fn malformed_fenced_calls_are_reported_with_their_name() {
        let cases = [
            (
                "```json\n{\"name\": \"web_search\", \"arguments\": {\"query\": \"x\",}}\n```",
                "web_search",
            ),
            ("```json\n{'name': 'x'} \"name\" : 42\n```", ""),
        ];
        for (text, name) in cases {
            let calls = parse_prompt_calls(text);
            assert_eq!(calls.len(), 1, "text: {text}");
            assert_eq!(calls[0].name, name, "text: {text}");
            let error = calls[0].arguments.clone().unwrap_err();
            assert!(
                error.starts_with("the tool call is not valid JSON: "),
                "{error}"
            );
            assert!(text.contains(&calls[0].raw_arguments), "text: {text}");
        }
        assert!(parse_prompt_calls("```json\n{\"city\": \"Oslo\",}\n```").is_empty());
    }

    #[test]
    fn streaming_stops_where_a_call_may_start() {
        let cases = [
            ("Hello there", Streamable::UpTo(11)),
            ("Let me check.\n```json\n{", Streamable::StopAt(14)),
            ("Let me check.\n  {\"name\"", Streamable::StopAt(14)),
            ("Let me check.\n", Streamable::UpTo(14)),
            ("Let me check.\n  ", Streamable::UpTo(14)),
            ("Code: ``", Streamable::UpTo(6)),
            ("a {b} c", Streamable::UpTo(7)),
            ("[x]", Streamable::UpTo(3)),
            ("See:\n[ {\"name\"", Streamable::StopAt(5)),
            ("See:\n[", Streamable::UpTo(5)),
            (
                "Here:\n[Rust](https://www.rust-lang.org)",
                Streamable::UpTo(39),
            ),
            ("é {", Streamable::UpTo("é {".len())),
        ];
        for (text, expected) in cases {
            assert_eq!(streamable_len(text, 0, 0), expected, "text: {text:?}");
        }
    }

    /// Scanning only what follows the shown text answers as a scan of the whole line does, for
    /// text arriving in pieces of every size.
    #[test]
    fn scanning_from_the_shown_text_answers_as_scanning_the_line() {
        let texts = [
            "Hello there, a long line with {braces} and [links](x) and `code`",
            "Let me check.\n```json\n{\"name\": \"a\"}\n```",
            "Two lines.\n  \t\n  {\"name\": \"a\"}",
            "See:\n[ {\"name\"",
            "See:\n[x] then ``tick`` and ```",
            "é à\nü {\n  [ ]\n``",
            "a ``\n   ``\n```",
        ];
        for text in texts {
            for step in 1..=5 {
                let (mut shown, mut line_start) = (0, 0);
                let ends = (1..=text.len())
                    .filter(|end| text.is_char_boundary(*end))
                    .step_by(step);
                for end in ends {
                    let prefix = &text[..end];
                    let answer = streamable_len(prefix, line_start, shown);
                    let whole_line = streamable_len(prefix, line_start, line_start);
                    assert_eq!(answer, whole_line, "text: {prefix:?}, shown: {shown}");
                    match answer {
                        Streamable::StopAt(_) => break,
                        Streamable::UpTo(up_to) if up_to > shown => {
                            if let Some(newline) = rfind_ascii(&prefix[shown..up_to], b'\n') {
                                line_start = shown + newline + 1;
                            }
                            shown = up_to;
                        }
                        Streamable::UpTo(_) => {}
                    }
                }
            }
        }
    }
}
