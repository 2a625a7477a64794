//! Makes an MCP tool's `inputSchema` acceptable to a provider, in two passes.
//!
//! 1. Base rules, for every dialect: booleans become schemas, local `$ref`s are inlined (with a
//!    guard against recursion and blow-up; remote ones are never fetched), nesting is bounded,
//!    missing `type`s are inferred, contradictory `default: null` is dropped, OpenAPI `nullable`
//!    becomes a type array, draft-4 boolean `exclusiveMinimum`/`exclusiveMaximum` become
//!    2020-12 bounds, draft-7 tuples (`items: [..]`) become `prefixItems`, malformed keywords
//!    are removed, and the root becomes an object schema. OpenAI's dialects give every array
//!    `items`.
//! 2. The dialect's rewrite ([`SchemaDialect::OpenAiStrict`], [`SchemaDialect::Gemini`]); OpenAI
//!    non-strict takes the base result as is; Anthropic too, with the top-level property keys it
//!    refuses renamed (see [`super::property_keys`]).
//!
//! Every change that loses information is reported as a warning. The output is a fixed point:
//! sanitizing it again for the same dialect gives it back unchanged. Arguments are validated
//! against the ORIGINAL schema (see [`super::validate_arguments`]), so a lossy rewrite here only
//! lets the model propose values that the validator then catches.

use std::fmt;

use serde_json::{json, Map, Value};

use super::property_keys::{rename_property_keys, RenamedProperty};
use super::refs::{resolve_ref, RefTarget};
use super::{type_list, SanitizedSchema, SchemaDialect};
use crate::core::json_text::{object, to_json_text, SetMember};
use crate::core::text::{join, owned};

const TYPE_NAMES: [&str; 7] = [
    "string", "number", "integer", "boolean", "object", "array", "null",
];
/// How many times one `$ref` may be expanded inside itself: a recursive type is unrolled this
/// deep, then cut to `{}` with a warning.
const MAX_RECURSIVE_REF_DEPTH: usize = 3;
/// `$ref` expansions per schema, so that nested references cannot blow the output up.
const MAX_REF_EXPANSIONS: usize = 256;
/// About this many bytes of JSON per schema may be copied in by `$ref` inlining: the expansion
/// count alone lets one large definition, used everywhere, multiply the schema 256 times.
const MAX_INLINED_BYTES: usize = 128 * 1024;
/// Schema levels (each `$ref` hop counts as one) kept before the rest is cut to `{}`: a chain of
/// `$ref`s within the expansion budget can nest the output 1000s of levels deep, which overflows
/// the 1 MiB wasm stack in this pass or a later one and costs time quadratic in the depth. Real
/// tool schemas nest a few levels (OpenAI strict mode allows 10 objects); 50 keeps the output
/// within serde_json's 128 levels of JSON (a schema level is at most two: `properties` and a name).
const MAX_SCHEMA_DEPTH: usize = 50;
/// Each exclusive bound keyword with its inclusive twin.
const EXCLUSIVE_BOUNDS: [(&str, &str); 2] = [
    ("exclusiveMinimum", "minimum"),
    ("exclusiveMaximum", "maximum"),
];
/// Warnings listed per schema; the rest are counted in one last line.
const MAX_WARNINGS: usize = 100;
/// OpenAI strict mode limits (structured outputs documentation).
const STRICT_MAX_OBJECT_NESTING: usize = 10;
const STRICT_MAX_PROPERTIES: usize = 5000;
const STRICT_MAX_ENUM_VALUES: usize = 1000;
/// A string `enum` of more than this many values may total at most [`STRICT_MAX_LONG_ENUM_CHARS`].
const STRICT_LONG_ENUM_VALUES: usize = 250;
const STRICT_MAX_LONG_ENUM_CHARS: usize = 15_000;
/// Property names and `enum` values, in characters, across the schema.
const STRICT_MAX_TEXT_CHARS: usize = 120_000;
const STRICT_KEYWORDS: [&str; 18] = [
    "type",
    "description",
    "title",
    "properties",
    "required",
    "additionalProperties",
    "items",
    "anyOf",
    "enum",
    "pattern",
    "format",
    "minimum",
    "maximum",
    "exclusiveMinimum",
    "exclusiveMaximum",
    "multipleOf",
    "minItems",
    "maxItems",
];
const STRICT_FORMATS: [&str; 9] = [
    "date-time",
    "time",
    "date",
    "duration",
    "email",
    "hostname",
    "ipv4",
    "ipv6",
    "uuid",
];
/// The fields of Gemini's `Schema` object (an OpenAPI 3.0 subset) this sanitizer emits.
const GEMINI_KEYWORDS: [&str; 19] = [
    "type",
    "format",
    "title",
    "description",
    "nullable",
    "enum",
    "minItems",
    "maxItems",
    "properties",
    "required",
    "minProperties",
    "maxProperties",
    "minLength",
    "maxLength",
    "pattern",
    "anyOf",
    "items",
    "minimum",
    "maximum",
];
/// Keywords that keep a schema without `type` untyped: they constrain the value by themselves.
const UNTYPED_KEYWORDS: [&str; 10] = [
    "enum", "const", "$ref", "anyOf", "oneOf", "allOf", "not", "if", "then", "else",
];
const OBJECT_KEYWORDS: [&str; 5] = [
    "properties",
    "patternProperties",
    "additionalProperties",
    "propertyNames",
    "required",
];
const ARRAY_KEYWORDS: [&str; 3] = ["items", "prefixItems", "contains"];

/// Makes `schema` acceptable as function parameters for `dialect`, without mutating the input.
pub fn sanitize_schema(schema: &Value, dialect: SchemaDialect) -> SanitizedSchema {
    let mut sanitizer = Sanitizer {
        root: schema,
        dialect,
        warnings: Vec::new(),
        ref_stack: Vec::new(),
        depth: 0,
        ref_expansions: 0,
        inline_budget: MAX_INLINED_BYTES,
        unlisted_warnings: 0,
        strict_compatible: true,
        strict_property_count: 0,
    };
    let base = match schema {
        Value::Null => Value::Object(Map::new()),
        _ => sanitizer.base(schema, "#"),
    };
    let base = sanitizer.object_root(base);
    let mut schema = match dialect {
        SchemaDialect::OpenAi | SchemaDialect::Anthropic => sanitizer.plain_root(base),
        SchemaDialect::OpenAiStrict => {
            let root = sanitizer.strict(base, "#", 0);
            // A root `allOf` is left only when it could not be merged (the tool is sent
            // non-strict, its root as the base rules made it): flattening the union beside it
            // would take away what it conflicted with, and a second pass would merge it.
            let all_of_unmerged = root.get("allOf").is_some();
            let root = if all_of_unmerged {
                root
            } else {
                sanitizer.flatten_root_union(root)
            };
            if sanitizer.strict_compatible {
                sanitizer.check_strict_sizes(&root);
            }
            root
        }
        SchemaDialect::Gemini => {
            let root = sanitizer.gemini(base, "#");
            let mut root = sanitizer.flatten_root_union(root);
            if let Value::Object(root) = &mut root {
                // The arguments are always an object: a nullable root means nothing.
                root.shift_remove("nullable");
            }
            root
        }
    };
    let renamed_properties = match &mut schema {
        Value::Object(root) if dialect == SchemaDialect::Anthropic => {
            sanitizer.rename_property_keys(root)
        }
        _ => Vec::new(),
    };
    let mut warnings = sanitizer.warnings;
    if sanitizer.unlisted_warnings > 0 {
        warnings.push(format!(
            "{} more warnings not listed",
            sanitizer.unlisted_warnings
        ));
    }
    SanitizedSchema {
        schema,
        strict: dialect == SchemaDialect::OpenAiStrict && sanitizer.strict_compatible,
        warnings,
        renamed_properties,
    }
}

