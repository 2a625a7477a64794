#![cfg(not(target_arch = "wasm32"))]
//! tools/list pagination, a server entry's `allowedTools`, tools/call result conversion and its
//! check against the tool's `outputSchema`, and the tools cache.

use std::rc::Rc;

use mcp_agent_wasm::core::mcp::cache::{
    CacheKey, ToolsCache, TOOLS_CACHE_MAX_ENTRIES, TOOLS_CACHE_TTL_MS,
};
use mcp_agent_wasm::core::mcp::tools::{
    check_structured_content, ToolCallResult, ToolListing, MAX_LISTED_TOOLS, MAX_LISTING_PAGES,
};
use mcp_agent_wasm::core::mcp::McpError;
use mcp_agent_wasm::core::tools::{build_tool_table_allowing, unlisted_tools, McpTool};
use serde_json::{json, Value};

fn page(names: &[&str], next_cursor: Option<&str>) -> Value {
    let tools: Vec<Value> = names
        .iter()
        .map(|name| json!({"name": name, "inputSchema": {"type": "object", "properties": {"x": {"type": "number", "minimum": 0}}}}))
        .collect();
    match next_cursor {
        Some(cursor) => json!({"tools": tools, "nextCursor": cursor}),
        None => json!({"tools": tools}),
    }
}

#[test]
fn listing_follows_cursors_until_done_and_skips_empty_names() {
    let pages = [
        page(&["a", "b"], Some("c1")),
        page(&["", "c"], Some("c2")),
        page(&["d"], None),
    ];
    let mut listing = ToolListing::new();
    let mut cursor: Option<String> = None;
    let mut requested = Vec::new();
    for page in &pages {
        requested.push(ToolListing::params(cursor.as_deref()));
        cursor = listing.handle_page(page).expect("valid page");
    }
    assert_eq!(cursor, None);
    assert_eq!(
        requested,
        vec![json!({}), json!({"cursor": "c1"}), json!({"cursor": "c2"})]
    );
    assert_eq!(listing.skipped().len(), 1);
    let tools = listing.into_tools();
    let names: Vec<&str> = tools.iter().map(|tool| tool.name.as_str()).collect();
    assert_eq!(names, ["a", "b", "c", "d"]);
    assert_eq!(
        tools[0].input_schema["properties"]["x"]["minimum"],
        json!(0),
        "schemas are kept as sent"
    );
}

/// A server whose cursors never end (or whose pages hold ever more tools) cannot keep a listing
/// going, and its memory growing, for good.
#[test]
fn listing_gives_up_past_its_page_and_tool_limits() {
    let too_large = McpError::ListingTooLarge {
        method: "tools/list",
        max_pages: MAX_LISTING_PAGES,
        max_entries: MAX_LISTED_TOOLS,
    };
    let mut listing = ToolListing::new();
    for number in 1..MAX_LISTING_PAGES {
        let cursor = format!("c{number}");
        assert_eq!(
            listing.handle_page(&page(&["t"], Some(&cursor))),
            Ok(Some(cursor.clone()))
        );
    }
    assert_eq!(
        listing.handle_page(&page(&["last"], None)),
        Ok(None),
        "page {MAX_LISTING_PAGES}"
    );
    let mut endless = ToolListing::new();
    let outcomes: Vec<_> = (0..=MAX_LISTING_PAGES)
        .map(|number| endless.handle_page(&page(&["t"], Some(&format!("c{number}")))))
        .collect();
    assert!(outcomes[..MAX_LISTING_PAGES].iter().all(Result::is_ok));
    assert_eq!(outcomes[MAX_LISTING_PAGES], Err(too_large.clone()));

    let names: Vec<String> = (0..=MAX_LISTED_TOOLS)
        .map(|index| format!("t{index}"))
        .collect();
    let names: Vec<&str> = names.iter().map(String::as_str).collect();
    let mut at_limit = ToolListing::new();
    assert_eq!(
        at_limit.handle_page(&page(&names[..MAX_LISTED_TOOLS], None)),
        Ok(None)
    );
    assert_eq!(at_limit.into_tools().len(), MAX_LISTED_TOOLS);
    assert_eq!(
        ToolListing::new().handle_page(&page(&names, None)),
        Err(too_large.clone())
    );
    assert_eq!(too_large.code(), "mcp_listing_too_large");
}

