//! The pure core: no clock, no I/O, no JS. Everything here compiles and is tested natively.

pub mod agent_loop;
pub mod assembler;
pub mod http_header;
pub mod json_read;
pub mod json_text;
pub mod mcp;
pub mod message;
pub mod model_event;
pub mod ndjson;
pub mod oauth;
pub mod provider;
pub mod sse;
pub mod stream;
pub mod text;
pub mod think_split;
pub mod tools;
pub mod url_policy;
