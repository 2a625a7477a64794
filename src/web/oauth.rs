//! `browserOAuth(options)`: a `getAccessToken` hook that runs the MCP authorization flow in the
//! page (MCP spec 2025-11-25, "Authorization"; the MCP TypeScript SDK's `auth()` does the same
//! steps): protected resource and authorization server metadata, a client (given, stored, or
//! registered by RFC 7591), PKCE S256, the authorization in a popup (or the page's `authorize`),
//! the code exchanged for tokens, kept in the page's storage and refreshed. `finishOAuthRedirect()`
//! is the redirect page's half. What is decided is `core::oauth`'s; this does the I/O.

use std::cell::RefCell;
use std::rc::Rc;

use futures::future::{select, Either};
use js_sys::{Function, Object, Promise, Reflect, Uint8Array};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use wasm_bindgen_futures::JsFuture;
use web_sys::AbortSignal;

use super::error::{js_error, set_property};
use super::http::{fetch, HttpRequest};
use super::timer::{aborted, sleep};
use super::JsCallback;
use crate::core::oauth::{
    authorization_server_metadata_urls, authorization_url, base64url, chosen_scope, client_key,
    code_exchange, is_client_metadata_url, protected_resource_metadata_urls, read_redirect,
    redirect_state, refresh_failure_is_transient, refresh_request, registration_request,
    tokens_key, AuthorizationRequest, AuthorizationServer, Client, Grant, OAuthError,
    ProtectedResource, TokenRequest, Tokens,
};
use crate::core::url_policy::check_server_url;

#[wasm_bindgen]
extern "C" {
    // `catch` on each: `crypto.subtle` is missing outside secure contexts, `open` in Workers, and
    // a JS exception thrown through the wasm would leave the hook's promise unsettled.
    #[wasm_bindgen(catch, js_namespace = crypto, js_name = getRandomValues)]
    fn get_random_values(array: &Uint8Array) -> Result<(), JsValue>;
    #[wasm_bindgen(catch, js_namespace = ["crypto", "subtle"], js_name = digest)]
    fn digest(algorithm: &str, data: &Uint8Array) -> Result<Promise, JsValue>;
    #[wasm_bindgen(catch, js_name = open)]
    fn open_window(url: &str, target: &str, features: &str) -> Result<JsValue, JsValue>;
    #[wasm_bindgen(catch, js_name = close)]
    fn close_this_window() -> Result<(), JsValue>;

    /// A window seen from another: the popup, or the redirect page's opener. `closed`, `close`
    /// and `postMessage` are the members another origin's window lets through.
    type OtherWindow;
    #[wasm_bindgen(method, getter)]
    fn closed(this: &OtherWindow) -> bool;
    #[wasm_bindgen(method)]
    fn close(this: &OtherWindow);
    #[wasm_bindgen(method, catch, js_name = postMessage)]
    fn post_message_to(
        this: &OtherWindow,
        message: &JsValue,
        target_origin: &JsValue,
    ) -> Result<(), JsValue>;
    #[wasm_bindgen(js_name = addEventListener)]
    fn add_global_listener(kind: &str, listener: &Function);
    #[wasm_bindgen(js_name = removeEventListener)]
    fn remove_global_listener(kind: &str, listener: &Function);

    // Bound by hand: web-sys's binding would bring a feature for one constructor and two calls.
    type BroadcastChannel;
    #[wasm_bindgen(catch, constructor)]
    fn new(name: &str) -> Result<BroadcastChannel, JsValue>;
    #[wasm_bindgen(method, catch, js_name = postMessage)]
    fn post_message(this: &BroadcastChannel, message: &JsValue) -> Result<(), JsValue>;
    #[wasm_bindgen(method, js_name = addEventListener)]
    fn add_event_listener(this: &BroadcastChannel, kind: &str, listener: &Function);
    #[wasm_bindgen(method)]
    fn close(this: &BroadcastChannel);
}

