//! The database as an MCP server: what `mcp.handle(request jsonb)` (in `api/mcp.rs`) answers.
//!
//! The protocol logic (message classification, revision negotiation, cursors, prompt rendering,
//! URI templates) is in `crates/mcp_protocol`; this file reads the registry as the calling role
//! and runs tools through the same pipeline as `mcp.call_tool` ([`tools::call`]:
//! authorization, validation, shaping, audit). Every request runs in a subtransaction, so any
//! fault becomes a JSON-RPC error object instead of an SQL ERROR; a query cancel or
//! statement_timeout still propagates (as in every pg_mcp entry point).

use crate::bind::Param;
use crate::error::McpError;
use crate::jsonb::JsonbStored;
use crate::pg::{first_row, in_subtransaction, select_kept, set_guc, with_tool_timeout};
use crate::registry::function_signature;
use crate::{gucs, sql_tool, tools};
use mcp_protocol::{codes, modern, Incoming, RpcError};
use pgrx::prelude::*;
use pgrx::JsonB;
use pgrx::{GucContext, GucFlags, GucRegistry, GucSetting};
use serde_json::{json, Map, Value};
use std::ffi::CString;

/// The interface whose tools an MCP client sees (`ALTER ROLE … SET mcp.interface` fixes it
/// per role; the bridge may set it per connection).
pub static INTERFACE: GucSetting<Option<CString>> =
    GucSetting::<Option<CString>>::new(Some(c"chatbot"));
/// The negotiated protocol revision of this connection ('' = the latest).
pub static PROTOCOL_VERSION: GucSetting<Option<CString>> =
    GucSetting::<Option<CString>>::new(Some(c""));
/// Items per page of tools/list, resources/list, resources/templates/list and prompts/list.
pub static PAGE_SIZE: GucSetting<i32> = GucSetting::<i32>::new(100);
/// `ttlMs` of the list results a 2026-07-28 client gets.
pub static LIST_TTL_MS: GucSetting<i32> = GucSetting::<i32>::new(60_000);
/// Set by a transport that delivers `subscriptions/listen` streams (pg_mcp_bridge over
/// Streamable HTTP, per request): `server/discover` then declares `listChanged` and `subscribe`.
pub static LISTEN_DELIVERED: GucSetting<bool> = GucSetting::<bool>::new(false);
/// The web console's public URL (`…/console`): a direct call that needs approval points there.
pub static CONSOLE_URL: GucSetting<Option<CString>> = GucSetting::<Option<CString>>::new(Some(c""));

pub fn init_gucs() {
    GucRegistry::define_string_guc(
        c"mcp.interface",
        c"The interface whose tools, through mcp.handle, an MCP client sees and calls.",
        c"Set it per role with ALTER ROLE ... SET mcp.interface, or per connection (the bridge's --interface).",
        &INTERFACE,
        GucContext::Userset,
        GucFlags::default(),
    );
    GucRegistry::define_string_guc(
        c"mcp.protocol_version",
        c"MCP protocol revision negotiated on this connection (set by initialize; empty = latest).",
        c"The HTTP bridge sets it per request from the MCP-Protocol-Version header.",
        &PROTOCOL_VERSION,
        GucContext::Userset,
        GucFlags::default(),
    );
    GucRegistry::define_int_guc(
        c"mcp.list_ttl_ms",
        c"How long (ms) a 2026-07-28 MCP client may cache a list result (its ttlMs; 0 = always re-fetch).",
        c"tools/list, prompts/list, resources/list and resources/templates/list; resources/read is never cached (0).",
        &LIST_TTL_MS,
        0,
        86_400_000,
        GucContext::Userset,
        GucFlags::default(),
    );
    GucRegistry::define_bool_guc(
        c"mcp.listen_delivered",
        c"Whether the transport delivers subscriptions/listen streams (server/discover then declares listChanged and subscribe).",
        c"pg_mcp_bridge over Streamable HTTP sets it per request; stdio and SQL callers leave it off.",
        &LISTEN_DELIVERED,
        GucContext::Userset,
        GucFlags::default(),
    );
    GucRegistry::define_string_guc(
        c"mcp.console_url",
        c"Public URL of the web console (http(s)://host[:port]/console): an MCP tools/call that needs approval is answered with its approval page there.",
        c"pg_mcp_bridge http sets it per request (--console-url, default its own listener); for stdio set it per database or role. Empty: the client gets a tool error naming the approval instead of a URL.",
        &CONSOLE_URL,
        GucContext::Userset,
        GucFlags::default(),
    );
    GucRegistry::define_int_guc(
        c"mcp.page_size",
        c"Items per page of the MCP list methods (tools/list, resources/list, prompts/list …).",
        c"",
        &PAGE_SIZE,
        1,
        1000,
        GucContext::Userset,
        GucFlags::default(),
    );
}

fn guc_text(s: &GucSetting<Option<CString>>) -> String {
    s.get()
        .map(|c| c.to_string_lossy().into_owned())
        .unwrap_or_default()
}

fn interface() -> String {
    let i = guc_text(&INTERFACE);
    if i.is_empty() {
        "chatbot".into()
    } else {
        i
    }
}

fn page_size() -> usize {
    PAGE_SIZE.get().max(1) as usize
}

/// The response to one MCP JSON-RPC message; `None` for notifications and client responses.
///
/// Both eras in one function: a request whose `_meta` carries the 2026-07-28 envelope is
/// served statelessly by what it says ([`mcp_protocol::modern::era`]); every other request by
/// the revision `initialize` negotiated on the connection, as before.
pub(crate) fn handle_one(msg: &Value) -> Option<Value> {
    match mcp_protocol::classify(msg) {
        Incoming::Response | Incoming::Notification { .. } => None,
        Incoming::Invalid { id, error } => Some(mcp_protocol::error_response(&id, &error)),
        Incoming::Request { id, method, params } => {
            // the request's W3C trace context, for the audit rows it writes (either era)
            let _trace = crate::trace_context::RequestTrace::set(params.get("_meta"));
            let _id = RequestId::set(&id);
            let era = match modern::era(&method, &params, &guc_text(&PROTOCOL_VERSION)) {
                Ok(era) => era,
                Err(e) => return Some(mcp_protocol::error_response(&id, &e)),
            };
            Some(match era {
                modern::Era::Legacy => answer(&id, &method, || dispatch(&method, &params)),
                modern::Era::Modern(envelope) => {
                    if !modern::modern_method_known(&method) {
                        return Some(mcp_protocol::error_response(&id, &unknown_method(&method)));
                    }
                    let _era = RequestVersion::set(envelope.version);
                    let _caps = ClientCapabilities::set(Some(envelope.capabilities.clone()));
                    let answer = answer(&id, &method, || dispatch_modern(&method, &params));
                    modernize(&method, answer)
                }
            })
        }
    }
}

