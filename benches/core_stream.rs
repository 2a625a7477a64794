//! Throughput of the streaming layer, in MB/s of response body: SSE framing alone, and the whole
//! path (framing, provider parsing, tool-call assembly) on the largest shared fixtures and on
//! generated streams of several megabytes. Run with `cargo bench --bench core_stream`;
//! `cargo xtask bench` also counts instructions of some workloads under callgrind.
//!
//! Plain wall-clock timing on purpose: a benchmark framework would slow every CI build.

mod core_common;

use std::path::Path;
use std::rc::Rc;

use core_common::{Candidate, Workload};
use mcp_agent_wasm::core::assembler::ToolCallAssembler;
use mcp_agent_wasm::core::model_event::ModelEvent;
use mcp_agent_wasm::core::sse::SseDecoder;
use mcp_agent_wasm::core::stream::{DecoderOptions, ModelStreamDecoder, WireFormat};

/// Network reads deliver a few KiB at a time; the bodies are pushed in chunks of this size.
const CHUNK_BYTES: usize = 4096;
/// Size of each generated stream.
const GENERATED_BYTES: usize = 5 << 20;

struct Body {
    label: String,
    format: WireFormat,
    bytes: Vec<u8>,
}

/// Builds one body, only when a workload on it is prepared.
type BuildBody = fn() -> Body;

/// Bodies by stable name (the callgrind counts in BENCHMARKS.md are keyed by it).
const BODIES: [(&str, BuildBody); 7] = [
    ("openai-text", || {
        fixture_body("openai/text.chunks.txt", WireFormat::OpenAiChat)
    }),
    ("deepseek-reasoning", || {
        fixture_body(
            "openai-compatible/deepseek-reasoning.chunks.txt",
            WireFormat::OpenAiChat,
        )
    }),
    ("xai-tool-call", || {
        fixture_body(
            "openai-compatible/xai-tool-call.chunks.txt",
            WireFormat::OpenAiChat,
        )
    }),
    ("openai-parallel-tool-calls", || {
        fixture_body("openai/parallel-tool-calls.sse", WireFormat::OpenAiChat)
    }),
    ("gemini-nested-arguments", || {
        fixture_body(
            "gemini/vertex-stream-tool-call-arguments-nested.chunks.txt",
            WireFormat::Gemini,
        )
    }),
    ("generated-text-5mb", || {
        generated_text_stream(GENERATED_BYTES)
    }),
    ("generated-tool-calls-5mb", || {
        generated_tool_call_stream(GENERATED_BYTES)
    }),
];

fn main() {
    let mut candidates = Vec::new();
    for (id, build) in BODIES {
        candidates.push(Candidate::new(format!("sse/{id}"), move || {
            let body = Rc::new(build());
            Workload {
                units_per_run: body.bytes.len() as f64 / 1e6,
                rate_unit: "MB/s",
                run: Box::new(move || sse_decode(&body.bytes)),
            }
        }));
        candidates.push(Candidate::new(format!("decode+assemble/{id}"), move || {
            let body = Rc::new(build());
            check_decodes_cleanly(&body);
            Workload {
                units_per_run: body.bytes.len() as f64 / 1e6,
                rate_unit: "MB/s",
                run: Box::new(move || decode_and_assemble(&body)),
            }
        }));
    }
    core_common::main(candidates);
}

/// A benchmark of a body that does not decode would measure nothing useful.
fn check_decodes_cleanly(body: &Body) {
    let mut decoder = ModelStreamDecoder::new(body.format, DecoderOptions::default());
    let mut events = Vec::new();
    decoder
        .push(&body.bytes, &mut events)
        .expect("under the cap");
    decoder.finish(&mut events).expect("under the cap");
    let mut assembler = ToolCallAssembler::new(0);
    for event in &events {
        match event {
            ModelEvent::Error(error) => panic!("{}: error event {error:?}", body.label),
            ModelEvent::ToolCallDelta(delta) => assembler.push(delta),
            _ => {}
        }
    }
    for call in assembler.finish() {
        assert!(
            call.arguments.is_ok(),
            "{}: call {} does not parse",
            body.label,
            call.id
        );
    }
}

fn sse_decode(body: &[u8]) -> usize {
    let mut decoder = SseDecoder::new(16 << 20);
    let mut events = Vec::new();
    let mut count = 0;
    for chunk in body.chunks(CHUNK_BYTES) {
        decoder.push(chunk, &mut events).expect("under the cap");
        count += events.len();
        events.clear();
    }
    decoder.finish(&mut events).expect("under the cap");
    count + events.len()
}

fn decode_and_assemble(body: &Body) -> usize {
    let mut decoder = ModelStreamDecoder::new(body.format, DecoderOptions::default());
    let mut assembler = ToolCallAssembler::new(0);
    let mut events = Vec::new();
    let mut text_bytes = 0;
    let mut consume = |events: &mut Vec<ModelEvent>| {
        for event in events.drain(..) {
            match event {
                ModelEvent::TextDelta(text) | ModelEvent::ReasoningDelta(text) => {
                    text_bytes += text.len()
                }
                ModelEvent::ToolCallDelta(delta) => assembler.push(&delta),
                _ => {}
            }
        }
    };
    for chunk in body.bytes.chunks(CHUNK_BYTES) {
        decoder.push(chunk, &mut events).expect("under the cap");
        consume(&mut events);
    }
    decoder.finish(&mut events).expect("under the cap");
    consume(&mut events);
    text_bytes + assembler.finish().len()
}

