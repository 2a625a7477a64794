//! What `fetch` refuses in a request header, checked when settings are read: such a key or
//! header made every request reject with a `TypeError`, which read as a network failure after
//! two retries. WHATWG Fetch: a name is an HTTP token; a value, once its leading and trailing HTTP
//! whitespace (space, tab, CR, LF) is stripped, holds no NUL, CR or LF; both are `ByteString`s,
//! so neither holds a character past U+00FF (a typographic quote, a Cyrillic letter).

/// The 1-based position of the first character of `value` that `fetch` refuses in a header
/// value.
pub fn refused_value_character(value: &str) -> Option<usize> {
    let (mut seen_content, mut line_break) = (false, None);
    for (index, character) in value.chars().enumerate() {
        match character {
            ' ' | '\t' => {}
            // Refused only between two other characters: stripped at either end.
            '\n' | '\r' => {
                if seen_content && line_break.is_none() {
                    line_break = Some(index + 1);
                }
            }
            _ if line_break.is_some() => return line_break,
            '\0' | '\u{100}'.. => return Some(index + 1),
            _ => seen_content = true,
        }
    }
    None
}

/// The 1-based position of the first character of `name` that is not allowed in an HTTP token
/// (1 for an empty name): a visible ASCII character other than a separator.
pub fn refused_name_character(name: &str) -> Option<usize> {
    if name.is_empty() {
        return Some(1);
    }
    name.chars()
        .position(|character| {
            !character.is_ascii_graphic() || matches!(character, '"' | '(' | ')' | ',' | '/' | ':'..='@' | '['..=']' | '{' | '}')
        })
        .map(|index| index + 1)
}

/// What `fetch` refuses in the header or setting named `` {kind}`{name}` ``: the position of the
/// character, never the value, which may be a key.
pub fn refusal(kind: &str, name: &str, position: usize) -> String {
    format!("{kind}`{name}`: character {position} cannot be sent in a header")
}

/// The [`refusal`] of the first of `headers` that `fetch` would refuse, which names the header
/// (names are not secret).
pub fn headers_problem(headers: &[(String, String)]) -> Option<String> {
    headers.iter().find_map(|(name, value)| {
        if let Some(position) = refused_name_character(name) {
            return Some(refusal("header name ", name, position));
        }
        refused_value_character(value).map(|position| refusal("header ", name, position))
    })
}
