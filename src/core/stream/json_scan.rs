//! A small JSON reader for the hot path of stream parsing. It walks one payload in place, hands
//! out an object's members one at a time, and skips the values nobody asked for without building
//! them. It answers `None` for anything it is not sure serde_json accepts and reads the same way
//! (exponents, very long numbers, bad escapes, lone surrogates, nesting deeper than serde_json's
//! limit), so a caller can always fall back to `serde_json::Value` and get the reference reading.

use crate::core::text::parse_unsigned;
use std::borrow::Cow;

/// serde_json's recursion limit: a payload nested deeper is one it refuses.
const MAX_DEPTH: usize = 128;
/// Longer numbers are left to serde_json, whose handling of their range is the reference.
const MAX_NUMBER_CHARS: usize = 20;

pub(super) struct JsonScanner<'a> {
    text: &'a str,
    at: usize,
    depth: usize,
}

impl<'a> JsonScanner<'a> {
    #[cfg_attr(optimize_hot_paths, optimize(speed))]
    pub(super) fn new(text: &'a str) -> Self {
        Self {
            text,
            at: 0,
            depth: 0,
        }
    }

    #[inline(always)]
    #[cfg_attr(optimize_hot_paths, optimize(speed))]
    fn byte(&self) -> Option<u8> {
        self.text.as_bytes().get(self.at).copied()
    }

    /// The next byte that is not JSON whitespace.
    #[inline(always)]
    #[cfg_attr(optimize_hot_paths, optimize(speed))]
    fn peek(&mut self) -> Option<u8> {
        while let Some(b' ' | b'\n' | b'\t' | b'\r') = self.byte() {
            self.at += 1;
        }
        self.byte()
    }

    #[inline(always)]
    #[cfg_attr(optimize_hot_paths, optimize(speed))]
    fn eat(&mut self, expected: u8) -> Option<()> {
        (self.peek()? == expected).then(|| self.at += 1)
    }

    #[cfg_attr(optimize_hot_paths, optimize(speed))]
    fn literal(&mut self, word: &str) -> Option<()> {
        self.text[self.at..]
            .starts_with(word)
            .then(|| self.at += word.len())
    }

    /// True when only whitespace is left.
    #[cfg_attr(optimize_hot_paths, optimize(speed))]
    pub(super) fn at_end(&mut self) -> bool {
        self.peek().is_none()
    }

    /// Consumes a `null` if one comes next; `false` (nothing consumed) for any other value.
    #[cfg_attr(optimize_hot_paths, optimize(speed))]
    pub(super) fn null(&mut self) -> Option<bool> {
        if self.peek()? != b'n' {
            return Some(false);
        }
        self.literal("null").map(|()| true)
    }