#[wasm_bindgen(typescript_custom_section)]
const OAUTH_TYPES: &str = r#"
/** Where `browserOAuth` keeps client registrations and tokens: `localStorage`, `sessionStorage`, or your own. */
export interface OAuthStorage {
  getItem(key: string): string | null;
  setItem(key: string, value: string): void;
  removeItem(key: string): void;
}
export interface BrowserOAuthOptions {
  /** Where the authorization server sends the browser back: a page of yours that calls `finishOAuthRedirect()`. */
  redirectUri: string;
  /** `client_name` of a Dynamic Client Registration. Default "mcp-agent-wasm". */
  clientName?: string | undefined;
  /** A pre-registered client id (or a Client ID Metadata Document URL); no registration then. */
  clientId?: string | undefined;
  /**
   * The secret of the pre-registered `clientId`, for an authorization server that demands one.
   * A page's secret is no secret: anyone who loads the page can read it.
   */
  clientSecret?: string | undefined;
  /**
   * The https URL of this app's Client ID Metadata Document, used as its `client_id` by an
   * authorization server whose metadata says `client_id_metadata_document_supported` (MCP
   * 2025-11-25 prefers it to registration); other servers get a registration.
   */
  clientMetadataUrl?: string | undefined;
  /** Keys start with `mcp-agent-wasm:oauth:`. Default: in memory, for this hook only. */
  storage?: OAuthStorage | undefined;
  /** Shows the authorization page and resolves with the URL the browser was sent back to. Default: a popup. */
  authorize?: ((url: string, options: { signal?: AbortSignal }) => Promise<string>) | undefined;
  /** Development only: allow `http:` and loopback/private metadata and endpoint URLs. Default false. */
  allowInsecureLocalUrls?: boolean | undefined;
}
"#;

/// The `type` of the message `finishOAuthRedirect` posts to the window that opened it, and the
/// name of the `BroadcastChannel` it posts on when it has no opener.
const REDIRECT_MESSAGE: &str = "mcp-agent-wasm:oauth-redirect";

/// How long a popup that read closed after it was seen on a page (the authorization server's) may
/// still send its answer: `finishOAuthRedirect` closes the popup as soon as it has posted.
const CLOSED_POPUP_GRACE_MS: f64 = 1_000.0;

/// How long a popup that read closed before it was ever seen on a page past its first
/// `about:blank` is waited for: an authorization code lives ten minutes at most (RFC 6749 §4.1.2), and the
/// caller's `signal` (an Agent's `toolTimeoutMs`) usually ends the wait before.
const SEVERED_POPUP_WAIT_MS: f64 = 600_000.0;

