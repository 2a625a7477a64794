//! Checks a model's tool arguments against the tool's original JSON Schema, before dispatch.
//!
//! Written here rather than taken from the `jsonschema` crate: that crate brings a full regex
//! engine, URL and date libraries and remote-reference support, several times the whole package's
//! wasm size budget (130 KB gzip), while tool schemas use a small set of keywords and the model
//! needs short messages it can act on ("argument `city`: required property missing").
//!
//! Covered: `type` (and type arrays), OpenAPI `nullable`, `enum`, `const`, `format` (see
//! [`super::format`]), `minLength`/`maxLength`, `pattern` (see [`super::pattern`]), numeric bounds
//! (both the draft-4 boolean and the numeric `exclusive*` forms), `multipleOf`, `items` (schema and
//! tuple forms), `prefixItems`, `minItems`/`maxItems`, `uniqueItems`, `contains` and
//! `minContains`, `properties`, `required`, `additionalProperties`, `patternProperties`,
//! `propertyNames`, `minProperties`/`maxProperties`, `dependentRequired`,
//! `allOf`/`anyOf`/`oneOf`/`not`, `if`/`then`/`else`, boolean schemas and local `$ref`. A
//! keyword this module cannot evaluate (an unsupported regex, a remote `$ref`) is skipped: a false
//! rejection would block a valid call, while a missed one still reaches the server, which checks
//! again.

use std::cell::Cell;

use serde_json::{Map, Value};

use super::format::format_violation;
use super::pattern::Pattern;
use super::refs::{resolve_ref, RefTarget};
use super::type_list;
use crate::core::json_read::strings_in;
use crate::core::json_text::to_json_text;
use crate::core::text::{join, owned};

/// What a checked value is called in messages.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Subject {
    /// A tool call's arguments: "arguments: …", "argument `city`: …".
    Arguments,
    /// A tool result's `structuredContent` (checked against the tool's `outputSchema`):
    /// "structuredContent: …", "structuredContent `items[2]`: …".
    StructuredContent,
}

/// One reason the arguments (or another [`Subject`]) do not fit the schema.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ArgumentError {
    /// Where in the value, as `address.city` or `stops[2]`; empty for the value itself.
    pub path: String,
    pub message: String,
    pub subject: Subject,
}

impl std::fmt::Display for ArgumentError {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let (whole, part) = match self.subject {
            Subject::Arguments => ("arguments", "argument"),
            Subject::StructuredContent => ("structuredContent", "structuredContent"),
        };
        if self.path.is_empty() {
            write!(formatter, "{whole}: {}", self.message)
        } else {
            write!(formatter, "{part} `{}`: {}", self.path, self.message)
        }
    }
}

/// At most this many problems go into the message for the model; the rest are counted.
const MAX_REPORTED_ERRORS: usize = 8;
/// `$ref` hops on one path; only a reference cycle that consumes no data can reach it.
const MAX_REF_DEPTH: u32 = 128;
/// Enum values listed in a message before it is cut.
const MAX_LISTED_VALUES: usize = 12;
/// Schema nodes one call may visit before the rest is left unchecked: `allOf`/`$ref` chains can
/// fan out exponentially (`A = allOf[A, A]`), which the depth cap alone does not stop. Large
/// enough for any real schema, small enough that a hostile one costs milliseconds per call.
const MAX_VISITS: u32 = 30_000;
/// Regex matching steps one call may spend on `pattern` and `patternProperties`, shared by every
/// string it checks, so that many strings (an array of 10 000) cannot multiply a slow pattern's
/// cost; patterns met after it is spent are left unchecked. Ordinary patterns take a few steps
/// per character; a catastrophic one like `^(.a*)+b$` spends the budget, about 10 ms natively.
const MAX_PATTERN_STEPS: u32 = 250_000;

/// Every problem with `arguments` (a tool call's arguments, which must be a JSON object) under
/// `schema`; empty when they are valid. A `null` or empty schema accepts any object.
pub fn validate_arguments(schema: &Value, arguments: &Value) -> Vec<ArgumentError> {
    if !arguments.is_object() {
        return vec![ArgumentError {
            path: String::new(),
            message: format!("expected a JSON object, got {}", kind_of(arguments)),
            subject: Subject::Arguments,
        }];
    }
    validate_value(schema, arguments, Subject::Arguments)
}

