//! Local `$ref` lookup. Only references into the same document are followed; nothing is fetched.

use crate::core::text::parse_unsigned;
use serde_json::Value;

/// Where a `$ref` points, as far as this crate is concerned.
pub enum RefTarget<'a> {
    /// A local JSON pointer that resolves.
    Found(&'a Value),
    /// A local reference that names nothing in the document (or an `#anchor`, not supported).
    Dangling,
    /// Another document (`https://…`, `other.json#/…`): never fetched.
    Remote,
}

pub fn resolve_ref<'a>(root: &'a Value, reference: &str) -> RefTarget<'a> {
    let Some(fragment) = reference.strip_prefix('#') else {
        return RefTarget::Remote;
    };
    if fragment.is_empty() {
        return RefTarget::Found(root);
    }
    if !fragment.starts_with('/') {
        return RefTarget::Dangling;
    }
    match percent_decode(fragment).and_then(|pointer| root.pointer(&pointer)) {
        Some(target) => RefTarget::Found(target),
        None => RefTarget::Dangling,
    }
}

/// URI fragments may percent-encode pointer characters (`%24defs` for `$defs`).
fn percent_decode(text: &str) -> Option<String> {
    if !text.contains('%') {
        return Some(text.to_owned());
    }
    let bytes = text.as_bytes();
    let mut decoded = Vec::with_capacity(bytes.len());
    let mut index = 0;
    while index < bytes.len() {
        if bytes[index] == b'%' {
            let hex = std::str::from_utf8(bytes.get(index + 1..index + 3)?).ok()?;
            decoded.push(parse_unsigned(hex, 16)?);
            index += 3;
        } else {
            decoded.push(bytes[index]);
            index += 1;
        }
    }
    String::from_utf8(decoded).ok()
}
