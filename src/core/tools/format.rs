//! Checks for the JSON Schema `format` values tools use: `date-time`, `date`, `time`, `uuid`,
//! `email`, `uri`. Other formats are annotations only and are not checked.

use crate::core::text::{find_str, rfind_ascii};

/// `Some(hint)` when `value` is not valid for `format` (the hint shows the expected shape),
/// `None` when it is valid or the format is not checked.
pub fn format_violation(format: &str, value: &str) -> Option<&'static str> {
    let (valid, hint) = match format {
        "date-time" => (
            is_date_time(value),
            "an RFC 3339 date-time such as 2026-11-30T10:15:00Z",
        ),
        "date" => (is_full_date(value), "a date such as 2026-11-30"),
        "time" => (is_time(value), "a time such as 10:15:00 or 10:15:00+01:00"),
        "uuid" => (
            is_uuid(value),
            "a UUID such as 123e4567-e89b-12d3-a456-426614174000",
        ),
        "email" => (is_email(value), "an email address such as name@example.com"),
        "uri" => (
            is_uri(value),
            "an absolute URI such as https://example.com/path",
        ),
        _ => return None,
    };
    (!valid).then_some(hint)
}

fn digits(text: &str, count: usize) -> Option<u32> {
    (text.len() == count && text.bytes().all(|b| b.is_ascii_digit()))
        .then(|| crate::core::text::parse_unsigned(text, 10))
        .flatten()
}

fn is_full_date(text: &str) -> bool {
    let bytes = text.as_bytes();
    if bytes.len() != 10 || bytes[4] != b'-' || bytes[7] != b'-' {
        return false;
    }
    let (Some(year), Some(month), Some(day)) = (
        digits(&text[0..4], 4),
        digits(&text[5..7], 2),
        digits(&text[8..10], 2),
    ) else {
        return false;
    };
    let leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0;
    let days_in_month = match month {
        1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
        4 | 6 | 9 | 11 => 30,
        2 if leap => 29,
        2 => 28,
        _ => return false,
    };
    (1..=days_in_month).contains(&day)
}

/// `HH:MM:SS` with an optional fraction; `None` when it does not start the text.
fn partial_time_length(text: &str) -> Option<usize> {
    let bytes = text.as_bytes();
    if bytes.len() < 8 || bytes[2] != b':' || bytes[5] != b':' {
        return None;
    }
    let hour = digits(text.get(0..2)?, 2)?;
    let minute = digits(text.get(3..5)?, 2)?;
    let second = digits(text.get(6..8)?, 2)?;
    if hour > 23 || minute > 59 || second > 60 {
        return None;
    }
    let mut length = 8;
    if bytes.get(8) == Some(&b'.') {
        let fraction = bytes[9..].iter().take_while(|b| b.is_ascii_digit()).count();
        if fraction == 0 {
            return None;
        }
        length = 9 + fraction;
    }
    Some(length)
}

fn is_offset(text: &str) -> bool {
    if text.eq_ignore_ascii_case("z") {
        return true;
    }
    let bytes = text.as_bytes();
    if bytes.len() != 6 || !matches!(bytes[0], b'+' | b'-') || bytes[3] != b':' {
        return false;
    }
    matches!(
        (digits(&text[1..3], 2), digits(&text[4..6], 2)),
        (Some(hour), Some(minute)) if hour <= 23 && minute <= 59
    )
}

/// RFC 3339 `date-time`, but the offset may be left out, as in [`is_time`]: pydantic's
/// `datetime` accepts a naive one, and refusing it would make the model "fix" it with a `Z`,
/// turning a local time into UTC.
fn is_date_time(text: &str) -> bool {
    let Some(date) = text.get(0..10) else {
        return false;
    };
    is_full_date(date)
        && matches!(text.as_bytes().get(10), Some(b'T') | Some(b't'))
        && is_time(&text[11..])
}

/// RFC 3339 `full-time`, but the offset may be left out: servers (pydantic's `time`, for one)
/// accept a local time, and refusing it would only cost the model a retry.
fn is_time(text: &str) -> bool {
    partial_time_length(text)
        .is_some_and(|length| length == text.len() || is_offset(&text[length..]))
}

fn is_uuid(text: &str) -> bool {
    let bytes = text.as_bytes();
    bytes.len() == 36
        && bytes.iter().enumerate().all(|(index, byte)| match index {
            8 | 13 | 18 | 23 => *byte == b'-',
            _ => byte.is_ascii_hexdigit(),
        })
}

fn is_email(text: &str) -> bool {
    let Some(at) = rfind_ascii(text, b'@') else {
        return false;
    };
    let (local, domain) = (&text[..at], &text[at + 1..]);
    let local_ok = !local.is_empty()
        && local.len() <= 64
        && !local.starts_with('.')
        && !local.ends_with('.')
        && find_str(local, "..").is_none()
        && local
            .chars()
            .all(|c| is_letter_or_digit(c) || matches!(c, '!' | '#'..='\'' | '*' | '+' | '/' | '=' | '?' | '^'..='`' | '{'..='~' | '.' | '-'));
    let domain_ok = if let Some(literal) = domain
        .strip_prefix('[')
        .and_then(|rest| rest.strip_suffix(']'))
    {
        !literal.is_empty()
            && literal
                .chars()
                .all(|c| c.is_ascii_hexdigit() || matches!(c, '.' | ':'))
    } else {
        !domain.is_empty()
            && domain.split('.').all(|label| {
                !label.is_empty()
                    && label.len() <= 63
                    && !label.starts_with('-')
                    && !label.ends_with('-')
                    && label.chars().all(|c| is_letter_or_digit(c) || c == '-')
            })
    };
    local_ok && domain_ok
}

/// ASCII letters and digits, and every non-ASCII character: RFC 6531 allows any of those in an
/// address's local part and IDNA's U-labels in its domain. (Not `char::is_alphanumeric`, which
/// would add Unicode's letter and number tables to the wasm to refuse a few symbols.)
fn is_letter_or_digit(c: char) -> bool {
    c.is_ascii_alphanumeric() || !c.is_ascii()
}

/// An absolute URI (RFC 3986): a scheme, `:`, then only characters a URI may contain, with
/// well-formed percent escapes.
fn is_uri(text: &str) -> bool {
    let Some((scheme, rest)) = text.split_once(':') else {
        return false;
    };
    let scheme_ok = scheme.starts_with(|c: char| c.is_ascii_alphabetic())
        && scheme
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.'));
    if !scheme_ok {
        return false;
    }
    let bytes = rest.as_bytes();
    let mut index = 0;
    while index < bytes.len() {
        let byte = bytes[index];
        if byte == b'%' {
            let escape_ok = bytes
                .get(index + 1..index + 3)
                .is_some_and(|hex| hex.iter().all(u8::is_ascii_hexdigit));
            if !escape_ok {
                return false;
            }
            index += 3;
            continue;
        }
        let allowed = byte.is_ascii_alphanumeric() || b"-._~:/?#[]@!$&'()*+,;=".contains(&byte);
        if !allowed {
            return false;
        }
        index += 1;
    }
    true
}
