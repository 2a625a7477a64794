//! Throughput of the streaming layer, in MB/s of response body: SSE framing alone, and the whole
//! path (framing, provider parsing, tool-call assembly) on the largest shared fixtures and on a
//! generated stream of several megabytes. Run with `cargo bench --bench stream_throughput`.
//!
//! Plain wall-clock timing on purpose: a benchmark framework would slow every CI build.

use std::hint::black_box;
use std::path::Path;
use std::time::{Duration, Instant};

use mcp_agent_wasm::core::assembler::ToolCallAssembler;
use mcp_agent_wasm::core::model_event::ModelEvent;
use mcp_agent_wasm::core::sse::SseDecoder;
use mcp_agent_wasm::core::stream::{DecoderOptions, ModelStreamDecoder, WireFormat};

/// Network reads deliver a few KiB at a time; the bodies are pushed in chunks of this size.
const CHUNK_BYTES: usize = 4096;
/// Each measurement repeats until at least this much time has passed.
const MEASURE_FOR: Duration = Duration::from_millis(400);

struct Body {
    label: String,
    format: WireFormat,
    bytes: Vec<u8>,
}

fn main() {
    let mut bodies: Vec<Body> = [
        ("openai/text.chunks.txt", WireFormat::OpenAiChat),
        (
            "openai-compatible/deepseek-reasoning.chunks.txt",
            WireFormat::OpenAiChat,
        ),
        (
            "openai-compatible/xai-tool-call.chunks.txt",
            WireFormat::OpenAiChat,
        ),
        (
            "gemini/vertex-stream-tool-call-arguments-nested.chunks.txt",
            WireFormat::Gemini,
        ),
    ]
    .into_iter()
    .filter_map(|(path, format)| fixture_body(path, format))
    .collect();
    bodies.push(generated_text_stream(5 << 20));
    bodies.push(generated_tool_call_stream(5 << 20));

    println!(
        "{:<62} {:>9} {:>14} {:>22}",
        "body", "KiB", "SSE MB/s", "decode+assemble MB/s"
    );
    for body in &bodies {
        check_decodes_cleanly(body);
        let sse = measure(&body.bytes, || sse_decode(&body.bytes));
        let full = measure(&body.bytes, || decode_and_assemble(body));
        println!(
            "{:<62} {:>9} {:>14.1} {:>22.1}",
            body.label,
            body.bytes.len() / 1024,
            sse,
            full
        );
    }
}

/// A benchmark of a body that does not decode would measure nothing useful.
fn check_decodes_cleanly(body: &Body) {
    let mut decoder = ModelStreamDecoder::new(body.format, DecoderOptions::default());
    let mut events = Vec::new();
    decoder
        .push(&body.bytes, &mut events)
        .expect("under the cap");
    decoder.finish(&mut events).expect("under the cap");
    let mut assembler = ToolCallAssembler::new();
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

/// MB/s (10^6 bytes per second) of `run` over `body`.
fn measure(body: &[u8], mut run: impl FnMut() -> usize) -> f64 {
    black_box(run());
    let started = Instant::now();
    let mut rounds = 0u32;
    while started.elapsed() < MEASURE_FOR {
        black_box(run());
        rounds += 1;
    }
    let seconds = started.elapsed().as_secs_f64();
    body.len() as f64 * f64::from(rounds) / seconds / 1e6
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
    let mut assembler = ToolCallAssembler::new();
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

/// A shared fixture framed as its provider sends it (see ../shared/fixtures/README.md).
fn fixture_body(path: &str, format: WireFormat) -> Option<Body> {
    let file = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../shared/fixtures")
        .join(path);
    let Ok(text) = std::fs::read_to_string(&file) else {
        println!("skipped {path}: not found at {}", file.display());
        return None;
    };
    let mut framed = String::new();
    for line in text.lines().filter(|line| !line.trim().is_empty()) {
        framed.push_str("data: ");
        framed.push_str(line);
        framed.push_str("\n\n");
    }
    if format == WireFormat::OpenAiChat {
        framed.push_str("data: [DONE]\n\n");
    }
    Some(Body {
        label: path.to_owned(),
        format,
        bytes: framed.into_bytes(),
    })
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

/// An OpenAI-style stream of about `size` bytes: parallel tool calls whose arguments come a few
/// characters per chunk.
fn generated_tool_call_stream(size: usize) -> Body {
    let mut body = String::with_capacity(size + 1024);
    let mut call = 0u32;
    while body.len() < size {
        let index = call % 8;
        if index == call {
            body.push_str(&format!(
                "data: {{\"choices\":[{{\"index\":0,\"delta\":{{\"tool_calls\":[{{\"index\":{index},\"id\":\"call_{index}\",\"type\":\"function\",\"function\":{{\"name\":\"write\",\"arguments\":\"{{\\\"text\\\": \\\"\"}}}}]}}}}]}}\n\n"
            ));
        }
        body.push_str(&format!(
            "data: {{\"choices\":[{{\"index\":0,\"delta\":{{\"tool_calls\":[{{\"index\":{index},\"function\":{{\"arguments\":\"lorem {call} \"}}}}]}}}}]}}\n\n"
        ));
        call += 1;
    }
    for index in 0..8 {
        body.push_str(&format!(
            "data: {{\"choices\":[{{\"index\":0,\"delta\":{{\"tool_calls\":[{{\"index\":{index},\"function\":{{\"arguments\":\"\\\"}}\"}}}}]}}}}]}}\n\n"
        ));
    }
    body.push_str("data: {\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"tool_calls\"}]}\n\ndata: [DONE]\n\n");
    Body {
        label: format!(
            "generated OpenAI parallel tool-call stream ({} MB)",
            size >> 20
        ),
        format: WireFormat::OpenAiChat,
        bytes: body.into_bytes(),
    }
}
