//! A caller's provider settings, checked against the table before anything is built or sent.

use std::fmt;

use serde::de::Error;
use serde::{Deserialize, Deserializer};
use serde_json::{Map, Value};

use super::error::ProviderError;
use super::table::{
    find_provider, Endpoint, KeyRequirement, ProviderSpec, ANTHROPIC_MESSAGES_PATH,
    CHAT_COMPLETIONS_PATH, OLLAMA_CHAT_PATH, RESPONSES_PATH,
};
use crate::core::http_header::{headers_problem, refusal, refused_value_character};
use crate::core::json_read::{
    float, header_list, known_member, object, optional, string, unsigned,
};
use crate::core::text::replace_str;
use crate::core::url_policy::{check_server_url, Host, UrlPolicyError};

/// What a caller passes per model call (`{ id, apiKey?, model?, baseUrl?, … }` from JS, in
/// camelCase). Other members are refused: a misspelt one (`baseURL`, as the OpenAI SDK writes
/// it) left the default base URL in place, which then got the key.
#[derive(Clone, Default, PartialEq)]
pub struct ProviderConfig {
    pub id: String,
    pub api_key: Option<String>,
    pub model: Option<String>,
    pub base_url: Option<String>,
    pub temperature: Option<f64>,
    pub max_tokens: Option<u32>,
    /// Extra request headers; they replace built-in headers of the same name.
    pub headers: Option<Vec<(String, String)>>,
    /// watsonx: the project the call is billed to.
    pub project_id: Option<String>,
    /// Azure `api-version` / watsonx `version` query value, overriding the built-in date.
    pub api_version: Option<String>,
    /// Turns reasoning on where it is opt-in: Anthropic `thinking.budget_tokens`, Gemini
    /// `thinkingBudget` with thoughts included, Ollama `think: true`.
    pub thinking_budget: Option<u32>,
    /// watsonx: the IAM token endpoint (the test server stands in for IBM's).
    pub iam_url: Option<String>,
    /// Members merged into every request body (the OpenAI SDK's `extra_body`): what the settings
    /// do not name, such as OpenAI's `reasoning_effort` or Ollama's `options.num_ctx`.
    pub extra_body: Option<Map<String, Value>>,
}

impl<'de> Deserialize<'de> for ProviderConfig {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        ProviderConfig::from_json(Value::deserialize(deserializer)?)
    }
}

const PROVIDER_CONFIG: &[&str] = &[
    "id",
    "apiKey",
    "model",
    "baseUrl",
    "temperature",
    "maxTokens",
    "headers",
    "projectId",
    "apiVersion",
    "thinkingBudget",
    "iamUrl",
    "extraBody",
];

impl ProviderConfig {
    /// Reads the caller's settings by hand (`core::json_read`), with serde's error texts.
    pub fn from_json<E: Error>(value: Value) -> Result<Self, E> {
        let mut config = ProviderConfig::default();
        let mut id = None;
        for (key, value) in object::<E>(value, "struct ProviderConfig")? {
            known_member::<E>(&key, PROVIDER_CONFIG)?;
            match key.as_str() {
                "id" => id = Some(string(value)?),
                "apiKey" => config.api_key = optional(value, string)?,
                "model" => config.model = optional(value, string)?,
                "baseUrl" => config.base_url = optional(value, string)?,
                "temperature" => config.temperature = optional(value, float)?,
                "maxTokens" => config.max_tokens = optional(value, |n| unsigned(n, "u32"))?,
                "headers" => config.headers = optional(value, header_list)?,
                "projectId" => config.project_id = optional(value, string)?,
                "apiVersion" => config.api_version = optional(value, string)?,
                "thinkingBudget" => {
                    config.thinking_budget = optional(value, |n| unsigned(n, "u32"))?;
                }
                "iamUrl" => config.iam_url = optional(value, string)?,
                "extraBody" => {
                    config.extra_body = optional(value, |value| object(value, "a map"))?;
                }
                _ => {} // refused by `known_member` above
            }
        }
        config.id = id.ok_or_else(|| E::missing_field("id"))?;
        Ok(config)
    }
}

