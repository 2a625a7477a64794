//! OpenAI's Responses API (`POST /responses`): its streamed events and its whole response.

use serde_json::Value;

use crate::core::model_event::ModelEvent;

/// Reads a Responses API stream, one typed event per SSE payload.
#[derive(Debug, Default)]
pub(crate) struct ResponsesParser {}

impl ResponsesParser {
    pub(crate) fn parse(&mut self, _payload: &str, _out: &mut Vec<ModelEvent>) {}

    pub(crate) fn finish(&mut self, _out: &mut Vec<ModelEvent>) {}
}

/// A whole (non-streaming) Responses API body as model events.
pub(crate) fn response_events(_body: &Value) -> Result<Vec<ModelEvent>, String> {
    Ok(Vec::new())
}
