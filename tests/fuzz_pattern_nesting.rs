//! Found while timing the `validate` fuzz corpus (fuzz/corpus/validate/pattern-deep-groups): a
//! `pattern` of some 2 000 nested `(` overflowed a 2 MiB thread stack in the regex parser. The
//! fuzzer's own 8 MiB main stack hid it; a wasm stack is 1 MiB. Groups may now nest 64 deep (a
//! deeper pattern is left unchecked, like other unsupported constructs). These checks run on a
//! 1 MiB thread, so that a regression crashes the test instead of passing on a larger stack.

use mcp_agent_wasm::core::tools::validate_arguments;
use serde_json::{json, Value};

const WASM_STACK_BYTES: usize = 1 << 20;

fn on_wasm_sized_stack<T: Send + 'static>(work: impl FnOnce() -> T + Send + 'static) -> T {
    std::thread::Builder::new()
        .stack_size(WASM_STACK_BYTES)
        .spawn(work)
        .expect("a thread")
        .join()
        .expect("no stack overflow or panic")
}

#[test]
fn the_fuzzed_schema_validates_within_a_wasm_stack() {
    let data = std::fs::read("fuzz/corpus/validate/pattern-deep-groups").expect("the corpus file");
    let mut values = serde_json::Deserializer::from_slice(&data).into_iter::<Value>();
    let schema = values.next().expect("a schema").expect("JSON");
    let arguments = values.next().expect("arguments").expect("JSON");
    let errors = on_wasm_sized_stack(move || validate_arguments(&schema, &arguments).len());
    assert_eq!(
        errors, 0,
        "the deep pattern is left unchecked, the rest passes"
    );
}

#[test]
fn deeply_nested_groups_are_left_unchecked_and_shallow_ones_still_match() {
    let nested = |depth: usize| format!("^{}a{}$", "(".repeat(depth), ")".repeat(depth));
    let outcomes = on_wasm_sized_stack(move || {
        [(10_000, "b"), (64, "b"), (64, "a")].map(|(depth, text)| {
            let schema = json!({"properties": {"s": {"type": "string", "pattern": nested(depth)}}});
            validate_arguments(&schema, &json!({ "s": text })).len()
        })
    });
    // 10 000 levels: refused by the parser, so "b" is not checked; 64 levels: checked.
    assert_eq!(outcomes, [0, 1, 0]);
}

#[test]
fn long_strings_under_a_backtracking_pattern_fit_a_wasm_stack() {
    let outcomes = on_wasm_sized_stack(|| {
        ["^(a|b)*$", "^(?:a*)*c$", "^(.)+$"].map(|pattern| {
            let schema = json!({"properties": {"s": {"type": "string", "pattern": pattern}}});
            validate_arguments(&schema, &json!({ "s": "ab".repeat(50_000) })).len()
        })
    });
    // The first and last recurse once per character until the matcher's depth limit, where the
    // answer is unknown and nothing is reported; the second fails at the first `b`.
    assert_eq!(outcomes, [0, 1, 0]);
}