/// Every problem with `value`, any JSON value, under `schema`, worded for `subject`; empty when
/// it conforms. A `null` schema accepts anything.
pub fn validate_value(schema: &Value, value: &Value, subject: Subject) -> Vec<ArgumentError> {
    if schema.is_null() {
        return Vec::new();
    }
    let validator = Validator::new(schema, subject);
    let mut findings = Vec::new();
    validator.check(schema, value, "", 0, &mut findings);
    let mut errors = Vec::with_capacity(findings.len());
    for finding in findings {
        errors.push(finding.into_error(subject));
    }
    errors
}

/// The errors as one short text for the model, `; `-separated.
pub fn describe_errors(errors: &[ArgumentError]) -> String {
    let mut described = Vec::new();
    for error in errors.iter().take(MAX_REPORTED_ERRORS) {
        described.push(error.to_string());
    }
    let mut text = join(&described, "; ");
    if errors.len() > MAX_REPORTED_ERRORS {
        text.push_str(&format!(
            "; and {} more",
            errors.len() - MAX_REPORTED_ERRORS
        ));
    }
    text
}

enum Issue {
    /// Kept apart so that the branches of a union can be merged into "expected a or b".
    TypeMismatch {
        expected: Vec<String>,
        got: &'static str,
    },
    Other(String),
}

struct Finding {
    path: String,
    issue: Issue,
}

impl Finding {
    fn new(path: &str, message: String) -> Finding {
        Finding {
            path: path.to_owned(),
            issue: Issue::Other(message),
        }
    }

    fn into_error(self, subject: Subject) -> ArgumentError {
        let message = match self.issue {
            Issue::TypeMismatch { expected, got } => {
                format!("expected {}, got {got}", join(&expected, " or "))
            }
            Issue::Other(message) => message,
        };
        ArgumentError {
            path: self.path,
            message,
            subject,
        }
    }
}

fn kind_of(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(number) if is_integral(number) => "integer",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

fn is_integral(number: &serde_json::Number) -> bool {
    number.is_i64() || number.is_u64() || number.as_f64().is_some_and(|f| f.fract() == 0.0)
}

fn has_type(value: &Value, type_name: &str) -> bool {
    match (type_name, value) {
        ("null", Value::Null)
        | ("boolean", Value::Bool(_))
        | ("number", Value::Number(_))
        | ("string", Value::String(_))
        | ("array", Value::Array(_))
        | ("object", Value::Object(_)) => true,
        ("integer", Value::Number(number)) => is_integral(number),
        _ => false,
    }
}

fn child_path(path: &str, key: &str) -> String {
    if path.is_empty() {
        key.to_owned()
    } else {
        format!("{path}.{key}")
    }
}

/// Each of `positions` as text.
fn positions_text(positions: &[usize]) -> Vec<String> {
    let mut texts = Vec::with_capacity(positions.len());
    for position in positions {
        texts.push(position.to_string());
    }
    texts
}

fn list_values(values: &[Value]) -> String {
    let mut listed = Vec::new();
    for value in values.iter().take(MAX_LISTED_VALUES) {
        listed.push(to_json_text(value));
    }
    if values.len() > MAX_LISTED_VALUES {
        listed.push("…".to_owned());
    }
    join(&listed, ", ")
}

/// JSON Schema equality: numbers compare by value (`1` equals `1.0`).
fn json_equal(left: &Value, right: &Value) -> bool {
    match (left, right) {
        (Value::Number(a), Value::Number(b)) => a.as_f64() == b.as_f64(),
        (Value::Array(a), Value::Array(b)) => {
            a.len() == b.len() && a.iter().zip(b).all(|(x, y)| json_equal(x, y))
        }
        (Value::Object(a), Value::Object(b)) => {
            a.len() == b.len()
                && a.iter()
                    .all(|(key, x)| b.get(key).is_some_and(|y| json_equal(x, y)))
        }
        _ => left == right,
    }
}

/// A numeric keyword's value, and the keyword itself, which messages write as the schema did
/// (this avoids pulling float formatting into the wasm build).
fn number_keyword<'v>(schema: &'v Map<String, Value>, keyword: &str) -> Option<(f64, &'v Value)> {
    let value = schema.get(keyword)?;
    Some((value.as_f64()?, value))
}

