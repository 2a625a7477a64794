#![cfg(not(target_arch = "wasm32"))]
//! What `fetch` refuses in a header (WHATWG Fetch's header name and value, read as `ByteString`s):
//! the page test `a key or header fetch cannot send…` gives the same kinds of headers to the
//! browser's own `Headers`.

use mcp_agent_wasm::core::http_header::{
    headers_problem, refused_name_character, refused_value_character,
};

#[test]
fn a_value_is_refused_at_its_first_character_fetch_refuses() {
    let cases: &[(&str, Option<usize>)] = &[
        ("Bearer sk-abc", None),
        ("", None),
        // Leading and trailing HTTP whitespace is stripped by fetch, not refused.
        (" \t\r\nvalue\r\n\t ", None),
        ("\n", None),
        // Latin-1 and the other controls are bytes fetch sends.
        ("caf\u{e9}\u{ff}\u{1}\u{b}\u{7f}\u{85}", None),
        ("a\nb", Some(2)),
        ("a\r\nb", Some(2)),
        (" a \r b ", Some(4)),
        ("\0", Some(1)),
        (" \0", Some(2)),
        ("sk-\u{201c}x\u{201d}", Some(4)),
        ("\u{3000}key", Some(1)),
        ("key\u{3000}", Some(4)),
        ("\u{1f511}\n", Some(1)),
    ];
    for (value, position) in cases {
        assert_eq!(refused_value_character(value), *position, "{value:?}");
    }
}

#[test]
fn a_name_must_be_an_http_token() {
    let cases: &[(&str, Option<usize>)] = &[
        ("Authorization", None),
        ("x-api-key", None),
        ("!#$%&'*+-.^_`|~09azAZ", None),
        ("", Some(1)),
        ("X Proxy", Some(2)),
        ("x-key:", Some(6)),
        ("x\u{200b}key", Some(2)),
        ("caf\u{e9}", Some(4)),
        ("(x)", Some(1)),
        ("x\"", Some(2)),
    ];
    for (name, position) in cases {
        assert_eq!(refused_name_character(name), *position, "{name:?}");
    }
}

#[test]
fn the_problem_names_the_header_and_the_position_never_the_value() {
    let headers = |pairs: &[(&str, &str)]| -> Vec<(String, String)> {
        pairs
            .iter()
            .map(|(name, value)| ((*name).to_owned(), (*value).to_owned()))
            .collect()
    };
    assert_eq!(headers_problem(&headers(&[("a", "1"), ("b", " 2 ")])), None);
    assert_eq!(
        headers_problem(&headers(&[
            ("ok", "1"),
            ("x-token", "SEC\u{2019}RET"),
            ("b c", "")
        ])),
        Some("header `x-token`: character 4 cannot be sent in a header".to_owned())
    );
    assert_eq!(
        headers_problem(&headers(&[("b c", "SECRET")])),
        Some("header name `b c`: character 2 cannot be sent in a header".to_owned())
    );
}
