//! The pure parts of an OAuth 2.1 authorization code flow with PKCE for an MCP server, as the MCP
//! authorization spec (2025-11-25, "Authorization",
//! <https://modelcontextprotocol.io/specification/2025-11-25/basic/authorization>) asks of a
//! client: where the metadata is (RFC 9728 protected resource metadata, RFC 8414 and OpenID
//! Connect discovery), what it says, the client registration (RFC 7591), the authorization URL
//! and the token requests (RFC 6749 §4.1, RFC 7636 S256, RFC 8707 `resource`), the redirect's
//! answer, and the tokens kept with their expiry. The web layer (`web/oauth.rs`) does the
//! fetching, the randomness, the hashing, the popup and the storage; time comes in as `now`.

use serde_json::{Map, Value};
use thiserror::Error;

use crate::core::json_read::strings_in;
use crate::core::json_text::{object, to_json_text, SetMember};
use crate::core::text::{form_encode, join, percent_decode, replace_str};
use crate::core::url_policy::{check_server_url, CheckedUrl};

/// Why the flow stopped; the web layer gives each its stable code (`oauth_…`). No message
/// holds a token.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum OAuthError {
    /// `oauth_invalid_options`
    #[error("{0}")]
    InvalidOptions(String),
    /// `oauth_discovery_failed`
    #[error("{0}")]
    Discovery(String),
    /// `oauth_registration_failed`
    #[error("{0}")]
    Registration(String),
    /// `oauth_denied`: the authorization server's `error` and `error_description`.
    #[error("the authorization was refused: {0}")]
    Denied(String),
    /// `oauth_state_mismatch`
    #[error("the redirect's state is not the one sent: an answer to another request, or forged")]
    StateMismatch,
    /// `oauth_issuer_mismatch`: the redirect's `iss` is not the authorization server's, or is
    /// missing where the server says it sends one (RFC 9207 §2.4).
    #[error("{0}")]
    IssuerMismatch(String),
    /// `oauth_token_failed`
    #[error("{0}")]
    Token(String),
}

/// Where the protected resource metadata of `server` may be, in the order the spec's "Protected
/// Resource Metadata Discovery Requirements" give when the challenge names none: the path-aware
/// well-known URL (RFC 9728 §3.1), then the root one.
pub fn protected_resource_metadata_urls(server: &CheckedUrl) -> Vec<String> {
    well_known_urls(server, "oauth-protected-resource", false)
}

/// Where the authorization server metadata of `issuer` may be, in the order of the spec's
/// "Authorization Server Metadata Discovery": with a path, RFC 8414 and OpenID Connect with the
/// well-known part inserted before the path, then OpenID Connect appended to it; without a path,
/// the two root ones.
pub fn authorization_server_metadata_urls(
    issuer: &str,
    allow_insecure_local_urls: bool,
) -> Result<Vec<String>, OAuthError> {
    let issuer = checked(
        issuer,
        "the authorization server",
        allow_insecure_local_urls,
    )
    .map_err(OAuthError::Discovery)?;
    let mut urls = well_known_urls(&issuer, "oauth-authorization-server", true);
    urls.extend(well_known_urls(&issuer, "openid-configuration", true));
    let path = path_of(&issuer);
    if !path.is_empty() {
        urls.push(format!(
            "{}{path}/.well-known/openid-configuration",
            issuer.origin()
        ));
    }
    Ok(urls)
}

/// `{origin}/.well-known/{name}{path}`, then (without `path_only`, or for a URL without path)
/// `{origin}/.well-known/{name}`.
fn well_known_urls(url: &CheckedUrl, name: &str, path_only: bool) -> Vec<String> {
    let root = format!("{}/.well-known/{name}", url.origin());
    let path = path_of(url);
    match (path.is_empty(), path_only) {
        (true, _) => vec![root],
        (false, true) => vec![format!("{root}{path}")],
        (false, false) => vec![format!("{root}{path}"), root],
    }
}

/// The URL's path without its query and without a trailing `/` (RFC 8414 §3.1: a terminating
/// slash is removed before the well-known part is inserted); empty for the root.
fn path_of(url: &CheckedUrl) -> &str {
    let path = url.path_and_query.split('?').next().unwrap_or_default();
    path.trim_end_matches('/')
}

/// The MCP server's canonical URI (the spec's "Canonical Server URI", RFC 8707 §2): scheme, host
/// and path, lowercase scheme and host, no query or fragment, no trailing slash.
pub fn canonical_resource(server: &CheckedUrl) -> String {
    format!("{}{}", server.origin(), path_of(server))
}

