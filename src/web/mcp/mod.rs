//! The MCP client over browser fetch: Streamable HTTP with a legacy SSE fallback. It performs the
//! fetches that `core::mcp` decides on and reads their replies; one client per server.

mod auth;
mod catalog;
mod http;
mod js;
mod server_requests;
mod shared;

pub use js::JsMcpClient;
use server_requests::tell_page;
pub use server_requests::{elicitation_hook_of, notification_hook_of, Answer, Sampler, UsageTally};

use std::cell::{Cell, RefCell};
use std::future::Future;
use std::pin::pin;
use std::rc::{Rc, Weak};

use futures::future::{select, Either};
use serde_json::Value;
use wasm_bindgen::JsValue;
use web_sys::AbortSignal;

use crate::core::http_header::headers_problem;
use crate::core::json_text::to_json_text;
use crate::core::mcp::cache::{CacheKey, ToolsCache};
use crate::core::mcp::catalog::{require_capability, SessionRequests};
use crate::core::mcp::jsonrpc::{
    cancelled_notification, progress_of, request_id_of, IncomingMessage, OutgoingRequest, Progress,
};
use crate::core::mcp::session::{
    needs_ping_before_reuse, CallDeadline, Elicitation, FailureDecision, InitializeFailure,
    ResumeDecision, Sampling, ServerDescription, Session, SessionState, StreamResumption,
    Transport, TransportMode, DEFAULT_CALL_TIMEOUT_MS,
};
use crate::core::mcp::tools::{ToolCallResult, ToolListing};
use crate::core::mcp::McpError;
use crate::core::tools::McpTool;
use crate::core::url_policy::{check_legacy_endpoint, check_server_url, CheckedUrl};

use crate::web::channel::{channel, Receiver, Sender};
use crate::web::spawn;
use crate::web::timer::{aborted, sleep};
use auth::Authorization;
pub use auth::{
    entry_token_hook, has_authorization_header, set_challenge_properties, token_hook_of,
    HOOK_AND_HEADER,
};
use http::{now_ms, parse_messages, send, Reply};
use shared::{Attempt, SharedAttempt, WeakAttempt};

/// How to reach one MCP server.
#[derive(Debug, Clone, PartialEq)]
pub struct McpServerConfig {
    pub url: String,
    /// Sent to this server only (its own origin), never anywhere else.
    pub headers: Vec<(String, String)>,
    pub transport: TransportMode,
    /// Development and tests only: allow `http:` and loopback or private addresses.
    pub allow_insecure_local_urls: bool,
    /// Unattended use: accept form elicitations with the schema's defaults instead of refusing.
    pub accept_elicitation_defaults: bool,
    /// The page's `onElicitation`, which answers the server's elicitations (both modes).
    pub on_elicitation: Option<js_sys::Function>,
    /// Answers the server's sampling requests (an Agent's model), declaring `sampling`.
    pub sampler: Option<Sampler>,
    /// The page's `onNotification`, told each notification the client does not consume itself.
    pub on_notification: Option<js_sys::Function>,
    /// The page's roots (see [`roots_list`](crate::core::mcp::session::roots_list)), declared
    /// and sent to a server's `roots/list`.
    pub roots: Option<Value>,
    /// The Agent's name for this server, which `onElicitation` and `onNotification` are told.
    pub name: Option<String>,
    /// The longest wait for connecting, for each request of the client's own, and for a tool
    /// call given no timeout: an Agent passes its `toolTimeoutMs`, so that a server that never
    /// answers holds a run no longer than a tool call may.
    pub timeout_ms: u64,
    /// The page's `getAccessToken`: the bearer token of each session, and a new one after a 401.
    pub get_access_token: Option<js_sys::Function>,
}

impl McpServerConfig {
    pub fn new(url: &str) -> Self {
        McpServerConfig {
            url: url.to_owned(),
            headers: Vec::new(),
            transport: TransportMode::Auto,
            allow_insecure_local_urls: false,
            accept_elicitation_defaults: false,
            on_elicitation: None,
            sampler: None,
            on_notification: None,
            roots: None,
            name: None,
            timeout_ms: DEFAULT_CALL_TIMEOUT_MS,
            get_access_token: None,
        }
    }
}

/// The client's name and version sent in `initialize`.
const CLIENT_NAME: &str = "mcp-agent-wasm";
/// How many times in a row an ended standalone stream is opened again.
const STANDALONE_REOPENINGS: u32 = 3;
/// A standalone stream that lasted this long was healthy: the count of reopenings starts over.
const STANDALONE_HEALTHY_MS: f64 = 60_000.0;

/// Where a tool listing leaves the tools it got.
type ListedTools = Rc<RefCell<Rc<[McpTool]>>>;

/// Request ids and where their replies go: the requests in flight on one connection, so a list
/// (smaller in wasm than a hash map).
type Routes = Rc<RefCell<Vec<(u64, Sender<IncomingMessage>)>>>;

/// A legacy SSE connection: the stream's reader task routes each message to the request waiting
/// for it. Dropping the connection drops `_stop`, which ends the task and closes the stream.
struct LegacyConnection {
    endpoint: CheckedUrl,
    routes: Routes,
    _stop: Sender<()>,
}