/// The options of `browserOAuth`, and what it keeps between questions.
struct Flow {
    redirect_uri: String,
    client_name: String,
    client_id: Option<String>,
    client_secret: Option<String>,
    client_metadata_url: Option<String>,
    /// The page's `Storage`-like object, or a `Map` in memory: both are called by their
    /// methods' names, so that one path serves either.
    storage: JsValue,
    /// `getItem`, `setItem`, `removeItem`, or the `Map`'s `get`, `set`, `delete`.
    storage_methods: [&'static str; 3],
    authorize: Option<Function>,
    allow_insecure_local_urls: bool,
    /// Per server URL: the token handed out last, and whether a refresh after a refusal gave it
    /// (refused again, it is not refreshed again: the full flow runs).
    given: RefCell<Vec<(String, String, bool)>>,
}

/// `browserOAuth(options)`: a `getAccessToken` for `mcpServers` entries and `McpClient`.
#[wasm_bindgen(js_name = browserOAuth, unchecked_return_type = "GetAccessToken")]
pub fn browser_oauth(
    #[wasm_bindgen(unchecked_param_type = "BrowserOAuthOptions")] options: JsValue,
) -> Result<JsValue, JsValue> {
    let flow = Rc::new(read_options(&options).map_err(|message| {
        JsValue::from(js_error(
            "oauth_invalid_options",
            &format!("browserOAuth: {message}"),
        ))
    })?);
    let hook = JsCallback::new(move |context: JsValue| {
        let flow = Rc::clone(&flow);
        Ok(super::promise_of(async move { access_token(&flow, &context).await }).into())
    });
    Ok(hook.into_js_value())
}

fn read_options(options: &JsValue) -> Result<Flow, String> {
    if !options.is_object() {
        return Err("options must be an object with `redirectUri`".to_owned());
    }
    let known = [
        "redirectUri",
        "clientName",
        "clientId",
        "clientSecret",
        "clientMetadataUrl",
        "storage",
        "authorize",
        "allowInsecureLocalUrls",
    ];
    let object: &Object = options.unchecked_ref();
    for key in Object::keys(object) {
        let key = key.as_string().unwrap_or_default();
        if !known.contains(&key.as_str()) {
            return Err(format!("unknown option `{key}`"));
        }
    }
    let member = |name: &str| super::option_member(options, name).ok().flatten();
    let text = |name: &str| -> Result<Option<String>, String> {
        member(name)
            .map(|value| {
                value
                    .as_string()
                    .ok_or(format!("`{name}` must be a string"))
            })
            .transpose()
    };
    let redirect_uri = text("redirectUri")?.ok_or("`redirectUri` is required")?;
    let allow_insecure_local_urls = match member("allowInsecureLocalUrls") {
        None => false,
        Some(flag) => flag
            .as_bool()
            .ok_or("`allowInsecureLocalUrls` must be a boolean")?,
    };
    // An absolute http(s) URL: a page's address, which the browser is sent to and nothing is
    // fetched from, so a development server's `http://localhost` one is fine (loopback redirect
    // URIs use http: RFC 8252 §7.3).
    check_server_url(&redirect_uri, true)
        .map_err(|error| format!("`redirectUri` is refused: {error}"))?;
    let storage_methods = ["getItem", "setItem", "removeItem"];
    let (storage, storage_methods) = match member("storage") {
        Some(storage) => {
            for method in storage_methods {
                if !Reflect::get(&storage, &method.into()).is_ok_and(|value| value.is_function()) {
                    return Err(format!("`storage` has no `{method}` method"));
                }
            }
            (storage, storage_methods)
        }
        None => (js_sys::Map::new().into(), ["get", "set", "delete"]),
    };
    let authorize = super::hook_of(options, "authorize", "(url, { signal }) => Promise<string>")?;
    let client_id = text("clientId")?;
    let client_secret = text("clientSecret")?;
    if client_secret.is_some() && client_id.is_none() {
        return Err("`clientSecret` is the secret of `clientId`, which is missing".to_owned());
    }
    let client_metadata_url = text("clientMetadataUrl")?;
    if client_metadata_url
        .as_deref()
        .is_some_and(|url| !is_client_metadata_url(url))
    {
        return Err("`clientMetadataUrl` must be an https URL with a path, on a public host, without a fragment, `.` or `..` segments, or a user or password (Client ID Metadata Documents)".to_owned());
    }
    Ok(Flow {
        redirect_uri,
        client_name: text("clientName")?.unwrap_or_else(|| "mcp-agent-wasm".to_owned()),
        client_id,
        client_secret,
        client_metadata_url,
        storage,
        storage_methods,
        authorize,
        allow_insecure_local_urls,
        given: RefCell::new(Vec::new()),
    })
}

/// The answer to one question of the MCP client (`web/mcp/auth.rs` says what `context` holds).
async fn access_token(flow: &Flow, context: &JsValue) -> Result<JsValue, JsValue> {
    let member = |name: &str| {
        Reflect::get(context, &name.into())
            .ok()
            .and_then(|value| value.as_string())
    };
    let url = member("url").unwrap_or_default();
    let signal: Option<AbortSignal> = Reflect::get(context, &"signal".into())
        .ok()
        .and_then(|signal| signal.dyn_into().ok());
    let signal = signal.as_ref();
    let key = tokens_key(&url);
    let stored = flow.load(&key).as_deref().and_then(Grant::from_json);
    let now = now();
    if member("reason").as_deref() != Some("unauthorized") {
        let Some(grant) = stored else {
            return Ok(JsValue::UNDEFINED);
        };
        if !grant.tokens.is_expired(now) {
            return Ok(flow.give(&url, grant.tokens.access_token, false));
        }
        return match refresh(flow, &key, grant, signal).await {
            Ok(token) => Ok(flow.give(&url, token, false)),
            Err(RefreshFailed::Transient(error)) => Err(coded_error(error)),
            Err(RefreshFailed::GrantDead) => {
                flow.remove(&key);
                Ok(JsValue::UNDEFINED)
            }
        };
    }
    let error = member("error");
    if let Some(grant) = stored {
        let last = flow.last_given(&url);
        let stored_was_refused = last
            .as_ref()
            .is_some_and(|(token, _)| *token == grant.tokens.access_token);
        if !stored_was_refused && !grant.tokens.is_expired(now) {
            // Another Agent or tab replaced the token meanwhile: that one first.
            return Ok(flow.give(&url, grant.tokens.access_token, false));
        }
        let refreshed_before = last.is_some_and(|(_, from_refresh)| from_refresh);
        if !refreshed_before && error.as_deref() != Some("insufficient_scope") {
            match refresh(flow, &key, grant, signal).await {
                Ok(token) => return Ok(flow.give(&url, token, true)),
                Err(RefreshFailed::Transient(error)) => return Err(coded_error(error)),
                Err(RefreshFailed::GrantDead) => {}
            }
        }
        flow.remove(&key);
    }
    let token = authorize_anew(
        flow,
        &url,
        member("resourceMetadataUrl"),
        member("scope"),
        signal,
    )
    .await
    .map_err(|error| match error {
        FlowError::OAuth(error) => coded_error(error),
        FlowError::Js(error) => error,
    })?;
    Ok(flow.give(&url, token, false))
}

/// Why a refresh gave no token.
enum RefreshFailed {
    /// No refresh token, or the token endpoint refused it: the stored tokens are forgotten and
    /// the flow runs again.
    GrantDead,
    /// No answer, or one that a later try may not get ([`refresh_failure_is_transient`]): the
    /// stored tokens are kept, and this attempt fails with `oauth_token_failed`.
    Transient(OAuthError),
}

/// `grant_type=refresh_token` once; the new tokens are kept.
async fn refresh(
    flow: &Flow,
    key: &str,
    grant: Grant,
    signal: Option<&AbortSignal>,
) -> Result<String, RefreshFailed> {
    let refresh_token = grant
        .tokens
        .refresh_token
        .as_deref()
        .ok_or(RefreshFailed::GrantDead)?;
    let request = refresh_request(&grant.client, refresh_token, grant.resource.as_deref());
    let transient = |error: OAuthError| {
        RefreshFailed::Transient(OAuthError::Token(format!(
            "the tokens could not be refreshed ({error}); they are kept for the next attempt"
        )))
    };
    let (status, text) = post_form(&grant.token_endpoint, &request, signal)
        .await
        .map_err(transient)?;
    let tokens =
        Tokens::from_response(status, &text, now(), Some(refresh_token)).map_err(|error| {
            if refresh_failure_is_transient(status) {
                transient(error)
            } else {
                RefreshFailed::GrantDead
            }
        })?;
    let token = tokens.access_token.clone();
    flow.save(key, &Grant { tokens, ..grant }.to_json());
    Ok(token)
}

fn now() -> u64 {
    js_sys::Date::now() as u64
}

/// The whole flow, steps (1) to (7) of the spec's "Authorization Flow Steps".
async fn authorize_anew(
    flow: &Flow,
    url: &str,
    resource_metadata_url: Option<String>,
    challenge_scope: Option<String>,
    signal: Option<&AbortSignal>,
) -> Result<String, FlowError> {
    let allow = flow.allow_insecure_local_urls;
    let server = check_server_url(url, allow)
        .map_err(|error| OAuthError::Discovery(format!("the server URL is refused: {error}")))?;
    let named_metadata = resource_metadata_url.is_some();
    let metadata_urls = match resource_metadata_url {
        Some(given) => {
            let checked = check_server_url(&given, allow).map_err(|error| {
                OAuthError::Discovery(format!("resource_metadata `{given}` is refused: {error}"))
            })?;
            vec![checked.href()]
        }
        None => protected_resource_metadata_urls(&server),
    };
    // A server without protected resource metadata, or whose metadata names no authorization
    // server, is taken for one of MCP 2025-03-26: its own authorization server, with default
    // endpoints when it has no metadata either (as the TypeScript SDK does, whatever the
    // protected resource metadata lookups met). Only a server whose every authorization server
    // metadata lookup answered 4xx gets the defaults: one unreachable there (a CORS failure looks
    // so) gets the discovery error instead.
    let read = match first_found(&metadata_urls, signal).await {
        Ok((url, text)) => ProtectedResource::read(&text, &server)?.ok_or_else(|| {
            format!("the protected resource metadata at `{url}` names no authorization server")
        }),
        Err(lookups) => Err(lookups.message("protected resource metadata")),
    };
    // Without usable metadata: why, for the error if the server's origin has nothing either.
    let (resource, legacy) = match read {
        Ok(resource) => (resource, None),
        Err(why) if !named_metadata => (ProtectedResource::legacy(&server), Some(why)),
        Err(why) => return Err(OAuthError::Discovery(why).into()),
    };
    let issuer = &resource.authorization_server;
    let as_urls = authorization_server_metadata_urls(issuer, allow)?;
    // With the default endpoints, which are guesses: what discovery did not find, for the error
    // if they are not there either.
    let (metadata, guessed) = match (first_found(&as_urls, signal).await, legacy) {
        (Ok((_, text)), None) => (AuthorizationServer::read(&text, issuer, allow)?, None),
        (Ok((_, text)), Some(_)) => (
            AuthorizationServer::read_legacy(&text, issuer, allow)?,
            None,
        ),
        (Err(lookups), Some(first)) => {
            let nothing_found = format!(
                "{first}; and {}",
                lookups.message(
                    "authorization server metadata at the server's origin (MCP 2025-03-26)"
                )
            );
            if !lookups.all_answered_4xx {
                return Err(OAuthError::Discovery(nothing_found).into());
            }
            (
                AuthorizationServer::legacy_defaults(issuer),
                Some(nothing_found),
            )
        }
        (Err(lookups), None) => {
            return Err(
                OAuthError::Discovery(lookups.message("authorization server metadata")).into(),
            );
        }
    };
    let client = client_for(flow, issuer, &metadata, signal)
        .await
        .map_err(|error| match (error, guessed) {
            (OAuthError::Registration(why), Some(nothing_found)) => {
                OAuthError::Discovery(format!("{nothing_found}; and {why}"))
            }
            (error, _) => error,
        })?;

    let verifier = base64url(&random_bytes(32)?);
    let digest =
        digest("SHA-256", &Uint8Array::from(verifier.as_bytes())).map_err(|_| no_crypto())?;
    let digest = JsFuture::from(digest).await.map_err(FlowError::Js)?;
    let challenge = base64url(&Uint8Array::new(&digest).to_vec());
    let state = base64url(&random_bytes(16)?);
    let address = authorization_url(
        &metadata.authorization_endpoint,
        &AuthorizationRequest {
            client_id: &client.client_id,
            redirect_uri: &flow.redirect_uri,
            code_challenge: &challenge,
            state: &state,
            scope: chosen_scope(challenge_scope.as_deref(), &resource),
            resource: resource.resource.as_deref(),
        },
    );
    let redirect = match &flow.authorize {
        Some(authorize) => by_page(authorize, &address, signal).await,
        None => in_popup(&address, &state, signal).await,
    }
    .map_err(FlowError::Js)?;
    let code = read_redirect(&redirect, &state, &metadata)?;
    let request = code_exchange(
        &client,
        &code,
        &flow.redirect_uri,
        &verifier,
        resource.resource.as_deref(),
    );
    let (status, text) = post_form(&metadata.token_endpoint, &request, signal).await?;
    let tokens = Tokens::from_response(status, &text, now(), None)?;
    let token = tokens.access_token.clone();
    let grant = Grant {
        tokens,
        token_endpoint: metadata.token_endpoint,
        resource: resource.resource,
        client,
    };
    flow.save(&tokens_key(url), &grant.to_json());
    Ok(token)
}

/// Why the flow stopped: one of its own errors, or what the page's `authorize` or the popup
/// ended with, passed on as it is.
enum FlowError {
    OAuth(OAuthError),
    Js(JsValue),
}

impl From<OAuthError> for FlowError {
    fn from(error: OAuthError) -> Self {
        FlowError::OAuth(error)
    }
}

/// The client: the `clientId` option, the one registered at `issuer` before, the
/// `clientMetadataUrl` option where the server takes such ids, or a new registration (RFC
/// 7591), kept.
async fn client_for(
    flow: &Flow,
    issuer: &str,
    metadata: &AuthorizationServer,
    signal: Option<&AbortSignal>,
) -> Result<Client, OAuthError> {
    if let Some(client_id) = &flow.client_id {
        return Ok(Client::given(
            client_id,
            flow.client_secret.as_deref(),
            metadata,
        ));
    }
    let key = client_key(issuer, &flow.redirect_uri);
    let stored = flow
        .load(&key)
        .and_then(|text| Client::read(&text, metadata).ok());
    if let Some(client) = stored {
        return Ok(client);
    }
    if let Some(url) = flow
        .client_metadata_url
        .as_deref()
        .filter(|_| metadata.client_id_metadata_documents)
    {
        return Ok(Client::given(url, None, metadata));
    }
    let Some(endpoint) = &metadata.registration_endpoint else {
        return Err(OAuthError::Registration(format!(
            "`{issuer}` offers no client registration (registration_endpoint): pass `clientId`"
        )));
    };
    let body = registration_request(&flow.client_name, &flow.redirect_uri);
    let (status, text) = send(endpoint, Some(("application/json", &body)), None, signal)
        .await
        .map_err(OAuthError::Registration)?;
    if !(200..300).contains(&status) {
        return Err(OAuthError::Registration(format!(
            "the client registration at `{endpoint}` answered {status}"
        )));
    }
    let client = Client::registered(&text, metadata)?;
    flow.save(&key, &client.to_json());
    Ok(client)
}

/// Discovery lookups that found nothing: what each answered, and whether every one answered
/// with a 4xx status (a server saying it has no such document, not one out of reach).
struct Lookups {
    tried: Vec<String>,
    all_answered_4xx: bool,
}

impl Lookups {
    fn message(&self, what: &str) -> String {
        format!(
            "no {what} found: {}",
            crate::core::text::join(&self.tried, ", ")
        )
    }
}

/// The first of `urls` that answers 2xx, and its body.
async fn first_found<'a>(
    urls: &'a [String],
    signal: Option<&AbortSignal>,
) -> Result<(&'a str, String), Lookups> {
    let mut lookups = Lookups {
        tried: Vec::with_capacity(urls.len()),
        all_answered_4xx: true,
    };
    for url in urls {
        match send(url, None, None, signal).await {
            Ok((200..=299, text)) => return Ok((url, text)),
            Ok((status, _)) => {
                lookups.all_answered_4xx &= (400..500).contains(&status);
                lookups.tried.push(format!("{url} ({status})"));
            }
            Err(error) => {
                lookups.all_answered_4xx = false;
                lookups.tried.push(format!("{url} ({error})"));
            }
        }
    }
    Err(lookups)
}