/// "must be {relation} {bound}", the bound written as the schema has it; only a failed check
/// pays for the text.
fn bound_finding(path: &str, relation: &str, bound: &Value) -> Finding {
    Finding::new(path, format!("must be {relation} {}", to_json_text(bound)))
}

fn count_keyword(schema: &Map<String, Value>, keyword: &str) -> Option<usize> {
    schema
        .get(keyword)
        .and_then(Value::as_f64)
        .filter(|count| *count >= 0.0)
        .map(|count| count as usize)
}

/// A schema-supplied regex; `None` when the subset cannot compile it (not checked).
fn compile(pattern: &str) -> Option<Pattern> {
    Pattern::parse(pattern).ok()
}

struct Validator<'s> {
    root: &'s Value,
    /// How messages name the checked value (a union's closest branch quotes one).
    subject: Subject,
    visits_left: Cell<u32>,
    pattern_steps_left: Cell<u32>,
}

impl<'s> Validator<'s> {
    fn new(root: &'s Value, subject: Subject) -> Self {
        Validator {
            root,
            subject,
            visits_left: Cell::new(MAX_VISITS),
            pattern_steps_left: Cell::new(MAX_PATTERN_STEPS),
        }
    }

    /// Counts one schema node; `false` once the budget is spent.
    fn visit(&self) -> bool {
        let left = self.visits_left.get();
        self.visits_left.set(left.saturating_sub(1));
        left > 0
    }

    fn collect(&self, schema: &'s Value, value: &Value, path: &str, depth: u32) -> Vec<Finding> {
        let mut findings = Vec::new();
        self.check(schema, value, path, depth, &mut findings);
        findings
    }

    fn check(
        &self,
        schema: &'s Value,
        value: &Value,
        path: &str,
        depth: u32,
        findings: &mut Vec<Finding>,
    ) {
        if !self.visit() {
            return;
        }
        let schema = match schema {
            Value::Bool(true) => return,
            Value::Bool(false) => {
                findings.push(Finding::new(path, "no value is allowed here".to_owned()));
                return;
            }
            Value::Object(schema) => schema,
            _ => return,
        };
        if let Some(Value::String(reference)) = schema.get("$ref") {
            if let RefTarget::Found(target) = resolve_ref(self.root, reference) {
                if depth < MAX_REF_DEPTH {
                    self.check(target, value, path, depth + 1, findings);
                }
            }
        }
        if value.is_null() && schema.get("nullable") == Some(&Value::Bool(true)) {
            return;
        }
        if !self.check_type(schema, value, path, findings) {
            return;
        }
        if let Some(Value::Array(allowed)) = schema.get("enum") {
            if !allowed.iter().any(|candidate| json_equal(candidate, value)) {
                findings.push(Finding::new(
                    path,
                    format!("must be one of {}", list_values(allowed)),
                ));
            }
        }
        if let Some(expected) = schema.get("const") {
            if !json_equal(expected, value) {
                findings.push(Finding::new(
                    path,
                    format!("must be {}", to_json_text(expected)),
                ));
            }
        }
        match value {
            Value::String(text) => self.check_string(schema, text, path, findings),
            Value::Number(number) => {
                if let Some(number) = number.as_f64() {
                    self.check_number(schema, number, path, findings);
                }
            }
            Value::Array(items) => self.check_array(schema, items, path, depth, findings),
            Value::Object(members) => self.check_object(schema, members, path, depth, findings),
            Value::Null | Value::Bool(_) => {}
        }
        self.check_combinators(schema, value, path, depth, findings);
    }

    /// Records a type mismatch; `false` stops the other keywords, which would only add noise.
    fn check_type(
        &self,
        schema: &Map<String, Value>,
        value: &Value,
        path: &str,
        findings: &mut Vec<Finding>,
    ) -> bool {
        let Some(expected) = type_list(schema) else {
            return true;
        };
        if expected.is_empty() || expected.iter().any(|name| has_type(value, name)) {
            return true;
        }
        findings.push(Finding {
            path: path.to_owned(),
            issue: Issue::TypeMismatch {
                expected: owned(&expected),
                got: kind_of(value),
            },
        });
        false
    }

