#![cfg(not(target_arch = "wasm32"))]
//! Every provider id in the table: URL and auth header shape, settings validation, and the
//! public listing. Table-driven: one row per provider.

use std::collections::BTreeSet;

use mcp_agent_wasm::core::message::{ChatMessage, Role};
use mcp_agent_wasm::core::provider::{
    ProviderConfig, ProviderError, ResolvedProvider, ResponseMode, WireFormat, PROVIDERS,
};

const KEY: &str = "sk-test-SECRET-0123456789";
const IBM_TOKEN: &str = "iam-token-SECRET-abcdef";

struct Row {
    id: &'static str,
    base_url: Option<&'static str>,
    model: Option<&'static str>,
    streaming_url: &'static str,
    whole_url: &'static str,
    auth_header: &'static str,
    auth_value: String,
    wire: WireFormat,
}

fn bearer(secret: &str) -> String {
    format!("Bearer {secret}")
}

fn rows() -> Vec<Row> {
    let openai_style = |id, streaming_url: &'static str| Row {
        id,
        base_url: None,
        model: None,
        streaming_url,
        whole_url: streaming_url,
        auth_header: "authorization",
        auth_value: bearer(KEY),
        wire: WireFormat::OpenAiChat,
    };
    vec![
        openai_style("openai", "https://api.openai.com/v1/chat/completions"),
        Row {
            wire: WireFormat::OpenAiResponses,
            ..openai_style("openai_responses", "https://api.openai.com/v1/responses")
        },
        Row {
            id: "anthropic",
            base_url: None,
            model: None,
            streaming_url: "https://api.anthropic.com/v1/messages",
            whole_url: "https://api.anthropic.com/v1/messages",
            auth_header: "x-api-key",
            auth_value: KEY.to_owned(),
            wire: WireFormat::AnthropicMessages,
        },
        Row {
            id: "google",
            base_url: None,
            model: None,
            streaming_url: "https://generativelanguage.googleapis.com/v1beta/models/gemini-3.5-flash:streamGenerateContent?alt=sse",
            whole_url: "https://generativelanguage.googleapis.com/v1beta/models/gemini-3.5-flash:generateContent",
            auth_header: "x-goog-api-key",
            auth_value: KEY.to_owned(),
            wire: WireFormat::Gemini,
        },
        openai_style("deepseek", "https://api.deepseek.com/chat/completions"),
        Row {
            id: "ollama",
            base_url: None,
            model: None,
            streaming_url: "http://localhost:11434/api/chat",
            whole_url: "http://localhost:11434/api/chat",
            auth_header: "authorization",
            auth_value: bearer(KEY),
            wire: WireFormat::OllamaNdjson,
        },
        openai_style("grok", "https://api.x.ai/v1/chat/completions"),
        openai_style("mistral", "https://api.mistral.ai/v1/chat/completions"),
        Row {
            id: "azure_openai",
            base_url: Some("https://my-resource.openai.azure.com/"),
            model: None,
            streaming_url: "https://my-resource.openai.azure.com/openai/deployments/gpt-4o/chat/completions?api-version=2024-10-21",
            whole_url: "https://my-resource.openai.azure.com/openai/deployments/gpt-4o/chat/completions?api-version=2024-10-21",
            auth_header: "api-key",
            auth_value: KEY.to_owned(),
            wire: WireFormat::OpenAiChat,
        },
        openai_style(
            "alibaba",
            "https://dashscope.aliyuncs.com/compatible-mode/v1/chat/completions",
        ),
        openai_style("moonshot", "https://api.moonshot.cn/v1/chat/completions"),
        Row {
            id: "ibm",
            base_url: None,
            model: None,
            streaming_url: "https://us-south.ml.cloud.ibm.com/ml/v1/text/chat_stream?version=2025-02-11",
            whole_url: "https://us-south.ml.cloud.ibm.com/ml/v1/text/chat?version=2025-02-11",
            auth_header: "authorization",
            auth_value: bearer(IBM_TOKEN),
            wire: WireFormat::OpenAiChat,
        },
        openai_style("siliconflow", "https://api.siliconflow.cn/v1/chat/completions"),
        openai_style(
            "modelscope",
            "https://api-inference.modelscope.cn/v1/chat/completions",
        ),
        openai_style("unbound", "https://api.getunbound.ai/v1/chat/completions"),
        openai_style("openrouter", "https://openrouter.ai/api/v1/chat/completions"),
        openai_style("groq", "https://api.groq.com/openai/v1/chat/completions"),
        Row {
            base_url: Some("http://127.0.0.1:1234/v1"),
            model: Some("local-model"),
            ..openai_style(
                "openai_compatible",
                "http://127.0.0.1:1234/v1/chat/completions",
            )
        },
    ]
}

