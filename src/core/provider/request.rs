//! The HTTP request for a model call, built from settings, conversation and tools. Pure: the web
//! layer sends what comes out byte for byte.

use std::fmt::{self, Write};
use std::rc::Rc;

use serde_json::{Map, Value};

use super::config::ResolvedProvider;
use super::error::ProviderError;
use super::openai::FunctionToolShape;
use super::table::{Endpoint, ANTHROPIC_MESSAGES_PATH, OLLAMA_CHAT_PATH, RESPONSES_PATH};
use super::{anthropic, gemini, ollama, openai, openai_responses, watsonx};
use crate::core::json_text::{object, to_json_text, SetMember};
use crate::core::message::{ChatMessage, ContentPart, MessageContent, MessageToolCall, Role};
use crate::core::stream::WireFormat;
use crate::core::tools::{
    sanitize_schema, ArgumentKeys, SanitizedSchema, SchemaDialect, ToolEntry,
};

/// Whether the response should stream.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ResponseMode {
    Streaming,
    /// One JSON body: for re-requests that need whole tool calls, and for models that cannot
    /// stream with tools.
    Whole,
}

/// A request ready to send.
#[derive(Clone, PartialEq, Eq)]
pub struct HttpRequest {
    pub method: &'static str,
    pub url: String,
    pub headers: Vec<(String, String)>,
    pub body: String,
}

/// Headers that carry credentials; [`HttpRequest`]'s debug output hides their values, and shows
/// only the body's length (the watsonx token exchange carries the API key in its body).
const SECRET_HEADERS: [&str; 4] = ["authorization", "x-api-key", "api-key", "x-goog-api-key"];

impl fmt::Debug for HttpRequest {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        let headers: Vec<(&str, &str)> = self
            .headers
            .iter()
            .map(|(name, value)| {
                let secret = SECRET_HEADERS.contains(&name.to_ascii_lowercase().as_str());
                (name.as_str(), if secret { "[redacted]" } else { value })
            })
            .collect();
        formatter
            .debug_struct("HttpRequest")
            .field("method", &self.method)
            .field("url", &self.url)
            .field("headers", &headers)
            .field("body_bytes", &self.body.len())
            .finish()
    }
}

impl HttpRequest {
    /// The value of header `name` (case-insensitive).
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(header, _)| header.eq_ignore_ascii_case(name))
            .map(|(_, value)| value.as_str())
    }
}

/// A tool table in one provider's wire shape, already JSON text (its `tools` member, every
/// schema sanitized for its dialect, and `tool_choice` where the wire wants one), and what the
/// sanitizer had to change. Sanitizing and writing the schemas is most of what building a
/// request costs for a large table, so a caller that sends one table many times (every round of
/// a run, every run of an Agent) builds this once.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ProviderTools {
    /// Members to add to the body object (`"tools":[…]`); `None` for a plain generation.
    members: Option<String>,
    /// Members asking for a tool use (`"tool_choice":"auto"`), where the wire wants them.
    choice: Option<String>,
    warnings: Vec<String>,
    argument_keys: Rc<ArgumentKeys>,
}

impl ProviderTools {
    pub fn warnings(&self) -> &[String] {
        &self.warnings
    }

    /// The property keys renamed in these tools, for [`crate::core::agent_loop::AgentLoop::use_argument_keys`]:
    /// the model calls the tools with the renamed keys.
    pub fn argument_keys(&self) -> &Rc<ArgumentKeys> {
        &self.argument_keys
    }

    /// The same tools, asking with `choice` (members as JSON text) instead.
    pub(super) fn with_choice(&self, choice: String) -> ProviderTools {
        ProviderTools {
            choice: Some(choice),
            ..self.clone()
        }
    }
}

/// `entry`'s schema sanitized for `dialect`, with the sanitizer's warnings noted under the
/// tool's function name.
pub(super) fn sanitized_schema(
    entry: &ToolEntry,
    dialect: SchemaDialect,
    warnings: &mut Vec<String>,
) -> SanitizedSchema {
    let sanitized = sanitize_schema(&entry.input_schema, dialect);
    for warning in &sanitized.warnings {
        warnings.push(format!("{}: {warning}", entry.function_name));
    }
    sanitized
}

