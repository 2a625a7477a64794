//! What an MCP server's `WWW-Authenticate` header asks for: the Bearer challenge of the MCP
//! authorization spec (2025-06-18, 2025-11-25), with the protected resource metadata URL of
//! RFC 9728 §5.1 and the `scope`, `error` and `error_description` of RFC 6750 §3.
//!
//! The header is read with the grammar of RFC 9110 §11.6.1: challenges separated by commas, each
//! a scheme then either a token68 or auth-params (`name=token` or `name="quoted string"` with
//! backslash escapes), scheme and parameter names case-insensitive. Since commas separate both
//! challenges and their parameters, a name followed by `=` continues the challenge and anything
//! else starts the next one. Malformed input ends the reading at the fault: what was read before
//! it stays.

/// The Bearer challenge's parameters; those the server left out are `None`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct BearerChallenge {
    /// Where the server's OAuth protected resource metadata is (RFC 9728), which names its
    /// authorization servers: where a page starts its OAuth flow.
    pub resource_metadata: Option<String>,
    /// The scopes the request needs, space-separated.
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
    let mut reader = Reader {
        rest: header.as_bytes(),
        text: header,
    };
    let mut bearer: Option<BearerChallenge> = None;
    loop {
        reader.skip_separators();
        let Some(scheme) = reader.token() else {
            return bearer;
        };
        let is_bearer = scheme.eq_ignore_ascii_case("bearer") && bearer.is_none();
        let mut challenge = BearerChallenge::default();
        let complete = reader.challenge_body(|name, value| {
            if is_bearer {
                challenge.set(name, value);
            }
        });
        if is_bearer {
            bearer = Some(challenge);
        }
        if !complete {
            return bearer;
        }
    }
}

impl BearerChallenge {
    fn set(&mut self, name: &str, value: String) {
        let slot = if name.eq_ignore_ascii_case("resource_metadata") {
            &mut self.resource_metadata
        } else if name.eq_ignore_ascii_case("scope") {
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

/// A cursor over the header; `text` and `rest` end at the same place.
struct Reader<'a> {
    rest: &'a [u8],
    text: &'a str,
}

fn is_token_byte(byte: u8) -> bool {
    byte.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&byte)
}

fn is_token68_byte(byte: u8) -> bool {
    byte.is_ascii_alphanumeric() || b"-._~+/".contains(&byte)
}

impl<'a> Reader<'a> {
    fn advance(&mut self, count: usize) -> &'a str {
        let taken = &self.text[..count];
        self.text = &self.text[count..];
        self.rest = &self.rest[count..];
        taken
    }

    fn skip_spaces(&mut self) {
        let spaces = self
            .rest
            .iter()
            .take_while(|byte| matches!(byte, b' ' | b'\t'));
        self.advance(spaces.count());
    }

    /// Whitespace and empty list elements (`a, , b` is a valid list).
    fn skip_separators(&mut self) {
        let separators = (self.rest.iter()).take_while(|byte| matches!(byte, b' ' | b'\t' | b','));
        self.advance(separators.count());
    }

    fn token(&mut self) -> Option<&'a str> {
        let length = self
            .rest
            .iter()
            .take_while(|byte| is_token_byte(**byte))
            .count();
        (length > 0).then(|| self.advance(length))
    }

    /// After a scheme: its token68 or auth-params, each handed to `param`, up to the next
    /// challenge. False when the header is malformed here (reading stops).
    fn challenge_body(&mut self, mut param: impl FnMut(&str, String)) -> bool {
        self.skip_spaces();
        if self.rest.is_empty() || self.rest[0] == b',' {
            return true;
        }
        if self.at_token68() {
            return true;
        }
        loop {
            let (Some(name), true) = (self.token(), self.equals()) else {
                return false;
            };
            let Some(value) = self.param_value() else {
                return false;
            };
            param(name, value);
            self.skip_spaces();
            match self.rest.first() {
                None => return true,
                Some(b',') => {}
                Some(_) => return false,
            }
            if !self.next_is_param() {
                return true;
            }
            self.skip_separators();
        }
    }

    /// A token68 (`Basic dXNlcjpwYXNz`, possibly `=`-padded) ending the challenge, consumed.
    fn at_token68(&mut self) -> bool {
        let body = self
            .rest
            .iter()
            .take_while(|byte| is_token68_byte(**byte))
            .count();
        let padding = (self.rest[body..].iter())
            .take_while(|byte| **byte == b'=')
            .count();
        let after = &self.rest[body + padding..];
        let spaces = after
            .iter()
            .take_while(|byte| matches!(byte, b' ' | b'\t'))
            .count();
        // Not followed by a value: `name=value` is a parameter, not a token68 with its padding.
        let ends = matches!(after.get(spaces), None | Some(b','));
        if body == 0 || !ends {
            return false;
        }
        self.advance(body + padding + spaces);
        true
    }

    /// Whether what follows the comma is another parameter of this challenge (`name =`), not
    /// the next challenge's scheme.
    fn next_is_param(&self) -> bool {
        let rest = self.rest;
        let mut at = 0;
        while matches!(rest.get(at), Some(b' ' | b'\t' | b',')) {
            at += 1;
        }
        let name = rest[at..]
            .iter()
            .take_while(|byte| is_token_byte(**byte))
            .count();
        if name == 0 {
            return false;
        }
        at += name;
        while matches!(rest.get(at), Some(b' ' | b'\t')) {
            at += 1;
        }
        rest.get(at) == Some(&b'=')
    }

    fn equals(&mut self) -> bool {
        self.skip_spaces();
        if self.rest.first() != Some(&b'=') {
            return false;
        }
        self.advance(1);
        self.skip_spaces();
        true
    }

    fn param_value(&mut self) -> Option<String> {
        if self.rest.first() != Some(&b'"') {
            return self.token().map(str::to_owned);
        }
        self.advance(1);
        let mut value = String::new();
        loop {
            let plain = (self.rest.iter()).take_while(|byte| !matches!(byte, b'"' | b'\\'));
            let plain = self.advance(plain.count());
            value.push_str(plain);
            match self.rest.first() {
                Some(b'"') => {
                    self.advance(1);
                    return Some(value);
                }
                Some(b'\\') => {
                    self.advance(1);
                    let escaped = self.text.chars().next()?;
                    value.push(escaped);
                    self.advance(escaped.len_utf8());
                }
                _ => return None,
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
