//! Reading values out of parsed JSON by hand, with the error texts serde's derived readers give.
//!
//! The configuration, the messages and the enums written as names come from JS as JSON text. A
//! serde-derived reader costs the shipped wasm a few KB per type, instantiated for the text
//! reader; reading the text into a `Value` (whose reader is there anyway) and the `Value` by
//! these functions costs a fraction of that. Members are read in the order they come and the
//! first bad one is reported, as a derived reader does; tests compare the texts with derived
//! twins (tests/message_readers.rs, tests/config_readers.rs, tests/web_options.rs).

use std::fmt::{self, Write};

use serde::de::{Deserialize, Deserializer, Error, Expected};
use serde_json::{Map, Value};

use crate::core::text::parse_unsigned;

/// A reader's error, its message only, for the shipped readers: serde_json's own error, built by
/// `Error::custom`, looks for a text position at the end of every message (a reverse substring
/// search and a `usize` parser, about 1.5 KB of wasm) that a hand-read `Value` never has, and
/// writes the same text. Tests read with serde_json's error too, to compare with derived twins.
/// Boxed, as serde_json's is: a result carries one pointer for its error (a `Box<str>`, two,
/// made the readers' wasm 0.5 KB larger, the `String` three, 1.4 KB).
#[derive(Debug)]
#[allow(clippy::box_collection)]
pub struct ReadError(Box<String>);

impl fmt::Display for ReadError {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        formatter.write_str(&self.0)
    }
}

impl std::error::Error for ReadError {}

impl Error for ReadError {
    fn custom<T: fmt::Display>(message: T) -> Self {
        ReadError(Box::new(message.to_string()))
    }
}

/// serde's "invalid type" error for `value`, in serde_json's words (``invalid type: integer `5`,
/// expected a string``), written here rather than by serde's `Unexpected`: its `Display` quotes a
/// string with `Debug` formatting, which the shipped build compiles out (`-Zfmt-debug=none` in
/// wasm-pack.toml), and holds core's float printing, which nothing else in the wasm uses.
pub fn invalid_type<E: Error>(value: &Value, expected: &dyn Expected) -> E {
    E::custom(format_args!(
        "invalid type: {}, expected {expected}",
        Described(value)
    ))
}

/// serde's "invalid value" error, for a number out of the expected range.
fn invalid_value<E: Error>(value: &Value, expected: &dyn Expected) -> E {
    E::custom(format_args!(
        "invalid value: {}, expected {expected}",
        Described(value)
    ))
}

/// A value as serde_json's errors name it: `null`, ``boolean `true` ``, ``integer `5` ``,
/// ``floating point `1.5` ``, `string "text"`, `sequence`, `map`. The string is quoted as JSON
/// (see [`write_quoted`]), which is serde's quoting but for the escapes' form (`\u0007` where
/// `Debug` writes `\u{7}`): the form a caller passing JS values knows.
struct Described<'a>(&'a Value);

/// Writes `text` as a JSON string that also escapes, as `\uXXXX`, DEL, the C1 controls and the
/// invisible format characters (soft hyphen, zero-width and bidi controls, the BOM): a message
/// then shows what a string holds instead of hiding it or reordering the text around it. `Debug`
/// escaped these too, with Unicode's tables of printable characters, which cost 3 KB of wasm.
fn write_quoted(formatter: &mut fmt::Formatter<'_>, text: &str) -> fmt::Result {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    formatter.write_char('"')?;
    for character in text.chars() {
        match character {
            '"' => formatter.write_str("\\\"")?,
            '\\' => formatter.write_str("\\\\")?,
            '\n' => formatter.write_str("\\n")?,
            '\r' => formatter.write_str("\\r")?,
            '\t' => formatter.write_str("\\t")?,
            '\u{8}' => formatter.write_str("\\b")?,
            '\u{c}' => formatter.write_str("\\f")?,
            '\0'..='\u{1f}'
            | '\u{7f}'..='\u{9f}'
            | '\u{ad}'
            | '\u{61c}'
            | '\u{180e}'
            | '\u{200b}'..='\u{200f}'
            | '\u{2028}'..='\u{202e}'
            | '\u{2060}'..='\u{2064}'
            | '\u{2066}'..='\u{206f}'
            | '\u{feff}'
            | '\u{fff9}'..='\u{fffb}' => {
                let code = character as u32;
                formatter.write_str("\\u")?;
                for shift in [12, 8, 4, 0] {
                    formatter.write_char(char::from(HEX[(code >> shift) as usize & 0xf]))?;
                }
            }
            other => formatter.write_char(other)?,
        }
    }
    formatter.write_char('"')
}

