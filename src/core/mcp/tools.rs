//! `tools/list` pagination and `tools/call` results: the text a model gets and the blocks a UI
//! gets.

use std::borrow::Cow;

use serde::Serialize;
use serde_json::Value;

use super::catalog::Pages;
pub use super::catalog::MAX_LISTING_PAGES;
use super::McpError;
use crate::core::json_text::to_json_text;
use crate::core::message::{ContentPart, ImageUrl};
use crate::core::tools::{describe_errors, validate_value, McpTool, Subject};

/// Tools one server may list; providers take a few hundred per request at most (OpenAI 128).
pub const MAX_LISTED_TOOLS: usize = 5_000;

/// Collects every page of `tools/list`, following `nextCursor` until the server sends none.
#[derive(Debug, Clone)]
pub struct ToolListing {
    tools: Vec<McpTool>,
    pages: Pages,
    skipped: Vec<String>,
}

impl Default for ToolListing {
    fn default() -> Self {
        Self::new()
    }
}

impl ToolListing {
    pub fn new() -> Self {
        ToolListing {
            tools: Vec::new(),
            pages: Pages::new("tools/list", MAX_LISTED_TOOLS),
            skipped: Vec::new(),
        }
    }

    /// The params of a `tools/list` request for `cursor` (`None` for the first page).
    pub fn params(cursor: Option<&str>) -> Value {
        Pages::params(cursor)
    }

    /// Takes one page's result; returns the cursor of the next page, if any. Tools with an empty
    /// name cannot be called and are skipped (see [`ToolListing::skipped`]). A listing longer
    /// than [`MAX_LISTING_PAGES`] pages or [`MAX_LISTED_TOOLS`] tools fails.
    pub fn handle_page(&mut self, result: &Value) -> Result<Option<String>, McpError> {
        self.pages.begin_page()?;
        let tools = result
            .get("tools")
            .and_then(Value::as_array)
            .ok_or_else(|| {
                McpError::InvalidMessage("tools/list result without tools".to_owned())
            })?;
        for (index, tool) in tools.iter().enumerate() {
            let tool = McpTool::from_listing_entry(tool).map_err(|error| {
                McpError::InvalidMessage(format!("tools/list entry {index}: {error}"))
            })?;
            if tool.name.trim().is_empty() {
                self.skipped
                    .push(format!("tool {index} of a page has an empty name"));
            } else {
                self.pages.admit_entry()?;
                self.tools.push(tool);
            }
        }
        self.pages.next_cursor(result)
    }

    /// Why tools were left out: findings, not failures.
    pub fn skipped(&self) -> &[String] {
        &self.skipped
    }

    pub fn into_tools(self) -> Vec<McpTool> {
        self.tools
    }
}

/// A `tools/call` result, ready for both audiences.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ToolCallResult {
    /// What the model reads: the text parts; structured content serialized when there is no text;
    /// binary blocks referenced by position and type, never inlined.
    pub model_text: String,
    /// Every content block as the server sent it, for the UI.
    pub blocks: Vec<Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub structured_content: Option<Value>,
    /// The tool reported failure; the result is still fed back to the model.
    pub is_error: bool,
}

impl ToolCallResult {
    /// Takes the blocks out of `result` rather than copying them: a result may be megabytes,
    /// and wasm memory keeps its peak for the page's life.
    pub fn from_result(result: Value) -> Result<Self, McpError> {
        let Value::Object(mut result) = result else {
            return Err(McpError::InvalidMessage(
                "tools/call result is not an object".to_owned(),
            ));
        };
        let blocks = match result.shift_remove("content") {
            Some(Value::Array(blocks)) => blocks,
            None | Some(Value::Null) => Vec::new(),
            Some(_) => {
                return Err(McpError::InvalidMessage(
                    "tools/call content is not an array".to_owned(),
                ))
            }
        };
        let structured_content = result
            .shift_remove("structuredContent")
            .filter(|value| !value.is_null());
        let is_error = result
            .get("isError")
            .and_then(Value::as_bool)
            .unwrap_or(false);
        Ok(ToolCallResult {
            model_text: model_text(&blocks, structured_content.as_ref()),
            blocks,
            structured_content,
            is_error,
        })
    }
}

