//! Gemini `generateContent`: request bodies and whole-response parsing.
//!
//! A result names its function in a `functionResponse` part (Gemini 3 and later also give each
//! call an id, echoed on the call and its response), and the results of one round travel together
//! in one user turn. The `thoughtSignature` a call came with goes back on the same `functionCall`
//! part.

use serde_json::{json, Map, Value};

use super::config::ResolvedProvider;
use super::error::ProviderError;
use super::request::{
    arguments_object, function_name_for_result, named_tool, parse_data_url, push_turn,
    sanitized_schema, turn_values, user_pieces, ImageBudget, InlineImage, ResponseMode, Turns,
};
use crate::core::json_read::member_at;
use crate::core::json_text::{object, to_json_text, SetMember};
use crate::core::message::{
    ChatMessage, ContentPart, MessageContent, MessageToolCall, Role, ThinkingBlock,
};
use crate::core::model_event::{
    ArgumentsDelta, FinishReason, ModelEvent, ProviderStreamError, ToolCallDelta,
};
use crate::core::stream::usage::gemini_usage;
use crate::core::text::parse_unsigned;
use crate::core::tools::{SchemaDialect, ToolEntry};

pub(super) fn url(provider: &ResolvedProvider, mode: ResponseMode) -> String {
    let method = match mode {
        ResponseMode::Streaming => "streamGenerateContent?alt=sse",
        ResponseMode::Whole => "generateContent",
    };
    format!("{}/models/{}:{method}", provider.base_url, provider.model)
}

pub(super) fn headers(provider: &ResolvedProvider) -> Vec<(String, String)> {
    match &provider.api_key {
        Some(key) => vec![("x-goog-api-key".to_owned(), key.clone())],
        None => Vec::new(),
    }
}

pub(super) fn body(
    provider: &ResolvedProvider,
    messages: &[ChatMessage],
) -> Result<Map<String, Value>, ProviderError> {
    let mut body = Map::new();
    body.set("contents", Value::Array(contents(provider, messages)?));
    let mut system: Vec<Value> = Vec::new();
    for message in messages {
        let text = match message.role {
            Role::System => message.text_content(),
            _ => continue,
        };
        if !text.is_empty() {
            system.push(object([("text", Value::String(text))]));
        }
    }
    if !system.is_empty() {
        body.set(
            "systemInstruction",
            object([("parts", Value::Array(system))]),
        );
    }
    let mut generation = Map::new();
    if let Some(temperature) = provider.temperature {
        generation.set("temperature", Value::from(temperature));
    }
    if let Some(max_tokens) = provider.max_tokens {
        generation.set("maxOutputTokens", Value::from(max_tokens));
    }
    // `extraBody`'s thinkingConfig (Gemini 3's `thinkingLevel`, refused beside a budget) is
    // merged into the body in place of the budget's.
    let extra_thinking = provider
        .extra_body
        .get("generationConfig")
        .and_then(|config| config.get("thinkingConfig"));
    if let Some(budget) = provider
        .thinking_budget
        .filter(|_| extra_thinking.is_none())
    {
        generation.set(
            "thinkingConfig",
            object([
                ("thinkingBudget", Value::from(budget)),
                ("includeThoughts", Value::Bool(true)),
            ]),
        );
    }
    if !generation.is_empty() {
        body.set("generationConfig", Value::Object(generation));
    }
    Ok(body)
}

fn has_properties(schema: &Value) -> bool {
    schema
        .get("properties")
        .and_then(Value::as_object)
        .is_some_and(|properties| !properties.is_empty())
}

/// Turns with consecutive same-role messages merged: Gemini wants all function responses of a
/// round in the one user turn that follows the model turn with the calls.
fn contents(
    provider: &ResolvedProvider,
    messages: &[ChatMessage],
) -> Result<Vec<Value>, ProviderError> {
    let echoes_ids = is_gemini_3_or_later(&provider.model);
    let mut images_to_leave_out = if provider.shows_tool_result_images() {
        TOOL_IMAGE_BUDGET.tool_images_left_out(messages)
    } else {
        usize::MAX
    };
    let mut turns = Turns::new();
    for (position, message) in messages.iter().enumerate() {
        let (role, parts) = match message.role {
            Role::System => continue,
            Role::User => {
                let pieces = user_pieces(provider, message, text_part, |url| {
                    let image = parse_data_url(url).ok_or_else(|| {
                        provider.images_unsupported(
                            "Gemini takes inline images only: give a base64 data URL",
                        )
                    })?;
                    Ok(inline_data(&image))
                })?;
                ("user", pieces)
            }
            Role::Assistant => ("model", model_parts(message, echoes_ids)),
            Role::Tool => {
                let name =
                    function_name_for_result(&messages[..position], message).ok_or_else(|| {
                        provider.invalid_conversation(
                        "a tool result answers no earlier call, so its function name is unknown",
                    )
                    })?;
                let mut response = Map::new();
                response.set("name", Value::from(name));
                if let Some(id) = message
                    .tool_call_id
                    .as_deref()
                    .filter(|id| echoes_ids && !id.is_empty())
                {
                    response.set("id", Value::from(id));
                }
                response.set(
                    "response",
                    object([("content", Value::String(message.text_content()))]),
                );
                let media = response_media(message, &mut images_to_leave_out);
                if !media.is_empty() {
                    response.set("parts", Value::Array(media));
                }
                (
                    "user",
                    vec![object([("functionResponse", Value::Object(response))])],
                )
            }
        };
        push_turn(&mut turns, role, parts);
    }
    Ok(turn_values(turns, "parts"))
}

