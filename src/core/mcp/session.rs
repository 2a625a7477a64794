//! One MCP session's state machine: initialization, the session id and protocol version headers,
//! what to do with an HTTP failure (re-initialize, fall back to legacy SSE, or fail), stream
//! resumption, per-call deadlines and idle pings. Time comes in as milliseconds.

use serde::{Deserialize, Deserializer, Serialize};
use serde_json::{Map, Value};

use super::jsonrpc::{self, OutgoingRequest};
use super::McpError;
use crate::core::json_read::deserialize_named;
use crate::core::json_text::{object, SetMember};

/// The version offered in `initialize`, unless the server refused it.
pub const LATEST_PROTOCOL_VERSION: &str = "2025-11-25";

/// Versions whose client side (tools, progress, cancellation, sessions) this client implements.
pub const SUPPORTED_PROTOCOL_VERSIONS: [&str; 4] =
    ["2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"];

/// Wait before resuming a stream whose server sent no `retry:` field.
pub const DEFAULT_RETRY_MS: u64 = 1000;

/// Reconnects in a row that may bring no new event before a stream is given up.
pub const MAX_RESUME_ATTEMPTS: u32 = 3;

/// The per-call timeout when the caller gives none.
pub const DEFAULT_CALL_TIMEOUT_MS: u64 = 120_000;

/// An idle session is pinged before reuse after this long, and replaced if the ping fails.
pub const IDLE_PING_AFTER_MS: u64 = 60_000;

/// Which transport to use for a server, as configured.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum TransportMode {
    /// Streamable HTTP, falling back to legacy SSE when the initialize POST gets 400, 404 or 405.
    #[default]
    Auto,
    StreamableHttp,
    Sse,
}

impl TransportMode {
    /// The names JSON writes, in the order of [`TransportMode::ALL`].
    pub const NAMES: &'static [&'static str] = &["auto", "streamable-http", "sse"];
    pub const ALL: [TransportMode; 3] = [
        TransportMode::Auto,
        TransportMode::StreamableHttp,
        TransportMode::Sse,
    ];
}

impl<'de> Deserialize<'de> for TransportMode {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserialize_named(deserializer, Self::NAMES, &Self::ALL)
    }
}

/// The transport a session actually runs on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Transport {
    StreamableHttp,
    LegacySse,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SessionState {
    /// No session yet, or it was dropped (expired): the next step is `initialize`.
    Uninitialized,
    /// `initialize` was sent; its result is awaited.
    Initializing {
        request_id: u64,
    },
    /// The `initialize` result was accepted and `notifications/initialized` is on its way. Not
    /// ready yet: servers may refuse every request until it arrives, so if it is lost the next
    /// use initializes again.
    SendingInitialized,
    /// Initialized and announced: requests may flow.
    Ready,
    Closed,
}

/// What the server told about itself in `initialize`.
#[derive(Debug, Clone, PartialEq, Default, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ServerDescription {
    pub protocol_version: String,
    pub server_info: Value,
    pub capabilities: Value,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub instructions: Option<String>,
}

/// What to do after an HTTP failure status of a POST other than `initialize`.
#[derive(Debug, Clone, PartialEq)]
pub enum FailureDecision {
    /// The session the request carried expired: send the request once more on a new session,
    /// the one being initialized if another request already started it.
    ReinitializeAndRetry,
    Fail(McpError),
}

/// What to do after an HTTP failure status of the `initialize` POST.
#[derive(Debug, Clone, PartialEq)]
pub enum InitializeFailure {
    /// Refused the way a server without Streamable HTTP refuses it: use legacy SSE. Carries the
    /// refusal, to report if legacy SSE fails too.
    FallBackToLegacySse(McpError),
    Fail(McpError),
}

/// How the client answers a server's `elicitation/create`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Elicitation {
    /// Not declared; refused with "method not found".
    Refused,
    /// Form mode declared; every form accepted with its schema's defaults, URL mode declined
    /// (unattended use, conformance runs).
    AcceptDefaults,
    /// Form and URL modes declared; the page's `onElicitation` answers.
    ByPage,
}

