//! Small text helpers shared by the crate's messages and prompts.

/// `parts` with `separator` between them. std's `join` is compiled again for each element type
/// (`String`, `&str`, `Cow<str>`) with a copy loop tuned for speed, about 0.9 KB of wasm each;
/// every list this crate writes is a few short parts.
pub fn join<S: AsRef<str>>(parts: &[S], separator: &str) -> String {
    let mut joined = String::new();
    for (index, part) in parts.iter().enumerate() {
        if index > 0 {
            joined.push_str(separator);
        }
        joined.push_str(part.as_ref());
    }
    joined
}

/// Where the last `byte`, an ASCII character, is in `text`. `str::rfind` with a `char` compiles
/// a reverse character searcher (0.7 KB of wasm) for the crate's few backward looks.
pub fn rfind_ascii(text: &str, byte: u8) -> Option<usize> {
    text.bytes().rposition(|found| found == byte)
}

/// `parts` as owned strings, for a list that must outlive what it was read from.
pub fn owned(parts: &[&str]) -> Vec<String> {
    let mut owned = Vec::with_capacity(parts.len());
    for part in parts {
        owned.push((*part).to_owned());
    }
    owned
}

/// Where `needle` first starts in `text`, for every substring search of the crate: its first
/// character is found as `str::find` finds a `char` (a word at a time), the rest compared there.
/// std's search for a `&str` compiles its two-way searcher into the wasm (about 1.4 KB). An empty
/// `needle` is found nowhere: the crate looks for none.
pub fn find_str(text: &str, needle: &str) -> Option<usize> {
    let first = needle.chars().next()?;
    let mut start = 0;
    while let Some(offset) = text[start..].find(first) {
        let at = start + offset;
        if text[at..].starts_with(needle) {
            return Some(at);
        }
        start = at + first.len_utf8();
    }
    None
}

/// `text` with every `from` (not empty) replaced by `to`, as `str::replace` does, by [`find_str`].
pub fn replace_str(text: &str, from: &str, to: &str) -> String {
    let mut replaced = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = find_str(rest, from) {
        replaced.push_str(&rest[..at]);
        replaced.push_str(to);
        rest = &rest[at + from.len()..];
    }
    replaced.push_str(rest);
    replaced
}

/// `digits` as a number in `radix`, by std's rules (an optional `+`, no other sign), when it fits
/// a `T`. Every integer is read as a `u64` first: std's parser is compiled per integer type, about
/// 0.3 KB of wasm each.
pub fn parse_unsigned<T: TryFrom<u64>>(digits: &str, radix: u32) -> Option<T> {
    u64::from_str_radix(digits, radix)
        .ok()
        .and_then(|number| T::try_from(number).ok())
}

/// `text` percent-decoded as the WHATWG URL standard does it: `%` and two hex digits is that
/// byte, any other `%` stays as written. One decoder for URL hosts, `$ref` fragments and OAuth
/// redirects, so that `%+1` (which std's parser would read as the number 1) is never a byte.
pub fn percent_decode(text: &str) -> Vec<u8> {
    let bytes = text.as_bytes();
    let mut decoded = Vec::with_capacity(bytes.len());
    let mut index = 0;
    while index < bytes.len() {
        let escaped = match bytes.get(index..index + 3) {
            Some([b'%', high, low]) => hex_value(*high).zip(hex_value(*low)),
            _ => None,
        };
        match escaped {
            Some((high, low)) => {
                decoded.push(high << 4 | low);
                index += 3;
            }
            None => {
                decoded.push(bytes[index]);
                index += 1;
            }
        }
    }
    decoded
}

fn hex_value(digit: u8) -> Option<u8> {
    char::from(digit).to_digit(16).map(|value| value as u8)
}

const HEX_DIGITS: &[u8; 16] = b"0123456789ABCDEF";

/// Percent-encodes `value` for an `application/x-www-form-urlencoded` body or a URL query: every
/// byte but the unreserved characters of RFC 3986 §2.3 (the watsonx IAM exchange, OAuth).
pub fn form_encode(value: &str) -> String {
    let mut encoded = String::with_capacity(value.len());
    for byte in value.bytes() {
        match byte {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' => {
                encoded.push(byte as char)
            }
            _ => {
                encoded.push('%');
                encoded.push(char::from(HEX_DIGITS[usize::from(byte >> 4)]));
                encoded.push(char::from(HEX_DIGITS[usize::from(byte & 0xf)]));
            }
        }
    }
    encoded
}

#[cfg(test)]
mod tests {
    use super::{find_str, replace_str};

    /// `find_str` and `replace_str` stand in for std's `str::find` and `str::replace` with a
    /// `&str`: the same answers, overlapping and multi-byte needles and texts included.
    #[test]
    fn substring_search_answers_as_std_does() {
        let texts = [
            "",
            "a",
            "aaa",
            "abab",
            "ababab",
            "<think>x</think>y",
            "<thin<think>",
            "é<é>é",
            "ééé",
            "```json\n{}\n```",
            "a, b, c",
            "sk-1sk-12sk-123",
            "%2e%2E%2e.",
            "\\u00e9\\",
            "x..y",
        ];
        let needles = [
            "a", "aa", "ab", "aba", "<think>", "</think>", "é", "é>", "```", ", ", "sk-12", "%2e",
            "\\u", "..", "zz", "ééé",
        ];
        for text in texts {
            for needle in needles {
                assert_eq!(
                    find_str(text, needle),
                    text.find(needle),
                    "{text:?} {needle:?}"
                );
                assert_eq!(
                    replace_str(text, needle, "[r]"),
                    text.replace(needle, "[r]"),
                    "{text:?} {needle:?}"
                );
            }
        }
    }
}