#[test]
fn listing_refuses_a_cursor_loop_and_malformed_pages() {
    let mut listing = ToolListing::new();
    assert_eq!(
        listing.handle_page(&page(&["a"], Some("same"))),
        Ok(Some("same".to_owned()))
    );
    assert_eq!(
        listing.handle_page(&page(&["b"], Some("same"))),
        Err(McpError::CursorLoop {
            method: "tools/list",
            cursor: "same".to_owned()
        })
    );
    for bad in [
        json!({}),
        json!({"tools": {}}),
        json!({"tools": [{"description": "no name"}]}),
    ] {
        let code = ToolListing::new()
            .handle_page(&bad)
            .map_err(|error| error.code());
        assert_eq!(code, Err("mcp_invalid_message"), "{bad}");
    }
}

#[test]
fn listing_entries_are_read_as_the_spec_types_them() {
    let tool = McpTool::from_listing_entry(&json!({
        "name": "search",
        "title": null,
        "description": "Finds things",
        "inputSchema": {"type": "object", "properties": {"q": {"type": "string"}}},
        "outputSchema": null,
        "annotations": {"readOnlyHint": true},
        "_meta": {"extra": 1},
        "icons": []
    }))
    .expect("a valid entry");
    assert_eq!(
        tool,
        McpTool {
            name: "search".to_owned(),
            title: None,
            description: Some("Finds things".to_owned()),
            input_schema: json!({"type": "object", "properties": {"q": {"type": "string"}}}),
            output_schema: None,
            annotations: Some(json!({"readOnlyHint": true})),
            execution: None,
        }
    );
    let bare = McpTool::from_listing_entry(&json!({"name": "ping"})).expect("only a name");
    assert_eq!(bare.input_schema, Value::Null);
    assert_eq!((bare.title, bare.description), (None, None));

    let refused = [
        (json!("ping"), "expected an object, got a string"),
        (json!({"description": "x"}), "missing field `name`"),
        (json!({"name": null}), "missing field `name`"),
        (json!({"name": 7}), "`name` must be a string, got a number"),
        (
            json!({"name": "a", "title": ["A"]}),
            "`title` must be a string, got an array",
        ),
        (
            json!({"name": "a", "description": {}}),
            "`description` must be a string, got an object",
        ),
    ];
    for (entry, message) in refused {
        assert_eq!(
            McpTool::from_listing_entry(&entry),
            Err(message.to_owned()),
            "{entry}"
        );
    }
    assert_eq!(
        ToolListing::new().handle_page(&json!({"tools": [{"name": "a"}, {"name": 7}]})),
        Err(McpError::InvalidMessage(
            "tools/list entry 1: `name` must be a string, got a number".to_owned()
        ))
    );
}

/// (result as a server sends it, expected model text, expected isError).
fn conversion_cases() -> Vec<(Value, &'static str, bool)> {
    vec![
        (
            json!({"content": [{"type": "text", "text": "Echo: hi"}]}),
            "Echo: hi",
            false,
        ),
        (
            json!({"content": [
                {"type": "text", "text": "A tiny image:"},
                {"type": "image", "data": "iVBORw0KGgo=", "mimeType": "image/png"},
                {"type": "text", "text": "The image above."}
            ]}),
            "A tiny image:\n[image block 1: image/png, 8 bytes, shown to the user]\nThe image above.",
            false,
        ),
        (
            json!({"content": [], "structuredContent": {"temperature": 22.5, "conditions": "cloudy"}}),
            r#"{"temperature":22.5,"conditions":"cloudy"}"#,
            false,
        ),
        (
            json!({"content": [{"type": "text", "text": "22.5 C"}], "structuredContent": {"temperature": 22.5}}),
            "22.5 C",
            false,
        ),
        (
            json!({"content": [{"type": "audio", "data": "AAAA", "mimeType": "audio/wav"}], "structuredContent": {"ok": true}}),
            "{\"ok\":true}\n[audio block 0: audio/wav, 3 bytes, shown to the user]",
            false,
        ),
        (
            json!({"content": [
                {"type": "resource_link", "uri": "file:///a.txt", "name": "a.txt"},
                {"type": "resource", "resource": {"uri": "test://r/1", "mimeType": "text/plain", "text": "body"}},
                {"type": "resource", "resource": {"uri": "test://r/2", "mimeType": "application/octet-stream", "blob": "AAECAw=="}}
            ]}),
            "[resource link: a.txt <file:///a.txt>]\n[resource <test://r/1>]\nbody\n[resource block 2 <test://r/2>: application/octet-stream, 4 bytes, shown to the user]",
            false,
        ),
        (
            json!({"content": [{"type": "text", "text": "division by zero"}], "isError": true}),
            "division by zero",
            true,
        ),
        (json!({"content": [{"type": "hologram"}]}), "[hologram block 0]", false),
        (json!({}), "", false),
    ]
}

