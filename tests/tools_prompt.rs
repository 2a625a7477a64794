//! The tool preamble: what it must tell the model, for the inputs it gets.

use mcp_agent_wasm::core::tools::tool_prompt;

#[test]
fn the_preamble_lists_tools_time_and_guidance() {
    let prompt = tool_prompt(
        &["web_search", "get_weather"],
        "2026-11-30 10:15",
        "Europe/Paris",
    );
    let expected_parts = [
        "Current date and time: 2026-11-30 10:15 (Europe/Paris).",
        "The current year is 2026.",
        "You can call these tools: web_search, get_weather.",
        "without a tool",
        "in the same turn",
        "short keyword queries",
        "cite them",
        "Never invent a tool's result",
    ];
    for part in expected_parts {
        assert!(prompt.contains(part), "missing {part:?} in:\n{prompt}");
    }
}

#[test]
fn without_tools_or_a_parsable_year() {
    let cases = [
        (
            Vec::new(),
            "2026-11-30 10:15",
            "No tools are available",
            true,
        ),
        (
            vec!["a"],
            "30/11/2026 10:15",
            "You can call these tools: a.",
            false,
        ),
    ];
    for (names, now, expected, mentions_year) in cases {
        let prompt = tool_prompt(&names, now, "UTC");
        assert!(prompt.contains(expected), "{prompt}");
        assert_eq!(
            prompt.contains("The current year is"),
            mentions_year,
            "{prompt}"
        );
        assert!(prompt.starts_with(&format!("Current date and time: {now} (UTC).")));
    }
}
