//! The schema sanitizer on arbitrary JSON (inputs that are not JSON are skipped): no panic and no
//! hang for any dialect (`$ref` cycles included), an object schema out, `strict` only for the
//! strict dialect, and sanitizing the output again changes nothing (`required` compared as a set:
//! merging a root union may list the same names in another order, which means the same).
#![no_main]

use libfuzzer_sys::fuzz_target;
use mcp_agent_wasm::core::tools::{sanitize_schema, SchemaDialect};
use serde_json::Value;

const DIALECTS: [SchemaDialect; 4] = [
    SchemaDialect::OpenAi,
    SchemaDialect::OpenAiStrict,
    SchemaDialect::Gemini,
    SchemaDialect::Anthropic,
];

/// Sorts every `required` list, whose order carries no meaning.
fn sort_required(schema: &mut Value) {
    match schema {
        Value::Object(members) => {
            for (key, member) in members.iter_mut() {
                match member {
                    Value::Array(names) if key == "required" => {
                        names.sort_by_key(|name| name.to_string());
                    }
                    other => sort_required(other),
                }
            }
        }
        Value::Array(items) => items.iter_mut().for_each(sort_required),
        _ => {}
    }
}

fuzz_target!(|data: &[u8]| {
    let Ok(schema) = serde_json::from_slice::<Value>(data) else {
        return;
    };
    for dialect in DIALECTS {
        let sanitized = sanitize_schema(&schema, dialect);
        assert!(
            sanitized.schema.is_object(),
            "{dialect:?}: not an object: {}",
            sanitized.schema
        );
        if dialect != SchemaDialect::OpenAiStrict {
            assert!(!sanitized.strict, "{dialect:?} claimed strict");
        }
        let mut again = sanitize_schema(&sanitized.schema, dialect).schema;
        let mut once = sanitized.schema;
        sort_required(&mut again);
        sort_required(&mut once);
        assert_eq!(again, once, "{dialect:?} is not a fixed point");
    }
});
