//! Which MCP server URLs a page may connect to (SSRF protection, as far as a browser allows).
//!
//! The URL is parsed the way a browser parses it (WHATWG URL rules for `http:`/`https:`), so that
//! obfuscated IPv4 forms such as `2130706433`, `0x7f.1` or `0177.0.0.1` are judged as the address
//! the browser would actually connect to. The caller then fetches [`CheckedUrl::href`], the
//! normalized form that was judged, never the original text.

use ::core::net::{Ipv4Addr, Ipv6Addr};

use crate::core::text::{parse_unsigned, percent_decode, rfind_ascii};
use thiserror::Error;

/// Why a server URL is refused.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum UrlPolicyError {
    #[error("`{0}` is not a valid URL")]
    Invalid(String),
    #[error("scheme `{0}` is not allowed: MCP servers must use https")]
    SchemeNotAllowed(String),
    #[error("plain http is allowed only with allowInsecureLocalUrls")]
    InsecureHttp,
    #[error("URLs with a user name or password are not allowed")]
    Credentials,
    #[error("host `{0}` is a local or private address; set allowInsecureLocalUrls to allow it")]
    LocalAddress(String),
    #[error("host `{0}` contains characters other than ASCII; write it in punycode (xn--)")]
    NonAsciiHost(String),
    #[error("endpoint `{endpoint}` is not on the server's origin `{origin}`")]
    CrossOrigin { endpoint: String, origin: String },
}

impl UrlPolicyError {
    pub fn code(&self) -> &'static str {
        match self {
            UrlPolicyError::Invalid(_) => "url_invalid",
            UrlPolicyError::SchemeNotAllowed(_) => "url_scheme_not_allowed",
            UrlPolicyError::InsecureHttp => "url_insecure_http",
            UrlPolicyError::Credentials => "url_credentials",
            UrlPolicyError::LocalAddress(_) => "url_local_address",
            UrlPolicyError::NonAsciiHost(_) => "url_non_ascii_host",
            UrlPolicyError::CrossOrigin { .. } => "url_cross_origin",
        }
    }
}

/// The host of a parsed URL, as the browser resolves it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Host {
    Domain(String),
    Ipv4(Ipv4Addr),
    Ipv6(Ipv6Addr),
}

impl Host {
    /// The host as the WHATWG URL serializer writes it (`new URL(…).host`). Written by hand: std's
    /// `Display` writes an IPv4-mapped IPv6 address dotted, which a browser never does, and its
    /// address formatting cost the wasm more than these loops.
    fn serialize(&self) -> String {
        match self {
            Host::Domain(name) => name.clone(),
            Host::Ipv4(address) => {
                let mut text = String::new();
                for octet in address.octets() {
                    if !text.is_empty() {
                        text.push('.');
                    }
                    push_decimal(&mut text, octet);
                }
                text
            }
            Host::Ipv6(address) => ipv6_text(address.segments()),
        }
    }
}

fn push_decimal(text: &mut String, value: u8) {
    if value >= 100 {
        text.push(char::from(b'0' + value / 100));
    }
    if value >= 10 {
        text.push(char::from(b'0' + value / 10 % 10));
    }
    text.push(char::from(b'0' + value % 10));
}

/// `[pieces]` in lowercase hex without leading zeros, the first longest run of two or more zero
/// pieces written as `::` (the WHATWG IPv6 serializer, which RFC 5952's compression matches).
fn ipv6_text(pieces: [u16; 8]) -> String {
    let (mut run_start, mut run_length) = (pieces.len(), 1);
    let mut index = 0;
    while index < pieces.len() {
        let start = index;
        while index < pieces.len() && pieces[index] == 0 {
            index += 1;
        }
        if index - start > run_length {
            (run_start, run_length) = (start, index - start);
        }
        index += 1;
    }
    let mut text = String::from("[");
    let mut index = 0;
    while index < pieces.len() {
        if index == run_start {
            text.push_str(if index == 0 { "::" } else { ":" });
            index += run_length;
            continue;
        }
        let piece = u32::from(pieces[index]);
        let mut shift = 12;
        while shift > 0 && piece >> shift == 0 {
            shift -= 4;
        }
        loop {
            text.extend(char::from_digit((piece >> shift) & 0xf, 16));
            if shift == 0 {
                break;
            }
            shift -= 4;
        }
        if index + 1 < pieces.len() {
            text.push(':');
        }
        index += 1;
    }
    text.push(']');
    text
}

