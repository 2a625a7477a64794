//! Argument validation: one table row per keyword, with the exact message the model gets.

use mcp_agent_wasm::core::tools::{
    build_tool_table, describe_errors, validate_arguments, McpTool, ToolTable,
};
use serde_json::{json, Value};

/// `(case, schema, arguments, expected message or "" for valid)`.
fn keyword_cases() -> Vec<(&'static str, Value, Value, &'static str)> {
    let city =
        json!({"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]});
    vec![
        ("required present", city.clone(), json!({"city": "Lyon"}), ""),
        ("required missing", city.clone(), json!({}), "argument `city`: required property missing"),
        ("type string", city.clone(), json!({"city": 3}), "argument `city`: expected string, got integer"),
        ("arguments not an object", city, json!([1]), "arguments: expected a JSON object, got array"),
        (
            "integer accepts 2.0, rejects 2.5",
            json!({"properties": {"n": {"type": "integer"}}}),
            json!({"n": 2.5}),
            "argument `n`: expected integer, got number",
        ),
        ("integer 2.0", json!({"properties": {"n": {"type": "integer"}}}), json!({"n": 2.0}), ""),
        (
            "type array",
            json!({"properties": {"n": {"type": ["string", "null"]}}}),
            json!({"n": true}),
            "argument `n`: expected string or null, got boolean",
        ),
        ("type array null", json!({"properties": {"n": {"type": ["string", "null"]}}}), json!({"n": null}), ""),
        ("openapi nullable", json!({"properties": {"n": {"type": "string", "nullable": true}}}), json!({"n": null}), ""),
        (
            "enum",
            json!({"properties": {"unit": {"enum": ["celsius", "fahrenheit"]}}}),
            json!({"unit": "kelvin"}),
            "argument `unit`: must be one of \"celsius\", \"fahrenheit\"",
        ),
        ("enum numbers compare by value", json!({"properties": {"n": {"enum": [1, 2]}}}), json!({"n": 1.0}), ""),
        (
            "const",
            json!({"properties": {"kind": {"const": "point"}}}),
            json!({"kind": "line"}),
            "argument `kind`: must be \"point\"",
        ),
        (
            "format date-time",
            json!({"properties": {"at": {"type": "string", "format": "date-time"}}}),
            json!({"at": "2026-11-30 10:15"}),
            "argument `at`: not a valid date-time: expected an RFC 3339 date-time such as 2026-11-30T10:15:00Z",
        ),
        ("format date-time ok", json!({"properties": {"at": {"format": "date-time"}}}), json!({"at": "2026-11-30T10:15:00.5+01:00"}), ""),
        // pydantic's `datetime` accepts a naive one: refused, the model would add a `Z` (local to UTC).
        ("format date-time without offset ok", json!({"properties": {"at": {"format": "date-time"}}}), json!({"at": "2026-11-30T10:15:00"}), ""),
        (
            "format date-time with a bad offset",
            json!({"properties": {"at": {"format": "date-time"}}}),
            json!({"at": "2026-11-30T10:15:00+1"}),
            "argument `at`: not a valid date-time: expected an RFC 3339 date-time such as 2026-11-30T10:15:00Z",
        ),
        (
            "format date",
            json!({"properties": {"on": {"format": "date"}}}),
            json!({"on": "2026-02-30"}),
            "argument `on`: not a valid date: expected a date such as 2026-11-30",
        ),
        ("format date leap day", json!({"properties": {"on": {"format": "date"}}}), json!({"on": "2028-02-29"}), ""),
        (
            "format time",
            json!({"properties": {"at": {"format": "time"}}}),
            json!({"at": "25:00:00"}),
            "argument `at`: not a valid time: expected a time such as 10:15:00 or 10:15:00+01:00",
        ),
        ("format time ok", json!({"properties": {"at": {"format": "time"}}}), json!({"at": "10:15:00Z"}), ""),
        (
            "format uuid",
            json!({"properties": {"id": {"format": "uuid"}}}),
            json!({"id": "123e4567-e89b-12d3-a456-42661417400"}),
            "argument `id`: not a valid uuid: expected a UUID such as 123e4567-e89b-12d3-a456-426614174000",
        ),
        (
            "format email",
            json!({"properties": {"to": {"format": "email"}}}),
            json!({"to": "bob at example.com"}),
            "argument `to`: not a valid email: expected an email address such as name@example.com",
        ),
        ("format email ok", json!({"properties": {"to": {"format": "email"}}}), json!({"to": "bob.smith+news@example.co.uk"}), ""),
        ("format email with non-ASCII ok (RFC 6531)", json!({"properties": {"to": {"format": "email"}}}), json!({"to": "josé€@bücher.example"}), ""),
        (
            "format email with an ASCII symbol",
            json!({"properties": {"to": {"format": "email"}}}),
            json!({"to": "bob(work)@example.com"}),
            "argument `to`: not a valid email: expected an email address such as name@example.com",
        ),
        (
            "format uri",
            json!({"properties": {"url": {"format": "uri"}}}),
            json!({"url": "example.com/a b"}),
            "argument `url`: not a valid uri: expected an absolute URI such as https://example.com/path",
        ),
        ("format uri ok", json!({"properties": {"url": {"format": "uri"}}}), json!({"url": "https://example.com/a%20b?q=1#top"}), ""),
        ("unknown format not checked", json!({"properties": {"h": {"format": "hostname"}}}), json!({"h": "not a host"}), ""),
        (
            "minLength counts characters",
            json!({"properties": {"q": {"minLength": 3}}}),
            json!({"q": "éé"}),
            "argument `q`: must be at least 3 characters long (got 2)",
        ),
        (
            "maxLength",
            json!({"properties": {"q": {"maxLength": 2}}}),
            json!({"q": "abc"}),
            "argument `q`: must be at most 2 characters long (got 3)",
        ),
        (
            "pattern",
            json!({"properties": {"zip": {"pattern": "^[0-9]{5}$"}}}),
            json!({"zip": "7500"}),
            "argument `zip`: must match the pattern `^[0-9]{5}$`",
        ),
        ("pattern unanchored", json!({"properties": {"s": {"pattern": "b+c"}}}), json!({"s": "abbbcd"}), ""),
        ("unsupported pattern not checked", json!({"properties": {"s": {"pattern": "^(?=a)b$"}}}), json!({"s": "zzz"}), ""),
        (
            "minimum",
            json!({"properties": {"n": {"minimum": 1}}}),
            json!({"n": 0}),
            "argument `n`: must be at least 1",
        ),
        (
            "maximum",
            json!({"properties": {"n": {"maximum": 10.5}}}),
            json!({"n": 11}),
            "argument `n`: must be at most 10.5",
        ),
        (
            "exclusiveMinimum numeric",
            json!({"properties": {"n": {"exclusiveMinimum": 0}}}),
            json!({"n": 0}),
            "argument `n`: must be greater than 0",
        ),
        (
            "exclusiveMaximum draft 4",
            json!({"properties": {"n": {"maximum": 5, "exclusiveMaximum": true}}}),
            json!({"n": 5}),
            "argument `n`: must be less than 5",
        ),
        (
            "multipleOf",
            json!({"properties": {"n": {"multipleOf": 0.5}}}),
            json!({"n": 1.25}),
            "argument `n`: must be a multiple of 0.5",
        ),
        ("multipleOf a large decimal amount", json!({"properties": {"n": {"multipleOf": 0.01}}}), json!({"n": 1234567.89}), ""),
        ("multipleOf a float quotient", json!({"properties": {"n": {"multipleOf": 0.1}}}), json!({"n": 0.3}), ""),
        (
            "multipleOf a small decimal",
            json!({"properties": {"n": {"multipleOf": 0.01}}}),
            json!({"n": 0.015}),
            "argument `n`: must be a multiple of 0.01",
        ),
        (
            "multipleOf an integer",
            json!({"properties": {"n": {"multipleOf": 2}}}),
            json!({"n": 7}),
            "argument `n`: must be a multiple of 2",
        ),
        (
            "multipleOf a large amount off by a cent",
            json!({"properties": {"n": {"multipleOf": 0.02}}}),
            json!({"n": 1234567.89}),
            "argument `n`: must be a multiple of 0.02",
        ),
        (
            "multipleOf a very large amount off by half a cent",
            json!({"properties": {"n": {"multipleOf": 0.01}}}),
            json!({"n": 10000000000.005_f64}),
            "argument `n`: must be a multiple of 0.01",
        ),
        (
            "multipleOf a very large number off by a half",
            json!({"properties": {"n": {"multipleOf": 1}}}),
            json!({"n": 1e15 + 0.5}),
            "argument `n`: must be a multiple of 1",
        ),
        ("multipleOf a very large decimal amount", json!({"properties": {"n": {"multipleOf": 0.01}}}), json!({"n": 98765432101.23_f64}), ""),
        (
            "items",
            json!({"properties": {"tags": {"type": "array", "items": {"type": "string"}}}}),
            json!({"tags": ["a", 2]}),
            "argument `tags[1]`: expected string, got integer",
        ),
        (
            "tuple items",
            json!({"properties": {"point": {"prefixItems": [{"type": "number"}, {"type": "number"}], "items": false}}}),
            json!({"point": [1, 2, 3]}),
            "argument `point[2]`: no value is allowed here",
        ),
        (
            "minItems",
            json!({"properties": {"tags": {"minItems": 1}}}),
            json!({"tags": []}),
            "argument `tags`: must have at least 1 item(s) (got 0)",
        ),
        (
            "maxItems",
            json!({"properties": {"tags": {"maxItems": 1}}}),
            json!({"tags": [1, 2]}),
            "argument `tags`: must have at most 1 item(s) (got 2)",
        ),
        (
            "uniqueItems",
            json!({"properties": {"tags": {"uniqueItems": true}}}),
            json!({"tags": ["a", "b", "a"]}),
            "argument `tags[2]`: duplicate item (items must be unique)",
        ),
        (
            "contains",
            json!({"properties": {"xs": {"contains": {"const": 1}}}}),
            json!({"xs": [2, 3]}),
            "argument `xs`: must contain at least 1 item(s) matching `contains`",
        ),
        ("minContains 0 lets contains pass", json!({"properties": {"xs": {"contains": {"type": "string"}, "minContains": 0}}}), json!({"xs": [1]}), ""),
        (
            "minContains",
            json!({"properties": {"xs": {"contains": {"type": "string"}, "minContains": 2}}}),
            json!({"xs": ["a", 1]}),
            "argument `xs`: must contain at least 2 item(s) matching `contains`",
        ),
        (
            "nested object",
            json!({"properties": {"address": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}}}),
            json!({"address": {"zip": "75001"}}),
            "argument `address.city`: required property missing",
        ),
        (
            "additionalProperties false",
            json!({"properties": {"a": {}, "b": {}}, "additionalProperties": false}),
            json!({"a": 1, "c": 2}),
            "argument `c`: unknown property (allowed: a, b)",
        ),
        (
            "additionalProperties schema",
            json!({"additionalProperties": {"type": "number"}}),
            json!({"x": "1"}),
            "argument `x`: expected number, got string",
        ),
        (
            "patternProperties",
            json!({"patternProperties": {"^x-": {"type": "string"}}, "additionalProperties": false}),
            json!({"x-a": 1, "y": 2}),
            "argument `x-a`: expected string, got integer; argument `y`: unknown property (no properties are allowed here)",
        ),
        (
            "propertyNames",
            json!({"propertyNames": {"maxLength": 3}}),
            json!({"long_name": 1}),
            "argument `long_name`: property name not allowed by `propertyNames`",
        ),
        (
            "minProperties",
            json!({"minProperties": 1}),
            json!({}),
            "arguments: must have at least 1 properties",
        ),
        (
            "dependentRequired",
            json!({"dependentRequired": {"start": ["end"]}}),
            json!({"start": 1}),
            "argument `end`: required when `start` is given",
        ),
        (
            "anyOf wrong types merged",
            json!({"properties": {"q": {"anyOf": [{"type": "string"}, {"type": "null"}], "default": null}}}),
            json!({"q": 5}),
            "argument `q`: expected string or null, got integer",
        ),
        (
            "anyOf one branch with the right type reports its problem",
            json!({"properties": {"place": {"anyOf": [{"type": "object", "required": ["city"]}, {"type": "null"}]}}}),
            json!({"place": {}}),
            "argument `place.city`: required property missing",
        ),
        (
            "anyOf several right-typed branches",
            json!({"properties": {"v": {"anyOf": [{"type": "string", "minLength": 5}, {"type": "string", "pattern": "^x"}]}}}),
            json!({"v": "abc"}),
            "argument `v`: matches none of the 2 allowed shapes (closest: argument `v`: must be at least 5 characters long (got 3))",
        ),
        (
            "oneOf matching two",
            json!({"properties": {"v": {"oneOf": [{"type": "integer"}, {"type": "number"}]}}}),
            json!({"v": 1}),
            "argument `v`: matches several alternatives of `oneOf` (1, 2) but must match exactly one",
        ),
        ("oneOf matching one", json!({"properties": {"v": {"oneOf": [{"type": "integer"}, {"type": "string"}]}}}), json!({"v": 1}), ""),
        (
            "allOf",
            json!({"allOf": [{"required": ["a"]}, {"required": ["b"]}]}),
            json!({"a": 1}),
            "argument `b`: required property missing",
        ),
        (
            "not",
            json!({"properties": {"v": {"not": {"type": "string"}}}}),
            json!({"v": "s"}),
            "argument `v`: must not match the schema under `not`",
        ),
        (
            "if then else",
            json!({"if": {"properties": {"kind": {"const": "a"}}}, "then": {"required": ["a"]}, "else": {"required": ["b"]}}),
            json!({"kind": "b"}),
            "argument `b`: required property missing",
        ),
        ("boolean property schema true", json!({"properties": {"quantity": true}}), json!({"quantity": [1]}), ""),
        (
            "$ref into $defs",
            json!({"$defs": {"Unit": {"enum": ["c", "f"]}}, "properties": {"unit": {"$ref": "#/$defs/Unit"}}}),
            json!({"unit": "k"}),
            "argument `unit`: must be one of \"c\", \"f\"",
        ),
        (
            "$ref with a percent-encoded pointer",
            json!({"$defs": {"Unit": {"enum": ["c", "f"]}}, "properties": {"unit": {"$ref": "#/%24defs/Unit"}}}),
            json!({"unit": "k"}),
            "argument `unit`: must be one of \"c\", \"f\"",
        ),
        (
            "recursive $ref follows the data",
            json!({"$defs": {"Node": {"type": "object", "properties": {"value": {"type": "integer"}, "next": {"$ref": "#/$defs/Node"}}}}, "$ref": "#/$defs/Node"}),
            json!({"value": 1, "next": {"value": 2, "next": {"value": "three"}}}),
            "argument `next.next.value`: expected integer, got string",
        ),
        ("self-referencing $ref terminates", json!({"$ref": "#"}), json!({"a": 1}), ""),
        ("remote $ref not fetched, not checked", json!({"properties": {"a": {"$ref": "https://example.com/s.json"}}}), json!({"a": 1}), ""),
        ("null schema accepts any object", Value::Null, json!({"a": 1}), ""),
        (
            "several problems joined",
            json!({"properties": {"a": {"type": "string"}, "b": {"type": "integer"}}, "required": ["c"]}),
            json!({"a": 1, "b": "x"}),
            "argument `c`: required property missing; argument `a`: expected string, got integer; argument `b`: expected integer, got string",
        ),
    ]
}

#[test]
fn every_keyword_produces_its_message() {
    for (case, schema, arguments, expected) in keyword_cases() {
        let message = describe_errors(&validate_arguments(&schema, &arguments));
        assert_eq!(message, expected, "case `{case}`");
    }
}

/// `(case, pattern, text, matches)`: the regex subset behind `pattern`, compared with what
/// ECMAScript's `new RegExp(pattern).test(text)` answers.
#[test]
fn pattern_subset_matches_like_ecmascript() {
    let cases: &[(&str, &str, &str, bool)] = &[
        ("literal anywhere", "bc", "abcd", true),
        ("anchors", "^abc$", "abcd", false),
        ("class range", "^[a-c]+$", "abcabc", true),
        ("negated class", "^[^0-9]+$", "ab1", false),
        ("digit shorthand", "^\\d{3}-\\d{4}$", "555-1234", true),
        ("bounded repeat too few", "^a{2,3}$", "a", false),
        ("bounded repeat too many", "^a{2,3}$", "aaaa", false),
        ("open repeat", "^a{2,}$", "aaaaa", true),
        ("alternation in group", "^(cat|dog)s?$", "dogs", true),
        ("non-capturing group", "^(?:ab)+$", "ababab", true),
        ("named group", "^(?<year>\\d{4})$", "2026", true),
        ("word shorthand and dot", "^\\w+\\.\\w+$", "file.txt", true),
        ("dot excludes newline", "^a.b$", "a\nb", false),
        ("space shorthand", "\\s", "no_space", false),
        ("word boundary", "\\bcat\\b", "a cat here", true),
        ("not a word boundary", "\\bcat\\b", "concatenate", false),
        ("lazy quantifier", "^a+?b$", "aaab", true),
        ("literal brace", "^a{x$", "a{x", true),
        ("escaped dash in class", "^[\\w\\-]+$", "a-b_c", true),
        ("unicode escape", "^\\u00e9$", "é", true),
        ("empty alternative", "^(a|)$", "", true),
        ("nested star terminates", "^(a*)*b$", "aaac", false),
        // Exponential backtracking: the step budget runs out and the pattern counts as not
        // checked (valid) instead of stalling the page.
        (
            "catastrophic pattern gives up",
            "^(a*)*b$",
            "aaaaaaaaaaaaaaaaaaaaaaaaaaaac",
            true,
        ),
        (
            "iso date",
            "^\\d{4}-(0[1-9]|1[0-2])-(0[1-9]|[12]\\d|3[01])$",
            "2026-11-30",
            true,
        ),
    ];
    for (case, pattern, text, matches) in cases {
        let schema = json!({"properties": {"s": {"pattern": pattern}}});
        let errors = validate_arguments(&schema, &json!({ "s": text }));
        assert_eq!(errors.is_empty(), *matches, "case `{case}`: {errors:?}");
    }
}

/// One slow pattern checked against many strings: the regex step budget is shared by the whole
/// call, so 20 000 strings that each exhaust a per-string budget (old behaviour: 20 000 × 200 000
/// steps, minutes of a frozen page) now cost one budget in total; the strings after it are left
/// unchecked and the other keywords are still checked on every item.
#[test]
fn pattern_budget_is_shared_by_every_string_of_a_call() {
    let schema = json!({
        "properties": {
            "items": {
                "type": "array",
                "items": {"type": "string", "pattern": "^(a*)*b$", "maxLength": 40}
            }
        }
    });
    let mut items = vec![json!("aaaaaaaaaaaaaaaaaaaaaaaaaaaac"); 20_000];
    items.push(json!("a".repeat(41)));
    let errors = validate_arguments(&schema, &json!({ "items": items }));
    assert_eq!(
        describe_errors(&errors),
        "argument `items[20000]`: must be at most 40 characters long (got 41)"
    );
}

fn weather_table() -> ToolTable {
    let tool = McpTool::from_listing_entry(&json!({
        "name": "get_weather",
        "inputSchema": {
            "type": "object",
            "properties": {
                "city": {"type": "string"},
                "units": {"type": "string", "enum": ["metric", "imperial"]},
                "when": {"type": "object", "properties": {"day": {"type": "string", "format": "date"}}}
            },
            "required": ["city"]
        }
    }))
    .expect("tool");
    let ping =
        McpTool::from_listing_entry(&json!({"name": "ping", "inputSchema": {"type": "object"}}))
            .expect("tool");
    build_tool_table(&[("weather".to_owned(), vec![tool, ping])])
}

#[test]
fn check_arguments_answers_for_the_model() {
    let table = weather_table();
    let cases = [
        ("get_weather", json!({"city": "Oslo"}), Ok(())),
        (
            "get_weather",
            json!({}),
            Err("argument `city`: required property missing".to_owned()),
        ),
        (
            "get_weather",
            json!(""),
            Err("argument `city`: required property missing".to_owned()),
        ),
        ("ping", json!(""), Ok(())),
        ("ping", json!("  "), Ok(())),
        (
            "ping",
            json!("x"),
            Err("arguments: expected a JSON object, got string".to_owned()),
        ),
        ("nope", json!({}), Err("unknown tool `nope`".to_owned())),
    ];
    for (function_name, arguments, expected) in cases {
        assert_eq!(
            table.check_arguments(function_name, &arguments),
            expected,
            "{function_name} {arguments}"
        );
    }
}

#[test]
fn prepare_arguments_removes_nulls_a_strict_provider_added() {
    let table = weather_table();
    let strict_style = json!({"city": "Oslo", "units": null, "when": {"day": null}});
    assert_eq!(
        table.prepare_arguments("get_weather", &strict_style),
        Ok(json!({"city": "Oslo", "when": {}}))
    );
    let null_city = json!({"city": null, "units": null});
    assert_eq!(
        table.prepare_arguments("get_weather", &null_city),
        Err("argument `city`: expected string, got null".to_owned())
    );
    assert_eq!(table.prepare_arguments("ping", &json!("")), Ok(json!({})));
}

#[test]
fn long_error_lists_are_cut() {
    let properties: serde_json::Map<String, Value> = (0..12)
        .map(|index| (format!("p{index}"), json!({"type": "string"})))
        .collect();
    let required: Vec<String> = (0..12).map(|index| format!("p{index}")).collect();
    let schema = json!({"properties": properties, "required": required});
    let message = describe_errors(&validate_arguments(&schema, &json!({})));
    assert!(message.ends_with("; and 4 more"), "{message}");
    assert_eq!(message.matches("required property missing").count(), 8);
}
