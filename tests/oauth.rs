#![cfg(not(target_arch = "wasm32"))]
//! The pure parts of the browser OAuth flow (`core::oauth`), against the MCP authorization spec
//! 2025-11-25 (<https://modelcontextprotocol.io/specification/2025-11-25/basic/authorization>)
//! and the RFCs it builds on.

use mcp_agent_wasm::core::oauth::{
    authorization_server_metadata_urls, authorization_url, base64url, canonical_resource,
    chosen_scope, code_exchange, is_client_metadata_url, legacy_authorization_base,
    protected_resource_metadata_urls, read_redirect, redirect_state, refresh_failure_is_transient,
    refresh_request, registration_request, AuthorizationRequest, AuthorizationServer, Client,
    Grant, OAuthError, ProtectedResource, TokenAuth, TokenRequest, Tokens, EXPIRY_MARGIN_MS,
};
use mcp_agent_wasm::core::url_policy::check_server_url;

fn server(url: &str) -> mcp_agent_wasm::core::url_policy::CheckedUrl {
    check_server_url(url, true).expect("a valid URL")
}

/// The spec's "Protected Resource Metadata Discovery Requirements": the path-aware well-known
/// URL first, then the root one; a server at the root has only the root one.
#[test]
fn protected_resource_metadata_is_looked_for_path_first_then_root() {
    assert_eq!(
        protected_resource_metadata_urls(&server("https://example.com/public/mcp?key=1")),
        [
            "https://example.com/.well-known/oauth-protected-resource/public/mcp",
            "https://example.com/.well-known/oauth-protected-resource",
        ]
    );
    assert_eq!(
        protected_resource_metadata_urls(&server("https://example.com/")),
        ["https://example.com/.well-known/oauth-protected-resource"]
    );
}

/// The spec's "Authorization Server Metadata Discovery": for an issuer with a path, RFC 8414 path
/// insertion, OpenID Connect path insertion, OpenID Connect path appending; without a path, the
/// RFC 8414 root, then the OpenID Connect root. A trailing slash is no path (RFC 8414 §3.1).
#[test]
fn authorization_server_metadata_is_looked_for_in_the_specs_order() {
    assert_eq!(
        authorization_server_metadata_urls("https://auth.example.com/tenant1", false).unwrap(),
        [
            "https://auth.example.com/.well-known/oauth-authorization-server/tenant1",
            "https://auth.example.com/.well-known/openid-configuration/tenant1",
            "https://auth.example.com/tenant1/.well-known/openid-configuration",
        ]
    );
    for issuer in ["https://auth.example.com", "https://auth.example.com/"] {
        assert_eq!(
            authorization_server_metadata_urls(issuer, false).unwrap(),
            [
                "https://auth.example.com/.well-known/oauth-authorization-server",
                "https://auth.example.com/.well-known/openid-configuration",
            ]
        );
    }
}

/// An issuer over plain http is refused unless local URLs are allowed (OAuth 2.1 §1.5: the
/// endpoints use TLS; RFC 8414 §3: the metadata URL MUST use https).
#[test]
fn an_http_issuer_is_refused_without_the_opt_in() {
    let refused = authorization_server_metadata_urls("http://auth.example.com", false);
    assert!(
        matches!(&refused, Err(OAuthError::Discovery(message)) if message.contains("http")),
        "{refused:?}"
    );
    assert!(authorization_server_metadata_urls("http://127.0.0.1:9000", true).is_ok());
}

const ISSUER: &str = "https://auth.example.com";

const METADATA: &str = r#"{
    "issuer": "https://auth.example.com",
    "authorization_endpoint": "https://auth.example.com/authorize",
    "token_endpoint": "https://auth.example.com/token",
    "registration_endpoint": "https://auth.example.com/register",
    "code_challenge_methods_supported": ["plain", "S256"]
}"#;

/// [`METADATA`] with `token_endpoint_auth_methods_supported` as `methods` (absent for `None`).
fn metadata_with_methods(methods: Option<&[&str]>) -> AuthorizationServer {
    let mut metadata = AuthorizationServer::read(METADATA, ISSUER, false).unwrap();
    metadata.token_auth_methods =
        methods.map(|methods| methods.iter().map(|m| m.to_string()).collect());
    metadata
}

#[test]
fn authorization_server_metadata_gives_the_endpoints() {
    assert_eq!(
        AuthorizationServer::read(METADATA, ISSUER, false).unwrap(),
        AuthorizationServer {
            issuer: "https://auth.example.com".to_owned(),
            iss_parameter_supported: false,
            authorization_endpoint: "https://auth.example.com/authorize".to_owned(),
            token_endpoint: "https://auth.example.com/token".to_owned(),
            registration_endpoint: Some("https://auth.example.com/register".to_owned()),
            token_auth_methods: None,
            client_id_metadata_documents: false,
        }
    );
}