async fn post_form(
    url: &str,
    request: &TokenRequest,
    signal: Option<&AbortSignal>,
) -> Result<(u16, String), OAuthError> {
    let content_type = "application/x-www-form-urlencoded";
    let body = Some((content_type, request.body.as_str()));
    send(url, body, request.authorization.as_deref(), signal)
        .await
        .map_err(|error| OAuthError::Token(format!("the token request failed: {error}")))
}

/// A GET, or a POST of `body` with its content type; with `authorization`, that header. The
/// status and the body's text.
async fn send(
    url: &str,
    body: Option<(&str, &str)>,
    authorization: Option<&str>,
    signal: Option<&AbortSignal>,
) -> Result<(u16, String), String> {
    let mut headers = vec![("Accept".to_owned(), "application/json".to_owned())];
    if let Some((content_type, _)) = body {
        headers.push(("Content-Type".to_owned(), content_type.to_owned()));
    }
    if let Some(authorization) = authorization {
        headers.push(("Authorization".to_owned(), authorization.to_owned()));
    }
    let request = HttpRequest {
        method: if body.is_some() { "POST" } else { "GET" },
        url,
        headers: &headers,
        body: body.map(|(_, text)| text),
    };
    let mut response = fetch(&request, signal)
        .await
        .map_err(|error| error.to_string())?;
    let text = response.text().await.map_err(|error| error.to_string())?;
    Ok((response.status, text))
}