struct ClientState {
    url: CheckedUrl,
    headers: Vec<(String, String)>,
    allow_insecure_local_urls: bool,
    session: Session,
    legacy: Option<LegacyConnection>,
    /// Dropping it ends the standalone GET stream's reader (see `open_standalone_stream`).
    standalone_stream: Option<Sender<()>>,
    /// The requests in flight, for the progress that arrives on the standalone stream.
    standalone_routes: Routes,
    last_activity_ms: f64,
    /// The connection attempt in progress: concurrent callers share it rather than each
    /// initializing a session of their own. Held weakly, by its callers only: an attempt they all
    /// gave up (aborted) is dropped with its requests, not left half done for a later caller to
    /// resume after its timeout fired or after `close`, and gives up the session it was opening
    /// (`GiveUpUnlessReady`).
    connecting: Option<WeakAttempt>,
    /// The tool listing in progress: listings begun meanwhile (runs started together) share
    /// it and its outcome, a failure included. Held weakly like `connecting`, so that one caller
    /// giving up leaves it to the others; a tools change drops it, so that a listing begun
    /// after the change asks the server again. It leaves its tools beside it for its callers
    /// to take, so that it is an `Attempt` like `connecting` and the shared future's code is
    /// compiled once (70 B less gzipped wasm).
    listing: Option<(WeakAttempt, ListedTools)>,
    /// Dropped by `close`, which ends `closed`.
    closing: Option<Sender<()>>,
    /// Ends when `close` runs: requests still waiting end with `mcp_closed` at once. A Rust
    /// future rather than an `AbortSignal`, which would get a listener per request in flight and
    /// make Node warn (`MaxListenersExceededWarning`) past ten.
    closed: SharedAttempt,
    /// The server sent `notifications/tools/list_changed` since the last listing through the
    /// cache began: its cached listing is stale.
    tools_changed: bool,
    /// See [`McpServerConfig::timeout_ms`].
    timeout_ms: u64,
    auth: Authorization,
    /// See [`McpServerConfig::on_elicitation`].
    on_elicitation: Option<js_sys::Function>,
    /// See [`McpServerConfig::sampler`].
    sampler: Option<Sampler>,
    /// See [`McpServerConfig::on_notification`].
    on_notification: Option<js_sys::Function>,
    /// See [`McpServerConfig::name`].
    name: Option<String>,
    /// The page's subscriptions and log level, asked again of each new session.
    session_requests: SessionRequests,
}

/// One MCP server's client. Cheap to clone (shared state); every method takes `&self`, so
/// concurrent calls from JS never hit a `RefCell` borrowed across an `await`.
#[derive(Clone)]
pub struct McpClient {
    state: Rc<RefCell<ClientState>>,
}

/// What the caller of a request follows while it runs.
#[derive(Clone, Copy, Default)]
pub struct CallWatch<'a> {
    /// The server's progress notifications for the request.
    pub on_progress: Option<&'a dyn Fn(&Progress)>,
    /// Where the sampling requests the request's reply stream carries add the tokens their
    /// answers spent (the Agent's model, on the key of the run that made the call).
    pub sampled: Option<&'a UsageTally>,
}

/// What a running request reports to, and the deadline its progress pushes back.
struct CallContext<'a> {
    deadline: Rc<Cell<CallDeadline>>,
    watch: CallWatch<'a>,
    /// One per server request (elicitation, sampling) the request's reply stream carried, to be
    /// answered later; dropped with the request, which tells the answerer it is not awaited.
    answers_awaited: RefCell<Vec<Sender<()>>>,
}

impl<'a> CallContext<'a> {
    fn new(timeout_ms: u64, watch: CallWatch<'a>) -> Self {
        CallContext {
            deadline: Rc::new(Cell::new(CallDeadline::new(timeout_ms, now_ms()))),
            watch,
            answers_awaited: RefCell::default(),
        }
    }

    /// Restarts the timeout, as progress of the request does.
    fn restart_deadline(&self) {
        restart(&self.deadline);
    }
}

/// Pushes a request's deadline a whole timeout past now.
fn restart(deadline: &Cell<CallDeadline>) {
    let mut restarted = deadline.get();
    restarted.on_progress(now_ms());
    deadline.set(restarted);
}

/// What a request does when the server no longer knows its session (HTTP 404).
#[derive(Clone, Copy)]
enum OnExpiredSession<'a> {
    /// Send it again on a new session.
    Renew,
    /// Fail: the ping before reusing an idle session, which runs inside `connect` (so it cannot
    /// wait for a connection) and whose failure makes `connect` start a new session anyway.
    Fail,
    /// A listing's page. The cell holds the session its cursor came from
    /// ([`Session::sessions_begun`]), `None` for the first page, which is `Renew`; a page with
    /// a cursor is sent on that session only and fails otherwise, since a cursor means nothing
    /// to another session (see [`McpClient::restart_listing`]). Each send records its session.
    Page(&'a Cell<Option<u32>>),
}

/// How many times one listing starts again from its first page because its session was renewed
/// between pages.
const LISTING_RESTARTS: u32 = 3;

enum InitializeOutcome {
    Ready,
    FallBackToLegacySse(McpError),
}

impl McpClient {
    /// Checks the URL against the policy and the headers against `fetch`'s rules: a refused URL
    /// never reaches `fetch`, and a refused header fails here rather than as a network error.
    pub fn new(config: McpServerConfig) -> Result<Self, McpError> {
        let url = check_server_url(&config.url, config.allow_insecure_local_urls)
            .map_err(McpError::UrlRefused)?;
        if let Some(problem) = headers_problem(&config.headers) {
            return Err(McpError::InvalidHeader(problem));
        }
        let mut session = Session::new(CLIENT_NAME, env!("CARGO_PKG_VERSION"), config.transport);
        session.set_elicitation(if config.on_elicitation.is_some() {
            Elicitation::ByPage
        } else if config.accept_elicitation_defaults {
            Elicitation::AcceptDefaults
        } else {
            Elicitation::Refused
        });
        session.set_sampling(match &config.sampler {
            None => Sampling::Refused,
            Some(sampler) if sampler.takes_tools => Sampling::WithTools,
            Some(_) => Sampling::WithoutTools,
        });
        session.set_roots(config.roots);
        let (closing, close_notice) = channel::<()>();
        let closed: Attempt = Box::pin(async move {
            let _ = close_notice.await;
            Ok(())
        });
        let auth = Authorization::new(config.get_access_token, &url);
        Ok(McpClient {
            state: Rc::new(RefCell::new(ClientState {
                url,
                headers: config.headers,
                allow_insecure_local_urls: config.allow_insecure_local_urls,
                session,
                legacy: None,
                standalone_stream: None,
                standalone_routes: Routes::default(),
                last_activity_ms: now_ms(),
                connecting: None,
                listing: None,
                closing: Some(closing),
                closed: SharedAttempt::new(closed),
                tools_changed: false,
                timeout_ms: config.timeout_ms,
                auth,
                on_elicitation: config.on_elicitation,
                sampler: config.sampler,
                on_notification: config.on_notification,
                name: config.name,
                session_requests: SessionRequests::default(),
            })),
        })
    }

