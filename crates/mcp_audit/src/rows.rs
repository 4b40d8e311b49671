//! The audit rows, one type per table, and the one record format both writers use.
//!
//! A [`Record`] is what pg_mcp writes down: the start or end of a run (`mcp.run`), a batch of the
//! conversation (`mcp.message`), an LLM request, a tool call or an embedding request. Its JSON
//! (`{"k": <kind>, "row": {<column>: <value>, …}}`) goes, whichever the writer, to the SQL
//! function `mcp.audit_store(jsonb)` (`sql/audit.sql`): in the caller's transaction, or queued
//! for the durable audit worker, which hands the same bytes to the same function. The row
//! fields are the table's column names (a misspelt one does not compile where a row is built;
//! an in-database test checks every field against the table), and `mcp.audit_store` reads them
//! with `jsonb_populate_record`, so the columns' types are the table's own.

use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;
use serde_json::Value;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

/// One audit record.
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
#[serde(tag = "k", content = "row", rename_all = "snake_case")]
pub enum Record {
    /// A run's start: its `mcp.run` row.
    Run(RunRow),
    /// A run's end: the `mcp.run` columns it sets.
    RunEnd(RunEndRow),
    /// Consecutive messages of a run's conversation (`mcp.message` rows).
    Messages(MessagesRow),
    LlmRequest(LlmRequestRow),
    ToolCall(ToolCallRow),
    EmbeddingRequest(EmbeddingRequestRow),
}

impl Record {
    /// The kind as stored in the record (`k`), for messages about it.
    pub fn kind(&self) -> &'static str {
        match self {
            Record::Run(_) => "run",
            Record::RunEnd(_) => "run_end",
            Record::Messages(_) => "messages",
            Record::LlmRequest(_) => "llm_request",
            Record::ToolCall(_) => "tool_call",
            Record::EmbeddingRequest(_) => "embedding_request",
        }
    }

    /// The run this record belongs to; `None` for a record of its own (a tool call outside a
    /// chat, an embedding request).
    pub fn run_id(&self) -> Option<&str> {
        match self {
            Record::Run(r) => Some(&r.run_id),
            Record::RunEnd(r) => Some(&r.run_id),
            Record::Messages(r) => Some(&r.run_id),
            Record::LlmRequest(r) => Some(&r.run_id),
            Record::ToolCall(r) => r.run_id.as_deref(),
            Record::EmbeddingRequest(_) => None,
        }
    }

    /// The record's JSON, ready for `mcp.audit_store`: U+0000 (which text and jsonb cannot
    /// hold) replaced by U+FFFD in every string and key.
    pub fn to_json(&self) -> Vec<u8> {
        let mut out = serde_json::to_vec(self).unwrap_or_else(|_| b"{}".to_vec());
        without_nul_escapes(&mut out);
        out
    }
}

/// The JSON array of serialized records (each as [`Record::to_json`] made it) that
/// `mcp.audit_store_batch` stores in one call, in this order: the records' bytes joined as they
/// are, never parsed or re-serialized here.
pub fn batch_json<R: AsRef<[u8]>>(records: &[R]) -> Vec<u8> {
    let len = records.iter().map(|r| r.as_ref().len() + 1).sum::<usize>() + 2;
    let mut out = Vec::with_capacity(len);
    out.push(b'[');
    for (i, r) in records.iter().enumerate() {
        if i > 0 {
            out.push(b',');
        }
        out.extend_from_slice(r.as_ref());
    }
    out.push(b']');
    out
}

/// Whether the commit that stores `rec` (a record as [`Record::to_json`] made it, as the durable
/// audit's queue holds it) may leave out the WAL flush: true for the records of a run between its
/// start and its end (an LLM request, a tool call of the run, a part of the conversation). No
/// backend waits for those: the run's end, stored after them through the same queue, is committed
/// with the flush, and WAL is flushed in order, so that flush makes them durable as well; until
/// then a server crash loses them as it would while they wait in the queue. False for what a
/// backend waits for (a run's start and end, a tool call or embedding request of its own) and for
/// anything unreadable. It reads the record's kind and run id only (no copy of its values).
pub fn commit_may_defer_flush(rec: &[u8]) -> bool {
    #[derive(Deserialize)]
    struct Peek<'a> {
        #[serde(borrow)]
        k: std::borrow::Cow<'a, str>,
        #[serde(borrow)]
        row: PeekRow<'a>,
    }
    #[derive(Deserialize)]
    struct PeekRow<'a> {
        #[serde(borrow, default)]
        run_id: Option<std::borrow::Cow<'a, str>>,
    }
    let Ok(p) = serde_json::from_slice::<Peek<'_>>(rec) else {
        return false;
    };
    match p.k.as_ref() {
        "llm_request" | "messages" => true,
        "tool_call" => p.row.run_id.is_some(),
        _ => false,
    }
}