/// The members every wire declares a tool with: its function `name`, and its `description` when
/// it has one.
pub(super) fn named_tool(entry: &ToolEntry) -> Map<String, Value> {
    let mut tool = Map::new();
    tool.set("name", Value::from(entry.function_name.as_str()));
    if let Some(description) = &entry.description {
        tool.set("description", Value::from(description.as_str()));
    }
    tool
}

/// `object`'s JSON text with `members` (JSON text too: `"key":value,…`) added at its end.
fn object_text_with(object: Map<String, Value>, members: [Option<&str>; 2]) -> String {
    let mut has_members = !object.is_empty();
    let mut text = to_json_text(&Value::Object(object));
    text.pop();
    for added in members.into_iter().flatten() {
        if has_members {
            text.push(',');
        }
        text.push_str(added);
        has_members = true;
    }
    text.push('}');
    text
}

/// `extra`'s members written into `body`: an object into the object already there, member by
/// member (`generationConfig.topP` beside the temperature the settings put there), anything else
/// in place of what was there; `skipped` ones are left out.
fn merge_members(body: &mut Map<String, Value>, extra: &Map<String, Value>, skipped: &[&str]) {
    for (key, value) in extra {
        if skipped.contains(&key.as_str()) {
            continue;
        }
        match (body.get_mut(key), value) {
            (Some(Value::Object(inner)), Value::Object(extra_inner)) => {
                merge_members(inner, extra_inner, &[]);
            }
            _ => {
                body.insert(key.clone(), value.clone());
            }
        }
    }
}

/// `"key":value` as JSON text, to splice into a body object.
pub(super) fn member_text(key: &str, value: Value) -> String {
    let mut member = Map::new();
    member.set(key, value);
    let text = to_json_text(&Value::Object(member));
    text[1..text.len() - 1].to_owned()
}

/// A built model request and what the schema sanitizer had to change in the tools.
#[derive(Debug, Clone, PartialEq)]
pub struct BuiltRequest {
    pub request: HttpRequest,
    pub warnings: Vec<String>,
}

impl ResolvedProvider {
    /// Fails when `tools` are more than this provider takes in one request (its row's
    /// `max_tools`), naming how many each server brought, so that a run fails once and clearly
    /// instead of with the provider's 400 on every call.
    pub fn check_tool_count(&self, tools: &[ToolEntry]) -> Result<(), ProviderError> {
        let Some(limit) = self.spec.max_tools.filter(|limit| tools.len() > *limit) else {
            return Ok(());
        };
        let mut servers: Vec<(&str, usize)> = Vec::new();
        for entry in tools {
            match servers
                .iter_mut()
                .find(|(server, _)| *server == entry.server)
            {
                Some((_, count)) => *count += 1,
                None => servers.push((&entry.server, 1)),
            }
        }
        let mut per_server = String::new();
        for (server, count) in servers {
            if !per_server.is_empty() {
                per_server.push_str(", ");
            }
            let _ = write!(per_server, "`{server}` {count}");
        }
        Err(ProviderError::TooManyTools {
            provider: self.provider_name(),
            count: tools.len(),
            limit,
            per_server,
        })
    }

    /// `tools` in this provider's wire shape, for [`Self::chat_request_with`].
    pub fn provider_tools(&self, tools: &[ToolEntry]) -> ProviderTools {
        if tools.is_empty() {
            return ProviderTools::default();
        }
        let mut warnings = Vec::new();
        let mut argument_keys = ArgumentKeys::default();
        let shape = match self.spec.endpoint {
            Endpoint::Responses => FunctionToolShape::Flat,
            _ => FunctionToolShape::Nested,
        };
        let (wire_tools, tool_choice) = match self.spec.endpoint {
            Endpoint::ChatCompletions | Endpoint::AzureDeployment | Endpoint::Responses => (
                Value::Array(openai::function_tools(self, tools, shape, &mut warnings)),
                Some(Value::from("auto")),
            ),
            Endpoint::AnthropicMessages => (
                anthropic::tools(tools, &mut warnings, &mut argument_keys),
                Some(object([("type", Value::from("auto"))])),
            ),
            Endpoint::GeminiModels => (gemini::tools(tools, &mut warnings), None),
            Endpoint::OllamaChat | Endpoint::WatsonxChat => (
                Value::Array(openai::function_tools(self, tools, shape, &mut warnings)),
                None,
            ),
        };
        ProviderTools {
            members: Some(member_text("tools", wire_tools)),
            choice: tool_choice.map(|choice| member_text("tool_choice", choice)),
            warnings,
            argument_keys: Rc::new(argument_keys),
        }
    }