/// A URL that passed the policy, normalized.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CheckedUrl {
    /// `http` or `https`.
    pub scheme: String,
    pub host: Host,
    /// `None` for the scheme's default port.
    pub port: Option<u16>,
    /// Path and query, starting with `/`; the fragment is dropped.
    pub path_and_query: String,
}

impl CheckedUrl {
    /// `scheme://host[:port]`, as a browser serializes an origin.
    pub fn origin(&self) -> String {
        match self.port {
            Some(port) => format!("{}://{}:{port}", self.scheme, self.host.serialize()),
            None => format!("{}://{}", self.scheme, self.host.serialize()),
        }
    }

    /// The URL to fetch.
    pub fn href(&self) -> String {
        format!("{}{}", self.origin(), self.path_and_query)
    }
}

/// Checks an MCP server URL. `allow_insecure_local_urls` (an explicit opt-in for development
/// and tests) allows `http:` and loopback or private targets.
pub fn check_server_url(
    url: &str,
    allow_insecure_local_urls: bool,
) -> Result<CheckedUrl, UrlPolicyError> {
    let parsed = parse_http_url(url)?;
    enforce(parsed, allow_insecure_local_urls)
}

/// Resolves the legacy SSE transport's `endpoint` event against the server URL and checks it:
/// messages may only go to the server's own origin.
pub fn check_legacy_endpoint(
    server: &CheckedUrl,
    endpoint: &str,
    allow_insecure_local_urls: bool,
) -> Result<CheckedUrl, UrlPolicyError> {
    let endpoint = endpoint.trim();
    let resolved = if has_scheme(endpoint) {
        parse_http_url(endpoint)?
    } else if endpoint.starts_with("//") || endpoint.starts_with("\\\\") {
        parse_http_url(&format!("{}:{endpoint}", server.scheme))?
    } else {
        let path_and_query = resolve_path(&server.path_and_query, endpoint);
        parse_http_url(&format!("{}{path_and_query}", server.origin()))?
    };
    if resolved.origin() != server.origin() {
        return Err(UrlPolicyError::CrossOrigin {
            endpoint: resolved.href(),
            origin: server.origin(),
        });
    }
    enforce(resolved, allow_insecure_local_urls)
}

fn enforce(
    parsed: CheckedUrl,
    allow_insecure_local_urls: bool,
) -> Result<CheckedUrl, UrlPolicyError> {
    if allow_insecure_local_urls {
        return Ok(parsed);
    }
    if parsed.scheme != "https" {
        return Err(UrlPolicyError::InsecureHttp);
    }
    if is_local_host(&parsed.host) {
        return Err(UrlPolicyError::LocalAddress(parsed.host.serialize()));
    }
    Ok(parsed)
}

fn has_scheme(text: &str) -> bool {
    match text.find(':') {
        Some(colon) => {
            let scheme = &text[..colon];
            scheme.starts_with(|c: char| c.is_ascii_alphabetic())
                && scheme
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.'))
        }
        None => false,
    }
}

/// Resolves a path-relative reference (`/x`, `x`, `?q`) against a base path and query.
fn resolve_path(base_path_and_query: &str, reference: &str) -> String {
    let reference = reference.replace('\\', "/");
    if reference.starts_with('/') {
        return reference;
    }
    let base_path = base_path_and_query
        .split('?')
        .next()
        .unwrap_or(base_path_and_query);
    if reference.starts_with('?') || reference.is_empty() {
        return format!("{base_path}{reference}");
    }
    let directory = &base_path[..rfind_ascii(base_path, b'/').map_or(0, |slash| slash + 1)];
    format!("{directory}{reference}")
}