/// `url` if the URL policy allows it, else a message naming `what` it is.
fn checked(url: &str, what: &str, allow_insecure_local_urls: bool) -> Result<CheckedUrl, String> {
    check_server_url(url, allow_insecure_local_urls)
        .map_err(|error| format!("{what}'s URL `{url}` is refused: {error}"))
}

/// What the protected resource metadata (RFC 9728 §2) tells the flow.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProtectedResource {
    /// `authorization_servers[0]`: the issuer to use.
    pub authorization_server: String,
    /// The `resource` parameter for the authorization and token requests (RFC 8707); none for a
    /// server of MCP 2025-03-26, which predates it: its authorization server need not know the
    /// server's URL as a resource (one that checks would refuse it, `invalid_target`), and the
    /// TypeScript SDK sends the parameter only where the metadata was found.
    pub resource: Option<String>,
    /// `scopes_supported`, space-separated: the scope to ask for when the challenge names none.
    pub scopes_supported: Option<String>,
}

impl ProtectedResource {
    /// What a server of MCP 2025-03-26, without protected resource metadata, implies: it is its
    /// own authorization server, at [`legacy_authorization_base`].
    pub fn legacy(server: &CheckedUrl) -> ProtectedResource {
        ProtectedResource {
            authorization_server: legacy_authorization_base(server),
            resource: None,
            scopes_supported: None,
        }
    }

    /// Reads the metadata of `server`. Its `resource` must be the server's URL or a prefix of it
    /// on the same origin (RFC 9728 §3.3 and §7.3: metadata naming another resource is not this
    /// server's); without one, the server's canonical URI is the resource. `None`: the text names
    /// no authorization server (no JSON object, such as the HTML page of a catch-all route, or
    /// no `authorization_servers`), which the TypeScript SDK takes as no metadata at all.
    pub fn read(text: &str, server: &CheckedUrl) -> Result<Option<ProtectedResource>, OAuthError> {
        let Some(members) = json_object(text) else {
            return Ok(None);
        };
        let first_named = match members.get("authorization_servers") {
            Some(Value::Array(servers)) => servers.first(),
            _ => None,
        };
        let Some(Value::String(authorization_server)) = first_named else {
            return Ok(None);
        };
        let canonical = canonical_resource(server);
        let resource = match string_member(&members, "resource") {
            None => canonical,
            Some(named) => {
                let named = named.trim_end_matches('/');
                let under = canonical
                    .strip_prefix(named)
                    .is_some_and(|rest| rest.is_empty() || rest.starts_with('/'));
                if !under {
                    return Err(OAuthError::Discovery(format!(
                        "the protected resource metadata is for `{named}`, not for `{canonical}`"
                    )));
                }
                named.to_owned()
            }
        };
        Ok(Some(ProtectedResource {
            authorization_server: authorization_server.clone(),
            resource: Some(resource),
            scopes_supported: scopes_of(&members),
        }))
    }
}

/// What the authorization server metadata (RFC 8414 §2) tells the flow.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AuthorizationServer {
    /// `issuer` as the metadata states it, which a redirect's `iss` must equal (RFC 9207 §2.4).
    pub issuer: String,
    /// `authorization_response_iss_parameter_supported` (RFC 9207 §3): a redirect without
    /// `iss` is refused then.
    pub iss_parameter_supported: bool,
    pub authorization_endpoint: String,
    pub token_endpoint: String,
    /// Where Dynamic Client Registration (RFC 7591) is offered, if it is.
    pub registration_endpoint: Option<String>,
    /// `token_endpoint_auth_methods_supported`; `None` when the metadata lists none (RFC 8414
    /// §2: then `client_secret_basic` is the default).
    pub token_auth_methods: Option<Vec<String>>,
    /// `client_id_metadata_document_supported`: a client may name itself by the URL of its
    /// Client ID Metadata Document instead of registering (MCP 2025-11-25, "Client ID Metadata
    /// Documents").
    pub client_id_metadata_documents: bool,
}

impl AuthorizationServer {
    /// Reads the metadata looked up for `issuer` (the protected resource metadata's). Refused:
    /// metadata whose `issuer` is not `issuer` (RFC 8414 §3.3, a MUST of the spec's
    /// "Authorization Server Metadata Discovery": else a server could name an issuer whose
    /// metadata claims another's identity, and the redirect's `iss` would be checked against
    /// that claim), a server whose `code_challenge_methods_supported` lacks `S256` (the spec:
    /// "If `code_challenge_methods_supported` is absent, the authorization server does not
    /// support PKCE and MCP clients MUST refuse to proceed"), and endpoints the URL policy
    /// refuses (https, or http on a local address with `allowInsecureLocalUrls`).
    pub fn read(
        text: &str,
        issuer: &str,
        allow_insecure_local_urls: bool,
    ) -> Result<AuthorizationServer, OAuthError> {
        AuthorizationServer::read_stating(text, allow_insecure_local_urls, &|stated| {
            same_issuer(stated, issuer).then_some(()).ok_or_else(|| {
                format!("is not `{issuer}`, the issuer it was looked up for (RFC 8414 §3.3)")
            })
        })
    }