/// The JSON-RPC response to one request whose work is `work`, run in a subtransaction.
fn answer(id: &Value, method: &str, work: impl FnOnce() -> Result<Value, RpcError>) -> Value {
    match in_subtransaction(false, work) {
        Ok(Ok(result)) => mcp_protocol::result_response(id, result),
        Ok(Err(e)) => mcp_protocol::error_response(id, &e),
        Err(info) => {
            // The operator log gets the detail; the client a generic error.
            pgrx::log!(
                "pg_mcp: mcp.handle {} failed: SQLSTATE {}: {}",
                method_for_log(method),
                info.sqlstate,
                info.message
            );
            mcp_protocol::error_response(
                id,
                &RpcError::internal("Internal error").with_data(json!({"sqlstate": info.sqlstate})),
            )
        }
    }
}

/// A response as the modern era shapes it: `resultType`, `_meta.serverInfo` and the caching
/// hints on results; the 2026-07-28 codes on errors.
fn modernize(method: &str, mut response: Value) -> Value {
    if let Some(result) = response.get_mut("result") {
        let r = std::mem::take(result);
        *result = modern::modern_result(method, r, &server_info(), list_ttl_ms());
    } else if let Some(code) = response.pointer_mut("/error/code") {
        if code.as_i64() == Some(codes::RESOURCE_NOT_FOUND) {
            *code = json!(modern::modern_error(RpcError::new(codes::RESOURCE_NOT_FOUND, "")).code);
        }
    }
    response
}

fn unknown_method(method: &str) -> RpcError {
    RpcError::new(codes::METHOD_NOT_FOUND, "Method not found")
        .with_data(json!({ "method": method_for_log(method) }))
}

thread_local! {
    /// The revision of the modern request being served (none: the connection's revision).
    static REQUEST_VERSION: std::cell::Cell<Option<&'static str>> = const { std::cell::Cell::new(None) };
    /// The installed extension version, read once per backend for `serverInfo`.
    static EXT_VERSION: std::cell::OnceCell<String> = const { std::cell::OnceCell::new() };
}

thread_local! {
    /// The capabilities a modern request's `_meta` declares (none: a handshake request).
    static REQUEST_CAPABILITIES: std::cell::RefCell<Option<Map<String, Value>>> =
        const { std::cell::RefCell::new(None) };
    /// The `inputResponses` of the `tools/call` whose tool is running, for
    /// `mcp.input_response(key)`.
    static INPUT_RESPONSES: std::cell::RefCell<Option<Map<String, Value>>> =
        const { std::cell::RefCell::new(None) };
    /// The JSON-RPC id of the request being served (a direct call's approval stores it).
    static REQUEST_ID: std::cell::RefCell<Value> = const { std::cell::RefCell::new(Value::Null) };
}

/// While alive, the id of the request being served.
struct RequestId(Value);

impl RequestId {
    fn set(id: &Value) -> RequestId {
        RequestId(REQUEST_ID.with(|x| x.replace(id.clone())))
    }
}

impl Drop for RequestId {
    fn drop(&mut self) {
        let old = std::mem::take(&mut self.0);
        REQUEST_ID.with(|x| *x.borrow_mut() = old);
    }
}

/// While alive, the client capabilities of the modern request being served.
struct ClientCapabilities(Option<Map<String, Value>>);

impl ClientCapabilities {
    fn set(c: Option<Map<String, Value>>) -> ClientCapabilities {
        ClientCapabilities(REQUEST_CAPABILITIES.with(|x| x.replace(c)))
    }
}

impl Drop for ClientCapabilities {
    fn drop(&mut self) {
        let old = self.0.take();
        REQUEST_CAPABILITIES.with(|x| *x.borrow_mut() = old);
    }
}

/// While alive, `mcp.input_response(key)` answers from these responses.
struct InputResponses(Option<Map<String, Value>>);

impl InputResponses {
    fn set(r: Option<Map<String, Value>>) -> InputResponses {
        InputResponses(INPUT_RESPONSES.with(|x| x.replace(r)))
    }
}

impl Drop for InputResponses {
    fn drop(&mut self) {
        let old = self.0.take();
        INPUT_RESPONSES.with(|x| *x.borrow_mut() = old);
    }
}

/// The client's response to the running tool's input request `key` (`mcp.input_response`):
/// `None` outside a `tools/call` of `mcp.handle` or when the client sent none for it.
pub(crate) fn input_response(key: &str) -> Option<Value> {
    INPUT_RESPONSES.with(|x| x.borrow().as_ref().and_then(|m| m.get(key).cloned()))
}

