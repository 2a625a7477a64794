#![cfg(not(target_arch = "wasm32"))]
//! No input makes the streaming layer panic, and no chunking changes what it produces.

mod stream_support;

use mcp_agent_wasm::core::model_event::ModelEvent;
use mcp_agent_wasm::core::sse::SseDecoder;
use mcp_agent_wasm::core::stream::{DecoderOptions, ModelStreamDecoder, StreamError, WireFormat};
use mcp_agent_wasm::core::think_split::ThinkTagSplitter;
use proptest::prelude::*;

const FORMATS: [WireFormat; 5] = [
    WireFormat::OpenAiChat,
    WireFormat::OpenAiResponses,
    WireFormat::AnthropicMessages,
    WireFormat::Gemini,
    WireFormat::OllamaNdjson,
];

/// Pushes `body` cut at `cuts` (positions taken modulo the length), then finishes.
fn decode_with_cuts(
    format: WireFormat,
    options: &DecoderOptions,
    body: &[u8],
    cuts: &[usize],
) -> Result<Vec<ModelEvent>, StreamError> {
    let mut positions: Vec<usize> = cuts.iter().map(|cut| cut % (body.len() + 1)).collect();
    positions.push(0);
    positions.push(body.len());
    positions.sort_unstable();
    let mut decoder = ModelStreamDecoder::new(format, options.clone());
    let mut events = Vec::new();
    for pair in positions.windows(2) {
        decoder.push(&body[pair[0]..pair[1]], &mut events)?;
    }
    decoder.finish(&mut events)?;
    Ok(events)
}