fn config(row: &Row) -> ProviderConfig {
    ProviderConfig {
        id: row.id.to_owned(),
        api_key: Some(KEY.to_owned()),
        base_url: row.base_url.map(str::to_owned),
        model: row.model.map(str::to_owned),
        project_id: Some("project-42".to_owned()),
        ..ProviderConfig::default()
    }
}

fn resolve(row: &Row) -> ResolvedProvider {
    let resolved = config(row).resolve().expect("row config is complete");
    if row.id == "ibm" {
        resolved.with_access_token(IBM_TOKEN)
    } else {
        resolved
    }
}

fn conversation() -> Vec<ChatMessage> {
    vec![ChatMessage::text(Role::User, "hello")]
}

#[test]
fn the_rows_cover_every_provider_in_the_table() {
    let table: BTreeSet<&str> = PROVIDERS.iter().map(|spec| spec.id).collect();
    let covered: BTreeSet<&str> = rows().iter().map(|row| row.id).collect();
    assert_eq!(table, covered);
    assert_eq!(PROVIDERS.len(), 18);
}

/// The hand-written TypeScript `ProviderId` (src/web/types.rs) names every id of the table and
/// nothing else: `tsc` then catches a misspelt provider, and a new provider cannot be forgotten.
#[test]
fn the_typescript_provider_id_union_is_the_table() {
    let types = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/src/web/types.rs"))
        .expect("src/web/types.rs");
    let start = types
        .find("export type ProviderId =")
        .expect("ProviderId in types.rs");
    let union = &types[start..start + types[start..].find(';').expect("end of the union")];
    let declared: BTreeSet<&str> = union.split('"').skip(1).step_by(2).collect();
    let table: BTreeSet<&str> = PROVIDERS.iter().map(|spec| spec.id).collect();
    assert_eq!(declared, table);
}

#[test]
fn each_provider_builds_its_url_and_auth_header() {
    for row in rows() {
        let provider = resolve(&row);
        assert_eq!(provider.spec.wire, row.wire, "{}", row.id);
        for (mode, expected_url) in [
            (ResponseMode::Streaming, row.streaming_url),
            (ResponseMode::Whole, row.whole_url),
        ] {
            let built = provider
                .chat_request(&conversation(), &[], mode)
                .unwrap_or_else(|error| panic!("{}: {error}", row.id));
            let request = built.request;
            assert_eq!(request.method, "POST", "{}", row.id);
            assert_eq!(request.url, expected_url, "{} {mode:?}", row.id);
            assert_eq!(
                request.header(row.auth_header),
                Some(row.auth_value.as_str()),
                "{}",
                row.id
            );
            assert_eq!(
                request.header("content-type"),
                Some("application/json"),
                "{}",
                row.id
            );
        }
    }
}

#[test]
fn the_key_goes_only_into_the_auth_header() {
    for row in rows() {
        let request = resolve(&row)
            .chat_request(&conversation(), &[], ResponseMode::Streaming)
            .expect("builds")
            .request;
        assert!(!request.url.contains(KEY), "{}: key in URL", row.id);
        assert!(!request.body.contains(KEY), "{}: key in body", row.id);
        let carrying: Vec<&str> = request
            .headers
            .iter()
            .filter(|(_, value)| value.contains(KEY))
            .map(|(name, _)| name.as_str())
            .collect();
        // watsonx sends the exchanged token, never the key itself.
        let expected: Vec<&str> = if row.id == "ibm" {
            vec![]
        } else {
            vec![row.auth_header]
        };
        assert_eq!(carrying, expected, "{}", row.id);
        assert!(
            !format!("{request:?}").contains(KEY),
            "{}: key in Debug",
            row.id
        );
    }
}

