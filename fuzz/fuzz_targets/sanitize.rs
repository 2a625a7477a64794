//! The schema sanitizer on arbitrary JSON (inputs that are not JSON are skipped): no panic and no
//! hang for any dialect (`$ref` cycles included), an object schema out, `strict` only for the
//! strict dialect, and sanitizing the output again changes nothing.
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
        let again = sanitize_schema(&sanitized.schema, dialect);
        assert_eq!(
            again.schema, sanitized.schema,
            "{dialect:?} is not a fixed point"
        );
    }
});
