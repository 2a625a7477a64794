//! One entry of the Agent's `mcpServers`, read by hand (`core::json_read`) as the other options
//! are, here rather than in `web/` so that the reader is compared with a derived twin natively
//! (tests/config_readers.rs).

use serde::de::Error;
use serde_json::Value;

use crate::core::json_read::{
    header_list, invalid_type, known_member, named, object, optional, string, ReadError,
};
use crate::core::mcp::session::TransportMode;

/// One MCP server. Unknown members are refused.
pub struct ServerOptions {
    pub name: String,
    pub url: String,
    /// Sent to this server only.
    pub headers: Vec<(String, String)>,
    pub transport: TransportMode,
    /// The only tools of this server the model is offered (as the server names them); all when
    /// absent.
    pub allowed_tools: Option<Vec<String>>,
}

const SERVER_OPTIONS: &[&str] = &[
    "name",
    "url",
    "headers",
    "transport",
    "allowedTools",
    // A function, which JSON leaves out: the web layer reads it from the JS entry.
    "getAccessToken",
];

pub fn server_options(value: Value) -> Result<ServerOptions, ReadError> {
    let (mut name, mut url, mut headers, mut transport) = (None, None, None, None);
    let mut allowed_tools = None;
    for (key, value) in object(value, "struct ServerOptions")? {
        known_member(&key, SERVER_OPTIONS)?;
        match key.as_str() {
            "name" => name = Some(string(value)?),
            "url" => url = Some(string(value)?),
            "headers" => headers = Some(header_list(value)?),
            "transport" => {
                transport = Some(named(value, TransportMode::NAMES, &TransportMode::ALL)?);
            }
            "allowedTools" => allowed_tools = optional(value, names)?,
            // Here only when it is not a function, which the web layer refuses.
            "getAccessToken" => {}
            _ => {} // refused by `known_member` above
        }
    }
    Ok(ServerOptions {
        name: name.ok_or_else(|| ReadError::missing_field("name"))?,
        url: url.ok_or_else(|| ReadError::missing_field("url"))?,
        headers: headers.unwrap_or_default(),
        transport: transport.unwrap_or_default(),
        allowed_tools,
    })
}

/// Strings in a list, read as serde reads a `Vec<String>` (by hand: collecting `Result`s would
/// add an iterator adapter of its own to the wasm).
fn names(value: Value) -> Result<Vec<String>, ReadError> {
    let Value::Array(items) = value else {
        return Err(invalid_type(&value, &"a sequence"));
    };
    let mut names = Vec::with_capacity(items.len());
    for item in items {
        names.push(string(item)?);
    }
    Ok(names)
}