    /// The key of this server's entry in a [`ToolsCache`].
    pub fn cache_key(&self) -> CacheKey {
        let state = self.state.borrow();
        CacheKey::new(&state.url.href(), &state.auth.keyed_headers(&state.headers))
            .declaring(&state.session.capabilities())
    }

    pub fn transport(&self) -> Transport {
        self.state.borrow().session.transport()
    }

    pub fn server(&self) -> Option<ServerDescription> {
        self.state.borrow().session.server().cloned()
    }

    /// Initializes a session, over Streamable HTTP or legacy SSE as configured, within the
    /// client's timeout. A connected client that sat idle is pinged first and reconnected if the
    /// ping fails.
    pub async fn connect(&self) -> Result<(), McpError> {
        let attempt = {
            let mut state = self.state.borrow_mut();
            let fresh = state.session.state() == SessionState::Ready
                && !needs_ping_before_reuse(state.last_activity_ms, now_ms());
            if fresh {
                return Ok(());
            }
            match state.connecting.as_ref().and_then(WeakAttempt::upgrade) {
                Some(attempt) => attempt,
                None => {
                    let give_up = GiveUpUnlessReady(self.clone());
                    let timeout_ms = state.timeout_ms;
                    let attempt = SharedAttempt::new(Box::pin(async move {
                        let connect = pin!(give_up.0.connect_now());
                        let timeout = pin!(sleep(timeout_ms));
                        match select(connect, timeout).await {
                            Either::Left((outcome, _)) => outcome,
                            Either::Right(_) => Err(McpError::Timeout(timeout_ms)),
                        }
                    }));
                    state.connecting = Some(attempt.downgrade());
                    attempt
                }
            }
        };
        let outcome = attempt.clone().await;
        let mut state = self.state.borrow_mut();
        let current = state.connecting.as_ref().and_then(WeakAttempt::upgrade);
        if current.is_some_and(|current| current.ptr_eq(&attempt)) {
            state.connecting = None;
        }
        outcome
    }

    async fn connect_now(&self) -> Result<(), McpError> {
        let (session_state, idle_since) = {
            let state = self.state.borrow();
            (state.session.state(), state.last_activity_ms)
        };
        match session_state {
            SessionState::Closed => return Err(McpError::Closed),
            SessionState::Ready if !needs_ping_before_reuse(idle_since, now_ms()) => return Ok(()),
            SessionState::Ready => {
                match self.ping().await {
                    // An error answer came through the session too: servers that do not
                    // implement ping answer -32601 (go-sdk#900), and their session is alive.
                    Ok(()) | Err(McpError::JsonRpc { .. }) => return Ok(()),
                    // Closed while the ping was out: no new session.
                    Err(McpError::Closed) => return Err(McpError::Closed),
                    Err(_) => self.give_up_idle_session(),
                }
            }
            SessionState::Uninitialized
            | SessionState::Initializing { .. }
            | SessionState::SendingInitialized => {}
        }
        self.token_for_new_session().await?;
        if self.transport() == Transport::LegacySse {
            self.connect_legacy().await?;
        } else if let InitializeOutcome::FallBackToLegacySse(streamable_http) =
            self.initialize_streamable().await?
        {
            self.connect_legacy()
                .await
                .map_err(|legacy_sse| McpError::BothTransportsFailed {
                    streamable_http: Box::new(streamable_http),
                    legacy_sse: Box::new(legacy_sse),
                })?;
        }
        self.restore_session_requests();
        Ok(())
    }

    /// Asks a new session, in the background, for what the page asked of the one the server
    /// ended (its subscriptions and log level: [`SessionRequests`]); none for the first session.
    /// A request the new session's capabilities no longer allow is left out; the answers are not
    /// awaited (a refusal is the server's to tell).
    fn restore_session_requests(&self) {
        let mut requests = Vec::new();
        {
            let mut state = self.state.borrow_mut();
            let state = &mut *state;
            for entry in state.session_requests.to_restore() {
                let capabilities = state.session.server().map(|server| &server.capabilities);
                if require_capability(capabilities, entry.capability, entry.method).is_ok() {
                    let params = entry.params.clone();
                    requests.push(state.session.next_request(entry.method, params).body);
                }
            }
        }
        for request in requests {
            self.post_in_background(request);
        }
    }

    /// Checks that the session is alive; an expired session is reported, not renewed.
    pub async fn ping(&self) -> Result<(), McpError> {
        let request = self
            .state
            .borrow_mut()
            .session
            .next_request("ping", Value::Null);
        let timeout_ms = self.state.borrow().timeout_ms;
        let watch = CallWatch::default();
        self.request(request, timeout_ms, watch, None, OnExpiredSession::Fail)
            .await
            .map(drop)
    }

    /// Every tool the server lists, following `nextCursor` to the last page; a listing already
    /// under way is shared rather than asked for again.
    pub async fn list_tools(&self) -> Result<Rc<[McpTool]>, McpError> {
        let (listing, listed) = {
            let mut state = self.state.borrow_mut();
            let under_way = state
                .listing
                .as_ref()
                .and_then(|(listing, listed)| Some((listing.upgrade()?, Rc::clone(listed))));
            match under_way {
                Some(under_way) => under_way,
                None => {
                    let listed = ListedTools::default();
                    let (client, tools) = (self.clone(), Rc::clone(&listed));
                    let listing = SharedAttempt::new(Box::pin(async move {
                        *tools.borrow_mut() = client.list_every_page().await?;
                        Ok(())
                    }));
                    state.listing = Some((listing.downgrade(), Rc::clone(&listed)));
                    (listing, listed)
                }
            }
        };
        listing.await?;
        let tools = listed.borrow().clone();
        Ok(tools)
    }

