//! Every supported provider as one row of data: where it lives, how it authenticates, which wire
//! format it speaks and what it can take. Behaviour elsewhere reads these rows; nothing matches
//! on provider ids.

use serde::Serialize;

use crate::core::text::find_str;

pub use crate::core::stream::WireFormat;

/// The wire format's name as JS sees it.
pub fn wire_name(wire: WireFormat) -> &'static str {
    match wire {
        WireFormat::OpenAiChat => "openAiChat",
        WireFormat::OpenAiResponses => "openAiResponses",
        WireFormat::AnthropicMessages => "anthropicMessages",
        WireFormat::Gemini => "gemini",
        WireFormat::OllamaNdjson => "ollamaNdjson",
    }
}

/// What a request adds to the base URL, for the endpoints that add one fixed path; also what a
/// `baseUrl` must not end with (see `ProviderConfig::resolve`).
pub const CHAT_COMPLETIONS_PATH: &str = "/chat/completions";
pub const ANTHROPIC_MESSAGES_PATH: &str = "/v1/messages";
pub const OLLAMA_CHAT_PATH: &str = "/api/chat";
pub const RESPONSES_PATH: &str = "/responses";

/// How the request URL is formed and how the credential is sent.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Endpoint {
    /// `{base}/chat/completions`, `Authorization: Bearer`.
    ChatCompletions,
    /// `{base}/responses`, `Authorization: Bearer`.
    Responses,
    /// `{base}/openai/deployments/{model}/chat/completions?api-version=…`, `api-key` header.
    AzureDeployment,
    /// `{base}/v1/messages`, `x-api-key` plus the Anthropic browser headers.
    AnthropicMessages,
    /// `{base}/models/{model}:streamGenerateContent?alt=sse`, `x-goog-api-key`.
    GeminiModels,
    /// `{base}/api/chat`, an optional bearer token (Ollama behind a proxy or ollama.com).
    OllamaChat,
    /// `{base}/ml/v1/text/chat_stream?version=…`, a bearer token from the IBM IAM exchange.
    WatsonxChat,
}

/// Whether a provider needs an API key.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum KeyRequirement {
    Required,
    /// Sent when given (local servers usually take none).
    Optional,
}

/// How a provider returns reasoning and what must go back on the next turn.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase", tag = "kind")]
pub enum Reasoning {
    /// No reasoning channel, or one that never needs echoing (`reasoning_content` deltas are
    /// still parsed when a model sends them).
    NotEchoed,
    /// `reasoning_content` that must be sent back on assistant messages that called tools
    /// (DeepSeek thinking mode, Kimi thinking models: a missing echo is an HTTP 400).
    EchoReasoningContent,
    /// Anthropic thinking blocks, echoed with their signatures.
    SignedThinkingBlocks,
    /// Responses API reasoning items: asked for encrypted (`include`) and echoed as input items,
    /// except for models whose name starts with one of these prefixes, which do not reason and
    /// refuse the `include` with a 400.
    EncryptedReasoningItems {
        #[serde(rename = "plainModelPrefixes")]
        plain_model_prefixes: &'static [&'static str],
    },
    /// OpenRouter's `reasoning_details`, echoed on the assistant message they came with: they
    /// carry Claude's signed thinking and Gemini 3's thought signatures, which a tool round needs.
    /// One row only: OpenAI's API, and others copying it, refuse a message member they do not
    /// know with a 400.
    ReasoningDetails,
    /// Gemini thought parts; the thought signature on each function call is echoed.
    ThoughtSignatures,
    /// Ollama: a `thinking` field, or `<think>…</think>` inside the text for models whose name
    /// starts with one of these prefixes.
    ThinkTags {
        #[serde(rename = "modelPrefixes")]
        model_prefixes: &'static [&'static str],
    },
}

/// Whether a provider's models take image input.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ImageSupport {
    /// Sent as given; a model that cannot see answers with its own error.
    Accepted,
    /// Only models whose name contains one of these fragments.
    ModelsContaining(&'static [&'static str]),
}

/// Which request field carries the output token limit.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MaxTokensField {
    /// `max_tokens` (most compatibles, Anthropic, watsonx).
    MaxTokens,
    /// `max_completion_tokens` (OpenAI and Azure; reasoning models reject `max_tokens`).
    MaxCompletionTokens,
}

/// Which tool call ids a provider takes back in the conversation it is sent.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ToolCallIds {
    /// Any string.
    Any,
    /// At most 40 characters (OpenAI's Chat Completions, Azure's: a longer one is a 400).
    AtMost40,
    /// Exactly 9 of `a-z A-Z 0-9` (Mistral refuses any other id with a 400, so a conversation
    /// begun elsewhere, or ids this loop made up, would fail).
    NineAlphanumeric,
}