/// While alive, [`negotiated_version`] is a modern request's own revision.
struct RequestVersion(Option<&'static str>);

impl RequestVersion {
    fn set(v: &'static str) -> RequestVersion {
        RequestVersion(REQUEST_VERSION.with(|c| c.replace(Some(v))))
    }
}

impl Drop for RequestVersion {
    fn drop(&mut self) {
        REQUEST_VERSION.with(|c| c.set(self.0));
    }
}

fn method_for_log(m: &str) -> String {
    m.chars()
        .take(64)
        .filter(|c| c.is_ascii_graphic())
        .collect()
}

fn from_mcp(e: McpError) -> RpcError {
    RpcError::internal(e.message().to_string())
}

fn from_spi(e: pgrx::spi::SpiError) -> RpcError {
    from_mcp(McpError::from(e))
}

fn dispatch(method: &str, params: &Map<String, Value>) -> Result<Value, RpcError> {
    match method {
        "initialize" => initialize(params),
        "ping" => Ok(json!({})),
        "tools/list" => tools_list(params),
        "tools/call" => tools_call(params),
        "resources/list" => resources_list(params, false),
        "resources/templates/list" => resources_list(params, true),
        "resources/read" => resources_read(params),
        "resources/subscribe" => resources_subscribe(params),
        "resources/unsubscribe" => {
            mcp_protocol::str_param(params, "uri")?;
            Ok(json!({}))
        }
        "prompts/list" => prompts_list(params),
        "prompts/get" => prompts_get(params),
        "completion/complete" => complete(params),
        "logging/setLevel" => set_level(params),
        // tasks in the 2025-11-25 core (experimental there); earlier revisions have none
        "tasks/get" | "tasks/result" | "tasks/list" | "tasks/cancel"
            if mcp_protocol::tasks::legacy_version_has_tasks(&negotiated_version()) =>
        {
            crate::mcp_tasks::dispatch(method, params, false)
        }
        _ => Err(unknown_method(method)),
    }
}

/// A modern request's method (already known to the 2026-07-28 core): `server/discover`, and
/// the methods both eras share.
fn dispatch_modern(method: &str, params: &Map<String, Value>) -> Result<Value, RpcError> {
    match method {
        "server/discover" => Ok(modern::discover_result(LISTEN_DELIVERED.get())),
        "subscriptions/listen" => subscriptions_listen(params),
        // the tasks extension: only for a client that declared it on this request
        "tasks/get" | "tasks/update" | "tasks/cancel" => {
            let declared = REQUEST_CAPABILITIES.with(|c| {
                c.borrow()
                    .as_ref()
                    .is_some_and(mcp_protocol::tasks::client_declares)
            });
            if !declared {
                return Err(mcp_protocol::tasks::missing_extension());
            }
            crate::mcp_tasks::dispatch(method, params, true)
        }
        _ => dispatch(method, params),
    }
}

/// `subscriptions/listen`: what of the filter is honoured (the list changes, and the resources
/// the caller can see). The stream itself is the transport's: pg_mcp_bridge over Streamable
/// HTTP keeps the response open and sends the notifications on it.
fn subscriptions_listen(params: &Map<String, Value>) -> Result<Value, RpcError> {
    let all = resources()?;
    modern::listen_filter(params, |uri| find_resource(&all, uri).is_some())
}

/// `{name, version}` of this server: the installed extension version, as `initialize` says.
fn server_info() -> Value {
    json!({"name": "pg_mcp", "version": extension_version()})
}

fn extension_version() -> String {
    if let Some(v) = EXT_VERSION.with(|c| c.get().cloned()) {
        return v;
    }
    let v = first_row(
        "SELECT extversion FROM pg_catalog.pg_extension WHERE extname OPERATOR(pg_catalog.=) 'pg_mcp'",
        &[],
        |t| t.get::<String>(1),
    )
    .ok()
    .flatten()
    .flatten()
    .unwrap_or_else(|| env!("CARGO_PKG_VERSION").to_string());
    EXT_VERSION.with(|c| {
        let _ = c.set(v.clone());
    });
    v
}

fn list_ttl_ms() -> u64 {
    LIST_TTL_MS.get().max(0) as u64
}

fn initialize(params: &Map<String, Value>) -> Result<Value, RpcError> {
    let requested = mcp_protocol::str_param(params, "protocolVersion")?;
    let version = mcp_protocol::negotiate(Some(requested));
    set_guc(c"mcp.protocol_version", version);
    let ext_version = first_row(
        "SELECT extversion FROM pg_catalog.pg_extension WHERE extname OPERATOR(pg_catalog.=) 'pg_mcp'",
        &[],
        |t| t.get::<String>(1),
    )
    .map_err(from_spi)?
    .flatten()
    .unwrap_or_else(|| env!("CARGO_PKG_VERSION").to_string());
    let mut result = mcp_protocol::initialize_result(version, "pg_mcp", &ext_version);
    if mcp_protocol::tasks::legacy_version_has_tasks(version) {
        result["capabilities"]["tasks"] = mcp_protocol::tasks::legacy_capability();
    }
    Ok(result)
}

/// The revision the current request is served by: a modern request's own, otherwise the
/// connection's (`mcp.protocol_version`, '' = the latest handshake revision).
pub(crate) fn negotiated_version() -> String {
    REQUEST_VERSION
        .with(|c| c.get())
        .map(str::to_string)
        .unwrap_or_else(|| guc_text(&PROTOCOL_VERSION))
}

thread_local! {
    /// Bytes of tool and resource results returned by the current mcp.handle statement.
    static STATEMENT_BYTES: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
}

/// A new mcp.handle statement starts: its result budget (mcp.max_statement_result_bytes) is
/// whole again.
pub(crate) fn start_statement() {
    STATEMENT_BYTES.with(|b| b.set(0));
}

/// Refuse further result-producing work once the statement's results reached the budget: a
/// batch of tools/call or resources/read cannot make one statement hold more than that.
fn statement_budget_left() -> Result<(), RpcError> {
    let max = gucs::MAX_STATEMENT_RESULT_BYTES.get().max(1) as usize;
    if STATEMENT_BYTES.with(|b| b.get()) >= max {
        return Err(RpcError::internal(format!(
            "The results of this batch reached their budget of {max} bytes (mcp.max_statement_result_bytes); send the remaining requests separately"
        )));
    }
    Ok(())
}

fn charge_statement(bytes: usize) {
    STATEMENT_BYTES.with(|b| b.set(b.get().saturating_add(bytes)));
}

fn cursor(params: &Map<String, Value>) -> Result<Option<&str>, RpcError> {
    mcp_protocol::opt_str_param(params, "cursor")
}

fn page_result(key: &str, items: Vec<Value>, next: Option<String>) -> Value {
    let mut m = Map::new();
    m.insert(key.into(), Value::Array(items));
    if let Some(n) = next {
        m.insert("nextCursor".into(), Value::String(n));
    }
    Value::Object(m)
}

// ------------------------------------------------------------------------------------------
// Tools: the registry's own functions, so authorization (and any interface privilege added
// there) applies exactly as for mcp.list_tools / mcp.call_tool.
// ------------------------------------------------------------------------------------------

fn tools_list(params: &Map<String, Value>) -> Result<Value, RpcError> {
    let cursor = cursor(params)?;
    let mut all = tools::visible_tools(&interface()).map_err(from_mcp)?;
    // Byte order of the names, whatever the database's collation: the same order on every
    // call and every database, and the order the keyset cursor continues in.
    all.sort_by(|a, b| a.name.as_bytes().cmp(b.name.as_bytes()));
    let (page, next) = mcp_protocol::paginate(&all, |t| t.name.as_str(), cursor, page_size())?;
    let page: Vec<tools::ToolRow> = page.into_iter().cloned().collect();
    let rendered = tools::tools_json(&page, "mcp").map_err(from_mcp)?;
    let mut items = rendered.as_array().cloned().unwrap_or_default();
    // 2025-11-25 (tasks in the core): the chat tool may be called as a task. 2026-07-28 has
    // no per-tool declaration (the server decides per request).
    let legacy_tasks = REQUEST_VERSION.with(|c| c.get()).is_none()
        && mcp_protocol::tasks::legacy_version_has_tasks(&negotiated_version());
    if legacy_tasks {
        for (item, row) in items.iter_mut().zip(&page) {
            if crate::mcp_tasks::is_chat_tool(row) {
                item["execution"] = json!({"taskSupport": "optional"});
            }
        }
    }
    if mcp_protocol::has_structured_content(&negotiated_version()) {
        let schemas = output_schemas()?;
        for item in &mut items {
            let schema = item["name"].as_str().and_then(|n| schemas.get(n)).cloned();
            if let (Some(o), Some(schema)) = (item.as_object_mut(), schema) {
                o.insert("outputSchema".into(), schema);
            }
        }
    }
    Ok(page_result("tools", items, next))
}

/// Output schemas of the tools that declare one.
fn output_schemas() -> Result<std::collections::HashMap<String, Value>, RpcError> {
    select_kept(
        "SELECT name, output_schema FROM mcp.tool WHERE output_schema IS NOT NULL",
        &[],
        |t| {
            let mut out = Vec::new();
            for row in t {
                if let (Some(n), Some(s)) = (row.get::<String>(1)?, row.get::<JsonbStored>(2)?) {
                    out.push((n, s));
                }
            }
            Ok(out)
        },
    )
    .map_err(from_spi)?
    .into_iter()
    .map(|(n, s)| {
        let v = s
            .value(&format!("the output schema of tool {n}"))
            .map_err(from_mcp)?;
        Ok((n, v))
    })
    .collect()
}

/// A successful result of a tool with an output schema must carry matching structuredContent
/// (MCP: "servers MUST provide structured results that conform to this schema"); otherwise it
/// is answered as a tool error.
fn check_output(tool: &str, outcome: &mut tools::ToolOutcome) -> Result<(), RpcError> {
    if outcome.is_error() {
        return Ok(());
    }
    let schema = first_row(
        "SELECT output_schema FROM mcp.tool WHERE name = $1",
        &[tool.into()],
        |t| t.get::<JsonbStored>(1),
    )
    .map_err(from_spi)?
    .flatten();
    let Some(schema) = schema
        .map(|j| j.value(&format!("the output schema of tool {tool}")))
        .transpose()
        .map_err(from_mcp)?
    else {
        return Ok(());
    };
    let problem = match &outcome.structured {
        None => Some("it returned no structured result".to_string()),
        Some(v) => {
            let errors = tools::validate_against(&format!("{tool} (output)"), &schema, v);
            (!errors.is_empty()).then(|| {
                errors
                    .iter()
                    .map(|e| e.message.clone())
                    .collect::<Vec<_>>()
                    .join("; ")
            })
        }
    };
    if let Some(p) = problem {
        outcome.text =
            format!("Tool '{tool}' returned a result that does not match its output schema: {p}.");
        outcome.structured = None;
        outcome.status = mcp_chat::ToolCallStatus::Error;
    }
    Ok(())
}

fn tools_call(params: &Map<String, Value>) -> Result<Value, RpcError> {
    statement_budget_left()?;
    let name = mcp_protocol::str_param(params, "name")?;
    let arguments = mcp_protocol::obj_param(params, "arguments")?;
    let iface = interface();
    // Unknown (or not visible) tools are a protocol error (MCP "Tools": error handling). The one
    // tool is authorized (tools::authorize: the rules of tools/list, so a tool is callable
    // exactly when it is listed), not the interface's whole list.
    let row = match tools::authorize(name, &iface).map_err(from_mcp)? {
        tools::Authorization::Allowed(row) => row,
        tools::Authorization::Unresolved(_) | tools::Authorization::Denied => {
            return Err(RpcError::invalid_params(format!(
                "Unknown tool: {}",
                name.chars().take(64).collect::<String>()
            )))
        }
    };
    let row = &row;
    if crate::mcp_tasks::is_chat_tool(row) {
        let task = REQUEST_CAPABILITIES.with(|c| {
            crate::mcp_tasks::task_wanted(params, c.borrow().as_ref(), &negotiated_version())
        })?;
        let mut result = crate::mcp_tasks::call_chat(row, &arguments, &iface, task)?;
        charge_statement(serde_json::to_string(&result).map_or(0, |t| t.len()));
        if !mcp_protocol::has_structured_content(&negotiated_version()) {
            if let Some(o) = result.as_object_mut() {
                o.remove("structuredContent");
            }
        }
        return Ok(result);
    }
    let responses = mcp_protocol::input::input_responses(params)?;
    // A tool that requires approval runs only once a person approved exactly this call
    // (crate::mcp_approval); the client's answer to the elicitation is not that approval.
    let mut approved: Option<(pgrx::Uuid, String)> = None;
    let mut arguments = Value::Object(arguments);
    if row.requires_approval {
        use crate::mcp_approval::{self as approval, Gate};
        let request_id = REQUEST_ID.with(|r| r.borrow().clone());
        match approval::gate(row, &arguments, &iface, &request_id).map_err(from_mcp)? {
            Gate::Validate => {}
            Gate::Run {
                approval_id,
                arguments_raw,
                arguments: stored,
            } => {
                arguments = stored;
                approved = Some((approval_id, arguments_raw));
            }
            Gate::Pending {
                approval_id,
                expires_at,
            } => {
                let console = guc_text(&CONSOLE_URL);
                let answer = REQUEST_CAPABILITIES.with(|c| {
                    approval::elicitation(name, &approval_id, c.borrow().as_ref(), &console)
                });
                return match answer {
                    Some(a) => a,
                    None => Ok(tool_error_result(approval::pending_text(
                        name,
                        &approval_id,
                        &expires_at,
                        approval::url_of(&approval_id, &console).as_deref(),
                    ))),
                };
            }
            Gate::Refused(text) => return Ok(tool_error_result(text)),
        }
    }
    let approval_text = approved.as_ref().map(|(id, _)| id.to_string());
    let _responses = InputResponses::set(responses.clone());
    let content_tool = returns_content(name)?;
    // The output schema and a content result are checked inside the pipeline, before the
    // audit row is written, so the row's status is what the client gets.
    let check = |outcome: &mut tools::ToolOutcome| {
        // a request for input is neither the tool's result nor its content; one the client
        // cannot be sent (it lacks the capability, or the form is not sendable) is the error
        // the client gets, and is audited as one
        if !outcome.is_error() && outcome.structured.as_ref().is_some_and(asks_for_input) {
            if let Some(why) = outcome
                .structured
                .as_ref()
                .and_then(|s| input_refusal(name, s, responses.as_ref()))
            {
                *outcome = tools::ToolOutcome::error(mcp_chat::ToolCallStatus::Error, why);
            }
            return;
        }
        if let Err(e) = check_output(name, outcome) {
            *outcome = tools::ToolOutcome::error(mcp_chat::ToolCallStatus::Error, e.message);
        }
        if content_tool && !outcome.is_error() {
            if let Err(why) = content_of(outcome) {
                *outcome = tools::ToolOutcome::error(
                    mcp_chat::ToolCallStatus::Error,
                    format!("Tool '{name}' returned no valid MCP content: {why}."),
                );
            }
        }
    };
    let (outcome, _) = tools::call(&tools::CallRequest {
        tool: name,
        arguments: &arguments,
        interface: &iface,
        run_id: None,
        tool_call_id: approval_text.as_deref(),
        arguments_raw: approved.as_ref().map(|(_, raw)| raw.as_str()),
        authorized: Some(row),
        check_result: Some(&check),
    })
    .map_err(from_mcp)?;
    if let Some((id, _)) = &approved {
        // used once the call completes; a round that asks the client for input keeps it open
        let asks = !outcome.is_error() && outcome.structured.as_ref().is_some_and(asks_for_input);
        if !asks {
            crate::mcp_approval::used(*id).map_err(from_mcp)?;
        }
    }
    if let Some(asked) = outcome
        .structured
        .as_ref()
        .filter(|_| !outcome.is_error())
        .and_then(mcp_protocol::input::requests_of)
    {
        return input_required(name, asked, responses.as_ref(), &outcome);
    }
    if content_tool && !outcome.is_error() {
        let items = content_of(&outcome).unwrap_or_default();
        charge_statement(serde_json::to_string(&items).map_or(0, |t| t.len()));
        return Ok(json!({"content": items, "isError": false}));
    }
    charge_statement(outcome.text.len());
    let mut result = outcome.to_json();
    if !mcp_protocol::has_structured_content(&negotiated_version()) {
        if let Some(o) = result.as_object_mut() {
            o.remove("structuredContent");
        }
    }
    Ok(result)
}

/// Whether a tool's result object asks for input (`"needs_input": true`).
fn asks_for_input(v: &Value) -> bool {
    v.get("needs_input") == Some(&Value::Bool(true))
}

/// Why a tool's request for input cannot go to this client (`None`: it can, or it is
/// getDialog's form answered already): a form pg_mcp cannot send, or, for a modern client, a
/// capability its request did not declare. A handshake client's capabilities are the bridge's
/// to check (it holds the session).
fn input_refusal(
    tool: &str,
    structured: &Value,
    responses: Option<&Map<String, Value>>,
) -> Option<String> {
    use mcp_protocol::input;
    let requests = match input::requests_of(structured)? {
        Ok(r) => r,
        Err(why) => {
            return Some(format!(
                "Tool '{tool}' asked for input in a form pg_mcp cannot send: {why}."
            ))
        }
    };
    let dialog_answered = structured.get("input_requests").is_none()
        && responses
            .and_then(|r| r.get(input::DIALOG_KEY))
            .and_then(input::dialog_answer)
            .is_some();
    if dialog_answered {
        return None;
    }
    REQUEST_CAPABILITIES.with(|c| {
        c.borrow().as_ref().and_then(|caps| {
            input::missing_capability(&requests, caps)
                .map(|(k, m, cap)| format!("Tool '{tool}' needs {m} (input request '{k}'), and this client did not declare the capability '{cap}'."))
        })
    })
}

/// A tool error result (isError) with `text`.
fn tool_error_result(text: String) -> Value {
    json!({"content": [{"type": "text", "text": text}], "isError": true})
}

/// The answer to a `tools/call` whose tool asked for input: the `InputRequiredResult` (the
/// client answers and calls again), or, for `getDialog`'s form answered already, the answer
/// itself as the call's result. A modern client must have declared the capability each
/// request needs; a handshake client's is checked by the bridge, which holds its session.
fn input_required(
    tool: &str,
    asked: Result<Map<String, Value>, String>,
    responses: Option<&Map<String, Value>>,
    outcome: &tools::ToolOutcome,
) -> Result<Value, RpcError> {
    use mcp_protocol::input;
    let requests = match asked {
        Ok(r) => r,
        Err(why) => {
            return Ok(tool_error_result(format!(
                "Tool '{tool}' asked for input in a form pg_mcp cannot send: {why}."
            )))
        }
    };
    let dialog = outcome
        .structured
        .as_ref()
        .is_some_and(|s| s.get("input_requests").is_none());
    if dialog {
        if let Some(answer) = responses
            .and_then(|r| r.get(input::DIALOG_KEY))
            .and_then(input::dialog_answer)
        {
            let text = answer.to_string();
            charge_statement(text.len());
            let mut result = json!({"content": [{"type": "text", "text": text}], "isError": false});
            if mcp_protocol::has_structured_content(&negotiated_version()) {
                result["structuredContent"] = answer;
            }
            return Ok(result);
        }
    }
    let lacking = REQUEST_CAPABILITIES.with(|c| {
        c.borrow().as_ref().and_then(|caps| {
            input::missing_capability(&requests, caps)
                .map(|(k, m, cap)| format!("Tool '{tool}' needs {m} (input request '{k}'), and this client did not declare the capability '{cap}'."))
        })
    });
    if let Some(text) = lacking {
        return Ok(tool_error_result(text));
    }
    Ok(input::input_required_result(requests))
}

/// Whether the tool's function returns an MCP content array (`mcp.tool.returns_content`).
fn returns_content(tool: &str) -> Result<bool, RpcError> {
    Ok(first_row(
        "SELECT returns_content FROM mcp.tool WHERE name = $1",
        &[tool.into()],
        |t| t.get::<bool>(1),
    )
    .map_err(from_spi)?
    .flatten()
    .unwrap_or(false))
}

/// The content items of a content tool's result: its jsonb value (an array arrives wrapped
/// as `{"result": […]}` by the shaping of a lone value), checked item by item.
fn content_of(outcome: &tools::ToolOutcome) -> Result<Vec<Value>, String> {
    let v = match &outcome.structured {
        Some(Value::Object(m)) if m.len() == 1 && m.get("result").is_some_and(Value::is_array) => {
            &m["result"]
        }
        Some(v) => v,
        None => return Err(
            "the function returned no JSON value (it must return jsonb: an array of content items)"
                .into(),
        ),
    };
    mcp_protocol::content::tool_content(v)
}

// ------------------------------------------------------------------------------------------
// Resources (mcp.resource): a URI containing {name} is a template
// ------------------------------------------------------------------------------------------

struct ResourceRow {
    uri: String,
    name: String,
    description: Option<String>,
    mime_type: String,
    function: Option<pg_sys::Oid>,
    query: Option<String>,
}

/// Enabled resources the caller could read (EXECUTE on a reader function), ordered by URI.
fn resources() -> Result<Vec<ResourceRow>, RpcError> {
    // The reader function as text: a signature (the column is text since 0.2.0; 0.1.0's
    // regprocedure column prints as one too), resolved below with the caller's search_path.
    let rows = select_kept(
        "SELECT r.uri, r.name, r.description, r.mime_type, r.function::text, r.query
           FROM mcp.resource r
          WHERE r.enabled
          ORDER BY r.uri COLLATE \"C\"",
        &[],
        |t| {
            let mut out = Vec::new();
            for row in t {
                out.push((
                    ResourceRow {
                        uri: row.get::<String>(1)?.unwrap_or_default(),
                        name: row.get::<String>(2)?.unwrap_or_default(),
                        description: row.get::<String>(3)?,
                        mime_type: row.get::<String>(4)?.unwrap_or_else(|| "text/plain".into()),
                        function: None,
                        query: row.get::<String>(6)?,
                    },
                    row.get::<String>(5)?,
                ));
            }
            Ok(out)
        },
    )
    .map_err(from_spi)?;
    // Resolved after the scan (a resolution may run a subtransaction). A function the caller
    // may not execute, or that no longer resolves, hides its resource.
    let mut out = Vec::new();
    for (mut r, signature) in rows {
        match signature {
            None => out.push(r),
            Some(sig) => {
                if let Some(oid) = crate::registry::resolve_function(&sig)
                    .filter(|o| crate::registry::may_execute_function(*o))
                {
                    r.function = Some(oid);
                    out.push(r);
                }
            }
        }
    }
    Ok(out)
}

fn resources_list(params: &Map<String, Value>, templates: bool) -> Result<Value, RpcError> {
    let cursor = cursor(params)?;
    let all: Vec<ResourceRow> = resources()?
        .into_iter()
        .filter(|r| mcp_protocol::is_uri_template(&r.uri) == templates)
        .collect();
    let (page, next) = mcp_protocol::paginate(&all, |r| r.uri.as_str(), cursor, page_size())?;
    let uri_key = if templates { "uriTemplate" } else { "uri" };
    let items = page
        .into_iter()
        .map(|r| {
            let mut m = Map::new();
            m.insert(uri_key.into(), json!(r.uri));
            m.insert("name".into(), json!(r.name));
            if let Some(d) = &r.description {
                m.insert("description".into(), json!(d));
            }
            m.insert("mimeType".into(), json!(r.mime_type));
            Value::Object(m)
        })
        .collect();
    let key = if templates {
        "resourceTemplates"
    } else {
        "resources"
    };
    Ok(page_result(key, items, next))
}

/// The resource a URI names (a static URI, else the first template it matches, with the
/// template's values).
fn find_resource<'a>(
    all: &'a [ResourceRow],
    uri: &str,
) -> Option<(&'a ResourceRow, Vec<(String, String)>)> {
    all.iter()
        .find(|r| !mcp_protocol::is_uri_template(&r.uri) && r.uri == uri)
        .map(|r| (r, Vec::new()))
        .or_else(|| {
            all.iter()
                .filter(|r| mcp_protocol::is_uri_template(&r.uri))
                .find_map(|r| mcp_protocol::match_uri_template(&r.uri, uri).map(|v| (r, v)))
        })
}