    /// The model call for `messages` with `tools` (none: a plain generation).
    pub fn chat_request(
        &self,
        messages: &[ChatMessage],
        tools: &[ToolEntry],
        mode: ResponseMode,
    ) -> Result<BuiltRequest, ProviderError> {
        self.chat_request_with(messages, &self.provider_tools(tools), mode)
    }

    /// [`Self::chat_request`] with the tools already in wire shape.
    pub fn chat_request_with(
        &self,
        messages: &[ChatMessage],
        tools: &ProviderTools,
        mode: ResponseMode,
    ) -> Result<BuiltRequest, ProviderError> {
        let (url, mut headers, mut body) = match self.spec.endpoint {
            Endpoint::ChatCompletions | Endpoint::AzureDeployment => (
                openai::url(self),
                openai::auth_headers(self),
                openai::body(self, messages, mode)?,
            ),
            Endpoint::Responses => (
                format!("{}{RESPONSES_PATH}", self.base_url),
                openai::auth_headers(self),
                openai_responses::body(self, messages, mode)?,
            ),
            Endpoint::AnthropicMessages => (
                format!("{}{ANTHROPIC_MESSAGES_PATH}", self.base_url),
                anthropic::headers(self),
                anthropic::body(self, messages, mode)?,
            ),
            Endpoint::GeminiModels => (
                gemini::url(self, mode),
                gemini::headers(self),
                gemini::body(self, messages)?,
            ),
            Endpoint::OllamaChat => (
                format!("{}{OLLAMA_CHAT_PATH}", self.base_url),
                ollama::headers(self),
                ollama::body(self, messages, mode)?,
            ),
            Endpoint::WatsonxChat => (
                watsonx::url(self, mode),
                watsonx::headers(self)?,
                watsonx::body(self, messages)?,
            ),
        };
        // Members the wire writes from `extraBody` itself, and those a whole answer refuses.
        let not_merged: &[&str] = match (self.spec.endpoint, mode) {
            (Endpoint::AnthropicMessages, _) => &[anthropic::EXTRA_THINKING],
            (_, ResponseMode::Whole) => &["stream_options"],
            (_, ResponseMode::Streaming) => &[],
        };
        merge_members(&mut body, &self.extra_body, not_merged);
        headers.insert(
            0,
            ("content-type".to_owned(), "application/json".to_owned()),
        );
        apply_extra_headers(&mut headers, &self.extra_headers);
        Ok(BuiltRequest {
            request: HttpRequest {
                method: "POST",
                url,
                headers,
                body: object_text_with(body, [tools.members.as_deref(), tools.choice.as_deref()]),
            },
            warnings: tools.warnings.clone(),
        })
    }

    pub(super) fn provider_name(&self) -> String {
        self.spec.id.to_owned()
    }

    pub(super) fn invalid_conversation(&self, message: impl Into<String>) -> ProviderError {
        ProviderError::InvalidConversation {
            provider: self.provider_name(),
            message: message.into(),
        }
    }

    pub(super) fn images_unsupported(&self, reason: impl Into<String>) -> ProviderError {
        ProviderError::ImagesUnsupported {
            provider: self.provider_name(),
            model: self.model.clone(),
            reason: reason.into(),
        }
    }

    /// Whether the model is shown the images of tool results: Anthropic's `tool_result` takes
    /// image blocks and Gemini 3's `functionResponse` media parts; OpenAI's, Ollama's and older
    /// Gemini models' tool messages take text only, so theirs get the result's description of
    /// each image.
    pub fn shows_tool_result_images(&self) -> bool {
        let wire_takes_them = match self.spec.wire {
            WireFormat::AnthropicMessages => true,
            WireFormat::Gemini => gemini::is_gemini_3_or_later(&self.model),
            _ => false,
        };
        wire_takes_them && self.spec.accepts_images(&self.model)
    }