/// One provider.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ProviderSpec {
    pub id: &'static str,
    pub display_name: &'static str,
    pub wire: WireFormat,
    pub endpoint: Endpoint,
    /// `None` when the caller must give one (Azure, a generic compatible server).
    pub default_base_url: Option<&'static str>,
    pub default_model: Option<&'static str>,
    pub suggested_models: &'static [&'static str],
    pub api_key: KeyRequirement,
    pub reasoning: Reasoning,
    pub images: ImageSupport,
    /// Accepts `strict: true` function definitions (OpenAI structured outputs).
    pub strict_tools: bool,
    /// Accepts `stream_options: {include_usage: true}`.
    pub stream_usage_option: bool,
    pub max_tokens_field: MaxTokensField,
    pub tool_call_ids: ToolCallIds,
    /// The longest function description it takes, in characters: OpenAI's and Azure's 1 024 (a
    /// longer one is a 400, `string_above_max_length`, and MCP servers often write more).
    pub max_description_chars: Option<usize>,
    /// The most tools one request may offer, where the provider refuses more with a 400 that
    /// would fail every call of a run: OpenAI's and Groq's 128, Gemini's 512 function
    /// declarations. `None` where no limit is known.
    pub max_tools: Option<usize>,
}

impl ProviderSpec {
    pub fn requires_api_key(&self) -> bool {
        self.api_key == KeyRequirement::Required
    }

    /// Whether `model` takes image input, as far as the table knows.
    pub fn accepts_images(&self, model: &str) -> bool {
        match self.images {
            ImageSupport::Accepted => true,
            ImageSupport::ModelsContaining(fragments) => fragments
                .iter()
                .any(|fragment| find_str(model, fragment).is_some()),
        }
    }

    /// Whether `model` writes its reasoning inline as `<think>…</think>` text.
    pub fn splits_think_tags(&self, model: &str) -> bool {
        match self.reasoning {
            Reasoning::ThinkTags { model_prefixes } => model_prefixes
                .iter()
                .any(|prefix| model.starts_with(prefix)),
            _ => false,
        }
    }

    /// Whether `model` reasons in private and returns its reasoning encrypted, to be echoed.
    pub fn returns_encrypted_reasoning(&self, model: &str) -> bool {
        match self.reasoning {
            Reasoning::EncryptedReasoningItems {
                plain_model_prefixes,
            } => !plain_model_prefixes
                .iter()
                .any(|prefix| model.starts_with(prefix)),
            _ => false,
        }
    }

    /// The row as JS sees it through `listProviders()`.
    pub fn listing(&self) -> ProviderListing {
        ProviderListing {
            id: self.id,
            display_name: self.display_name,
            wire: wire_name(self.wire),
            default_base_url: self.default_base_url,
            default_model: self.default_model,
            suggested_models: self.suggested_models,
            requires_api_key: self.requires_api_key(),
            requires_base_url: self.default_base_url.is_none(),
            requires_model: self.default_model.is_none(),
        }
    }
}

/// The public description of a provider (camelCase for JS).
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ProviderListing {
    pub id: &'static str,
    pub display_name: &'static str,
    pub wire: &'static str,
    pub default_base_url: Option<&'static str>,
    pub default_model: Option<&'static str>,
    pub suggested_models: &'static [&'static str],
    pub requires_api_key: bool,
    pub requires_base_url: bool,
    pub requires_model: bool,
}

const OPENAI_STYLE: ProviderSpec = ProviderSpec {
    id: "",
    display_name: "",
    wire: WireFormat::OpenAiChat,
    endpoint: Endpoint::ChatCompletions,
    default_base_url: None,
    default_model: None,
    suggested_models: &[],
    api_key: KeyRequirement::Required,
    reasoning: Reasoning::NotEchoed,
    images: ImageSupport::Accepted,
    strict_tools: false,
    stream_usage_option: false,
    max_tokens_field: MaxTokensField::MaxTokens,
    tool_call_ids: ToolCallIds::Any,
    max_description_chars: None,
    max_tools: None,
};