#[test]
fn results_give_the_model_text_and_the_ui_every_block() {
    for (result, expected_text, expected_is_error) in conversion_cases() {
        let converted = ToolCallResult::from_result(result.clone()).expect("valid result");
        assert_eq!(converted.model_text, expected_text, "{result}");
        assert_eq!(converted.is_error, expected_is_error, "{result}");
        let sent_blocks = result["content"].as_array().cloned().unwrap_or_default();
        assert_eq!(
            converted.blocks, sent_blocks,
            "the UI gets every block as sent"
        );
        assert_eq!(
            converted.structured_content.as_ref(),
            result.get("structuredContent")
        );
    }
}

#[test]
fn base64_never_reaches_the_model() {
    let data = "iVBORw0KGgoAAAANSUhEUgAAABQAAAAUCAIAAAAC64paAAABFElEQVR4nGNgGAWjgBoAAAW0AAHRLlsSAAAAAElFTkSuQmCC";
    let result = json!({"content": [{"type": "image", "data": data, "mimeType": "image/png"}]});
    let converted = ToolCallResult::from_result(result.clone()).expect("valid");
    assert!(!converted.model_text.contains(data));
    assert_eq!(converted.blocks[0]["data"], data);
}

#[test]
fn malformed_results_are_errors() {
    for bad in [json!([]), json!("text"), json!({"content": "text"})] {
        assert_eq!(
            ToolCallResult::from_result(bad.clone()).map_err(|error| error.code()),
            Err("mcp_invalid_message"),
            "{bad}"
        );
    }
}

/// A weather tool's `outputSchema`, shaped like server-everything's `get-structured-content`,
/// with a list of forecasts to show how nested paths are worded.
fn weather_output_schema() -> Value {
    json!({
        "type": "object",
        "properties": {
            "temperature": {"type": "number"},
            "conditions": {"type": "string"},
            "forecast": {"type": "array", "items": {
                "type": "object",
                "properties": {"day": {"type": "string"}, "high": {"type": "number"}},
                "required": ["day", "high"]
            }}
        },
        "required": ["temperature", "conditions"]
    })
}

