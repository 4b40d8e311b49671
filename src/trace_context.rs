//! The W3C trace context of the work in progress, for the audit rows (`traceparent`,
//! `tracestate` of `mcp.run`, `mcp.llm_request`, `mcp.tool_call`): a request's own
//! `params._meta.traceparent` / `tracestate` while `mcp.handle` serves it, else the settings
//! `mcp.traceparent` / `mcp.tracestate` (any SQL client may set them for its calls). Checked
//! with [`mcp_protocol::trace::checked`]: an invalid value is no trace context, never an error.

use pgrx::{GucContext, GucFlags, GucRegistry, GucSetting};
use serde_json::Value;
use std::cell::RefCell;
use std::ffi::CString;

pub static TRACEPARENT: GucSetting<Option<CString>> = GucSetting::<Option<CString>>::new(None);
pub static TRACESTATE: GucSetting<Option<CString>> = GucSetting::<Option<CString>>::new(None);

pub fn init_gucs() {
    GucRegistry::define_string_guc(
        c"mcp.traceparent",
        c"W3C traceparent recorded on the audit rows of this session's chats and tool calls.",
        c"Invalid values are ignored. An MCP request's own _meta.traceparent takes precedence while mcp.handle serves it.",
        &TRACEPARENT,
        GucContext::Userset,
        GucFlags::default(),
    );
    GucRegistry::define_string_guc(
        c"mcp.tracestate",
        c"W3C tracestate recorded with mcp.traceparent (only together with a valid traceparent).",
        c"",
        &TRACESTATE,
        GucContext::Userset,
        GucFlags::default(),
    );
}

pub type Trace = (Option<String>, Option<String>);

thread_local! {
    /// The trace context of the MCP request being served (`None`: no request).
    static REQUEST: RefCell<Option<Trace>> = const { RefCell::new(None) };
}

/// While alive, the trace context is the one of an MCP request's `_meta` (none there: none,
/// not the session's setting — the request says what it belongs to).
pub struct RequestTrace(Option<Trace>);

impl RequestTrace {
    pub fn set(meta: Option<&Value>) -> RequestTrace {
        let get = |k: &str| meta.and_then(|m| m.get(k)).and_then(Value::as_str);
        let t = match get("traceparent") {
            Some(tp) => mcp_protocol::trace::checked(Some(tp), get("tracestate")),
            // no trace in the request: the session's, as for any other statement
            None => setting(),
        };
        RequestTrace(REQUEST.with(|r| r.replace(Some(t))))
    }
}

impl RequestTrace {
    /// The trace context of work done on behalf of an earlier request (an asynchronous run's
    /// submit, whose values were checked then), while alive.
    pub fn fixed(t: Trace) -> RequestTrace {
        RequestTrace(REQUEST.with(|r| r.replace(Some(t))))
    }
}

impl Drop for RequestTrace {
    fn drop(&mut self) {
        let old = self.0.take();
        REQUEST.with(|r| *r.borrow_mut() = old);
    }
}

fn guc(s: &GucSetting<Option<CString>>) -> Option<String> {
    s.get()
        .map(|c| c.to_string_lossy().into_owned())
        .filter(|v| !v.is_empty())
}

fn setting() -> Trace {
    mcp_protocol::trace::checked(guc(&TRACEPARENT).as_deref(), guc(&TRACESTATE).as_deref())
}

/// The trace context the audit rows written now carry.
pub fn current() -> Trace {
    REQUEST.with(|r| r.borrow().clone()).unwrap_or_else(setting)
}
