#![cfg(not(target_arch = "wasm32"))]
//! The URL policy, checked with every form the issue lists. Expected normalized hosts are the
//! ones a browser's URL parser produces (WHATWG URL Standard, IPv4 parser).

use mcp_agent_wasm::core::url_policy::{check_legacy_endpoint, check_server_url};

/// (input, expected: Ok(normalized href) or Err(error code)), without the opt-in.
const DEFAULT_POLICY: &[(&str, Result<&str, &str>)] = &[
    (
        "https://mcp.example.com/mcp",
        Ok("https://mcp.example.com/mcp"),
    ),
    (
        "HTTPS://MCP.Example.COM:443/mcp?x=1#frag",
        Ok("https://mcp.example.com/mcp?x=1"),
    ),
    (
        "https://mcp.example.com:8443",
        Ok("https://mcp.example.com:8443/"),
    ),
    ("https://8.8.8.8/mcp", Ok("https://8.8.8.8/mcp")),
    ("https://134744072/mcp", Ok("https://8.8.8.8/mcp")),
    (
        "https://[2001:4860:4860::8888]/mcp",
        Ok("https://[2001:4860:4860::8888]/mcp"),
    ),
    // Written as `new URL(…).href` writes them (WHATWG URL, IPv6 serializer): hex pieces, never
    // dotted, the first longest run of two or more zero pieces as `::`.
    ("https://[::ffff:8.8.8.8]/", Ok("https://[::ffff:808:808]/")),
    (
        "https://[2001:DB8:0:0:1:0:0:1]/",
        Ok("https://[2001:db8::1:0:0:1]/"),
    ),
    ("https://[1:0:0:2:0:0:0:3]/", Ok("https://[1:0:0:2::3]/")),
    ("https://[1:0:0:0:0:0:0:0]/", Ok("https://[1::]/")),
    (
        "https://[a:0:b:0:c:0:d:0]/",
        Ok("https://[a:0:b:0:c:0:d:0]/"),
    ),
    ("https://100.128.0.1/", Ok("https://100.128.0.1/")),
    ("https://172.32.0.1/", Ok("https://172.32.0.1/")),
    ("https://169.255.0.1/", Ok("https://169.255.0.1/")),
    ("https://notlocalhost/", Ok("https://notlocalhost/")),
    (
        "https://localhost.example.com/",
        Ok("https://localhost.example.com/"),
    ),
    (
        "https:\\\\mcp.example.com\\a\\b",
        Ok("https://mcp.example.com/a/b"),
    ),
    (
        "  https://mcp.example.com/\tmcp\n",
        Ok("https://mcp.example.com/mcp"),
    ),
    // Schemes.
    ("http://mcp.example.com/mcp", Err("url_insecure_http")),
    ("ftp://mcp.example.com/", Err("url_scheme_not_allowed")),
    ("file:///etc/passwd", Err("url_scheme_not_allowed")),
    ("javascript:alert(1)", Err("url_scheme_not_allowed")),
    ("data:text/plain,hi", Err("url_scheme_not_allowed")),
    ("ws://mcp.example.com/", Err("url_scheme_not_allowed")),
    ("mcp.example.com/mcp", Err("url_invalid")),
    ("", Err("url_invalid")),
    ("https://", Err("url_invalid")),
    ("https://host:99999/", Err("url_invalid")),
    ("https://host:12ab/", Err("url_invalid")),
    ("https://user:pass@mcp.example.com/", Err("url_credentials")),
    ("https://mcp.example.com@127.0.0.1/", Err("url_credentials")),
    ("https://ｅｘａｍｐｌｅ.com/", Err("url_non_ascii_host")),
    // Private and special IPv4 ranges.
    ("https://0.0.0.0/", Err("url_local_address")),
    ("https://0.1.2.3/", Err("url_local_address")),
    ("https://10.0.0.1/", Err("url_local_address")),
    ("https://10.255.255.255/", Err("url_local_address")),
    ("https://100.64.0.1/", Err("url_local_address")),
    ("https://100.127.255.255/", Err("url_local_address")),
    ("https://127.0.0.1/", Err("url_local_address")),
    ("https://127.255.0.9:8443/mcp", Err("url_local_address")),
    (
        "https://169.254.169.254/latest/meta-data",
        Err("url_local_address"),
    ),
    ("https://172.16.0.1/", Err("url_local_address")),
    ("https://172.31.255.255/", Err("url_local_address")),
    ("https://192.168.1.1/", Err("url_local_address")),
    // Obfuscated IPv4 forms, parsed as a browser does.
    ("https://2130706433/", Err("url_local_address")),
    ("https://0x7f000001/", Err("url_local_address")),
    ("https://0x7f.0.0.1/", Err("url_local_address")),
    ("https://0X7F.1/", Err("url_local_address")),
    ("https://0177.0.0.1/", Err("url_local_address")),
    ("https://017700000001/", Err("url_local_address")),
    ("https://127.1/", Err("url_local_address")),
    ("https://127.0.1/", Err("url_local_address")),
    ("https://10.1/", Err("url_local_address")),
    ("https://192.168.257/", Err("url_local_address")),
    ("https://0xa9.0xfe.0xa9.0xfe/", Err("url_local_address")),
    ("https://127.0.0.1./", Err("url_local_address")),
    ("https://127.0.0.%31/", Err("url_local_address")),
    ("https://0x/", Err("url_local_address")),
    ("https://0/", Err("url_local_address")),
    ("https:127.0.0.1/", Err("url_local_address")),
    ("https:////127.0.0.1/", Err("url_local_address")),
    // Hosts that end in a number but are no valid IPv4: the browser rejects the URL.
    ("https://256.256.256.256/", Err("url_invalid")),
    ("https://1.2.3.4.5/", Err("url_invalid")),
    ("https://127.0.0.0x100/", Err("url_invalid")),
    ("https://09.0.0.1/", Err("url_invalid")),
    ("https://example.123/", Err("url_invalid")),
    ("https://4294967296/", Err("url_invalid")),
    // IPv6.
    ("https://[::]/", Err("url_local_address")),
    ("https://[::1]/", Err("url_local_address")),
    ("https://[0:0:0:0:0:0:0:1]:8443/", Err("url_local_address")),
    ("https://[fc00::1]/", Err("url_local_address")),
    ("https://[fd12:3456::1]/", Err("url_local_address")),
    ("https://[fe80::1]/", Err("url_local_address")),
    ("https://[febf::1]/", Err("url_local_address")),
    ("https://[::ffff:127.0.0.1]/", Err("url_local_address")),
    ("https://[::ffff:7f00:1]/", Err("url_local_address")),
    ("https://[::ffff:10.0.0.1]/", Err("url_local_address")),
    ("https://[::ffff:192.168.0.1]/", Err("url_local_address")),
    (
        "https://[::ffff:169.254.169.254]/",
        Err("url_local_address"),
    ),
    ("https://[::1/", Err("url_invalid")),
    ("https://[not:an:address]/", Err("url_invalid")),
    // localhost names.
    ("https://localhost/", Err("url_local_address")),
    ("https://LOCALHOST:3000/mcp", Err("url_local_address")),
    ("https://localhost./", Err("url_local_address")),
    ("https://mcp.localhost/", Err("url_local_address")),
    ("https://a.b.localhost./", Err("url_local_address")),
];