/// (outputSchema, result as a server sends it, the check's message; `None` when it passes).
/// MCP 2025-11-25, server/tools "Output Schema": "Servers MUST provide structured results that
/// conform to this schema", "Clients SHOULD validate structured results against this schema";
/// the TypeScript SDK's `Client.callTool` fails a result without `structuredContent` unless it
/// is an error.
fn output_schema_cases() -> Vec<(Option<Value>, Value, Option<&'static str>)> {
    let schema = Some(weather_output_schema());
    vec![
        (
            schema.clone(),
            json!({"content": [], "structuredContent": {"temperature": 22.5, "conditions": "cloudy",
                "forecast": [{"day": "mon", "high": 24}]}}),
            None,
        ),
        (
            schema.clone(),
            json!({"content": [{"type": "text", "text": "22.5 C"}]}),
            Some("tool `weather` has an outputSchema but returned no structuredContent"),
        ),
        (
            schema.clone(),
            json!({"content": [], "structuredContent": null}),
            Some("tool `weather` has an outputSchema but returned no structuredContent"),
        ),
        (
            schema.clone(),
            json!({"content": [], "structuredContent": {"temperature": "warm", "conditions": "cloudy"}}),
            Some(
                "tool `weather` returned structuredContent that does not match its outputSchema: \
                  structuredContent `temperature`: expected number, got string",
            ),
        ),
        (
            schema.clone(),
            json!({"content": [], "structuredContent": {"temperature": 1, "forecast": [
                {"day": "mon", "high": 24}, {"day": "tue", "high": 25}, {"day": "wed", "high": "hot"}, {"high": 20}]}}),
            Some(
                "tool `weather` returned structuredContent that does not match its outputSchema: \
                  structuredContent `conditions`: required property missing; \
                  structuredContent `forecast[2].high`: expected number, got string; \
                  structuredContent `forecast[3].day`: required property missing",
            ),
        ),
        (
            schema.clone(),
            json!({"content": [], "structuredContent": [1, 2]}),
            Some(
                "tool `weather` returned structuredContent that does not match its outputSchema: \
                  structuredContent: expected object, got array",
            ),
        ),
        (
            Some(
                json!({"type": "object", "properties": {"answer": {"anyOf": [
                    {"type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"]},
                    {"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]}
                ]}}}),
            ),
            json!({"content": [], "structuredContent": {"answer": {"n": 1.5}}}),
            Some(
                "tool `weather` returned structuredContent that does not match its outputSchema: \
                  structuredContent `answer`: matches none of the 2 allowed shapes \
                  (closest: structuredContent `answer.n`: expected integer, got number)",
            ),
        ),
        // A failure need not have the success's shape.
        (
            schema.clone(),
            json!({"content": [{"type": "text", "text": "no such city"}], "isError": true}),
            None,
        ),
        (
            schema.clone(),
            json!({"content": [], "structuredContent": {"error": "no such city"}, "isError": true}),
            None,
        ),
        // Listed without outputSchema, or with one that is not an object schema: not checked.
        (
            None,
            json!({"content": [], "structuredContent": [1, 2]}),
            None,
        ),
        (Some(json!(false)), json!({"content": []}), None),
        (
            Some(json!("object")),
            json!({"content": [], "structuredContent": 3}),
            None,
        ),
        // An empty schema takes any content, but content there must be.
        (
            Some(json!({})),
            json!({"content": [], "structuredContent": {"any": 1}}),
            None,
        ),
        (
            Some(json!({})),
            json!({"content": []}),
            Some("tool `weather` has an outputSchema but returned no structuredContent"),
        ),
    ]
}

#[test]
fn structured_content_is_checked_against_the_output_schema() {
    for (schema, result, expected) in output_schema_cases() {
        let converted = ToolCallResult::from_result(result.clone()).expect("valid result");
        let checked = check_structured_content("weather", schema.as_ref(), &converted);
        let outcome = checked.map_err(|error| (error.code(), error.to_string()));
        let expected = expected.map_or(Ok(()), |message| {
            Err(("mcp_invalid_structured_content", message.to_owned()))
        });
        assert_eq!(outcome, expected, "{result} under {schema:?}");
    }
}

/// Past eight mismatches the message counts the rest, as for a model's arguments.
#[test]
fn long_structured_content_mismatch_lists_are_cut() {
    let schema = json!({"type": "array", "items": {"type": "string"}});
    let result = json!({"content": [], "structuredContent": [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]});
    let converted = ToolCallResult::from_result(result).expect("valid result");
    let message = check_structured_content("list", Some(&schema), &converted)
        .expect_err("ten mismatches")
        .to_string();
    assert!(
        message.contains("structuredContent `[7]`: expected string, got integer; and 2 more"),
        "{message}"
    );
    assert!(!message.contains("`[8]`"), "{message}");
}

fn tool(name: &str) -> McpTool {
    McpTool::from_listing_entry(&json!({"name": name, "inputSchema": {"type": "object"}}))
        .expect("valid tool")
}

fn headers(pairs: &[(&str, &str)]) -> Vec<(String, String)> {
    pairs
        .iter()
        .map(|(name, value)| (name.to_string(), value.to_string()))
        .collect()
}