    /// Reads the metadata found at the authorization base URL `base` of an MCP 2025-03-26
    /// server ([`legacy_authorization_base`]). No issuer was named before it was looked up: the
    /// one it states stands, as long as it is on the server's own origin (such servers put their
    /// authorization server under a path, `/oauth` say, and its metadata at the root).
    pub fn read_legacy(
        text: &str,
        base: &str,
        allow_insecure_local_urls: bool,
    ) -> Result<AuthorizationServer, OAuthError> {
        AuthorizationServer::read_stating(text, allow_insecure_local_urls, &|stated| {
            let on_origin = check_server_url(stated, allow_insecure_local_urls)
                .is_ok_and(|url| url.origin() == base);
            on_origin
                .then_some(())
                .ok_or_else(|| format!("is not on the MCP server's origin `{base}`"))
        })
    }

    /// Reads metadata whose stated `issuer` `issuer_check` accepts (else says why not); one
    /// body for both readers, not one compiled per closure.
    fn read_stating(
        text: &str,
        allow_insecure_local_urls: bool,
        issuer_check: &dyn Fn(&str) -> Result<(), String>,
    ) -> Result<AuthorizationServer, OAuthError> {
        let discovery = OAuthError::Discovery;
        let members = json_object(text).ok_or_else(|| {
            discovery("the authorization server metadata is not a JSON object".to_owned())
        })?;
        let stated = string_member(&members, "issuer").ok_or_else(|| {
            discovery("the authorization server metadata has no issuer (RFC 8414 §2)".to_owned())
        })?;
        issuer_check(stated).map_err(|why| {
            discovery(format!(
                "the authorization server metadata's issuer `{stated}` {why}"
            ))
        })?;
        let s256 = match members.get("code_challenge_methods_supported") {
            Some(Value::Array(methods)) => methods.iter().any(|method| method == "S256"),
            _ => false,
        };
        if !s256 {
            return Err(discovery(
                "the authorization server does not offer PKCE with S256 (code_challenge_methods_supported), which MCP requires".to_owned(),
            ));
        }
        let endpoint = |name: &str| -> Result<Option<String>, OAuthError> {
            let Some(url) = string_member(&members, name) else {
                return Ok(None);
            };
            let what = format!("the authorization server's {name}");
            let url = checked(url, &what, allow_insecure_local_urls).map_err(discovery)?;
            Ok(Some(url.href()))
        };
        let required = |name: &str| {
            endpoint(name)?.ok_or_else(|| {
                discovery(format!("the authorization server metadata has no {name}"))
            })
        };
        Ok(AuthorizationServer {
            issuer: stated.to_owned(),
            iss_parameter_supported: members
                .get("authorization_response_iss_parameter_supported")
                .is_some_and(|supported| supported == true),
            authorization_endpoint: required("authorization_endpoint")?,
            token_endpoint: required("token_endpoint")?,
            registration_endpoint: endpoint("registration_endpoint")?,
            token_auth_methods: match members.get("token_endpoint_auth_methods_supported") {
                Some(Value::Array(methods)) => {
                    Some(strings_in(methods).into_iter().map(str::to_owned).collect())
                }
                _ => None,
            },
            client_id_metadata_documents: members
                .get("client_id_metadata_document_supported")
                .is_some_and(|supported| supported == true),
        })
    }

    /// The endpoints a server of MCP 2025-03-26 without metadata has (that revision's "Fallbacks
    /// for Servers without Metadata Discovery"): `/authorize`, `/token` and `/register` at its
    /// authorization base URL, `base` ([`legacy_authorization_base`]).
    pub fn legacy_defaults(base: &str) -> AuthorizationServer {
        AuthorizationServer {
            issuer: base.to_owned(),
            iss_parameter_supported: false,
            authorization_endpoint: format!("{base}/authorize"),
            token_endpoint: format!("{base}/token"),
            registration_endpoint: Some(format!("{base}/register")),
            token_auth_methods: None,
            client_id_metadata_documents: false,
        }
    }
}

/// The authorization base URL of an MCP 2025-03-26 server, which has no protected resource
/// metadata: the server's URL with its path left out (that revision's "Authorization Base URL").
/// Its authorization server metadata is looked up there, as an issuer's.
pub fn legacy_authorization_base(server: &CheckedUrl) -> String {
    server.origin()
}

