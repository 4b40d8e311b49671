//! Typed chat messages: the single source of truth the chat loop works with.
//!
//! These types carry no wire format of their own beyond a plain serde shape (used for storing a
//! history as jsonb); [`crate::openai_body`] and [`crate::anthropic_body`] render them for a
//! provider, and [`crate::parse_llm_response`] turns a provider's answer back into them.

use mcp_audit::clip_chars;
use serde::{Deserialize, Serialize};
use serde_json::{json, Map, Value};

/// Author of a chat message.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    /// System prompt (OpenAI's newer `developer` role is read as `system`).
    #[serde(alias = "developer")]
    System,
    User,
    Assistant,
    /// A tool result, answering one tool call by `tool_call_id`.
    Tool,
}

impl Role {
    pub fn as_str(self) -> &'static str {
        match self {
            Role::System => "system",
            Role::User => "user",
            Role::Assistant => "assistant",
            Role::Tool => "tool",
        }
    }
}

/// One tool call requested by the model. `arguments` is the decoded JSON object.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolCall {
    pub id: String,
    pub name: String,
    #[serde(default = "empty_object")]
    pub arguments: Value,
}

fn empty_object() -> Value {
    Value::Object(Map::new())
}

impl ToolCall {
    pub fn new(id: impl Into<String>, name: impl Into<String>, arguments: Value) -> Self {
        ToolCall {
            id: id.into(),
            name: name.into(),
            arguments,
        }
    }

    /// The arguments as the JSON text OpenAI-compatible APIs expect (`"{\"a\":1}"`).
    /// A string value is passed through unchanged (it already is the text).
    pub fn arguments_string(&self) -> String {
        match &self.arguments {
            Value::String(s) => s.clone(),
            Value::Null => "{}".to_string(),
            v => v.to_string(),
        }
    }

    /// The arguments as a JSON object (Anthropic's `input` must be an object).
    pub fn arguments_object(&self) -> Value {
        match &self.arguments {
            Value::Object(_) => self.arguments.clone(),
            Value::String(s) => match serde_json::from_str::<Value>(s) {
                Ok(v @ Value::Object(_)) => v,
                _ => empty_object(),
            },
            _ => empty_object(),
        }
    }
}

/// One chat message.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Message {
    pub role: Role,
    #[serde(default)]
    pub content: Option<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tool_calls: Vec<ToolCall>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_call_id: Option<String>,
    /// For `tool` messages: the tool's name (kept for Anthropic/auditing; not sent to OpenAI).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
}

impl Message {
    fn plain(role: Role, content: impl Into<String>) -> Self {
        Message {
            role,
            content: Some(content.into()),
            tool_calls: Vec::new(),
            tool_call_id: None,
            name: None,
        }
    }

    pub fn system(content: impl Into<String>) -> Self {
        Self::plain(Role::System, content)
    }

    pub fn user(content: impl Into<String>) -> Self {
        Self::plain(Role::User, content)
    }

    /// A plain assistant text answer.
    pub fn assistant(content: impl Into<String>) -> Self {
        Self::plain(Role::Assistant, content)
    }

    /// An assistant message asking for tool calls (content is optional text said alongside).
    pub fn assistant_tool_calls(content: Option<String>, tool_calls: Vec<ToolCall>) -> Self {
        Message {
            role: Role::Assistant,
            content,
            tool_calls,
            tool_call_id: None,
            name: None,
        }
    }

    /// The answer to one tool call.
    pub fn tool_result(tool_call_id: impl Into<String>, name: impl Into<String>, content: impl Into<String>) -> Self {
        Message {
            role: Role::Tool,
            content: Some(content.into()),
            tool_calls: Vec::new(),
            tool_call_id: Some(tool_call_id.into()),
            name: Some(name.into()),
        }
    }

    pub fn has_tool_calls(&self) -> bool {
        !self.tool_calls.is_empty()
    }

    /// Content as `&str` (empty when absent).
    pub fn text(&self) -> &str {
        self.content.as_deref().unwrap_or("")
    }
}

/// A tool the model may call.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolDef {
    pub name: String,
    #[serde(default)]
    pub description: String,
    /// JSON Schema of the arguments (an object schema).
    #[serde(default = "empty_object_schema")]
    pub parameters: Value,
}

fn empty_object_schema() -> Value {
    json!({"type": "object", "properties": {}})
}

impl ToolDef {
    pub fn new(name: impl Into<String>, description: impl Into<String>, parameters: Value) -> Self {
        ToolDef {
            name: name.into(),
            description: description.into(),
            parameters,
        }
    }

    /// Read one entry of an OpenAI `tools` array (`{"type":"function","function":{…}}`), an
    /// Anthropic tool (`{name, description, input_schema}`) or the plain `{name, description,
    /// parameters}` shape. `None` when there is no usable name.
    pub fn from_value(v: &Value) -> Option<ToolDef> {
        let f = v.get("function").filter(|f| f.is_object()).unwrap_or(v);
        let name = f.get("name")?.as_str()?.trim();
        if name.is_empty() {
            return None;
        }
        let description = f.get("description").and_then(Value::as_str).unwrap_or("").to_string();
        let parameters = f
            .get("parameters")
            .or_else(|| f.get("input_schema"))
            .or_else(|| f.get("inputSchema"))
            .filter(|p| p.is_object())
            .cloned()
            .unwrap_or_else(empty_object_schema);
        Some(ToolDef {
            name: name.to_string(),
            description,
            parameters,
        })
    }

