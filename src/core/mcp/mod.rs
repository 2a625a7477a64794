//! The MCP client's protocol logic, without I/O: JSON-RPC messages, the session state machine,
//! tool listing and results, resources and prompts, the tools cache, and the reading of an `mcpServers` entry. `web::mcp` performs the fetches it decides on.

pub mod auth;
pub mod cache;
pub mod catalog;
pub mod elicitation;
pub mod jsonrpc;
pub mod sampling;
pub mod server_options;
pub mod session;
pub mod tools;

use thiserror::Error;

use super::url_policy::UrlPolicyError;
use auth::AuthFailure;

/// Everything that can make an MCP operation fail, transport outcomes included, so that the
/// session logic can decide on them and callers get one stable set of codes.
#[derive(Debug, Clone, PartialEq, Error)]
pub enum McpError {
    #[error("server URL refused: {0}")]
    UrlRefused(UrlPolicyError),
    /// A configured header `fetch` would refuse; names the header, never the value.
    #[error("{0}")]
    InvalidHeader(String),
    #[error("legacy SSE endpoint refused: {0}")]
    LegacyEndpointRefused(UrlPolicyError),
    #[error("server answered HTTP {status}: {body}")]
    HttpStatus { status: u16, body: String },
    /// HTTP 401: the server wants a (new) access token.
    #[error("{0}")]
    Unauthorized(Box<AuthFailure>),
    /// HTTP 403: the token lacks a right, `insufficient_scope` when it lacks a scope.
    #[error("{0}")]
    Forbidden(Box<AuthFailure>),
    #[error("session expired (HTTP 404) and re-initializing did not help")]
    SessionExpired,
    #[error(
        "HTTP {status} after an initialize whose Mcp-Session-Id header this page could not read: \
         if the server uses sessions it must send `Access-Control-Expose-Headers: Mcp-Session-Id`"
    )]
    CorsHeaderMissing { status: u16 },
    #[error("network error (server unreachable, CORS refused, or a redirect, which is not followed): {0}")]
    Network(String),
    #[error("server error {code}: {message}")]
    JsonRpc {
        code: i64,
        message: String,
        data: Option<serde_json::Value>,
    },
    #[error("server chose protocol version `{0}`, which this client does not implement")]
    UnsupportedProtocolVersion(String),
    #[error("invalid message from server: {0}")]
    InvalidMessage(String),
    #[error("the response stream ended before the response arrived: {0}")]
    StreamEnded(String),
    #[error("no answer within {0} ms")]
    Timeout(u64),
    #[error("aborted")]
    Aborted,
    #[error("the client is closed")]
    Closed,
    #[error("{method} returned the cursor `{cursor}` twice")]
    CursorLoop {
        method: &'static str,
        cursor: String,
    },
    /// More pages or entries than a listing takes (for tools, more than any model takes): a
    /// listing that never ends would otherwise hold the page (and fill its memory) for good.
    #[error("{method} gave more than {max_pages} pages or {max_entries} entries; the listing was given up")]
    ListingTooLarge {
        method: &'static str,
        max_pages: usize,
        max_entries: usize,
    },
    #[error("the server did not declare the `{capability}` capability, which {method} needs")]
    CapabilityMissing {
        capability: &'static str,
        method: &'static str,
    },
    /// A `tools/call` result that breaks its tool's `outputSchema` (see
    /// [`tools::check_structured_content`]).
    #[error("{0}")]
    InvalidStructuredContent(String),
    /// The tool runs only as a task (MCP 2025-11-25 `execution.taskSupport: "required"`), which
    /// this client does not implement; its server would refuse a plain call.
    #[error("tool `{0}` runs only as a task (its execution.taskSupport is \"required\"), which this client does not implement")]
    TaskRequired(String),
    #[error("streamable HTTP failed ({streamable_http}); legacy SSE failed too ({legacy_sse})")]
    BothTransportsFailed {
        streamable_http: Box<McpError>,
        legacy_sse: Box<McpError>,
    },
}

impl McpError {
    pub fn code(&self) -> &'static str {
        match self {
            McpError::UrlRefused(_) => "mcp_url_refused",
            McpError::InvalidHeader(_) => "mcp_invalid_header",
            McpError::LegacyEndpointRefused(_) => "mcp_legacy_endpoint_refused",
            McpError::HttpStatus { .. } => "mcp_http_status",
            McpError::Unauthorized(_) => "mcp_unauthorized",
            McpError::Forbidden(_) => "mcp_forbidden",
            McpError::SessionExpired => "mcp_session_expired",
            McpError::CorsHeaderMissing { .. } => "mcp_cors_header_missing",
            McpError::Network(_) => "mcp_network",
            McpError::JsonRpc { .. } => "mcp_jsonrpc_error",
            McpError::UnsupportedProtocolVersion(_) => "mcp_unsupported_protocol_version",
            McpError::InvalidMessage(_) => "mcp_invalid_message",
            McpError::StreamEnded(_) => "mcp_stream_ended",
            McpError::Timeout(_) => "mcp_timeout",
            McpError::Aborted => "mcp_aborted",
            McpError::Closed => "mcp_closed",
            McpError::CursorLoop { .. } => "mcp_cursor_loop",
            McpError::ListingTooLarge { .. } => "mcp_listing_too_large",
            McpError::CapabilityMissing { .. } => "mcp_capability_missing",
            McpError::InvalidStructuredContent(_) => "mcp_invalid_structured_content",
            McpError::TaskRequired(_) => "mcp_task_required",
            McpError::BothTransportsFailed { .. } => "mcp_both_transports_failed",
        }
    }
}