    async fn list_every_page(&self) -> Result<Rc<[McpTool]>, McpError> {
        let mut restarts = 0;
        'listing: loop {
            self.connect().await?;
            let mut listing = ToolListing::new();
            let mut cursor: Option<String> = None;
            let page_session = Cell::new(None);
            loop {
                let request = self
                    .state
                    .borrow_mut()
                    .session
                    .next_request("tools/list", ToolListing::params(cursor.as_deref()));
                let timeout_ms = self.state.borrow().timeout_ms;
                let cursor_session = page_session.get();
                let page = self
                    .request(
                        request,
                        timeout_ms,
                        CallWatch::default(),
                        None,
                        OnExpiredSession::Page(&page_session),
                    )
                    .await;
                if page.is_err() && self.restart_listing(cursor_session, &mut restarts) {
                    continue 'listing;
                }
                cursor = listing.handle_page(&page?)?;
                if cursor.is_none() {
                    return Ok(listing.into_tools().into());
                }
            }
        }
    }

    /// Whether a listing whose page failed starts again from its first page: the page carried a
    /// cursor of `cursor_session`, which has been replaced since (a 404 to the page, or another
    /// request's renewal), and the listing has not yet started again [`LISTING_RESTARTS`] times.
    /// Cursors are opaque and belong to their session (spec, "Pagination"): the pages gathered
    /// so far are dropped rather than completed on another session.
    fn restart_listing(&self, cursor_session: Option<u32>, restarts: &mut u32) -> bool {
        let Some(cursor_session) = cursor_session else {
            return false;
        };
        let session = &self.state.borrow().session;
        let replaced =
            session.state() != SessionState::Ready || session.sessions_begun() != cursor_session;
        if !replaced || *restarts == LISTING_RESTARTS {
            return false;
        }
        *restarts += 1;
        true
    }

    /// [`McpClient::list_tools`] through `cache`; only a successful listing is stored. A
    /// listing the server said changed leaves the cache.
    pub async fn list_tools_cached(
        &self,
        cache: &RefCell<ToolsCache>,
    ) -> Result<Rc<[McpTool]>, McpError> {
        let key = self.cache_key();
        if std::mem::take(&mut self.state.borrow_mut().tools_changed) {
            cache.borrow_mut().forget(&key);
        }
        if let Some(tools) = cache.borrow_mut().get(&key, now_ms()) {
            return Ok(tools);
        }
        let listing = self.list_tools().await;
        cache.borrow_mut().record(key, &listing, now_ms());
        listing
    }

    /// Calls a tool. Progress notifications go to `on_progress` and restart the timeout
    /// (default 120 s); on abort or timeout the server gets `notifications/cancelled`.
    pub fn call_tool<'a>(
        &'a self,
        name: &'a str,
        arguments: Value,
        on_progress: Option<&'a dyn Fn(&Progress)>,
        signal: Option<&'a AbortSignal>,
        timeout_ms: Option<u64>,
    ) -> impl Future<Output = Result<ToolCallResult, McpError>> + 'a {
        let watch = CallWatch {
            on_progress,
            sampled: None,
        };
        self.call_tool_watched(name, arguments, watch, signal, timeout_ms)
    }

    /// [`McpClient::call_tool`] for a run of an Agent, which also follows the tokens its model
    /// spends on the server's sampling requests during the call.
    pub async fn call_tool_watched(
        &self,
        name: &str,
        arguments: Value,
        watch: CallWatch<'_>,
        signal: Option<&AbortSignal>,
        timeout_ms: Option<u64>,
    ) -> Result<ToolCallResult, McpError> {
        self.connect_unless_aborted(signal).await?;
        let request = self
            .state
            .borrow_mut()
            .session
            .tool_call_request(name, arguments);
        let timeout_ms = timeout_ms.unwrap_or(self.state.borrow().timeout_ms);
        let result = self
            .request(request, timeout_ms, watch, signal, OnExpiredSession::Renew)
            .await?;
        ToolCallResult::from_result(result)
    }

    /// [`McpClient::connect`], given up when `signal` aborts first. An abort while connecting
    /// needs no cancellation: no request was sent yet.
    async fn connect_unless_aborted(&self, signal: Option<&AbortSignal>) -> Result<(), McpError> {
        match signal {
            Some(signal) => match select(pin!(self.connect()), pin!(aborted(signal))).await {
                Either::Left((connected, _)) => connected,
                Either::Right(_) => Err(McpError::Aborted),
            },
            None => self.connect().await,
        }
    }

    /// Ends the session: DELETE for a Streamable HTTP session (405 is fine), the stream closed for
    /// legacy SSE. Later calls fail with `mcp_closed`, and so does a connection attempt still
    /// under way.
    pub async fn close(&self) {
        let delete_headers = {
            let mut state = self.state.borrow_mut();
            state.closing = None;
            state.connecting = None;
            state.drop_connection();
            state.session.close()
        };
        if let Some(headers) = delete_headers {
            self.delete_session(headers).await;
        }
    }

    /// An idle session that failed its ping is replaced: it gets its DELETE in the background
    /// unless calls still run on it (see `Session::give_up_after_failed_ping`).
    fn give_up_idle_session(&self) {
        let delete_headers = {
            let mut state = self.state.borrow_mut();
            // Every request in flight has a route there (the ping's own is gone).
            let calls_running = !state.standalone_routes.borrow().is_empty();
            state.drop_connection();
            state.session.give_up_after_failed_ping(calls_running)
        };
        if let Some(headers) = delete_headers {
            spawn(self.delete_session(headers));
        }
    }

    /// A connect that timed out, failed or was dropped unfinished (every caller aborted) gives up
    /// the session it was opening, which the server may have opened already (a protocol version
    /// this client does not implement, an unanswered `notifications/initialized`, a reply stalled
    /// after its headers): it gets its DELETE in the background. A ready session whose ping is
    /// still out is left for the next connect to ping. After `close` there is nothing left to
    /// give up: close took the session id, and sent the only DELETE.
    fn give_up_connecting(&self) {
        let delete_headers = {
            let mut state = self.state.borrow_mut();
            if state.session.state() == SessionState::Ready {
                return;
            }
            state.drop_connection();
            state.session.give_up()
        };
        if let Some(headers) = delete_headers {
            spawn(self.delete_session(headers));
        }
    }

    /// The DELETE that tells the server a session is over, so that it can free it. Best effort:
    /// the session ends on our side whatever the server answers.
    fn delete_session(
        &self,
        session_headers: Vec<(&'static str, String)>,
    ) -> impl Future<Output = ()> + 'static {
        let (url, headers) = {
            let state = self.state.borrow();
            (state.url.href(), state.with_custom_headers(session_headers))
        };
        async move {
            let _ = send("DELETE", &url, &headers, None).await;
        }
    }

    /// Sends `request` and waits for its response within the deadline and the abort signal.
    async fn request(
        &self,
        request: OutgoingRequest,
        timeout_ms: u64,
        watch: CallWatch<'_>,
        signal: Option<&AbortSignal>,
        on_expired_session: OnExpiredSession<'_>,
    ) -> Result<Value, McpError> {
        if signal.is_some_and(AbortSignal::aborted) {
            return Err(McpError::Aborted);
        }
        let context = CallContext::new(timeout_ms, watch);
        let deadline = Rc::clone(&context.deadline);
        // Progress a server sends on the standalone stream instead of the call's own (as one that
        // relates its notification to no request does) still reaches the call, as in the
        // TypeScript SDK.
        let (progress_sender, mut detached_progress) = channel();
        let routes = Rc::clone(&self.state.borrow().standalone_routes);
        routes.borrow_mut().push((request.id, progress_sender));
        let _route = RouteGuard {
            routes: &routes,
            request_id: request.id,
        };
        let exchange = pin!(self.exchange(&request, &context, on_expired_session));
        let watchdog = pin!(async {
            let expired = pin!(async {
                loop {
                    let remaining = deadline.get().remaining_ms(now_ms());
                    if remaining == 0 {
                        break;
                    }
                    sleep(remaining).await;
                }
            });
            let progress = pin!(async {
                while let Some(message) = (&mut detached_progress).await {
                    self.handle_message(message, request.id, &context);
                }
                std::future::pending::<()>().await
            });
            select(expired, progress).await.factor_first().0
        });
        let abort = pin!(async {
            match signal {
                Some(signal) => aborted(signal).await,
                None => std::future::pending().await,
            }
        });
        let closed = self.state.borrow().closed.clone();
        let (error, reason) = match select(exchange, select(watchdog, select(abort, closed))).await
        {
            Either::Left((outcome, _)) => {
                self.state.borrow_mut().last_activity_ms = now_ms();
                return outcome;
            }
            Either::Right((Either::Left(_), _)) => (McpError::Timeout(timeout_ms), "timeout"),
            Either::Right((Either::Right((Either::Left(_), _)), _)) => {
                (McpError::Aborted, "aborted by the user")
            }
            // The session is gone: no one to tell.
            Either::Right((Either::Right((Either::Right(_), _)), _)) => {
                return Err(McpError::Closed)
            }
        };
        // The caller's outcome is decided whether or not the server hears of it: a server still
        // stuck on the call may take long to accept the notification.
        self.post_in_background(cancelled_notification(request.id, reason));
        Err(error)
    }

    /// Sends `request` and reads its reply. A request whose session expired is sent once more
    /// on a new one; the requests in flight when it expired share one re-initialization (that of
    /// `connect`), and none is sent while it runs, since it would go without a session id.
    async fn exchange(
        &self,
        request: &OutgoingRequest,
        context: &CallContext<'_>,
        on_expired_session: OnExpiredSession<'_>,
    ) -> Result<Value, McpError> {
        let cursor_session = match on_expired_session {
            OnExpiredSession::Page(session) => session.get(),
            OnExpiredSession::Renew | OnExpiredSession::Fail => None,
        };
        for already_retried in [false, true] {
            if self.state.borrow().session.state() != SessionState::Ready {
                self.connect().await?;
            }
            if let OnExpiredSession::Page(sent_on) = on_expired_session {
                let current = self.state.borrow().session.sessions_begun();
                if cursor_session.is_some_and(|cursor_session| cursor_session != current) {
                    return Err(McpError::SessionExpired);
                }
                sent_on.set(Some(current));
            }
            if self.transport() == Transport::LegacySse {
                return self.legacy_exchange(request, context).await;
            }
            let (url, headers, carried_session_id) = {
                let state = self.state.borrow();
                (
                    state.url.href(),
                    state.with_custom_headers(state.session.post_headers()),
                    state.session.session_id().map(str::to_owned),
                )
            };
            let body = to_json_text(&request.body);
            let response = self
                .send_authorized("POST", &url, headers, Some(&body))
                .await?;
            if response.ok() {
                return self.read_reply(response, request.id, context).await;
            }
            let status = response.status();
            let text = response.text().await.unwrap_or_default();
            let no_retry = already_retried
                || cursor_session.is_some()
                || matches!(on_expired_session, OnExpiredSession::Fail);
            let decision = self.state.borrow_mut().session.on_http_failure(
                status,
                &text,
                carried_session_id.as_deref(),
                no_retry,
            );
            match decision {
                FailureDecision::ReinitializeAndRetry => continue,
                FailureDecision::Fail(error) => return Err(error),
            }
        }
        Err(McpError::SessionExpired)
    }

    async fn initialize_streamable(&self) -> Result<InitializeOutcome, McpError> {
        let timeout_ms = self.state.borrow().timeout_ms;
        let context = CallContext::new(timeout_ms, CallWatch::default());
        let result = loop {
            let (request, url, headers) = {
                let mut state = self.state.borrow_mut();
                if state.session.state() == SessionState::Closed {
                    return Err(McpError::Closed);
                }
                let request = state.session.begin_initialize();
                let headers = state.with_custom_headers(state.session.post_headers());
                (request, state.url.href(), headers)
            };
            let response = self
                .send_authorized("POST", &url, headers, Some(&to_json_text(&request.body)))
                .await?;
            if !response.ok() {
                let status = response.status();
                let text = response.text().await.unwrap_or_default();
                let decision = self
                    .state
                    .borrow_mut()
                    .session
                    .on_initialize_failure(request.id, status, &text);
                return match decision {
                    InitializeFailure::FallBackToLegacySse(refusal) => {
                        Ok(InitializeOutcome::FallBackToLegacySse(refusal))
                    }
                    InitializeFailure::Fail(error) => Err(error),
                };
            }
            // A failure from here on leaves a session the server opened: `connect` gives it up.
            self.state
                .borrow_mut()
                .session
                .handle_initialize_response(response.header("mcp-session-id").as_deref())?;
            match self.read_reply(response, request.id, &context).await {
                // Refused in a version the server names another of: the refused session (if it
                // opened one) is ended, and the next initialize offers that version.
                Err(error)
                    if self
                        .state
                        .borrow_mut()
                        .session
                        .offer_a_version_the_server_supports(&error) =>
                {
                    self.give_up_connecting()
                }
                reply => break reply?,
            }
        };
        let initialized = self
            .state
            .borrow_mut()
            .session
            .handle_initialize_result(&result)?;
        self.post_initialized(&initialized).await?;
        self.accept_initialized()?;
        self.open_standalone_stream();
        Ok(InitializeOutcome::Ready)
    }

    /// Opens the standalone GET stream on which a server sends requests that belong to no client
    /// request (an elicitation from a tool, a ping), its tool changes and some progress. Optional
    /// in the spec: a server that answers the GET with an error (405, 400, 404) simply has none,
    /// and that is not a failure. A stream the server or a proxy ends (many close idle
    /// connections after a minute) is opened again, from its last event id, as the TypeScript
    /// SDK does: after 1 s, 2 s, then 4 s while each lasts less than a minute, then no more.
    fn open_standalone_stream(&self) {
        let (stop, mut stopped) = channel::<()>();
        let routes = {
            let mut state = self.state.borrow_mut();
            state.standalone_stream = Some(stop);
            Rc::clone(&state.standalone_routes)
        };
        let state = Rc::downgrade(&self.state);
        spawn(async move {
            let mut last_event_id: Option<String> = None;
            let mut reopenings = 0;
            loop {
                let Some((url, headers)) = state.upgrade().and_then(|state| {
                    let state = state.borrow();
                    let headers = state.session.get_headers(last_event_id.as_deref());
                    let closed = state.session.state() == SessionState::Closed;
                    (!closed).then(|| (state.url.href(), state.with_custom_headers(headers)))
                }) else {
                    return;
                };
                let opened_ms = now_ms();
                if let Ok(response) = send("GET", &url, &headers, None).await {
                    if !response.ok() || !response.content_type().starts_with("text/event-stream") {
                        return;
                    }
                    let mut events = response.into_events();
                    let stream = route_server_stream(
                        &mut events,
                        &mut stopped,
                        state.clone(),
                        Rc::clone(&routes),
                        StreamRole::Standalone,
                    );
                    if stream.await == StreamEnd::Stopped {
                        return;
                    }
                    last_event_id = events.last_event_id().map(str::to_owned).or(last_event_id);
                    if now_ms() - opened_ms >= STANDALONE_HEALTHY_MS {
                        reopenings = 0;
                    }
                }
                if reopenings == STANDALONE_REOPENINGS {
                    return;
                }
                let pause = pin!(sleep(1000 << reopenings));
                reopenings += 1;
                if let Either::Right(_) = select(pause, &mut stopped).await {
                    return;
                }
            }
        });
    }

    /// POSTs `notifications/initialized`; the server acknowledges with 202. Sent once more
    /// without `MCP-Protocol-Version` if a network error (a CORS preflight refusing that header)
    /// stopped it (see `Session::retry_initialized_without_protocol_version_header`).
    async fn post_initialized(&self, initialized: &Value) -> Result<(), McpError> {
        let (response, carried_session_id) = loop {
            match self.post_message(initialized).await {
                Err(McpError::Network(_))
                    if self
                        .state
                        .borrow_mut()
                        .session
                        .retry_initialized_without_protocol_version_header() => {}
                sent => break sent?,
            }
        };
        if response.ok() {
            return Ok(());
        }
        let status = response.status();
        let text = response.text().await.unwrap_or_default();
        match self.state.borrow_mut().session.on_http_failure(
            status,
            &text,
            carried_session_id.as_deref(),
            true,
        ) {
            FailureDecision::Fail(error) => Err(error),
            FailureDecision::ReinitializeAndRetry => {
                Err(McpError::HttpStatus { status, body: text })
            }
        }
    }

    /// POSTs one message where this transport takes messages; also returns the session id it
    /// carried.
    async fn post_message(&self, message: &Value) -> Result<(Reply, Option<String>), McpError> {
        let (url, headers, carried_session_id) = {
            let state = self.state.borrow();
            let url = match &state.legacy {
                Some(legacy) => legacy.endpoint.href(),
                None => state.url.href(),
            };
            (
                url,
                state.with_custom_headers(state.session.post_headers()),
                state.session.session_id().map(str::to_owned),
            )
        };
        let response = self
            .send_authorized("POST", &url, headers, Some(&to_json_text(message)))
            .await?;
        Ok((response, carried_session_id))
    }

    /// Reads the reply to request `request_id`: a JSON body, or an SSE stream that may carry
    /// server requests and notifications first, and that is resumed with GET if it closes early.
    async fn read_reply(
        &self,
        response: Reply,
        request_id: u64,
        context: &CallContext<'_>,
    ) -> Result<Value, McpError> {
        let content_type = response.content_type();
        if content_type.starts_with("application/json") {
            for message in parse_messages(response.text().await?)? {
                if let Some(outcome) = self.handle_message(message, request_id, context) {
                    return outcome;
                }
            }
            return Err(McpError::InvalidMessage(
                "the JSON reply does not contain the response".to_owned(),
            ));
        }
        if !content_type.starts_with("text/event-stream") {
            return Err(McpError::InvalidMessage(format!(
                "HTTP {} with content type `{content_type}` where a response was expected",
                response.status()
            )));
        }
        let mut events = response.into_events();
        let mut resumption = StreamResumption::new();
        loop {
            let next = events.next_event().await?;
            resumption.observe_event(events.last_event_id(), events.retry_ms());
            match next {
                Some(event) if event.event == "message" && !event.data.trim().is_empty() => {
                    for message in parse_messages(event.data)? {
                        if let Some(outcome) = self.handle_message(message, request_id, context) {
                            return outcome;
                        }
                    }
                }
                Some(_) => {}
                None => match resumption.on_closed_early() {
                    ResumeDecision::GiveUp(error) => return Err(error),
                    ResumeDecision::Reconnect {
                        delay_ms,
                        last_event_id,
                    } => {
                        sleep(delay_ms).await;
                        let (url, headers) = {
                            let state = self.state.borrow();
                            (
                                state.url.href(),
                                state.with_custom_headers(
                                    state.session.get_headers(Some(&last_event_id)),
                                ),
                            )
                        };
                        let resumed = self.send_authorized("GET", &url, headers, None).await?;
                        if !resumed.ok() {
                            return Err(McpError::StreamEnded(format!(
                                "resuming with GET got HTTP {}",
                                resumed.status()
                            )));
                        }
                        events = resumed.into_events();
                    }
                },
            }
        }
    }

    /// Handles one server message while waiting for `request_id`; `Some` is that request's
    /// outcome. Server requests are answered at once; progress restarts the deadline.
    fn handle_message(
        &self,
        message: IncomingMessage,
        request_id: u64,
        context: &CallContext<'_>,
    ) -> Option<Result<Value, McpError>> {
        if let Some(progress) = progress_of(&message) {
            if request_id_of(&progress.progress_token) == Some(request_id) {
                context.restart_deadline();
                if let Some(on_progress) = context.watch.on_progress {
                    on_progress(&progress);
                }
            }
            return None;
        }
        match message {
            IncomingMessage::Response { id, outcome } if request_id_of(&id) == Some(request_id) => {
                Some(outcome)
            }
            IncomingMessage::Request { id, method, params } => {
                self.answer_in_background(&id, &method, &params, Some(context));
                None
            }
            IncomingMessage::Notification { method, params } => {
                note_notification(&self.state, &method, &params);
                None
            }
            IncomingMessage::Response { .. } => None,
        }
    }

    /// Answers a server request (see `Session::answer_server_request`, the page's
    /// `onElicitation` and the Agent's sampler) without waiting; `carrier` is the request whose reply stream brought it.
    fn answer_in_background(
        &self,
        id: &Value,
        method: &str,
        params: &Value,
        carrier: Option<&CallContext<'_>>,
    ) {
        let (hook, sampler) = {
            let state = self.state.borrow();
            (state.on_elicitation.clone(), state.sampler.clone())
        };
        if let Some(hook) = hook.filter(|_| method == "elicitation/create") {
            return self.elicit_in_background(hook, id, params, carrier);
        }
        if let Some(sampler) = sampler.filter(|_| method == "sampling/createMessage") {
            return self.sample_in_background(sampler, id, params, carrier);
        }
        let answer = self
            .state
            .borrow()
            .session
            .answer_server_request(id, method, params);
        self.post_in_background(answer);
    }

    /// Posts an answer or a notification without waiting for the server to accept it. Best
    /// effort: a lost answer is the server's timeout to handle, a lost cancellation its work.
    /// Nothing goes out once the client is closed (an abort and `close` in one turn, as
    /// `Agent.close()` makes them): the session is over, and its DELETE already said so.
    fn post_in_background(&self, message: Value) {
        let client = self.clone();
        spawn(async move {
            if client.state.borrow().session.state() != SessionState::Closed {
                let _ = client.post_message(&message).await;
            }
        });
    }

    /// Opens the legacy SSE stream, checks its `endpoint`, and initializes over it.
    async fn connect_legacy(&self) -> Result<(), McpError> {
        let (url, headers, allow_insecure_local_urls) = {
            let state = self.state.borrow();
            (
                state.url.clone(),
                state.with_custom_headers(state.session.get_headers(None)),
                state.allow_insecure_local_urls,
            )
        };
        let response = self
            .send_authorized("GET", &url.href(), headers, None)
            .await?;
        if !response.ok() {
            let status = response.status();
            let body = response.text().await.unwrap_or_default();
            return Err(McpError::HttpStatus { status, body });
        }
        if !response.content_type().starts_with("text/event-stream") {
            return Err(McpError::InvalidMessage(format!(
                "legacy SSE: content type `{}` instead of text/event-stream",
                response.content_type()
            )));
        }
        let mut events = response.into_events();
        let endpoint = loop {
            match events.next_event().await? {
                Some(event) if event.event == "endpoint" => break event.data,
                Some(_) => {}
                None => {
                    return Err(McpError::StreamEnded(
                        "the legacy SSE stream ended before its endpoint event".to_owned(),
                    ))
                }
            }
        };
        let endpoint = check_legacy_endpoint(&url, &endpoint, allow_insecure_local_urls)
            .map_err(McpError::LegacyEndpointRefused)?;
        let routes: Routes = Rc::default();
        let (stop, stopped) = channel::<()>();
        {
            let mut state = self.state.borrow_mut();
            // Closed while the stream opened: a closed client keeps no connection.
            if state.session.state() == SessionState::Closed {
                return Err(McpError::Closed);
            }
            state.legacy = Some(LegacyConnection {
                endpoint,
                routes: Rc::clone(&routes),
                _stop: stop,
            });
        }
        let state = Rc::downgrade(&self.state);
        spawn(async move {
            let (mut events, mut stopped) = (events, stopped);
            route_server_stream(&mut events, &mut stopped, state, routes, StreamRole::Legacy).await;
        });
        let request = self.state.borrow_mut().session.begin_initialize();
        let timeout_ms = self.state.borrow().timeout_ms;
        let context = CallContext::new(timeout_ms, CallWatch::default());
        let result = self.legacy_exchange(&request, &context).await?;
        // On failure `connect` closes the stream, which is the session, as `close` does.
        let initialized = self
            .state
            .borrow_mut()
            .session
            .handle_initialize_result(&result)?;
        self.post_initialized(&initialized).await?;
        self.accept_initialized()
    }

    /// The server accepted `notifications/initialized`: the session is ready, unless `close`
    /// came while the notification was out (then nothing more may be opened).
    fn accept_initialized(&self) -> Result<(), McpError> {
        let mut state = self.state.borrow_mut();
        state.session.handle_initialized_accepted();
        if state.session.state() == SessionState::Ready {
            Ok(())
        } else {
            Err(McpError::Closed)
        }
    }

    async fn legacy_exchange(
        &self,
        request: &OutgoingRequest,
        context: &CallContext<'_>,
    ) -> Result<Value, McpError> {
        let routes = match &self.state.borrow().legacy {
            Some(legacy) => Rc::clone(&legacy.routes),
            None => {
                return Err(McpError::StreamEnded(
                    "the legacy SSE stream is closed".to_owned(),
                ))
            }
        };
        let (sender, mut receiver) = channel();
        routes.borrow_mut().push((request.id, sender));
        let _route = RouteGuard {
            routes: &routes,
            request_id: request.id,
        };
        let (response, _) = self.post_message(&request.body).await?;
        if !response.ok() {
            let status = response.status();
            let body = response.text().await.unwrap_or_default();
            return Err(McpError::HttpStatus { status, body });
        }
        while let Some(message) = (&mut receiver).await {
            if let Some(outcome) = self.handle_message(message, request.id, context) {
                return outcome;
            }
        }
        Err(McpError::StreamEnded(
            "the legacy SSE stream closed before the response".to_owned(),
        ))
    }
}

