//! Provider dialects: one module per wire dialect, each owning its endpoint and headers, its
//! request body, what it adds to reading answers and errors.
//!
//! | module | providers | endpoint, key header | body |
//! |---|---|---|---|
//! | [`openai`] | OpenAI-compatible servers (OpenAI, Mistral, Ollama's `/v1`, vLLM, llama.cpp) and Azure OpenAI | `{base}/chat/completions`, `authorization: Bearer`; Azure: `{base}/openai/deployments/{model}/chat/completions?api-version=…`, `api-key` | chat completions |
//! | [`anthropic`] | Anthropic Messages API | `{base}/messages`, `x-api-key` + `anthropic-version` | Messages |
//! | [`replay`] | none: recorded answers, in order (tests, demos, goldens) | none | chat completions (recorded in the audit only) |
//!
//! A provider is one file: its endpoint and headers, its request body, its reading of answers
//! ([`Dialect::parse`]) and what it adds to errors. A new provider is one new file implementing
//! [`Dialect`], one [`ProviderKind`] value and its line in [`ProviderKind::dialect`] and
//! [`ProviderKind::parse`]. The chat path asks the provider's dialect to read an answer; only
//! `mcp.parse_llm_response` and the replay dialect (a recording may hold any dialect's answers)
//! recognize a body by its shape ([`crate::parse_llm_response`]).
//!
//! Imports run one way: the dialects use [`dialect`] (the trait and the provider row) and the
//! shared answer pieces (`crate::answer`, `crate::complete`, `crate::error`); this module
//! dispatches to them.

pub mod anthropic;
mod dialect;
pub mod openai;
pub mod replay;

pub use dialect::{Dialect, ProviderConfig, ProviderKind};

use crate::answer::LlmResponse;
use crate::error::ProviderError;
use crate::types::{ChatRequest, ToolDef};
use mcp_audit::Scrubber;
use serde_json::Value;

impl ProviderKind {
    /// The module that speaks this kind's wire dialect.
    pub fn dialect(self) -> &'static dyn Dialect {
        match self {
            ProviderKind::Openai => &openai::OpenAi,
            ProviderKind::Azure => &openai::Azure,
            ProviderKind::Anthropic => &anthropic::Anthropic,
            ProviderKind::Replay => &replay::Replay,
        }
    }
}

impl ProviderConfig {
    /// The endpoint URL for this kind (empty for replay).
    pub fn endpoint(&self) -> String {
        self.kind.dialect().endpoint(self)
    }

    /// The embeddings URL of this provider for `model` (`None`: the kind has no embeddings API).
    pub fn embeddings_endpoint(&self, model: &str) -> Option<String> {
        self.kind.dialect().embeddings_endpoint(self, model)
    }

    /// Headers for this kind, including the key. Only ever handed to `mcp_http` (and to
    /// [`ProviderConfig::scrubber`]).
    pub fn headers(&self) -> Vec<(String, String)> {
        let mut h = vec![("content-type".to_string(), "application/json".to_string())];
        let key = self.api_key.as_deref().map(str::trim).filter(|k| !k.is_empty());
        h.extend(self.kind.dialect().auth_headers(self, key));
        h
    }

    /// Problems that make every request fail (checked before the first request).
    pub fn check(&self) -> Result<(), String> {
        self.kind.dialect().check(self)
    }

    /// The request body of this dialect.
    pub fn body(&self, req: &ChatRequest) -> Value {
        self.kind.dialect().body(req)
    }

    /// This provider's credentials in every form (the one secret scrubber, built from the
    /// endpoint, the headers and the key): applied to every body and message a chat records.
    pub fn scrubber(&self) -> Scrubber {
        let s = Scrubber::for_request(&self.endpoint(), &self.headers());
        match &self.api_key {
            Some(k) => s.with_secret(k),
            None => s,
        }
    }

    /// The answer to a chat request (2xx, or a replayed body). `tools`: the tools the request
    /// offered; tool calls the model wrote as text are checked against them
    /// ([`crate::extract_text_calls`]), the same path as `mcp.parse_llm_response(raw, tools)`; the
    /// shape is the dialect's ([`Dialect::parse`]).
    pub fn parse_response(&self, raw: &str, tools: &[ToolDef]) -> LlmResponse {
        self.kind.dialect().parse(raw, tools)
    }

    /// A non-2xx answer as one [`ProviderError`].
    pub fn normalize_error(&self, status: u16, body: &str, headers: &[(String, String)]) -> ProviderError {
        let hdrs: Vec<(&str, &str)> = headers.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
        self.kind.dialect().normalize_error(self.label(), status, body, &hdrs)
    }
}