/// The key is never printed, not even in debug output.
impl fmt::Debug for ProviderConfig {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        formatter
            .debug_struct("ProviderConfig")
            .field("id", &self.id)
            .field("api_key", &self.api_key.as_ref().map(|_| "[redacted]"))
            .field("model", &self.model)
            .field("base_url", &self.base_url)
            .finish_non_exhaustive()
    }
}

/// Settings that passed validation, with the table's defaults filled in.
#[derive(Clone, PartialEq)]
pub struct ResolvedProvider {
    pub spec: &'static ProviderSpec,
    pub api_key: Option<String>,
    /// Without a trailing slash.
    pub base_url: String,
    pub model: String,
    pub temperature: Option<f64>,
    pub max_tokens: Option<u32>,
    pub extra_headers: Vec<(String, String)>,
    pub project_id: Option<String>,
    pub api_version: Option<String>,
    pub thinking_budget: Option<u32>,
    pub iam_url: Option<String>,
    /// watsonx: the bearer token from the IAM exchange.
    pub access_token: Option<String>,
    /// Merged into every request body; never holds a `RESERVED_BODY_MEMBERS` member.
    pub extra_body: Map<String, Value>,
}

/// Request body members `extraBody` cannot set: the conversation, the tools and the response
/// mode come from the run (a second `tools` would also make the body's JSON ambiguous), the
/// model from `model` (watsonx's `model_id`) and watsonx's project from `projectId`.
pub const RESERVED_BODY_MEMBERS: [&str; 11] = [
    "model",
    "model_id",
    "project_id",
    "messages",
    "input",
    "contents",
    "system",
    "systemInstruction",
    "tools",
    "tool_choice",
    "stream",
];

impl fmt::Debug for ResolvedProvider {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        formatter
            .debug_struct("ResolvedProvider")
            .field("provider", &self.spec.id)
            .field("base_url", &self.base_url)
            .field("model", &self.model)
            .field("api_key", &self.api_key.as_ref().map(|_| "[redacted]"))
            .finish_non_exhaustive()
    }
}

fn non_blank(value: &Option<String>) -> Option<String> {
    value
        .as_deref()
        .map(str::trim)
        .filter(|value| !value.is_empty())
        .map(str::to_owned)
}

impl ProviderConfig {
    /// Checks the settings against the provider's row: an unknown id, or a missing key, base URL,
    /// model or required setting, is an error naming the provider and the field.
    pub fn resolve(&self) -> Result<ResolvedProvider, ProviderError> {
        let spec = find_provider(&self.id).ok_or_else(|| ProviderError::Unknown {
            id: self.id.clone(),
        })?;
        let provider = spec.id.to_owned();
        let api_key = non_blank(&self.api_key);
        if spec.api_key == KeyRequirement::Required && api_key.is_none() {
            return Err(ProviderError::MissingApiKey { provider });
        }
        // Checked as given, for positions the caller can count, but for the end that `non_blank`
        // trims (a space such as U+3000 there is never sent). watsonx sends its key in a form
        // body, where any character goes.
        let key_problem = self
            .api_key
            .as_deref()
            .filter(|_| spec.endpoint != Endpoint::WatsonxChat)
            .and_then(|key| refused_value_character(key.trim_end()))
            .map(|position| refusal("", "apiKey", position));
        if let Some(problem) =
            key_problem.or_else(|| headers_problem(self.headers.as_deref().unwrap_or_default()))
        {
            return Err(ProviderError::InvalidHeader { provider, problem });
        }
        let base_url = non_blank(&self.base_url)
            .or_else(|| spec.default_base_url.map(str::to_owned))
            .ok_or_else(|| ProviderError::MissingBaseUrl {
                provider: provider.clone(),
            })?;
        check_absolute_url(&provider, "baseUrl", &base_url)?;
        let base_url = base_url.trim_end_matches('/');
        let added_path = match spec.endpoint {
            Endpoint::ChatCompletions => Some(CHAT_COMPLETIONS_PATH),
            Endpoint::AnthropicMessages => Some(ANTHROPIC_MESSAGES_PATH),
            Endpoint::OllamaChat => Some(OLLAMA_CHAT_PATH),
            Endpoint::Responses => Some(RESPONSES_PATH),
            _ => None,
        };
        // Each request adds this path: given twice, the 404 would read as a missing model.
        if let Some(added_path) = added_path.filter(|path| base_url.ends_with(path)) {
            return Err(ProviderError::InvalidUrl {
                provider,
                field: "baseUrl",
                problem: format!("ends with `{added_path}`, which each request adds: leave it out"),
            });
        }
        let iam_url = non_blank(&self.iam_url);
        if let Some(iam_url) = &iam_url {
            check_absolute_url(&provider, "iamUrl", iam_url)?;
        }
        let model = non_blank(&self.model)
            .or_else(|| spec.default_model.map(str::to_owned))
            .ok_or_else(|| ProviderError::MissingModel {
                provider: provider.clone(),
            })?;
        let extra_body = self.extra_body.clone().unwrap_or_default();
        if let Some(member) = RESERVED_BODY_MEMBERS
            .into_iter()
            .find(|member| extra_body.contains_key(*member))
        {
            return Err(ProviderError::ReservedBodyMember { provider, member });
        }
        let project_id = non_blank(&self.project_id);
        if spec.endpoint == Endpoint::WatsonxChat && project_id.is_none() {
            return Err(ProviderError::MissingSetting {
                provider,
                field: "projectId",
            });
        }
        Ok(ResolvedProvider {
            spec,
            api_key,
            base_url: base_url.to_owned(),
            model,
            temperature: self.temperature,
            max_tokens: self.max_tokens,
            extra_headers: self.headers.as_deref().unwrap_or_default().to_vec(),
            project_id,
            api_version: non_blank(&self.api_version),
            thinking_budget: self.thinking_budget,
            iam_url,
            access_token: None,
            extra_body,
        })
    }
}