fn random_bytes(length: u32) -> Result<Vec<u8>, FlowError> {
    let bytes = Uint8Array::new_with_length(length);
    get_random_values(&bytes).map_err(|_| no_crypto())?;
    Ok(bytes.to_vec())
}

fn no_crypto() -> FlowError {
    FlowError::Js(
        js_error(
            "oauth_invalid_options",
            "PKCE needs crypto.getRandomValues and crypto.subtle, which a browser offers only to secure pages (https or localhost)",
        )
        .into(),
    )
}

/// The page's `authorize(url, { signal })`: the redirect URL it resolves with.
async fn by_page(
    authorize: &Function,
    url: &str,
    signal: Option<&AbortSignal>,
) -> Result<String, JsValue> {
    let options = Object::new();
    if let Some(signal) = signal {
        set_property(&options, "signal", signal);
    }
    let answer = authorize.call2(&JsValue::UNDEFINED, &url.into(), &options)?;
    let answer = JsFuture::from(Promise::resolve(&answer));
    // The page may never settle (a dialog left open): the caller giving up ends the wait.
    let answer = match signal {
        Some(signal) => match select(answer, aborted(signal)).await {
            Either::Left((answer, _)) => answer?,
            Either::Right(_) => {
                return Err(js_error("aborted", "the authorization was given up").into())
            }
        },
        None => answer.await?,
    };
    answer.as_string().ok_or_else(|| {
        js_error(
            "oauth_invalid_options",
            "`authorize` must resolve with the redirect URL, a string",
        )
        .into()
    })
}

