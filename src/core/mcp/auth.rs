//! What an MCP server's `WWW-Authenticate` header asks for: the Bearer challenge of the MCP
//! authorization spec (2025-06-18, 2025-11-25), with the protected resource metadata URL of
//! RFC 9728 §5.1 and the `scope`, `error` and `error_description` of RFC 6750 §3.
//!
//! The header is read with the grammar of RFC 9110 §11.6.1: challenges separated by commas, each
//! a scheme then either a token68 or auth-params (`name=token` or `name="quoted string"` with
//! backslash escapes), scheme and parameter names case-insensitive. Since commas separate both
//! challenges and their parameters, a name followed by `=` continues the challenge and a name
//! alone starts the next one. Malformed input ends the reading at the fault: what was read before
//! it stays.

/// The Bearer challenge's parameters; those the server left out are `None`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct BearerChallenge {
    /// Where the server's OAuth protected resource metadata is (RFC 9728), which names its
    /// authorization servers: where a page starts its OAuth flow.
    pub resource_metadata: Option<String>,
    /// The scopes the request needs, space-separated; never empty.
    pub scope: Option<String>,
    /// `invalid_token`, `insufficient_scope`, …
    pub error: Option<String>,
    pub error_description: Option<String>,
}

impl BearerChallenge {
    /// A 403 that asks for more scope (RFC 6750 §3.1), which a new token can cure.
    pub fn is_insufficient_scope(&self) -> bool {
        self.error.as_deref() == Some("insufficient_scope")
    }
}

/// The first Bearer challenge in a `WWW-Authenticate` value, if any.
pub fn bearer_challenge(header: &str) -> Option<BearerChallenge> {
    let mut reader = Reader { rest: header };
    let mut bearer: Option<BearerChallenge> = None;
    // Whether the parameters read go to the Bearer challenge (the first one only).
    let mut in_bearer = false;
    loop {
        reader.skip(|byte| matches!(byte, b' ' | b'\t' | b','));
        let name = reader.token();
        if name.is_empty() {
            return bearer;
        }
        reader.skip(is_space);
        if reader.rest.starts_with('=') {
            // `name = value`: a parameter of the challenge being read.
            reader.advance(1);
            reader.skip(is_space);
            let Some(value) = reader.param_value() else {
                return bearer;
            };
            if let (true, Some(bearer)) = (in_bearer, bearer.as_mut()) {
                bearer.set(name, value);
            }
            reader.skip(is_space);
            if !reader.at_list_end() {
                return bearer;
            }
        } else {
            // A scheme: a new challenge, then its parameters or a token68 (`dXNlcjpw==`).
            in_bearer = bearer.is_none() && name.eq_ignore_ascii_case("bearer");
            if in_bearer {
                bearer = Some(BearerChallenge::default());
            }
            reader.skip_token68();
        }
    }
}

impl BearerChallenge {
    fn set(&mut self, name: &str, value: String) {
        let slot = if name.eq_ignore_ascii_case("resource_metadata") {
            &mut self.resource_metadata
        } else if name.eq_ignore_ascii_case("scope") && !value.trim().is_empty() {
            // RFC 6750 §3: one or more scope-tokens, each at least a character; an empty or
            // all-space value names no scope (it is ignored), and reporting it would show
            // `scope ""`.
            &mut self.scope
        } else if name.eq_ignore_ascii_case("error") {
            &mut self.error
        } else if name.eq_ignore_ascii_case("error_description") {
            &mut self.error_description
        } else {
            return;
        };
        // RFC 9110: each parameter name appears once; the first is kept if a server repeats one.
        slot.get_or_insert(value);
    }
}

fn is_space(byte: u8) -> bool {
    matches!(byte, b' ' | b'\t')
}

fn is_token_byte(byte: u8) -> bool {
    byte.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&byte)
}

fn is_token68_byte(byte: u8) -> bool {
    byte.is_ascii_alphanumeric() || b"-._~+/".contains(&byte)
}

/// A cursor over the header.
struct Reader<'a> {
    rest: &'a str,
}

