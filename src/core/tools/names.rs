//! Function names the providers accept (`^[a-zA-Z_][a-zA-Z0-9_-]{0,63}$`), unique across servers.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// The longest function name OpenAI, Anthropic and Gemini all accept.
pub const MAX_FUNCTION_NAME_LENGTH: usize = 64;
/// The name given to a tool whose name has no usable character at all.
pub const FALLBACK_FUNCTION_NAME: &str = "tool";
/// At most this much of a server's name goes into a de-duplicating suffix, so that the tool's own
/// name keeps most of the 64 characters.
const MAX_SERVER_SUFFIX_LENGTH: usize = 24;

/// A tool's provider-facing name and the way back to its server.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ToolName {
    /// The function name the model sees.
    pub name: String,
    pub server: String,
    pub tool: String,
}

/// Whether `c` is in `[a-zA-Z0-9_-]`: the characters providers take in function names, and
/// Anthropic in tool call ids.
pub fn is_name_character(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_' || c == '-'
}

/// `text` with every character outside `[a-zA-Z0-9_-]` made `_`.
pub fn with_name_characters(text: &str) -> String {
    let mut replaced = String::with_capacity(text.len());
    for c in text.chars() {
        replaced.push(if is_name_character(c) { c } else { '_' });
    }
    replaced
}

/// Replaces every character outside `[a-zA-Z0-9_-]` (`.`, `/`, spaces, non-ASCII) with `_` and
/// cuts to 64 characters. A name that would start with a digit or `-` gets a leading `_`, since
/// Gemini wants a letter or underscore first; an empty name becomes [`FALLBACK_FUNCTION_NAME`].
pub fn sanitize_function_name(name: &str) -> String {
    let mut sanitized = with_name_characters(name);
    if sanitized.is_empty() {
        return FALLBACK_FUNCTION_NAME.to_owned();
    }
    if sanitized.starts_with(|c: char| c.is_ascii_digit() || c == '-') {
        sanitized.insert(0, '_');
    }
    sanitized.truncate(MAX_FUNCTION_NAME_LENGTH);
    sanitized
}

/// `base` cut so that `base + suffix` fits in 64 characters: the suffix is what makes the name
/// unique, so it is the part that must survive. Both are ASCII after sanitizing.
fn with_suffix(base: &str, suffix: &str) -> String {
    let keep = MAX_FUNCTION_NAME_LENGTH.saturating_sub(suffix.len());
    format!("{}{suffix}", &base[..keep.min(base.len())])
}

/// Provider-facing names for `(server, tool)` pairs, in the same order. Deterministic for a given
/// order: the first tool keeps its sanitized name; a later one that collides becomes
/// `{name}_{server}`, then `{name}_{server}_2`, `_3`… with the suffix kept whole under the 64-char
/// cut. A suffixed name never takes a name that another tool has as its own sanitized name, so
/// adding a server cannot rename the tools of the servers before it in unexpected ways.
pub fn build_tool_names<S: AsRef<str>, T: AsRef<str>>(tools: &[(S, T)]) -> Vec<ToolName> {
    let mut own_names = Vec::with_capacity(tools.len());
    for (_, tool) in tools {
        own_names.push(sanitize_function_name(tool.as_ref()));
    }
    let mut reserved = NameSet::default();
    for name in &own_names {
        reserved.insert(name.clone());
    }
    let mut taken = NameSet::default();
    let mut names = Vec::with_capacity(tools.len());
    for ((server, tool), own_name) in tools.iter().zip(&own_names) {
        let name = if taken.contains(own_name) {
            unique_suffixed_name(own_name, server.as_ref(), &taken, &reserved)
        } else {
            own_name.clone()
        };
        taken.insert(name.clone());
        names.push(ToolName {
            name,
            server: server.as_ref().to_owned(),
            tool: tool.as_ref().to_owned(),
        });
    }
    names
}

/// A set of names kept in a JSON object's map, whose hash table the wasm has anyway: std's
/// `HashSet` would bring std's own copy of that table's code.
#[derive(Default)]
struct NameSet(Map<String, Value>);

impl NameSet {
    fn contains(&self, name: &str) -> bool {
        self.0.contains_key(name)
    }

    fn insert(&mut self, name: String) {
        self.0.insert(name, Value::Null);
    }
}

fn unique_suffixed_name(
    own_name: &str,
    server: &str,
    taken: &NameSet,
    reserved: &NameSet,
) -> String {
    let mut server_part = sanitize_function_name(server);
    server_part.truncate(MAX_SERVER_SUFFIX_LENGTH);
    let is_free = |candidate: &String| !taken.contains(candidate) && !reserved.contains(candidate);
    let candidate = with_suffix(own_name, &format!("_{server_part}"));
    if is_free(&candidate) {
        return candidate;
    }
    (2..)
        .map(|number| with_suffix(own_name, &format!("_{server_part}_{number}")))
        .find(is_free)
        .unwrap_or(candidate)
}