/// How the client answers a server's `sampling/createMessage` (by an Agent's model), and so
/// what `initialize` declares.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Sampling {
    /// Not declared; refused with "method not found".
    Refused,
    /// `sampling` declared: text and images, no tools.
    WithoutTools,
    /// `sampling.tools` declared too (MCP 2025-11-25): a request may offer the model tools.
    WithTools,
}

/// The session logic of one client.
#[derive(Debug, Clone)]
pub struct Session {
    client_name: String,
    client_version: String,
    mode: TransportMode,
    transport: Transport,
    state: SessionState,
    session_id: Option<String>,
    server: Option<ServerDescription>,
    next_request_id: u64,
    elicitation: Elicitation,
    sampling: Sampling,
    /// The page's roots (checked by [`roots_list`]), which `roots/list` answers with; `None`
    /// declares no `roots`.
    roots: Option<Value>,
    /// Whether messages carry `MCP-Protocol-Version` once initialized; off for a session whose
    /// server's CORS refuses it (see
    /// [`Session::retry_initialized_without_protocol_version_header`]).
    sends_protocol_version_header: bool,
    /// The version `initialize` offers: the latest, or one a server that refused it named (see
    /// [`Session::offer_a_version_the_server_supports`]).
    offered_version: &'static str,
    /// Initializations begun, which tells a session from the ones after it.
    sessions_begun: u32,
}

impl Session {
    pub fn new(client_name: &str, client_version: &str, mode: TransportMode) -> Self {
        let transport = match mode {
            TransportMode::Sse => Transport::LegacySse,
            TransportMode::Auto | TransportMode::StreamableHttp => Transport::StreamableHttp,
        };
        Session {
            client_name: client_name.to_owned(),
            client_version: client_version.to_owned(),
            mode,
            transport,
            state: SessionState::Uninitialized,
            session_id: None,
            server: None,
            next_request_id: 1,
            elicitation: Elicitation::Refused,
            sampling: Sampling::Refused,
            roots: None,
            sends_protocol_version_header: true,
            offered_version: LATEST_PROTOCOL_VERSION,
            sessions_begun: 0,
        }
    }

    /// How elicitations are answered, and so which capability `initialize` declares.
    pub fn set_elicitation(&mut self, elicitation: Elicitation) {
        self.elicitation = elicitation;
    }

    /// The client's answer to a server request (see [`jsonrpc::answer_server_request`]); the
    /// page answers elicitations itself when it asked to ([`Elicitation::ByPage`]).
    pub fn answer_server_request(&self, id: &Value, method: &str, params: &Value) -> Value {
        if self.elicitation == Elicitation::AcceptDefaults && method == "elicitation/create" {
            jsonrpc::accept_elicitation_defaults(id, params)
        } else if let (Some(roots), "roots/list") = (&self.roots, method) {
            jsonrpc::answer(id, "result", object([("roots", roots.clone())]))
        } else {
            jsonrpc::answer_server_request(id, method)
        }
    }

    /// How the client answers `sampling/createMessage`, and so what it declares.
    pub fn set_sampling(&mut self, sampling: Sampling) {
        self.sampling = sampling;
    }

    /// The roots `roots/list` answers with (a list [`roots_list`] accepted), declaring `roots`.
    pub fn set_roots(&mut self, roots: Option<Value>) {
        self.roots = roots;
    }

    /// What `initialize` declares the client can do.
    pub fn capabilities(&self) -> Value {
        let empty = || Value::Object(Map::new());
        let mut capabilities = Map::new();
        match self.elicitation {
            Elicitation::Refused => {}
            Elicitation::AcceptDefaults => {
                capabilities.set("elicitation", object([("form", empty())]));
            }
            Elicitation::ByPage => {
                let modes = object([("form", empty()), ("url", empty())]);
                capabilities.set("elicitation", modes);
            }
        }
        match self.sampling {
            Sampling::Refused => {}
            Sampling::WithoutTools => capabilities.set("sampling", empty()),
            Sampling::WithTools => capabilities.set("sampling", object([("tools", empty())])),
        }
        if self.roots.is_some() {
            capabilities.set("roots", empty());
        }
        Value::Object(capabilities)
    }

    pub fn state(&self) -> SessionState {
        self.state
    }

    pub fn transport(&self) -> Transport {
        self.transport
    }