    #[cfg_attr(optimize_hot_paths, optimize(speed))]
    fn enter(&mut self, opening: u8) -> Option<()> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return None;
        }
        self.eat(opening)
    }

    #[cfg_attr(optimize_hot_paths, optimize(speed))]
    pub(super) fn begin_object(&mut self) -> Option<()> {
        self.enter(b'{')
    }

    #[cfg_attr(optimize_hot_paths, optimize(speed))]
    pub(super) fn begin_array(&mut self) -> Option<()> {
        self.enter(b'[')
    }

    /// The next member's key (its value comes next), or `Some(None)` at the object's end.
    /// `first` starts true for each object.
    #[cfg_attr(optimize_hot_paths, optimize(speed))]
    pub(super) fn next_key(&mut self, first: &mut bool) -> Option<Option<Cow<'a, str>>> {
        if self.peek()? == b'}' {
            self.at += 1;
            self.depth -= 1;
            return Some(None);
        }
        if !*first {
            self.eat(b',')?;
        }
        *first = false;
        if self.peek()? != b'"' {
            return None;
        }
        let key = self.string()?;
        self.eat(b':')?;
        Some(Some(key))
    }

    /// True when another element follows (read it next), false at the array's end.
    #[cfg_attr(optimize_hot_paths, optimize(speed))]
    pub(super) fn next_element(&mut self, first: &mut bool) -> Option<bool> {
        if self.peek()? == b']' {
            self.at += 1;
            self.depth -= 1;
            return Some(false);
        }
        if !*first {
            self.eat(b',')?;
        }
        *first = false;
        Some(true)
    }

    /// A string, borrowed from the payload when it holds no escape.
    #[cfg_attr(optimize_hot_paths, optimize(speed))]
    pub(super) fn string(&mut self) -> Option<Cow<'a, str>> {
        self.eat(b'"')?;
        let start = self.at;
        self.at += self.plain_run_len();
        match self.byte()? {
            b'"' => {
                let text = &self.text[start..self.at];
                self.at += 1;
                return Some(Cow::Borrowed(text));
            }
            b'\\' => {}
            _ => return None,
        }
        let mut owned = self.text[start..self.at].to_owned();
        loop {
            match self.byte()? {
                b'"' => {
                    self.at += 1;
                    return Some(Cow::Owned(owned));
                }
                b'\\' => {
                    let escaped = self.text.as_bytes().get(self.at + 1).copied()?;
                    self.at += 2;
                    owned.push(match escaped {
                        b'"' => '"',
                        b'\\' => '\\',
                        b'/' => '/',
                        b'b' => '\u{8}',
                        b'f' => '\u{c}',
                        b'n' => '\n',
                        b'r' => '\r',
                        b't' => '\t',
                        b'u' => self.unicode_escape()?,
                        _ => return None,
                    });
                }
                0..=0x1F => return None,
                _ => {
                    let run_start = self.at;
                    self.at += self.plain_run_len();
                    owned.push_str(&self.text[run_start..self.at]);
                }
            }
        }
    }

    /// How many bytes from here hold no quote, backslash or control character. Those are all
    /// ASCII, so the run ends on a character boundary.
    #[cfg_attr(optimize_hot_paths, optimize(speed))]
    fn plain_run_len(&self) -> usize {
        let bytes = self.text.as_bytes();
        let mut at = self.at;
        while let Some(word) = bytes
            .get(at..at + 8)
            .and_then(|word| <[u8; 8]>::try_from(word).ok())
        {
            if has_special_byte(u64::from_le_bytes(word)) {
                break;
            }
            at += 8;
        }
        while bytes
            .get(at)
            .is_some_and(|&byte| byte != b'"' && byte != b'\\' && byte >= 0x20)
        {
            at += 1;
        }
        at - self.at
    }

    /// The character of a `\u` escape whose `\u` was consumed; a surrogate pair counts as one.
    #[cfg_attr(optimize_hot_paths, optimize(speed))]
    fn unicode_escape(&mut self) -> Option<char> {
        let first = self.hex4()?;
        match first {
            0xD800..=0xDBFF => {
                self.literal("\\u")?;
                let second = self.hex4()?;
                if !(0xDC00..=0xDFFF).contains(&second) {
                    return None;
                }
                char::from_u32(0x10000 + ((first - 0xD800) << 10) + (second - 0xDC00))
            }
            0xDC00..=0xDFFF => None,
            _ => char::from_u32(first),
        }
    }

    #[cfg_attr(optimize_hot_paths, optimize(speed))]
    fn hex4(&mut self) -> Option<u32> {
        let digits = self.text.get(self.at..self.at + 4)?;
        if !digits.bytes().all(|byte| byte.is_ascii_hexdigit()) {
            return None;
        }
        self.at += 4;
        parse_unsigned(digits, 16)
    }

    /// A non-negative integer without fraction or exponent.
    #[cfg_attr(optimize_hot_paths, optimize(speed))]
    pub(super) fn unsigned(&mut self) -> Option<u64> {
        let start = self.at;
        self.skip_number()?;
        let digits = &self.text[start..self.at];
        if !digits.bytes().all(|byte| byte.is_ascii_digit()) {
            return None;
        }
        digits.parse().ok()
    }

    #[cfg_attr(optimize_hot_paths, optimize(speed))]
    fn skip_number(&mut self) -> Option<()> {
        self.peek()?;
        let start = self.at;
        if self.byte() == Some(b'-') {
            self.at += 1;
        }
        match self.byte()? {
            b'0' => self.at += 1,
            b'1'..=b'9' => self.skip_digits(),
            _ => return None,
        }
        if self.byte() == Some(b'.') {
            self.at += 1;
            if !self.byte()?.is_ascii_digit() {
                return None;
            }
            self.skip_digits();
        }
        let exponent = matches!(self.byte(), Some(b'e' | b'E'));
        (!exponent && self.at - start <= MAX_NUMBER_CHARS).then_some(())
    }

    #[cfg_attr(optimize_hot_paths, optimize(speed))]
    fn skip_digits(&mut self) {
        while self.byte().is_some_and(|byte| byte.is_ascii_digit()) {
            self.at += 1;
        }
    }

    /// Skips one value of any kind, checking it as it goes.
    #[cfg_attr(optimize_hot_paths, optimize(speed))]
    pub(super) fn skip_value(&mut self) -> Option<()> {
        match self.peek()? {
            b'"' => self.string().map(drop),
            b'{' => {
                self.begin_object()?;
                let mut first = true;
                while self.next_key(&mut first)?.is_some() {
                    self.skip_value()?;
                }
                Some(())
            }
            b'[' => {
                self.begin_array()?;
                let mut first = true;
                while self.next_element(&mut first)? {
                    self.skip_value()?;
                }
                Some(())
            }
            b't' => self.literal("true"),
            b'f' => self.literal("false"),
            b'n' => self.literal("null"),
            _ => self.skip_number(),
        }
    }
}