/// Parses an absolute `http:`/`https:` URL the way a browser does for those schemes.
fn parse_http_url(url: &str) -> Result<CheckedUrl, UrlPolicyError> {
    let invalid = || UrlPolicyError::Invalid(url.to_owned());
    let cleaned: String = url
        .trim_matches(|c: char| c <= ' ')
        .chars()
        .filter(|c| !matches!(c, '\t' | '\n' | '\r'))
        .collect();
    let colon = cleaned.find(':').ok_or_else(invalid)?;
    if !has_scheme(&cleaned) {
        return Err(invalid());
    }
    let scheme = cleaned[..colon].to_ascii_lowercase();
    if scheme != "http" && scheme != "https" {
        return Err(UrlPolicyError::SchemeNotAllowed(scheme));
    }
    // Special schemes ignore any run of slashes and backslashes before the authority.
    let rest = cleaned[colon + 1..].trim_start_matches(['/', '\\']);
    let authority_end = rest.find(['/', '\\', '?', '#']).unwrap_or(rest.len());
    let authority = &rest[..authority_end];
    let after_authority = &rest[authority_end..];
    if authority.contains('@') {
        return Err(UrlPolicyError::Credentials);
    }
    let (host_text, port_text) = split_host_port(authority).ok_or_else(invalid)?;
    let host = parse_host(host_text).map_err(|error| match error {
        HostError::Invalid => invalid(),
        HostError::NonAscii => UrlPolicyError::NonAsciiHost(host_text.to_owned()),
    })?;
    let port = match port_text {
        None | Some("") => None,
        Some(digits) if digits.bytes().all(|b| b.is_ascii_digit()) => {
            let port: u16 = parse_unsigned(digits, 10).ok_or_else(invalid)?;
            let default_port = if scheme == "https" { 443 } else { 80 };
            (port != default_port).then_some(port)
        }
        Some(_) => return Err(invalid()),
    };
    let without_fragment = after_authority
        .split('#')
        .next()
        .unwrap_or_default()
        .to_owned();
    let (path, query) = match without_fragment.find('?') {
        Some(question) => (
            without_fragment[..question].replace('\\', "/"),
            &without_fragment[question..],
        ),
        None => (without_fragment.replace('\\', "/"), ""),
    };
    let path = if path.is_empty() {
        "/".to_owned()
    } else {
        path
    };
    Ok(CheckedUrl {
        scheme,
        host,
        port,
        path_and_query: format!("{path}{query}"),
    })
}

fn split_host_port(authority: &str) -> Option<(&str, Option<&str>)> {
    if authority.starts_with('[') {
        let close = authority.find(']')?;
        let after = &authority[close + 1..];
        return match after.strip_prefix(':') {
            Some(port) => Some((&authority[..=close], Some(port))),
            None if after.is_empty() => Some((authority, None)),
            None => None,
        };
    }
    match rfind_ascii(authority, b':') {
        Some(colon) => Some((&authority[..colon], Some(&authority[colon + 1..]))),
        None => Some((authority, None)),
    }
}

enum HostError {
    Invalid,
    NonAscii,
}

