//! The server features a client reads beside tools: resources, resource templates and prompts
//! (spec 2025-11-25, "Server features"), and the paging every `*/list` request shares with
//! `tools/list`. Entries and results are kept as the server sent them: a page shows them, and the
//! spec lets servers add members (`_meta`, `icons`) a client need not know.

use serde_json::{json, Map, Value};

use super::McpError;
use crate::core::json_read::member_at;

/// Pages one listing may take: servers page by a few dozen to a few hundred entries.
pub const MAX_LISTING_PAGES: usize = 100;
/// Entries one resource, template or prompt listing may hold: a page shows them to pick from,
/// and a listing that never ends would otherwise fill the page's memory for good.
pub const MAX_CATALOG_ENTRIES: usize = 10_000;

/// Follows `nextCursor` through a listing and gives up on a cursor loop, on more than
/// [`MAX_LISTING_PAGES`] pages, or on more entries than the listing allows.
#[derive(Debug, Clone)]
pub struct Pages {
    method: &'static str,
    max_entries: usize,
    seen_cursors: Vec<String>,
    entries: usize,
}

impl Pages {
    pub fn new(method: &'static str, max_entries: usize) -> Self {
        Pages {
            method,
            max_entries,
            seen_cursors: Vec::new(),
            entries: 0,
        }
    }

    /// The params of a list request for `cursor` (`None` for the first page).
    pub fn params(cursor: Option<&str>) -> Value {
        match cursor {
            Some(cursor) => json!({"cursor": cursor}),
            None => json!({}),
        }
    }

    /// Called before a page is read: fails once the listing has taken its pages.
    pub fn begin_page(&self) -> Result<(), McpError> {
        if self.seen_cursors.len() >= MAX_LISTING_PAGES {
            return Err(self.too_large());
        }
        Ok(())
    }

    /// Counts one entry kept; fails when the listing already holds its most.
    pub fn admit_entry(&mut self) -> Result<(), McpError> {
        if self.entries == self.max_entries {
            return Err(self.too_large());
        }
        self.entries += 1;
        Ok(())
    }

    /// The cursor of the next page in a page's `result`, if any; a cursor seen before is a loop.
    pub fn next_cursor(&mut self, result: &Value) -> Result<Option<String>, McpError> {
        match result.get("nextCursor").and_then(Value::as_str) {
            Some(cursor) if self.seen_cursors.iter().any(|seen| seen == cursor) => {
                Err(McpError::CursorLoop {
                    method: self.method,
                    cursor: cursor.to_owned(),
                })
            }
            Some(cursor) => {
                self.seen_cursors.push(cursor.to_owned());
                Ok(Some(cursor.to_owned()))
            }
            None => Ok(None),
        }
    }

    fn too_large(&self) -> McpError {
        McpError::ListingTooLarge {
            method: self.method,
            max_pages: MAX_LISTING_PAGES,
            max_entries: self.max_entries,
        }
    }
}

/// A listing of entries other than tools.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Catalog {
    Resources,
    ResourceTemplates,
    Prompts,
}

impl Catalog {
    pub fn method(self) -> &'static str {
        match self {
            Catalog::Resources => "resources/list",
            Catalog::ResourceTemplates => "resources/templates/list",
            Catalog::Prompts => "prompts/list",
        }
    }

    /// The member of a page's result that holds its entries.
    fn member(self) -> &'static str {
        match self {
            Catalog::Resources => "resources",
            Catalog::ResourceTemplates => "resourceTemplates",
            Catalog::Prompts => "prompts",
        }
    }

    /// The server capability the listing needs.
    pub fn capability(self) -> &'static str {
        match self {
            Catalog::Resources | Catalog::ResourceTemplates => "resources",
            Catalog::Prompts => "prompts",
        }
    }
}

/// Collects every page of a [`Catalog`] listing, each entry as sent.
#[derive(Debug, Clone)]
pub struct CatalogListing {
    catalog: Catalog,
    pages: Pages,
    entries: Vec<Value>,
}

impl CatalogListing {
    pub fn new(catalog: Catalog) -> Self {
        CatalogListing {
            catalog,
            pages: Pages::new(catalog.method(), MAX_CATALOG_ENTRIES),
            entries: Vec::new(),
        }
    }

    /// Takes one page's result (its entries moved out, not copied); returns the cursor of the
    /// next page, if any.
    pub fn handle_page(&mut self, mut result: Value) -> Result<Option<String>, McpError> {
        self.pages.begin_page()?;
        let (method, member) = (self.catalog.method(), self.catalog.member());
        let entries = match result.get_mut(member).map(Value::take) {
            Some(Value::Array(entries)) => entries,
            _ => {
                return Err(McpError::InvalidMessage(format!(
                    "{method} result without a `{member}` list"
                )))
            }
        };
        for (index, entry) in entries.into_iter().enumerate() {
            if !entry.is_object() {
                return Err(McpError::InvalidMessage(format!(
                    "{method} entry {index} is not an object"
                )));
            }
            self.pages.admit_entry()?;
            self.entries.push(entry);
        }
        self.pages.next_cursor(&result)
    }

