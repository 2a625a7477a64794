//! MCP authorization, client side (spec 2025-06-18 and 2025-11-25, "Authorization"): the bearer
//! token the page's `getAccessToken` gives goes with every request of the session; a 401, or a
//! 403 `insufficient_scope` (the spec's step-up), asks it for a new one and sends the request
//! once more. The OAuth flow itself (discovery, registration, PKCE, the redirect) is behind the
//! hook: `browserOAuth` (web/oauth.rs) makes one that runs it, starting at the challenge's
//! `resourceMetadataUrl`, or the page gives its own.

use std::cell::Cell;
use std::rc::Rc;

use js_sys::{Function, Object, Promise};
use wasm_bindgen::{JsValue, UnwrapThrowExt};
use wasm_bindgen_futures::JsFuture;
use web_sys::AbortController;

use super::http::{send, Reply};
use super::shared::{SharedAttempt, WeakAttempt};
use super::McpClient;
use crate::core::http_header::refused_value_character;
use crate::core::mcp::auth::{AuthFailure, BearerChallenge, Challenge};
use crate::core::mcp::McpError;
use crate::core::url_policy::CheckedUrl;
use crate::web::error::{js_error_message, set_property};

/// The client's side of authorization.
pub(super) struct Authorization {
    /// The page's `getAccessToken`.
    hook: Option<Function>,
    /// Sent as `Authorization: Bearer …` on every request.
    token: Option<String>,
    /// The refresh of the token under way, which the requests refused meanwhile share (held
    /// weakly, as `ClientState::connecting` is); it leaves the new token in `token`, so that it
    /// is an `Attempt` and the shared future's code is not compiled once more.
    refreshing: Option<WeakAttempt>,
    /// How the hook and errors name the server.
    server: Rc<ServerNames>,
    /// Keeps the cached tool listings of clients with a hook apart: the cache key holds the
    /// headers, and a hook's token is in none of them.
    hook_id: u32,
}

/// The server's URL as configured (for the hook), and its origin and path (for errors: the
/// query may carry a key).
struct ServerNames {
    href: String,
    origin_and_path: String,
}

thread_local!(static HOOKS_SEEN: Cell<u32> = const { Cell::new(0) });

impl Authorization {
    pub(super) fn new(hook: Option<Function>, url: &CheckedUrl) -> Self {
        let hook_id = HOOKS_SEEN.with(|seen| {
            seen.set(seen.get() + 1);
            seen.get()
        });
        let path = url.path_and_query.split('?').next().unwrap_or_default();
        Authorization {
            hook,
            hook_id,
            server: Rc::new(ServerNames {
                href: url.href(),
                origin_and_path: format!("{}{path}", url.origin()),
            }),
            token: None,
            refreshing: None,
        }
    }

    /// The bearer token, as the last header of a request.
    pub(super) fn add_token(&self, headers: &mut Vec<(String, String)>) {
        if let Some(token) = &self.token {
            headers.push((TOKEN_HEADER.to_owned(), format!("Bearer {token}")));
        }
    }

    /// The headers a tools cache entry is keyed by.
    pub(super) fn keyed_headers(&self, headers: &[(String, String)]) -> Vec<(String, String)> {
        let mut keyed = headers.to_vec();
        if self.hook.is_some() {
            keyed.push(("getAccessToken".to_owned(), self.hook_id.to_string()));
        }
        keyed
    }
}

/// The header the token goes in, as `add_token` writes it.
const TOKEN_HEADER: &str = "Authorization";

/// Why a configuration with both is refused: the hook's token goes in that header.
pub const HOOK_AND_HEADER: &str =
    "`getAccessToken` and an `Authorization` header are both given: the token from `getAccessToken` is sent as that header";

/// Whether `headers` hold an `Authorization` header, which a `getAccessToken` excludes.
pub fn has_authorization_header(headers: &[(String, String)]) -> bool {
    headers
        .iter()
        .any(|(name, _)| name.eq_ignore_ascii_case("authorization"))
}

/// `getAccessToken` of an options object: a function or absent (`undefined`, `null`). Options
/// that are no object have none; their reader refuses them.
pub fn token_hook_of(options: &JsValue) -> Result<Option<Function>, String> {
    let signature = "(context) => string | null | Promise<string | null>";
    crate::web::hook_of(options, "getAccessToken", signature)
}