/// Opens the authorization in a popup and waits for `finishOAuthRedirect`'s answer: its message
/// (from the popup, same origin only) or, when it has no opener, its `BroadcastChannel` message
/// carrying this flow's `state`. An aborted `signal` ends the wait, and so may a closed popup.
///
/// A popup reads closed either because the user closed it or because a page sent with
/// `Cross-Origin-Opener-Policy` moved it to another browsing context group (the popup lives on,
/// and its redirect page answers over the channel); nothing in the opener tells the two apart.
/// MSAL.js v5 ignores `closed` and waits for its channel until a timeout (60 s by default);
/// auth0-spa-js trusts `closed` and fails under COOP (auth0/auth0-spa-js#1418). Here: a popup
/// that was seen open on a page (the authorization server's, past its first `about:blank`) and
/// then reads closed was closed by the user, and the flow ends with `oauth_popup_closed` within
/// a second; a popup that reads closed before it was ever seen on one was cut off by COOP on
/// its first page, and its answer is waited for (see [`SEVERED_POPUP_WAIT_MS`]).
async fn in_popup(url: &str, state: &str, signal: Option<&AbortSignal>) -> Result<String, JsValue> {
    let popup = open_window(url, "_blank", "popup,width=600,height=700").unwrap_or_default();
    if !popup.is_object() {
        return Err(js_error(
            "oauth_popup_blocked",
            "the browser blocked the authorization popup: call the Agent from a click, or pass `authorize` and open the URL from one",
        )
        .into());
    }
    let origin = global_member(&["location", "origin"]);
    let mut resolve_slot: Option<Function> = None;
    let promise = Promise::new(&mut |resolve, _reject| resolve_slot = Some(resolve));
    let resolve = resolve_slot.expect_throw("the executor runs at once");
    let source = popup.clone();
    let state = state.to_owned();
    // One listener for both ways: the popup's own message, or any same-origin one (the
    // channel's) that answers this flow's `state`.
    let listener = JsCallback::new(move |event: JsValue| {
        let get = |target: &JsValue, name: &str| {
            Reflect::get(target, &name.into()).unwrap_or(JsValue::UNDEFINED)
        };
        let data = get(&event, "data");
        if get(&data, "type").as_string().as_deref() != Some(REDIRECT_MESSAGE)
            || get(&event, "origin") != origin
        {
            return Ok(JsValue::UNDEFINED);
        }
        let url = get(&data, "url");
        let for_this_flow = url
            .as_string()
            .and_then(|url| redirect_state(&url))
            .is_some_and(|sent| sent == state);
        if for_this_flow || Object::is(&get(&event, "source"), &source) {
            let _ = resolve.call1(&JsValue::UNDEFINED, &url);
        }
        Ok(JsValue::UNDEFINED)
    });
    let listening = Listening {
        listener: listener.into_js_value().unchecked_into(),
        channel: BroadcastChannel::new(REDIRECT_MESSAGE).ok(),
    };
    if let Some(channel) = &listening.channel {
        channel.add_event_listener("message", &listening.listener);
    }
    add_global_listener("message", &listening.listener);
    let mut answer = JsFuture::from(promise);
    let popup: &OtherWindow = popup.unchecked_ref();
    // A page past the popup's first `about:blank`: another origin's, whose `location.href`
    // cannot be read, or one of this origin's.
    let on_a_page = || {
        Reflect::get(popup, &"location".into())
            .and_then(|location| Reflect::get(&location, &"href".into()))
            .map_or(true, |href| href != "about:blank")
    };
    let mut seen_on_a_page = false;
    let mut closed_deadline: Option<f64> = None;
    loop {
        match select(&mut answer, sleep(250)).await {
            Either::Left((answer, _)) => {
                return Ok(answer?.as_string().unwrap_or_default());
            }
            Either::Right(_) if signal.is_some_and(AbortSignal::aborted) => {
                popup.close();
                return Err(js_error("aborted", "the authorization was given up").into());
            }
            Either::Right(_) if popup.closed() => {
                let now = js_sys::Date::now();
                let wait = if seen_on_a_page {
                    CLOSED_POPUP_GRACE_MS
                } else {
                    SEVERED_POPUP_WAIT_MS
                };
                if now >= *closed_deadline.get_or_insert(now + wait) {
                    return Err(js_error(
                        "oauth_popup_closed",
                        "the authorization popup was closed before it finished",
                    )
                    .into());
                }
            }
            Either::Right(_) => seen_on_a_page = seen_on_a_page || on_a_page(),
        }
    }
}