/// What OpenAI counts in a strict schema, over the schema positions strict output has.
#[derive(Default)]
struct StrictSizes {
    enum_values: usize,
    /// The characters of the longest string `enum` of more than [`STRICT_LONG_ENUM_VALUES`].
    long_enum_chars: usize,
    text_chars: usize,
}

impl StrictSizes {
    fn measure(&mut self, schema: &Value) {
        let Value::Object(node) = schema else {
            return;
        };
        if let Some(Value::Array(values)) = node.get("enum") {
            let mut strings: Vec<&str> = Vec::new();
            let mut chars = 0;
            for value in values {
                if let Some(text) = value.as_str() {
                    strings.push(text);
                    chars += text.chars().count();
                }
            }
            self.enum_values += values.len();
            self.text_chars += chars;
            if strings.len() > STRICT_LONG_ENUM_VALUES {
                self.long_enum_chars = self.long_enum_chars.max(chars);
            }
        }
        for (keyword, child) in node {
            match (keyword.as_str(), child) {
                ("properties", Value::Object(properties)) => {
                    for (name, property) in properties {
                        self.text_chars += name.chars().count();
                        self.measure(property);
                    }
                }
                ("items" | "additionalProperties", child) => self.measure(child),
                ("anyOf", Value::Array(branches)) => {
                    branches.iter().for_each(|branch| self.measure(branch))
                }
                _ => {}
            }
        }
    }
}

/// Takes about the size of `value` as JSON out of `budget`; `false` (the budget spent) as soon as
/// it does not fit, so that measuring costs no more than the budget allows.
fn take_json_bytes(value: &Value, budget: &mut usize) -> bool {
    let size = match value {
        Value::String(text) => text.len() + 2,
        Value::Array(_) => 2,
        Value::Object(members) => 2 + members.keys().map(|key| key.len() + 4).sum::<usize>(),
        _ => 5,
    };
    let Some(rest) = budget.checked_sub(size) else {
        *budget = 0;
        return false;
    };
    *budget = rest;
    match value {
        Value::Array(items) => items.iter().all(|item| take_json_bytes(item, budget)),
        Value::Object(members) => members
            .values()
            .all(|member| take_json_bytes(member, budget)),
        _ => true,
    }
}

struct Sanitizer<'a> {
    root: &'a Value,
    dialect: SchemaDialect,
    warnings: Vec<String>,
    ref_stack: Vec<String>,
    /// Schema levels (and `$ref` hops) above the node [`Sanitizer::base`] works on.
    depth: usize,
    ref_expansions: usize,
    /// Bytes of JSON that `$ref` inlining may still copy in (see [`MAX_INLINED_BYTES`]).
    inline_budget: usize,
    unlisted_warnings: usize,
    strict_compatible: bool,
    strict_property_count: usize,
}

/// [`type_list`] owned, for a node about to change.
fn owned_type_list(node: &Map<String, Value>) -> Option<Vec<String>> {
    type_list(node).map(|types| owned(&types))
}

fn has_type(node: &Map<String, Value>, type_name: &str) -> bool {
    type_list(node).is_some_and(|types| types.contains(&type_name))
}

/// Whether `null` can be valid under the node, as far as its own keywords tell.
fn accepts_null(node: &Map<String, Value>) -> bool {
    if let Some(types) = type_list(node) {
        return types.contains(&"null");
    }
    if let Some(Value::Array(values)) = node.get("enum") {
        return values.contains(&Value::Null);
    }
    if let Some(value) = node.get("const") {
        return value.is_null();
    }
    true
}

/// The schema `false` becomes: valid JSON Schema that no value matches.
fn never_schema() -> Value {
    object([("not", Value::Object(Map::new()))])
}

fn is_never(schema: &Value) -> bool {
    *schema == never_schema()
}

/// Gives a node without `type` the one its keywords imply (issue rules): `object`, `array`, else
/// `string`; `{}` and nodes whose keywords constrain the value by themselves stay untyped.
fn infer_type(node: &mut Map<String, Value>) {
    if node.is_empty()
        || node.contains_key("type")
        || UNTYPED_KEYWORDS.iter().any(|key| node.contains_key(*key))
    {
        return;
    }
    let inferred = if OBJECT_KEYWORDS.iter().any(|key| node.contains_key(*key)) {
        "object"
    } else if ARRAY_KEYWORDS.iter().any(|key| node.contains_key(*key)) {
        "array"
    } else {
        "string"
    };
    node.set("type", Value::from(inferred));
}

fn set_types(node: &mut Map<String, Value>, types: Vec<String>) {
    match types.len() {
        0 => {
            node.shift_remove("type");
        }
        1 => {
            node.set("type", Value::from(types[0].as_str()));
        }
        _ => {
            let mut type_values = Vec::with_capacity(types.len());
            for type_name in types {
                type_values.push(Value::String(type_name));
            }
            node.set("type", Value::Array(type_values));
        }
    }
}

/// Each of `keys` in backticks.
fn quoted(keys: &[String]) -> Vec<String> {
    let mut quoted = Vec::with_capacity(keys.len());
    for key in keys {
        quoted.push(format!("`{key}`"));
    }
    quoted
}

fn child_location(location: &str, keyword: &str, key: &str) -> String {
    format!("{location}/{keyword}/{key}")
}