#[test]
fn anthropic_sends_the_browser_access_headers() {
    let row = rows()
        .into_iter()
        .find(|row| row.id == "anthropic")
        .unwrap();
    let request = resolve(&row)
        .chat_request(&conversation(), &[], ResponseMode::Streaming)
        .unwrap()
        .request;
    assert_eq!(request.header("anthropic-version"), Some("2023-06-01"));
    assert_eq!(
        request.header("anthropic-dangerous-direct-browser-access"),
        Some("true")
    );
}

#[test]
fn a_missing_key_is_a_specific_error_before_any_request_exists() {
    for spec in PROVIDERS {
        let config = ProviderConfig {
            id: spec.id.to_owned(),
            api_key: Some("   ".to_owned()),
            base_url: Some("http://127.0.0.1:9/v1".to_owned()),
            model: Some("some-model".to_owned()),
            project_id: Some("project-42".to_owned()),
            ..ProviderConfig::default()
        };
        let outcome = config.resolve();
        if spec.requires_api_key() {
            let error = outcome.expect_err(spec.id);
            assert_eq!(
                error,
                ProviderError::MissingApiKey {
                    provider: spec.id.to_owned()
                }
            );
            assert_eq!(error.code(), "provider_missing_api_key");
            let message = error.to_string();
            assert!(
                message.contains(spec.id) && message.contains("apiKey"),
                "{message}"
            );
        } else {
            let provider = outcome.expect(spec.id);
            let request = provider
                .chat_request(&conversation(), &[], ResponseMode::Streaming)
                .unwrap()
                .request;
            assert_eq!(request.header("authorization"), None, "{}", spec.id);
        }
    }
    let keyless: Vec<&str> = PROVIDERS
        .iter()
        .filter(|spec| !spec.requires_api_key())
        .map(|spec| spec.id)
        .collect();
    assert_eq!(keyless, ["ollama", "openai_compatible"]);
}

#[test]
fn missing_settings_name_the_provider_and_the_field() {
    let cases: [(ProviderConfig, ProviderError, &str); 5] = [
        (
            ProviderConfig {
                id: "azure_openai".into(),
                api_key: Some(KEY.into()),
                ..ProviderConfig::default()
            },
            ProviderError::MissingBaseUrl {
                provider: "azure_openai".into(),
            },
            "provider_missing_base_url",
        ),
        (
            ProviderConfig {
                id: "openai_compatible".into(),
                base_url: Some("http://127.0.0.1:1234/v1".into()),
                ..ProviderConfig::default()
            },
            ProviderError::MissingModel {
                provider: "openai_compatible".into(),
            },
            "provider_missing_model",
        ),
        (
            ProviderConfig {
                id: "openai_compatible".into(),
                model: Some("m".into()),
                ..ProviderConfig::default()
            },
            ProviderError::MissingBaseUrl {
                provider: "openai_compatible".into(),
            },
            "provider_missing_base_url",
        ),
        (
            ProviderConfig {
                id: "ibm".into(),
                api_key: Some(KEY.into()),
                ..ProviderConfig::default()
            },
            ProviderError::MissingSetting {
                provider: "ibm".into(),
                field: "projectId",
            },
            "provider_missing_setting",
        ),
        (
            ProviderConfig {
                id: "openia".into(),
                api_key: Some(KEY.into()),
                ..ProviderConfig::default()
            },
            ProviderError::Unknown {
                id: "openia".into(),
            },
            "provider_unknown",
        ),
    ];
    for (config, expected, code) in cases {
        let error = config.resolve().expect_err(&config.id);
        assert_eq!(error, expected);
        assert_eq!(error.code(), code);
    }
}