    fn check_string(
        &self,
        schema: &Map<String, Value>,
        text: &str,
        path: &str,
        findings: &mut Vec<Finding>,
    ) {
        let length = text.chars().count();
        if let Some(min) = count_keyword(schema, "minLength") {
            if length < min {
                findings.push(Finding::new(
                    path,
                    format!("must be at least {min} characters long (got {length})"),
                ));
            }
        }
        if let Some(max) = count_keyword(schema, "maxLength") {
            if length > max {
                findings.push(Finding::new(
                    path,
                    format!("must be at most {max} characters long (got {length})"),
                ));
            }
        }
        if let Some(Value::String(source)) = schema.get("pattern") {
            let matched = compile(source)
                .and_then(|pattern| pattern.is_match(text, &self.pattern_steps_left));
            if matched == Some(false) {
                findings.push(Finding::new(
                    path,
                    format!("must match the pattern `{source}`"),
                ));
            }
        }
        if let Some(Value::String(format)) = schema.get("format") {
            if let Some(hint) = format_violation(format, text) {
                findings.push(Finding::new(
                    path,
                    format!("not a valid {format}: expected {hint}"),
                ));
            }
        }
    }

    fn check_number(
        &self,
        schema: &Map<String, Value>,
        number: f64,
        path: &str,
        findings: &mut Vec<Finding>,
    ) {
        let draft4_exclusive = |keyword| schema.get(keyword) == Some(&Value::Bool(true));
        if let Some((minimum, shown)) = number_keyword(schema, "minimum") {
            if draft4_exclusive("exclusiveMinimum") && number <= minimum {
                findings.push(bound_finding(path, "greater than", shown));
            } else if number < minimum {
                findings.push(bound_finding(path, "at least", shown));
            }
        }
        if let Some((maximum, shown)) = number_keyword(schema, "maximum") {
            if draft4_exclusive("exclusiveMaximum") && number >= maximum {
                findings.push(bound_finding(path, "less than", shown));
            } else if number > maximum {
                findings.push(bound_finding(path, "at most", shown));
            }
        }
        if let Some((bound, shown)) = number_keyword(schema, "exclusiveMinimum") {
            if number <= bound {
                findings.push(bound_finding(path, "greater than", shown));
            }
        }
        if let Some((bound, shown)) = number_keyword(schema, "exclusiveMaximum") {
            if number >= bound {
                findings.push(bound_finding(path, "less than", shown));
            }
        }
        if let Some((divisor, shown)) =
            number_keyword(schema, "multipleOf").filter(|(d, _)| *d > 0.0)
        {
            // Binary floats miss most decimals (0.01, 1234567.89) by about 1e-16 of their size,
            // and the quotient inherits that relative error: a tolerance relative to the
            // quotient, with a wide margin, admits every decimal multiple; capped at a
            // thousandth of the divisor, so that a large number that misses a multiple by half
            // of it (10000000000.005 for 0.01) is still refused.
            let quotient = number / divisor;
            let tolerance = (quotient.abs() * 1e-12).min(1e-3);
            if (quotient - quotient.round()).abs() > tolerance {
                findings.push(bound_finding(path, "a multiple of", shown));
            }
        }
    }