/// `mcp.run` at the start of a run.
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq, Default)]
#[serde(deny_unknown_fields)]
pub struct RunRow {
    pub run_id: String,
    pub session_id: String,
    pub interface: String,
    pub provider: String,
    pub role_name: String,
    pub question: String,
    pub clipped: Option<Value>,
    pub started_at: String,
    /// The backend running the chat (durable audit: the worker marks the run `aborted` once
    /// this pid and start time are no longer in `pg_stat_activity`).
    pub backend_pid: Option<i32>,
    pub backend_start: Option<String>,
    /// W3C trace context of the request (checked; NULL without one).
    pub traceparent: Option<String>,
    pub tracestate: Option<String>,
}

/// The `mcp.run` columns a run's end sets. A value left `None` keeps the column's value;
/// `error` and `finished_at` are always set; `clipped` is merged into the row's.
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq, Default)]
#[serde(deny_unknown_fields)]
pub struct RunEndRow {
    pub run_id: String,
    pub status: String,
    pub answer: Option<String>,
    pub iterations: Option<u32>,
    pub prompt_tokens: Option<i64>,
    pub completion_tokens: Option<i64>,
    pub error: Option<Value>,
    pub clipped: Option<Value>,
    pub plan: Option<Value>,
    pub finished_at: String,
}

/// Messages `offset ..` of a run's conversation; `message_cuts` is the parallel cut log
/// (`{"message": Cut}` or null per message), stored in `mcp.message.clipped`.
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq, Default)]
#[serde(deny_unknown_fields)]
pub struct MessagesRow {
    pub session_id: String,
    pub run_id: String,
    pub offset: usize,
    pub messages: Vec<Value>,
    pub message_cuts: Vec<Value>,
}

/// `mcp.llm_request`.
#[derive(Serialize, Deserialize, Debug, Clone, Default)]
#[serde(deny_unknown_fields)]
pub struct LlmRequestRow {
    pub run_id: String,
    pub iteration: u32,
    pub purpose: String,
    pub provider: String,
    pub model: String,
    pub url: String,
    /// The body as sent (JSON text, embedded as is: PostgreSQL parses it once).
    pub request_body: Option<Box<RawValue>>,
    pub response_raw: Option<String>,
    pub http_status: Option<u16>,
    pub latency_ms: f64,
    pub attempts: i32,
    pub prompt_tokens: i64,
    pub completion_tokens: i64,
    pub finish_reason: Option<String>,
    pub repaired: bool,
    pub fixes: Value,
    pub error: Option<Value>,
    pub clipped: Option<Value>,
    pub created_at: String,
    /// W3C trace context of the request (checked; NULL without one).
    pub traceparent: Option<String>,
    pub tracestate: Option<String>,
}

impl PartialEq for LlmRequestRow {
    fn eq(&self, other: &Self) -> bool {
        serde_json::to_value(self).ok() == serde_json::to_value(other).ok()
    }
}

/// `mcp.tool_call`.
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq, Default)]
#[serde(deny_unknown_fields)]
pub struct ToolCallRow {
    /// Reserved id (`None`: the next one of the identity sequence).
    pub call_id: Option<i64>,
    pub run_id: Option<String>,
    pub tool_call_id: Option<String>,
    pub tool: String,
    pub interface: String,
    pub role_name: String,
    pub arguments_raw: Option<String>,
    pub arguments: Option<Value>,
    pub validation_errors: Option<Value>,
    pub status: String,
    pub result_size: Option<i64>,
    pub result_preview: Option<String>,
    pub latency_ms: f64,
    pub error_sqlstate: Option<String>,
    pub error_message: Option<String>,
    pub clipped: Option<Value>,
    pub created_at: String,
    /// W3C trace context of the request (checked; NULL without one).
    pub traceparent: Option<String>,
    pub tracestate: Option<String>,
}

