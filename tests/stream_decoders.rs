//! Edge cases of the framing decoders (SSE, NDJSON) and of the `<think>` splitter, each input
//! also replayed in every split (whole, byte by byte, seeded random) with identical results.

mod stream_support;

use mcp_agent_wasm::core::model_event::ModelEvent;
use mcp_agent_wasm::core::ndjson::NdjsonDecoder;
use mcp_agent_wasm::core::sse::{SseDecoder, SseEvent, LINE_BLOCK_BYTES};
use mcp_agent_wasm::core::stream::{StreamError, DEFAULT_MAX_EVENT_BYTES};
use mcp_agent_wasm::core::think_split::ThinkTagSplitter;
use stream_support::{all_splits, chunks, Split, SplitRng};

/// Everything an SSE body produced: events, then the last event id and retry delay.
type SseOutcome = (Vec<SseEvent>, Option<String>, Option<u64>);

/// Decodes with `push` (owned events) and with `push_with` (borrowed events, what the model
/// stream uses), asserts both give the same outcome, and returns it.
fn decode_sse(
    body: &[u8],
    max_event_bytes: usize,
    split: Split,
) -> Result<SseOutcome, StreamError> {
    let owned = decode_sse_with(body, max_event_bytes, split, |decoder, chunk, events| {
        decoder.push(chunk, events)
    });
    let borrowed = decode_sse_with(body, max_event_bytes, split, |decoder, chunk, events| {
        decoder.push_with(chunk, &mut |event| events.push(event.to_owned_event()))
    });
    assert_eq!(
        owned, borrowed,
        "push and push_with disagree under {split:?}"
    );
    owned
}

fn decode_sse_with(
    body: &[u8],
    max_event_bytes: usize,
    split: Split,
    push: impl Fn(&mut SseDecoder, &[u8], &mut Vec<SseEvent>) -> Result<(), StreamError>,
) -> Result<SseOutcome, StreamError> {
    let mut decoder = SseDecoder::new(max_event_bytes);
    let mut events = Vec::new();
    for chunk in chunks(body, split) {
        push(&mut decoder, chunk, &mut events)?;
    }
    decoder.finish(&mut events)?;
    Ok((
        events,
        decoder.last_event_id().map(str::to_owned),
        decoder.retry(),
    ))
}

/// name, body, events, last event id, retry delay.
type SseCase = (
    &'static str,
    &'static [u8],
    Vec<SseEvent>,
    Option<&'static str>,
    Option<u64>,
);

/// name, body cut by a broken connection, events, last event id.
type BrokenSseCase = (
    &'static str,
    &'static [u8],
    Vec<SseEvent>,
    Option<&'static str>,
);

/// name, chunks as pushed, events.
type ChunkedSseCase = (&'static str, Vec<&'static [u8]>, Vec<SseEvent>);

/// name, text, segments as (`text`|`reasoning`, text).
type ThinkCase = (
    &'static str,
    &'static str,
    Vec<(&'static str, &'static str)>,
);

fn event(kind: &str, data: &str, id: Option<&str>) -> SseEvent {
    SseEvent {
        event: kind.to_owned(),
        data: data.to_owned(),
        id: id.map(str::to_owned),
    }
}