    pub fn into_entries(self) -> Vec<Value> {
        self.entries
    }
}

/// What a client asks a server feature for: a whole listing, or one entry.
#[derive(Debug, Clone, PartialEq)]
pub enum FeatureRequest {
    List(Catalog),
    Entry(EntryRequest),
}

/// The requests one [`FeatureRequest`] takes, without I/O: page after page of a listing, or
/// the one request for an entry. The caller sends `method()` with `params()` while the server
/// declares `capability()`, and hands each result to `handle_result` until it gives the answer.
#[derive(Debug, Clone)]
pub struct FeatureExchange(Exchange);

#[derive(Debug, Clone)]
enum Exchange {
    Listing {
        listing: CatalogListing,
        cursor: Option<String>,
    },
    Entry(EntryRequest),
}

impl FeatureExchange {
    pub fn new(feature: FeatureRequest) -> Self {
        FeatureExchange(match feature {
            FeatureRequest::List(catalog) => Exchange::Listing {
                listing: CatalogListing::new(catalog),
                cursor: None,
            },
            FeatureRequest::Entry(request) => Exchange::Entry(request),
        })
    }

    pub fn capability(&self) -> &'static str {
        match &self.0 {
            Exchange::Listing { listing, .. } => listing.catalog.capability(),
            Exchange::Entry(request) => request.capability,
        }
    }

    pub fn method(&self) -> &'static str {
        match &self.0 {
            Exchange::Listing { listing, .. } => listing.catalog.method(),
            Exchange::Entry(request) => request.method,
        }
    }

    /// The params of the next request.
    pub fn params(&self) -> Value {
        match &self.0 {
            Exchange::Listing { cursor, .. } => Pages::params(cursor.as_deref()),
            Exchange::Entry(request) => request.params.clone(),
        }
    }

    /// Takes a request's result; `Some` is the answer: an entry's result as sent, or every
    /// entry of the listing as a list. `None`: the listing goes on with the next page.
    pub fn handle_result(&mut self, result: Value) -> Result<Option<Value>, McpError> {
        match &mut self.0 {
            Exchange::Entry(request) => {
                request.check_result(&result)?;
                Ok(Some(result))
            }
            Exchange::Listing { listing, cursor } => {
                *cursor = listing.handle_page(result)?;
                if cursor.is_some() {
                    return Ok(None);
                }
                Ok(Some(Value::Array(std::mem::take(&mut listing.entries))))
            }
        }
    }
}

/// One request beside the listings: a resource's contents, a prompt's messages, a completion,
/// a subscription, the log level.
#[derive(Debug, Clone, PartialEq)]
pub struct EntryRequest {
    pub method: &'static str,
    /// What the server must have declared, with a dot for a member within it
    /// (`resources.subscribe`).
    pub capability: &'static str,
    pub params: Value,
    /// Where the result holds the list the method answers with (dots for nesting); `None` for
    /// a method answered with an empty result.
    result_list: Option<&'static str>,
}

/// What the page asked of a session that ends with it: its resource subscriptions and its log
/// level. A client that opens a new session when the server ends one asks the new session for
/// them again, so that the page's `onNotification` keeps getting what it asked for.
#[derive(Debug, Default)]
pub struct SessionRequests(Vec<EntryRequest>);

impl SessionRequests {
    /// Notes `request`, which the server accepted: a subscription is kept until unsubscribed,
    /// and the last log level replaces the one before.
    pub fn accepted(&mut self, request: &EntryRequest) {
        let (replaced_method, kept) = match request.method {
            "resources/subscribe" => ("resources/subscribe", true),
            "resources/unsubscribe" => ("resources/subscribe", false),
            "logging/setLevel" => ("logging/setLevel", true),
            _ => return,
        };
        // A subscription's params are its `uri`; any level replaces the level.
        let any_params = request.method == "logging/setLevel";
        self.0.retain(|before| {
            before.method != replaced_method || !(any_params || before.params == request.params)
        });
        if kept {
            self.0.push(request.clone());
        }
    }

    /// The requests that give a new session what the page asked of the one before, in the
    /// order the page asked.
    pub fn to_restore(&self) -> &[EntryRequest] {
        &self.0
    }
}

/// The levels of `logging/setLevel`, from the most to the least verbose (RFC 5424's).
pub const LOGGING_LEVELS: [&str; 8] = [
    "debug",
    "info",
    "notice",
    "warning",
    "error",
    "critical",
    "alert",
    "emergency",
];

impl EntryRequest {
    /// `resources/read` of `uri`.
    pub fn read_resource(uri: &str) -> Self {
        EntryRequest {
            method: "resources/read",
            capability: "resources",
            params: json!({"uri": uri}),
            result_list: Some("contents"),
        }
    }

