//! The provider layer's one error type. Messages name the provider (and the model or field
//! where it helps) and never contain the API key: bodies are redacted before they are stored.

use thiserror::Error;

#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum ProviderError {
    #[error("unknown provider `{id}`")]
    Unknown { id: String },

    #[error("provider `{provider}` needs an API key (`apiKey`)")]
    MissingApiKey { provider: String },

    #[error("provider `{provider}` needs a base URL (`baseUrl`)")]
    MissingBaseUrl { provider: String },

    #[error("provider `{provider}` needs a model (`model`)")]
    MissingModel { provider: String },

    /// A `baseUrl` or `iamUrl` that `fetch` would read relative to the page, or could not use.
    #[error("provider `{provider}`: `{field}` {problem}")]
    InvalidUrl {
        provider: String,
        field: &'static str,
        problem: String,
    },

    /// A key or extra header `fetch` would refuse; names the field or header, never the value.
    #[error("provider `{provider}`: {problem}")]
    InvalidHeader { provider: String, problem: String },

    /// `extraBody` names a member the library writes itself.
    #[error("provider `{provider}`: `extraBody` cannot set `{member}`, which each request writes from the run and the settings")]
    ReservedBodyMember {
        provider: String,
        member: &'static str,
    },

    /// A provider-specific setting, such as watsonx's `projectId`.
    #[error("provider `{provider}` needs `{field}`")]
    MissingSetting {
        provider: String,
        field: &'static str,
    },

    /// A watsonx chat request was built before the IAM token exchange.
    #[error("provider `{provider}` needs an access token from the token exchange first")]
    AccessTokenRequired { provider: String },

    #[error("provider `{provider}` cannot send this conversation: {message}")]
    InvalidConversation { provider: String, message: String },

    #[error("provider `{provider}` cannot take this image for model `{model}`: {reason}")]
    ImagesUnsupported {
        provider: String,
        model: String,
        reason: String,
    },

    #[error("provider `{provider}` rejected the credentials (HTTP {status}): {message}")]
    Auth {
        provider: String,
        status: u16,
        message: String,
        body: String,
    },

    #[error("provider `{provider}` has no model `{model}` (HTTP {status}): {message}")]
    ModelNotFound {
        provider: String,
        model: String,
        status: u16,
        message: String,
        body: String,
    },

    #[error(
        "provider `{provider}` is rate limiting (HTTP {status}): {message}{}",
        wait_asked_for(*retry_after_ms)
    )]
    RateLimited {
        provider: String,
        status: u16,
        /// The wait the provider asked for, when it named one.
        retry_after_ms: Option<u64>,
        message: String,
        body: String,
    },

    #[error("provider `{provider}` answered HTTP {status}: {message}")]
    HttpStatus {
        provider: String,
        status: u16,
        message: String,
        body: String,
    },

    #[error("provider `{provider}` could not be reached: {message}")]
    Network { provider: String, message: String },

    /// The provider stayed silent longer than the Agent's `idleTimeoutMs`: before its answer
    /// started, or between two pieces of a stream.
    #[error(
        "provider `{provider}` sent nothing for {idle_ms} ms; the call was given up \
         (raise `idleTimeoutMs` for models that think long before answering)"
    )]
    IdleTimeout { provider: String, idle_ms: u64 },

    #[error("provider `{provider}` sent a response that does not parse: {message}")]
    InvalidResponse { provider: String, message: String },

    #[error("the request to provider `{provider}` was aborted")]
    Aborted { provider: String },

    /// The tools a run offers exceed what the provider takes in one request: found before the
    /// first model call, which would otherwise fail with a 400, as would every later one.
    #[error(
        "provider `{provider}` takes at most {limit} tools in a request, and the run offers \
         {count} ({per_server}): offer fewer with `allowedTools` on an `mcpServers` entry, \
         connect fewer MCP servers or give fewer `tools`"
    )]
    TooManyTools {
        provider: String,
        count: usize,
        limit: usize,
        /// How many tools each server offers, in server order: "`files` 100, `github` 50" (the
        /// page's own `tools` as the server `page`).
        per_server: String,
    },

    /// `toolChoice` names a tool the run does not offer (or, by its MCP name, several).
    #[error("provider `{provider}`: `toolChoice` `{name}` {problem}")]
    UnknownToolChoice {
        provider: String,
        name: String,
        problem: &'static str,
    },

    /// A `toolChoice` other than `auto` for a wire that has no way to ask for it.
    #[error("provider `{provider}` takes no `toolChoice` but `auto`")]
    ToolChoiceUnsupported { provider: String },
}

/// The wait a rate limit named, for its message: the call gave up before it (retries used up,
/// or a wait longer than the retry policy takes), and the caller cannot read the header.
fn wait_asked_for(retry_after_ms: Option<u64>) -> String {
    retry_after_ms
        .filter(|wait_ms| *wait_ms > 0)
        .map_or_else(String::new, |wait_ms| {
            format!(
                "; it asks to wait {} s before the next request",
                wait_ms.div_ceil(1000)
            )
        })
}

impl ProviderError {
    /// A stable code for programs (and the JS `Error.code`).
    pub fn code(&self) -> &'static str {
        match self {
            ProviderError::Unknown { .. } => "provider_unknown",
            ProviderError::MissingApiKey { .. } => "provider_missing_api_key",
            ProviderError::MissingBaseUrl { .. } => "provider_missing_base_url",
            ProviderError::MissingModel { .. } => "provider_missing_model",
            ProviderError::InvalidUrl { .. } => "provider_invalid_url",
            ProviderError::InvalidHeader { .. } => "provider_invalid_header",
            ProviderError::MissingSetting { .. } => "provider_missing_setting",
            ProviderError::ReservedBodyMember { .. } => "provider_reserved_body_member",
            ProviderError::AccessTokenRequired { .. } => "provider_access_token_required",
            ProviderError::InvalidConversation { .. } => "provider_invalid_conversation",
            ProviderError::ImagesUnsupported { .. } => "provider_images_unsupported",
            ProviderError::Auth { .. } => "provider_auth",
            ProviderError::ModelNotFound { .. } => "provider_model_not_found",
            ProviderError::RateLimited { .. } => "provider_rate_limited",
            ProviderError::HttpStatus { .. } => "provider_http_status",
            ProviderError::Network { .. } => "provider_network",
            ProviderError::IdleTimeout { .. } => "provider_idle_timeout",
            ProviderError::InvalidResponse { .. } => "provider_invalid_response",
            ProviderError::Aborted { .. } => "provider_aborted",
            ProviderError::TooManyTools { .. } => "provider_too_many_tools",
            ProviderError::UnknownToolChoice { .. } => "provider_unknown_tool_choice",
            ProviderError::ToolChoiceUnsupported { .. } => "provider_tool_choice_unsupported",
        }
    }

    /// The HTTP status, for errors that came from one.
    pub fn status(&self) -> Option<u16> {
        match self {
            ProviderError::Auth { status, .. }
            | ProviderError::ModelNotFound { status, .. }
            | ProviderError::RateLimited { status, .. }
            | ProviderError::HttpStatus { status, .. } => Some(*status),
            _ => None,
        }
    }

    /// The response body (redacted), for errors that came from one.
    pub fn body(&self) -> Option<&str> {
        match self {
            ProviderError::Auth { body, .. }
            | ProviderError::ModelNotFound { body, .. }
            | ProviderError::RateLimited { body, .. }
            | ProviderError::HttpStatus { body, .. } => Some(body),
            _ => None,
        }
    }
}
