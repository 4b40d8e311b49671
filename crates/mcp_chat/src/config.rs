//! Provider and run configuration.

use mcp_http::Options;
use mcp_llm::ToolChoice;
use serde_json::{Map, Value};
use std::fmt;
use std::time::Duration;

/// Default iteration cap (LLM requests per run, summarization calls not counted).
pub const DEFAULT_MAX_ITERATIONS: u32 = 10;
/// Hard cap: a larger configured value is clamped to this.
pub const MAX_ITERATIONS_HARD_CAP: u32 = 25;
/// Completion reserve when the provider config names none.
pub const DEFAULT_COMPLETION_RESERVE: u32 = 1024;
/// `anthropic-version` header sent to the Messages API.
pub const ANTHROPIC_VERSION: &str = "2023-06-01";
/// Azure `api-version` used when the provider config names none.
pub const DEFAULT_AZURE_API_VERSION: &str = "2024-10-21";

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
            "openai" | "openai-compatible" | "openai_compatible" | "mistral" | "ollama"
            | "vllm" | "llamacpp" | "llama.cpp" => Ok(ProviderKind::Openai),
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
    /// Azure `api-version` (default [`DEFAULT_AZURE_API_VERSION`]).
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
    /// (default [`DEFAULT_COMPLETION_RESERVE`]).
    pub max_completion_tokens: Option<u32>,
    /// Whole-request timeout per attempt; overrides `ChatConfig::http.read_timeout`.
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

    /// The endpoint URL for this kind (empty for replay).
    pub fn endpoint(&self) -> String {
        let base = self.base_url.trim().trim_end_matches('/');
        match self.kind {
            ProviderKind::Openai => format!("{base}/chat/completions"),
            ProviderKind::Azure => format!(
                "{base}/openai/deployments/{}/chat/completions?api-version={}",
                url_segment(&self.model),
                url_segment(
                    self.api_version
                        .as_deref()
                        .unwrap_or(DEFAULT_AZURE_API_VERSION)
                )
            ),
            ProviderKind::Anthropic => format!("{base}/messages"),
            ProviderKind::Replay => String::new(),
        }
    }

    /// Headers for this kind, including the key. Only ever handed to `mcp_http`.
    pub(crate) fn headers(&self) -> Vec<(String, String)> {
        let mut h = vec![("content-type".to_string(), "application/json".to_string())];
        let key = self
            .api_key
            .as_deref()
            .map(str::trim)
            .filter(|k| !k.is_empty());
        match self.kind {
            ProviderKind::Openai => {
                if let Some(k) = key {
                    h.push(("authorization".into(), format!("Bearer {k}")));
                }
            }
            ProviderKind::Azure => {
                if let Some(k) = key {
                    h.push(("api-key".into(), k.to_string()));
                }
            }
            ProviderKind::Anthropic => {
                if let Some(k) = key {
                    h.push(("x-api-key".into(), k.to_string()));
                }
                h.push(("anthropic-version".into(), ANTHROPIC_VERSION.into()));
            }
            ProviderKind::Replay => {}
        }
        h
    }

    /// Problems that make every request fail (checked before the first request).
    pub fn check(&self) -> Result<(), String> {
        if self.kind != ProviderKind::Replay {
            let b = self.base_url.trim();
            if !(b.starts_with("http://") || b.starts_with("https://")) {
                return Err(format!(
                    "provider {}: base_url must start with http:// or https://",
                    self.label()
                ));
            }
        }
        if self.kind == ProviderKind::Azure && self.model.trim().is_empty() {
            return Err(format!(
                "provider {}: azure needs the deployment name as model",
                self.label()
            ));
        }
        Ok(())
    }
}

/// Percent-encode everything but unreserved characters (a deployment name or api-version).
fn url_segment(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for b in s.trim().bytes() {
        if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.' | b'~') {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

/// Everything one `run_chat` needs besides the history, the question and the host.
#[derive(Debug, Clone)]
pub struct ChatConfig {
    pub provider: ProviderConfig,
    /// System prompts, in order (the tool-use strategy belongs here). Sent fresh on every run;
    /// system messages in the passed history are dropped.
    pub system_prompts: Vec<String>,
    /// Tool choice for the first request. `Required` and `Function(_)` switch to `Auto` after
    /// the first request (otherwise the model could never give a final answer).
    pub tool_choice: ToolChoice,
    /// LLM requests per run (default 10, clamped to 1..=[`MAX_ITERATIONS_HARD_CAP`]).
    pub max_iterations: u32,
    /// Budget of prompt + completion tokens over the whole run (summaries included).
    pub max_total_tokens: Option<u64>,
    /// Timeouts, size cap, retry policy for every LLM request.
    pub http: Options,
    /// Skip argument validation in the engine (the host validates in `execute_tool`).
    pub host_validates: bool,
    /// Time budget of the whole run, every LLM request and retry included (issue 11).
    pub deadline: Option<std::time::Duration>,
}

impl ChatConfig {
    pub fn new(provider: ProviderConfig) -> Self {
        ChatConfig {
            provider,
            system_prompts: Vec::new(),
            tool_choice: ToolChoice::Auto,
            max_iterations: DEFAULT_MAX_ITERATIONS,
            max_total_tokens: None,
            http: Options::default(),
            host_validates: false,
            deadline: None,
        }
    }

    /// The iteration cap actually applied.
    pub fn effective_max_iterations(&self) -> u32 {
        self.max_iterations.clamp(1, MAX_ITERATIONS_HARD_CAP)
    }
}
