//! Local `$ref` lookup. Only references into the same document are followed; nothing is fetched.

use crate::core::json_read::value_at_pointer;
use crate::core::text::percent_decode;
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
    // URI fragments may percent-encode pointer characters (`%24defs` for `$defs`).
    let pointer = String::from_utf8(percent_decode(fragment)).ok();
    match pointer.and_then(|pointer| value_at_pointer(root, &pointer)) {
        Some(target) => RefTarget::Found(target),
        None => RefTarget::Dangling,
    }
}