#[test]
fn cache_key_is_url_and_sorted_headers() {
    let url = "https://mcp.example.com/mcp";
    let one_order = CacheKey::new(
        url,
        &headers(&[("X-Team", "a"), ("Authorization", "Bearer 1")]),
    );
    let other_order = CacheKey::new(
        url,
        &headers(&[("authorization", "Bearer 1"), ("x-team", "a")]),
    );
    let other_user = CacheKey::new(
        url,
        &headers(&[("Authorization", "Bearer 2"), ("X-Team", "a")]),
    );
    let other_url = CacheKey::new(
        "https://mcp.example.com/v2",
        &headers(&[("X-Team", "a"), ("Authorization", "Bearer 1")]),
    );
    assert_eq!(one_order, other_order);
    assert_ne!(one_order, other_user);
    assert_ne!(one_order, other_url);
    // A server may list tools only to clients that declare a capability (server-everything's
    // elicitation tools), so a client declaring it gets a listing of its own.
    let eliciting = one_order
        .clone()
        .declaring(&json!({"elicitation": {"form": {}, "url": {}}}));
    assert_ne!(one_order, eliciting);
    let also_eliciting = other_order
        .clone()
        .declaring(&json!({"elicitation": {"form": {}, "url": {}}}));
    assert_eq!(eliciting, also_eliciting);

    let mut cache = ToolsCache::new();
    cache.record(one_order.clone(), &Ok(vec![tool("shared")].into()), 0.0);
    let hit = cache.get(&other_order, 1.0).expect("the same server");
    assert_eq!(hit.to_vec(), vec![tool("shared")]);
    let again = cache.get(&one_order, 2.0).expect("the same server");
    assert!(
        Rc::ptr_eq(&hit, &again),
        "hits share the stored listing, so callers can tell it is unchanged"
    );
    assert_eq!(cache.get(&other_user, 1.0), None);
}

#[test]
fn cache_entries_expire_after_the_ttl() {
    let key = CacheKey::new("https://a.example/mcp", &[]);
    let mut cache = ToolsCache::new();
    cache.record(key.clone(), &Ok(vec![tool("t")].into()), 1_000.0);
    assert!(cache
        .get(&key, 1_000.0 + TOOLS_CACHE_TTL_MS - 1.0)
        .is_some());
    assert_eq!(cache.get(&key, 1_000.0 + TOOLS_CACHE_TTL_MS), None);
    assert!(cache.is_empty(), "an expired entry is dropped");
}

#[test]
fn recording_a_listing_drops_the_expired_ones() {
    let key = |token: &str| {
        CacheKey::new(
            "https://a.example/mcp",
            &headers(&[("Authorization", token)]),
        )
    };
    let mut cache = ToolsCache::new();
    cache.record(key("Bearer 1"), &Ok(vec![tool("t")].into()), 0.0);
    cache.record(key("Bearer 2"), &Ok(vec![tool("t")].into()), 1.0);
    // The page refreshed its token: the first key is never asked for again, and without this
    // its listing would stay until a thousand others pushed it out.
    cache.record(
        key("Bearer 3"),
        &Ok(vec![tool("t")].into()),
        TOOLS_CACHE_TTL_MS,
    );
    assert_eq!(cache.len(), 2, "the expired listing is dropped");
    assert!(cache.get(&key("Bearer 2"), TOOLS_CACHE_TTL_MS).is_some());
}

#[test]
fn failed_listings_are_not_cached() {
    let key = CacheKey::new("https://a.example/mcp", &[]);
    let mut cache = ToolsCache::new();
    cache.record(key.clone(), &Err(McpError::Timeout(5)), 0.0);
    assert_eq!(cache.get(&key, 1.0), None);
    cache.record(key.clone(), &Ok(vec![tool("t")].into()), 0.0);
    cache.record(key.clone(), &Err(McpError::Timeout(5)), 2.0);
    assert_eq!(
        cache.get(&key, 3.0).map(|tools| tools.to_vec()),
        Some(vec![tool("t")]),
        "a failure keeps the good entry"
    );
}