fn resource_not_found(uri: &str) -> RpcError {
    RpcError::new(codes::RESOURCE_NOT_FOUND, "Resource not found")
        .with_data(json!({"uri": uri.chars().take(512).collect::<String>()}))
}

/// One `contents` item of a resource: text, or a base64 blob for a bytea value.
fn read_contents(uri: &str) -> Result<Value, RpcError> {
    let all = resources()?;
    let Some((r, vars)) = find_resource(&all, uri) else {
        return Err(resource_not_found(uri));
    };
    statement_budget_left()?;
    let value = read_resource(r, &vars)?;
    use mcp_protocol::content::ResourceValue;
    charge_statement(match &value {
        Some(ResourceValue::Text(t)) => t.len(),
        Some(ResourceValue::Binary(b)) => b.len().div_ceil(3) * 4,
        None => 0,
    });
    let value = match value {
        Some(v) => v,
        None if vars.is_empty() => ResourceValue::Text(String::new()),
        None => return Err(resource_not_found(uri)),
    };
    Ok(mcp_protocol::content::resource_contents(
        uri,
        &r.mime_type,
        value,
    ))
}

fn resources_read(params: &Map<String, Value>) -> Result<Value, RpcError> {
    let uri = mcp_protocol::str_param(params, "uri")?;
    Ok(json!({"contents": [read_contents(uri)?]}))
}