/// MCP 2025-03-26, "Authorization Base URL" and "Fallbacks for Servers without Metadata
/// Discovery" (the conformance harness's `auth/2025-03-26-*` scenarios): a server without
/// protected resource metadata is its own authorization server at its origin, with `/authorize`,
/// `/token` and `/register` there when it has no metadata either.
#[test]
fn a_2025_03_26_server_is_its_own_authorization_server() {
    let legacy = server("https://mcp.example.com/v1/mcp?x=1");
    assert_eq!(
        legacy_authorization_base(&legacy),
        "https://mcp.example.com"
    );
    let resource = ProtectedResource::legacy(&legacy);
    assert_eq!(resource.authorization_server, "https://mcp.example.com");
    // MCP 2025-03-26 predates resource indicators: the requests name no resource.
    assert_eq!(resource.resource, None);
    let defaults = AuthorizationServer::legacy_defaults("https://mcp.example.com");
    assert_eq!(
        defaults.authorization_endpoint,
        "https://mcp.example.com/authorize"
    );
    assert_eq!(defaults.token_endpoint, "https://mcp.example.com/token");
    assert_eq!(
        defaults.registration_endpoint.as_deref(),
        Some("https://mcp.example.com/register")
    );
    assert!(!defaults.iss_parameter_supported);
    // Metadata at its root may state an issuer under a path of the same origin, not another's.
    let under_path = METADATA.replace(
        "https://auth.example.com\"",
        "https://mcp.example.com/oauth\"",
    );
    let read = AuthorizationServer::read_legacy(&under_path, "https://mcp.example.com", false);
    assert_eq!(read.unwrap().issuer, "https://mcp.example.com/oauth");
    let elsewhere = AuthorizationServer::read_legacy(METADATA, "https://mcp.example.com", false);
    assert!(
        matches!(&elsewhere, Err(OAuthError::Discovery(message)) if message.contains("is not on the MCP server's origin")),
        "{elsewhere:?}"
    );
}