#[test]
fn sse_edge_cases_decode_identically_under_every_split() {
    let message = |data: &str| event("message", data, None);
    let cases: Vec<SseCase> = vec![
        (
            "LF line ends",
            b"data: a\n\ndata: b\n\n",
            vec![message("a"), message("b")],
            None,
            None,
        ),
        (
            "CRLF line ends",
            b"data: a\r\n\r\ndata: b\r\n\r\n",
            vec![message("a"), message("b")],
            None,
            None,
        ),
        (
            "CR line ends",
            b"data: a\r\rdata: b\r\r",
            vec![message("a"), message("b")],
            None,
            None,
        ),
        (
            "mixed line ends",
            b"data: a\r\ndata: b\rdata: c\n\r\n",
            vec![message("a\nb\nc")],
            None,
            None,
        ),
        (
            "a leading byte order mark",
            b"\xEF\xBB\xBFdata: a\n\n",
            vec![message("a")],
            None,
            None,
        ),
        (
            "a byte order mark later is not stripped",
            b"data: a\n\n\xEF\xBB\xBFdata: b\n\ndata: c\n\n",
            vec![message("a"), message("c")],
            None,
            None,
        ),
        (
            "comment lines",
            b": keep-alive\ndata: a\n: another\n\n:\n\n",
            vec![message("a")],
            None,
            None,
        ),
        (
            "multi-line data",
            b"data: {\"a\":\ndata: 1}\ndata:\n\n",
            vec![message("{\"a\":\n1}\n")],
            None,
            None,
        ),
        (
            "a field without colon",
            b"data\ndata: x\n\n",
            vec![message("\nx")],
            None,
            None,
        ),
        (
            "one space after the colon is stripped, not two",
            b"data:  two\n\ndata:none\n\n",
            vec![message(" two"), message("none")],
            None,
            None,
        ),
        (
            "event type applies to one event",
            b"event: ping\ndata: {}\n\ndata: next\n\n",
            vec![event("ping", "{}", None), message("next")],
            None,
            None,
        ),
        (
            "last event id persists and an empty id resets it",
            b"id: 7\ndata: a\n\ndata: b\n\nid\ndata: c\n\nid: 9\n\n",
            vec![
                event("message", "a", Some("7")),
                event("message", "b", Some("7")),
                message("c"),
            ],
            Some("9"),
            None,
        ),
        (
            "an id containing NUL is ignored",
            b"id: 1\ndata: a\n\nid: 2\0\ndata: b\n\n",
            vec![
                event("message", "a", Some("1")),
                event("message", "b", Some("1")),
            ],
            Some("1"),
            None,
        ),
        (
            "retry with digits only",
            b"retry: 500\nid: p\ndata:\n\nretry: 5x\n\nretry: 1200\n\n",
            vec![event("message", "", Some("p"))],
            Some("p"),
            Some(1200),
        ),
        (
            "an event without data is not dispatched",
            b"event: x\n\nid: 3\n\n",
            vec![],
            Some("3"),
            None,
        ),
        (
            "unknown fields are ignored",
            b"foo: bar\ndata: a\n\n",
            vec![message("a")],
            None,
            None,
        ),
        (
            "a last event without its blank line",
            b"data: a\n\ndata: tail",
            vec![message("a"), message("tail")],
            None,
            None,
        ),
        (
            "a last line ending in CR",
            b"data: a\r",
            vec![message("a")],
            None,
            None,
        ),
        (
            "UTF-8 characters",
            "data: é€𝄞\n\n".as_bytes(),
            vec![message("é€𝄞")],
            None,
            None,
        ),
        (
            "invalid UTF-8 becomes the replacement character",
            b"data: a\xFFb\n\n",
            vec![message("a\u{FFFD}b")],
            None,
            None,
        ),
    ];
    let mut failures = Vec::new();
    for (name, body, want_events, want_id, want_retry) in cases {
        let want = (want_events, want_id.map(str::to_owned), want_retry);
        for split in all_splits() {
            match decode_sse(body, DEFAULT_MAX_EVENT_BYTES, split) {
                Ok(got) if got == want => {}
                other => failures.push(format!("{name} {split:?}: got {other:?}, want {want:?}")),
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// A body cut by a broken connection, unlike one that ended cleanly, loses its unfinished last
/// event (WHATWG: "the incomplete event is not dispatched"), and its last event id stays that of
/// the last dispatched event: that is where a resumed stream must start, since an event whose
/// `id:` line arrived but not its end was never received.
#[test]
fn a_broken_body_drops_its_unfinished_event_and_keeps_the_dispatched_id() {
    let first = || vec![event("message", "a", Some("e1"))];
    let cases: Vec<BrokenSseCase> = vec![
        (
            "cut inside the data",
            b"id: e1\ndata: a\n\nid: e2\ndata: {\"res",
            first(),
            Some("e1"),
        ),
        (
            "cut after a whole data line",
            b"id: e1\ndata: a\n\nid: e2\ndata: b\n",
            first(),
            Some("e1"),
        ),
        (
            "cut right after the id line",
            b"id: e1\ndata: a\n\nid: e2\n",
            first(),
            Some("e1"),
        ),
        (
            "cut inside the id line",
            b"id: e1\ndata: a\n\nid: e",
            first(),
            Some("e1"),
        ),
        (
            "cut after a CR that may end the event",
            b"id: e1\ndata: a\r\n\r\nid: e2\rdata: b\r",
            first(),
            Some("e1"),
        ),
        (
            "cut after an event without data, whose id took effect",
            b"id: e1\ndata: a\n\nid: e2\n\n",
            first(),
            Some("e2"),
        ),
        (
            "cut between events",
            b"id: e1\ndata: a\n\n",
            first(),
            Some("e1"),
        ),
    ];
    let mut failures = Vec::new();
    for (name, body, want_events, want_id) in cases {
        for split in all_splits() {
            let mut decoder = SseDecoder::new(DEFAULT_MAX_EVENT_BYTES);
            let mut events = Vec::new();
            for chunk in chunks(body, split) {
                decoder.push(chunk, &mut events).expect("under the cap");
            }
            decoder.discard_unfinished_event();
            let got = (events, decoder.last_event_id());
            if got != (want_events.clone(), want_id) {
                failures.push(format!("{name} {split:?}: got {got:?}"));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn sse_chunk_boundaries_inside_tricky_spots() {
    let cases: Vec<ChunkedSseCase> = vec![
        (
            "CR and LF in separate chunks are one line end",
            vec![b"data: a\r", b"\ndata: b\r", b"\n\r", b"\n"],
            vec![event("message", "a\nb", None)],
        ),
        (
            "an empty chunk between CR and LF",
            vec![b"data: a\r", b"", b"\n\r\n"],
            vec![event("message", "a", None)],
        ),
        (
            "a byte order mark split in three",
            vec![b"\xEF", b"\xBB", b"\xBFdata: a\n\n"],
            vec![event("message", "a", None)],
        ),
        (
            "a four-byte character split in every place",
            vec![b"data: \xF0", b"\x9D", b"\x84", b"\x9E\n\n"],
            vec![event("message", "𝄞", None)],
        ),
    ];
    for (name, pieces, want) in cases {
        let mut decoder = SseDecoder::new(DEFAULT_MAX_EVENT_BYTES);
        let mut events = Vec::new();
        for piece in pieces {
            decoder.push(piece, &mut events).expect("under the cap");
        }
        decoder.finish(&mut events).expect("under the cap");
        assert_eq!(events, want, "{name}");
    }
}

/// The decoder keeps its data buffer between events only up to 64 KiB; what follows a larger
/// event, in a fresh buffer, must come out intact, and so must the event type after it.
#[test]
fn events_after_one_larger_than_the_kept_buffer_come_out_intact() {
    let large = "x".repeat(100_000);
    let body = format!("data: {large}\n\nevent: small\ndata: a\n\ndata: b\n\n");
    for split in [Split::Whole, Split::Fixed(4096), Split::Random(3)] {
        let (events, ..) =
            decode_sse(body.as_bytes(), DEFAULT_MAX_EVENT_BYTES, split).expect("under the cap");
        assert_eq!(
            events,
            vec![
                event("message", &large, None),
                event("small", "a", None),
                event("message", "b", None),
            ],
            "{split:?}"
        );
    }
}

/// `field` then `: ` then filler up to `length` bytes, with a four-byte character across every
/// block boundary of the line (the decoder holds an unfinished line in blocks).
fn line_across_blocks(field: &str, length: usize) -> Vec<u8> {
    let mut line = format!("{field}: ").into_bytes();
    while line.len() < length {
        if (line.len() + 2) % LINE_BLOCK_BYTES == 0 {
            line.extend_from_slice("𝄞".as_bytes());
        } else {
            line.push(b"abc"[line.len() % 3]);
        }
    }
    line
}

/// Lines longer than a block come out as they went in whatever the reads: cut inside a CRLF
/// pair, inside a multi-byte character, one byte either side of a block boundary, and fed from
/// one large read or many small ones.
#[test]
fn lines_held_in_several_blocks_come_out_whole() {
    let first_data = line_across_blocks("data", 3 * LINE_BLOCK_BYTES + 17);
    // Ends so that its CR is the last byte of a block.
    let second_data = line_across_blocks("data", 2 * LINE_BLOCK_BYTES - 1);
    let event_name = line_across_blocks("event", LINE_BLOCK_BYTES + 5);
    let comment = line_across_blocks("", LINE_BLOCK_BYTES + 9);
    let unknown_field = line_across_blocks("dataX", 2 * LINE_BLOCK_BYTES);
    let mut invalid_utf8 = line_across_blocks("data", LINE_BLOCK_BYTES + 40);
    invalid_utf8[LINE_BLOCK_BYTES - 1] = 0xFF;
    invalid_utf8[LINE_BLOCK_BYTES] = 0xE2;
    invalid_utf8[LINE_BLOCK_BYTES + 1] = 0x82;

    let mut body = Vec::new();
    let mut line_starts = Vec::new();
    let mut crlf_middles = Vec::new();
    for (line, ending) in [
        (&event_name, "\r\n"),
        (&b"id: 7".to_vec(), "\n"),
        (&comment, "\r"),
        (&first_data, "\r\n"),
        (&unknown_field, "\n"),
        (&second_data, "\r\n"),
        (&b"".to_vec(), "\n"),
        (&invalid_utf8, "\n"),
        (&b"".to_vec(), "\n"),
        (&b"data: short".to_vec(), "\n\n"),
    ] {
        line_starts.push(body.len());
        body.extend_from_slice(line);
        if ending == "\r\n" {
            crlf_middles.push(body.len() + 1);
        }
        body.extend_from_slice(ending.as_bytes());
    }
    let text =
        |line: &[u8], field: &str| String::from_utf8_lossy(&line[field.len() + 2..]).into_owned();
    let want = vec![
        event(
            &text(&event_name, "event"),
            &format!(
                "{}\n{}",
                text(&first_data, "data"),
                text(&second_data, "data")
            ),
            Some("7"),
        ),
        event("message", &text(&invalid_utf8, "data"), Some("7")),
        event("message", "short", Some("7")),
    ];
    assert!(want[1].data.contains("\u{FFFD}"));

    let mut cuts = crlf_middles;
    for start in line_starts {
        for boundary in (1..=3).map(|blocks| start + blocks * LINE_BLOCK_BYTES) {
            cuts.extend([boundary - 1, boundary, boundary + 1]);
        }
    }
    cuts.retain(|&cut| cut < body.len());
    cuts.sort_unstable();
    cuts.dedup();
    let cut_at = |cuts: &[usize]| {
        let mut pieces = Vec::new();
        let mut from = 0;
        for &cut in cuts {
            pieces.push(&body[from..cut]);
            from = cut;
        }
        pieces.push(&body[from..]);
        pieces
    };
    let mut readings: Vec<(String, Vec<&[u8]>)> =
        vec![("at every awkward place".into(), cut_at(&cuts))];
    for &cut in &cuts {
        readings.push((format!("at {cut} only"), cut_at(&[cut])));
    }
    for split in [
        Split::Whole,
        Split::ByteByByte,
        Split::Random(1),
        Split::Fixed(16 * 1024),
        Split::Fixed(LINE_BLOCK_BYTES - 1),
        Split::Fixed(LINE_BLOCK_BYTES),
        Split::Fixed(LINE_BLOCK_BYTES + 1),
    ] {
        readings.push((format!("{split:?}"), chunks(&body, split)));
    }
    for (name, pieces) in readings {
        let mut decoder = SseDecoder::new(DEFAULT_MAX_EVENT_BYTES);
        let mut events = Vec::new();
        for piece in pieces {
            decoder.push(piece, &mut events).expect("under the cap");
        }
        decoder.finish(&mut events).expect("under the cap");
        assert!(events == want, "cut {name}: the events differ");
    }
}

#[test]
fn sse_events_over_the_cap_are_an_error_not_an_allocation() {
    let cases: Vec<(&str, &[u8], bool)> = vec![
        ("one line at the cap", b"data: 0123456789\n\n", false),
        ("one line over the cap", b"data: 0123456789A\n\n", true),
        (
            "many data lines adding up over the cap",
            b"data: 01234\ndata: 56789\ndata: AB\n\n",
            true,
        ),
        ("a line never ending", b"data: 0123456789ABCDEF", true),
        (
            "many small events under the cap",
            b"data: 0123\n\ndata: 4567\n\ndata: 89AB\n\n",
            false,
        ),
    ];
    for (name, body, want_error) in cases {
        for split in all_splits() {
            let result = decode_sse(body, 16, split);
            match (&result, want_error) {
                (Err(error), true) => assert_eq!(error.code(), "stream_event_too_large", "{name}"),
                (Ok(_), false) => {}
                _ => panic!("{name} {split:?}: got {result:?}"),
            }
        }
    }
    let mut decoder = SseDecoder::new(4);
    let mut events = Vec::new();
    let first = decoder.push(b"data: far too long\n\n", &mut events);
    let after = decoder.push(b"data: x\n\n", &mut events);
    assert!(first.is_err() && after.is_err() && events.is_empty());
}

fn decode_ndjson(
    body: &[u8],
    max_line_bytes: usize,
    split: Split,
) -> Result<Vec<String>, StreamError> {
    let mut decoder = NdjsonDecoder::new(max_line_bytes);
    let mut lines = Vec::new();
    for chunk in chunks(body, split) {
        decoder.push(chunk, &mut lines)?;
    }
    decoder.finish(&mut lines)?;
    Ok(lines)
}

#[test]
fn ndjson_edge_cases_decode_identically_under_every_split() {
    let cases: Vec<(&str, &[u8], Vec<&str>)> = vec![
        (
            "one value per line",
            b"{\"a\":1}\n{\"b\":2}\n",
            vec!["{\"a\":1}", "{\"b\":2}"],
        ),
        (
            "blank lines are ignored",
            b"\n{\"a\":1}\n\n  \n{\"b\":2}\n\n",
            vec!["{\"a\":1}", "{\"b\":2}"],
        ),
        (
            "CRLF line ends",
            b"{\"a\":1}\r\n{\"b\":2}\r\n",
            vec!["{\"a\":1}", "{\"b\":2}"],
        ),
        (
            "a last line without newline",
            b"{\"a\":1}\n{\"done\":true}",
            vec!["{\"a\":1}", "{\"done\":true}"],
        ),
        (
            "UTF-8 split anywhere",
            "{\"t\":\"é𝄞\"}\n".as_bytes(),
            vec!["{\"t\":\"é𝄞\"}"],
        ),
        ("nothing at all", b"", vec![]),
    ];
    for (name, body, want) in cases {
        for split in all_splits() {
            let got = decode_ndjson(body, DEFAULT_MAX_EVENT_BYTES, split);
            assert_eq!(
                got,
                Ok(want.iter().map(|line| line.to_string()).collect()),
                "{name} {split:?}"
            );
        }
    }
    for split in all_splits() {
        let over = decode_ndjson(b"{\"a\":\"0123456789\"}\n", 8, split);
        assert_eq!(
            over.map_err(|error| error.code()),
            Err("stream_event_too_large"),
            "{split:?}"
        );
    }
}

/// The splitter's output with adjacent pieces of the same kind joined: `("text"|"reasoning", …)`.
fn think_segments(events: &[ModelEvent]) -> Vec<(&'static str, String)> {
    let mut segments: Vec<(&'static str, String)> = Vec::new();
    for event in events {
        let (kind, text) = match event {
            ModelEvent::TextDelta(text) => ("text", text),
            ModelEvent::ReasoningDelta(text) => ("reasoning", text),
            other => panic!("unexpected event {other:?}"),
        };
        match segments.last_mut() {
            Some((last_kind, joined)) if *last_kind == kind => joined.push_str(text),
            _ => segments.push((kind, text.clone())),
        }
    }
    segments
}

/// Cuts text at char boundaries: whole, char by char, and seeded random.
fn text_splits(text: &str) -> Vec<Vec<&str>> {
    let boundaries: Vec<usize> = (0..=text.len())
        .filter(|&at| text.is_char_boundary(at))
        .collect();
    let mut splits = vec![vec![text]];
    splits.push(
        boundaries
            .windows(2)
            .map(|pair| &text[pair[0]..pair[1]])
            .collect(),
    );
    for seed in 1..=8 {
        let mut rng = SplitRng::new(seed);
        let mut pieces = Vec::new();
        let mut start = 0;
        while start < text.len() {
            let mut end = (start + rng.below(8)).min(text.len());
            while !text.is_char_boundary(end) {
                end += 1;
            }
            pieces.push(&text[start..end]);
            start = end;
        }
        splits.push(pieces);
    }
    splits
}

#[test]
fn think_tags_are_split_out_wherever_the_chunks_fall() {
    let cases: Vec<ThinkCase> = vec![
        (
            "a think block then the answer",
            "<think>plan</think>answer",
            vec![("reasoning", "plan"), ("text", "answer")],
        ),
        (
            "blank lines after the block are not part of the answer",
            "<think>\nplan\n</think>\n\nanswer",
            vec![("reasoning", "\nplan\n"), ("text", "answer")],
        ),
        (
            "the opening tag missing",
            "plan</think>\n\nanswer",
            vec![("reasoning", "plan"), ("text", "answer")],
        ),
        (
            "a block left open at the end",
            "<think>plan",
            vec![("reasoning", "plan")],
        ),
        ("no tags at all", "just text", vec![("text", "just text")]),
        (
            "whitespace before the opening tag",
            "\n <think>x</think>y",
            vec![("reasoning", "x"), ("text", "y")],
        ),
        (
            "text before a block",
            "intro <think>x</think> y",
            vec![("text", "intro "), ("reasoning", "x"), ("text", "y")],
        ),
        (
            "two blocks",
            "<think>a</think>b<think>c</think>d",
            vec![
                ("reasoning", "a"),
                ("text", "b"),
                ("reasoning", "c"),
                ("text", "d"),
            ],
        ),
        (
            "a less-than sign that is no tag",
            "1 < 2 and <b>",
            vec![("text", "1 < 2 and <b>")],
        ),
        (
            "a partial tag at the very end",
            "answer <thi",
            vec![("text", "answer <thi")],
        ),
        (
            "multi-byte text around tags",
            "é</think>ü",
            vec![("reasoning", "é"), ("text", "ü")],
        ),
        ("only an opening tag", "<think>", vec![]),
    ];
    let mut failures = Vec::new();
    for (name, text, want) in cases {
        let want: Vec<(&str, String)> = want
            .into_iter()
            .map(|(kind, text)| (kind, text.to_owned()))
            .collect();
        for pieces in text_splits(text) {
            let mut splitter = ThinkTagSplitter::new();
            let mut events = Vec::new();
            for piece in &pieces {
                splitter.push(piece, &mut events);
            }
            splitter.finish(&mut events);
            let got = think_segments(&events);
            if got != want {
                failures.push(format!("{name} {pieces:?}: got {got:?}, want {want:?}"));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn a_block_starting_with_the_tag_streams_its_reasoning_before_it_closes() {
    let mut splitter = ThinkTagSplitter::new();
    let mut events = Vec::new();
    splitter.push("<think>first thoughts", &mut events);
    assert_eq!(
        events,
        vec![ModelEvent::ReasoningDelta("first thoughts".to_owned())]
    );
}

#[test]
fn reasoning_from_the_provider_field_settles_held_text_as_answer() {
    let mut splitter = ThinkTagSplitter::new();
    let mut events = Vec::new();
    splitter.push("Hello", &mut events);
    let held_before = events.clone();
    splitter.reasoning_arrived_separately(&mut events);
    splitter.push(" there <think>x</think>y", &mut events);
    splitter.finish(&mut events);
    assert_eq!(held_before, vec![]);
    assert_eq!(
        think_segments(&events),
        vec![
            ("text", "Hello there ".to_owned()),
            ("reasoning", "x".to_owned()),
            ("text", "y".to_owned())
        ]
    );
}