/// Whether any of the eight bytes is a quote, a backslash or a control character, eight at a
/// time (the classic "has a zero byte" bit trick; it may only err towards true, never false).
#[inline(always)]
#[cfg_attr(optimize_hot_paths, optimize(speed))]
fn has_special_byte(word: u64) -> bool {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGHS: u64 = 0x8080_8080_8080_8080;
    let below = |word: u64, limit: u8| word.wrapping_sub(ONES * u64::from(limit)) & !word & HIGHS;
    let zero = |word: u64| below(word, 1);
    below(word, 0x20)
        | zero(word ^ (ONES * u64::from(b'"')))
        | zero(word ^ (ONES * u64::from(b'\\')))
        != 0
}

#[cfg(test)]
mod tests {
    use serde_json::Value;

    use super::*;

    fn skipped_whole(text: &str) -> bool {
        let mut json = JsonScanner::new(text);
        json.skip_value().is_some() && json.at_end()
    }

    /// Whatever the scanner accepts, serde_json accepts too; what it refuses may still be valid
    /// (the caller then reads it with serde_json).
    #[test]
    fn accepts_only_what_serde_json_accepts() {
        let accepted = [
            r#"{"a":[1,-2.5,0,true,false,null,"x\"\\\/\b\f\n\r\t\u00e9\ud83d\ude00"]}"#,
            " {\n\t\"a\" : { } ,\r\"b\":[ ]} ",
            r#"[[[]],{"":""}]"#,
            "12345678901234567890",
        ];
        for text in accepted {
            assert!(skipped_whole(text), "{text}");
            assert!(serde_json::from_str::<Value>(text).is_ok(), "{text}");
        }
        let refused = [
            r#"{"a":1,}"#,
            r#"{"a":1 "b":2}"#,
            r#"{,}"#,
            "[1,]",
            "01",
            "1.",
            "-",
            "+1",
            "1e5",
            "123456789012345678901",
            r#""\ud800""#,
            r#""\udc00""#,
            r#""\ud800\u0041""#,
            r#""\x""#,
            r#""\u00g1""#,
            r#""\u+0a1""#,
            "\"tab\tinside\"",
            "nul",
            "{\"a\":1}}",
            "\u{a0}{}",
        ];
        for text in refused {
            assert!(!skipped_whole(text), "{text}");
        }
        let deep = format!("{}{}", "[".repeat(MAX_DEPTH + 1), "]".repeat(MAX_DEPTH + 1));
        assert!(!skipped_whole(&deep));
        assert!(serde_json::from_str::<Value>(&deep).is_err());
        let at_limit = format!("{}{}", "[".repeat(MAX_DEPTH), "]".repeat(MAX_DEPTH));
        assert!(skipped_whole(&at_limit));
    }

    #[test]
    fn strings_read_as_serde_json_reads_them() {
        for text in [
            r#""plain""#,
            r#""caf\u00e9 \"q\" \\ \n""#,
            r#""\ud83d\ude00 and é""#,
            r#""""#,
        ] {
            let expected: String = serde_json::from_str(text).expect("valid string");
            let read = JsonScanner::new(text).string().expect("read");
            assert_eq!(read, expected, "{text}");
        }
    }

    #[test]
    fn finds_every_special_byte_at_every_position() {
        for special in [b'"', b'\\', 0x00, 0x1F] {
            for position in 0..8 {
                let mut bytes = *b"abcdefgh";
                bytes[position] = special;
                assert!(
                    has_special_byte(u64::from_le_bytes(bytes)),
                    "{special} at {position}"
                );
            }
        }
        for plain in [
            *b"abcdefgh",
            *b" !#[]~\x7f\x80",
            [0xC3, 0xA9, 0x20, 0x21, 0xFF, 0x7F, 0x5D, 0x23],
        ] {
            assert!(!has_special_byte(u64::from_le_bytes(plain)), "{plain:?}");
        }
    }

    #[test]
    fn unsigned_reads_plain_integers_only() {
        let cases = [
            ("0", Some(0)),
            ("42", Some(42)),
            ("18446744073709551615", Some(u64::MAX)),
            ("18446744073709551616", None),
            ("-1", None),
            ("1.0", None),
            ("1e2", None),
        ];
        for (text, expected) in cases {
            assert_eq!(JsonScanner::new(text).unsigned(), expected, "{text}");
        }
    }
}