impl fmt::Display for Described<'_> {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0 {
            Value::Null => formatter.write_str("null"),
            Value::Bool(flag) => write!(formatter, "boolean `{flag}`"),
            Value::Number(number) if number.is_f64() => {
                write!(formatter, "floating point `{number}`")
            }
            Value::Number(number) => write!(formatter, "integer `{number}`"),
            Value::String(text) => {
                formatter.write_str("string ")?;
                write_quoted(formatter, text)
            }
            Value::Array(_) => formatter.write_str("sequence"),
            Value::Object(_) => formatter.write_str("map"),
        }
    }
}

/// The kind of a value in plain words ("a number"), for messages of our own wording.
pub fn json_kind(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// The members of an object; `expected` names it in the error (`"struct ChatMessage"`).
pub fn object<E: Error>(value: Value, expected: &'static str) -> Result<Map<String, Value>, E> {
    match value {
        Value::Object(fields) => Ok(fields),
        other => Err(invalid_type(&other, &expected)),
    }
}

/// Refuses a member that is not one of `known`, as `#[serde(deny_unknown_fields)]` does.
pub fn known_member<E: Error>(key: &str, known: &'static [&'static str]) -> Result<(), E> {
    if known.contains(&key) {
        Ok(())
    } else {
        Err(E::unknown_field(key, known))
    }
}

pub fn string<E: Error>(value: Value) -> Result<String, E> {
    match value {
        Value::String(text) => Ok(text),
        other => Err(invalid_type(&other, &"a string")),
    }
}

pub fn boolean<E: Error>(value: Value) -> Result<bool, E> {
    match value {
        Value::Bool(flag) => Ok(flag),
        other => Err(invalid_type(&other, &"a boolean")),
    }
}

/// An unsigned integer of type `T`, named `expected` (`"u32"`) in errors.
pub fn unsigned<T: TryFrom<u64>, E: Error>(value: Value, expected: &'static str) -> Result<T, E> {
    let Value::Number(number) = &value else {
        return Err(invalid_type(&value, &expected));
    };
    match (number.as_u64(), number.is_i64()) {
        (Some(unsigned), _) => T::try_from(unsigned).map_err(|_| invalid_value(&value, &expected)),
        (None, true) => Err(invalid_value(&value, &expected)),
        _ => Err(invalid_type(&value, &expected)),
    }
}

pub fn float<E: Error>(value: Value) -> Result<f64, E> {
    match &value {
        Value::Number(number) => number.as_f64().ok_or_else(|| invalid_type(&value, &"f64")),
        other => Err(invalid_type(other, &"f64")),
    }
}

/// `None` for null, as serde reads an `Option`.
pub fn optional<T, E: Error>(
    value: Value,
    read: impl FnOnce(Value) -> Result<T, E>,
) -> Result<Option<T>, E> {
    match value {
        Value::Null => Ok(None),
        value => read(value).map(Some),
    }
}

pub fn list<T, E: Error>(value: Value, read: fn(Value) -> Result<T, E>) -> Result<Vec<T>, E> {
    match value {
        Value::Array(items) => {
            // A plain loop: a `Result` collect is a larger instantiation for each `T`.
            let mut list = Vec::with_capacity(items.len());
            for item in items {
                list.push(read(item)?);
            }
            Ok(list)
        }
        other => Err(invalid_type(&other, &"a sequence")),
    }
}