#[test]
fn watsonx_needs_the_token_exchange_first() {
    let row = rows().into_iter().find(|row| row.id == "ibm").unwrap();
    let provider = config(&row).resolve().unwrap();
    let error = provider
        .chat_request(&conversation(), &[], ResponseMode::Streaming)
        .expect_err("no token yet");
    assert_eq!(error.code(), "provider_access_token_required");

    let exchange = provider.token_request().expect("ibm exchanges its key");
    assert_eq!(exchange.url, "https://iam.cloud.ibm.com/identity/token");
    assert_eq!(
        exchange.header("content-type"),
        Some("application/x-www-form-urlencoded")
    );
    assert_eq!(
        exchange.body,
        format!("grant_type=urn%3Aibm%3Aparams%3Aoauth%3Agrant-type%3Aapikey&apikey={KEY}")
    );
    let token = provider
        .parse_token_response(r#"{"access_token":"abc","refresh_token":"not_supported","token_type":"Bearer","expires_in":3600,"expiration":1700000000}"#)
        .unwrap();
    assert_eq!(token.access_token, "abc");
    assert_eq!(token.expires_in, Some(3600));
    for refused in [
        r#"{"errorCode":"BXNIM0415E"}"#,
        r#"{"access_token":""}"#,
        r#"{"access_token":42}"#,
        "not json",
    ] {
        assert_eq!(
            provider.parse_token_response(refused).unwrap_err().code(),
            "provider_invalid_response",
            "{refused}"
        );
    }
    let without_lifetime = provider
        .parse_token_response(r#"{"access_token":"xyz","expires_in":"soon"}"#)
        .unwrap();
    assert_eq!(without_lifetime.access_token, "xyz");
    assert_eq!(without_lifetime.expires_in, None);

    let others_exchanging: Vec<&str> = rows()
        .iter()
        .filter(|row| resolve(row).token_request().is_some())
        .map(|row| row.id)
        .collect();
    assert_eq!(others_exchanging, ["ibm"]);
}

/// The token exchange's form body writes each byte outside `A-Za-z0-9-_.~` as `%XX` in uppercase
/// hex (RFC 3986 §2.1, the WHATWG form encoding apart from spaces), a multi-byte character byte
/// by byte: the percent-encoding is written by hand.
#[test]
fn the_token_exchange_form_encodes_each_byte_of_the_key() {
    let row = rows().into_iter().find(|row| row.id == "ibm").unwrap();
    let mut settings = config(&row);
    settings.api_key = Some("a b+\u{e9}/~-_.Z9\u{7f}".to_owned());
    let exchange = settings.resolve().unwrap().token_request().unwrap();
    assert!(
        exchange
            .body
            .ends_with("&apikey=a%20b%2B%C3%A9%2F~-_.Z9%7F"),
        "{}",
        exchange.body
    );
}

#[test]
fn the_listing_is_what_js_gets_from_list_providers() {
    let listing: Vec<serde_json::Value> = PROVIDERS
        .iter()
        .map(|spec| serde_json::to_value(spec.listing()).unwrap())
        .collect();
    let azure = listing
        .iter()
        .find(|row| row["id"] == "azure_openai")
        .unwrap();
    assert_eq!(
        azure,
        &serde_json::json!({
            "id": "azure_openai",
            "displayName": "Azure OpenAI",
            "wire": "openAiChat",
            "defaultBaseUrl": null,
            "defaultModel": "gpt-4o",
            "suggestedModels": ["gpt-4o", "gpt-4o-mini", "gpt-4.1"],
            "requiresApiKey": true,
            "requiresBaseUrl": true,
            "requiresModel": false,
        })
    );
    for (row, spec) in listing.iter().zip(PROVIDERS) {
        // Every default model is among the suggestions, so a picker can preselect it.
        if let Some(model) = spec.default_model {
            assert!(spec.suggested_models.contains(&model), "{}", spec.id);
        }
        assert_eq!(row["requiresApiKey"], spec.requires_api_key());
        // Only Ollama's local default is plain http.
        if let Some(url) = spec.default_base_url {
            assert_eq!(
                url.starts_with("https://"),
                spec.id != "ollama",
                "{}",
                spec.id
            );
        }
    }
}

#[test]
fn model_dependent_capabilities_come_from_the_table() {
    let spec = |id: &str| PROVIDERS.iter().find(|spec| spec.id == id).unwrap();
    let cases = [
        ("ollama", "deepseek-r1:14b", true),
        ("ollama", "qwen2.5:7b", false),
        ("deepseek", "deepseek-reasoner", false),
    ];
    for (id, model, splits) in cases {
        assert_eq!(spec(id).splits_think_tags(model), splits, "{id} {model}");
    }
    // Non-reasoning models refuse `include: ["reasoning.encrypted_content"]` with a 400.
    let encrypted_reasoning = [
        ("openai_responses", "gpt-6.1-sol", true),
        ("openai_responses", "o4-mini", true),
        ("openai_responses", "gpt-4.1", false),
        ("openai_responses", "gpt-4o-mini", false),
        ("openai_responses", "gpt-5-chat-latest", false),
        ("openai", "gpt-6.1-sol", false),
    ];
    for (id, model, returned) in encrypted_reasoning {
        let spec = spec(id);
        assert_eq!(
            spec.returns_encrypted_reasoning(model),
            returned,
            "{id} {model}"
        );
    }
    for (id, model, split) in [
        ("ollama", "deepseek-r1:14b", true),
        ("ollama", "qwen2.5:7b", false),
    ] {
        let provider = ProviderConfig {
            id: id.into(),
            model: Some(model.into()),
            ..ProviderConfig::default()
        }
        .resolve()
        .unwrap();
        let (wire, options) = provider.decoder_options();
        assert_eq!(wire, WireFormat::OllamaNdjson);
        assert_eq!(options.split_think_tags, split, "{model}");
    }
    let images = [
        ("openai", "gpt-4o", true),
        ("deepseek", "deepseek-flash", true),
        ("deepseek", "deepseek-v4-pro", false),
        ("moonshot", "moonshot-v1-32k", false),
        ("moonshot", "moonshot-v1-32k-vision-preview", true),
        ("groq", "llama-3.3-70b-versatile", false),
        ("ollama", "llava:7b", true),
    ];
    for (id, model, accepts) in images {
        assert_eq!(spec(id).accepts_images(model), accepts, "{id} {model}");
    }
}

/// A base URL `fetch` would read relative to the page (no scheme), or could not fetch at all, is
/// refused when the Agent is made: it went to the page's own server with the key, and the 404
/// there read as "has no model".
#[test]
fn a_base_url_or_iam_url_that_is_not_an_absolute_http_url_is_refused() {
    let with_urls = |id: &str, base_url: &str, iam_url: Option<&str>| ProviderConfig {
        id: id.into(),
        api_key: Some(KEY.into()),
        model: Some("m".into()),
        base_url: Some(base_url.into()),
        project_id: Some("p".into()),
        iam_url: iam_url.map(str::to_owned),
        ..ProviderConfig::default()
    };
    let refused = [
        (
            with_urls("openai_compatible", "api.example.com/v1", None),
            "`baseUrl` `api.example.com/v1` is not an absolute http(s) URL",
        ),
        (
            with_urls("openai_compatible", "http://", None),
            "`baseUrl` `http://` is not an absolute http(s) URL",
        ),
        (
            with_urls("openai", "ftp://example.com/v1", None),
            "`baseUrl` `ftp://example.com/v1` is not an absolute http(s) URL",
        ),
        (
            with_urls("openai", "https://user:pw@example.com/v1", None),
            "`baseUrl` holds a user name or password",
        ),
        (
            with_urls(
                "ibm",
                "https://us-south.ml.cloud.ibm.com",
                Some("iam.example.com/token"),
            ),
            "`iamUrl` `iam.example.com/token` is not an absolute http(s) URL",
        ),
        // Browsers read `/\\host` as `//host`: another server, not a path of the page's own.
        (
            with_urls("openai_compatible", "/\\evil.example/v1", None),
            "`baseUrl` `/\\evil.example/v1` is not an absolute http(s) URL",
        ),
        (
            with_urls("openai_compatible", "//evil.example/v1", None),
            "`baseUrl` `//evil.example/v1` is not an absolute http(s) URL",
        ),
        // The path each request adds, given in the base URL too (as many vendors' docs show
        // the whole endpoint): requests went to it twice, and the 404 read as a missing model.
        (
            with_urls(
                "openai",
                "https://api.example.com/v1/chat/completions/",
                None,
            ),
            "`baseUrl` ends with `/chat/completions`, which each request adds: leave it out",
        ),
        (
            with_urls("anthropic", "https://proxy.example.com/v1/messages", None),
            "`baseUrl` ends with `/v1/messages`, which each request adds: leave it out",
        ),
        (
            with_urls("ollama", "http://localhost:11434/api/chat", None),
            "`baseUrl` ends with `/api/chat`, which each request adds: leave it out",
        ),
        (
            with_urls(
                "openai_responses",
                "https://api.openai.com/v1/responses",
                None,
            ),
            "`baseUrl` ends with `/responses`, which each request adds: leave it out",
        ),
    ];
    for (config, message) in refused {
        let error = config.resolve().expect_err(message);
        assert_eq!(error.code(), "provider_invalid_url", "{error}");
        assert_eq!(
            error.to_string(),
            format!("provider `{}`: {message}", config.id)
        );
    }
    for base_url in [
        "http://localhost:11434",
        "https://api.example.com/v1/",
        "https://api.example.com/api/chat",
        "HTTPS://API.EXAMPLE.COM/v1",
    ] {
        with_urls("openai_compatible", base_url, None)
            .resolve()
            .expect(base_url);
    }
}

/// A path from the root of the page's own origin is what an app's own proxy or token exchange
/// looks like (watsonx needs one for `iamUrl`: IBM's IAM sends no CORS headers); `fetch` takes
/// it as meant, in a page and in a worker alike.
#[test]
fn a_path_on_the_page_origin_is_taken_as_base_url_or_iam_url() {
    let config = ProviderConfig {
        id: "ibm".into(),
        api_key: Some(KEY.into()),
        model: Some("m".into()),
        base_url: Some("/watsonx".into()),
        project_id: Some("p".into()),
        iam_url: Some("/identity/token".into()),
        ..ProviderConfig::default()
    };
    let resolved = config.resolve().expect("paths on the page's origin");
    assert_eq!(resolved.base_url, "/watsonx");
    assert_eq!(resolved.iam_url.as_deref(), Some("/identity/token"));
}

/// A key or header `fetch` refuses made every request reject with a `TypeError`, reported as
/// `provider_network` after two retries; it is refused when the settings are read, with the
/// field or header and the character's position, never the key.
#[test]
fn a_key_or_header_fetch_cannot_send_is_refused_with_its_position() {
    let with = |id: &str, api_key: &str, headers: &[(&str, &str)]| ProviderConfig {
        id: id.into(),
        api_key: Some(api_key.into()),
        model: Some("m".into()),
        base_url: Some("https://api.example.com/v1".into()),
        headers: Some(
            headers
                .iter()
                .map(|(name, value)| ((*name).to_owned(), (*value).to_owned()))
                .collect(),
        ),
        ..ProviderConfig::default()
    };
    let value_problem = "cannot be sent in a header";
    let refused = [
        (
            with("openai", "sk-\u{201c}SECRET", &[]),
            format!("`apiKey`: character 4 {value_problem}"),
        ),
        (
            with("anthropic", "  sk-SEC\nRET ", &[]),
            format!("`apiKey`: character 9 {value_problem}"),
        ),
        (
            with("google", "sk-SECRET-\u{43a}", &[]),
            format!("`apiKey`: character 11 {value_problem}"),
        ),
        (
            with("azure_openai", "sk\0SECRET", &[]),
            format!("`apiKey`: character 3 {value_problem}"),
        ),
        (
            with("openai", KEY, &[("x-proxy-token", "tok\u{2019}SECRET")]),
            format!("header `x-proxy-token`: character 4 {value_problem}"),
        ),
        (
            with("openai", KEY, &[("x-ok", "fine"), ("X Proxy", "v")]),
            format!("header name `X Proxy`: character 2 {value_problem}"),
        ),
        (
            with("openai", KEY, &[("", "v")]),
            format!("header name ``: character 1 {value_problem}"),
        ),
    ];
    for (config, message) in refused {
        let error = config.resolve().expect_err(&message);
        assert_eq!(error.code(), "provider_invalid_header", "{error}");
        assert_eq!(
            error.to_string(),
            format!("provider `{}`: {message}", config.id)
        );
        assert!(!error.to_string().contains("SECRET"), "{error}");
    }
    // What fetch takes: whitespace around (stripped), Latin-1, other controls; watsonx sends
    // its key in a form body, where any character goes.
    let accepted = [
        with(
            "openai",
            " \tsk-key\r\n",
            &[("x-note", "\t caf\u{e9} \u{b}\u{7f} \r\n")],
        ),
        with("openai", "sk-key", &[("X-Weird_Name.!#$%&'*+^`|~0", "")]),
        with("ollama", "sk-\u{e9}\u{ff}", &[]),
        // The library trims the key's end, an ideographic space too.
        with("openai", "sk-key\u{3000}", &[]),
        ProviderConfig {
            project_id: Some("p".into()),
            ..with("ibm", "key\u{201c}\nwith anything", &[])
        },
    ];
    for config in accepted {
        config.resolve().expect("fetch takes these");
    }
}