/// Gemini 3 and later models return an id with each call and map each response to its call by
/// it ("include this exact id in your functionResponse", the function-calling guide), and read
/// images in a response's `parts` (its multimodal function responses); earlier models do
/// neither. The `-latest` aliases name the current generation.
pub(super) fn is_gemini_3_or_later(model: &str) -> bool {
    let name_start = model
        .bytes()
        .rposition(|byte| byte == b'/')
        .map_or(0, |slash| slash + 1);
    let Some(version) = model[name_start..].strip_prefix("gemini-") else {
        return false;
    };
    let digits = version.bytes().take_while(u8::is_ascii_digit).count();
    match parse_unsigned::<u32>(&version[..digits], 10) {
        Some(major) => major >= 3,
        None => version.ends_with("-latest"),
    }
}

/// The image types a Gemini function response takes (PNG, JPEG and WebP); a GIF stays described
/// in the result's text.
fn is_function_response_image(url: &str) -> bool {
    parse_data_url(url)
        .is_some_and(|image| ["image/png", "image/jpeg", "image/webp"].contains(&image.media_type))
}

/// Images cost Gemini 3 about a thousand tokens each, and its documented inline request limit
/// is 20 MB: the latest 20 tool-result images in at most 15 MiB of base64, counting the user's.
const TOOL_IMAGE_BUDGET: ImageBudget = ImageBudget {
    count: 20,
    bytes: 15 * 1024 * 1024,
    sendable: is_function_response_image,
};

/// A tool result's images as `functionResponse` media parts, the first `*left_out` of them
/// skipped (and counted off).
fn response_media(message: &ChatMessage, left_out: &mut usize) -> Vec<Value> {
    let Some(MessageContent::Parts(parts)) = &message.content else {
        return Vec::new();
    };
    let mut media = Vec::new();
    for part in parts {
        let ContentPart::ImageUrl { image_url } = part else {
            continue;
        };
        let Some(image) =
            parse_data_url(&image_url.url).filter(|_| is_function_response_image(&image_url.url))
        else {
            continue;
        };
        if *left_out > 0 {
            *left_out -= 1;
            continue;
        }
        media.push(inline_data(&image));
    }
    media
}

/// An image as a part: `{inlineData: {mimeType, data}}`.
fn inline_data(image: &InlineImage<'_>) -> Value {
    let data = object([
        ("mimeType", Value::from(image.media_type)),
        ("data", Value::from(image.base64)),
    ]);
    object([("inlineData", data)])
}

fn text_part(text: &str) -> Option<Value> {
    (!text.is_empty()).then(|| object([("text", Value::from(text))]))
}

/// Google's documented thought signature for function calls Gemini did not make (another
/// provider's, a conversation built by hand): Gemini 3 refuses a turn whose first call has none.
const FOREIGN_CALL_SIGNATURE: &str = "skip_thought_signature_validator";

/// The thought signature to send with the call at `position` of a model turn: its own, or for a
/// first call without one, [`FOREIGN_CALL_SIGNATURE`] (parallel calls carry one on the first only).
pub(super) fn sent_thought_signature(call: &MessageToolCall, position: usize) -> Option<&str> {
    call.thought_signature
        .as_deref()
        .or((position == 0).then_some(FOREIGN_CALL_SIGNATURE))
}