fn outcome(url: &str, allow_insecure_local_urls: bool) -> Result<String, &'static str> {
    check_server_url(url, allow_insecure_local_urls)
        .map(|checked| checked.href())
        .map_err(|error| error.code())
}

#[test]
fn default_policy_judges_every_form_like_a_browser() {
    let failures: Vec<String> = DEFAULT_POLICY
        .iter()
        .filter_map(|(url, expected)| {
            let expected = expected.map(str::to_owned);
            let actual = outcome(url, false);
            (actual != expected).then(|| format!("{url:?}: expected {expected:?}, got {actual:?}"))
        })
        .collect();
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// (input, expected) with `allowInsecureLocalUrls: true`: http and local targets pass; other
/// schemes, credentials and unparsable hosts still do not.
const INSECURE_OPT_IN: &[(&str, Result<&str, &str>)] = &[
    ("http://127.0.0.1:3001/mcp", Ok("http://127.0.0.1:3001/mcp")),
    ("http://localhost:80/mcp", Ok("http://localhost/mcp")),
    ("https://0x7f.1/", Ok("https://127.0.0.1/")),
    ("http://[::1]:9000/sse", Ok("http://[::1]:9000/sse")),
    ("http://192.168.0.10/", Ok("http://192.168.0.10/")),
    ("https://mcp.example.com/", Ok("https://mcp.example.com/")),
    ("ftp://127.0.0.1/", Err("url_scheme_not_allowed")),
    ("http://user@127.0.0.1/", Err("url_credentials")),
    ("http://1.2.3.4.5/", Err("url_invalid")),
];

#[test]
fn opt_in_allows_http_and_local_targets_only() {
    for (url, expected) in INSECURE_OPT_IN {
        assert_eq!(outcome(url, true), expected.map(str::to_owned), "{url}");
    }
}

#[test]
fn error_messages_say_how_to_fix_a_local_address() {
    let error = check_server_url("https://127.1/", false).unwrap_err();
    assert_eq!(
        error.to_string(),
        "host `127.0.0.1` is a local or private address; set allowInsecureLocalUrls to allow it"
    );
}

/// (server URL, endpoint event data, expected endpoint href or error code).
const LEGACY_ENDPOINTS: &[(&str, &str, Result<&str, &str>)] = &[
    (
        "https://mcp.example.com/sse",
        "/message?sessionId=abc",
        Ok("https://mcp.example.com/message?sessionId=abc"),
    ),
    (
        "https://mcp.example.com/v1/sse",
        "message?sessionId=abc",
        Ok("https://mcp.example.com/v1/message?sessionId=abc"),
    ),
    (
        "https://mcp.example.com/sse",
        "https://mcp.example.com:443/post",
        Ok("https://mcp.example.com/post"),
    ),
    (
        "https://mcp.example.com/sse",
        "//mcp.example.com/post",
        Ok("https://mcp.example.com/post"),
    ),
    (
        "https://mcp.example.com/sse",
        "https://evil.example.com/post",
        Err("url_cross_origin"),
    ),
    (
        "https://mcp.example.com/sse",
        "//evil.example.com/post",
        Err("url_cross_origin"),
    ),
    (
        "https://mcp.example.com/sse",
        "http://mcp.example.com/post",
        Err("url_cross_origin"),
    ),
    (
        "https://mcp.example.com/sse",
        "https://mcp.example.com:8443/post",
        Err("url_cross_origin"),
    ),
    (
        "https://mcp.example.com/sse",
        "https://127.0.0.1/post",
        Err("url_cross_origin"),
    ),
    (
        "https://mcp.example.com/sse",
        "javascript:alert(1)",
        Err("url_scheme_not_allowed"),
    ),
];

#[test]
fn legacy_endpoint_must_stay_on_the_server_origin() {
    for (server, endpoint, expected) in LEGACY_ENDPOINTS {
        let server_url = check_server_url(server, false).expect("test server URL is allowed");
        let actual = check_legacy_endpoint(&server_url, endpoint, false)
            .map(|checked| checked.href())
            .map_err(|error| error.code());
        assert_eq!(actual, expected.map(str::to_owned), "{server} + {endpoint}");
    }
}

#[test]
fn legacy_endpoint_on_another_loopback_port_is_refused_even_with_opt_in() {
    let server_url = check_server_url("http://127.0.0.1:4000/sse", true).expect("opt-in");
    let error = check_legacy_endpoint(&server_url, "http://127.0.0.1:4001/message", true)
        .expect_err("another port is another origin");
    assert_eq!(error.code(), "url_cross_origin");
}

/// The one percent decoder of URL hosts, `$ref` fragments and OAuth redirects, by the WHATWG URL
/// standard's "percent-decode": only `%` and two hex digits is a byte. std's number parser takes
/// `+1` as the digits of 1, which once made `%+1` a byte here.
#[test]
fn percent_decoding_takes_only_two_hex_digits_as_a_byte() {
    use mcp_agent_wasm::core::text::percent_decode;
    let cases: &[(&str, &[u8])] = &[
        ("%41%62c", b"Abc"),
        ("%e2%82%AC", "€".as_bytes()),
        ("%+1", b"%+1"),
        ("%-1", b"%-1"),
        ("%4", b"%4"),
        ("a%", b"a%"),
        ("%zz%2", b"%zz%2"),
        ("%%41", b"%A"),
        ("%24defs", b"$defs"),
    ];
    for (text, expected) in cases {
        assert_eq!(percent_decode(text), *expected, "{text}");
    }
}

/// The hand-written IPv6 serializer agrees with std's (RFC 5952) on every address std writes in
/// hex, that is all but the IPv4-mapped ones, over pieces drawn so that zero runs of every
/// length and position occur.
#[test]
fn ipv6_hosts_are_written_as_std_writes_them_but_never_dotted() {
    let choices: [u16; 4] = [0, 0, 1, 0xabcd];
    let mut failures = Vec::new();
    for draw in 0..4u32.pow(8) {
        let mut pieces = [0u16; 8];
        for (position, piece) in pieces.iter_mut().enumerate() {
            *piece = choices[(draw / 4u32.pow(position as u32) % 4) as usize];
        }
        let address = std::net::Ipv6Addr::from(pieces);
        if address.to_ipv4_mapped().is_some() {
            continue;
        }
        let expected = format!("http://[{address}]/");
        let actual = outcome(&expected, true);
        if actual.as_deref() != Ok(expected.as_str()) {
            failures.push(format!("{expected}: got {actual:?}"));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// Hosts in brackets are read by `url_policy::parse_ipv6`, written to keep std's IPv6 parser out
/// of the wasm: it must accept what `Ipv6Addr`'s `FromStr` accepts, as the same address, and
/// refuse the rest. Known cases, then 300 000 strings joined from address pieces.
#[test]
fn ipv6_hosts_are_read_as_std_reads_them() {
    use mcp_agent_wasm::core::url_policy::parse_ipv6;
    use std::net::Ipv6Addr;

    let known = [
        "",
        "::",
        ":::",
        "::1",
        "1::",
        "1::1",
        "::ffff:1.2.3.4",
        "::1.2.3.4",
        "1.2.3.4",
        "1:2:3:4:5:6:7:8",
        "1:2:3:4:5:6:7:8:9",
        "1:2:3:4:5:6:7::",
        "1:2:3:4:5:6:7:8::",
        "::1:2:3:4:5:6:7",
        "::1:2:3:4:5:6:7:8",
        "1:2:3:4:5:6:1.2.3.4",
        "1:2:3:4:5:6:7:1.2.3.4",
        "1:2:3:4:5::1.2.3.4",
        "1.2.3.4::",
        "::1.2.3.04",
        "::1.2.3.256",
        "::1.2.3",
        "::1.2.3.4.5",
        "::0.0.0.0",
        "::00.0.0.0",
        "12345::",
        "ffff::FFFF",
        "0000::0000",
        "g::",
        "1:::2",
        "1::2::3",
        ":1::",
        "::1:",
        "fe80::1%1",
        "::1.2.3.4567",
        "::1.2.3.1234",
        "1:2:3:4:5:6:1234.1.1.1",
        " ::1",
        "::1 ",
        "[::1]",
        "::é",
    ];
    let pieces = [
        "",
        ":",
        "::",
        "0",
        "00",
        "1",
        "12",
        "123",
        "1234",
        "12345",
        "ffff",
        "FfFf",
        "g",
        ".",
        "1.2.3.4",
        "255.255.255.255",
        "256",
        "01",
        "0.0",
        "9",
        "a",
    ];
    let mut state = 0x2545_f491_4f6c_dd1du64;
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    let generated = (0..300_000).map(|_| {
        let count = 1 + next() % 12;
        (0..count)
            .map(|_| pieces[(next() % pieces.len() as u64) as usize])
            .collect::<String>()
    });
    let mut accepted = 0;
    for text in known.iter().map(|text| (*text).to_owned()).chain(generated) {
        let std_reads = text.parse::<Ipv6Addr>().ok();
        assert_eq!(parse_ipv6(&text), std_reads, "{text:?}");
        accepted += usize::from(std_reads.is_some());
    }
    assert!(accepted > 1_000, "only {accepted} addresses accepted");
}