impl ClientState {
    /// Lets the session's streams go: the legacy SSE stream (the session itself) and the
    /// standalone GET stream.
    fn drop_connection(&mut self) {
        self.legacy = None;
        self.standalone_stream = None;
    }

    /// The server's configured headers, then the protocol's (which win on a clash), then the
    /// bearer token from `getAccessToken`.
    fn with_custom_headers(&self, protocol: Vec<(&'static str, String)>) -> Vec<(String, String)> {
        // Plain loops: a filter, clone and chain of iterators took 0.6 KB more of wasm.
        let mut headers = Vec::new();
        for (name, value) in &self.headers {
            if !protocol
                .iter()
                .any(|(taken, _)| taken.eq_ignore_ascii_case(name))
            {
                headers.push((name.clone(), value.clone()));
            }
        }
        for (name, value) in protocol {
            headers.push((name.to_owned(), value));
        }
        self.auth.add_token(&mut headers);
        headers
    }
}

/// Held by a connection attempt: when the attempt ends, however it ends (succeeded, failed, timed
/// out, or dropped unfinished because every caller aborted), a session that is not ready is given
/// up (`McpClient::give_up_connecting`), so that one the server opened meanwhile is ended.
struct GiveUpUnlessReady(McpClient);

impl Drop for GiveUpUnlessReady {
    fn drop(&mut self) {
        self.0.give_up_connecting();
    }
}

/// Removes a request's route when its exchange ends, however it ends.
struct RouteGuard<'a> {
    routes: &'a Routes,
    request_id: u64,
}

