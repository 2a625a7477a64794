//! What `browserOAuth` reads from servers it does not control, as arbitrary text: protected
//! resource metadata, authorization server metadata (for a named issuer and as an MCP 2025-03-26
//! server's), registration and token responses, the redirect URL, and what storage gave back.
//! Checked: no panic; a resource read is the server's URL or a prefix of it; metadata read for
//! an issuer states that issuer; a client and a grant read back from the form they are stored in
//! are the same client and grant; a token read has an access token.
#![no_main]

use libfuzzer_sys::fuzz_target;
use mcp_agent_wasm::core::oauth::{
    canonical_resource, read_redirect, redirect_state, AuthorizationServer, Client, Grant,
    ProtectedResource, Tokens,
};
use mcp_agent_wasm::core::url_policy::check_server_url;

const SERVER: &str = "https://mcp.example.com/api/mcp";
const ISSUER: &str = "https://auth.example.com/tenant";

fuzz_target!(|data: &[u8]| {
    let Some((&selector, rest)) = data.split_first() else {
        return;
    };
    let text = String::from_utf8_lossy(rest);
    let server = check_server_url(SERVER, false).expect("a valid server URL");

    if let Ok(Some(read)) = ProtectedResource::read(&text, &server) {
        let canonical = canonical_resource(&server);
        let resource = read.resource.expect("metadata always names the resource");
        assert!(
            canonical == resource || canonical.starts_with(&format!("{resource}/")),
            "{resource} is not {canonical} or a prefix of it"
        );
    }
    if let Ok(metadata) = AuthorizationServer::read(&text, ISSUER, selector & 1 == 1) {
        let stated = &metadata.issuer;
        assert_eq!(stated.strip_suffix('/').unwrap_or(stated), ISSUER);
    }
    let _ = AuthorizationServer::read_legacy(&text, &server.origin(), selector & 1 == 1);

    let authorization_server = AuthorizationServer::legacy_defaults("https://mcp.example.com");
    for client in [
        Client::registered(&text, &authorization_server),
        Client::read(&text, &authorization_server),
    ]
    .into_iter()
    .flatten()
    {
        let stored = client.to_json();
        let read_back = Client::read(&stored, &authorization_server).ok();
        assert!(read_back.as_ref() == Some(&client), "{stored}");
    }
    let status = [200, 201, 400, 401, 500][usize::from(selector >> 5) % 5];
    if let Ok(tokens) = Tokens::from_response(status, &text, 1_000, Some("earlier")) {
        assert!(!tokens.access_token.is_empty());
        assert!((200..300).contains(&status));
    }
    if let Some(grant) = Grant::from_json(&text) {
        let stored = grant.to_json();
        assert!(Grant::from_json(&stored) == Some(grant), "{stored}");
    }
    let _ = redirect_state(&text);
    let _ = read_redirect(&text, "state", &authorization_server);
});
