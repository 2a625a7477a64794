#![cfg(not(target_arch = "wasm32"))]
//! Resources, resource templates and prompts (spec 2025-11-25, "Server features: Resources /
//! Prompts"): listings page by page with the guards of `tools/list`, the requests for one entry,
//! and the capability each needs.

use mcp_agent_wasm::core::mcp::catalog::{
    require_capability, Catalog, CatalogListing, EntryRequest, FeatureExchange, FeatureRequest,
    Pages, SessionRequests, MAX_CATALOG_ENTRIES, MAX_LISTING_PAGES,
};
use mcp_agent_wasm::core::mcp::McpError;
use serde_json::{json, Value};

/// Every page of a listing as the server sends it; returns the entries and the params asked.
fn list(catalog: Catalog, pages: &[Value]) -> Result<(Vec<Value>, Vec<Value>), McpError> {
    let mut listing = CatalogListing::new(catalog);
    let mut cursor: Option<String> = None;
    let mut requested = Vec::new();
    for page in pages {
        requested.push(Pages::params(cursor.as_deref()));
        cursor = listing.handle_page(page.clone())?;
    }
    assert_eq!(cursor, None, "the last page has no cursor");
    Ok((listing.into_entries(), requested))
}

#[test]
fn a_listing_follows_cursors_and_keeps_entries_as_sent() {
    let readme = json!({
        "uri": "file:///readme.md", "name": "readme", "title": "Read me", "mimeType": "text/markdown",
        "size": 12, "annotations": {"audience": ["user"]}, "icons": [{"src": "https://example.com/i.png"}],
        "_meta": {"x": 1},
    });
    let pages = [
        json!({"resources": [readme, {"uri": "file:///a", "name": "a"}], "nextCursor": "p2"}),
        json!({"resources": [], "nextCursor": "p3"}),
        json!({"resources": [{"uri": "file:///b", "name": "b"}]}),
    ];
    let (entries, requested) = list(Catalog::Resources, &pages).expect("valid pages");
    assert_eq!(
        requested,
        [json!({}), json!({"cursor": "p2"}), json!({"cursor": "p3"})]
    );
    assert_eq!(entries.len(), 3);
    assert_eq!(entries[0], readme, "every member kept");

    let templates =
        [json!({"resourceTemplates": [{"uriTemplate": "file:///{path}", "name": "file"}]})];
    let (entries, _) = list(Catalog::ResourceTemplates, &templates).expect("templates");
    assert_eq!(entries[0]["uriTemplate"], "file:///{path}");
    let prompts =
        [json!({"prompts": [{"name": "p", "arguments": [{"name": "city", "required": true}]}]})];
    let (entries, _) = list(Catalog::Prompts, &prompts).expect("prompts");
    assert_eq!(entries[0]["arguments"][0]["name"], "city");
}

#[test]
fn a_listing_refuses_a_cursor_loop_naming_its_method() {
    let mut listing = CatalogListing::new(Catalog::Prompts);
    let page = json!({"prompts": [{"name": "p"}], "nextCursor": "again"});
    assert_eq!(
        listing.handle_page(page.clone()),
        Ok(Some("again".to_owned()))
    );
    let error = listing.handle_page(page).expect_err("a loop");
    assert_eq!(error.code(), "mcp_cursor_loop");
    assert_eq!(
        error.to_string(),
        "prompts/list returned the cursor `again` twice"
    );
}