    pub fn session_id(&self) -> Option<&str> {
        self.session_id.as_deref()
    }

    pub fn server(&self) -> Option<&ServerDescription> {
        self.server.as_ref()
    }

    /// Which session this is, counting every initialization begun: what a server handed out
    /// (a listing's cursor) belongs to the session it came from, and means nothing to another.
    pub fn sessions_begun(&self) -> u32 {
        self.sessions_begun
    }

    /// Starts (or restarts) initialization, forgetting any previous session.
    pub fn begin_initialize(&mut self) -> OutgoingRequest {
        self.sessions_begun = self.sessions_begun.wrapping_add(1);
        self.session_id = None;
        self.server = None;
        self.sends_protocol_version_header = true;
        let capabilities = self.capabilities();
        let request = self.next_request(
            "initialize",
            object([
                ("protocolVersion", Value::from(self.offered_version)),
                ("capabilities", capabilities),
                (
                    "clientInfo",
                    object([
                        ("name", Value::from(self.client_name.as_str())),
                        ("version", Value::from(self.client_version.as_str())),
                    ]),
                ),
            ]),
        );
        self.state = SessionState::Initializing {
            request_id: request.id,
        };
        request
    }

    /// The `initialize` failed with `error`. A server that refuses the offered version with an
    /// error naming those it supports (`data.supported`, the spec's example under lifecycle
    /// "Error Handling") instead of answering with one of them: true when one of them is a
    /// version this client implements, which the next `initialize` offers (the newest such).
    pub fn offer_a_version_the_server_supports(&mut self, error: &McpError) -> bool {
        let McpError::JsonRpc {
            data: Some(data), ..
        } = error
        else {
            return false;
        };
        let Some(supported) = data.get("supported").and_then(Value::as_array) else {
            return false;
        };
        let common = SUPPORTED_PROTOCOL_VERSIONS.into_iter().find(|version| {
            supported
                .iter()
                .any(|named| named.as_str() == Some(version))
        });
        match common {
            Some(version) if version != self.offered_version => {
                self.offered_version = version;
                true
            }
            _ => false,
        }
    }

    /// Takes the `Mcp-Session-Id` header (when readable) of the `initialize` response as soon as
    /// its headers arrive, before its result: the server holds the session from then on, so a
    /// reply stream that closes early is resumed with its id, and a connect given up before the
    /// result still ends it ([`Session::give_up`]), also one the client closed meanwhile.
    pub fn handle_initialize_response(
        &mut self,
        session_id_header: Option<&str>,
    ) -> Result<(), McpError> {
        let session_id = session_id_header.map(str::trim).filter(|id| !id.is_empty());
        match self.state {
            SessionState::Initializing { .. } | SessionState::Closed => {
                self.session_id = session_id.map(str::to_owned);
            }
            _ => {}
        }
        if self.state == SessionState::Closed {
            return Err(McpError::Closed);
        }
        Ok(())
    }

    /// Accepts the `initialize` result and returns the `notifications/initialized` message to
    /// send next; the session is ready once the server accepted it
    /// ([`Session::handle_initialized_accepted`]).
    pub fn handle_initialize_result(&mut self, result: &Value) -> Result<Value, McpError> {
        // Closed while initialize was on its way: the client stays closed.
        if self.state == SessionState::Closed {
            return Err(McpError::Closed);
        }
        let protocol_version = result
            .get("protocolVersion")
            .and_then(Value::as_str)
            .ok_or_else(|| {
                McpError::InvalidMessage("initialize result without protocolVersion".to_owned())
            })?;
        if !SUPPORTED_PROTOCOL_VERSIONS.contains(&protocol_version) {
            self.state = SessionState::Uninitialized;
            return Err(McpError::UnsupportedProtocolVersion(
                protocol_version.to_owned(),
            ));
        }
        self.server = Some(ServerDescription {
            protocol_version: protocol_version.to_owned(),
            server_info: result.get("serverInfo").cloned().unwrap_or(Value::Null),
            capabilities: result.get("capabilities").cloned().unwrap_or(Value::Null),
            instructions: result
                .get("instructions")
                .and_then(Value::as_str)
                .map(str::to_owned),
        });
        self.state = SessionState::SendingInitialized;
        Ok(jsonrpc::notification("notifications/initialized", None))
    }