    /// `prompts/get` of `name` with `arguments` (`null` for none), which the spec types as an
    /// object of strings: anything else is refused here rather than by the server.
    pub fn get_prompt(name: &str, arguments: Value) -> Result<Self, String> {
        let mut params = Map::new();
        params.insert("name".to_owned(), Value::from(name));
        match arguments {
            Value::Null => {}
            Value::Object(arguments) if arguments.values().all(Value::is_string) => {
                params.insert("arguments".to_owned(), Value::Object(arguments));
            }
            _ => return Err("a prompt's arguments are an object of strings".to_owned()),
        }
        Ok(EntryRequest {
            method: "prompts/get",
            capability: "prompts",
            params: Value::Object(params),
            result_list: Some("messages"),
        })
    }

    /// `resources/subscribe` (or `resources/unsubscribe`) of `uri`: the server then sends
    /// `notifications/resources/updated` when it changes. Servers declare it within
    /// `resources`.
    pub fn resource_subscription(uri: &str, subscribe: bool) -> Self {
        EntryRequest {
            method: if subscribe {
                "resources/subscribe"
            } else {
                "resources/unsubscribe"
            },
            capability: "resources.subscribe",
            params: json!({"uri": uri}),
            result_list: None,
        }
    }

    /// `logging/setLevel`: the server sends log messages of `level` and above.
    pub fn set_logging_level(level: &str) -> Result<Self, String> {
        if !LOGGING_LEVELS.contains(&level) {
            let levels = crate::core::text::join(&LOGGING_LEVELS, ", ");
            return Err(format!("the level is one of {levels}"));
        }
        Ok(EntryRequest {
            method: "logging/setLevel",
            capability: "logging",
            params: json!({"level": level}),
            result_list: None,
        })
    }

    /// `completion/complete` with `params` as the spec has them: `ref` a prompt
    /// (`{ type: "ref/prompt", name }`) or a resource template (`{ type: "ref/resource", uri }`),
    /// `argument` `{ name, value }` of strings, and `context.arguments` (optional) an object of
    /// strings, the values already chosen. Checked here, so that a wrong shape is the page's
    /// error with a reason rather than the server's.
    pub fn complete(params: Value) -> Result<Self, String> {
        let reference_kept = match params.get("ref") {
            Some(reference) => match reference.get("type").and_then(Value::as_str) {
                Some("ref/prompt") => reference.get("name").is_some_and(Value::is_string),
                Some("ref/resource") => reference.get("uri").is_some_and(Value::is_string),
                _ => false,
            },
            None => false,
        };
        if !reference_kept {
            return Err(
                "`ref` is { type: \"ref/prompt\", name } or { type: \"ref/resource\", uri }"
                    .to_owned(),
            );
        }
        let argument = params.get("argument");
        let is_string_member = |name| {
            argument
                .and_then(|argument| argument.get(name))
                .is_some_and(Value::is_string)
        };
        if !(is_string_member("name") && is_string_member("value")) {
            return Err("`argument` is { name, value }, both strings".to_owned());
        }
        if let Some(context) = params.get("context") {
            let arguments = context.get("arguments");
            let strings = arguments
                .and_then(Value::as_object)
                .is_some_and(|arguments| arguments.values().all(Value::is_string));
            if !context.is_object() || (arguments.is_some() && !strings) {
                return Err("`context` is { arguments }, an object of strings".to_owned());
            }
        }
        Ok(EntryRequest {
            method: "completion/complete",
            capability: "completions",
            params,
            result_list: Some("completion.values"),
        })
    }

    /// Checks the result's shape: an object, holding the list the method answers with.
    pub fn check_result(&self, result: &Value) -> Result<(), McpError> {
        let Some(path) = self.result_list else {
            if result.is_object() {
                return Ok(());
            }
            return Err(McpError::InvalidMessage(format!(
                "{} result that is not an object",
                self.method
            )));
        };
        if member_at(Some(result), path).is_some_and(Value::is_array) {
            return Ok(());
        }
        Err(McpError::InvalidMessage(format!(
            "{} result without a `{}` list",
            self.method, path
        )))
    }

    /// Whether the method's result says nothing but that it was done.
    pub fn answers_nothing(&self) -> bool {
        self.result_list.is_none()
    }
}

/// Fails unless the server declared `capability` in its `initialize` result (with a dot, a
/// member within one, such as `resources.subscribe`): a client may use only the capabilities
/// negotiated (spec, lifecycle), so the request is not sent at all.
pub fn require_capability(
    capabilities: Option<&Value>,
    capability: &'static str,
    method: &'static str,
) -> Result<(), McpError> {
    let declared = member_at(capabilities, capability)
        .is_some_and(|declared| !declared.is_null() && *declared != false);
    if declared {
        Ok(())
    } else {
        Err(McpError::CapabilityMissing { capability, method })
    }
}