/// RFC 8414 §2 (`token_endpoint_auth_methods_supported`, default `client_secret_basic`) and
/// RFC 7591 §3.2.1 (the registration names the method): a client with a secret uses the
/// registered method where the server takes it, else basic where taken or nothing is listed,
/// else post; one without a secret is public (the conformance harness's
/// `auth/token-endpoint-auth-*` and `auth/pre-registration` scenarios).
#[test]
fn the_token_endpoint_auth_method_follows_the_metadata() {
    let registered = |response: &str, methods| {
        Client::registered(response, &metadata_with_methods(methods))
            .unwrap()
            .auth
    };
    let secret = r#"{"client_id":"c","client_secret":"s"}"#;
    let says_post = r#"{"client_id":"c","client_secret":"s","token_endpoint_auth_method":"client_secret_post"}"#;
    assert_eq!(registered(secret, None), TokenAuth::Basic);
    assert_eq!(
        registered(secret, Some(&["client_secret_basic"])),
        TokenAuth::Basic
    );
    assert_eq!(
        registered(secret, Some(&["client_secret_post"])),
        TokenAuth::Post
    );
    assert_eq!(
        registered(secret, Some(&["client_secret_post", "client_secret_basic"])),
        TokenAuth::Basic
    );
    assert_eq!(
        registered(
            says_post,
            Some(&["client_secret_post", "client_secret_basic"])
        ),
        TokenAuth::Post
    );
    assert_eq!(
        registered(says_post, Some(&["client_secret_basic"])),
        TokenAuth::Basic
    );
    assert_eq!(registered(says_post, None), TokenAuth::Post);
    assert_eq!(
        registered(r#"{"client_id":"c"}"#, Some(&["client_secret_basic"])),
        TokenAuth::None
    );
    let given = Client::given(
        "pre",
        Some("shh"),
        &metadata_with_methods(Some(&["client_secret_basic"])),
    );
    assert_eq!(given.auth, TokenAuth::Basic);
    assert_eq!(
        Client::given("pre", None, &metadata_with_methods(None)).auth,
        TokenAuth::None
    );
    // Kept with its method.
    let basic_only = metadata_with_methods(Some(&["client_secret_basic"]));
    assert_eq!(Client::read(&given.to_json(), &basic_only).unwrap(), given);
}

/// A client registered before its method was kept is stored as `{client_id, client_secret}`, and
/// sent its secret by post then. At a server whose `token_endpoint_auth_methods_supported` lacks
/// `client_secret_post` (RFC 8414 §2; the conformance harness's auth/token-endpoint-auth-basic)
/// it failed every flow until the storage was cleared: read again, it authenticates as that
/// server takes. Where post is taken, or nothing is listed, it goes on as before.
#[test]
fn a_client_stored_without_its_method_follows_the_server() {
    let stored = r#"{"client_id":"c","client_secret":"s"}"#;
    let read = |methods| {
        Client::read(stored, &metadata_with_methods(methods))
            .unwrap()
            .auth
    };
    assert_eq!(read(Some(&["client_secret_basic"])), TokenAuth::Basic);
    assert_eq!(
        read(Some(&["client_secret_basic", "client_secret_post"])),
        TokenAuth::Post
    );
    assert_eq!(read(None), TokenAuth::Post);
    // A stored method the server no longer takes gives way too.
    let kept = r#"{"client_id":"c","client_secret":"s","token_endpoint_auth_method":"client_secret_post"}"#;
    let basic_only = metadata_with_methods(Some(&["client_secret_basic"]));
    assert_eq!(
        Client::read(kept, &basic_only).unwrap().auth,
        TokenAuth::Basic
    );
    let public = Client::read(r#"{"client_id":"c"}"#, &basic_only).unwrap();
    assert_eq!(public.auth, TokenAuth::None);
}

/// RFC 8414 §2: `token_endpoint_auth_methods_supported` lists what the token endpoint takes. One
/// listing neither `client_secret_basic` nor `client_secret_post` is not sent a Basic header: a
/// client with a secret authenticates as a public one where `none` is listed, else by post (the
/// MCP TypeScript SDK's `selectClientAuthMethod`, client/auth.ts, chooses alike).
#[test]
fn a_server_taking_neither_secret_method_gets_none_or_post() {
    let secret = r#"{"client_id":"c","client_secret":"s"}"#;
    let public_only = metadata_with_methods(Some(&["none"]));
    let client = Client::registered(secret, &public_only).unwrap();
    assert_eq!(client.auth, TokenAuth::None);
    let exchange = code_exchange(&client, "k", "https://app.example/cb", "v", Some("x"));
    assert_eq!(exchange.authorization, None);
    assert_eq!(
        exchange.body,
        "grant_type=authorization_code&code=k&redirect_uri=https%3A%2F%2Fapp.example%2Fcb&client_id=c&code_verifier=v&resource=x"
    );
    let jwt_only = metadata_with_methods(Some(&["private_key_jwt"]));
    assert_eq!(
        Client::given("pre", Some("shh"), &jwt_only).auth,
        TokenAuth::Post
    );
    let both = metadata_with_methods(Some(&["private_key_jwt", "none"]));
    assert_eq!(
        Client::given("pre", Some("shh"), &both).auth,
        TokenAuth::None
    );
    // An empty list is no list: RFC 8414 §2's default.
    let empty = metadata_with_methods(Some(&[]));
    assert_eq!(
        Client::given("pre", Some("shh"), &empty).auth,
        TokenAuth::Basic
    );
}

/// draft-ietf-oauth-client-id-metadata-document §3 ("Client Identifier"): the URL that is the
/// client's `client_id` has the https scheme and a path, no `.` or `..` segment, no fragment and
/// no user or password; it may have a query. The MCP TypeScript SDK refuses a root path too
/// (`isHttpsUrl`, shared/auth.ts). The URL goes out as it was given, so a fragment the URL
/// policy would drop is refused rather than sent.
#[test]
fn a_client_metadata_url_is_one_the_draft_allows() {
    for allowed in [
        "https://app.example/oauth/client.json",
        "https://app.example/client?v=2",
    ] {
        assert!(is_client_metadata_url(allowed), "{allowed}");
    }
    for refused in [
        "http://app.example/client.json",
        "https://app.example",
        "https://app.example/",
        "https://app.example/?v=2",
        "https://app.example/client.json#main",
        "https://app.example/a/../client.json",
        "https://app.example/./client.json",
        "https://app.example/a/%2E%2e/client.json",
        "https://user:pw@app.example/client.json",
        "https://127.0.0.1/client.json",
    ] {
        assert!(!is_client_metadata_url(refused), "{refused}");
    }
}

/// RFC 6749 §2.3.1: `client_secret_basic` sends the form-encoded id and secret, joined by `:`,
/// in base64 (RFC 4648 §4, padded) in `Authorization`, and neither in the body.
#[test]
fn a_basic_client_authenticates_in_the_header() {
    let client = Client {
        client_id: "my app".to_owned(),
        client_secret: Some("s:e/cret".to_owned()),
        auth: TokenAuth::Basic,
    };
    // base64("my%20app:s%3Ae%2Fcret")
    assert_eq!(
        refresh_request(&client, "r", Some("https://mcp.example.com/mcp")),
        TokenRequest {
            body: "grant_type=refresh_token&refresh_token=r&resource=https%3A%2F%2Fmcp.example.com%2Fmcp".to_owned(),
            authorization: Some("Basic bXklMjBhcHA6cyUzQWUlMkZjcmV0".to_owned()),
        }
    );
    assert!(
        !format!("{client:?}").contains("cret"),
        "no secret in Debug: {client:?}"
    );
    let padded = Client {
        client_id: "a".to_owned(),
        client_secret: Some("b".to_owned()),
        auth: TokenAuth::Basic,
    };
    let header =
        code_exchange(&padded, "c", "https://app.example/cb", "v", Some("x")).authorization;
    assert_eq!(header.as_deref(), Some("Basic YTpi"));
    let one_pad = Client {
        client_secret: Some("bc".to_owned()),
        ..padded.clone()
    };
    let header =
        code_exchange(&one_pad, "c", "https://app.example/cb", "v", Some("x")).authorization;
    assert_eq!(header.as_deref(), Some("Basic YTpiYw=="));
}

/// RFC 8414 §3.3, a MUST of the MCP spec's "Authorization Server Metadata Discovery" (SEP-2468;
/// typescript-sdk#2344 checks it): metadata is used only when its `issuer` is the issuer its
/// well-known URL was built from, but for one trailing slash, which builds the same URL (§3.1);
/// `issuer` is REQUIRED (§2).
#[test]
fn metadata_of_another_issuer_is_not_used() {
    for asked in [ISSUER, "https://auth.example.com/"] {
        let metadata = AuthorizationServer::read(METADATA, asked, false).unwrap();
        assert_eq!(metadata.issuer, ISSUER, "{asked}");
    }
    let slashed = METADATA.replace(
        r#""https://auth.example.com","#,
        r#""https://auth.example.com/","#,
    );
    assert_eq!(
        AuthorizationServer::read(&slashed, ISSUER, false)
            .unwrap()
            .issuer,
        "https://auth.example.com/"
    );
    let refused = AuthorizationServer::read(METADATA, "https://auth.example.com/tenant1", false);
    assert_eq!(
        refused,
        Err(OAuthError::Discovery(
            "the authorization server metadata's issuer `https://auth.example.com` is not `https://auth.example.com/tenant1`, the issuer it was looked up for (RFC 8414 §3.3)".to_owned()
        ))
    );
    for other in [
        "https://AUTH.example.com",
        "https://auth.example.com:443",
        "https://evil.example",
    ] {
        assert!(
            AuthorizationServer::read(METADATA, other, false).is_err(),
            "{other}"
        );
    }
    let without = METADATA.replace(r#""issuer": "https://auth.example.com","#, "");
    assert!(matches!(
        AuthorizationServer::read(&without, ISSUER, false),
        Err(OAuthError::Discovery(message)) if message.contains("no issuer")
    ));
}

/// The spec: "If `code_challenge_methods_supported` is absent, the authorization server does not
/// support PKCE and MCP clients MUST refuse to proceed"; a list without S256 is refused too, the
/// client using S256 only (RFC 7636 §4.2: S256 is mandatory to implement).
#[test]
fn metadata_without_s256_is_refused() {
    for methods in [r#"["plain"]"#, "[]", "null"] {
        let text = METADATA.replace(r#"["plain", "S256"]"#, methods);
        let refused = AuthorizationServer::read(&text, ISSUER, false);
        assert!(
            matches!(&refused, Err(OAuthError::Discovery(message)) if message.contains("S256")),
            "{methods}: {refused:?}"
        );
    }
    let absent = METADATA.replace(
        r#""code_challenge_methods_supported": ["plain", "S256"]"#,
        r#""x": 1"#,
    );
    assert!(AuthorizationServer::read(&absent, ISSUER, false).is_err());
}

/// An endpoint over http (off a local address, or without the opt-in) is refused: the token and
/// the code would travel in the clear.
#[test]
fn an_http_endpoint_in_metadata_is_refused() {
    let text = METADATA.replace(
        "https://auth.example.com/token",
        "http://auth.example.com/token",
    );
    let refused = AuthorizationServer::read(&text, ISSUER, false);
    assert!(
        matches!(&refused, Err(OAuthError::Discovery(message)) if message.contains("token_endpoint") && message.contains("http")),
        "{refused:?}"
    );
    let local = METADATA.replace("https://auth.example.com/token", "http://127.0.0.1:9/token");
    assert!(AuthorizationServer::read(&local, ISSUER, false).is_err());
    assert_eq!(
        AuthorizationServer::read(&local, ISSUER, true)
            .unwrap()
            .token_endpoint,
        "http://127.0.0.1:9/token"
    );
}

/// RFC 9728 §2: `authorization_servers` and `resource`; a resource that is not this server, or
/// a prefix of it, is refused (§3.3); none makes the server's canonical URI the resource; no
/// authorization server makes the metadata unusable.
#[test]
fn protected_resource_metadata_names_the_issuer_and_the_resource() {
    let mcp = server("https://mcp.example.com/v1/mcp");
    let read = ProtectedResource::read(
        r#"{"resource":"https://mcp.example.com/v1/","authorization_servers":["https://auth.example.com","https://other"],"scopes_supported":["a","b"]}"#,
        &mcp,
    )
    .unwrap()
    .unwrap();
    assert_eq!(
        read,
        ProtectedResource {
            authorization_server: "https://auth.example.com".to_owned(),
            resource: Some("https://mcp.example.com/v1".to_owned()),
            scopes_supported: Some("a b".to_owned()),
        }
    );
    assert_eq!(chosen_scope(Some("c"), &read), Some("c"));
    assert_eq!(chosen_scope(None, &read), Some("a b"));
    let without = ProtectedResource::read(r#"{"authorization_servers":["https://a"]}"#, &mcp)
        .unwrap()
        .unwrap();
    assert_eq!(
        without.resource.as_deref(),
        Some("https://mcp.example.com/v1/mcp")
    );
    assert_eq!(chosen_scope(None, &without), None);
    for other in [
        "https://evil.example.com/v1/mcp",
        "https://mcp.example.com/v1/mcpx",
    ] {
        let text = format!(r#"{{"resource":"{other}","authorization_servers":["https://a"]}}"#);
        assert!(ProtectedResource::read(&text, &mcp).is_err(), "{other}");
    }
    // The TypeScript SDK takes metadata naming no authorization server as none (src/client/auth.ts,
    // `authInternal`), an HTML page answered 200 by a catch-all route too: `None`, not a failure.
    for unusable in [
        r#"{"authorization_servers":[]}"#,
        r#"{"resource":"https://mcp.example.com/v1/mcp"}"#,
        "<!doctype html><title>App</title>",
    ] {
        assert_eq!(
            ProtectedResource::read(unusable, &mcp),
            Ok(None),
            "{unusable}"
        );
    }
}

/// The spec's "Canonical Server URI": lowercase scheme and host, no query, no trailing slash.
#[test]
fn the_canonical_resource_has_no_query_and_no_trailing_slash() {
    assert_eq!(
        canonical_resource(&server("HTTPS://MCP.Example.com/mcp/?key=1")),
        "https://mcp.example.com/mcp"
    );
    assert_eq!(
        canonical_resource(&server("https://mcp.example.com")),
        "https://mcp.example.com"
    );
}

/// RFC 7591 §2 metadata of a public browser client.
#[test]
fn the_registration_request_is_a_public_client() {
    assert_eq!(
        registration_request("My app", "https://app.example/cb"),
        r#"{"client_name":"My app","redirect_uris":["https://app.example/cb"],"grant_types":["authorization_code","refresh_token"],"response_types":["code"],"token_endpoint_auth_method":"none"}"#
    );
    let metadata = AuthorizationServer::read(METADATA, ISSUER, false).unwrap();
    let client = Client::read(r#"{"client_id":"c1","client_id_issued_at":1}"#, &metadata).unwrap();
    assert_eq!(client.client_id, "c1");
    assert_eq!(Client::read(&client.to_json(), &metadata).unwrap(), client);
    assert!(matches!(
        Client::read(r#"{"error":"invalid_client_metadata"}"#, &metadata),
        Err(OAuthError::Registration(_))
    ));
}

/// RFC 7636 Appendix B: the verifier `dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk`, whose SHA-256
/// digest (the octets listed there) encodes to `E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM`.
#[test]
fn s256_encoding_of_rfc_7636_appendix_b() {
    let digest = [
        19, 211, 30, 150, 26, 26, 216, 236, 47, 22, 177, 12, 76, 152, 46, 8, 118, 168, 120, 173,
        109, 241, 68, 86, 110, 225, 137, 74, 203, 112, 249, 195,
    ];
    assert_eq!(
        base64url(&digest),
        "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM"
    );
    // The verifier itself is base64url of the 32 random octets of Appendix B.
    let random = [
        116, 24, 223, 180, 151, 153, 224, 37, 79, 250, 96, 125, 216, 173, 187, 186, 22, 212, 37,
        77, 105, 214, 191, 240, 91, 88, 5, 88, 83, 132, 141, 121,
    ];
    assert_eq!(
        base64url(&random),
        "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk"
    );
    assert_eq!(base64url(b"f"), "Zg");
    assert_eq!(base64url(b"fo"), "Zm8");
    assert_eq!(base64url(&[0xfb, 0xff]), "-_8");
}

/// RFC 6749 §4.1.1 with RFC 7636 §4.3 and RFC 8707 §2, values form-encoded; the endpoint's own
/// query is kept.
#[test]
fn the_authorization_url_exactly() {
    let request = AuthorizationRequest {
        client_id: "client 1",
        redirect_uri: "https://app.example/oauth-callback.html",
        code_challenge: "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM",
        state: "s-1",
        scope: Some("mcp:tools mcp:admin"),
        resource: Some("https://mcp.example.com/mcp"),
    };
    assert_eq!(
        authorization_url("https://auth.example.com/authorize", &request),
        "https://auth.example.com/authorize?response_type=code&client_id=client%201&redirect_uri=https%3A%2F%2Fapp.example%2Foauth-callback.html&code_challenge=E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM&code_challenge_method=S256&state=s-1&scope=mcp%3Atools%20mcp%3Aadmin&resource=https%3A%2F%2Fmcp.example.com%2Fmcp"
    );
    let no_scope = AuthorizationRequest {
        scope: None,
        ..request
    };
    assert_eq!(
        authorization_url("https://a.example/auth?tenant=x", &no_scope),
        "https://a.example/auth?tenant=x&response_type=code&client_id=client%201&redirect_uri=https%3A%2F%2Fapp.example%2Foauth-callback.html&code_challenge=E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM&code_challenge_method=S256&state=s-1&resource=https%3A%2F%2Fmcp.example.com%2Fmcp"
    );
    let no_resource = AuthorizationRequest {
        resource: None,
        ..no_scope
    };
    assert_eq!(
        authorization_url("https://a.example/auth", &no_resource),
        "https://a.example/auth?response_type=code&client_id=client%201&redirect_uri=https%3A%2F%2Fapp.example%2Foauth-callback.html&code_challenge=E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM&code_challenge_method=S256&state=s-1"
    );
}

/// RFC 6749 §4.1.3 and §6, RFC 7636 §4.5, RFC 8707 §2.2: the form bodies exactly.
#[test]
fn the_token_request_bodies_exactly() {
    let public = Client {
        client_id: "c1".to_owned(),
        client_secret: None,
        auth: TokenAuth::None,
    };
    let exchange = code_exchange(
        &public,
        "a/b",
        "https://app.example/cb",
        "v~1",
        Some("https://mcp.example.com/mcp"),
    );
    assert_eq!(
        exchange.body,
        "grant_type=authorization_code&code=a%2Fb&redirect_uri=https%3A%2F%2Fapp.example%2Fcb&client_id=c1&code_verifier=v~1&resource=https%3A%2F%2Fmcp.example.com%2Fmcp"
    );
    assert_eq!(exchange.authorization, None);
    assert_eq!(
        refresh_request(&public, "r+1", Some("https://mcp.example.com/mcp")).body,
        "grant_type=refresh_token&refresh_token=r%2B1&client_id=c1&resource=https%3A%2F%2Fmcp.example.com%2Fmcp"
    );
    let confidential = Client {
        client_secret: Some("s".to_owned()),
        auth: TokenAuth::Post,
        ..public
    };
    assert_eq!(
        refresh_request(&confidential, "r", Some("x")).body,
        "grant_type=refresh_token&refresh_token=r&client_id=c1&client_secret=s&resource=x"
    );
    // A server of MCP 2025-03-26 names no resource: neither request carries one.
    assert_eq!(
        code_exchange(&confidential, "a", "https://app.example/cb", "v", None).body,
        "grant_type=authorization_code&code=a&redirect_uri=https%3A%2F%2Fapp.example%2Fcb&client_id=c1&client_secret=s&code_verifier=v"
    );
    assert_eq!(
        refresh_request(&confidential, "r", None).body,
        "grant_type=refresh_token&refresh_token=r&client_id=c1&client_secret=s"
    );
}

/// RFC 6749 §4.1.2 and §4.1.2.1: the state must be ours; the server's `error` is a denial.
#[test]
fn the_redirect_gives_the_code_or_the_denial() {
    let metadata = AuthorizationServer::read(METADATA, ISSUER, false).unwrap();
    let url = "https://app.example/cb?code=a%2Fb+c&state=s1#x";
    assert_eq!(read_redirect(url, "s1", &metadata).unwrap(), "a/b c");
    assert_eq!(
        read_redirect(url, "s2", &metadata),
        Err(OAuthError::StateMismatch)
    );
    assert_eq!(
        read_redirect("https://app.example/cb?code=c", "s1", &metadata),
        Err(OAuthError::StateMismatch)
    );
    let denied = read_redirect(
        "https://app.example/cb?error=access_denied&error_description=the+user+said+no&state=s1",
        "s1",
        &metadata,
    )
    .unwrap_err();
    assert_eq!(
        denied,
        OAuthError::Denied("access_denied (the user said no)".to_owned())
    );
    assert_eq!(
        denied.to_string(),
        "the authorization was refused: access_denied (the user said no)"
    );
    assert!(matches!(
        read_redirect("https://app.example/cb?state=s1", "s1", &metadata),
        Err(OAuthError::Denied(_))
    ));
}

/// The WHATWG application/x-www-form-urlencoded parser (URL standard §5.1): `+` is a space, and
/// only `%` followed by two hex digits is a byte; any other `%` (`%+1`, `%zz`, a `%2` at the end)
/// stays as written rather than being read as a number.
#[test]
fn a_redirect_value_decodes_only_whole_escapes() {
    let metadata = AuthorizationServer::read(METADATA, ISSUER, false).unwrap();
    let code_of = |code: &str| {
        read_redirect(
            &format!("https://app.example/cb?state=s1&code={code}"),
            "s1",
            &metadata,
        )
        .unwrap()
    };
    assert_eq!(code_of("%+1"), "% 1");
    assert_eq!(code_of("%zz%41"), "%zzA");
    assert_eq!(code_of("a%2"), "a%2");
    assert_eq!(code_of("%C3%A9+%e2%82%ac"), "é €");
    assert_eq!(code_of("%FF"), "\u{FFFD}");
}

/// RFC 9207 §2.4: a present `iss` must equal the metadata's `issuer` by simple string
/// comparison (no trailing-slash or case folding), before the code or the error is read; §3:
/// a server whose metadata says `authorization_response_iss_parameter_supported: true` must send
/// it; one that does not say so may leave it out.
#[test]
fn the_redirects_issuer_must_be_the_authorization_servers() {
    let metadata = AuthorizationServer::read(METADATA, ISSUER, false).unwrap();
    let sends_iss = METADATA.replace(
        r#""issuer":"#,
        r#""authorization_response_iss_parameter_supported": true, "issuer":"#,
    );
    let sends_iss = AuthorizationServer::read(&sends_iss, ISSUER, false).unwrap();
    assert!(sends_iss.iss_parameter_supported && !metadata.iss_parameter_supported);
    let answer = |query: &str, server: &AuthorizationServer| {
        read_redirect(&format!("https://app.example/cb?{query}"), "s1", server)
    };
    let ours = "code=c&state=s1&iss=https%3A%2F%2Fauth.example.com";
    assert_eq!(answer(ours, &metadata).unwrap(), "c");
    assert_eq!(answer(ours, &sends_iss).unwrap(), "c");
    assert_eq!(answer("code=c&state=s1", &metadata).unwrap(), "c");
    let is_mismatch = |result: Result<String, OAuthError>| matches!(result, Err(OAuthError::IssuerMismatch(message)) if message.contains("RFC 9207"));
    assert!(is_mismatch(answer("code=c&state=s1", &sends_iss)));
    for other in [
        "https%3A%2F%2Fevil.example",
        "https%3A%2F%2Fauth.example.com%2F",
        "https%3A%2F%2FAUTH.example.com",
        "",
    ] {
        let query = format!("code=c&state=s1&iss={other}");
        assert!(is_mismatch(answer(&query, &metadata)), "{other}");
    }
    // An error from another server is not taken for the intended one's denial.
    let denied_elsewhere = "error=access_denied&state=s1&iss=https%3A%2F%2Fevil.example";
    assert!(is_mismatch(answer(denied_elsewhere, &metadata)));
    // The state is checked first: an answer to another request says so, whatever its iss.
    assert_eq!(
        answer("code=c&state=s2&iss=https%3A%2F%2Fevil.example", &metadata),
        Err(OAuthError::StateMismatch)
    );
    let message = answer("code=c&state=s1&iss=https%3A%2F%2Fevil.example", &metadata)
        .unwrap_err()
        .to_string();
    assert_eq!(message, "the redirect's iss `https://evil.example` is not the authorization server's issuer `https://auth.example.com`: refused as a mix-up (RFC 9207)");
}

/// The redirect page's `BroadcastChannel` message reaches every flow of the origin: each takes
/// only the answer carrying its own `state`, decoded as the query writes it.
#[test]
fn the_redirect_names_its_state() {
    let url = "https://app.example/cb?code=c&state=a%2Bb%3D#state=fragment";
    assert_eq!(redirect_state(url).as_deref(), Some("a+b="));
    assert_eq!(
        redirect_state("https://app.example/cb?error=access_denied&state=s1").as_deref(),
        Some("s1")
    );
    assert_eq!(redirect_state("https://app.example/cb?code=c"), None);
    assert_eq!(redirect_state("https://app.example/cb#state=s1"), None);
}

/// RFC 6749 §5.1: `expires_in` seconds from the response's arrival; §6: a refresh that returns
/// no refresh token keeps the old one; §5.2: an error names its code, never a token.
#[test]
fn token_responses_and_expiry() {
    let now = 1_000_000;
    let tokens = Tokens::from_response(
        200,
        r#"{"access_token":"at","token_type":"Bearer","expires_in":3600,"refresh_token":"rt"}"#,
        now,
        None,
    )
    .unwrap();
    assert_eq!(tokens.expires_at, Some(now + 3_600_000));
    assert_eq!(tokens.refresh_token.as_deref(), Some("rt"));
    assert!(!tokens.is_expired(now + 3_600_000 - EXPIRY_MARGIN_MS - 1));
    assert!(tokens.is_expired(now + 3_600_000 - EXPIRY_MARGIN_MS));
    let grant = Grant {
        tokens: tokens.clone(),
        token_endpoint: "https://a.example/token".to_owned(),
        resource: Some("https://mcp.example.com/mcp".to_owned()),
        client: Client {
            client_id: "c1".to_owned(),
            client_secret: None,
            auth: TokenAuth::None,
        },
    };
    assert_eq!(
        grant.to_json(),
        r#"{"access_token":"at","refresh_token":"rt","expires_at":4600000,"token_endpoint":"https://a.example/token","resource":"https://mcp.example.com/mcp","client_id":"c1","token_endpoint_auth_method":"none"}"#
    );
    assert_eq!(Grant::from_json(&grant.to_json()), Some(grant.clone()));
    let for_no_resource = Grant {
        resource: None,
        ..grant.clone()
    };
    assert!(!for_no_resource.to_json().contains("resource"));
    assert_eq!(
        Grant::from_json(&for_no_resource.to_json()),
        Some(for_no_resource)
    );
    assert_eq!(Grant::from_json(r#"{"access_token":"at"}"#), None);
    assert!(
        !format!("{tokens:?}{grant:?}").contains("at"),
        "no token in Debug"
    );

    let refreshed =
        Tokens::from_response(200, r#"{"access_token":"at2"}"#, now, Some("rt")).unwrap();
    assert_eq!(refreshed.refresh_token.as_deref(), Some("rt"));
    assert_eq!(refreshed.expires_at, None);
    assert!(!refreshed.is_expired(u64::MAX));

    let refused = Tokens::from_response(
        400,
        r#"{"error":"invalid_grant","error_description":"expired"}"#,
        now,
        None,
    );
    assert_eq!(
        refused.unwrap_err().to_string(),
        "the token endpoint answered 400: invalid_grant (expired)"
    );
    let odd = Tokens::from_response(500, r#"{"access_token":"secret"}"#, now, None).unwrap_err();
    assert!(!odd.to_string().contains("secret"), "{odd}");
}

/// A refresh refused by the token endpoint (RFC 6749 §5.2: `invalid_grant` 400, `invalid_client`
/// 401, any other 4xx) makes the flow run again; a server error, a timeout, a rate limit
/// (RFC 6585 §4) or a 2xx that holds no tokens keeps the tokens for a later try.
#[test]
fn a_refused_refresh_is_final_a_server_error_is_not() {
    for status in [400, 401, 403, 404, 302] {
        assert!(!refresh_failure_is_transient(status), "{status}");
    }
    for status in [200, 204, 408, 429, 500, 502, 503, 504, 599] {
        assert!(refresh_failure_is_transient(status), "{status}");
    }
}