/// `getAccessToken` of the Agent config's `mcpServers[index]`, which JSON (the reading of the
/// rest) leaves out.
pub fn entry_token_hook(config: &JsValue, index: usize) -> Result<Option<Function>, String> {
    let entries = crate::web::option_member(config, "mcpServers")
        .ok()
        .flatten();
    match entries.map(|entries| js_sys::Reflect::get_u32(&entries, index as u32)) {
        Some(Ok(entry)) => token_hook_of(&entry),
        _ => Ok(None),
    }
}

/// Sets the error's `resourceMetadataUrl` and `scope` from the server's challenge, when known.
pub fn set_challenge_properties(error: &JsValue, mcp_error: &McpError) {
    let (McpError::Unauthorized(failure) | McpError::Forbidden(failure)) = mcp_error else {
        return;
    };
    if let Some(bearer) = failure.challenge.bearer() {
        set_challenge_members(error, bearer);
    }
}

fn set_challenge_members(target: &JsValue, bearer: &BearerChallenge) {
    for (key, value) in [
        ("resourceMetadataUrl", &bearer.resource_metadata),
        ("scope", &bearer.scope),
    ] {
        if let Some(value) = value {
            set_property(target, key, &JsValue::from_str(value));
        }
    }
}

/// `getAccessToken` gave no token to send, for `note`: an `mcp_unauthorized` without a status,
/// which a refused request reports with its own status and challenge.
fn no_token(server: &ServerNames, note: String) -> McpError {
    McpError::Unauthorized(Box::new(AuthFailure {
        server: server.origin_and_path.clone(),
        status: None,
        challenge: Challenge::Unreadable,
        token_note: note,
    }))
}

impl McpClient {
    /// Asks `getAccessToken` for the token of a new session (reason `connect`); without a hook
    /// the configured headers alone go.
    pub(super) async fn token_for_new_session(&self) -> Result<(), McpError> {
        let (hook, server) = {
            let auth = &self.state.borrow().auth;
            (auth.hook.clone(), Rc::clone(&auth.server))
        };
        if let Some(hook) = hook {
            let token = ask_hook(&hook, &server, "connect", None).await?;
            self.state.borrow_mut().auth.token = token;
        }
        Ok(())
    }

    /// `send` with the session's bearer token (`headers` carry it). A 401, or a 403
    /// `insufficient_scope`, asks `getAccessToken` for a new token, and a new one is sent once;
    /// what stays refused is `mcp_unauthorized` or `mcp_forbidden`.
    pub(super) async fn send_authorized(
        &self,
        method: &str,
        url: &str,
        mut headers: Vec<(String, String)>,
        body: Option<&str>,
    ) -> Result<Reply, McpError> {
        let mut refreshed = false;
        loop {
            let response = send(method, url, &headers, body).await?;
            let status = response.status();
            if !matches!(status, 401 | 403) {
                return Ok(response);
            }
            let challenge = Challenge::of_header(response.header("www-authenticate").as_deref());
            let token_helps = status == 401
                || (challenge.bearer()).is_some_and(BearerChallenge::is_insufficient_scope);
            let has_hook = self.state.borrow().auth.hook.is_some();
            let note = if !has_hook {
                "no `getAccessToken` to ask for a token".to_owned()
            } else if !token_helps {
                "the refusal is not about the token's scope (no error=\"insufficient_scope\")"
                    .to_owned()
            } else if refreshed {
                "the new token from `getAccessToken` was refused too".to_owned()
            } else {
                // `add_token` put the token sent last.
                let sent = match headers.last() {
                    Some((name, value)) if name == TOKEN_HEADER => value.strip_prefix("Bearer "),
                    _ => None,
                };
                let had_token = sent.is_some();
                match self.token_refresh(sent, &challenge).await {
                    Ok(()) => {
                        if had_token {
                            headers.pop();
                        }
                        self.state.borrow().auth.add_token(&mut headers);
                        refreshed = true;
                        continue;
                    }
                    Err(McpError::Unauthorized(failure)) if failure.status.is_none() => {
                        failure.token_note
                    }
                    Err(error) => return Err(error),
                }
            };
            let failure = Box::new(AuthFailure {
                server: self.state.borrow().auth.server.origin_and_path.clone(),
                status: Some(status),
                challenge,
                token_note: note,
            });
            return Err(if status == 401 {
                McpError::Unauthorized(failure)
            } else {
                McpError::Forbidden(failure)
            });
        }
    }