    /// Fails unless this provider's model takes images.
    pub(super) fn check_images_accepted(&self) -> Result<(), ProviderError> {
        if self.spec.accepts_images(&self.model) {
            Ok(())
        } else {
            Err(self.images_unsupported("the model does not take image input"))
        }
    }
}

/// Caller headers replace built-in ones of the same name, so that a proxy can be given its own
/// authorization.
fn apply_extra_headers(headers: &mut Vec<(String, String)>, extra: &[(String, String)]) {
    for (name, value) in extra {
        headers.retain(|(existing, _)| !existing.eq_ignore_ascii_case(name));
        headers.push((name.clone(), value.clone()));
    }
}

/// The turns of a conversation for a wire that wants roles to alternate (Anthropic, Gemini): each
/// role's blocks or parts, a piece of the same role as the turn before joining that turn (so that
/// a user text after tool results follows them in their turn). Shared, so that the wasm holds
/// its code once.
pub(super) type Turns = Vec<(&'static str, Vec<Value>)>;

/// Adds `pieces` of `role` to `turns`; none adds nothing.
pub(super) fn push_turn(turns: &mut Turns, role: &'static str, pieces: Vec<Value>) {
    if pieces.is_empty() {
        return;
    }
    match turns.last_mut() {
        Some((last_role, last_pieces)) if *last_role == role => last_pieces.extend(pieces),
        _ => turns.push((role, pieces)),
    }
}

/// A user message's content as one alternating wire's pieces (Anthropic's blocks, Gemini's
/// parts): each text through `text_piece` (`None` for one the wire refuses, such as empty text),
/// each image URL through `image_piece` once the model is known to take images.
pub(super) fn user_pieces(
    provider: &ResolvedProvider,
    message: &ChatMessage,
    text_piece: fn(&str) -> Option<Value>,
    image_piece: impl Fn(&str) -> Result<Value, ProviderError>,
) -> Result<Vec<Value>, ProviderError> {
    let mut pieces = Vec::new();
    match &message.content {
        None => {}
        Some(MessageContent::Text(text)) => pieces.extend(text_piece(text)),
        Some(MessageContent::Parts(parts)) => {
            for part in parts {
                match part {
                    ContentPart::Text { text } => pieces.extend(text_piece(text)),
                    ContentPart::ImageUrl { image_url } => {
                        provider.check_images_accepted()?;
                        pieces.push(image_piece(&image_url.url)?);
                    }
                }
            }
        }
    }
    Ok(pieces)
}

/// `turns` as wire objects: `{role, <pieces_key>: [...]}`.
pub(super) fn turn_values(turns: Turns, pieces_key: &str) -> Vec<Value> {
    let mut values = Vec::with_capacity(turns.len());
    for (role, pieces) in turns {
        values.push(object([
            ("role", Value::from(role)),
            (pieces_key, Value::Array(pieces)),
        ]));
    }
    values
}

/// An image given as a `data:` URL, split into its media type and base64 payload.
pub(super) struct InlineImage<'a> {
    pub media_type: &'a str,
    pub base64: &'a str,
}

/// Reads `data:<media type>;base64,<payload>`; `None` for any other URL.
pub(super) fn parse_data_url(url: &str) -> Option<InlineImage<'_>> {
    let rest = url.strip_prefix("data:")?;
    let (meta, payload) = rest.split_once(',')?;
    let media_type = meta.strip_suffix(";base64")?;
    Some(InlineImage {
        media_type: if media_type.is_empty() {
            "application/octet-stream"
        } else {
            media_type
        },
        base64: payload,
    })
}

/// How many images a provider takes in one request beside the text: the latest tool-result
/// images are sent while they fit beside the user's own, older ones go as the description their
/// result's text already holds.
pub(super) struct ImageBudget {
    pub count: usize,
    /// Data URL text, the user's images counted.
    pub bytes: usize,
    /// Whether a tool-result image (its data URL) can be sent at all; one that cannot takes no
    /// room.
    pub sendable: fn(&str) -> bool,
}

