//! MCP message parsing on arbitrary bodies: `parse_incoming`, then what the client does with each
//! message (answers, progress, tool listings and `tools/call` results, answers to server
//! requests, an elicitation checked and answered with its own params as the page's answer, a
//! sampling request read into a conversation).
//! Checked: no panic, and every answer to a server request echoes its id.
#![no_main]

use libfuzzer_sys::fuzz_target;
use mcp_agent_wasm::core::mcp::elicitation::{elicitation_request, elicitation_result};
use mcp_agent_wasm::core::mcp::jsonrpc::{
    accept_elicitation_defaults, answer_server_request, parse_incoming, progress_of, reply_to,
    IncomingMessage,
};
use mcp_agent_wasm::core::mcp::sampling::sampling_request;
use mcp_agent_wasm::core::mcp::tools::{ToolCallResult, ToolListing};

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let Ok(messages) = parse_incoming(text) else {
        return;
    };
    for message in &messages {
        let _ = message.answers(1);
        let _ = progress_of(message);
        match message {
            IncomingMessage::Response {
                outcome: Ok(result),
                ..
            } => {
                let _ = ToolCallResult::from_result(result.clone());
                let _ = ToolListing::new().handle_page(result);
            }
            IncomingMessage::Request { id, method, params } => {
                if let Ok(sampled) = sampling_request(params, true) {
                    assert!(sampled.max_tokens > 0 && !sampled.messages.is_empty());
                }
                let elicited = elicitation_request(params)
                    .and_then(|request| elicitation_result(&request, params))
                    .map_err(|problem| (-32603, problem));
                for answer in [
                    answer_server_request(id, method),
                    accept_elicitation_defaults(id, params),
                    reply_to(id, elicited),
                ] {
                    assert_eq!(answer.get("id"), Some(id), "an answer to another request");
                }
            }
            _ => {}
        }
    }
});