    /// `notifications/initialized`, the first message carrying `MCP-Protocol-Version`, did not
    /// reach the server (a network error) although the initialize just did. In a browser the
    /// likely cause is a CORS preflight that allows `Mcp-Session-Id` but not that header, a
    /// common server oversight (php-sdk#264, netdata#22258). True, once per session, when the
    /// notification should be sent again without it: the session then leaves it out, and the
    /// server knows the version from the initialize (the spec lets a server fall back on it).
    pub fn retry_initialized_without_protocol_version_header(&mut self) -> bool {
        let retry =
            self.state == SessionState::SendingInitialized && self.sends_protocol_version_header;
        if retry {
            self.sends_protocol_version_header = false;
        }
        retry
    }

    /// The server accepted `notifications/initialized`: requests may flow.
    pub fn handle_initialized_accepted(&mut self) {
        if self.state == SessionState::SendingInitialized {
            self.state = SessionState::Ready;
        }
    }

    /// Numbers a request; ids are never reused within a client.
    pub fn next_request(&mut self, method: &str, params: Value) -> OutgoingRequest {
        let id = self.next_request_id;
        self.next_request_id += 1;
        jsonrpc::request(id, method, params)
    }

    /// A `tools/call` whose progress token is its own request id.
    pub fn tool_call_request(&mut self, name: &str, arguments: Value) -> OutgoingRequest {
        let id = self.next_request_id;
        self.next_request(
            "tools/call",
            object([
                ("name", Value::from(name)),
                ("arguments", arguments),
                ("_meta", object([("progressToken", Value::from(id))])),
            ]),
        )
    }

    /// Headers of a POST carrying a message.
    pub fn post_headers(&self) -> Vec<(&'static str, String)> {
        let mut headers = vec![
            ("Content-Type", "application/json".to_owned()),
            ("Accept", "application/json, text/event-stream".to_owned()),
        ];
        headers.extend(self.session_headers());
        headers
    }

    /// Headers of a GET that opens or resumes an SSE stream.
    pub fn get_headers(&self, last_event_id: Option<&str>) -> Vec<(&'static str, String)> {
        let mut headers = vec![("Accept", "text/event-stream".to_owned())];
        headers.extend(self.session_headers());
        if let Some(id) = last_event_id {
            headers.push(("Last-Event-ID", id.to_owned()));
        }
        headers
    }

    /// `Mcp-Session-Id` once the server gave one; `MCP-Protocol-Version` once initialized,
    /// `notifications/initialized` included, unless the server's CORS refuses it.
    pub fn session_headers(&self) -> Vec<(&'static str, String)> {
        let mut headers = Vec::new();
        if let Some(id) = &self.session_id {
            headers.push(("Mcp-Session-Id", id.clone()));
        }
        let initialized = matches!(
            self.state,
            SessionState::SendingInitialized | SessionState::Ready
        );
        let sends_version = initialized && self.sends_protocol_version_header;
        if let Some(server) = self.server.as_ref().filter(|_| sends_version) {
            headers.push(("MCP-Protocol-Version", server.protocol_version.clone()));
        }
        headers
    }

    /// Decides on an HTTP failure `status` of the `initialize` POST `request_id`. Only a refusal
    /// of the initialize in flight tells that the server lacks Streamable HTTP: a failure of any
    /// other request says nothing about the transport.
    pub fn on_initialize_failure(
        &mut self,
        request_id: u64,
        status: u16,
        body: &str,
    ) -> InitializeFailure {
        let refusal = McpError::HttpStatus {
            status,
            body: truncate(body, 500),
        };
        if self.state != (SessionState::Initializing { request_id }) {
            return InitializeFailure::Fail(refusal);
        }
        self.state = SessionState::Uninitialized;
        if self.mode == TransportMode::Auto
            && self.transport == Transport::StreamableHttp
            && matches!(status, 400 | 404 | 405)
        {
            self.transport = Transport::LegacySse;
            return InitializeFailure::FallBackToLegacySse(refusal);
        }
        InitializeFailure::Fail(refusal)
    }