impl ImageBudget {
    /// How many of the conversation's oldest sendable tool-result images are left out.
    pub(super) fn tool_images_left_out(&self, messages: &[ChatMessage]) -> usize {
        // Plain loops: iterator adapters over messages and parts took 1.1 KB of wasm here.
        let (mut count_room, mut byte_room) = (self.count, self.bytes);
        let mut tool_images = Vec::new();
        for message in messages {
            let Some(MessageContent::Parts(parts)) = &message.content else {
                continue;
            };
            for part in parts {
                let ContentPart::ImageUrl { image_url } = part else {
                    continue;
                };
                let url = image_url.url.as_str();
                match message.role {
                    Role::User => {
                        count_room = count_room.saturating_sub(1);
                        byte_room = byte_room.saturating_sub(url.len());
                    }
                    Role::Tool if (self.sendable)(url) => tool_images.push(url.len()),
                    _ => {}
                }
            }
        }
        let kept = tool_images
            .iter()
            .rev()
            .take(count_room)
            .scan(byte_room, |room, length| {
                let fits = *room >= *length;
                *room = room.saturating_sub(*length);
                fits.then_some(())
            })
            .count();
        tool_images.len() - kept
    }
}

/// The tool call ids of `messages` that a provider refuses (`accepted` says no), each with the
/// id sent in its place, the same for a call and its results: `derive(id, attempt)` for the
/// first attempt that no other id of the conversation has. Accepted ids are kept as they are.
pub(super) fn replaced_call_ids(
    messages: &[ChatMessage],
    accepted: fn(&str) -> bool,
    derive: fn(&str, u8) -> String,
) -> Map<String, Value> {
    // Every id of the conversation, calls' and results', gathered by plain loops: iterator
    // adapters walked twice took 0.9 KB of wasm here.
    let mut ids: Vec<&str> = Vec::new();
    for message in messages {
        if let Some(calls) = &message.tool_calls {
            for call in calls {
                ids.push(&call.id);
            }
        }
        if let Some(id) = &message.tool_call_id {
            ids.push(id);
        }
    }
    // A JSON object's map as a set: the wasm has its hash table anyway.
    let mut taken = Map::new();
    for &id in &ids {
        if accepted(id) {
            taken.set(id, Value::Null);
        }
    }
    let mut replaced = Map::new();
    for &id in &ids {
        if accepted(id) || replaced.contains_key(id) {
            continue;
        }
        let mut attempt = 0;
        let mut fresh = derive(id, attempt);
        while taken.contains_key(&fresh) && attempt < u8::MAX {
            attempt += 1;
            fresh = derive(id, attempt);
        }
        taken.insert(fresh.clone(), Value::Null);
        replaced.set(id, Value::String(fresh));
    }
    replaced
}

/// The id to send for `id`, given [`replaced_call_ids`].
pub(super) fn sent_call_id(replaced: &Map<String, Value>, id: &str) -> Value {
    replaced
        .get(id)
        .cloned()
        .unwrap_or_else(|| Value::String(id.to_owned()))
}

/// A tool call's arguments as a JSON object. Wire formats that take objects (Anthropic `input`,
/// Gemini `args`, Ollama `arguments`) get `{}` for arguments that do not parse: such a call was
/// already answered with an error result, and the object only keeps the history well-formed.
pub(super) fn arguments_object(call: &MessageToolCall) -> Value {
    match serde_json::from_str::<Value>(&call.function.arguments) {
        Ok(Value::Object(map)) => Value::Object(map),
        _ => Value::Object(Map::new()),
    }
}

/// The function name of the call `result` answers: the nearest call with its id in the messages
/// before it (Gemini and Ollama name the function in a result instead of giving an id). Nearest,
/// because ids made up for providers that send none (`call_<round>_<position>`) repeat when a
/// page runs the Agent again on the whole conversation.
pub(super) fn function_name_for_result<'a>(
    earlier: &'a [ChatMessage],
    result: &'a ChatMessage,
) -> Option<&'a str> {
    let wanted = result.tool_call_id.as_deref();
    for message in earlier.iter().rev() {
        for call in message.tool_calls.as_deref().unwrap_or_default() {
            if Some(call.id.as_str()) == wanted {
                return Some(&call.function.name);
            }
        }
    }
    result.name.as_deref()
}

pub(super) use crate::core::text::form_encode;