/// The guards `tools/list` has: at most [`MAX_LISTING_PAGES`] pages, and a most of entries.
#[test]
fn a_listing_gives_up_past_its_page_and_entry_limits() {
    let mut endless = CatalogListing::new(Catalog::ResourceTemplates);
    let outcomes: Vec<_> = (0..=MAX_LISTING_PAGES)
        .map(|number| {
            endless
                .handle_page(json!({"resourceTemplates": [], "nextCursor": format!("c{number}")}))
        })
        .collect();
    assert!(outcomes[..MAX_LISTING_PAGES].iter().all(Result::is_ok));
    let too_large = McpError::ListingTooLarge {
        method: "resources/templates/list",
        max_pages: MAX_LISTING_PAGES,
        max_entries: MAX_CATALOG_ENTRIES,
    };
    assert_eq!(outcomes[MAX_LISTING_PAGES], Err(too_large));

    let entries: Vec<Value> = (0..=MAX_CATALOG_ENTRIES)
        .map(|index| json!({"uri": format!("file:///{index}"), "name": "f"}))
        .collect();
    let mut at_limit = CatalogListing::new(Catalog::Resources);
    let full_page = json!({"resources": entries[..MAX_CATALOG_ENTRIES]});
    assert_eq!(at_limit.handle_page(full_page), Ok(None));
    assert_eq!(at_limit.into_entries().len(), MAX_CATALOG_ENTRIES);
    let error = CatalogListing::new(Catalog::Resources)
        .handle_page(json!({ "resources": entries }))
        .expect_err("one entry too many");
    assert_eq!(error.code(), "mcp_listing_too_large");
    assert_eq!(
        error.to_string(),
        "resources/list gave more than 100 pages or 10000 entries; the listing was given up"
    );
}

#[test]
fn malformed_pages_are_invalid_messages() {
    for (catalog, page) in [
        (Catalog::Resources, json!({})),
        (Catalog::Resources, json!({"tools": []})),
        (Catalog::ResourceTemplates, json!({"resources": []})),
        (Catalog::Prompts, json!({"prompts": {}})),
        (Catalog::Prompts, json!({"prompts": ["p"]})),
        (Catalog::Prompts, json!([])),
    ] {
        let outcome = CatalogListing::new(catalog).handle_page(page.clone());
        assert_eq!(
            outcome.map_err(|error| error.code()),
            Err("mcp_invalid_message"),
            "{page}"
        );
    }
}

#[test]
fn entry_requests_carry_the_params_the_spec_names() {
    let read = EntryRequest::read_resource("demo://resource/1");
    assert_eq!(
        (read.method, read.capability, &read.params),
        (
            "resources/read",
            "resources",
            &json!({"uri": "demo://resource/1"})
        )
    );
    let bare = EntryRequest::get_prompt("simple", Value::Null).expect("no arguments");
    assert_eq!(
        (bare.method, bare.capability, &bare.params),
        ("prompts/get", "prompts", &json!({"name": "simple"}))
    );
    let with_arguments =
        EntryRequest::get_prompt("args", json!({"city": "Oslo", "state": ""})).expect("strings");
    assert_eq!(
        with_arguments.params,
        json!({"name": "args", "arguments": {"city": "Oslo", "state": ""}})
    );
    for refused in [
        json!({"count": 3}),
        json!({"city": null}),
        json!(["Oslo"]),
        json!("Oslo"),
    ] {
        assert_eq!(
            EntryRequest::get_prompt("args", refused.clone()),
            Err("a prompt's arguments are an object of strings".to_owned()),
            "{refused}"
        );
    }
}

