//! Function names: sanitizing, de-duplication across servers, and the way back to each server.

use std::collections::HashSet;

use mcp_agent_wasm::core::tools::{
    build_tool_names, build_tool_table, sanitize_function_name, McpTool, FALLBACK_FUNCTION_NAME,
    MAX_FUNCTION_NAME_LENGTH,
};
use serde_json::{json, Value};

fn is_provider_name(name: &str) -> bool {
    !name.is_empty()
        && name.len() <= MAX_FUNCTION_NAME_LENGTH
        && name.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_')
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
}

#[test]
fn sanitize_keeps_only_provider_characters() {
    let long = "a".repeat(70);
    let cases = [
        ("get_weather", "get_weather".to_owned()),
        ("github.search_issues", "github_search_issues".to_owned()),
        ("fs/read-file", "fs_read-file".to_owned()),
        ("météo du jour", "m_t_o_du_jour".to_owned()),
        ("", FALLBACK_FUNCTION_NAME.to_owned()),
        ("3d_render", "_3d_render".to_owned()),
        ("-x", "_-x".to_owned()),
        (long.as_str(), "a".repeat(64)),
    ];
    for (raw, expected) in cases {
        let sanitized = sanitize_function_name(raw);
        assert_eq!(sanitized, expected, "{raw:?}");
        assert!(is_provider_name(&sanitized), "{sanitized}");
    }
}

#[test]
fn collisions_get_server_suffixes_in_server_order() {
    let tools = [
        ("github", "search"),
        ("gitlab", "search"),
        ("web.tools", "search"),
        ("gitlab", "search"),
        ("files", "read.file"),
        ("files", "read_file"),
    ];
    let names: Vec<String> = build_tool_names(&tools)
        .into_iter()
        .map(|name| name.name)
        .collect();
    assert_eq!(
        names,
        [
            "search",
            "search_gitlab",
            "search_web_tools",
            "search_gitlab_2",
            "read_file",
            "read_file_files"
        ]
    );
}

#[test]
fn a_suffixed_name_never_takes_another_tools_own_name() {
    let tools = [("a", "x"), ("b", "x"), ("c", "x_b")];
    let names = build_tool_names(&tools);
    let plain: Vec<&str> = names.iter().map(|name| name.name.as_str()).collect();
    assert_eq!(plain, ["x", "x_b_2", "x_b"]);
}

#[test]
fn three_servers_with_the_same_64_char_name_get_three_names() {
    let long_name = format!("{}_{}", "search_the_knowledge_base", "x".repeat(38));
    assert_eq!(long_name.len(), 64);
    let servers = [
        "knowledge",
        "knowledge-mirror",
        "a-server-with-a-rather-long-configured-name",
    ];
    let table = build_tool_table(
        &servers
            .iter()
            .map(|server| {
                let tool = McpTool::from_listing_entry(&json!({"name": long_name})).expect("tool");
                (server.to_string(), vec![tool])
            })
            .collect::<Vec<_>>(),
    );
    let names: Vec<&str> = table
        .entries()
        .iter()
        .map(|entry| entry.function_name.as_str())
        .collect();
    assert_eq!(names.iter().collect::<HashSet<_>>().len(), 3, "{names:?}");
    assert_eq!(names[0], long_name);
    for (name, server) in names.iter().zip(servers) {
        assert!(is_provider_name(name), "{name}");
        let entry = table.get(name).expect("dispatches");
        assert_eq!(
            (entry.server.as_str(), entry.tool.as_str()),
            (server, long_name.as_str())
        );
        assert_eq!(table.function_name(server, &long_name), Some(*name));
    }
}

#[test]
fn many_colliding_tools_stay_distinct_and_within_64() {
    let long_name = "n".repeat(80);
    let tools: Vec<(String, &str)> = (0..30)
        .map(|index| (format!("server-{}", index % 3), long_name.as_str()))
        .collect();
    let names = build_tool_names(&tools);
    let distinct: HashSet<&str> = names.iter().map(|name| name.name.as_str()).collect();
    assert_eq!(distinct.len(), 30);
    assert!(names.iter().all(|name| is_provider_name(&name.name)));
    assert_eq!(build_tool_names(&tools), names, "deterministic");
}

#[test]
fn tool_table_skips_nameless_tools_and_picks_descriptions() {
    let listing = json!([
        {"name": "a", "description": "Adds numbers", "annotations": {"title": "Add"}},
        {"name": "b", "annotations": {"title": "Bee", "readOnlyHint": true}, "title": "B title"},
        {"name": "c", "description": " ", "title": "See"},
        {"name": ""},
        {"name": "d"}
    ]);
    let tools = listed(&listing);
    let table = build_tool_table(&[("s".to_owned(), tools)]);
    let rows: Vec<(&str, Option<&str>)> = table
        .entries()
        .iter()
        .map(|entry| (entry.function_name.as_str(), entry.description.as_deref()))
        .collect();
    assert_eq!(
        rows,
        [
            ("a", Some("Adds numbers")),
            ("b", Some("Bee")),
            ("c", Some("See")),
            ("d", None)
        ]
    );
    assert_eq!(
        table.get("b").and_then(|entry| entry.annotations.clone()),
        Some(json!({"title": "Bee", "readOnlyHint": true}))
    );
}

/// A tool that runs only as a task (MCP 2025-11-25 `execution.taskSupport: "required"`, such
/// as server-everything's `simulate-research-query`) is not offered: its server refuses a plain
/// call (-32601), and this client does not implement tasks. `optional` and `forbidden` tools
/// are called as usual.
#[test]
fn tool_table_leaves_out_tools_that_run_only_as_tasks() {
    let listing = json!([
        {"name": "research", "execution": {"taskSupport": "required"}},
        {"name": "maybe", "execution": {"taskSupport": "optional"}},
        {"name": "never", "execution": {"taskSupport": "forbidden"}},
        {"name": "plain"}
    ]);
    let tools = listed(&listing);
    assert!(tools[0].runs_only_as_task());
    assert_eq!(tools[1].execution, Some(json!({"taskSupport": "optional"})));
    let table = build_tool_table(&[("s".to_owned(), tools)]);
    let names: Vec<&str> = table
        .entries()
        .iter()
        .map(|entry| entry.function_name.as_str())
        .collect();
    assert_eq!(names, ["maybe", "never", "plain"]);
}

/// The tools of a `tools/list` result's `tools` array.
fn listed(listing: &Value) -> Vec<McpTool> {
    let entries = listing.as_array().expect("a list");
    let tools = entries.iter().map(McpTool::from_listing_entry);
    tools.collect::<Result<_, _>>().expect("tools")
}