/// `text` as an IPv6 address by std's rules (`Ipv6Addr`'s `FromStr`: up to eight groups of one to
/// four hex digits, one `::` for a run of zero groups, a dotted IPv4 address as the last two):
/// std's parser was 1 KB of wasm for the hosts in brackets alone. Public for the test that
/// compares the two.
pub fn parse_ipv6(text: &str) -> Option<Ipv6Addr> {
    let mut reader = AddressReader {
        bytes: text.as_bytes(),
        at: 0,
    };
    let mut head = [0u16; 8];
    let (head_size, head_ipv4) = reader.groups(&mut head);
    if head_size < 8 {
        // An IPv4 address ends the address; `::` then stands for at least one zero group.
        if head_ipv4 || !reader.eat(b':') || !reader.eat(b':') {
            return None;
        }
        let mut tail = [0u16; 7];
        let (tail_size, _) = reader.groups(&mut tail[..7 - head_size]);
        head[8 - tail_size..].copy_from_slice(&tail[..tail_size]);
    }
    (reader.at == reader.bytes.len()).then(|| Ipv6Addr::from(head))
}

struct AddressReader<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl AddressReader<'_> {
    fn eat(&mut self, byte: u8) -> bool {
        let found = self.bytes.get(self.at) == Some(&byte);
        self.at += usize::from(found);
        found
    }

    /// Colon-separated groups into `groups`, the last two possibly a dotted IPv4 address: how
    /// many were read, and whether an IPv4 address ended them.
    fn groups(&mut self, groups: &mut [u16]) -> (usize, bool) {
        for index in 0..groups.len() {
            let start = self.at;
            if index + 1 < groups.len() {
                if let Some([a, b, c, d]) = self.ipv4(index > 0) {
                    groups[index] = u16::from_be_bytes([a, b]);
                    groups[index + 1] = u16::from_be_bytes([c, d]);
                    return (index + 2, true);
                }
            }
            match (index == 0 || self.eat(b':'))
                .then(|| self.number(16, 4, true, 0xffff))
                .flatten()
            {
                Some(group) => groups[index] = group as u16,
                None => {
                    self.at = start;
                    return (index, false);
                }
            }
        }
        (groups.len(), false)
    }

    /// A dotted IPv4 address, after a colon when `after_colon`; nothing read when there is none.
    fn ipv4(&mut self, after_colon: bool) -> Option<[u8; 4]> {
        let start = self.at;
        let mut octets = [0u8; 4];
        let mut read = !after_colon || self.eat(b':');
        for (index, octet) in octets.iter_mut().enumerate() {
            read = read && (index == 0 || self.eat(b'.'));
            match read.then(|| self.number(10, 3, false, 255)).flatten() {
                Some(number) => *octet = number as u8,
                None => read = false,
            }
        }
        if !read {
            self.at = start;
        }
        read.then_some(octets)
    }

    /// A number of one to `max_digits` digits in `radix`, at most `max`; with `zero_prefix`
    /// false, a `0` is alone. Nothing read when there is none.
    fn number(
        &mut self,
        radix: u32,
        max_digits: usize,
        zero_prefix: bool,
        max: u32,
    ) -> Option<u32> {
        let start = self.at;
        let mut value = 0u32;
        while let Some(digit) = self
            .bytes
            .get(self.at)
            .and_then(|&byte| char::from(byte).to_digit(radix))
        {
            value = value * radix + digit;
            self.at += 1;
            if self.at - start > max_digits || value > max {
                self.at = start;
                return None;
            }
        }
        let digits = self.at - start;
        if digits == 0 || (!zero_prefix && digits > 1 && self.bytes[start] == b'0') {
            self.at = start;
            return None;
        }
        Some(value)
    }
}

fn parse_host(text: &str) -> Result<Host, HostError> {
    if text.is_empty() {
        return Err(HostError::Invalid);
    }
    if let Some(inner) = text.strip_prefix('[') {
        let inner = inner.strip_suffix(']').ok_or(HostError::Invalid)?;
        return parse_ipv6(inner).map(Host::Ipv6).ok_or(HostError::Invalid);
    }
    let decoded = String::from_utf8(percent_decode(text)).map_err(|_| HostError::Invalid)?;
    if !decoded.is_ascii() {
        return Err(HostError::NonAscii);
    }
    let domain = decoded.to_ascii_lowercase();
    if domain.bytes().any(|b| {
        b <= b' '
            || matches!(
                b,
                b'#' | b'%'
                    | b'/'
                    | b':'
                    | b'<'
                    | b'>'
                    | b'?'
                    | b'@'
                    | b'['
                    | b'\\'
                    | b']'
                    | b'^'
                    | b'|'
            )
    }) {
        return Err(HostError::Invalid);
    }
    if ends_in_a_number(&domain) {
        return parse_browser_ipv4(&domain)
            .map(Host::Ipv4)
            .ok_or(HostError::Invalid);
    }
    Ok(Host::Domain(domain))
}

