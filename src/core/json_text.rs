//! JSON text as a JS engine writes it. Since ES2019 `JSON.stringify` writes a lone UTF-16
//! surrogate (half of an emoji cut by `slice`, say) as a `\uD800`-style escape, which serde_json
//! rightly refuses: no Rust string can hold it. The web layer reads every value the caller passes
//! through that text, so such a string would fail a whole call; instead it becomes U+FFFD, as a
//! `TextEncoder` would make it.
//!
//! And JSON text as this crate writes a value: one compact writer for every use.

use std::borrow::Cow;

use serde_json::{Map, Value};

use crate::core::text::find_str;

/// `json` with every escaped lone surrogate replaced by `\ufffd`; borrowed when there is none.
pub fn replace_lone_surrogate_escapes(json: &str) -> Cow<'_, str> {
    if find_str(json, "\\u").is_none() {
        return Cow::Borrowed(json);
    }
    let bytes = json.as_bytes();
    let mut out = String::new();
    let mut copied_up_to = 0;
    let mut index = 0;
    while index < bytes.len() {
        if bytes[index] != b'\\' {
            index += 1;
            continue;
        }
        if bytes.get(index + 1) != Some(&b'u') {
            // Any other escape is two bytes, `\\` included, so its second byte never starts one.
            index += 2;
            continue;
        }
        match escaped_unit(bytes, index) {
            Some(0xD800..=0xDBFF)
                if matches!(escaped_unit(bytes, index + 6), Some(0xDC00..=0xDFFF)) =>
            {
                index += 12
            }
            Some(0xD800..=0xDFFF) => {
                out.push_str(&json[copied_up_to..index]);
                out.push_str("\\ufffd");
                index += 6;
                copied_up_to = index;
            }
            _ => index += 6,
        }
    }
    if copied_up_to == 0 {
        return Cow::Borrowed(json);
    }
    out.push_str(&json[copied_up_to..]);
    Cow::Owned(out)
}

/// The UTF-16 unit of the `\uXXXX` escape at `at`, if there is one.
fn escaped_unit(bytes: &[u8], at: usize) -> Option<u32> {
    if bytes.get(at..at + 2)? != b"\\u" {
        return None;
    }
    let digits = std::str::from_utf8(bytes.get(at + 2..at + 6)?).ok()?;
    crate::core::text::parse_unsigned(digits, 16)
}

/// A JSON object of `members`, in order, their values moved in. `json!` copies each value it is
/// given through serde's `Value` serializer, code the wasm would carry for that alone.
pub fn object<const N: usize>(mut members: [(&str, Value); N]) -> Value {
    object_of(&mut members)
}

/// [`object`] for any number of members: compiled once.
fn object_of(members: &mut [(&str, Value)]) -> Value {
    let mut map = Map::new();
    for (key, value) in members {
        map.set(key, std::mem::take(value));
    }
    Value::Object(map)
}

/// Setting a member by its name, as one call: an `insert` written out at each site also drops,
/// there, the value it replaces.
pub trait SetMember {
    fn set(&mut self, key: &str, value: Value);
}

impl SetMember for Map<String, Value> {
    fn set(&mut self, key: &str, value: Value) {
        self.insert(key.to_owned(), value);
    }
}

/// `value` as compact JSON text. `Value`'s `Display` would do the same, but brings a second
/// writer (and a pretty one) into the wasm next to the one every request already uses.
pub fn to_json_text(value: &Value) -> String {
    // A `Value` always serializes: its map keys are strings.
    serde_json::to_string(value).unwrap_or_default()
}
