//! The OpenAiResponses stream parser behind its framing decoder, on arbitrary bodies: no panic, the
//! same events for the whole body and for any chunking (first byte: see `BodyOptions`).
#![no_main]

use libfuzzer_sys::fuzz_target;
use mcp_agent_wasm::core::stream::WireFormat;
use mcp_agent_wasm_fuzz::check_model_stream;

fuzz_target!(|data: &[u8]| check_model_stream(WireFormat::OpenAiResponses, data));
