//! IBM watsonx.ai chat. The API key is not sent to the chat endpoint: it is first exchanged at
//! IBM IAM for a bearer token (a separate request), and every call names its project.

use serde_json::{Map, Value};

use super::config::ResolvedProvider;
use super::error::ProviderError;
use super::request::{form_encode, HttpRequest, ResponseMode};
use crate::core::json_text::SetMember;
use crate::core::message::ChatMessage;

/// The `version` query value when the caller gives none.
pub const WATSONX_DEFAULT_VERSION: &str = "2025-02-11";

/// IBM Cloud's IAM token endpoint.
pub const IBM_IAM_TOKEN_URL: &str = "https://iam.cloud.ibm.com/identity/token";

pub(super) fn url(provider: &ResolvedProvider, mode: ResponseMode) -> String {
    let path = match mode {
        ResponseMode::Streaming => "chat_stream",
        ResponseMode::Whole => "chat",
    };
    format!(
        "{}/ml/v1/text/{path}?version={}",
        provider.base_url,
        provider
            .api_version
            .as_deref()
            .unwrap_or(WATSONX_DEFAULT_VERSION)
    )
}

pub(super) fn headers(provider: &ResolvedProvider) -> Result<Vec<(String, String)>, ProviderError> {
    let token =
        provider
            .access_token
            .as_ref()
            .ok_or_else(|| ProviderError::AccessTokenRequired {
                provider: provider.provider_name(),
            })?;
    Ok(vec![(
        "authorization".to_owned(),
        format!("Bearer {token}"),
    )])
}

pub(super) fn body(
    provider: &ResolvedProvider,
    messages: &[ChatMessage],
) -> Result<Map<String, Value>, ProviderError> {
    let mut body = Map::new();
    body.set("model_id", Value::from(provider.model.as_str()));
    body.set(
        "project_id",
        provider
            .project_id
            .clone()
            .map_or(Value::Null, Value::String),
    );
    body.set(
        "messages",
        Value::Array(super::openai::wire_messages(provider, messages)?),
    );
    if let Some(temperature) = provider.temperature {
        body.set("temperature", Value::from(temperature));
    }
    if let Some(max_tokens) = provider.max_tokens {
        body.set("max_tokens", Value::from(max_tokens));
    }
    Ok(body)
}

/// A bearer token from IAM and how long it lives.
#[derive(Clone, PartialEq, Eq)]
pub struct AccessToken {
    pub access_token: String,
    /// Seconds from issue.
    pub expires_in: Option<u64>,
}

impl std::fmt::Debug for AccessToken {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        formatter
            .debug_struct("AccessToken")
            .field("access_token", &"[redacted]")
            .field("expires_in", &self.expires_in)
            .finish()
    }
}

impl ResolvedProvider {
    /// The IAM exchange that must precede a watsonx call; `None` for every other provider.
    pub fn token_request(&self) -> Option<HttpRequest> {
        if self.spec.endpoint != super::table::Endpoint::WatsonxChat {
            return None;
        }
        let key = self.api_key.as_deref().unwrap_or_default();
        Some(HttpRequest {
            method: "POST",
            url: self
                .iam_url
                .clone()
                .unwrap_or_else(|| IBM_IAM_TOKEN_URL.to_owned()),
            headers: vec![
                (
                    "content-type".to_owned(),
                    "application/x-www-form-urlencoded".to_owned(),
                ),
                ("accept".to_owned(), "application/json".to_owned()),
            ],
            body: format!(
                "grant_type={}&apikey={}",
                form_encode("urn:ibm:params:oauth:grant-type:apikey"),
                form_encode(key)
            ),
        })
    }

    /// Reads the IAM answer to [`ResolvedProvider::token_request`].
    pub fn parse_token_response(&self, body: &str) -> Result<AccessToken, ProviderError> {
        let answer: Value = serde_json::from_str(body).unwrap_or_default();
        let access_token = answer["access_token"]
            .as_str()
            .filter(|token| !token.is_empty());
        access_token
            .map(|token| AccessToken {
                access_token: token.to_owned(),
                expires_in: answer["expires_in"].as_u64(),
            })
            .ok_or_else(|| ProviderError::InvalidResponse {
                provider: self.provider_name(),
                message: "the IAM answer has no `access_token`".to_owned(),
            })
    }
}
