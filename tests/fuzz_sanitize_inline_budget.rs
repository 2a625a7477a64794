//! Regression found by the `sanitize` fuzz target (fuzz/corpus/sanitize/ref-inline-budget): a
//! 3.2 KB schema whose definition refers to itself and to the root some twenty times came out
//! 360 KB long with 16 000 warnings, 100 ms per dialect, because each of the 256 allowed `$ref`
//! expansions copied a 3 KB definition. Inlining now also stops after about 128 KB copied, and
//! warnings beyond the first 100 are counted in one line.

use mcp_agent_wasm::core::tools::{sanitize_schema, SchemaDialect};
use serde_json::Value;

const DIALECTS: [SchemaDialect; 4] = [
    SchemaDialect::OpenAi,
    SchemaDialect::OpenAiStrict,
    SchemaDialect::Gemini,
    SchemaDialect::Anthropic,
];

#[test]
fn self_referencing_definition_stays_within_the_inline_budget() {
    let input = std::fs::read("fuzz/corpus/sanitize/ref-inline-budget").expect("the corpus file");
    let schema: Value = serde_json::from_slice(&input).expect("JSON");
    for dialect in DIALECTS {
        let sanitized = sanitize_schema(&schema, dialect);
        let output_bytes = sanitized.schema.to_string().len();
        assert!(
            output_bytes < input.len() + 128 * 1024,
            "{dialect:?}: {output_bytes} bytes out of {} in",
            input.len()
        );
        assert_eq!(sanitized.warnings.len(), 101, "{dialect:?}");
        let last = sanitized.warnings.last().expect("warnings");
        assert!(
            last.ends_with("more warnings not listed"),
            "{dialect:?}: {last}"
        );
        let unlisted: usize = last.split(' ').next().unwrap().parse().expect("a count");
        assert!(unlisted > 0, "{dialect:?}");
    }
}
