//! Reading values out of parsed JSON by hand, with the error texts serde's derived readers give.
//!
//! The configuration, the messages and the enums written as names come from JS as JSON text. A
//! serde-derived reader costs the shipped wasm a few KB per type, instantiated for the text
//! reader; reading the text into a `Value` (whose reader is there anyway) and the `Value` by
//! these functions costs a fraction of that. Members are read in the order they come and the
//! first bad one is reported, as a derived reader does; tests compare the texts with derived
//! twins (tests/message_readers.rs, tests/config_readers.rs, tests/web_options.rs).

use std::collections::BTreeMap;

use serde::de::{Deserialize, Deserializer, Error, Expected, Unexpected};
use serde_json::{Map, Value};

use crate::core::json_text::to_json_text;

/// serde's "invalid type" error for `value`, worded as serde words it, but for a string quoted as
/// JSON: serde's `Unexpected::Str` quotes with `Debug` formatting, which the shipped build
/// compiles out (`-Zfmt-debug=none` in wasm-pack.toml; it would print `string , expected …`), and
/// `str`'s own quoting would bring Unicode's tables back (3.0 KB gzip). The two quotings differ
/// only on control and invisible characters (`\u0007` for `\u{7}`, U+200B as is), and JSON's is
/// the one a caller passing JS values knows.
pub fn invalid_type<E: Error>(value: &Value, expected: &dyn Expected) -> E {
    let unexpected = match value {
        Value::String(_) => {
            return E::custom(format_args!(
                "invalid type: string {}, expected {expected}",
                to_json_text(value)
            ))
        }
        Value::Null => Unexpected::Unit,
        Value::Bool(flag) => Unexpected::Bool(*flag),
        Value::Number(number) => match (number.as_u64(), number.as_i64()) {
            (Some(unsigned), _) => Unexpected::Unsigned(unsigned),
            (None, Some(signed)) => Unexpected::Signed(signed),
            _ => Unexpected::Float(number.as_f64().unwrap_or(f64::NAN)),
        },
        Value::Array(_) => Unexpected::Seq,
        Value::Object(_) => Unexpected::Map,
    };
    E::invalid_type(unexpected, expected)
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
    match (number.as_u64(), number.as_i64()) {
        (Some(unsigned), _) => T::try_from(unsigned)
            .map_err(|_| E::invalid_value(Unexpected::Unsigned(unsigned), &expected)),
        (None, Some(signed)) => Err(E::invalid_value(Unexpected::Signed(signed), &expected)),
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
        Value::Array(items) => items.into_iter().map(read).collect(),
        other => Err(invalid_type(&other, &"a sequence")),
    }
}

/// An object of strings (header names to values).
pub fn string_map<E: Error>(value: Value) -> Result<BTreeMap<String, String>, E> {
    match value {
        Value::Object(fields) => fields
            .into_iter()
            .map(|(key, value)| Ok((key, string(value)?)))
            .collect(),
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