/// `resources/subscribe`: accepted for a resource the caller can see (its reader is not run).
/// The bridge keeps the subscription and forwards `mcp.resource_updated(uri)` (NOTIFY
/// mcp_resource_updated) as notifications/resources/updated.
fn resources_subscribe(params: &Map<String, Value>) -> Result<Value, RpcError> {
    let uri = mcp_protocol::str_param(params, "uri")?;
    let all = resources()?;
    match find_resource(&all, uri) {
        Some(_) => Ok(json!({})),
        None => Err(resource_not_found(uri)),
    }
}

/// The first column of the first row of the resource's reader, run as the caller in the
/// read-only context under the tool time limit. `None` when it returned no row or NULL. A
/// bytea value is read again whole (the first read keeps only its length), within the result
/// budget.
fn read_resource(
    r: &ResourceRow,
    vars: &[(String, String)],
) -> Result<Option<mcp_protocol::content::ResourceValue>, RpcError> {
    use mcp_protocol::content::ResourceValue;
    let (sql, params): (String, Vec<Param>) = match (&r.function, &r.query) {
        (Some(oid), _) => {
            let sig = function_signature(*oid)
                .map_err(from_mcp)?
                .ok_or_else(|| RpcError::internal("The resource's function no longer exists"))?;
            let mut parts = Vec::new();
            let mut params = Vec::new();
            for (name, value) in vars {
                parts.push(format!(
                    "{} => ${}",
                    pgrx::spi::quote_identifier(name),
                    params.len() + 1
                ));
                params.push(Param::text(value));
            }
            (
                format!("SELECT {}({})", sig.qualified_name, parts.join(", ")),
                params,
            )
        }
        (None, Some(q)) => (
            q.clone(),
            vars.iter().map(|(_, v)| Param::text(v)).collect(),
        ),
        (None, None) => return Err(RpcError::internal("The resource has no reader")),
    };
    let result = with_tool_timeout(gucs::TOOL_TIMEOUT_MS.get(), || {
        // A reader is a read-only tool: in the same sandbox (no session locks, signals,
        // nesting …, also in its dynamic SQL and planner), one value, kept whole up to the
        // tool result budget (mcp.max_result_bytes).
        crate::sandbox::run_sandboxed(crate::sandbox::GuardLevel::ReadOnly, || {
            sql_tool::run_read_only(
                &sql,
                &params,
                &crate::tools::shape::collect_options(1, true, true),
            )
        })
    });
    let rows = match result {
        Ok(q) => q.rows,
        Err(sql_tool::QueryFault::Refused(why)) => {
            return Err(RpcError::internal(format!(
                "The resource cannot be read: {why}"
            )))
        }
        Err(sql_tool::QueryFault::Failed(info)) => {
            // a refusal of the sandbox is explained like a tool's
            if info.sqlstate == "42501" {
                if let Some(why) = crate::sandbox::take_refusal() {
                    return Err(RpcError::internal(format!(
                        "The resource cannot be read: {why}"
                    )));
                }
            }
            pgrx::log!(
                "pg_mcp: resource {} could not be read: SQLSTATE {}: {}",
                r.uri,
                info.sqlstate,
                info.message
            );
            return Err(RpcError::internal("The resource could not be read")
                .with_data(json!({"sqlstate": info.sqlstate})));
        }
    };
    use mcp_tools::Cell;
    Ok(match rows.rows.first().and_then(|row| row.first()) {
        None | Some(Cell::Null) => None,
        Some(Cell::Text(s) | Cell::Number(s) | Cell::Json(s) | Cell::Other { text: s, .. }) => {
            Some(ResourceValue::Text(s.clone()))
        }
        Some(Cell::Bool(b)) => Some(ResourceValue::Text(b.to_string())),
        Some(Cell::Bytes { len }) => {
            let max = crate::tools::shape::max_result_bytes();
            if *len > max {
                return Err(RpcError::internal(format!(
                    "The resource is larger than the result budget of {max} bytes (mcp.max_result_bytes)"
                )));
            }
            read_binary(r, &sql, &params)?.map(ResourceValue::Binary)
        }
        Some(_) => {
            return Err(RpcError::internal(
                "The resource is not text or bytea (vector or oversized values are not served)",
            ))
        }
    })
}