/// Whether metadata stating `stated` is that of `issuer`: the same text, but for one trailing
/// slash, which makes no other well-known URL (RFC 8414 §3.1) and which authorization servers
/// and protected resources often disagree on (the TypeScript SDK allows it too).
fn same_issuer(stated: &str, issuer: &str) -> bool {
    fn without_slash(text: &str) -> &str {
        text.strip_suffix('/').unwrap_or(text)
    }
    without_slash(stated) == without_slash(issuer)
}

/// Whether `url` may be the client's Client ID Metadata Document URL, which goes out as its
/// `client_id` just as it is given (draft-ietf-oauth-client-id-metadata-document §3): https, a
/// path (not the root one, as the MCP TypeScript SDK asks too), no `.` or `..` segment, no
/// fragment, no user or password; and not on a local host, where no authorization server could
/// fetch it (`allowInsecureLocalUrls` does not apply).
pub fn is_client_metadata_url(url: &str) -> bool {
    let Ok(checked) = check_server_url(url, false) else {
        return false;
    };
    let path = path_of(&checked);
    let dot_segment = path.split('/').any(|segment| {
        let segment = replace_str(&segment.to_ascii_lowercase(), "%2e", ".");
        segment == "." || segment == ".."
    });
    !url.contains('#') && !path.is_empty() && !dot_segment
}

/// The Dynamic Client Registration request (RFC 7591 §2, §3.1) of a browser app: a public
/// client (`token_endpoint_auth_method: none`, OAuth 2.1 §2.1) with one redirect URI.
pub fn registration_request(client_name: &str, redirect_uri: &str) -> String {
    let strings = |items: &[&str]| {
        let mut list = Vec::with_capacity(items.len());
        for item in items {
            list.push(Value::from(*item));
        }
        Value::Array(list)
    };
    to_json_text(&object([
        ("client_name", client_name.into()),
        ("redirect_uris", strings(&[redirect_uri])),
        (
            "grant_types",
            strings(&["authorization_code", "refresh_token"]),
        ),
        ("response_types", strings(&["code"])),
        ("token_endpoint_auth_method", "none".into()),
    ]))
}

/// How a client proves itself at the token endpoint (RFC 6749 §2.3.1, the names of RFC 7591
/// §2).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TokenAuth {
    /// A public client: its `client_id` in the body.
    None,
    /// `client_secret_basic`: id and secret in an `Authorization: Basic` header.
    Basic,
    /// `client_secret_post`: id and secret in the body.
    Post,
}

impl TokenAuth {
    fn name(self) -> &'static str {
        match self {
            TokenAuth::None => "none",
            TokenAuth::Basic => "client_secret_basic",
            TokenAuth::Post => "client_secret_post",
        }
    }

    fn named(name: &str) -> Option<TokenAuth> {
        [TokenAuth::None, TokenAuth::Basic, TokenAuth::Post]
            .into_iter()
            .find(|method| method.name() == name)
    }

    /// The method for a client with or without a secret at `server`: the one its registration
    /// names (RFC 7591 §3.2.1) when the server takes it, else `client_secret_basic` where the
    /// server takes it or lists nothing (RFC 8414 §2's default), else `client_secret_post` where
    /// it takes that, else `none` where it takes that (a server taking only public clients is
    /// not sent a secret), else `client_secret_post`.
    fn chosen(has_secret: bool, registered: Option<&str>, server: &AuthorizationServer) -> Self {
        if !has_secret {
            return TokenAuth::None;
        }
        // An empty list says no more than an absent one.
        let listed = server.token_auth_methods.as_ref();
        let Some(supported) = listed.filter(|methods| !methods.is_empty()) else {
            return registered
                .and_then(TokenAuth::named)
                .filter(|method| *method != TokenAuth::None)
                .unwrap_or(TokenAuth::Basic);
        };
        let takes = |method: TokenAuth| supported.iter().any(|name| name == method.name());
        match registered.and_then(TokenAuth::named) {
            Some(method) if method != TokenAuth::None && takes(method) => method,
            _ if takes(TokenAuth::Basic) => TokenAuth::Basic,
            _ if !takes(TokenAuth::Post) && takes(TokenAuth::None) => TokenAuth::None,
            _ => TokenAuth::Post,
        }
    }
}

/// A client: its id, its secret when it has one (pre-registered, or issued by a registration
/// anyway, RFC 7591 §3.2.1), and how it authenticates at the token endpoint.
#[derive(Clone, PartialEq, Eq)]
pub struct Client {
    pub client_id: String,
    pub client_secret: Option<String>,
    pub auth: TokenAuth,
}