    /// Decides on an HTTP failure `status` of a POST other than `initialize`.
    /// `carried_session_id` is the `Mcp-Session-Id` that request sent; `already_retried` says
    /// whether it is the retry after a re-initialization. A 404 for a session other than the
    /// current one (already replaced, or being replaced, after another request's 404) leaves the
    /// current one alone: the request is only sent again, on the new session. A closed session
    /// stays closed. A 400 whose body speaks of the session counts as the 404 (see
    /// `is_unknown_session_refusal`), except that its second time is reported as the server
    /// worded it.
    pub fn on_http_failure(
        &mut self,
        status: u16,
        body: &str,
        carried_session_id: Option<&str>,
        already_retried: bool,
    ) -> FailureDecision {
        let initializing = matches!(self.state, SessionState::Initializing { .. });
        let session_unknown = status == 404 || is_unknown_session_refusal(status, body);
        if session_unknown && carried_session_id.is_some() {
            let current_session_expired = carried_session_id == self.session_id.as_deref()
                && self.state != SessionState::Closed;
            if current_session_expired {
                self.state = SessionState::Uninitialized;
                self.session_id = None;
            }
            return match (already_retried, status) {
                (false, _) => FailureDecision::ReinitializeAndRetry,
                (true, 404) => FailureDecision::Fail(McpError::SessionExpired),
                (true, _) => FailureDecision::Fail(McpError::HttpStatus {
                    status,
                    body: truncate(body, 500),
                }),
            };
        }
        let answered_without_session_id = !initializing
            && self.transport == Transport::StreamableHttp
            && self.session_id.is_none()
            && self.server.is_some();
        if answered_without_session_id && matches!(status, 400 | 404) {
            return FailureDecision::Fail(McpError::CorsHeaderMissing { status });
        }
        FailureDecision::Fail(McpError::HttpStatus {
            status,
            body: truncate(body, 500),
        })
    }

    /// The connection carrying the session is gone (a legacy SSE stream ended): the next use
    /// must initialize again.
    pub fn connection_lost(&mut self) {
        if self.state != SessionState::Closed {
            self.state = SessionState::Uninitialized;
            self.session_id = None;
        }
    }

    /// Gives the session up, ready or not (a connect that timed out, a client closing): the next
    /// use initializes a new one. Returns the headers of the DELETE that ends it when the server
    /// opened it (Streamable HTTP with a session id): left open, it would hold the server's
    /// resources until the server expires it.
    pub fn give_up(&mut self) -> Option<Vec<(&'static str, String)>> {
        let opened = self.transport == Transport::StreamableHttp && self.session_id.is_some();
        let delete_headers = opened.then(|| self.session_headers());
        if self.state != SessionState::Closed {
            self.state = SessionState::Uninitialized;
        }
        self.session_id = None;
        delete_headers
    }

    /// An idle session failed its ping before reuse and is given up for a new one (see
    /// [`Session::give_up`]). It is ended unless calls still run on it, which its DELETE would
    /// fail; after a 404 there is nothing to end, the server forgot it (and
    /// [`Session::on_http_failure`] dropped its id).
    pub fn give_up_after_failed_ping(
        &mut self,
        calls_running: bool,
    ) -> Option<Vec<(&'static str, String)>> {
        self.give_up().filter(|_| !calls_running)
    }

    /// Gives the session up (see [`Session::give_up`]) and closes the client for good.
    pub fn close(&mut self) -> Option<Vec<(&'static str, String)>> {
        let delete_headers = self.give_up();
        self.state = SessionState::Closed;
        delete_headers
    }
}

/// A 400 that refuses the session id a request carried: the Python SDK's servers until
/// python-sdk#1808 and the servers copied from the TypeScript SDK's examples (typescript-sdk#389)
/// answer a session they no longer know (after a restart or an idle expiry) with 400 `Bad
/// Request: No valid session ID provided` instead of the spec's 404, and every call would fail
/// until the page reloads. A 400 about anything else (`session` unnamed) stays a failure.
fn is_unknown_session_refusal(status: u16, body: &str) -> bool {
    const WORD: &[u8] = b"session";
    status == 400
        && body
            .as_bytes()
            .windows(WORD.len())
            .any(|window| window.eq_ignore_ascii_case(WORD))
}