fn model_parts(message: &ChatMessage, echoes_ids: bool) -> Vec<Value> {
    let mut parts = Vec::new();
    if let Some(mut part) = text_part(&message.text_content()) {
        // The text is one part here, however many Gemini streamed: it carries the last
        // signature Gemini gave a part that was not a call.
        let mut signature = None;
        for block in message.thinking_blocks.as_deref().unwrap_or_default() {
            if let ThinkingBlock::ThoughtSignature { signature: own } = block {
                signature = Some(own);
            }
        }
        if let (Some(signature), Value::Object(part)) = (signature, &mut part) {
            part.set("thoughtSignature", Value::from(signature.as_str()));
        }
        parts.push(part);
    }
    for (position, call) in message
        .tool_calls
        .as_deref()
        .unwrap_or_default()
        .iter()
        .enumerate()
    {
        let mut function_call = Map::new();
        function_call.set("name", Value::from(call.function.name.as_str()));
        function_call.set("args", arguments_object(call));
        if echoes_ids && !call.id.is_empty() {
            function_call.set("id", Value::from(call.id.as_str()));
        }
        let mut part = Map::new();
        part.set("functionCall", Value::Object(function_call));
        if let Some(signature) = sent_thought_signature(call, position) {
            part.set("thoughtSignature", Value::from(signature));
        }
        parts.push(Value::Object(part));
    }
    parts
}

fn finish_reason(reason: &str) -> FinishReason {
    match reason {
        "STOP" => FinishReason::Stop,
        "MAX_TOKENS" => FinishReason::Length,
        "SAFETY" | "RECITATION" | "BLOCKLIST" | "PROHIBITED_CONTENT" | "SPII" | "IMAGE_SAFETY" => {
            FinishReason::ContentFilter
        }
        other => FinishReason::Other(other.to_owned()),
    }
}

/// A whole `generateContent` body as model events.
pub(super) fn response_events(body: &Value) -> Result<Vec<ModelEvent>, String> {
    if let Some(error) = body.get("error") {
        return Ok(vec![ModelEvent::Error(ProviderStreamError {
            code: error
                .get("status")
                .and_then(Value::as_str)
                .map(str::to_owned),
            message: super::retry::error_message(body).unwrap_or_else(|| to_json_text(error)),
        })]);
    }
    let candidate = body
        .get("candidates")
        .and_then(Value::as_array)
        .and_then(|candidates| candidates.first());
    let mut events = Vec::new();
    let mut call_index = 0u32;
    let parts = candidate
        .and_then(|candidate| member_at(Some(candidate), "content.parts"))
        .and_then(Value::as_array)
        .map(Vec::as_slice)
        .unwrap_or_default();
    for part in parts {
        let signature = part
            .get("thoughtSignature")
            .and_then(Value::as_str)
            .map(str::to_owned);
        if let Some(call) = part.get("functionCall") {
            events.push(ModelEvent::ToolCallDelta(ToolCallDelta {
                index: Some(call_index),
                id: call.get("id").and_then(Value::as_str).map(str::to_owned),
                name: call.get("name").and_then(Value::as_str).map(str::to_owned),
                arguments: Some(ArgumentsDelta::Whole(
                    call.get("args").cloned().unwrap_or_else(|| json!({})),
                )),
                thought_signature: signature,
            }));
            call_index += 1;
            continue;
        }
        if let Some(text) = part
            .get("text")
            .and_then(Value::as_str)
            .filter(|text| !text.is_empty())
        {
            if part.get("thought").and_then(Value::as_bool) == Some(true) {
                events.push(ModelEvent::ReasoningDelta(text.to_owned()));
            } else {
                events.push(ModelEvent::TextDelta(text.to_owned()));
            }
        }
        // A signature on a part that is not a call is echoed back on the turn's text.
        if let Some(signature) = signature {
            events.push(ModelEvent::TextSignature(signature));
        }
    }
    let reason = candidate
        .and_then(|candidate| candidate.get("finishReason"))
        .and_then(Value::as_str);
    if let Some(reason) = reason {
        events.push(ModelEvent::Finish(finish_reason(reason)));
    } else if candidate.is_none() {
        // A prompt blocked before any candidate: `promptFeedback.blockReason`.
        let blocked = member_at(Some(body), "promptFeedback.blockReason")
            .and_then(Value::as_str)
            .ok_or("no candidates in the response")?;
        events.push(ModelEvent::Error(ProviderStreamError {
            code: Some(blocked.to_owned()),
            message: format!("the prompt was blocked ({blocked})"),
        }));
    }
    if let Some(usage) = body.get("usageMetadata") {
        events.push(ModelEvent::Usage(gemini_usage(usage)));
    }
    Ok(events)
}

/// The `tools` value: one `functionDeclarations` list, schemas in the Gemini dialect.
pub(super) fn tools(tools: &[ToolEntry], warnings: &mut Vec<String>) -> Value {
    let mut declarations = Vec::with_capacity(tools.len());
    for entry in tools {
        let schema = sanitized_schema(entry, SchemaDialect::Gemini, warnings).schema;
        let mut declaration = named_tool(entry);
        // Gemini rejects an OBJECT schema with no properties: a tool without
        // parameters is declared without `parameters`.
        if has_properties(&schema) {
            declaration.set("parameters", schema);
        }
        declarations.push(Value::Object(declaration));
    }
    Value::Array(vec![object([(
        "functionDeclarations",
        Value::Array(declarations),
    )])])
}