impl Client {
    /// A client the page names (`clientId`, `clientSecret`), for `server`.
    pub fn given(
        client_id: &str,
        client_secret: Option<&str>,
        server: &AuthorizationServer,
    ) -> Client {
        Client {
            client_id: client_id.to_owned(),
            client_secret: client_secret.map(str::to_owned),
            auth: TokenAuth::chosen(client_secret.is_some(), None, server),
        }
    }

    /// Reads a registration response (RFC 7591 §3.2.1) of `server`.
    pub fn registered(text: &str, server: &AuthorizationServer) -> Result<Client, OAuthError> {
        let members = json_object(text).unwrap_or_default();
        let (client_id, client_secret) = Client::credentials(&members)?;
        let registered = string_member(&members, "token_endpoint_auth_method");
        Ok(Client {
            auth: TokenAuth::chosen(client_secret.is_some(), registered, server),
            client_id,
            client_secret,
        })
    }

    /// Reads the stored form (`to_json`) for `server`: the method kept, or for one stored
    /// before methods were kept `client_secret_post`, which it used then, as long as `server`
    /// takes it (else its own choice: such a client would fail at a server taking only Basic
    /// until the storage was cleared).
    pub fn read(text: &str, server: &AuthorizationServer) -> Result<Client, OAuthError> {
        let members = json_object(text).unwrap_or_default();
        let (client_id, client_secret) = Client::credentials(&members)?;
        let stored = string_member(&members, "token_endpoint_auth_method");
        let method = stored.unwrap_or(TokenAuth::Post.name());
        Ok(Client {
            auth: TokenAuth::chosen(client_secret.is_some(), Some(method), server),
            client_id,
            client_secret,
        })
    }

    fn with_stored_auth(
        client_id: String,
        client_secret: Option<String>,
        members: &Map<String, Value>,
    ) -> Client {
        let stored =
            string_member(members, "token_endpoint_auth_method").and_then(TokenAuth::named);
        let legacy = match client_secret {
            Some(_) => TokenAuth::Post,
            None => TokenAuth::None,
        };
        Client {
            auth: stored.unwrap_or(legacy),
            client_id,
            client_secret,
        }
    }

    fn credentials(members: &Map<String, Value>) -> Result<(String, Option<String>), OAuthError> {
        let Some(client_id) = string_member(members, "client_id").filter(|id| !id.is_empty())
        else {
            return Err(OAuthError::Registration(
                "the registration response has no client_id".to_owned(),
            ));
        };
        let client_secret = string_member(members, "client_secret").map(str::to_owned);
        Ok((client_id.to_owned(), client_secret))
    }

    /// The form kept in storage.
    pub fn to_json(&self) -> String {
        let mut members = Map::new();
        self.write_into(&mut members);
        to_json_text(&Value::Object(members))
    }

    fn write_into(&self, members: &mut Map<String, Value>) {
        members.set("client_id", self.client_id.as_str().into());
        if let Some(secret) = &self.client_secret {
            members.set("client_secret", secret.as_str().into());
        }
        members.set("token_endpoint_auth_method", self.auth.name().into());
    }
}

/// The parameters of one authorization request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AuthorizationRequest<'a> {
    pub client_id: &'a str,
    pub redirect_uri: &'a str,
    /// The S256 challenge of the code verifier ([`base64url`] of its SHA-256).
    pub code_challenge: &'a str,
    pub state: &'a str,
    pub scope: Option<&'a str>,
    pub resource: Option<&'a str>,
}

/// The authorization URL (RFC 6749 §4.1.1, RFC 7636 §4.3, RFC 8707 §2): the endpoint's own query
/// kept, ours appended.
pub fn authorization_url(endpoint: &str, request: &AuthorizationRequest<'_>) -> String {
    let mut parameters = vec![
        ("response_type", "code"),
        ("client_id", request.client_id),
        ("redirect_uri", request.redirect_uri),
        ("code_challenge", request.code_challenge),
        ("code_challenge_method", "S256"),
        ("state", request.state),
    ];
    if let Some(scope) = request.scope {
        parameters.push(("scope", scope));
    }
    if let Some(resource) = request.resource {
        parameters.push(("resource", resource));
    }
    let separator = match endpoint.find('?') {
        None => "?",
        Some(at) if at + 1 == endpoint.len() || endpoint.ends_with('&') => "",
        Some(_) => "&",
    };
    format!("{endpoint}{separator}{}", form_body(&parameters))
}

/// A request to the token endpoint: its form body, and the `Authorization` header of a
/// `client_secret_basic` client.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TokenRequest {
    pub body: String,
    pub authorization: Option<String>,
}