impl Sanitizer<'_> {
    /// The message as format arguments, written once into the warning with its location.
    fn warn(&mut self, location: &str, message: fmt::Arguments<'_>) {
        if self.warnings.len() < MAX_WARNINGS {
            self.warnings.push(format!("{location}: {message}"));
        } else {
            self.unlisted_warnings += 1;
        }
    }

    /// Anthropic's rule for top-level property keys (see [`super::property_keys`]), each
    /// renamed key reported.
    fn rename_property_keys(&mut self, root: &mut Map<String, Value>) -> Vec<RenamedProperty> {
        let renamed = rename_property_keys(root);
        for renamed in &renamed {
            self.warn(
                &child_location("#", "properties", &renamed.original),
                format_args!(
                    "renamed `{}`: Anthropic takes only keys of 1 to 64 characters of [a-zA-Z0-9_.-]",
                    renamed.sent
                ),
            );
        }
        renamed
    }

    fn not_strict(&mut self, location: &str, reason: &str) {
        self.strict_compatible = false;
        self.warn(
            location,
            format_args!("{reason}; send this tool with `strict: false`"),
        );
    }

    // ---- base rules ----

    fn base(&mut self, schema: &Value, location: &str) -> Value {
        if self.depth == MAX_SCHEMA_DEPTH {
            // Cutting `{}` or `true` loses nothing, so cut output sanitized again stays quiet.
            let any_value =
                *schema == Value::Bool(true) || schema.as_object().is_some_and(Map::is_empty);
            if !any_value {
                self.warn(
                    location,
                    format_args!("nested deeper than {MAX_SCHEMA_DEPTH} levels: replaced by {{}} (any value)"),
                );
            }
            return json!({});
        }
        self.depth += 1;
        let sanitized = self.base_at_depth(schema, location);
        self.depth -= 1;
        sanitized
    }

    fn base_at_depth(&mut self, schema: &Value, location: &str) -> Value {
        match schema {
            Value::Bool(true) => json!({}),
            Value::Bool(false) => {
                self.warn(
                    location,
                    format_args!(
                        "`false` schema kept as `{{\"not\": {{}}}}`, which no value matches"
                    ),
                );
                never_schema()
            }
            Value::Object(map) => self.base_object(map, location),
            _ => {
                self.warn(
                    location,
                    format_args!("not a schema: replaced by {{}} (any value)"),
                );
                json!({})
            }
        }
    }

    fn base_object(&mut self, map: &Map<String, Value>, location: &str) -> Value {
        if let Some(reference) = map.get("$ref") {
            return self.inline_ref(map, reference, location);
        }
        let mut node = Map::new();
        for (key, value) in map {
            let sanitized = match key.as_str() {
                "$defs" | "definitions" => continue,
                "properties" | "patternProperties" | "dependentSchemas" => match value {
                    Value::Object(members) => {
                        let mut sanitized = Map::with_capacity(members.len());
                        for (name, member) in members {
                            let member_location = child_location(location, key, name);
                            sanitized.insert(name.clone(), self.base(member, &member_location));
                        }
                        Value::Object(sanitized)
                    }
                    _ => {
                        self.warn(location, format_args!("`{key}` is not an object: removed"));
                        continue;
                    }
                },
                "additionalProperties"
                | "unevaluatedProperties"
                | "additionalItems"
                | "unevaluatedItems" => match value {
                    Value::Bool(_) => value.clone(),
                    Value::Object(_) => self.base(value, &format!("{location}/{key}")),
                    _ => {
                        self.warn(location, format_args!("`{key}` is not a schema: removed"));
                        continue;
                    }
                },
                "items" if value.is_array() => self.base_list(value, key, location),
                "prefixItems" | "anyOf" | "oneOf" | "allOf" => match value {
                    Value::Array(members) if !members.is_empty() => {
                        self.base_list(value, key, location)
                    }
                    _ => {
                        self.warn(
                            location,
                            format_args!("`{key}` is not a non-empty list: removed"),
                        );
                        continue;
                    }
                },
                "items" | "propertyNames" | "contains" | "not" | "if" | "then" | "else" => {
                    self.base(value, &format!("{location}/{key}"))
                }
                _ => value.clone(),
            };
            node.insert(key.clone(), sanitized);
        }
        self.normalize(&mut node, location);
        Value::Object(node)
    }

    fn base_list(&mut self, list: &Value, keyword: &str, location: &str) -> Value {
        let members = list.as_array().map(Vec::as_slice).unwrap_or_default();
        let mut sanitized = Vec::with_capacity(members.len());
        for (index, member) in members.iter().enumerate() {
            let member_location = child_location(location, keyword, &index.to_string());
            sanitized.push(self.base(member, &member_location));
        }
        Value::Array(sanitized)
    }

    fn inline_ref(&mut self, map: &Map<String, Value>, reference: &Value, location: &str) -> Value {
        let mut siblings = Map::with_capacity(map.len());
        for (key, value) in map {
            if key != "$ref" {
                siblings.insert(key.clone(), value.clone());
            }
        }
        let Value::String(reference) = reference else {
            self.warn(location, format_args!("`$ref` is not a string: removed"));
            return self.base_object(&siblings, location);
        };
        let target = match resolve_ref(self.root, reference) {
            RefTarget::Found(target) => target,
            RefTarget::Remote => {
                self.warn(
                    location,
                    format_args!(
                        "remote `$ref` `{reference}` is not fetched: replaced by {{}} (any value)"
                    ),
                );
                return json!({});
            }
            RefTarget::Dangling => {
                self.warn(
                    location,
                    format_args!("`$ref` `{reference}` names nothing in this schema: replaced by {{}} (any value)"),
                );
                return json!({});
            }
        };
        let repeats = self
            .ref_stack
            .iter()
            .filter(|seen| *seen == reference)
            .count();
        if repeats >= MAX_RECURSIVE_REF_DEPTH {
            self.warn(
                location,
                format_args!("recursive `$ref` `{reference}` cut after {MAX_RECURSIVE_REF_DEPTH} levels: replaced by {{}} (any value)"),
            );
            return json!({});
        }
        if self.ref_expansions > MAX_REF_EXPANSIONS {
            return json!({});
        }
        if self.ref_expansions == MAX_REF_EXPANSIONS
            || !take_json_bytes(target, &mut self.inline_budget)
        {
            self.ref_expansions = MAX_REF_EXPANSIONS + 1;
            self.warn(
                location,
                format_args!("`$ref` expansion limit reached ({MAX_REF_EXPANSIONS} expansions or about {} KB inlined): this and later `$ref`s replaced by {{}} (any value)", MAX_INLINED_BYTES / 1024),
            );
            return json!({});
        }
        self.ref_expansions += 1;
        // Keywords next to `$ref` (a description, a default) refine the target.
        let merged = match target {
            Value::Object(target_map) => {
                let mut merged = target_map.clone();
                merged.extend(siblings);
                Value::Object(merged)
            }
            Value::Bool(true) => Value::Object(siblings),
            other => other.clone(),
        };
        self.ref_stack.push(reference.clone());
        let inlined = self.base(&merged, location);
        self.ref_stack.pop();
        inlined
    }

    /// The base rules that look at one node, its children being sanitized already.
    fn normalize(&mut self, node: &mut Map<String, Value>, location: &str) {
        self.tuple_to_prefix_items(node, location);
        if !matches!(node.get("enum"), None | Some(Value::Array(_)))
            || node
                .get("enum")
                .and_then(Value::as_array)
                .is_some_and(Vec::is_empty)
        {
            node.shift_remove("enum");
            self.warn(
                location,
                format_args!("`enum` is not a non-empty list: removed"),
            );
        }
        match node.get("type") {
            None => {}
            Some(Value::String(type_name)) if TYPE_NAMES.contains(&type_name.as_str()) => {}
            Some(type_value) => {
                let listed: Vec<&Value> = match type_value {
                    Value::Array(listed) => listed.iter().collect(),
                    other => vec![other],
                };
                let mut types: Vec<String> = Vec::new();
                let mut dropped = Vec::new();
                for listed_type in listed {
                    match listed_type.as_str() {
                        Some(name) if TYPE_NAMES.contains(&name) => {
                            if !types.iter().any(|kept| kept == name) {
                                types.push(name.to_owned());
                            }
                        }
                        _ => dropped.push(to_json_text(listed_type)),
                    }
                }
                if !dropped.is_empty() {
                    self.warn(
                        location,
                        format_args!("unknown type {} removed", join(&dropped, ", ")),
                    );
                }
                set_types(node, types);
            }
        }
        for (exclusive, inclusive) in EXCLUSIVE_BOUNDS {
            // Draft 4's `exclusiveMinimum: true` made `minimum` exclusive; 2020-12, the only
            // draft Anthropic accepts, wants the bound itself under `exclusiveMinimum`.
            match node.get(exclusive) {
                Some(Value::Bool(true)) if node.get(inclusive).is_some_and(Value::is_number) => {
                    let bound = node.shift_remove(inclusive).unwrap_or_default();
                    node.set(exclusive, bound);
                }
                Some(Value::Bool(_)) => {
                    node.shift_remove(exclusive);
                }
                _ => {}
            }
        }
        self.drop_mistyped_keywords(node, location);
        infer_type(node);
        // OpenAI refuses an array without `items` even when not strict ("array schema missing
        // items"); a missing `items` takes any item, and so does `{}`.
        let openai = matches!(
            self.dialect,
            SchemaDialect::OpenAi | SchemaDialect::OpenAiStrict
        );
        if openai && has_type(node, "array") && !node.contains_key("items") {
            node.set("items", json!({}));
        }
        if let Some(nullable) = node.shift_remove("nullable") {
            if nullable == Value::Bool(true) {
                self.add_null(node);
            }
        }
        if node.get("default") == Some(&Value::Null) && !accepts_null(node) {
            node.shift_remove("default");
        }
        match node.get("required") {
            None => {}
            Some(Value::Array(names)) => {
                let mut unique: Vec<Value> = Vec::new();
                for name in names.iter().filter(|name| name.is_string()) {
                    if !unique.contains(name) {
                        unique.push(name.clone());
                    }
                }
                if unique.len() != names.len() {
                    node.set("required", Value::Array(unique));
                }
            }
            Some(_) => {
                node.shift_remove("required");
                self.warn(
                    location,
                    format_args!("`required` is not a list of names: removed"),
                );
            }
        }
    }

    /// Removes keywords whose value has another type than the 2020-12 meta-schema gives it
    /// (often a generator's `null` for an unset field): Anthropic refuses the whole schema then.
    fn drop_mistyped_keywords(&mut self, node: &mut Map<String, Value>, location: &str) {
        let mut mistyped: Vec<(String, &str)> = Vec::new();
        for (key, value) in node.iter() {
            let (fits, kind) = match key.as_str() {
                "description" | "title" | "pattern" | "format" | "$comment" | "$id" | "$schema"
                | "$anchor" | "contentEncoding" | "contentMediaType" => {
                    (value.is_string(), "string")
                }
                "minimum" | "maximum" | "exclusiveMinimum" | "exclusiveMaximum" => {
                    (value.is_number(), "number")
                }
                "multipleOf" => (
                    value.as_f64().is_some_and(|factor| factor > 0.0),
                    "positive number",
                ),
                "minLength" | "maxLength" | "minItems" | "maxItems" | "minProperties"
                | "maxProperties" | "minContains" | "maxContains" => (value.is_u64(), "count"),
                "uniqueItems" | "deprecated" | "readOnly" | "writeOnly" => {
                    (value.is_boolean(), "boolean")
                }
                "examples" => (value.is_array(), "list"),
                _ => (true, ""),
            };
            if !fits {
                mistyped.push((key.clone(), kind));
            }
        }
        for (key, kind) in mistyped {
            node.shift_remove(key.as_str());
            self.warn(location, format_args!("`{key}` is not a {kind}: removed"));
        }
    }

    /// Draft 7's tuple, `items: [..]` with `additionalItems` for the rest, in 2020-12's words
    /// (`prefixItems`, then `items`): Anthropic refuses a list under `items` as invalid 2020-12.
    fn tuple_to_prefix_items(&mut self, node: &mut Map<String, Value>, location: &str) {
        if !node.get("items").is_some_and(Value::is_array) {
            return;
        }
        let positional = node.shift_remove("items").unwrap_or_default();
        if node.contains_key("prefixItems") {
            self.warn(
                location,
                format_args!("`items` as a list next to `prefixItems` removed"),
            );
        } else if positional.as_array().is_some_and(|items| !items.is_empty()) {
            node.set("prefixItems", positional);
        }
        let rest = match node.shift_remove("additionalItems") {
            None => return,
            Some(Value::Bool(true)) => json!({}),
            Some(Value::Bool(false)) => never_schema(),
            Some(schema) => schema,
        };
        node.set("items", rest);
    }

    /// Lets `null` through a node, the way OpenAPI's `nullable: true` did: every keyword that
    /// would refuse it (`type`, a union, `const`, `enum`) is widened.
    fn add_null(&self, node: &mut Map<String, Value>) {
        // An `allOf` is left only where strict mode could not merge it, and the tool goes
        // non-strict: given `null` here, a second pass could merge it (`string` and an `allOf` of
        // `null` do not overlap; `string` or `null` and it do), so that output is left as it is.
        if node.contains_key("allOf") {
            return;
        }
        if let Some(mut types) = owned_type_list(node) {
            if !types.iter().any(|name| name == "null") {
                types.push("null".to_owned());
            }
            set_types(node, types);
        }
        let null_branch = object([("type", Value::from("null"))]);
        if let Some(Value::Array(branches)) = node.get_mut("anyOf") {
            // Even when another branch takes `null`: Gemini's rewrite turns this branch back into
            // `nullable`, so that a sanitized schema sanitized again stays the same.
            if !branches.contains(&null_branch) {
                branches.push(null_branch.clone());
            }
        }
        if let Some(Value::Array(branches)) = node.get_mut("oneOf") {
            // Not when a branch may take `null` already: it would then match twice.
            let takes_null = branches
                .iter()
                .any(|branch| branch.as_object().is_some_and(accepts_null));
            if !takes_null {
                branches.push(null_branch);
            }
        }
        if !node.contains_key("enum") {
            if let Some(value) = node.shift_remove("const") {
                node.set("enum", Value::Array(vec![value]));
            }
        }
        if let Some(Value::Array(values)) = node.get_mut("enum") {
            if !values.contains(&Value::Null) {
                values.push(Value::Null);
            }
        }
    }

    fn object_root(&mut self, root: Value) -> Value {
        let mut node = match root {
            Value::Object(node) => node,
            _ => Map::new(),
        };
        let types = owned_type_list(&node);
        match types {
            None => {
                if !node.is_empty() {
                    self.warn(
                        "#",
                        format_args!("the root schema has no `type`: set to `object`"),
                    );
                }
                node.set("type", Value::from("object"));
            }
            Some(types) if types == ["object"] => {}
            Some(types) if types.iter().any(|name| name == "object") => {
                self.warn("#", format_args!("the root type is narrowed to `object`"));
                node.set("type", Value::from("object"));
            }
            Some(types) => {
                self.warn(
                    "#",
                    format_args!(
                        "the root schema is a {}, not an object: replaced by an empty object schema",
                        join(&types, " or ")
                    ),
                );
                node = Map::new();
                node.set("type", Value::from("object"));
            }
        }
        if node.get("default") == Some(&Value::Null) {
            node.shift_remove("default");
        }
        node.entry("properties")
            .or_insert_with(|| Value::Object(Map::new()));
        Value::Object(node)
    }

    // ---- shared rewrites ----

    /// Removes properties no value may have (`false` schemas) from an object node.
    fn drop_never_properties(&mut self, node: &mut Map<String, Value>, location: &str) {
        let Some(Value::Object(properties)) = node.get_mut("properties") else {
            return;
        };
        let mut never: Vec<String> = Vec::new();
        for (name, schema) in properties.iter() {
            if is_never(schema) {
                never.push(name.clone());
            }
        }
        if never.is_empty() {
            return;
        }
        properties.retain(|name, _| !never.contains(name));
        if let Some(Value::Array(required)) = node.get_mut("required") {
            required.retain(|name| !never.iter().any(|never_name| name == never_name));
        }
        self.warn(
            location,
            format_args!(
                "properties that accept no value removed: {}",
                join(&never, ", ")
            ),
        );
    }

    fn drop_keywords_outside(
        &mut self,
        node: &mut Map<String, Value>,
        allowed: &[&str],
        location: &str,
    ) {
        let mut removed: Vec<String> = Vec::new();
        for key in node.keys() {
            if !allowed.contains(&key.as_str()) {
                removed.push(key.clone());
            }
        }
        if removed.is_empty() {
            return;
        }
        for key in &removed {
            node.shift_remove(key.as_str());
        }
        self.warn(
            location,
            format_args!(
                "removed {} (not supported by {})",
                join(&quoted(&removed), ", "),
                self.dialect.name()
            ),
        );
    }

    fn rewrite_one_of(&mut self, node: &mut Map<String, Value>, location: &str) {
        let Some(one_of) = node.shift_remove("oneOf") else {
            return;
        };
        if node.contains_key("anyOf") {
            self.warn(location, format_args!("`oneOf` next to `anyOf` removed"));
        } else {
            node.set("anyOf", one_of);
            self.warn(
                location,
                format_args!("`oneOf` rewritten as `anyOf` (exclusivity not enforced)"),
            );
        }
    }

    /// Folds `allOf` into the node; `Err` with the conflict when it cannot.
    fn rewrite_all_of(
        &mut self,
        node: Map<String, Value>,
        location: &str,
    ) -> Result<Map<String, Value>, String> {
        if !node.contains_key("allOf") {
            return Ok(node);
        }
        let dialect = self.dialect;
        let dialect_keeps = move |key: &str| match dialect {
            SchemaDialect::Gemini => GEMINI_KEYWORDS.contains(&key) || key == "const",
            SchemaDialect::OpenAiStrict => {
                STRICT_KEYWORDS.contains(&key)
                    || ["const", "patternProperties", "prefixItems"].contains(&key)
            }
            SchemaDialect::OpenAi | SchemaDialect::Anthropic => true,
        };
        let merged = merge_all_of(node, &dialect_keeps)?;
        self.warn(location, format_args!("`allOf` merged into one schema"));
        Ok(merged)
    }

    /// OpenAI and Anthropic refuse parameters with `anyOf`, `oneOf` or `allOf` at the top level
    /// (OpenAI also `enum`, `const` and `not`), strict or not, and one such tool fails every model
    /// call of a run with a 400: the root's `allOf` is merged (removed when it cannot be), its
    /// union flattened like strict mode's, and the rest removed.
    fn plain_root(&mut self, root: Value) -> Value {
        let Value::Object(mut root) = root else {
            return root;
        };
        if root.contains_key("allOf") {
            root = match self.rewrite_all_of(root.clone(), "#") {
                Ok(merged) => merged,
                Err(conflict) => {
                    root.shift_remove("allOf");
                    self.warn(
                        "#",
                        format_args!("the root `allOf` cannot be merged ({conflict}): removed"),
                    );
                    root
                }
            };
        }
        if root.get("default") == Some(&Value::Null) {
            // From a merged `allOf` member: the root is an object, never `null`.
            root.shift_remove("default");
        }
        self.rewrite_one_of(&mut root, "#");
        for keyword in ["enum", "const", "not"] {
            if root.shift_remove(keyword).is_some() {
                self.warn(
                    "#",
                    format_args!("`{keyword}` is not accepted at the root: removed"),
                );
            }
        }
        self.flatten_root_union(Value::Object(root))
    }

    /// Every dialect wants a plain object at the root, not a union: a root `anyOf` whose
    /// branches are all objects becomes one object with every branch's properties, optional
    /// (nullable for strict) unless the root itself requires them. Runs on the rewritten root,
    /// so that the branches already have their final shape.
    fn flatten_root_union(&mut self, root: Value) -> Value {
        let Value::Object(mut root) = root else {
            return root;
        };
        let Some(Value::Array(branches)) = root.get("anyOf") else {
            return Value::Object(root);
        };
        if !branches.iter().all(|branch| {
            branch
                .as_object()
                .is_some_and(|branch| has_type(branch, "object"))
        }) {
            if self.dialect == SchemaDialect::OpenAiStrict {
                self.not_strict("#", "the root is a union, not a single object");
            } else {
                root.shift_remove("anyOf");
                self.warn(
                    "#",
                    format_args!("the root `anyOf` is not a union of objects: removed"),
                );
            }
            return Value::Object(root);
        }
        let Some(Value::Array(branches)) = root.shift_remove("anyOf") else {
            return Value::Object(root);
        };
        let mut added = Vec::new();
        let properties = root
            .entry("properties")
            .or_insert_with(|| Value::Object(Map::new()));
        if let Value::Object(properties) = properties {
            for branch in branches {
                let Some(Value::Object(branch_properties)) = branch.get("properties") else {
                    continue;
                };
                for (name, schema) in branch_properties {
                    if !properties.contains_key(name) {
                        let mut schema = schema.clone();
                        if self.dialect == SchemaDialect::OpenAiStrict {
                            if let Value::Object(schema) = &mut schema {
                                self.add_null(schema);
                            }
                        }
                        properties.insert(name.clone(), schema);
                        added.push(Value::String(name.clone()));
                    }
                }
            }
        }
        if self.dialect == SchemaDialect::OpenAiStrict {
            // Strict mode requires every property; listed in the properties' order, as a second
            // pass over the flattened root lists them, so that sanitizing is a fixed point.
            let all_names: Vec<Value> = match root.get("properties") {
                Some(Value::Object(properties)) => {
                    let mut names = Vec::with_capacity(properties.len());
                    for name in properties.keys() {
                        names.push(Value::String(name.clone()));
                    }
                    names
                }
                _ => added,
            };
            if let Some(Value::Array(required)) = root.get_mut("required") {
                *required = all_names;
            }
        }
        self.warn(
            "#",
            format_args!("the root `anyOf` of objects is flattened into one object whose properties are all optional (the alternatives are not enforced)"),
        );
        Value::Object(root)
    }

    fn strict(&mut self, node: Value, location: &str, nesting: usize) -> Value {
        let Value::Object(original) = node else {
            return node;
        };
        let mut node = original.clone();
        self.rewrite_one_of(&mut node, location);
        if let Some(value) = node.shift_remove("const") {
            node.set("enum", Value::Array(vec![value]));
        }
        let mut node = match self.rewrite_all_of(node, location) {
            Ok(node) => node,
            Err(conflict) => {
                // Left as the base rules made it, for a non-strict request: rewriting it half
                // way would make the `allOf` unsatisfiable or the output unstable.
                self.not_strict(location, &format!("`allOf` cannot be merged ({conflict})"));
                return Value::Object(original);
            }
        };
        if let Some(Value::String(format)) = node.get("format") {
            if !STRICT_FORMATS.contains(&format.as_str()) {
                self.warn(
                    location,
                    format_args!("format `{format}` is not supported by openai-strict: removed"),
                );
                node.shift_remove("format");
            }
        }
        self.drop_never_properties(&mut node, location);
        let mut allowed: Vec<&str> = STRICT_KEYWORDS.to_vec();
        let free_form_map = matches!(
            node.get("additionalProperties"),
            Some(Value::Object(_) | Value::Bool(true))
        ) || node.contains_key("patternProperties");
        if free_form_map {
            allowed.push("patternProperties");
            self.not_strict(location, "an object with free-form keys (a map)");
        }
        let tuple =
            node.contains_key("prefixItems") || node.get("items").is_some_and(Value::is_array);
        if tuple {
            allowed.push("prefixItems");
            self.not_strict(location, "a tuple (positional items)");
        }
        self.drop_keywords_outside(&mut node, &allowed, location);
        let is_object = has_type(&node, "object");
        let object_nesting = nesting + usize::from(is_object);
        if is_object && object_nesting == STRICT_MAX_OBJECT_NESTING + 1 {
            self.not_strict(
                location,
                &format!("objects nest deeper than {STRICT_MAX_OBJECT_NESTING} levels"),
            );
        }
        for (keyword, child) in node.iter_mut() {
            match keyword.as_str() {
                "properties" | "patternProperties" => {
                    if let Value::Object(members) = child {
                        for (name, member) in members.iter_mut() {
                            let member_location = child_location(location, keyword, name);
                            *member = self.strict(member.take(), &member_location, object_nesting);
                        }
                    }
                }
                "items" | "additionalProperties" if child.is_object() => {
                    *child = self.strict(
                        child.take(),
                        &format!("{location}/{keyword}"),
                        object_nesting,
                    );
                }
                "items" | "prefixItems" | "anyOf" => {
                    if let Value::Array(members) = child {
                        for (index, member) in members.iter_mut().enumerate() {
                            let member_location =
                                child_location(location, keyword, &index.to_string());
                            *member = self.strict(member.take(), &member_location, object_nesting);
                        }
                    }
                }
                _ => {}
            }
        }
        infer_type(&mut node);
        if has_type(&node, "object") {
            // An object that lists no properties takes any keys (a `dict`, or a branch like
            // `{required: [a]}` that only constrains its parent): closed, it would take only
            // `{}`. Such objects, like maps, are left open and the tool is sent non-strict.
            let lists_no_keys =
                !node.contains_key("properties") && !node.contains_key("additionalProperties");
            if lists_no_keys {
                self.not_strict(location, "an object without `properties` (any keys)");
            } else if !free_form_map {
                self.strict_object(&mut node, location);
            }
        }
        if has_type(&node, "array") && !node.contains_key("items") {
            // A type merged in from `allOf` here, after the base rules gave arrays `items`.
            if !tuple {
                self.not_strict(location, "an array without `items`");
            }
            node.set("items", json!({}));
        }
        if node.is_empty() {
            self.not_strict(location, "a schema without `type` (any value)");
        }
        Value::Object(node)
    }

    /// OpenAI's limits on the text of a strict schema: `enum` values and property names.
    fn check_strict_sizes(&mut self, root: &Value) {
        let mut sizes = StrictSizes::default();
        sizes.measure(root);
        if sizes.enum_values > STRICT_MAX_ENUM_VALUES {
            self.not_strict(
                "#",
                &format!("more than {STRICT_MAX_ENUM_VALUES} `enum` values in all"),
            );
        }
        if sizes.long_enum_chars > STRICT_MAX_LONG_ENUM_CHARS {
            self.not_strict(
                "#",
                &format!("a string `enum` of more than {STRICT_LONG_ENUM_VALUES} values totals more than {STRICT_MAX_LONG_ENUM_CHARS} characters"),
            );
        }
        if sizes.text_chars > STRICT_MAX_TEXT_CHARS {
            self.not_strict(
                "#",
                &format!("more than {STRICT_MAX_TEXT_CHARS} characters of property names and `enum` values"),
            );
        }
    }

    /// Every property listed in `required`, the optional ones made nullable, no extra keys.
    fn strict_object(&mut self, node: &mut Map<String, Value>, location: &str) {
        let originally_required: Vec<Value> = node
            .get("required")
            .and_then(Value::as_array)
            .cloned()
            .unwrap_or_default();
        let properties = node
            .entry("properties")
            .or_insert_with(|| Value::Object(Map::new()));
        let Value::Object(properties) = properties else {
            return;
        };
        let mut required = Vec::with_capacity(properties.len());
        for (name, schema) in properties.iter_mut() {
            if !originally_required.contains(&Value::String(name.clone())) {
                if let Value::Object(schema) = schema {
                    self.add_null(schema);
                }
            }
            required.push(Value::String(name.clone()));
        }
        self.strict_property_count += properties.len();
        let too_many = self.strict_property_count > STRICT_MAX_PROPERTIES
            && self.strict_property_count - properties.len() <= STRICT_MAX_PROPERTIES;
        node.set("required", Value::Array(required));
        node.set("additionalProperties", Value::Bool(false));
        if too_many {
            self.not_strict(
                location,
                &format!("more than {STRICT_MAX_PROPERTIES} properties in all"),
            );
        }
    }

    // ---- gemini ----

    fn gemini(&mut self, node: Value, location: &str) -> Value {
        let Value::Object(mut node) = node else {
            return node;
        };
        self.rewrite_one_of(&mut node, location);
        if let Some(value) = node.shift_remove("const") {
            node.set("enum", Value::Array(vec![value]));
        }
        let mut node = match self.rewrite_all_of(node.clone(), location) {
            Ok(merged) => merged,
            Err(conflict) => {
                node.shift_remove("allOf");
                self.warn(
                    location,
                    format_args!("`allOf` cannot be merged ({conflict}): removed"),
                );
                node
            }
        };
        self.gemini_tuple(&mut node, location);
        self.gemini_null_branches(&mut node);
        self.gemini_types(&mut node, location);
        self.gemini_enum(&mut node, location);
        self.gemini_bounds(&mut node, location);
        if node.get("type").and_then(Value::as_str) == Some("array") && !node.contains_key("items")
        {
            // Gemini refuses an array without `items` ("items: missing field"), and with it the
            // whole request. Strings are an item type every Gemini version accepts, and the
            // model can write any value as one; the validator checks the original schema, which
            // takes any item, so no call is refused for it.
            node.set("items", object([("type", Value::from("string"))]));
            self.warn(
                location,
                format_args!("an array without `items` is offered as an array of strings"),
            );
        }
        if let Some(Value::String(format)) = node.get("format") {
            let allowed = match node.get("type").and_then(Value::as_str) {
                Some("string") => ["date-time", "enum"].contains(&format.as_str()),
                Some("integer") => ["int32", "int64"].contains(&format.as_str()),
                Some("number") => ["float", "double"].contains(&format.as_str()),
                _ => false,
            };
            if !allowed {
                self.warn(
                    location,
                    format_args!("format `{format}` is not supported by gemini: removed"),
                );
                node.shift_remove("format");
            }
        }
        self.drop_never_properties(&mut node, location);
        self.drop_keywords_outside(&mut node, &GEMINI_KEYWORDS, location);
        for (keyword, child) in node.iter_mut() {
            match (keyword.as_str(), child) {
                ("properties", Value::Object(members)) => {
                    for (name, member) in members.iter_mut() {
                        let member_location = child_location(location, keyword, name);
                        *member = self.gemini(member.take(), &member_location);
                    }
                }
                ("items", child) => {
                    *child = self.gemini(child.take(), &format!("{location}/items"));
                }
                ("anyOf", Value::Array(members)) => {
                    for (index, member) in members.iter_mut().enumerate() {
                        let member_location = child_location(location, keyword, &index.to_string());
                        *member = self.gemini(member.take(), &member_location);
                    }
                }
                _ => {}
            }
        }
        if node.get("type").and_then(Value::as_str) == Some("object") {
            let mut names: Vec<Value> = Vec::new();
            if let Some(properties) = node.get("properties").and_then(Value::as_object) {
                for name in properties.keys() {
                    names.push(Value::String(name.clone()));
                }
            }
            if let Some(Value::Array(required)) = node.get_mut("required") {
                let before = required.len();
                required.retain(|name| names.contains(name));
                if required.len() != before {
                    self.warn(
                        location,
                        format_args!("`required` names that are not properties removed"),
                    );
                }
            }
            // Gemini refuses `properties: {}` ("should be non-empty for OBJECT type") but takes
            // an object without `properties`, which means the same. The root keeps them: a tool
            // without parameters is declared without its schema (`provider::gemini`).
            if names.is_empty() && location != "#" {
                node.shift_remove("properties");
                node.shift_remove("required");
            }
        } else if node.contains_key("properties") || node.contains_key("required") {
            node.shift_remove("properties");
            node.shift_remove("required");
            self.warn(
                location,
                format_args!("`properties`/`required` on a non-object schema removed"),
            );
        }
        infer_type(&mut node);
        if let Some(folded) = self.gemini_fold_single_branch(&node, location) {
            return self.gemini(Value::Object(folded), location);
        }
        Value::Object(node)
    }

    /// Gemini has no exclusive bounds: one becomes the inclusive bound, a little looser (the
    /// validator still checks the original), rather than no bound at all.
    fn gemini_bounds(&mut self, node: &mut Map<String, Value>, location: &str) {
        for (exclusive, inclusive) in EXCLUSIVE_BOUNDS {
            if node.get(exclusive).is_some_and(Value::is_number) && !node.contains_key(inclusive) {
                let bound = node.shift_remove(exclusive).unwrap_or_default();
                node.set(inclusive, bound);
                self.warn(
                    location,
                    format_args!(
                        "`{exclusive}` loosened to `{inclusive}` (not supported by gemini)"
                    ),
                );
            }
        }
    }

    /// `anyOf: [X, {type: null}]` (pydantic's `Optional[X]`): the `null` branch becomes
    /// `nullable: true`.
    fn gemini_null_branches(&mut self, node: &mut Map<String, Value>) {
        let Some(Value::Array(branches)) = node.get_mut("anyOf") else {
            return;
        };
        let before = branches.len();
        branches.retain(|branch| *branch != object([("type", Value::from("null"))]));
        let remaining = branches.len();
        if remaining != before {
            node.set("nullable", Value::Bool(true));
        }
        if remaining == 0 {
            node.shift_remove("anyOf");
        }
    }

    /// An `anyOf` left with one (rewritten) branch is folded into the node, as Gemini has no use
    /// for a one-way union. `None` when there is nothing to fold or the two disagree.
    fn gemini_fold_single_branch(
        &mut self,
        node: &Map<String, Value>,
        location: &str,
    ) -> Option<Map<String, Value>> {
        let Some(Value::Array(branches)) = node.get("anyOf") else {
            return None;
        };
        let [Value::Object(only)] = branches.as_slice() else {
            return None;
        };
        let mut merged = node.clone();
        merged.shift_remove("anyOf");
        for (key, value) in only.clone() {
            if key == "description" || key == "title" {
                merged.entry(key).or_insert(value);
                continue;
            }
            if merge_keyword(&mut merged, key, value).is_err() {
                self.warn(
                    location,
                    format_args!("a single-branch `anyOf` could not be folded into its parent"),
                );
                return None;
            }
        }
        Some(merged)
    }

    /// One `type` per node: `["string", "null"]` becomes `string` + `nullable`, several types an
    /// `anyOf`; a lone `null` type, which OpenAPI 3.0 lacks, a nullable string.
    fn gemini_types(&mut self, node: &mut Map<String, Value>, location: &str) {
        let Some(types) = owned_type_list(node) else {
            return;
        };
        let mut non_null: Vec<String> = Vec::new();
        for name in &types {
            if name != "null" {
                non_null.push(name.clone());
            }
        }
        if non_null.len() != types.len() {
            node.set("nullable", Value::Bool(true));
        }
        match non_null.len() {
            0 => {
                self.warn(
                    location,
                    format_args!("a `null`-only type becomes a nullable string"),
                );
                node.set("type", Value::from("string"));
            }
            1 => {
                node.set("type", Value::String(non_null.remove(0)));
            }
            _ if node.contains_key("anyOf") => {
                node.shift_remove("type");
                self.warn(
                    location,
                    format_args!("a type list next to `anyOf` removed"),
                );
            }
            _ => {
                node.shift_remove("type");
                let mut branches = Vec::with_capacity(non_null.len());
                for name in &non_null {
                    branches.push(object([("type", Value::String(name.clone()))]));
                }
                node.set("anyOf", Value::Array(branches));
                self.warn(location, format_args!("a type list becomes an `anyOf`"));
            }
        }
    }

    /// Gemini's `enum` lists strings; `null` becomes `nullable`, other values move to the
    /// description so the model still sees them.
    fn gemini_enum(&mut self, node: &mut Map<String, Value>, location: &str) {
        let Some(Value::Array(values)) = node.get("enum").cloned() else {
            return;
        };
        let mut non_null: Vec<Value> = Vec::new();
        for value in &values {
            if !value.is_null() {
                non_null.push(value.clone());
            }
        }
        if non_null.len() != values.len() {
            node.set("nullable", Value::Bool(true));
        }
        if !non_null.is_empty() && non_null.iter().all(Value::is_string) {
            node.set("enum", Value::Array(non_null.clone()));
            if !node.contains_key("type") {
                node.set("type", Value::from("string"));
            }
            if node.get("type").and_then(Value::as_str) == Some("string") {
                return;
            }
        }
        node.shift_remove("enum");
        if non_null.is_empty() {
            return;
        }
        let mut listed_values = Vec::with_capacity(non_null.len());
        for value in &non_null {
            listed_values.push(to_json_text(value));
        }
        let listed = join(&listed_values, ", ");
        let note = format!("Allowed values: {listed}.");
        let description = match node.get("description").and_then(Value::as_str) {
            Some(existing) if !existing.is_empty() => format!("{existing} {note}"),
            _ => note,
        };
        node.set("description", Value::String(description));
        if !node.contains_key("type") {
            let kind = if non_null
                .iter()
                .all(|value| value.as_i64().is_some() || value.as_u64().is_some())
            {
                Some("integer")
            } else if non_null.iter().all(Value::is_number) {
                Some("number")
            } else if non_null.iter().all(Value::is_boolean) {
                Some("boolean")
            } else {
                None
            };
            if let Some(kind) = kind {
                node.set("type", Value::from(kind));
            }
        }
        self.warn(
            location,
            format_args!("non-string `enum` values moved to the description"),
        );
    }

    /// Positional items (`prefixItems`, `items: [..]`) become one `items` schema.
    fn gemini_tuple(&mut self, node: &mut Map<String, Value>, location: &str) {
        let positional = match (node.shift_remove("prefixItems"), node.get("items")) {
            (Some(Value::Array(prefix)), _) => Some(prefix),
            (None, Some(Value::Array(items))) => Some(items.clone()),
            _ => None,
        };
        let Some(mut positional) = positional else {
            return;
        };
        positional.dedup();
        let items = if positional.len() == 1 {
            positional.remove(0)
        } else {
            object([("anyOf", Value::Array(positional))])
        };
        node.set("items", items);
        self.warn(
            location,
            format_args!("positional items merged into one `items` schema"),
        );
    }
}

