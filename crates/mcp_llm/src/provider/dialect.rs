//! What a provider dialect is given and what it decides: the [`Dialect`] trait, the provider
//! row ([`ProviderConfig`]) and its kind ([`ProviderKind`]). Which module speaks which kind is
//! decided in [`crate::provider`] ([`ProviderKind::dialect`]); the dialects depend on this
//! module only, never on each other's dispatch.

use crate::answer::LlmResponse;
use crate::error::ProviderError;
use crate::types::{ChatRequest, ToolDef};
use serde_json::{Map, Value};
use std::fmt;
use std::time::Duration;

/// What one wire dialect decides. Everything else (retries, timeouts, scrubbing, repair) is
/// shared.
pub trait Dialect: Sync {
    /// The URL a request is POSTed to (empty when nothing is sent over HTTP).
    fn endpoint(&self, p: &ProviderConfig) -> String;
    /// Headers after `content-type`, the key included (`key` is trimmed and non-empty).
    fn auth_headers(&self, p: &ProviderConfig, key: Option<&str>) -> Vec<(String, String)>;
    /// The URL of the OpenAI-format embeddings endpoint for `model` (a deployment on Azure);
    /// `None` when the dialect has none.
    fn embeddings_endpoint(&self, _p: &ProviderConfig, _model: &str) -> Option<String> {
        None
    }
    /// The request body.
    fn body(&self, req: &ChatRequest) -> Value;
    /// A 2xx answer (or a replayed body) as one [`LlmResponse`]: the dialect's own shape, an
    /// error object in the body, or `invalid_response`; then the steps every parse shares (tool
    /// calls written as text, checked against `tools`; U+0000). Never panics.
    fn parse(&self, raw: &str, tools: &[ToolDef]) -> LlmResponse;
    /// Problems that make every request fail (checked before the first request).
    fn check(&self, p: &ProviderConfig) -> Result<(), String> {
        let b = p.base_url.trim();
        if !(b.starts_with("http://") || b.starts_with("https://")) {
            return Err(format!(
                "provider {}: base_url must start with http:// or https://",
                p.label()
            ));
        }
        Ok(())
    }
    /// A non-2xx answer as one [`ProviderError`] (the shared normalization reads every known
    /// error body; the dialect adds what its headers say about waiting).
    fn normalize_error(&self, label: &str, status: u16, body: &str, headers: &[(&str, &str)]) -> ProviderError {
        crate::error::normalize_error_with_retry(
            label,
            Some(status),
            body,
            mcp_http::retry_after(headers, std::time::SystemTime::now()).map(|d| d.as_secs_f64()),
        )
    }
}

/// Wire dialect / transport of a provider row.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum ProviderKind {
    /// Any OpenAI-compatible chat-completions server (OpenAI, Mistral, Ollama, vLLM, llama.cpp).
    #[default]
    Openai,
    /// Azure OpenAI (deployment URL, `api-version`, `api-key` header).
    Azure,
    /// Anthropic Messages API.
    Anthropic,
    /// No HTTP: answers come from recorded raw response bodies, in order.
    Replay,
}

impl ProviderKind {
    pub fn as_str(self) -> &'static str {
        match self {
            ProviderKind::Openai => "openai",
            ProviderKind::Azure => "azure",
            ProviderKind::Anthropic => "anthropic",
            ProviderKind::Replay => "replay",
        }
    }

    /// `openai` | `azure` | `anthropic` | `replay` (case-insensitive; `mistral`, `ollama`,
    /// `vllm`, `llamacpp`, `openai-compatible` are read as `openai`).
    pub fn parse(s: &str) -> Result<ProviderKind, String> {
        match s.trim().to_ascii_lowercase().as_str() {
            "openai" | "openai-compatible" | "openai_compatible" | "mistral" | "ollama" | "vllm" | "llamacpp"
            | "llama.cpp" => Ok(ProviderKind::Openai),
            "azure" | "azure-openai" | "azure_openai" => Ok(ProviderKind::Azure),
            "anthropic" => Ok(ProviderKind::Anthropic),
            "replay" => Ok(ProviderKind::Replay),
            other => Err(format!(
                "unknown provider kind {:?}: expected openai, azure, anthropic or replay",
                other.chars().take(40).collect::<String>()
            )),
        }
    }

    /// The Anthropic wire format (everything else speaks chat completions).
    pub fn is_anthropic(self) -> bool {
        self == ProviderKind::Anthropic
    }
}