/// The token request for the code (RFC 6749 §4.1.3, RFC 7636 §4.5, RFC 8707 §2.2).
pub fn code_exchange(
    client: &Client,
    code: &str,
    redirect_uri: &str,
    code_verifier: &str,
    resource: Option<&str>,
) -> TokenRequest {
    let grant = [
        ("grant_type", "authorization_code"),
        ("code", code),
        ("redirect_uri", redirect_uri),
    ];
    let mut proof = vec![("code_verifier", code_verifier)];
    proof.extend(resource.map(|resource| ("resource", resource)));
    token_request(client, &grant, &proof)
}

/// The refresh request (RFC 6749 §6, OAuth 2.1 §4.3.1 for a public client's `client_id`,
/// RFC 8707 §2.2).
pub fn refresh_request(
    client: &Client,
    refresh_token: &str,
    resource: Option<&str>,
) -> TokenRequest {
    let grant = [
        ("grant_type", "refresh_token"),
        ("refresh_token", refresh_token),
    ];
    let resource = resource.map(|resource| ("resource", resource));
    token_request(client, &grant, resource.as_slice())
}

/// `grant`, the client's credentials as its method puts them (RFC 6749 §2.3.1: a
/// `client_secret_basic` client's id and secret form-encoded, joined by `:`, in base64, and
/// nothing of them in the body), then `rest`.
fn token_request(client: &Client, grant: &[(&str, &str)], rest: &[(&str, &str)]) -> TokenRequest {
    let mut parameters = grant.to_vec();
    let secret = client.client_secret.as_deref().unwrap_or_default();
    let authorization = match client.auth {
        TokenAuth::Basic => {
            let pair = format!("{}:{}", form_encode(&client.client_id), form_encode(secret));
            Some(format!("Basic {}", base64(pair.as_bytes(), false)))
        }
        TokenAuth::Post => {
            parameters.push(("client_id", client.client_id.as_str()));
            parameters.push(("client_secret", secret));
            None
        }
        TokenAuth::None => {
            parameters.push(("client_id", client.client_id.as_str()));
            None
        }
    };
    parameters.extend_from_slice(rest);
    TokenRequest {
        body: form_body(&parameters),
        authorization,
    }
}

fn form_body(parameters: &[(&str, &str)]) -> String {
    let mut pairs = Vec::with_capacity(parameters.len());
    for (name, value) in parameters {
        pairs.push(format!("{name}={}", form_encode(value)));
    }
    join(&pairs, "&")
}

/// The scope to ask for: the challenge's (the spec's "Scope Selection Strategy"), else the
/// protected resource's `scopes_supported`, else none.
pub fn chosen_scope<'a>(
    challenge_scope: Option<&'a str>,
    resource: &'a ProtectedResource,
) -> Option<&'a str> {
    challenge_scope.or(resource.scopes_supported.as_deref())
}

/// `bytes` in base64url without padding (RFC 4648 §5, RFC 7636 Appendix A): the S256 challenge
/// of a verifier's SHA-256 digest, and the verifier and `state` from random bytes.
pub fn base64url(bytes: &[u8]) -> String {
    base64(bytes, true)
}

/// `bytes` in base64 (RFC 4648 §4, padded) or, `url_safe`, in base64url without padding (§5).
fn base64(bytes: &[u8], url_safe: bool) -> String {
    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut text = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let group = chunk.iter().enumerate().fold(0u32, |group, (index, byte)| {
            group | u32::from(*byte) << (16 - 8 * index)
        });
        for index in 0..=chunk.len() {
            let digit = ALPHABET[(group >> (18 - 6 * index)) as usize & 63];
            text.push(match (url_safe, digit) {
                (true, b'+') => '-',
                (true, b'/') => '_',
                _ => char::from(digit),
            });
        }
        if !url_safe {
            text.push_str(&"=="[..3 - chunk.len()]);
        }
    }
    text
}

/// The code the redirect carries, once its `state` is the one sent and its issuer the one the
/// request went to; the server's `error` (RFC 6749 §4.1.2.1) as [`OAuthError::Denied`].
///
/// RFC 9207 §2.4: a present `iss` must equal the metadata's `issuer` (simple string
/// comparison), and a server whose metadata says it sends `iss` must have sent one. This is
/// checked before the code or the error is read: one page talks to several MCP servers'
/// authorization servers, and an answer from another one (a mix-up attack, RFC 9207 §1) must
/// not have its code exchanged, nor its error taken for the intended server's.
pub fn read_redirect(
    redirect_url: &str,
    expected_state: &str,
    server: &AuthorizationServer,
) -> Result<String, OAuthError> {
    let answer = RedirectParameters::read(redirect_url);
    if answer.state.as_deref() != Some(expected_state) {
        return Err(OAuthError::StateMismatch);
    }
    let mismatch = OAuthError::IssuerMismatch;
    match answer.iss {
        None if server.iss_parameter_supported => {
            return Err(mismatch(
                "the redirect has no iss, which its authorization server says it sends: refused as a possible mix-up (RFC 9207)".to_owned(),
            ));
        }
        Some(iss) if iss != server.issuer => {
            return Err(mismatch(format!(
                "the redirect's iss `{iss}` is not the authorization server's issuer `{}`: refused as a mix-up (RFC 9207)",
                server.issuer
            )));
        }
        _ => {}
    }
    if let Some(error) = answer.error {
        return Err(OAuthError::Denied(match answer.error_description {
            Some(description) => format!("{error} ({description})"),
            None => error,
        }));
    }
    answer.code.filter(|code| !code.is_empty()).ok_or_else(|| {
        OAuthError::Denied("the redirect carries neither a code nor an error".to_owned())
    })
}

