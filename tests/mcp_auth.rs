#![cfg(not(target_arch = "wasm32"))]
//! `WWW-Authenticate` read for the MCP authorization spec's Bearer challenge (2025-06-18 and
//! 2025-11-25: `resource_metadata` of RFC 9728 §5.1, `scope` and `error="insufficient_scope"` of
//! RFC 6750 §3), with the grammar of RFC 9110 §11.6.1.

use mcp_agent_wasm::core::mcp::auth::{bearer_challenge, AuthFailure, BearerChallenge, Challenge};

fn challenge(
    resource_metadata: Option<&str>,
    scope: Option<&str>,
    error: Option<&str>,
    error_description: Option<&str>,
) -> BearerChallenge {
    BearerChallenge {
        resource_metadata: resource_metadata.map(str::to_owned),
        scope: scope.map(str::to_owned),
        error: error.map(str::to_owned),
        error_description: error_description.map(str::to_owned),
    }
}

const METADATA: &str = "https://mcp.example.com/.well-known/oauth-protected-resource";

#[test]
fn the_bearer_challenge_of_the_specs_examples_is_read() {
    let cases = [
        // RFC 9728 §5.1's example.
        (
            format!(r#"Bearer resource_metadata="{METADATA}""#),
            challenge(Some(METADATA), None, None, None),
        ),
        // MCP 2025-11-25, "Scope Challenge Handling".
        (
            format!(
                "Bearer error=\"insufficient_scope\",\r\n                         \
                 scope=\"files:read files:write\", resource_metadata=\"{METADATA}\", \
                 error_description=\"Additional file write permission required\""
            )
            .replace("\r\n", ""),
            challenge(
                Some(METADATA),
                Some("files:read files:write"),
                Some("insufficient_scope"),
                Some("Additional file write permission required"),
            ),
        ),
        // RFC 6750 §3's example, with a token for `error`.
        (
            r#"Bearer realm="example", error=invalid_token, error_description="The access token expired""#
                .to_owned(),
            challenge(None, None, Some("invalid_token"), Some("The access token expired")),
        ),
        ("Bearer".to_owned(), BearerChallenge::default()),
    ];
    for (header, expected) in cases {
        assert_eq!(bearer_challenge(&header), Some(expected), "{header}");
    }
}

#[test]
fn scheme_and_parameter_names_are_case_insensitive_and_spacing_is_free() {
    let headers = [
        "bearer SCOPE=a, Resource_Metadata=\"m\"",
        "BEARER   scope =  a ,resource_metadata= \"m\"  ",
        "Bearer\tscope=\"a\",,  , resource_metadata=m",
        "  ,Bearer scope=a,resource_metadata=m,",
    ];
    for header in headers {
        assert_eq!(
            bearer_challenge(header),
            Some(challenge(Some("m"), Some("a"), None, None)),
            "{header}"
        );
    }
}

#[test]
fn the_bearer_challenge_is_found_among_others() {
    let cases = [
        (r#"Basic realm="a, b", Bearer scope="s""#, Some("s")),
        (r#"Basic dXNlcjpwYXNz, Bearer scope=s"#, Some("s")),
        (r#"Basic YQ==, Bearer scope=s"#, Some("s")),
        (
            r#"Bearer scope="s", DPoP algs="ES256", Bearer scope="later""#,
            Some("s"),
        ),
        (
            r#"Newauth realm="apps", type=1, title="Login to \"apps\"", Bearer scope=s"#,
            Some("s"),
        ),
        (r#"Bearer scope="first", scope="second""#, Some("first")),
    ];
    for (header, scope) in cases {
        let found = bearer_challenge(header).expect(header);
        assert_eq!(found.scope.as_deref(), scope, "{header}");
    }
    assert_eq!(bearer_challenge(r#"Basic realm="x", DPoP"#), None);
    assert_eq!(bearer_challenge(""), None);
    // A scheme named like it, not it.
    assert_eq!(bearer_challenge("Bearerish scope=s"), None);
}

#[test]
fn quoted_strings_keep_commas_and_equals_and_undo_escapes() {
    let found = bearer_challenge(
        r#"Bearer error_description="a, b=c \"q\" \\ \é", resource_metadata="https://h/p?x=1,2""#,
    )
    .expect("a challenge");
    assert_eq!(
        found.error_description.as_deref(),
        Some(r#"a, b=c "q" \ é"#)
    );
    assert_eq!(
        found.resource_metadata.as_deref(),
        Some("https://h/p?x=1,2")
    );
}

#[test]
fn a_token68_bearer_has_no_parameters() {
    assert_eq!(
        bearer_challenge("Bearer abc-._~+/=="),
        Some(BearerChallenge::default())
    );
}

/// An empty or all-space `scope` names no scope (RFC 6750 §3: `scope` is one or more
/// scope-tokens separated by spaces, each of at least one character), so it is read as absent:
/// no `scope` on the error, none in its message.
#[test]
fn an_empty_scope_is_no_scope() {
    for header in [
        r#"Bearer error="insufficient_scope", scope="""#,
        "Bearer error=\"insufficient_scope\", scope=\" \t \"",
    ] {
        let found = bearer_challenge(header).expect(header);
        assert_eq!(
            found,
            challenge(None, None, Some("insufficient_scope"), None),
            "{header}"
        );
        let failure = AuthFailure {
            server: "http://127.0.0.1:9/mcp".to_owned(),
            status: Some(403),
            challenge: Challenge::of_header(Some(header)),
            token_note: "no getAccessToken".to_owned(),
        };
        assert_eq!(
            failure.to_string(),
            "http://127.0.0.1:9/mcp answered HTTP 403 (error `insufficient_scope`): no getAccessToken"
        );
    }
}

#[test]
fn insufficient_scope_is_told_apart() {
    let forbidden = bearer_challenge(r#"Bearer error="insufficient_scope""#).expect("a challenge");
    assert!(forbidden.is_insufficient_scope());
    let invalid = bearer_challenge("Bearer error=invalid_token").expect("a challenge");
    assert!(!invalid.is_insufficient_scope());
}

/// Malformed headers keep what was read before the fault and never panic.
#[test]
fn malformed_headers_keep_what_came_before_the_fault() {
    let cases = [
        (
            r#"Bearer scope="unterminated"#,
            Some(BearerChallenge::default()),
        ),
        (
            r#"Bearer scope="s", error="x\"#,
            Some(challenge(None, Some("s"), None, None)),
        ),
        (
            r#"Bearer scope=s error=e"#,
            Some(challenge(None, Some("s"), None, None)),
        ),
        (
            r#"Bearer scope="s"x, error=e"#,
            Some(challenge(None, Some("s"), None, None)),
        ),
        // `name = value` with spaces around `=` (RFC 9110's BWS) is a parameter, not a scheme.
        (r#"Bearer =s"#, None),
        (r#"Bearer, =s"#, Some(BearerChallenge::default())),
        (r#"Bearer scope="#, Some(BearerChallenge::default())),
        (r#"Basic realm="unterminated, Bearer scope=s"#, None),
        (r#"=, Bearer scope=s"#, None),
        (
            "Bearer scope=\"é\u{0}\"",
            Some(challenge(None, Some("é\u{0}"), None, None)),
        ),
    ];
    for (header, expected) in cases {
        assert_eq!(bearer_challenge(header), expected, "{header}");
    }
    for length in 0..40 {
        let header = r#"Basic a==, Bearer scope="x\"y", error=e,  resource_metadata="ü""#;
        let cut: String = header.chars().take(length).collect();
        let _ = bearer_challenge(&cut);
    }
}