fn truncate(text: &str, max_chars: usize) -> String {
    match text.char_indices().nth(max_chars) {
        Some((cut, _)) => format!("{}…", &text[..cut]),
        None => text.to_owned(),
    }
}

/// What to do when an SSE response stream ends before the awaited response.
#[derive(Debug, Clone, PartialEq)]
pub enum ResumeDecision {
    /// Wait `delay_ms`, then GET with `Last-Event-ID: last_event_id`.
    Reconnect {
        delay_ms: u64,
        last_event_id: String,
    },
    GiveUp(McpError),
}

/// Tracks one response stream for resumption: the last event id and the server's `retry`.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct StreamResumption {
    last_event_id: Option<String>,
    retry_ms: Option<u64>,
    attempts_without_progress: u32,
}

impl StreamResumption {
    pub fn new() -> Self {
        Self::default()
    }

    /// Records the stream's last event id and `retry` so far (either may be absent); a new id
    /// counts as progress.
    pub fn observe_event(&mut self, id: Option<&str>, retry_ms: Option<u64>) {
        if let Some(id) = id.filter(|id| self.last_event_id.as_deref() != Some(*id)) {
            self.last_event_id = Some(id.to_owned());
            self.attempts_without_progress = 0;
        }
        if let Some(retry_ms) = retry_ms {
            self.retry_ms = Some(retry_ms);
        }
    }

    /// The stream closed with the response still missing. Resuming needs an event id; the wait
    /// is the server's `retry` (never sooner), and reconnects that bring nothing new are bounded.
    pub fn on_closed_early(&mut self) -> ResumeDecision {
        let Some(last_event_id) = self.last_event_id.clone() else {
            return ResumeDecision::GiveUp(McpError::StreamEnded(
                "the server sent no event id to resume from".to_owned(),
            ));
        };
        if self.attempts_without_progress >= MAX_RESUME_ATTEMPTS {
            return ResumeDecision::GiveUp(McpError::StreamEnded(format!(
                "{MAX_RESUME_ATTEMPTS} reconnects brought no new event"
            )));
        }
        self.attempts_without_progress += 1;
        ResumeDecision::Reconnect {
            delay_ms: self.retry_ms.unwrap_or(DEFAULT_RETRY_MS),
            last_event_id,
        }
    }
}

/// A call's deadline, pushed back by each progress notification.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CallDeadline {
    timeout_ms: u64,
    deadline_ms: f64,
}

impl CallDeadline {
    pub fn new(timeout_ms: u64, now_ms: f64) -> Self {
        CallDeadline {
            timeout_ms,
            deadline_ms: now_ms + timeout_ms as f64,
        }
    }

    pub fn on_progress(&mut self, now_ms: f64) {
        self.deadline_ms = now_ms + self.timeout_ms as f64;
    }

    /// Milliseconds left; 0 once expired.
    pub fn remaining_ms(&self, now_ms: f64) -> u64 {
        (self.deadline_ms - now_ms).max(0.0).ceil() as u64
    }
}

/// True when a session idle since `last_activity_ms` must be pinged before reuse.
pub fn needs_ping_before_reuse(last_activity_ms: f64, now_ms: f64) -> bool {
    now_ms - last_activity_ms >= IDLE_PING_AFTER_MS as f64
}

/// The page's `roots` option as `roots/list` sends it (MCP "Roots": the directories or files a
/// server may work in): a list of `{ uri, name? }`, each `uri` a `file://` URI as the spec
/// requires, members kept as given. A list that breaks this is refused with the reason, before
/// a server could read it.
pub fn roots_list(roots: Value) -> Result<Value, String> {
    let Value::Array(entries) = &roots else {
        return Err("`roots` is a list of { uri, name? }".to_owned());
    };
    for (index, entry) in entries.iter().enumerate() {
        let uri = entry.get("uri").and_then(Value::as_str);
        if !uri.is_some_and(|uri| uri.starts_with("file://")) {
            return Err(format!("roots[{index}]: `uri` must be a file:// URI"));
        }
        if entry.get("name").is_some_and(|name| !name.is_string()) {
            return Err(format!("roots[{index}]: `name` must be a string"));
        }
    }
    Ok(roots)
}