/// The `state` a redirect URL carries: how a flow tells its own answer among those that every
/// page of the origin hears (the redirect page's `BroadcastChannel` message).
pub fn redirect_state(redirect_url: &str) -> Option<String> {
    RedirectParameters::read(redirect_url).state
}

/// The authorization response's parameters (RFC 6749 §4.1.2, §4.1.2.1) in a redirect URL's query.
#[derive(Default)]
struct RedirectParameters {
    code: Option<String>,
    state: Option<String>,
    error: Option<String>,
    error_description: Option<String>,
    iss: Option<String>,
}

impl RedirectParameters {
    fn read(redirect_url: &str) -> RedirectParameters {
        let without_fragment = redirect_url.split('#').next().unwrap_or_default();
        let query = without_fragment
            .split_once('?')
            .map_or("", |(_, query)| query);
        let mut parameters = RedirectParameters::default();
        for pair in query.split('&') {
            let (name, value) = pair.split_once('=').unwrap_or((pair, ""));
            let slot = match name {
                "code" => &mut parameters.code,
                "state" => &mut parameters.state,
                "error" => &mut parameters.error,
                "error_description" => &mut parameters.error_description,
                "iss" => &mut parameters.iss,
                _ => continue,
            };
            *slot = Some(form_decode(value));
        }
        parameters
    }
}

/// A query value decoded as the WHATWG form parser does it: `+` is a space, then only `%` and two
/// hex digits is a byte, any other `%` stays as written; bytes that are not UTF-8 become U+FFFD.
fn form_decode(value: &str) -> String {
    String::from_utf8_lossy(&percent_decode(&value.replace('+', " "))).into_owned()
}

/// Tokens kept for one MCP server.
#[derive(Clone, PartialEq, Eq)]
pub struct Tokens {
    pub access_token: String,
    pub refresh_token: Option<String>,
    /// Milliseconds since the Unix epoch, from `expires_in`; `None` when the server gave none.
    pub expires_at: Option<u64>,
}

/// Whether a refresh the token endpoint answered with `status`, and that gave no tokens, may
/// succeed later with the same refresh token: a server error (5xx), a timeout (408) or a rate
/// limit (429) is passing, and so is a 2xx that is no token response (a proxy's page): nothing
/// said the grant is dead, and signing the user out for it would make them authorize again for
/// nothing (the TypeScript SDK forgets tokens only for `invalid_grant` and client errors). Any
/// other answer refuses the grant (RFC 6749 §5.2: `invalid_grant` 400, `invalid_client` 401, and
/// the other errors, which another try would meet again), so the flow runs anew.
pub fn refresh_failure_is_transient(status: u16) -> bool {
    matches!(status, 200..=299 | 408 | 429 | 500..)
}

/// How long before its stated expiry a token counts as expired: it should not lapse on its way.
pub const EXPIRY_MARGIN_MS: u64 = 30_000;

impl Tokens {
    /// Reads a token response (RFC 6749 §5.1) received at `now_ms`, or its error (§5.2). A
    /// refresh response without a `refresh_token` keeps `previous_refresh_token` (§6).
    pub fn from_response(
        status: u16,
        text: &str,
        now_ms: u64,
        previous_refresh_token: Option<&str>,
    ) -> Result<Tokens, OAuthError> {
        let members = json_object(text).unwrap_or_default();
        if let Some(error) = string_member(&members, "error") {
            let description = string_member(&members, "error_description")
                .map(|description| format!(" ({description})"))
                .unwrap_or_default();
            return Err(OAuthError::Token(format!(
                "the token endpoint answered {status}: {error}{description}"
            )));
        }
        let access_token =
            string_member(&members, "access_token").filter(|token| !token.is_empty());
        let (true, Some(access_token)) = ((200..300).contains(&status), access_token) else {
            return Err(OAuthError::Token(format!(
                "the token endpoint answered {status} without an access_token"
            )));
        };
        let expires_in = members.get("expires_in").and_then(Value::as_u64);
        let refresh_token = string_member(&members, "refresh_token").or(previous_refresh_token);
        Ok(Tokens {
            access_token: access_token.to_owned(),
            refresh_token: refresh_token.map(str::to_owned),
            expires_at: expires_in
                .map(|seconds| now_ms.saturating_add(seconds.saturating_mul(1000))),
        })
    }