    fn check_array(
        &self,
        schema: &'s Map<String, Value>,
        items: &[Value],
        path: &str,
        depth: u32,
        findings: &mut Vec<Finding>,
    ) {
        if let Some(min) = count_keyword(schema, "minItems") {
            if items.len() < min {
                findings.push(Finding::new(
                    path,
                    format!("must have at least {min} item(s) (got {})", items.len()),
                ));
            }
        }
        if let Some(max) = count_keyword(schema, "maxItems") {
            if items.len() > max {
                findings.push(Finding::new(
                    path,
                    format!("must have at most {max} item(s) (got {})", items.len()),
                ));
            }
        }
        if schema.get("uniqueItems") == Some(&Value::Bool(true)) {
            let duplicate = (1..items.len()).find(|&later| {
                (0..later).any(|earlier| json_equal(&items[earlier], &items[later]))
            });
            if let Some(index) = duplicate {
                findings.push(Finding::new(
                    &format!("{path}[{index}]"),
                    "duplicate item (items must be unique)".to_owned(),
                ));
            }
        }
        let tuple = match (schema.get("prefixItems"), schema.get("items")) {
            (Some(Value::Array(prefix)), _) => Some(prefix.as_slice()),
            (None, Some(Value::Array(prefix))) => Some(prefix.as_slice()),
            _ => None,
        };
        let rest_schema = match (schema.get("prefixItems"), schema.get("items")) {
            (Some(_), Some(rest)) => Some(rest),
            (None, Some(Value::Array(_))) => schema.get("additionalItems"),
            (None, Some(rest)) => Some(rest),
            (Some(_), None) => None,
            (None, None) => None,
        };
        let prefix_length = tuple.map_or(0, <[Value]>::len);
        for (index, item) in items.iter().enumerate() {
            let item_schema = match tuple.and_then(|tuple| tuple.get(index)) {
                Some(item_schema) => Some(item_schema),
                None if index >= prefix_length => rest_schema,
                None => None,
            };
            if let Some(item_schema) = item_schema {
                self.check(
                    item_schema,
                    item,
                    &format!("{path}[{index}]"),
                    depth,
                    findings,
                );
            }
        }
        if let Some(contains) = schema.get("contains") {
            let wanted = count_keyword(schema, "minContains").unwrap_or(1);
            let mut matched = 0;
            for item in items {
                if matched == wanted {
                    break;
                }
                if self.collect(contains, item, path, depth).is_empty() {
                    matched += 1;
                }
            }
            if matched < wanted {
                findings.push(Finding::new(
                    path,
                    format!("must contain at least {wanted} item(s) matching `contains`"),
                ));
            }
        }
    }

