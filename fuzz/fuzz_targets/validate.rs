//! Argument validation on arbitrary (schema, arguments) pairs, given as two JSON texts one after
//! the other (inputs that are not two JSON values are skipped): no panic and no hang (`pattern`s
//! included), errors that describe themselves, and arguments `prepare_arguments` accepts valid
//! against the tool's schema.
#![no_main]

use libfuzzer_sys::fuzz_target;
use mcp_agent_wasm::core::tools::{build_tool_table, describe_errors, validate_arguments, McpTool};
use serde_json::Value;

fuzz_target!(|data: &[u8]| {
    let mut values = serde_json::Deserializer::from_slice(data).into_iter::<Value>();
    let (Some(Ok(schema)), Some(Ok(arguments))) = (values.next(), values.next()) else {
        return;
    };
    let errors = validate_arguments(&schema, &arguments);
    assert_eq!(errors.is_empty(), describe_errors(&errors).is_empty());

    let tool = McpTool {
        name: "tool".to_owned(),
        title: None,
        description: None,
        input_schema: schema.clone(),
        output_schema: None,
        annotations: None,
        execution: None,
    };
    let table = build_tool_table(&[("server".to_owned(), vec![tool])]);
    let function_name = table.entries()[0].function_name.clone();
    let checked = table.check_arguments(&function_name, &arguments);
    if let Ok(prepared) = table.prepare_arguments(&function_name, &arguments) {
        assert!(
            validate_arguments(&schema, &prepared).is_empty(),
            "prepared arguments fail their own schema: {prepared}"
        );
    }
    if let Err(message) = checked {
        assert!(!message.is_empty());
    }
});