/// Refuses a URL `fetch` would not take as given: one without a scheme is read relative to the
/// page, which then gets the request and the key (and its 404 reads as a missing model). A path
/// from the root of the page's origin (`/api/llm`: the app's own proxy or token exchange) is
/// meant that way; `//` or `/\` would name another host.
fn check_absolute_url(provider: &str, field: &'static str, url: &str) -> Result<(), ProviderError> {
    let own_origin_path = url.starts_with('/') && !url[1..].starts_with(['/', '\\']);
    let problem = match check_server_url(url, true) {
        _ if own_origin_path => return Ok(()),
        Ok(_) | Err(UrlPolicyError::NonAsciiHost(_)) => return Ok(()),
        Err(UrlPolicyError::Credentials) => "holds a user name or password".to_owned(),
        Err(_) => format!("`{url}` is not an absolute http(s) URL"),
    };
    Err(ProviderError::InvalidUrl {
        provider: provider.to_owned(),
        field,
        problem,
    })
}

impl ResolvedProvider {
    /// The same settings carrying the watsonx bearer token obtained from the IAM exchange.
    pub fn with_access_token(mut self, access_token: impl Into<String>) -> Self {
        self.access_token = Some(access_token.into());
        self
    }

    /// Removes every secret this provider holds from `text`, so that provider bodies and
    /// messages can be kept in errors.
    pub fn redact(&self, text: &str) -> String {
        let mut redacted = text.to_owned();
        for secret in [&self.api_key, &self.access_token].into_iter().flatten() {
            if !secret.is_empty() {
                redacted = replace_str(&redacted, secret, "[redacted]");
            }
        }
        redacted
    }

    /// Whether the base URL is one of Google's (the Gemini API's or Vertex AI's OpenAI-compatible
    /// endpoints), which want the thought signatures they sent echoed in `extra_content`, a field
    /// other OpenAI-style servers may refuse.
    pub(crate) fn is_google_endpoint(&self) -> bool {
        // Parsed as a browser parses it (the MCP URL policy's parser, with no policy applied).
        check_server_url(&self.base_url, true).is_ok_and(|url| {
            matches!(&url.host, Host::Domain(name)
                if name == "googleapis.com" || name.ends_with(".googleapis.com"))
        })
    }
}