impl Drop for RouteGuard<'_> {
    fn drop(&mut self) {
        self.routes
            .borrow_mut()
            .retain(|(id, _)| *id != self.request_id);
    }
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum StreamRole {
    /// The legacy SSE stream: it carries every response, and the session dies with it.
    Legacy,
    /// Streamable HTTP's optional GET stream: server requests, and progress of any request.
    Standalone,
}

/// Reads a long-lived server stream until it ends or is stopped: responses and progress go to
/// the waiting request, server requests are answered. When a legacy stream ends, every waiting
/// request learns it and the session must be initialized again.
async fn route_server_stream(
    events: &mut http::SseReader,
    stopped: &mut Receiver<()>,
    state: Weak<RefCell<ClientState>>,
    routes: Routes,
    role: StreamRole,
) -> StreamEnd {
    let end = loop {
        let event = match select(pin!(events.next_event()), &mut *stopped).await {
            Either::Left((Ok(Some(event)), _)) => event,
            Either::Left(_) => break StreamEnd::Ended,
            Either::Right(_) => break StreamEnd::Stopped,
        };
        if event.event != "message" {
            continue;
        }
        let Ok(messages) = parse_messages(event.data) else {
            continue;
        };
        for message in messages {
            let route_id = match &message {
                IncomingMessage::Response { id, .. } => request_id_of(id),
                IncomingMessage::Notification { method, params } => {
                    if let Some(state) = state.upgrade() {
                        note_notification(&state, method, params);
                    }
                    progress_of(&message)
                        .and_then(|progress| request_id_of(&progress.progress_token))
                }
                IncomingMessage::Request { id, method, params } => {
                    let Some(state) = state.upgrade() else {
                        return StreamEnd::Stopped;
                    };
                    McpClient { state }.answer_in_background(id, method, params, None);
                    None
                }
            };
            let sender = route_id.and_then(|id| {
                let routes = routes.borrow();
                let route = routes.iter().find(|(routed, _)| *routed == id);
                route.map(|(_, sender)| sender.clone())
            });
            if let Some(sender) = sender {
                sender.send(message);
            }
        }
    };
    if role == StreamRole::Standalone {
        // The routes are the client's: its requests stay in flight on their own streams.
        return end;
    }
    routes.borrow_mut().clear();
    let Some(state) = state.upgrade() else {
        return end;
    };
    let mut state = state.borrow_mut();
    let still_current =
        matches!(&state.legacy, Some(legacy) if Rc::ptr_eq(&legacy.routes, &routes));
    if still_current {
        state.legacy = None;
        state.session.connection_lost();
    }
    end
}