/// The listeners of the popup's answer, removed (and the channel closed) when the wait ends.
struct Listening {
    listener: Function,
    channel: Option<BroadcastChannel>,
}

impl Drop for Listening {
    fn drop(&mut self) {
        remove_global_listener("message", &self.listener);
        if let Some(channel) = &self.channel {
            channel.close();
        }
    }
}

/// `globalThis.a.b…`, or `undefined`.
fn global_member(path: &[&str]) -> JsValue {
    let mut value: JsValue = js_sys::global().into();
    for name in path {
        value = Reflect::get(&value, &(*name).into()).unwrap_or(JsValue::UNDEFINED);
    }
    value
}

/// For the redirect page: posts its URL to the window that opened it (same origin only), which
/// `browserOAuth`'s popup waits for, or, when it has none (a page with
/// `Cross-Origin-Opener-Policy` on the way cut the popup off from it), on the origin's
/// `BroadcastChannel`, where the flow that sent its `state` takes it; then closes itself.
/// `false` when it could post neither way.
#[wasm_bindgen(js_name = finishOAuthRedirect)]
pub fn finish_oauth_redirect() -> bool {
    let message = Object::new();
    set_property(&message, "type", &REDIRECT_MESSAGE.into());
    set_property(&message, "url", &global_member(&["location", "href"]));
    if !post_to_opener(&message) && !post_on_channel(&message) {
        return false;
    }
    let _ = close_this_window();
    true
}