/// `mcp.embedding_request`.
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq, Default)]
#[serde(deny_unknown_fields)]
pub struct EmbeddingRequestRow {
    pub model: String,
    pub provider: String,
    pub role_name: String,
    pub url: String,
    pub texts: i32,
    pub input_bytes: i64,
    pub input_sha256: String,
    pub http_status: Option<i32>,
    pub latency_ms: f64,
    pub error: Option<String>,
    pub created_at: String,
}

/// The column names a row type writes (its fields), for the check against the table.
pub fn columns_of<T: Serialize + Default>() -> Vec<String> {
    match serde_json::to_value(T::default()) {
        Ok(Value::Object(m)) => m.keys().cloned().collect(),
        _ => Vec::new(),
    }
}

/// A point in time as timestamptz text: RFC 3339 in UTC with microseconds, which PostgreSQL
/// reads whatever the session's DateStyle (formatted by `humantime`).
pub fn timestamp(t: SystemTime) -> String {
    humantime::format_rfc3339_micros(t).to_string()
}

/// The current time as timestamptz text.
pub fn now() -> String {
    timestamp(SystemTime::now())
}

/// Microseconds since the Unix epoch as timestamptz text (times before 1970 as 1970).
pub fn unix_micros(us: i64) -> String {
    timestamp(UNIX_EPOCH + Duration::from_micros(us.max(0) as u64))
}