    fn check_object(
        &self,
        schema: &'s Map<String, Value>,
        members: &Map<String, Value>,
        path: &str,
        depth: u32,
        findings: &mut Vec<Finding>,
    ) {
        if let Some(Value::Array(required)) = schema.get("required") {
            for name in strings_in(required) {
                if !members.contains_key(name) {
                    findings.push(Finding::new(
                        &child_path(path, name),
                        "required property missing".to_owned(),
                    ));
                }
            }
        }
        if let Some(Value::Object(dependent)) = schema.get("dependentRequired") {
            for (trigger, needed) in dependent {
                if !members.contains_key(trigger) {
                    continue;
                }
                let needed = needed.as_array().map(Vec::as_slice).unwrap_or_default();
                for name in strings_in(needed) {
                    if !members.contains_key(name) {
                        findings.push(Finding::new(
                            &child_path(path, name),
                            format!("required when `{trigger}` is given"),
                        ));
                    }
                }
            }
        }
        if let Some(min) = count_keyword(schema, "minProperties") {
            if members.len() < min {
                findings.push(Finding::new(
                    path,
                    format!("must have at least {min} properties"),
                ));
            }
        }
        if let Some(max) = count_keyword(schema, "maxProperties") {
            if members.len() > max {
                findings.push(Finding::new(
                    path,
                    format!("must have at most {max} properties"),
                ));
            }
        }
        let properties = schema.get("properties").and_then(Value::as_object);
        let mut pattern_properties: Vec<(Option<Pattern>, &'s Value)> = Vec::new();
        if let Some(patterns) = schema.get("patternProperties").and_then(Value::as_object) {
            for (source, property_schema) in patterns {
                pattern_properties.push((compile(source), property_schema));
            }
        }
        for (name, member) in members {
            let member_path = child_path(path, name);
            if let Some(property_names) = schema.get("propertyNames") {
                let name_value = Value::String(name.clone());
                if !self
                    .collect(property_names, &name_value, path, depth)
                    .is_empty()
                {
                    findings.push(Finding::new(
                        &member_path,
                        "property name not allowed by `propertyNames`".to_owned(),
                    ));
                }
            }
            let mut declared = false;
            if let Some(property_schema) = properties.and_then(|properties| properties.get(name)) {
                declared = true;
                self.check(property_schema, member, &member_path, depth, findings);
            }
            for (pattern, property_schema) in &pattern_properties {
                // A pattern the subset cannot compile counts as matching: the property is then
                // not reported as unknown, only left unchecked.
                let matches = pattern.as_ref().is_none_or(|pattern| {
                    pattern.is_match(name, &self.pattern_steps_left) != Some(false)
                });
                if matches {
                    declared = true;
                    if pattern.is_some() {
                        self.check(property_schema, member, &member_path, depth, findings);
                    }
                }
            }
            if declared {
                continue;
            }
            match schema.get("additionalProperties") {
                Some(Value::Bool(false)) => {
                    let mut known_names: Vec<&str> = Vec::new();
                    if let Some(properties) = properties {
                        for name in properties.keys() {
                            known_names.push(name);
                        }
                    }
                    let known = join(&known_names, ", ");
                    let message = if known.is_empty() {
                        "unknown property (no properties are allowed here)".to_owned()
                    } else {
                        format!("unknown property (allowed: {known})")
                    };
                    findings.push(Finding::new(&member_path, message));
                }
                Some(additional @ Value::Object(_)) => {
                    self.check(additional, member, &member_path, depth, findings)
                }
                _ => {}
            }
        }
    }

    fn check_combinators(
        &self,
        schema: &'s Map<String, Value>,
        value: &Value,
        path: &str,
        depth: u32,
        findings: &mut Vec<Finding>,
    ) {
        if let Some(Value::Array(all_of)) = schema.get("allOf") {
            for member in all_of {
                self.check(member, value, path, depth, findings);
            }
        }
        if let Some(Value::Array(any_of)) = schema.get("anyOf") {
            let mut failures = Vec::new();
            for branch in any_of {
                let branch_findings = self.collect(branch, value, path, depth);
                if branch_findings.is_empty() {
                    // A branch matches: the value is fine, and the rest need no look.
                    failures.clear();
                    break;
                }
                failures.push(branch_findings);
            }
            if !failures.is_empty() {
                findings.extend(summarize_alternatives(failures, path, value, self.subject));
            }
        }
        if let Some(Value::Array(one_of)) = schema.get("oneOf") {
            let mut failures = Vec::new();
            let mut matched = Vec::new();
            for (index, branch) in one_of.iter().enumerate() {
                let branch_findings = self.collect(branch, value, path, depth);
                if branch_findings.is_empty() {
                    matched.push(index + 1);
                } else {
                    failures.push(branch_findings);
                }
            }
            match matched.len() {
                0 if !failures.is_empty() => {
                    findings.extend(summarize_alternatives(failures, path, value, self.subject))
                }
                0 | 1 => {}
                _ => findings.push(Finding::new(
                    path,
                    format!(
                        "matches several alternatives of `oneOf` ({}) but must match exactly one",
                        join(&positions_text(&matched), ", ")
                    ),
                )),
            }
        }
        if let Some(not) = schema.get("not") {
            if self.collect(not, value, path, depth).is_empty() {
                findings.push(Finding::new(
                    path,
                    "must not match the schema under `not`".to_owned(),
                ));
            }
        }
        if let Some(condition) = schema.get("if") {
            let branch = if self.collect(condition, value, path, depth).is_empty() {
                schema.get("then")
            } else {
                schema.get("else")
            };
            if let Some(branch) = branch {
                self.check(branch, value, path, depth, findings);
            }
        }
    }
}

/// Turns the failures of every branch of a union into what the model most likely needs to hear:
/// the accepted types when no branch has the value's type ("expected string or null, got
/// number"), the problems of the one branch that has it, or a short note otherwise.
fn summarize_alternatives(
    failures: Vec<Vec<Finding>>,
    path: &str,
    value: &Value,
    subject: Subject,
) -> Vec<Finding> {
    let is_wrong_shape = |branch: &Vec<Finding>| {
        branch.len() == 1
            && branch[0].path == path
            && matches!(branch[0].issue, Issue::TypeMismatch { .. })
    };
    // Plain loops: partition, map and min_by_key compiled to functions of their own.
    let (mut wrong_shape, mut right_shape) = (Vec::new(), Vec::new());
    for branch in failures {
        if is_wrong_shape(&branch) {
            wrong_shape.push(branch);
        } else {
            right_shape.push(branch);
        }
    }
    match right_shape.len() {
        0 => {
            let mut expected: Vec<String> = Vec::new();
            for mut branch in wrong_shape {
                let finding = branch.remove(0);
                if let Issue::TypeMismatch {
                    expected: types, ..
                } = finding.issue
                {
                    for type_name in types {
                        if !expected.contains(&type_name) {
                            expected.push(type_name);
                        }
                    }
                }
            }
            vec![Finding {
                path: path.to_owned(),
                issue: Issue::TypeMismatch {
                    expected,
                    got: kind_of(value),
                },
            }]
        }
        1 => right_shape.pop().unwrap_or_default(),
        count => {
            // The first of the branches with the fewest findings.
            let mut fewest = 0;
            for (index, branch) in right_shape.iter().enumerate() {
                if branch.len() < right_shape[fewest].len() {
                    fewest = index;
                }
            }
            let closest = right_shape
                .swap_remove(fewest)
                .into_iter()
                .next()
                .map(|finding| finding.into_error(subject).to_string())
                .unwrap_or_default();
            vec![Finding::new(
                path,
                format!("matches none of the {count} allowed shapes (closest: {closest})"),
            )]
        }
    }
}

/// Removes the `null`s the model put in optional properties whose original schema does not accept
/// `null`. Strict providers (OpenAI `strict: true`) must list every property as required, so the
/// sanitizer makes optional ones nullable and the model answers "not given" with `null`; the MCP
/// server expects the property to be absent instead. Walks `properties`, `items`, `allOf` and
/// local `$ref`s, like the sanitizer.
pub fn drop_optional_nulls(schema: &Value, arguments: &mut Value) {
    let validator = Validator::new(schema, Subject::Arguments);
    validator.drop_optional_nulls(schema, arguments, 0);
}

impl<'s> Validator<'s> {
    fn drop_optional_nulls(&self, schema: &'s Value, value: &mut Value, depth: u32) {
        let Value::Object(schema) = schema else {
            return;
        };
        if depth >= MAX_REF_DEPTH || !self.visit() {
            return;
        }
        // This node's own properties first, so that a schema whose `$ref`s fan out and spend the
        // visit budget still has them handled.
        self.drop_own_optional_nulls(schema, value, depth);
        if let Some(Value::String(reference)) = schema.get("$ref") {
            if let RefTarget::Found(target) = resolve_ref(self.root, reference) {
                self.drop_optional_nulls(target, value, depth + 1);
            }
        }
        for member in schema
            .get("allOf")
            .and_then(Value::as_array)
            .map(Vec::as_slice)
            .unwrap_or_default()
        {
            self.drop_optional_nulls(member, value, depth + 1);
        }
    }

    fn drop_own_optional_nulls(
        &self,
        schema: &'s Map<String, Value>,
        value: &mut Value,
        depth: u32,
    ) {
        match value {
            Value::Object(members) => {
                let Some(properties) = schema.get("properties").and_then(Value::as_object) else {
                    return;
                };
                let required = match schema.get("required") {
                    Some(Value::Array(names)) => strings_in(names),
                    _ => Vec::new(),
                };
                for (name, property_schema) in properties {
                    let Some(member) = members.get_mut(name) else {
                        continue;
                    };
                    if member.is_null() && !required.contains(&name.as_str()) {
                        let accepts_null = self
                            .collect(property_schema, &Value::Null, "", depth)
                            .is_empty();
                        if !accepts_null {
                            members.shift_remove(name.as_str());
                        }
                    } else {
                        self.drop_optional_nulls(property_schema, member, depth + 1);
                    }
                }
            }
            Value::Array(items) => {
                if let Some(item_schema) = schema.get("items").filter(|items| items.is_object()) {
                    for item in items {
                        self.drop_optional_nulls(item_schema, item, depth + 1);
                    }
                }
            }
            _ => {}
        }
    }
}