#[test]
fn cache_evicts_the_least_recently_used_not_the_oldest_fetched() {
    let key = |index: usize| CacheKey::new(&format!("https://s{index}.example/mcp"), &[]);
    let mut cache = ToolsCache::new();
    for index in 0..TOOLS_CACHE_MAX_ENTRIES {
        cache.record(key(index), &Ok(vec![tool("t")].into()), index as f64);
    }
    assert_eq!(cache.len(), TOOLS_CACHE_MAX_ENTRIES);
    // The oldest-fetched entry is used again, so entry 1 becomes the least recently used.
    assert!(cache.get(&key(0), 2_000.0).is_some());
    cache.record(
        key(TOOLS_CACHE_MAX_ENTRIES),
        &Ok(vec![tool("t")].into()),
        2_001.0,
    );
    assert_eq!(cache.len(), TOOLS_CACHE_MAX_ENTRIES);
    assert!(
        cache.get(&key(0), 2_002.0).is_some(),
        "recently used survives"
    );
    assert_eq!(
        cache.get(&key(1), 2_002.0),
        None,
        "least recently used evicted"
    );
    assert!(cache.get(&key(2), 2_002.0).is_some());
    // Refreshing an existing key never evicts another one.
    cache.record(key(2), &Ok(vec![tool("u")].into()), 2_003.0);
    assert_eq!(cache.len(), TOOLS_CACHE_MAX_ENTRIES);
}

/// Fixture: tests/fixtures/schemas/server-everything-2026.8.31.tools-list.json, a `tools/list`
/// result captured from @modelcontextprotocol/server-everything 2026.8.31 (one page).
#[test]
fn a_real_listing_keeps_every_tool_and_schema_as_sent() {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/schemas/server-everything-2026.8.31.tools-list.json"
    );
    let text = std::fs::read_to_string(path).expect("fixture present");
    let result: Value = serde_json::from_str(&text).expect("fixture is JSON");
    let mut listing = ToolListing::new();
    assert_eq!(listing.handle_page(&result), Ok(None), "a single page");
    let tools = listing.into_tools();
    let sent = result["tools"].as_array().expect("tools array");
    assert_eq!(tools.len(), sent.len());
    for (tool, sent) in tools.iter().zip(sent) {
        assert_eq!(tool.name, sent["name"].as_str().unwrap_or_default());
        assert_eq!(tool.input_schema, sent["inputSchema"], "{}", tool.name);
    }
    assert!(tools
        .iter()
        .any(|tool| tool.name == "trigger-long-running-operation"));
}

/// A server entry's `allowedTools` offers the listed tools it names, whole and in the listing's
/// order; names the listing lacks come back once each to be reported; an empty list offers none
/// of that server's tools, and a server without the option offers all of its tools.
#[test]
fn allowed_tools_offer_the_named_tools_and_give_back_the_names_not_listed() {
    let listing = |names: &[&str]| -> Vec<McpTool> {
        names
            .iter()
            .map(|name| {
                let entry =
                    json!({"name": name, "description": name, "inputSchema": {"type": "object"}});
                McpTool::from_listing_entry(&entry).unwrap()
            })
            .collect()
    };
    let names =
        |names: &[&str]| -> Vec<String> { names.iter().map(|name| name.to_string()).collect() };
    let servers = [
        (
            "test".to_owned(),
            listing(&["echo", "add", "progress", "hang"]),
        ),
        ("empty".to_owned(), listing(&["echo", "add"])),
        ("all".to_owned(), listing(&["ping", "echo"])),
    ];
    let allowed = [
        (
            "test".to_owned(),
            names(&["hang", "missing", "echo", "Echo", "missing"]),
        ),
        ("empty".to_owned(), Vec::new()),
    ];
    let table = build_tool_table_allowing(&servers, &allowed);
    let offered: Vec<(&str, &str, &str)> = table
        .entries()
        .iter()
        .map(|entry| {
            (
                entry.server.as_str(),
                entry.tool.as_str(),
                entry.function_name.as_str(),
            )
        })
        .collect();
    assert_eq!(
        offered,
        [
            ("test", "echo", "echo"),
            ("test", "hang", "hang"),
            ("all", "ping", "ping"),
            ("all", "echo", "echo_all")
        ]
    );
    assert_eq!(table.entries()[1].description.as_deref(), Some("hang"));
    assert_eq!(
        unlisted_tools(&servers[0].1, &allowed[0].1),
        ["missing", "Echo"]
    );
    assert!(unlisted_tools(&servers[1].1, &[]).is_empty());
    // Listed, but only to run as a task, which this client does not implement: not offered, so
    // named back like a tool not listed.
    let research = McpTool::from_listing_entry(
        &json!({"name": "research", "execution": {"taskSupport": "required"}}),
    )
    .unwrap();
    let with_task = [research, tool("echo")];
    assert_eq!(
        unlisted_tools(&with_task, &names(&["research", "echo"])),
        ["research"]
    );
}