/// `resources/subscribe`, `logging/setLevel` and `completion/complete` as spec 2025-11-25 has
/// them ("Resources › Subscriptions", "Logging", "Completion"), each refused with a reason
/// before anything is sent when its params are of the wrong shape.
#[test]
fn subscriptions_log_levels_and_completions_carry_the_params_the_spec_names() {
    let subscribe = EntryRequest::resource_subscription("demo://r/1", true);
    assert_eq!(
        (subscribe.method, subscribe.capability, &subscribe.params),
        (
            "resources/subscribe",
            "resources.subscribe",
            &json!({"uri": "demo://r/1"})
        )
    );
    let unsubscribe = EntryRequest::resource_subscription("demo://r/1", false);
    assert_eq!(unsubscribe.method, "resources/unsubscribe");
    let level = EntryRequest::set_logging_level("warning").expect("a level");
    assert_eq!(
        (level.method, level.capability, &level.params),
        ("logging/setLevel", "logging", &json!({"level": "warning"}))
    );
    assert_eq!(
        EntryRequest::set_logging_level("warn"),
        Err(
            "the level is one of debug, info, notice, warning, error, critical, alert, emergency"
                .to_owned()
        )
    );
    let params = json!({
        "ref": {"type": "ref/prompt", "name": "team"},
        "argument": {"name": "name", "value": "A"},
        "context": {"arguments": {"department": "Sales"}}
    });
    let complete = EntryRequest::complete(params.clone()).expect("well formed");
    assert_eq!(
        (complete.method, complete.capability, &complete.params),
        ("completion/complete", "completions", &params)
    );
    let template = json!({"ref": {"type": "ref/resource", "uri": "file:///{path}"}, "argument": {"name": "path", "value": ""}});
    assert!(EntryRequest::complete(template).is_ok());
    let argument = json!({"name": "n", "value": "v"});
    for (refused, reason) in [
        (json!({"argument": argument}), "`ref` is"),
        (
            json!({"ref": {"type": "ref/prompt"}, "argument": argument}),
            "`ref` is",
        ),
        (
            json!({"ref": {"type": "ref/tool", "name": "t"}, "argument": argument}),
            "`ref` is",
        ),
        (
            json!({"ref": {"type": "ref/prompt", "name": "t"}}),
            "`argument` is",
        ),
        (
            json!({"ref": {"type": "ref/prompt", "name": "t"}, "argument": {"name": "n", "value": 1}}),
            "`argument` is",
        ),
        (
            json!({"ref": {"type": "ref/prompt", "name": "t"}, "argument": argument, "context": {"arguments": {"a": 1}}}),
            "`context` is",
        ),
        (
            json!({"ref": {"type": "ref/prompt", "name": "t"}, "argument": argument, "context": []}),
            "`context` is",
        ),
        (json!(null), "`ref` is"),
    ] {
        let error = EntryRequest::complete(refused.clone()).expect_err("malformed");
        assert!(error.starts_with(reason), "{refused}: {error}");
    }
}

/// An empty result is what subscriptions and `logging/setLevel` answer with; a completion
/// must hold `completion.values`.
#[test]
fn completion_and_empty_results_are_checked_by_their_shape() {
    let subscribe = EntryRequest::resource_subscription("demo://r", true);
    assert_eq!(subscribe.check_result(&json!({})), Ok(()));
    assert!(subscribe.answers_nothing());
    let error = subscribe.check_result(&json!([])).expect_err("no object");
    assert_eq!(error.code(), "mcp_invalid_message");
    let complete = EntryRequest::complete(
        json!({"ref": {"type": "ref/prompt", "name": "p"}, "argument": {"name": "a", "value": ""}}),
    )
    .expect("well formed");
    assert!(!complete.answers_nothing());
    assert_eq!(
        complete.check_result(&json!({"completion": {"values": ["x"], "hasMore": false}})),
        Ok(())
    );
    for malformed in [
        json!({"completion": {}}),
        json!({"values": []}),
        json!({"completion": {"values": "x"}}),
    ] {
        let error = complete.check_result(&malformed).expect_err("malformed");
        assert_eq!(
            error.to_string(),
            "invalid message from server: completion/complete result without a `completion.values` list",
            "{malformed}"
        );
    }
}

#[test]
fn entry_results_must_hold_their_list() {
    let read = EntryRequest::read_resource("demo://r");
    assert_eq!(read.check_result(&json!({"contents": []})), Ok(()));
    let prompt = EntryRequest::get_prompt("p", Value::Null).expect("request");
    assert_eq!(
        prompt.check_result(&json!({"description": "d", "messages": []})),
        Ok(())
    );
    for (request, result) in [
        (&read, json!({})),
        (&read, json!({"contents": {}})),
        (&prompt, json!({"messages": "hi"})),
        (&prompt, json!(null)),
    ] {
        let error = request.check_result(&result).expect_err("malformed");
        assert_eq!(error.code(), "mcp_invalid_message", "{result}");
    }
}