/// An object of strings (header names to values), in the order written. A name written again in
/// another case (`authorization`, `Authorization`) counts once, with its last value: HTTP names
/// ignore case, and `Headers.append` would send both values joined. A list rather than a map: a
/// `BTreeMap` costs the wasm 2.3 KB gzip.
pub fn header_list<E: Error>(value: Value) -> Result<Vec<(String, String)>, E> {
    match value {
        Value::Object(fields) => {
            let mut headers: Vec<(String, String)> = Vec::with_capacity(fields.len());
            for (name, value) in fields {
                let value = string(value)?;
                headers.retain(|(written, _)| !written.eq_ignore_ascii_case(&name));
                headers.push((name, value));
            }
            Ok(headers)
        }
        other => Err(invalid_type(&other, &"a map")),
    }
}

/// The value whose name, at the same position in `names`, is the string `value` holds; otherwise
/// serde's "unknown variant" error.
pub fn named<T: Copy, E: Error>(
    value: Value,
    names: &'static [&'static str],
    values: &[T],
) -> Result<T, E> {
    by_name(&string::<E>(value)?, names, values)
}

/// [`named`] for a `Deserialize` impl.
pub fn deserialize_named<'de, D, T>(
    deserializer: D,
    names: &'static [&'static str],
    values: &[T],
) -> Result<T, D::Error>
where
    D: Deserializer<'de>,
    T: Copy,
{
    by_name(&String::deserialize(deserializer)?, names, values)
}

fn by_name<T: Copy, E: Error>(
    name: &str,
    names: &'static [&'static str],
    values: &[T],
) -> Result<T, E> {
    names
        .iter()
        .position(|known| *known == name)
        .and_then(|index| values.get(index).copied())
        .ok_or_else(|| E::unknown_variant(name, names))
}

/// The strings of a JSON array, its other entries skipped: a schema's `required`, a `type` list.
pub fn strings_in(values: &[Value]) -> Vec<&str> {
    let mut strings = Vec::with_capacity(values.len());
    for value in values {
        if let Some(text) = value.as_str() {
            strings.push(text);
        }
    }
    strings
}

/// The value at the JSON pointer `pointer` (RFC 6901) in `root`, found as serde_json's
/// `Value::pointer` finds it (`~1` is `/`, `~0` is `~`; an array index is digits without a
/// leading zero): that one unescapes each token with two `str::replace`s, about 1.2 KB of wasm
/// with its own code. Pointers the crate writes itself are member paths ([`member_at`]).
pub fn value_at_pointer<'v>(root: &'v Value, pointer: &str) -> Option<&'v Value> {
    if pointer.is_empty() {
        return Some(root);
    }
    let mut target = root;
    for token in pointer.strip_prefix('/')?.split('/') {
        let mut name = String::new();
        let mut rest = token;
        while let Some(tilde) = rest.find('~') {
            name.push_str(&rest[..tilde]);
            rest = &rest[tilde + 1..];
            let unescaped = match rest.as_bytes().first() {
                Some(b'1') => '/',
                Some(b'0') => '~',
                _ => {
                    name.push('~');
                    continue;
                }
            };
            name.push(unescaped);
            rest = &rest[1..];
        }
        name.push_str(rest);
        target = match target {
            Value::Object(members) => members.get(name.as_str())?,
            Value::Array(items) => {
                if name.starts_with('+') || (name.starts_with('0') && name.len() != 1) {
                    return None;
                }
                items.get(parse_unsigned::<usize>(&name, 10)?)?
            }
            _ => return None,
        };
    }
    Some(target)
}

/// The member at `path` in `value`, a dot between the names of nested members
/// (`completion.values`, `resources.subscribe`); `None` when one is missing.
pub fn member_at<'v>(value: Option<&'v Value>, path: &str) -> Option<&'v Value> {
    let mut member = value;
    for name in path.split('.') {
        member = member.and_then(|value| value.get(name));
    }
    member
}