    /// Whether the access token has expired at `now_ms`, or will within [`EXPIRY_MARGIN_MS`].
    pub fn is_expired(&self, now_ms: u64) -> bool {
        self.expires_at
            .is_some_and(|expires_at| now_ms.saturating_add(EXPIRY_MARGIN_MS) >= expires_at)
    }
}

/// What is kept for one MCP server: its tokens, and what refreshing them takes.
#[derive(Clone, PartialEq, Eq)]
pub struct Grant {
    pub tokens: Tokens,
    pub token_endpoint: String,
    /// The RFC 8707 resource the tokens are for, if one was named ([`ProtectedResource`]).
    pub resource: Option<String>,
    pub client: Client,
}

impl Grant {
    /// The form kept in storage: `{access_token, refresh_token, expires_at, token_endpoint,
    /// resource, client_id, client_secret, token_endpoint_auth_method}` (no `resource` when none
    /// was named).
    pub fn to_json(&self) -> String {
        let tokens = &self.tokens;
        let mut members = Map::new();
        members.set("access_token", tokens.access_token.as_str().into());
        if let Some(refresh_token) = &tokens.refresh_token {
            members.set("refresh_token", refresh_token.as_str().into());
        }
        if let Some(expires_at) = tokens.expires_at {
            members.set("expires_at", expires_at.into());
        }
        members.set("token_endpoint", self.token_endpoint.as_str().into());
        if let Some(resource) = &self.resource {
            members.set("resource", resource.as_str().into());
        }
        self.client.write_into(&mut members);
        to_json_text(&Value::Object(members))
    }

    /// Reads what [`Grant::to_json`] wrote; `None` for anything else.
    pub fn from_json(text: &str) -> Option<Grant> {
        let members = json_object(text)?;
        let owned = |name: &str| string_member(&members, name).map(str::to_owned);
        Some(Grant {
            tokens: Tokens {
                access_token: owned("access_token")?,
                refresh_token: owned("refresh_token"),
                expires_at: members.get("expires_at").and_then(Value::as_u64),
            },
            token_endpoint: owned("token_endpoint")?,
            resource: owned("resource"),
            client: Client::with_stored_auth(owned("client_id")?, owned("client_secret"), &members),
        })
    }
}

/// Prints no token or secret: the `Debug` of a value an error or a log may show.
impl std::fmt::Debug for Grant {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        formatter.write_str("Grant([redacted])")
    }
}

/// Prints the id and the method, not the secret: the `Debug` of a value an error or a log may
/// show.
impl std::fmt::Debug for Client {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        formatter
            .debug_struct("Client")
            .field("client_id", &self.client_id)
            .field("auth", &self.auth)
            .finish_non_exhaustive()
    }
}

/// Prints no token: the `Debug` of a value an error or a log may show.
impl std::fmt::Debug for Tokens {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        formatter.write_str("Tokens([redacted])")
    }
}

/// The storage keys, all under one prefix.
pub const STORAGE_PREFIX: &str = "mcp-agent-wasm:oauth:";

/// The key of the tokens of the MCP server at `server_url`.
pub fn tokens_key(server_url: &str) -> String {
    format!("{STORAGE_PREFIX}tokens:{server_url}")
}

/// The key of the client registered at `issuer` for `redirect_uri` (a registration names its
/// redirect URIs; client ids are per authorization server, as the spec says).
pub fn client_key(issuer: &str, redirect_uri: &str) -> String {
    format!("{STORAGE_PREFIX}client:{issuer} {redirect_uri}")
}

fn json_object(text: &str) -> Option<Map<String, Value>> {
    match serde_json::from_str(text) {
        Ok(Value::Object(members)) => Some(members),
        _ => None,
    }
}

fn string_member<'a>(members: &'a Map<String, Value>, name: &str) -> Option<&'a str> {
    members.get(name).and_then(Value::as_str)
}

/// `scopes_supported` joined with spaces, when it lists any.
fn scopes_of(members: &Map<String, Value>) -> Option<String> {
    let Some(Value::Array(scopes)) = members.get("scopes_supported") else {
        return None;
    };
    let names = strings_in(scopes);
    (!names.is_empty()).then(|| join(&names, " "))
}