/// A binary resource's bytes: the reader's SQL as a subquery, its first column read as bytea,
/// in the same read-only sandbox and time limit as the first read.
fn read_binary(r: &ResourceRow, sql: &str, params: &[Param]) -> Result<Option<Vec<u8>>, RpcError> {
    let inner = sql.trim_end().trim_end_matches(';');
    let wrapped = format!("SELECT s.v FROM ({inner}\n) AS s(v) LIMIT 1");
    let types: Vec<pg_sys::Oid> = params.iter().map(|p| p.oid).collect();
    let result = with_tool_timeout(gucs::TOOL_TIMEOUT_MS.get(), || {
        crate::sandbox::run_sandboxed(crate::sandbox::GuardLevel::ReadOnly, || {
            sql_tool::read_only(|| {
                if let Err(why) = sql_tool::check_statement(&wrapped, &types) {
                    return Ok(Err(why));
                }
                let datums: Vec<pgrx::datum::DatumWithOid> =
                    params.iter().map(Param::datum).collect();
                pgrx::spi::Spi::connect(|c| {
                    let t = c.select(&wrapped, Some(1), &datums)?;
                    if t.is_empty() {
                        return Ok(Ok(None));
                    }
                    t.first().get::<Vec<u8>>(1).map(Ok)
                })
            })
        })
    });
    match result {
        Ok(Ok(bytes)) => Ok(bytes),
        Ok(Err(why)) | Err(sql_tool::QueryFault::Refused(why)) => Err(RpcError::internal(format!(
            "The resource cannot be read: {why}"
        ))),
        Err(sql_tool::QueryFault::Failed(info)) => {
            pgrx::log!(
                "pg_mcp: resource {} could not be read: SQLSTATE {}: {}",
                r.uri,
                info.sqlstate,
                info.message
            );
            Err(RpcError::internal("The resource could not be read")
                .with_data(json!({"sqlstate": info.sqlstate})))
        }
    }
}