/// Bodies made of pieces that real streams contain, so that random input reaches the parsers.
fn stream_like_body() -> impl Strategy<Value = Vec<u8>> {
    let piece = prop_oneof![
        Just("data: ".to_owned()),
        Just("event: ".to_owned()),
        Just("id: 1".to_owned()),
        Just("retry: 10".to_owned()),
        Just(": ping".to_owned()),
        Just("\n".to_owned()),
        Just("\r\n".to_owned()),
        Just("\r".to_owned()),
        Just("[DONE]".to_owned()),
        Just(r#"{"choices":[{"index":0,"delta":{"content":"<think>a</th","tool_calls":[{"index":0,"id":"x","function":{"name":"f","arguments":"{\"a\""}}]},"finish_reason":"stop"}],"usage":{"prompt_tokens":1}}"#.to_owned()),
        Just(r#"{"type":"content_block_start","index":1,"content_block":{"type":"tool_use","id":"t","name":"f","input":{}}}"#.to_owned()),
        Just(r#"{"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":"{\"b"}}"#.to_owned()),
        Just(r#"{"type":"message_delta","delta":{"stop_reason":"max_tokens"},"usage":{"output_tokens":3}}"#.to_owned()),
        Just(r#"{"candidates":[{"content":{"parts":[{"functionCall":{"name":"g","willContinue":true}}]}}]}"#.to_owned()),
        Just(r#"{"candidates":[{"content":{"parts":[{"functionCall":{"partialArgs":[{"jsonPath":"$.a[3].b","stringValue":"s","willContinue":true}],"willContinue":true}}]}}]}"#.to_owned()),
        Just(r#"{"candidates":[{"content":{"parts":[{"functionCall":{}}]},"finishReason":"STOP"}]}"#.to_owned()),
        Just(r#"{"message":{"content":"</think>x","thinking":"t","tool_calls":[{"function":{"name":"h","arguments":{"k":1}}}]},"done":true}"#.to_owned()),
        Just(r#"{"error":{"code":500,"message":"m"}}"#.to_owned()),
        Just(r#"{"type":"response.output_item.added","output_index":1,"item":{"type":"function_call","call_id":"c","name":"f","arguments":""}}"#.to_owned()),
        Just(r#"{"type":"response.function_call_arguments.delta","output_index":1,"delta":"{\"a\""}"#.to_owned()),
        Just(r#"{"type":"response.reasoning_summary_text.delta","output_index":0,"summary_index":1,"delta":"r"}"#.to_owned()),
        Just(r#"{"type":"response.output_item.done","output_index":0,"item":{"type":"reasoning","encrypted_content":"e"}}"#.to_owned()),
        Just(r#"{"type":"response.incomplete","response":{"incomplete_details":{"reason":"max_output_tokens"},"usage":{"input_tokens":2}}}"#.to_owned()),
        "[ -~]{0,12}",
        any::<Vec<u8>>().prop_map(|bytes| String::from_utf8_lossy(&bytes).into_owned()),
    ];
    prop::collection::vec(piece, 0..40).prop_map(|pieces| pieces.concat().into_bytes())
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: 256,
        failure_persistence: None,
        ..ProptestConfig::default()
    })]

    #[test]
    fn arbitrary_bytes_never_panic_and_any_split_gives_the_same_events(
        body in prop::collection::vec(any::<u8>(), 0..2048),
        cuts in prop::collection::vec(any::<usize>(), 0..16),
        split_think_tags in any::<bool>(),
        max_event_bytes in prop_oneof![Just(64usize), Just(1 << 20)],
    ) {
        let options = DecoderOptions { split_think_tags, max_event_bytes };
        for format in FORMATS {
            let whole = decode_with_cuts(format, &options, &body, &[]);
            let split = decode_with_cuts(format, &options, &body, &cuts);
            prop_assert_eq!(whole, split);
        }
    }

    #[test]
    fn stream_like_bodies_never_panic_and_any_split_gives_the_same_events(
        body in stream_like_body(),
        cuts in prop::collection::vec(any::<usize>(), 0..24),
        split_think_tags in any::<bool>(),
    ) {
        let options = DecoderOptions { split_think_tags, ..DecoderOptions::default() };
        for format in FORMATS {
            let whole = decode_with_cuts(format, &options, &body, &[]);
            let split = decode_with_cuts(format, &options, &body, &cuts);
            prop_assert_eq!(whole, split);
        }
    }

    #[test]
    fn sse_last_event_id_and_retry_do_not_depend_on_the_split(
        body in stream_like_body(),
        cut in any::<usize>(),
    ) {
        let cut = cut % (body.len() + 1);
        let mut whole = SseDecoder::new(1 << 20);
        let mut split = SseDecoder::new(1 << 20);
        let (mut whole_events, mut split_events) = (Vec::new(), Vec::new());
        prop_assert!(whole.push(&body, &mut whole_events).is_ok());
        prop_assert!(split.push(&body[..cut], &mut split_events).is_ok());
        prop_assert!(split.push(&body[cut..], &mut split_events).is_ok());
        prop_assert_eq!(whole_events, split_events);
        prop_assert_eq!(whole.last_event_id(), split.last_event_id());
        prop_assert_eq!(whole.retry(), split.retry());
    }

    #[test]
    fn the_think_splitter_output_does_not_depend_on_the_split(
        text in "(<think>|</think>|<th|ink>|</|\n| |[a-zé]{0,5}){0,30}",
        cuts in prop::collection::vec(any::<usize>(), 0..8),
    ) {
        let mut positions: Vec<usize> = cuts.iter().map(|cut| cut % (text.len() + 1)).collect();
        positions.extend([0, text.len()]);
        positions.sort_unstable();
        let pieces: Vec<&str> = positions
            .windows(2)
            .filter(|pair| text.is_char_boundary(pair[0]) && text.is_char_boundary(pair[1]))
            .map(|pair| &text[pair[0]..pair[1]])
            .collect();
        prop_assume!(pieces.concat() == text);
        prop_assert_eq!(split_think(&[&text]), split_think(&pieces));
    }
}

/// The splitter's output for `pieces`, adjacent events of the same kind joined.
fn split_think(pieces: &[&str]) -> Vec<(bool, String)> {
    let mut splitter = ThinkTagSplitter::new();
    let mut events = Vec::new();
    for piece in pieces {
        splitter.push(piece, &mut events);
    }
    splitter.finish(&mut events);
    let mut joined: Vec<(bool, String)> = Vec::new();
    for event in events {
        let (is_reasoning, text) = match event {
            ModelEvent::ReasoningDelta(text) => (true, text),
            ModelEvent::TextDelta(text) => (false, text),
            _ => continue,
        };
        match joined.last_mut() {
            Some((last_kind, last_text)) if *last_kind == is_reasoning => last_text.push_str(&text),
            _ => joined.push((is_reasoning, text)),
        }
    }
    joined
}