/// Why a server stream's routing ended.
#[derive(PartialEq)]
enum StreamEnd {
    /// The client stopped it (closed, or replaced the session or connection), or is gone.
    Stopped,
    /// The server or the network ended it.
    Ended,
}

/// Records what a server notification tells the client (only that its tools changed: the others,
/// such as logging and resource updates, concern no tool call), and tells the page's
/// `onNotification`, except progress, which reaches the call it belongs to.
fn note_notification(state: &RefCell<ClientState>, method: &str, params: &Value) {
    if method == "notifications/progress" {
        return;
    }
    let (hook, server) = {
        let mut state = state.borrow_mut();
        if method == "notifications/tools/list_changed" {
            state.tools_changed = true;
            state.listing = None;
        }
        (state.on_notification.clone(), state.name.clone())
    };
    // Called with no borrow held: the hook may call this client again.
    if let Some(hook) = hook {
        tell_page(&hook, method, params, server.as_deref());
    }
}

impl From<McpError> for JsValue {
    /// A JS `Error` whose `code` property is the stable code, and for an authorization failure
    /// the challenge's `resourceMetadataUrl` and `scope`.
    fn from(error: McpError) -> JsValue {
        let js = crate::web::error::js_error(error.code(), &error.to_string()).into();
        auth::set_challenge_properties(&js, &error);
        js
    }
}