/// A client may use only the capabilities the server declared (spec, lifecycle).
#[test]
fn a_request_needs_its_capability_declared() {
    let declared = json!({"tools": {}, "resources": {"subscribe": true}, "prompts": {}});
    assert_eq!(
        require_capability(Some(&declared), "resources", "resources/read"),
        Ok(())
    );
    assert_eq!(
        require_capability(Some(&declared), "prompts", "prompts/list"),
        Ok(())
    );
    assert_eq!(
        require_capability(
            Some(&declared),
            "resources.subscribe",
            "resources/subscribe"
        ),
        Ok(())
    );
    for unsubscribable in [
        json!({"resources": {}}),
        json!({"resources": {"subscribe": false}}),
    ] {
        let error = require_capability(
            Some(&unsubscribable),
            "resources.subscribe",
            "resources/subscribe",
        )
        .expect_err("not declared");
        assert_eq!(
            error.to_string(),
            "the server did not declare the `resources.subscribe` capability, which resources/subscribe needs"
        );
    }
    for capabilities in [
        None,
        Some(json!({"tools": {}})),
        Some(json!({"prompts": null})),
    ] {
        let error = require_capability(capabilities.as_ref(), "prompts", "prompts/get")
            .expect_err("undeclared");
        assert_eq!(error.code(), "mcp_capability_missing");
        assert_eq!(
            error.to_string(),
            "the server did not declare the `prompts` capability, which prompts/get needs"
        );
    }
}

/// The requests an exchange asks for, and the answer it gives: a listing's pages joined, an
/// entry's result as sent (or refused when malformed).
#[test]
fn an_exchange_asks_page_after_page_or_once() {
    let mut listing = FeatureExchange::new(FeatureRequest::List(Catalog::Prompts));
    let mut asked = Vec::new();
    let pages = [
        json!({"prompts": [{"name": "a"}], "nextCursor": "2"}),
        json!({"prompts": [{"name": "b"}]}),
    ];
    let mut answers = Vec::new();
    for page in pages {
        asked.push((listing.capability(), listing.method(), listing.params()));
        answers.push(listing.handle_result(page).expect("valid page"));
    }
    assert_eq!(
        asked,
        [
            ("prompts", "prompts/list", json!({})),
            ("prompts", "prompts/list", json!({"cursor": "2"}))
        ]
    );
    assert_eq!(answers, [None, Some(json!([{"name": "a"}, {"name": "b"}]))]);

    let request = EntryRequest::read_resource("demo://r");
    let mut entry = FeatureExchange::new(FeatureRequest::Entry(request));
    assert_eq!(
        (entry.capability(), entry.method(), entry.params()),
        ("resources", "resources/read", json!({"uri": "demo://r"}))
    );
    let result = json!({"contents": [{"uri": "demo://r", "blob": "AA=="}], "_meta": {}});
    assert_eq!(entry.handle_result(result.clone()), Ok(Some(result)));
    let malformed = entry.handle_result(json!({"contents": null}));
    assert_eq!(
        malformed.map_err(|error| error.code()),
        Err("mcp_invalid_message")
    );
}

/// What a renewed session is asked again: each resource still subscribed once, in the order
/// subscribed, and the last log level; an unsubscribed resource and other requests are not.
#[test]
fn a_renewed_session_gets_the_subscriptions_and_the_last_log_level() {
    let subscribe = |uri| EntryRequest::resource_subscription(uri, true);
    let unsubscribe = |uri| EntryRequest::resource_subscription(uri, false);
    let level = |level| EntryRequest::set_logging_level(level).unwrap();
    let mut kept = SessionRequests::default();
    for request in [
        subscribe("test://a"),
        level("debug"),
        subscribe("test://b"),
        EntryRequest::read_resource("test://c"),
        subscribe("test://a"),
        level("warning"),
        unsubscribe("test://b"),
        unsubscribe("test://never"),
    ] {
        kept.accepted(&request);
    }
    let asked: Vec<(&str, &Value)> = kept
        .to_restore()
        .iter()
        .map(|request| (request.method, &request.params))
        .collect();
    assert_eq!(
        asked,
        [
            ("resources/subscribe", &json!({"uri": "test://a"})),
            ("logging/setLevel", &json!({"level": "warning"})),
        ]
    );
}
