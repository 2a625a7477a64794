//! Reading enums that JSON writes as one of a few names (`"user"`, `"streamable-http"`).
//!
//! serde's derived `Deserialize` for such an enum brings its own field visitor and enum access
//! for every deserializer it meets; reading a string and looking it up shares the string reading
//! between all of them (−3.5 KB of wasm, −0.5 KB gzipped, for three enums).

use serde::de::{Deserialize, Deserializer, Error};

/// The value at the position of the string `deserializer` holds in `names` (`values` in the
/// same order); otherwise serde's own "unknown variant" error.
pub fn deserialize_by_name<'de, D, T>(
    deserializer: D,
    names: &'static [&'static str],
    values: &[T],
) -> Result<T, D::Error>
where
    D: Deserializer<'de>,
    T: Copy,
{
    value_named(&String::deserialize(deserializer)?, names, values)
}

/// The value at the position of `name` in `names` (`values` in the same order), or serde's
/// "unknown variant" error.
pub fn value_named<T: Copy, E: Error>(
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