// ------------------------------------------------------------------------------------------
// Prompts (mcp.prompt, active versions)
// ------------------------------------------------------------------------------------------

struct PromptRow {
    name: String,
    role: String,
    variables: Vec<String>,
    description: Option<String>,
    completions: Option<JsonbStored>,
    messages: Option<JsonbStored>,
}

fn prompts(name: Option<&str>) -> Result<Vec<PromptRow>, RpcError> {
    select_kept(
        "SELECT p.name, p.role, p.variables, p.description, p.completions, p.messages
           FROM mcp.prompt p
          WHERE p.active AND ($1::text IS NULL OR p.name = $1)
          ORDER BY p.name COLLATE \"C\"",
        &[name.into()],
        |t| {
            let mut out = Vec::new();
            for row in t {
                out.push(PromptRow {
                    name: row.get::<String>(1)?.unwrap_or_default(),
                    role: row.get::<String>(2)?.unwrap_or_default(),
                    variables: row.get::<Vec<String>>(3)?.unwrap_or_default(),
                    description: row.get::<String>(4)?,
                    completions: row.get::<JsonbStored>(5)?,
                    messages: row.get::<JsonbStored>(6)?,
                });
            }
            Ok(out)
        },
    )
    .map_err(from_spi)
}

fn prompts_list(params: &Map<String, Value>) -> Result<Value, RpcError> {
    let cursor = cursor(params)?;
    let all = prompts(None)?;
    let (page, next) = mcp_protocol::paginate(&all, |p| p.name.as_str(), cursor, page_size())?;
    let items = page
        .into_iter()
        .map(|p| {
            let mut m = Map::new();
            m.insert("name".into(), json!(p.name));
            if let Some(d) = &p.description {
                m.insert("description".into(), json!(d));
            }
            let args: Vec<Value> = p
                .variables
                .iter()
                .map(|v| json!({"name": v, "required": true}))
                .collect();
            m.insert("arguments".into(), Value::Array(args));
            Value::Object(m)
        })
        .collect();
    Ok(page_result("prompts", items, next))
}