/// Whether `result` keeps the promise of its tool's `outputSchema` (MCP 2025-06-18 and
/// 2025-11-25, server/tools "Output Schema": a server MUST return `structuredContent` that
/// conforms to it, and clients SHOULD validate it), checked as the TypeScript SDK's
/// `Client.callTool` does: a result without `structuredContent` fails, one whose content does not
/// match fails with its first mismatches. Not checked: a result with `isError` (a failure need
/// not have the success's shape), a tool listed without `outputSchema` (`None`), and an
/// `outputSchema` that is not a JSON object: the spec types it as an object schema, so a
/// listing that breaks that says nothing reliable about results, and rejecting every result
/// over it would only make the tool useless.
pub fn check_structured_content(
    tool: &str,
    output_schema: Option<&Value>,
    result: &ToolCallResult,
) -> Result<(), McpError> {
    let Some(schema @ Value::Object(_)) = output_schema else {
        return Ok(());
    };
    if result.is_error {
        return Ok(());
    }
    let Some(structured_content) = &result.structured_content else {
        return Err(McpError::InvalidStructuredContent(format!(
            "tool `{tool}` has an outputSchema but returned no structuredContent"
        )));
    };
    let errors = validate_value(schema, structured_content, Subject::StructuredContent);
    if errors.is_empty() {
        return Ok(());
    }
    Err(McpError::InvalidStructuredContent(format!(
        "tool `{tool}` returned structuredContent that does not match its outputSchema: {}",
        describe_errors(&errors)
    )))
}

/// The image types Anthropic reads in a tool result, and its limit on one image's base64 text
/// (a request with another type, or a longer image, is refused with a 400); Gemini's request
/// building leaves out the GIFs it does not take.
const MODEL_IMAGE_TYPES: [&str; 4] = ["image/png", "image/jpeg", "image/gif", "image/webp"];
const MAX_MODEL_IMAGE_BASE64_LEN: usize = 5 * 1024 * 1024;

/// The image blocks of a result a vision model can be shown, as `data:` URL image parts; other
/// images stay described in the result's text only.
pub fn model_images(blocks: &[Value]) -> Vec<ContentPart> {
    let mut images = Vec::new();
    for block in blocks {
        if block.get("type").and_then(Value::as_str) != Some("image") {
            continue;
        }
        let mime_type = block.get("mimeType").and_then(Value::as_str);
        let data = block.get("data").and_then(Value::as_str);
        let (Some(mime_type), Some(data)) = (mime_type, data) else {
            continue;
        };
        let shown = MODEL_IMAGE_TYPES.contains(&mime_type)
            && !data.is_empty()
            && data.len() <= MAX_MODEL_IMAGE_BASE64_LEN;
        if shown {
            images.push(ContentPart::ImageUrl {
                image_url: ImageUrl {
                    url: format!("data:{mime_type};base64,{data}"),
                    detail: None,
                },
            });
        }
    }
    images
}

/// The parts joined into one string, a text block's text borrowed rather than copied first.
fn model_text(blocks: &[Value], structured_content: Option<&Value>) -> String {
    let has_text = blocks
        .iter()
        .any(|block| block.get("type").and_then(Value::as_str) == Some("text"));
    let mut parts: Vec<Cow<'_, str>> = Vec::new();
    if let (false, Some(structured)) = (has_text, structured_content) {
        parts.push(Cow::Owned(to_json_text(structured)));
    }
    for (index, block) in blocks.iter().enumerate() {
        parts.push(describe_block(index, block));
    }
    crate::core::text::join(&parts, "\n")
}

/// A block as text for the model. Binary data is replaced by a reference the UI can resolve
/// (the block's position), so that base64 never reaches the model as text.
fn describe_block(index: usize, block: &Value) -> Cow<'_, str> {
    let text_field = |field: &str| block.get(field).and_then(Value::as_str).unwrap_or_default();
    Cow::Owned(match text_field("type") {
        "text" => return Cow::Borrowed(text_field("text")),
        "image" | "audio" => format!(
            "[{} block {index}: {}, {} bytes, shown to the user]",
            text_field("type"),
            or_unknown(text_field("mimeType")),
            base64_decoded_len(text_field("data")),
        ),
        "resource_link" => {
            let name = block
                .get("title")
                .or_else(|| block.get("name"))
                .and_then(Value::as_str)
                .unwrap_or_default();
            format!("[resource link: {name} <{}>]", text_field("uri"))
        }
        "resource" => {
            let resource = block.get("resource");
            let field = |name: &str| resource.and_then(|resource| resource.get(name))?.as_str();
            let uri = field("uri").unwrap_or_default();
            match (field("text"), field("blob")) {
                (Some(text), _) => format!("[resource <{uri}>]\n{text}"),
                (None, Some(blob)) => format!(
                    "[resource block {index} <{uri}>: {}, {} bytes, shown to the user]",
                    or_unknown(field("mimeType").unwrap_or_default()),
                    base64_decoded_len(blob),
                ),
                (None, None) => format!("[resource <{uri}>]"),
            }
        }
        other => format!("[{} block {index}]", or_unknown(other)),
    })
}

fn or_unknown(text: &str) -> &str {
    if text.is_empty() {
        "unknown"
    } else {
        text
    }
}

fn base64_decoded_len(data: &str) -> usize {
    let trimmed = data.trim_end_matches('=');
    trimmed.len() * 3 / 4
}
