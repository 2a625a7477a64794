//! The URL policy on arbitrary text (first line: a server URL, second line: a legacy `endpoint`;
//! first byte: whether insecure local URLs are allowed). Checked: no panic; a URL that passes is
//! https and not local unless allowed; the normalized `href` the library fetches is judged the
//! same when checked again (same scheme, host and port); an accepted endpoint stays on the
//! server's origin.
#![no_main]

use libfuzzer_sys::fuzz_target;
use mcp_agent_wasm::core::url_policy::{check_legacy_endpoint, check_server_url, CheckedUrl};

fn assert_stable(checked: &CheckedUrl, allow_insecure_local_urls: bool) {
    let href = checked.href();
    let again = check_server_url(&href, allow_insecure_local_urls).unwrap_or_else(|error| {
        panic!("the accepted {href:?} is refused when checked again: {error}")
    });
    assert_eq!(
        (&again.scheme, &again.host, again.port),
        (&checked.scheme, &checked.host, checked.port),
        "{href:?} names another server when parsed again"
    );
    if !allow_insecure_local_urls {
        assert_eq!(checked.scheme, "https", "{href:?} passed without https");
    }
}

fuzz_target!(|data: &[u8]| {
    let Some((&flags, text)) = data.split_first() else {
        return;
    };
    let allow_insecure_local_urls = flags & 1 != 0;
    let text = String::from_utf8_lossy(text);
    let (url, endpoint) = text
        .split_once('\n')
        .unwrap_or((&text, "/message?sessionId=1"));
    let Ok(server) = check_server_url(url, allow_insecure_local_urls) else {
        return;
    };
    assert_stable(&server, allow_insecure_local_urls);
    if let Ok(resolved) = check_legacy_endpoint(&server, endpoint, allow_insecure_local_urls) {
        assert_eq!(
            resolved.origin(),
            server.origin(),
            "{endpoint:?} left the server's origin"
        );
        assert_stable(&resolved, allow_insecure_local_urls);
    }
});