fn post_to_opener(message: &JsValue) -> bool {
    let opener = global_member(&["opener"]);
    if !opener.is_object() {
        return false;
    }
    let origin = global_member(&["location", "origin"]);
    let opener: &OtherWindow = opener.unchecked_ref();
    opener.post_message_to(message, &origin).is_ok()
}

fn post_on_channel(message: &JsValue) -> bool {
    let Ok(channel) = BroadcastChannel::new(REDIRECT_MESSAGE) else {
        return false;
    };
    let posted = channel.post_message(message).is_ok();
    channel.close();
    posted
}

/// An error of the flow as a JS `Error` with its stable code; the message never holds a token.
fn coded_error(error: OAuthError) -> JsValue {
    let message = error.to_string();
    let error = match error {
        OAuthError::InvalidOptions(_) => js_error("oauth_invalid_options", &message),
        OAuthError::Discovery(_) => js_error("oauth_discovery_failed", &message),
        OAuthError::Registration(_) => js_error("oauth_registration_failed", &message),
        OAuthError::Denied(_) => js_error("oauth_denied", &message),
        OAuthError::StateMismatch => js_error("oauth_state_mismatch", &message),
        OAuthError::IssuerMismatch(_) => js_error("oauth_issuer_mismatch", &message),
        OAuthError::Token(_) => js_error("oauth_token_failed", &message),
    };
    error.into()
}

impl Flow {
    fn load(&self, key: &str) -> Option<String> {
        let [get, _, _] = self.storage_methods;
        self.call_storage(get, key, None)
            .and_then(|value| value.as_string())
    }

    fn save(&self, key: &str, value: &str) {
        let [_, set, _] = self.storage_methods;
        self.call_storage(set, key, Some(value));
    }

    fn remove(&self, key: &str) {
        let [_, _, remove] = self.storage_methods;
        self.call_storage(remove, key, None);
    }

    /// The storage's `method` with `key` (and `value`); `None` when it throws (a private
    /// window's quota, say): such a storage holds nothing.
    fn call_storage(&self, method: &str, key: &str, value: Option<&str>) -> Option<JsValue> {
        let function: Function = Reflect::get(&self.storage, &method.into())
            .ok()?
            .dyn_into()
            .ok()?;
        let key = JsValue::from_str(key);
        match value {
            None => function.call1(&self.storage, &key),
            Some(value) => function.call2(&self.storage, &key, &value.into()),
        }
        .ok()
    }

    /// Hands `token` out for `url`, remembering it.
    fn give(&self, url: &str, token: String, from_refresh: bool) -> JsValue {
        let value = JsValue::from_str(&token);
        let mut given = self.given.borrow_mut();
        match given.iter_mut().find(|(server, _, _)| server == url) {
            Some(entry) => (entry.1, entry.2) = (token, from_refresh),
            None => given.push((url.to_owned(), token, from_refresh)),
        }
        value
    }

    fn last_given(&self, url: &str) -> Option<(String, bool)> {
        let given = self.given.borrow();
        let last = given.iter().find(|(server, _, _)| server == url);
        last.map(|(_, token, from_refresh)| (token.clone(), *from_refresh))
    }
}