    /// What leaves a token other than `sent` in `auth.token`: nothing when another request's
    /// refresh left one meanwhile, else the question to `getAccessToken` under way or a new one,
    /// asked once for every request refused meanwhile. Not an `async fn`: one state machine less
    /// in the wasm.
    fn token_refresh(&self, sent: Option<&str>, challenge: &Challenge) -> SharedAttempt {
        let mut state = self.state.borrow_mut();
        let auth = &mut state.auth;
        let server = Rc::clone(&auth.server);
        let replaced = auth.token.is_some() && auth.token.as_deref() != sent;
        let under_way = auth.refreshing.as_ref().and_then(WeakAttempt::upgrade);
        if let (false, Some(refresh)) = (replaced, under_way) {
            return refresh;
        }
        let hook = auth.hook.clone().expect_throw("asked only with a hook");
        let (client, sent) = (self.clone(), sent.map(str::to_owned));
        let bearer = challenge.bearer().cloned();
        let refresh = SharedAttempt::new(Box::pin(async move {
            if replaced {
                return Ok(());
            }
            let token = ask_hook(&hook, &server, "unauthorized", bearer.as_ref()).await?;
            let token = token
                .ok_or_else(|| no_token(&server, "`getAccessToken` gave no token".to_owned()))?;
            if sent.as_ref() == Some(&token) {
                let note = "`getAccessToken` gave the same token again".to_owned();
                return Err(no_token(&server, note));
            }
            client.state.borrow_mut().auth.token = Some(token);
            Ok(())
        }));
        if !replaced {
            auth.refreshing = Some(refresh.downgrade());
        }
        refresh
    }
}

/// Asks the page's `getAccessToken`; `Ok(None)` when it gave none (null, undefined, ""). The
/// context's `signal` aborts when the wait is given up (the caller aborted or timed out, or
/// the client closed).
async fn ask_hook(
    hook: &Function,
    server: &ServerNames,
    reason: &str,
    challenge: Option<&BearerChallenge>,
) -> Result<Option<String>, McpError> {
    let mut controller = AbortOnDrop(Some(
        AbortController::new().expect_throw("AbortController is available"),
    ));
    let context = Object::new();
    set_property(&context, "url", &JsValue::from_str(&server.href));
    set_property(&context, "reason", &JsValue::from_str(reason));
    if let Some(challenge) = challenge {
        set_challenge_members(&context, challenge);
        if let Some(error) = &challenge.error {
            set_property(&context, "error", &JsValue::from_str(error));
        }
    }
    if let Some(controller) = &controller.0 {
        set_property(&context, "signal", &controller.signal());
    }
    let answer = hook.call1(&JsValue::UNDEFINED, &context).map_err(|error| {
        let note = format!("`getAccessToken` threw: {}", js_error_message(&error));
        no_token(server, note)
    })?;
    let answer = JsFuture::from(Promise::resolve(&answer)).await;
    // Answered: the signal stays quiet.
    controller.0 = None;
    let answer = answer.map_err(|error| {
        let note = format!("`getAccessToken` failed: {}", js_error_message(&error));
        no_token(server, note)
    })?;
    if answer.is_undefined() || answer.is_null() {
        return Ok(None);
    }
    let Some(token) = answer.as_string() else {
        let note = "`getAccessToken` gave neither a string nor null".to_owned();
        return Err(no_token(server, note));
    };
    if let Some(position) = refused_value_character(&token) {
        return Err(McpError::InvalidHeader(format!(
            "the token from `getAccessToken`: character {position} cannot be sent in a header"
        )));
    }
    Ok(Some(token).filter(|token| !token.trim().is_empty()))
}

/// Aborts the hook's signal when its wait is dropped unanswered; `None` once it answered.
struct AbortOnDrop(Option<AbortController>);

impl Drop for AbortOnDrop {
    fn drop(&mut self) {
        if let Some(controller) = &self.0 {
            controller.abort();
        }
    }
}