impl<'a> Reader<'a> {
    fn advance(&mut self, count: usize) -> &'a str {
        let (taken, rest) = self.rest.split_at(count);
        self.rest = rest;
        taken
    }

    /// The length of the run of bytes from `at` that `keep` keeps. A function pointer and a
    /// plain loop: generic over the test, with `take_while`, it was compiled once per caller.
    fn run_length(&self, at: usize, keep: fn(u8) -> bool) -> usize {
        let mut length = 0;
        for byte in &self.rest.as_bytes()[at..] {
            if !keep(*byte) {
                break;
            }
            length += 1;
        }
        length
    }

    fn skip(&mut self, skipped: fn(u8) -> bool) {
        self.advance(self.run_length(0, skipped));
    }

    fn token(&mut self) -> &'a str {
        self.advance(self.run_length(0, is_token_byte))
    }

    /// At a comma or the end: the list element is over.
    fn at_list_end(&self) -> bool {
        matches!(self.rest.as_bytes().first(), None | Some(b','))
    }

    /// A token68 ending its challenge, if one is next; a parameter (`name=value`) is left.
    fn skip_token68(&mut self) {
        let body = self.run_length(0, is_token68_byte);
        let padding = self.run_length(body, |byte| byte == b'=');
        let spaces = self.run_length(body + padding, is_space);
        let after = self.rest.as_bytes().get(body + padding + spaces);
        if body > 0 && matches!(after, None | Some(b',')) {
            self.advance(body + padding + spaces);
        }
    }

    /// A token or a quoted string with its escapes undone; `None` when there is neither.
    fn param_value(&mut self) -> Option<String> {
        if !self.rest.starts_with('"') {
            let token = self.token();
            return (!token.is_empty()).then(|| token.to_owned());
        }
        self.advance(1);
        let mut value = String::new();
        loop {
            let plain = self.run_length(0, |byte| !matches!(byte, b'"' | b'\\'));
            value.push_str(self.advance(plain));
            let mut characters = self.rest.chars();
            match characters.next()? {
                '"' => {
                    self.advance(1);
                    return Some(value);
                }
                _ => {
                    let escaped = characters.next()?;
                    value.push(escaped);
                    self.advance(1 + escaped.len_utf8());
                }
            }
        }
    }
}

/// What a server's 401 or 403 said, for the error that reports it.
#[derive(Debug, Clone, PartialEq)]
pub struct AuthFailure {
    /// The server URL's origin and path: its query may carry a key.
    pub server: String,
    /// `None` when the page's `getAccessToken` failed before any request was sent.
    pub status: Option<u16>,
    pub challenge: Challenge,
    /// Why no (other) token was sent: no `getAccessToken`, or what it answered.
    pub token_note: String,
}

/// The `WWW-Authenticate` header as the page saw it.
#[derive(Debug, Clone, PartialEq)]
pub enum Challenge {
    /// Absent, or hidden from the page by CORS (a browser shows a cross-origin response's
    /// headers only when the server lists them in `Access-Control-Expose-Headers`).
    Unreadable,
    /// Present without a Bearer challenge.
    NotBearer,
    Bearer(BearerChallenge),
}

impl Challenge {
    /// The challenge in a `WWW-Authenticate` value, or its absence.
    pub fn of_header(header: Option<&str>) -> Challenge {
        match header.map(bearer_challenge) {
            None => Challenge::Unreadable,
            Some(None) => Challenge::NotBearer,
            Some(Some(bearer)) => Challenge::Bearer(bearer),
        }
    }

    pub fn bearer(&self) -> Option<&BearerChallenge> {
        match self {
            Challenge::Bearer(bearer) => Some(bearer),
            Challenge::Unreadable | Challenge::NotBearer => None,
        }
    }
}

impl std::fmt::Display for AuthFailure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let Some(status) = self.status else {
            return write!(
                f,
                "{} before connecting to {}",
                self.token_note, self.server
            );
        };
        write!(f, "{} answered HTTP {status}", self.server)?;
        match &self.challenge {
            Challenge::Unreadable => f.write_str(
                " without a WWW-Authenticate header this page could read (a cross-origin server \
                 must list it in Access-Control-Expose-Headers)",
            )?,
            Challenge::NotBearer => f.write_str(" with no Bearer challenge")?,
            Challenge::Bearer(bearer) => {
                let params = [
                    ("resource metadata", &bearer.resource_metadata),
                    ("scope", &bearer.scope),
                    ("error", &bearer.error),
                    ("error description", &bearer.error_description),
                ];
                let mut separator = " (";
                for (name, value) in params {
                    if let Some(value) = value {
                        write!(f, "{separator}{name} `{}`", shortened(value))?;
                        separator = ", ";
                    }
                }
                if separator == ", " {
                    f.write_str(")")?;
                }
            }
        }
        write!(f, ": {}", self.token_note)
    }
}

/// A server's text cut to 200 characters: it reaches error messages and logs.
fn shortened(text: &str) -> &str {
    match text.char_indices().nth(200) {
        Some((end, _)) => &text[..end],
        None => text,
    }
}