    /// Parameters as an object schema (providers reject a missing or non-object schema).
    pub(crate) fn schema(&self) -> Value {
        if self.parameters.is_object() {
            self.parameters.clone()
        } else {
            empty_object_schema()
        }
    }
}

/// How the model may use tools (the seed's four `tool_choice` modes).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub enum ToolChoice {
    /// No tool calls; text only.
    None,
    /// The model decides (default).
    #[default]
    Auto,
    /// At least one tool call.
    Required,
    /// This one tool must be called.
    Function(String),
}

impl ToolChoice {
    /// Parse `'none'|'auto'|'required'` (also Anthropic's `any`), a JSON text of an object form,
    /// or a bare tool name. Empty input means `auto`.
    pub fn parse(s: &str) -> Result<ToolChoice, String> {
        let t = s.trim();
        if t.starts_with('{') || t.starts_with('"') {
            let v: Value = serde_json::from_str(t).map_err(|e| format!("invalid tool_choice JSON: {e}"))?;
            return ToolChoice::from_value(&v);
        }
        match t.to_ascii_lowercase().as_str() {
            "" | "auto" => Ok(ToolChoice::Auto),
            "none" => Ok(ToolChoice::None),
            "required" | "any" => Ok(ToolChoice::Required),
            _ => {
                if t.chars()
                    .all(|c| c.is_alphanumeric() || c == '_' || c == '-' || c == '.')
                {
                    Ok(ToolChoice::Function(t.to_string()))
                } else {
                    Err(format!(
                        "invalid tool_choice {t:?}: expected none, auto, required or a tool name"
                    ))
                }
            }
        }
    }

    /// Read a JSON value: a string (as [`ToolChoice::parse`]), OpenAI's
    /// `{"type":"function","function":{"name":…}}`, Anthropic's `{"type":"tool","name":…}`,
    /// `{"type":"auto"|"any"|"none"|"required"}`, or null (auto).
    pub fn from_value(v: &Value) -> Result<ToolChoice, String> {
        match v {
            Value::Null => Ok(ToolChoice::Auto),
            Value::String(s) => ToolChoice::parse(s),
            Value::Object(o) => {
                let name = o
                    .get("function")
                    .and_then(|f| f.get("name"))
                    .or_else(|| o.get("name"))
                    .and_then(Value::as_str)
                    .map(str::trim)
                    .filter(|n| !n.is_empty());
                let ty = o.get("type").and_then(Value::as_str).unwrap_or("");
                match (ty, name) {
                    ("function" | "tool" | "", Some(n)) => Ok(ToolChoice::Function(n.to_string())),
                    ("auto" | "none" | "required" | "any", _) => ToolChoice::parse(ty),
                    _ => Err(format!(
                        "invalid tool_choice object: {}",
                        clip_chars(&v.to_string(), 200).0
                    )),
                }
            }
            other => Err(format!(
                "invalid tool_choice: {}",
                clip_chars(&other.to_string(), 200).0
            )),
        }
    }

    /// OpenAI chat-completions form.
    pub fn to_openai(&self) -> Value {
        match self {
            ToolChoice::None => json!("none"),
            ToolChoice::Auto => json!("auto"),
            ToolChoice::Required => json!("required"),
            ToolChoice::Function(n) => json!({"type": "function", "function": {"name": n}}),
        }
    }

    /// Anthropic Messages API form.
    pub fn to_anthropic(&self) -> Value {
        match self {
            ToolChoice::None => json!({"type": "none"}),
            ToolChoice::Auto => json!({"type": "auto"}),
            ToolChoice::Required => json!({"type": "any"}),
            ToolChoice::Function(n) => json!({"type": "tool", "name": n}),
        }
    }
}

impl Serialize for ToolChoice {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        self.to_openai().serialize(s)
    }
}

impl<'de> Deserialize<'de> for ToolChoice {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let v = Value::deserialize(d)?;
        ToolChoice::from_value(&v).map_err(serde::de::Error::custom)
    }
}

impl std::str::FromStr for ToolChoice {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        ToolChoice::parse(s)
    }
}

/// Token usage reported by the provider.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct Usage {
    pub prompt_tokens: u64,
    pub completion_tokens: u64,
    pub total_tokens: u64,
}

/// One chat request, provider-neutral.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct ChatRequest {
    pub model: String,
    pub messages: Vec<Message>,
    #[serde(default)]
    pub tools: Vec<ToolDef>,
    #[serde(default)]
    pub tool_choice: ToolChoice,
    #[serde(default)]
    pub max_tokens: Option<u32>,
    #[serde(default)]
    pub temperature: Option<f64>,
    /// Further body fields passed through as they are (`top_p`, `parallel_tool_calls`,
    /// `response_format`, …). They never replace the fields the builder sets itself
    /// (`model`, `messages`, `system`, `tools`, `tool_choice`).
    #[serde(default)]
    pub extra: Map<String, Value>,
}

impl ChatRequest {
    pub fn new(model: impl Into<String>, messages: Vec<Message>) -> Self {
        ChatRequest {
            model: model.into(),
            messages,
            ..Default::default()
        }
    }
}