/// Replace every `\u0000` escape of a serialized JSON text by `\ufffd` (text and jsonb cannot
/// hold U+0000; serde_json writes it only as that escape). An escaped backslash followed by
/// `u0000` is left alone.
pub fn without_nul_escapes(json: &mut [u8]) {
    let mut i = 0;
    while let Some(off) = memchr::memchr(b'\\', &json[i..]) {
        let at = i + off;
        if json.get(at + 1) == Some(&b'u') && json.get(at + 2..at + 6) == Some(b"0000") {
            json[at + 2..at + 6].copy_from_slice(b"fffd");
            i = at + 6;
        } else {
            i = at + 2; // `\\`, `\"`, `\n`, `\uXXXX`: skip the escaped character
        }
        if i >= json.len() {
            break;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn tool_call() -> ToolCallRow {
        ToolCallRow {
            call_id: Some(7),
            tool: "get_tv".into(),
            interface: "chatbot".into(),
            role_name: "alice".into(),
            arguments: Some(json!({"q": "a\u{0}b", "k\u{0}": 1})),
            arguments_raw: Some("\\u0000 stays text".into()),
            status: "ok".into(),
            latency_ms: 1.5,
            created_at: now(),
            ..Default::default()
        }
    }

    #[test]
    fn only_a_runs_inner_records_may_defer_the_flush() {
        let of_run = |rec: Record| commit_may_defer_flush(&rec.to_json());
        let mut in_run = tool_call();
        in_run.run_id = Some("r1".into());
        assert!(of_run(Record::ToolCall(in_run)));
        assert!(of_run(Record::LlmRequest(LlmRequestRow {
            run_id: "r1".into(),
            fixes: json!([]),
            ..Default::default()
        })));
        assert!(of_run(Record::Messages(MessagesRow {
            run_id: "r1".into(),
            messages: vec![json!({"role": "user", "content": "run_end"})],
            ..Default::default()
        })));
        // what a backend waits for: the start, the end, a call of its own, an embedding request
        assert!(!of_run(Record::ToolCall(tool_call())));
        assert!(!of_run(Record::Run(RunRow {
            run_id: "r1".into(),
            ..Default::default()
        })));
        assert!(!of_run(Record::RunEnd(RunEndRow {
            run_id: "r1".into(),
            ..Default::default()
        })));
        assert!(!of_run(Record::EmbeddingRequest(Default::default())));
        // unreadable or unknown: flushed
        for bad in [
            &b""[..],
            b"{",
            b"[]",
            br#"{"k":"llm_request"}"#,
            br#"{"k":"other","row":{}}"#,
        ] {
            assert!(
                !commit_may_defer_flush(bad),
                "{}",
                String::from_utf8_lossy(bad)
            );
        }
        // a run id written with escapes still counts
        assert!(commit_may_defer_flush(
            br#"{"k":"tool_call","row":{"run_id":"r\u0031","tool":"t"}}"#
        ));
    }

    #[test]
    fn a_record_names_its_kind_and_table_columns() {
        let v: Value = serde_json::from_slice(&Record::ToolCall(tool_call()).to_json()).unwrap();
        assert_eq!(v["k"], "tool_call");
        assert_eq!(v["row"]["tool"], "get_tv");
        assert_eq!(v["row"]["call_id"], 7);
        assert!(v["row"]["run_id"].is_null());
        assert_eq!(
            columns_of::<EmbeddingRequestRow>(),
            [
                "model",
                "provider",
                "role_name",
                "url",
                "texts",
                "input_bytes",
                "input_sha256",
                "http_status",
                "latency_ms",
                "error",
                "created_at"
            ]
        );
    }

    #[test]
    fn nul_becomes_the_replacement_character_in_values_and_keys() {
        let bytes = Record::ToolCall(tool_call()).to_json();
        let text = String::from_utf8(bytes.clone()).unwrap();
        assert!(!text.contains("\\u0000\""), "{text}");
        let v: Value = serde_json::from_slice(&bytes).unwrap();
        assert_eq!(v["row"]["arguments"]["q"], "a\u{FFFD}b");
        assert_eq!(v["row"]["arguments"]["k\u{FFFD}"], 1);
        // A backslash written as text, followed by u0000, is text and stays.
        assert_eq!(v["row"]["arguments_raw"], "\\u0000 stays text");
        let mut edge = br#""\\\u0000""#.to_vec();
        without_nul_escapes(&mut edge);
        assert_eq!(&edge, br#""\\\ufffd""#);
        let mut tail = br#""\"#.to_vec();
        without_nul_escapes(&mut tail); // a lone backslash at the end: no panic
        assert_eq!(&tail, br#""\"#);
    }

    #[test]
    fn records_round_trip_and_refuse_unknown_fields() {
        let body = RawValue::from_string(r#"{"model":"m","messages":[]}"#.into()).unwrap();
        let r = Record::LlmRequest(LlmRequestRow {
            run_id: "r".into(),
            request_body: Some(body),
            fixes: json!([]),
            ..Default::default()
        });
        let back: Record = serde_json::from_slice(&r.to_json()).unwrap();
        assert_eq!(back, r);
        // The body is embedded as sent, not re-serialized.
        assert!(String::from_utf8(r.to_json())
            .unwrap()
            .contains(r#""request_body":{"model":"m","messages":[]}"#));
        let bad = json!({"k": "embedding_request", "row": {"modle": "x"}});
        assert!(serde_json::from_value::<Record>(bad).is_err());
        assert_eq!(r.run_id(), Some("r"));
        assert_eq!(r.kind(), "llm_request");
    }

    #[test]
    fn a_batch_is_the_records_in_order_as_one_json_array() {
        let a = Record::ToolCall(tool_call()).to_json();
        let b = Record::RunEnd(RunEndRow {
            run_id: "r".into(),
            status: "completed".into(),
            finished_at: now(),
            ..Default::default()
        })
        .to_json();
        let batch = batch_json(&[a.clone(), b.clone()]);
        let v: Vec<Record> = serde_json::from_slice(&batch).unwrap();
        assert_eq!(v.len(), 2);
        assert_eq!(v[0].kind(), "tool_call");
        assert_eq!(v[1].kind(), "run_end");
        // The records' bytes as they were, not re-serialized.
        assert_eq!(batch.len(), a.len() + b.len() + 3);
        assert_eq!(&batch[1..=a.len()], &a[..]);
        assert_eq!(batch_json::<Vec<u8>>(&[]), b"[]");
    }

    #[test]
    fn timestamps_are_utc_rfc3339_with_microseconds() {
        assert_eq!(unix_micros(0), "1970-01-01T00:00:00.000000Z");
        assert_eq!(
            unix_micros(1_796_056_407_773_123),
            "2026-11-30T16:33:27.773123Z"
        );
        assert_eq!(
            unix_micros(951_782_400_000_001),
            "2000-02-29T00:00:00.000001Z"
        );
        assert_eq!(unix_micros(-5), "1970-01-01T00:00:00.000000Z");
    }
}