/// Every provider, in the order a picker shows them. Default models were checked against the
/// vendors' model and deprecation pages on 2026-11-30 (gpt-4o, grok-3, gemini-2.5-flash and
/// deepseek-chat were retired or scheduled for shutdown by then).
pub static PROVIDERS: &[ProviderSpec] = &[
    ProviderSpec {
        id: "openai",
        display_name: "OpenAI",
        default_base_url: Some("https://api.openai.com/v1"),
        default_model: Some("gpt-6.1-sol"),
        suggested_models: &["gpt-6.1-sol", "gpt-6.1-terra", "gpt-6-luna", "gpt-4o"],
        strict_tools: true,
        stream_usage_option: true,
        max_tokens_field: MaxTokensField::MaxCompletionTokens,
        tool_call_ids: ToolCallIds::AtMost40,
        max_description_chars: Some(1024),
        max_tools: Some(128),
        ..OPENAI_STYLE
    },
    ProviderSpec {
        id: "openai_responses",
        display_name: "OpenAI (Responses API)",
        wire: WireFormat::OpenAiResponses,
        endpoint: Endpoint::Responses,
        default_base_url: Some("https://api.openai.com/v1"),
        default_model: Some("gpt-6.1-sol"),
        suggested_models: &["gpt-6.1-sol", "gpt-6.1-terra", "gpt-6-luna", "gpt-4.1"],
        reasoning: Reasoning::EncryptedReasoningItems {
            plain_model_prefixes: &["gpt-4", "gpt-3", "chatgpt", "gpt-5-chat"],
        },
        strict_tools: true,
        tool_call_ids: ToolCallIds::AtMost40,
        max_description_chars: Some(1024),
        max_tools: Some(128),
        ..OPENAI_STYLE
    },
    ProviderSpec {
        id: "anthropic",
        display_name: "Anthropic",
        wire: WireFormat::AnthropicMessages,
        endpoint: Endpoint::AnthropicMessages,
        default_base_url: Some("https://api.anthropic.com"),
        default_model: Some("claude-sonnet-4-5"),
        suggested_models: &["claude-sonnet-4-5", "claude-sonnet-4-6", "claude-haiku-4-5"],
        reasoning: Reasoning::SignedThinkingBlocks,
        ..OPENAI_STYLE
    },
    ProviderSpec {
        id: "google",
        display_name: "Google Gemini",
        wire: WireFormat::Gemini,
        endpoint: Endpoint::GeminiModels,
        default_base_url: Some("https://generativelanguage.googleapis.com/v1beta"),
        default_model: Some("gemini-3.5-flash"),
        suggested_models: &[
            "gemini-3.5-flash",
            "gemini-3.5-flash-lite",
            "gemini-3.8-flash",
            "gemini-2.5-flash-lite",
        ],
        reasoning: Reasoning::ThoughtSignatures,
        max_tools: Some(512),
        ..OPENAI_STYLE
    },
    ProviderSpec {
        id: "deepseek",
        display_name: "DeepSeek",
        default_base_url: Some("https://api.deepseek.com"),
        default_model: Some("deepseek-flash"),
        suggested_models: &[
            "deepseek-flash",
            "deepseek-v4-pro",
            "deepseek-chat",
            "deepseek-reasoner",
        ],
        reasoning: Reasoning::EchoReasoningContent,
        images: ImageSupport::ModelsContaining(&["deepseek-flash"]),
        stream_usage_option: true,
        ..OPENAI_STYLE
    },
    ProviderSpec {
        id: "ollama",
        display_name: "Ollama",
        wire: WireFormat::OllamaNdjson,
        endpoint: Endpoint::OllamaChat,
        default_base_url: Some("http://localhost:11434"),
        default_model: Some("qwen2.5:7b"),
        suggested_models: &["qwen2.5:7b", "llama3.1:8b", "qwen3:8b", "deepseek-r1:14b"],
        api_key: KeyRequirement::Optional,
        reasoning: Reasoning::ThinkTags {
            model_prefixes: &["deepseek-r1"],
        },
        ..OPENAI_STYLE
    },
    ProviderSpec {
        id: "grok",
        display_name: "xAI Grok",
        default_base_url: Some("https://api.x.ai/v1"),
        default_model: Some("grok-4.3"),
        suggested_models: &["grok-4.3", "grok-4.20-non-reasoning", "grok-3-mini"],
        stream_usage_option: true,
        ..OPENAI_STYLE
    },
    ProviderSpec {
        id: "mistral",
        display_name: "Mistral AI",
        default_base_url: Some("https://api.mistral.ai/v1"),
        default_model: Some("mistral-large-latest"),
        suggested_models: &[
            "mistral-large-latest",
            "mistral-medium-latest",
            "mistral-small-latest",
        ],
        tool_call_ids: ToolCallIds::NineAlphanumeric,
        ..OPENAI_STYLE
    },
    ProviderSpec {
        id: "azure_openai",
        display_name: "Azure OpenAI",
        endpoint: Endpoint::AzureDeployment,
        default_model: Some("gpt-4o"),
        suggested_models: &["gpt-4o", "gpt-4o-mini", "gpt-4.1"],
        strict_tools: true,
        stream_usage_option: true,
        max_tokens_field: MaxTokensField::MaxCompletionTokens,
        tool_call_ids: ToolCallIds::AtMost40,
        max_description_chars: Some(1024),
        ..OPENAI_STYLE
    },
    ProviderSpec {
        id: "alibaba",
        display_name: "Alibaba Cloud (DashScope)",
        default_base_url: Some("https://dashscope.aliyuncs.com/compatible-mode/v1"),
        default_model: Some("qwen-plus"),
        suggested_models: &["qwen-plus", "qwen-max", "qwen-turbo", "qwen-vl-max"],
        stream_usage_option: true,
        ..OPENAI_STYLE
    },
    ProviderSpec {
        id: "moonshot",
        display_name: "Moonshot AI (Kimi)",
        default_base_url: Some("https://api.moonshot.cn/v1"),
        default_model: Some("moonshot-v1-32k"),
        suggested_models: &[
            "moonshot-v1-32k",
            "moonshot-v1-128k",
            "moonshot-v1-32k-vision-preview",
            "kimi-k2.6",
        ],
        reasoning: Reasoning::EchoReasoningContent,
        images: ImageSupport::ModelsContaining(&["vision", "kimi-k2.5", "kimi-k2.6"]),
        ..OPENAI_STYLE
    },
    ProviderSpec {
        id: "ibm",
        display_name: "IBM watsonx.ai",
        endpoint: Endpoint::WatsonxChat,
        default_base_url: Some("https://us-south.ml.cloud.ibm.com"),
        default_model: Some("ibm/granite-4-h-small"),
        suggested_models: &[
            "ibm/granite-4-h-small",
            "ibm/granite-3-8b-instruct",
            "meta-llama/llama-3-3-70b-instruct",
        ],
        images: ImageSupport::ModelsContaining(&["vision"]),
        ..OPENAI_STYLE
    },
    ProviderSpec {
        id: "siliconflow",
        display_name: "SiliconFlow",
        default_base_url: Some("https://api.siliconflow.cn/v1"),
        default_model: Some("Qwen/QwQ-32B"),
        suggested_models: &[
            "Qwen/QwQ-32B",
            "deepseek-ai/DeepSeek-V3",
            "Qwen/Qwen2.5-72B-Instruct",
        ],
        ..OPENAI_STYLE
    },
    ProviderSpec {
        id: "modelscope",
        display_name: "ModelScope",
        default_base_url: Some("https://api-inference.modelscope.cn/v1"),
        default_model: Some("Qwen/QwQ-32B"),
        suggested_models: &["Qwen/QwQ-32B", "Qwen/Qwen2.5-72B-Instruct"],
        ..OPENAI_STYLE
    },
    ProviderSpec {
        id: "unbound",
        display_name: "Unbound",
        default_base_url: Some("https://api.getunbound.ai/v1"),
        default_model: Some("gpt-4o-mini"),
        suggested_models: &["gpt-4o-mini", "gpt-4o"],
        stream_usage_option: true,
        ..OPENAI_STYLE
    },
    ProviderSpec {
        id: "openrouter",
        display_name: "OpenRouter",
        default_base_url: Some("https://openrouter.ai/api/v1"),
        default_model: Some("openai/gpt-4o-mini"),
        suggested_models: &[
            "openai/gpt-4o-mini",
            "anthropic/claude-sonnet-4.5",
            "google/gemini-3.5-flash",
        ],
        reasoning: Reasoning::ReasoningDetails,
        stream_usage_option: true,
        ..OPENAI_STYLE
    },
    ProviderSpec {
        id: "groq",
        display_name: "Groq",
        default_base_url: Some("https://api.groq.com/openai/v1"),
        default_model: Some("llama-3.3-70b-versatile"),
        suggested_models: &["llama-3.3-70b-versatile", "llama-3.1-8b-instant"],
        images: ImageSupport::ModelsContaining(&["llama-4", "vision"]),
        stream_usage_option: true,
        max_tools: Some(128),
        ..OPENAI_STYLE
    },
    ProviderSpec {
        id: "openai_compatible",
        display_name: "OpenAI-compatible server",
        api_key: KeyRequirement::Optional,
        ..OPENAI_STYLE
    },
];

/// The row for `id`, if there is one.
pub fn find_provider(id: &str) -> Option<&'static ProviderSpec> {
    PROVIDERS.iter().find(|spec| spec.id == id)
}