/// A shared fixture framed as its provider sends it (see ../shared/fixtures/README.md): `*.sse`
/// files as they are, `*.chunks.txt` lines as `data:` events.
fn fixture_body(path: &str, format: WireFormat) -> Body {
    let file = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../shared/fixtures")
        .join(path);
    let text = std::fs::read_to_string(&file).unwrap_or_else(|error| {
        panic!(
            "{}: {error} (the shared fixtures live beside the checkout)",
            file.display()
        )
    });
    let framed = if path.ends_with(".sse") {
        text
    } else {
        let mut framed = String::new();
        for line in text.lines().filter(|line| !line.trim().is_empty()) {
            framed.push_str("data: ");
            framed.push_str(line);
            framed.push_str("\n\n");
        }
        if format == WireFormat::OpenAiChat {
            framed.push_str("data: [DONE]\n\n");
        }
        framed
    };
    Body {
        label: path.to_owned(),
        format,
        bytes: framed.into_bytes(),
    }
}

/// An OpenAI-style text answer of about `size` bytes, a few words per chunk.
fn generated_text_stream(size: usize) -> Body {
    let mut body = String::with_capacity(size + 1024);
    let mut word = 0u64;
    while body.len() < size {
        word += 1;
        body.push_str(&format!(
            "data: {{\"id\":\"chatcmpl-gen\",\"object\":\"chat.completion.chunk\",\"created\":1,\"model\":\"gen\",\"choices\":[{{\"index\":0,\"delta\":{{\"content\":\" word{word} and more\"}},\"finish_reason\":null}}]}}\n\n"
        ));
    }
    body.push_str("data: {\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}]}\n\ndata: [DONE]\n\n");
    Body {
        label: format!("generated OpenAI text stream ({} MB)", size >> 20),
        format: WireFormat::OpenAiChat,
        bytes: body.into_bytes(),
    }
}

/// Characters of argument text, chosen to exercise escapes (quote, backslash, newline) and
/// non-ASCII, as in bench/inputs.mjs.
const ARGUMENT_TEXT: &str =
    "Lorem ipsum \"dolor\" sit amet, café \\ naïve\nconsectetur adipiscing elit. ";
const PARALLEL_CALLS: usize = 8;

/// An OpenAI-style stream of about `size` bytes: parallel tool calls, round-robin, whose
/// arguments come one character per chunk (the shape of bench/inputs.mjs's generated stream).
fn generated_tool_call_stream(size: usize) -> Body {
    let mut body = String::with_capacity(size + 1024);
    let push_argument_character = |body: &mut String, index: usize, character: &str| {
        let fragment = serde_json::to_string(character).expect("a string serializes");
        body.push_str(&format!(
            "data: {{\"choices\":[{{\"index\":0,\"delta\":{{\"tool_calls\":[{{\"index\":{index},\"function\":{{\"arguments\":{fragment}}}}}]}}}}]}}\n\n"
        ));
    };
    for index in 0..PARALLEL_CALLS {
        body.push_str(&format!(
            "data: {{\"choices\":[{{\"index\":0,\"delta\":{{\"tool_calls\":[{{\"index\":{index},\"id\":\"call_{index}\",\"type\":\"function\",\"function\":{{\"name\":\"write_file\",\"arguments\":\"\"}}}}]}}}}]}}\n\n"
        ));
        for character in format!("{{\"path\":\"/tmp/out-{index}.txt\",\"content\":\"").chars() {
            push_argument_character(&mut body, index, character.encode_utf8(&mut [0; 4]));
        }
    }
    let mut text = ARGUMENT_TEXT.chars().cycle();
    let mut step = 0;
    while body.len() < size {
        let character = text.next().expect("cycle never ends");
        let escaped = serde_json::to_string(&character).expect("a char serializes");
        // One character of the argument JSON text per chunk: an escape takes two chunks.
        for piece in escaped[1..escaped.len() - 1].chars() {
            push_argument_character(
                &mut body,
                step % PARALLEL_CALLS,
                piece.encode_utf8(&mut [0; 4]),
            );
        }
        step += 1;
    }
    for index in 0..PARALLEL_CALLS {
        push_argument_character(&mut body, index, "\"");
        push_argument_character(&mut body, index, "}");
    }
    body.push_str("data: {\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"tool_calls\"}]}\n\ndata: [DONE]\n\n");
    Body {
        label: format!(
            "generated {PARALLEL_CALLS} parallel tool calls, one character per chunk ({} MB)",
            size >> 20
        ),
        format: WireFormat::OpenAiChat,
        bytes: body.into_bytes(),
    }
}
