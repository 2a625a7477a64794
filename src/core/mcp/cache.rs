//! The cache of listed tools per server. Keyed by what determines the answer (URL, headers and
//! the client's declared capabilities), not by display name: two names for one server share an entry, while one server reached with
//! two users' tokens gets two. Entries live 60 s (expired ones are dropped when a listing is
//! recorded); at 1000 entries the least recently used is evicted first.
//! A hit hands out the stored listing itself (shared, not copied), so a caller can tell an
//! unchanged listing by identity and keep what it built from it.

use std::rc::Rc;

use serde_json::Value;

use super::McpError;
use crate::core::json_text::to_json_text;
use crate::core::tools::McpTool;

pub const TOOLS_CACHE_TTL_MS: f64 = 60_000.0;
pub const TOOLS_CACHE_MAX_ENTRIES: usize = 1000;

/// A server's identity for caching: its URL, its headers sorted by (lowercased) name, and the
/// capabilities the client declares, since a server may offer tools to clients that declare
/// one (server-everything's elicitation tools) and not to others.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CacheKey {
    url: String,
    headers: Vec<(String, String)>,
    capabilities: String,
}

impl CacheKey {
    pub fn new(url: &str, headers: &[(String, String)]) -> Self {
        let mut lowercased = Vec::with_capacity(headers.len());
        for (name, value) in headers {
            lowercased.push((name.to_ascii_lowercase(), value.clone()));
        }
        let mut headers = lowercased;
        // Whole pairs compare: equal ones are alike, so the order is the one a stable sort
        // gives, without the merge sort std compiles for it (0.2 KB of gzipped wasm).
        headers.sort_unstable();
        CacheKey {
            url: url.to_owned(),
            headers,
            capabilities: String::new(),
        }
    }

    /// The key of a client that declares `capabilities` in its `initialize`.
    pub fn declaring(mut self, capabilities: &Value) -> Self {
        self.capabilities = to_json_text(capabilities);
        self
    }
}

#[derive(Debug, Clone)]
struct Entry {
    tools: Rc<[McpTool]>,
    fetched_at_ms: f64,
    last_used: u64,
}

#[derive(Debug, Clone, Default)]
pub struct ToolsCache {
    /// A page knows a few servers, so a list: smaller in wasm than a hash map, and a scan of a few
    /// keys costs no more than hashing one (at the cap of 1000 entries, tens of microseconds).
    entries: Vec<(CacheKey, Entry)>,
    use_counter: u64,
}

impl ToolsCache {
    pub fn new() -> Self {
        Self::default()
    }

    pub fn len(&self) -> usize {
        self.entries.len()
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// The cached tools if fetched less than the TTL ago; a hit counts as a use.
    pub fn get(&mut self, key: &CacheKey, now_ms: f64) -> Option<Rc<[McpTool]>> {
        let position = self.position(key)?;
        let entry = &mut self.entries[position].1;
        if now_ms - entry.fetched_at_ms >= TOOLS_CACHE_TTL_MS {
            self.entries.swap_remove(position);
            return None;
        }
        self.use_counter += 1;
        entry.last_used = self.use_counter;
        Some(entry.tools.clone())
    }

    /// Records a listing. Only a success is stored: a failure must be retried next time. Expired
    /// entries go now: a server no longer asked for (a closed client, a replaced token in the
    /// headers) would otherwise keep its listing until a thousand others pushed it out.
    pub fn record(
        &mut self,
        key: CacheKey,
        listing: &Result<Rc<[McpTool]>, McpError>,
        now_ms: f64,
    ) {
        let Ok(tools) = listing else {
            return;
        };
        // A scan per expired entry: a few entries as a rule, a million comparisons (about a
        // millisecond) at worst, and 160 B less wasm than a single pass.
        while let Some(expired) = self
            .entries
            .iter()
            .position(|(_, entry)| now_ms - entry.fetched_at_ms >= TOOLS_CACHE_TTL_MS)
        {
            self.entries.swap_remove(expired);
        }
        if let Some(position) = self.position(&key) {
            self.entries.swap_remove(position);
        } else if self.entries.len() >= TOOLS_CACHE_MAX_ENTRIES {
            self.evict_least_recently_used();
        }
        self.use_counter += 1;
        let entry = Entry {
            tools: tools.clone(),
            fetched_at_ms: now_ms,
            last_used: self.use_counter,
        };
        self.entries.push((key, entry));
    }

    /// Drops a server's listing: the server said its tools changed, so the next listing, and
    /// any begun at the same time, must ask it again, even after a listing that failed.
    pub fn forget(&mut self, key: &CacheKey) {
        if let Some(position) = self.position(key) {
            self.entries.swap_remove(position);
        }
    }

    fn position(&self, key: &CacheKey) -> Option<usize> {
        self.entries.iter().position(|(cached, _)| cached == key)
    }

    fn evict_least_recently_used(&mut self) {
        let oldest = (0..self.entries.len()).min_by_key(|&index| self.entries[index].1.last_used);
        if let Some(index) = oldest {
            self.entries.swap_remove(index);
        }
    }
}