/// One LLM provider (a row of `mcp.provider` plus its key). `Debug` never shows the key.
#[derive(Clone, Default)]
pub struct ProviderConfig {
    pub kind: ProviderKind,
    /// Label used in errors and audit (`provider.name`); defaults to the kind.
    pub name: String,
    /// openai: `https://api.openai.com/v1` (the path `/chat/completions` is appended);
    /// azure: `https://RESOURCE.openai.azure.com`; anthropic: `https://api.anthropic.com/v1`.
    pub base_url: String,
    /// Model name; for Azure the deployment name.
    pub model: String,
    /// Azure `api-version` (default [`openai::DEFAULT_AZURE_API_VERSION`]).
    pub api_version: Option<String>,
    /// Never logged, never in a body, an error or an audit record: it only travels in a header.
    pub api_key: Option<String>,
    /// Extra body fields (`temperature`, `top_p`, `parallel_tool_calls`, …). They never replace
    /// `model`, `messages`, `system`, `tools`, `tool_choice`.
    pub options: Map<String, Value>,
    /// Context window in tokens (input + output). `None`: the known window of the model name
    /// (`mcp_llm::context_window`); when that is unknown too, no context management is done.
    pub context_window: Option<usize>,
    /// Completion tokens requested (`max_tokens`) and reserved in the window
    /// (default `mcp_chat::DEFAULT_COMPLETION_RESERVE`).
    pub max_completion_tokens: Option<u32>,
    /// Whole-request timeout per attempt; overrides the chat's HTTP read timeout.
    pub timeout: Option<Duration>,
    /// Replay only: recorded raw response bodies, served in order.
    pub replay: Vec<String>,
}

impl fmt::Debug for ProviderConfig {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ProviderConfig")
            .field("kind", &self.kind)
            .field("name", &self.name)
            .field("base_url", &mcp_http::redact_url(&self.base_url))
            .field("model", &self.model)
            .field("api_version", &self.api_version)
            .field("api_key", &self.api_key.as_ref().map(|_| "[set]"))
            .field("options", &self.options.keys().collect::<Vec<_>>())
            .field("context_window", &self.context_window)
            .field("max_completion_tokens", &self.max_completion_tokens)
            .field("timeout", &self.timeout)
            .field("replay", &self.replay.len())
            .finish()
    }
}

impl ProviderConfig {
    pub fn new(kind: ProviderKind, base_url: impl Into<String>, model: impl Into<String>) -> Self {
        ProviderConfig {
            kind,
            name: kind.as_str().to_string(),
            base_url: base_url.into(),
            model: model.into(),
            ..Default::default()
        }
    }

    /// A replay provider answering from `bodies` in order.
    pub fn replay(model: impl Into<String>, bodies: Vec<String>) -> Self {
        ProviderConfig {
            replay: bodies,
            ..ProviderConfig::new(ProviderKind::Replay, "", model)
        }
    }

    pub fn with_key(mut self, key: impl Into<String>) -> Self {
        self.api_key = Some(key.into());
        self
    }

    /// Label for errors and audit.
    pub fn label(&self) -> &str {
        if self.name.trim().is_empty() {
            self.kind.as_str()
        } else {
            &self.name
        }
    }
}

/// Keys the body builders own; `extra` never replaces them.
const RESERVED: &[&str] = &["model", "messages", "system", "tools", "tool_choice"];

/// Add the provider's extra body fields (`temperature`, `top_p`, …) except the reserved keys.
pub(crate) fn merge_extra(body: &mut Map<String, Value>, extra: &Map<String, Value>) {
    for (k, v) in extra {
        if RESERVED.contains(&k.as_str()) {
            continue;
        }
        body.insert(k.clone(), v.clone());
    }
}