fn prompts_get(params: &Map<String, Value>) -> Result<Value, RpcError> {
    let name = mcp_protocol::str_param(params, "name")?;
    let args = mcp_protocol::obj_param(params, "arguments")?;
    let Some(p) = prompts(Some(name))?.into_iter().next() else {
        return Err(RpcError::invalid_params(format!(
            "Unknown prompt: {}",
            name.chars().take(64).collect::<String>()
        )));
    };
    mcp_protocol::check_prompt_arguments(&p.variables, &args)?;
    let (p, declared) = (
        PromptRow {
            messages: None,
            ..p
        },
        p.messages,
    );
    if let Some(messages) = declared {
        let messages = messages
            .value(&format!("the messages of prompt {}", p.name))
            .map_err(from_mcp)?;
        let mut m = Map::new();
        if let Some(d) = &p.description {
            m.insert("description".into(), json!(d));
        }
        m.insert(
            "messages".into(),
            Value::Array(prompt_messages(&p.name, &messages, &args)?),
        );
        return Ok(Value::Object(m));
    }
    // The one renderer (mcp.render_prompt, as plan steps use it): each value inserted as
    // marked, escaped data, so an argument can neither close its block nor add placeholders.
    let rendered = in_subtransaction(false, || {
        first_row(
            "SELECT mcp.render_prompt($1, $2)",
            &[name.into(), JsonB(Value::Object(args.clone())).into()],
            |t| t.get::<String>(1),
        )
    });
    let text = match rendered {
        Ok(Ok(t)) => t.flatten().unwrap_or_default(),
        Ok(Err(e)) => return Err(from_spi(e)),
        Err(info) if info.sqlstate == "22023" || info.sqlstate == "42704" => {
            return Err(RpcError::invalid_params(format!(
                "Invalid params: {}",
                info.message
            )))
        }
        Err(info) => {
            pgrx::log!(
                "pg_mcp: prompt {} could not be rendered: SQLSTATE {}: {}",
                method_for_log(name),
                info.sqlstate,
                info.message
            );
            return Err(RpcError::internal("The prompt could not be rendered")
                .with_data(json!({"sqlstate": info.sqlstate})));
        }
    };
    let mut m = Map::new();
    if let Some(d) = &p.description {
        m.insert("description".into(), json!(d));
    }
    m.insert(
        "messages".into(),
        json!([{
            "role": mcp_protocol::prompt_message_role(&p.role),
            "content": {"type": "text", "text": text}
        }]),
    );
    Ok(Value::Object(m))
}

/// A prompt's declared messages, rendered: placeholders filled, an embedded resource that
/// names only a URI read from the registry as the caller (like resources/read).
fn prompt_messages(
    name: &str,
    messages: &Value,
    args: &Map<String, Value>,
) -> Result<Vec<Value>, RpcError> {
    let broken = |why: String| {
        pgrx::log!(
            "pg_mcp: prompt {} has invalid messages: {why}",
            method_for_log(name)
        );
        RpcError::internal(format!("The prompt's messages are invalid: {why}"))
    };
    mcp_protocol::content::check_prompt_messages(messages).map_err(broken)?;
    let mut out = Vec::new();
    for msg in messages.as_array().into_iter().flatten() {
        let mut content = msg["content"].clone();
        mcp_protocol::content::render_message(&mut content, args)
            .map_err(|e| RpcError::invalid_params(format!("Invalid params: {e}")))?;
        if let Some(uri) = mcp_protocol::content::resource_reference(&content) {
            let uri = uri.to_string();
            content = json!({"type": "resource", "resource": read_contents(&uri)?});
        }
        out.push(json!({"role": msg["role"], "content": content}));
    }
    Ok(out)
}

/// `completion/complete`: for a prompt argument, the values its prompt lists in
/// `mcp.prompt.completions` (a static list: cheap, no query runs); for a resource template's
/// variable, none. An unknown prompt, resource or argument is -32602.
fn complete(params: &Map<String, Value>) -> Result<Value, RpcError> {
    use mcp_protocol::CompletionRef;
    let req = mcp_protocol::completion_request(params)?;
    let unknown_arg = || {
        RpcError::invalid_params(format!(
            "Invalid params: unknown argument \"{}\"",
            req.argument.chars().take(64).collect::<String>()
        ))
    };
    match req.reference {
        CompletionRef::Prompt(name) => {
            let Some(p) = prompts(Some(name))?.into_iter().next() else {
                return Err(RpcError::invalid_params(format!(
                    "Unknown prompt: {}",
                    name.chars().take(64).collect::<String>()
                )));
            };
            if !p.variables.iter().any(|v| v == req.argument) {
                return Err(unknown_arg());
            }
            let completions = p
                .completions
                .map(|c| c.value(&format!("the completions of prompt {}", p.name)))
                .transpose()
                .map_err(from_mcp)?;
            let listed = completions
                .as_ref()
                .and_then(|c| c.get(req.argument))
                .and_then(Value::as_array);
            let candidates = listed.into_iter().flatten().filter_map(Value::as_str);
            Ok(mcp_protocol::complete_values(candidates, req.value))
        }
        CompletionRef::Resource(uri) => {
            let all = resources()?;
            let Some(r) = all.iter().find(|r| r.uri == uri) else {
                return Err(RpcError::invalid_params(format!(
                    "Unknown resource: {}",
                    uri.chars().take(200).collect::<String>()
                )));
            };
            if !mcp_protocol::template_variables(&r.uri)
                .iter()
                .any(|v| v == req.argument)
            {
                return Err(unknown_arg());
            }
            Ok(mcp_protocol::complete_values(std::iter::empty(), req.value))
        }
    }
}

fn set_level(params: &Map<String, Value>) -> Result<Value, RpcError> {
    let level = mcp_protocol::str_param(params, "level")?;
    if !mcp_protocol::LOG_LEVELS.contains(&level) {
        return Err(RpcError::invalid_params(format!(
            "Invalid params: level must be one of {}",
            mcp_protocol::LOG_LEVELS.join(", ")
        )));
    }
    // Accepted and validated; this server sends no notifications/message log records.
    Ok(json!({}))
}