/// The WHATWG "ends in a number" check: such a host must parse as IPv4 or the URL is invalid.
fn ends_in_a_number(domain: &str) -> bool {
    let mut parts: Vec<&str> = domain.split('.').collect();
    if parts.last() == Some(&"") {
        if parts.len() == 1 {
            return false;
        }
        parts.pop();
    }
    let last = parts.last().copied().unwrap_or_default();
    (!last.is_empty() && last.bytes().all(|b| b.is_ascii_digit()))
        || parse_ipv4_number(last).is_some()
}

/// One IPv4 part: `0x` hex, leading-zero octal, or decimal, as browsers accept them.
fn parse_ipv4_number(part: &str) -> Option<u64> {
    if part.is_empty() {
        return None;
    }
    let (digits, radix) = if let Some(hex) = part.strip_prefix("0x").or(part.strip_prefix("0X")) {
        (hex, 16)
    } else if part.len() > 1 && part.starts_with('0') {
        (&part[1..], 8)
    } else {
        (part, 10)
    };
    if digits.is_empty() {
        return Some(0);
    }
    if !digits.chars().all(|c| c.is_digit(radix)) {
        return None;
    }
    // Saturate: anything this long is out of range anyway and must fail, not wrap.
    Some(u64::from_str_radix(digits, radix).unwrap_or(u64::MAX))
}

fn parse_browser_ipv4(domain: &str) -> Option<Ipv4Addr> {
    let mut parts: Vec<&str> = domain.split('.').collect();
    if parts.last() == Some(&"") && parts.len() > 1 {
        parts.pop();
    }
    if parts.len() > 4 {
        return None;
    }
    let mut numbers: Vec<u64> = Vec::with_capacity(parts.len());
    for part in &parts {
        numbers.push(parse_ipv4_number(part)?);
    }
    let (last, leading) = numbers.split_last()?;
    if leading.iter().any(|&number| number > 255) {
        return None;
    }
    let last_limit = 256u64.pow(5 - numbers.len() as u32);
    if *last >= last_limit {
        return None;
    }
    let mut address = *last;
    for (index, number) in leading.iter().enumerate() {
        address += number << (8 * (3 - index));
    }
    u32::try_from(address).ok().map(Ipv4Addr::from)
}

fn is_local_host(host: &Host) -> bool {
    match host {
        Host::Domain(name) => {
            let name = name.strip_suffix('.').unwrap_or(name);
            name == "localhost" || name.ends_with(".localhost")
        }
        Host::Ipv4(address) => is_local_ipv4(*address),
        Host::Ipv6(address) => is_local_ipv6(*address),
    }
}

fn is_local_ipv4(address: Ipv4Addr) -> bool {
    let [a, b, _, _] = address.octets();
    a == 0
        || a == 10
        || a == 127
        || (a == 100 && (64..128).contains(&b))
        || (a == 169 && b == 254)
        || (a == 172 && (16..32).contains(&b))
        || (a == 192 && b == 168)
}

fn is_local_ipv6(address: Ipv6Addr) -> bool {
    if let Some(mapped) = address.to_ipv4_mapped() {
        return is_local_ipv4(mapped);
    }
    let first = address.segments()[0];
    address.is_unspecified()
        || address.is_loopback()
        || (first & 0xfe00) == 0xfc00
        || (first & 0xffc0) == 0xfe80
}