/// Folds `allOf` into the node. `Err` names the first conflict. Keywords of the members that
/// `dialect_keeps` rejects are left out: the dialect would drop them anyway, and they must not
/// decide whether the merge succeeds.
fn merge_all_of(
    mut node: Map<String, Value>,
    dialect_keeps: &dyn Fn(&str) -> bool,
) -> Result<Map<String, Value>, String> {
    let Some(Value::Array(members)) = node.shift_remove("allOf") else {
        return Ok(node);
    };
    for member in members {
        let Value::Object(member) = member else {
            return Err("a member is not an object schema".to_owned());
        };
        for (key, value) in merge_all_of(member, dialect_keeps)? {
            // Both dialects that merge `allOf` also turn `oneOf` into `anyOf` and `const` into
            // a one-value `enum`, before merging.
            let (key, value) = match key.as_str() {
                "oneOf" => ("anyOf".to_owned(), value),
                "const" => ("enum".to_owned(), Value::Array(vec![value])),
                _ => (key, value),
            };
            if !dialect_keeps(&key) {
                continue;
            }
            merge_keyword(&mut node, key, value)?;
        }
    }
    infer_type(&mut node);
    Ok(node)
}

/// Merges one keyword of an `allOf` member (or a folded branch) into `node`.
fn merge_keyword(node: &mut Map<String, Value>, key: String, value: Value) -> Result<(), String> {
    match node.get_mut(&key) {
        None => {
            node.insert(key, value);
            Ok(())
        }
        Some(existing) if *existing == value => Ok(()),
        Some(Value::Object(existing)) if key == "properties" => {
            let Value::Object(added) = value else {
                return Err("`properties` is not an object".to_owned());
            };
            for (name, schema) in added {
                match existing.get(&name) {
                    Some(present) if *present != schema => {
                        return Err(format!("property `{name}` is defined twice"));
                    }
                    _ => {
                        existing.insert(name, schema);
                    }
                }
            }
            Ok(())
        }
        Some(Value::Array(existing)) if key == "required" => {
            for name in value.as_array().map(Vec::as_slice).unwrap_or_default() {
                if !existing.contains(name) {
                    existing.push(name.clone());
                }
            }
            Ok(())
        }
        Some(existing) if key == "additionalProperties" => {
            // Both must hold: `false` wins, then a schema over `true`.
            if *existing == Value::Bool(true) || value == Value::Bool(false) {
                *existing = value;
            }
            Ok(())
        }
        Some(Value::Array(existing)) if key == "enum" => {
            let Value::Array(wanted) = value else {
                return Err("`enum` is not a list".to_owned());
            };
            existing.retain(|candidate| wanted.contains(candidate));
            if existing.is_empty() {
                return Err("the `enum`s have no value in common".to_owned());
            }
            Ok(())
        }
        Some(Value::Number(existing))
            if [
                "minimum",
                "exclusiveMinimum",
                "minItems",
                "minLength",
                "minProperties",
            ]
            .contains(&key.as_str()) =>
        {
            if value.as_f64() > existing.as_f64() {
                if let Value::Number(tighter) = value {
                    *existing = tighter;
                }
            }
            Ok(())
        }
        Some(Value::Number(existing))
            if [
                "maximum",
                "exclusiveMaximum",
                "maxItems",
                "maxLength",
                "maxProperties",
            ]
            .contains(&key.as_str()) =>
        {
            if value
                .as_f64()
                .is_some_and(|value| Some(value) < existing.as_f64())
            {
                if let Value::Number(tighter) = value {
                    *existing = tighter;
                }
            }
            Ok(())
        }
        Some(_)
            if ["description", "title", "default", "examples", "$comment"]
                .contains(&key.as_str()) =>
        {
            Ok(())
        }
        Some(existing) if key == "type" => {
            let as_list = |value: &Value| -> Vec<Value> {
                match value {
                    Value::Array(values) => values.clone(),
                    other => vec![other.clone()],
                }
            };
            let wanted = as_list(&value);
            let mut common: Vec<Value> = Vec::new();
            for type_name in as_list(existing) {
                if wanted.contains(&type_name) {
                    common.push(type_name);
                }
            }
            match common.len() {
                0 => Err("the types do not overlap".to_owned()),
                1 => {
                    *existing = common[0].clone();
                    Ok(())
                }
                _ => {
                    *existing = Value::Array(common);
                    Ok(())
                }
            }
        }
        Some(_) => Err(format!("`{key}` differs")),
    }
}
