//! jsonb → `serde_json::Value` without recursion, with a depth limit and clean errors.
//!
//! pgrx's `JsonB` reads a jsonb value through its text form and `serde_json`, whose nesting
//! limit (128) and number range end in a panic carrying serde's raw message ("recursion limit
//! exceeded at line 1 column 130", SQLSTATE XX000). Every jsonb parameter of pg_mcp's SQL surface
//! is declared as [`JsonbArg`] instead, and jsonb columns pg_mcp reads back are read as
//! [`JsonbStored`]: the value is walked with PostgreSQL's own jsonb iterator and built with an
//! explicit stack, so nothing recurses, interrupts are honoured on huge values, and a value that
//! is nested too deeply or holds a number outside the 64-bit floating-point range becomes an
//! ERROR with a real SQLSTATE that names the limit, when the function asks for the value.

use crate::error::{McpError, McpResult};
use pgrx::callconv::{Arg, ArgAbi};
use pgrx::nullable::Nullable;
use pgrx::pg_sys;
use pgrx::prelude::*;
use pgrx::JsonB;
use serde_json::{Map, Number, Value};
use std::ffi::CStr;

/// Deepest nesting of arrays and objects a jsonb argument may have (serde_json's own limit, and
/// the repair engine's `MAX_DEPTH`): deeper is refused with SQLSTATE 54000.
pub const MAX_ARGUMENT_DEPTH: usize = 128;
/// Deepest nesting pg_mcp reads back from its own tables: a stored value wraps arguments of up to
/// [`MAX_ARGUMENT_DEPTH`] levels in a few levels of its own (a message, its tool calls).
pub const MAX_STORED_DEPTH: usize = 2 * MAX_ARGUMENT_DEPTH;

/// A jsonb value read with at most `MAX` levels of nesting; the conversion's outcome is kept
/// until the function asks for it with [`Jsonb::value`].
pub struct Jsonb<const MAX: usize>(Result<Value, JsonbError>);

/// A jsonb parameter of a SQL function.
pub type JsonbArg = Jsonb<MAX_ARGUMENT_DEPTH>;
/// A jsonb column pg_mcp reads back.
pub type JsonbStored = Jsonb<MAX_STORED_DEPTH>;

/// Why a jsonb value could not be read.
#[derive(Debug, Clone, PartialEq)]
pub enum JsonbError {
    TooDeep(usize),
    NumberOutOfRange(String),
}

impl<const MAX: usize> Jsonb<MAX> {
    /// The value; `what` names it in the error (`arguments`, `options`, …).
    pub fn value(self, what: &str) -> McpResult<Value> {
        self.0.map_err(|e| match e {
            JsonbError::TooDeep(max) => McpError::LimitExceeded(format!(
                "{what}: nested more than {max} levels deep (arrays and objects); pg_mcp accepts at most {max} levels"
            )),
            JsonbError::NumberOutOfRange(n) => McpError::OutOfRange(format!(
                "{what}: the number {n} is outside the range pg_mcp handles (64-bit floating point, up to about 1.8e308)"
            )),
        })
    }
}

/// Text of a jsonb numeric (as `numeric_out` prints it), clipped for messages.
fn clip_number(s: &str) -> String {
    if s.len() <= 40 {
        s.to_string()
    } else {
        format!("{}… ({} digits)", &s[..20], s.len())
    }
}

fn number(text: &str) -> Result<Value, JsonbError> {
    if let Ok(n) = text.parse::<Number>() {
        return Ok(Value::Number(n));
    }
    match text.parse::<f64>().ok().and_then(Number::from_f64) {
        Some(n) => Ok(Value::Number(n)),
        None => Err(JsonbError::NumberOutOfRange(clip_number(text))),
    }
}

/// One open container while the value is built.
enum Open {
    Array(Vec<Value>),
    Object(Map<String, Value>, Option<String>),
    /// jsonb stores a top-level scalar as a one-element "raw scalar" array.
    Raw(Option<Value>),
}

/// Tokens between two interrupt checks.
const TOKENS_PER_CHECK: usize = 4096;

/// Read the jsonb `datum` into a `Value` with at most `max_depth` levels.
///
/// # Safety
/// `datum` must be a non-null jsonb datum.
unsafe fn to_value(datum: pg_sys::Datum, max_depth: usize) -> Result<Value, JsonbError> {
    let jb = pg_sys::pg_detoast_datum(datum.cast_mut_ptr()) as *mut pg_sys::Jsonb;
    let mut it = pg_sys::JsonbIteratorInit(&mut (*jb).root);
    let mut v: pg_sys::JsonbValue = std::mem::zeroed();
    let mut stack: Vec<Open> = Vec::new();
    let mut depth = 0usize;
    let mut tokens = 0usize;
    loop {
        tokens += 1;
        if tokens.is_multiple_of(TOKENS_PER_CHECK) {
            pg_sys::check_for_interrupts!();
        }
        let tok = pg_sys::JsonbIteratorNext(&mut it, &mut v, false);
        let done: Option<Value> = match tok {
            pg_sys::JsonbIteratorToken::WJB_DONE => break,
            pg_sys::JsonbIteratorToken::WJB_BEGIN_ARRAY if v.val.array.rawScalar => {
                stack.push(Open::Raw(None));
                None
            }
            pg_sys::JsonbIteratorToken::WJB_BEGIN_ARRAY
            | pg_sys::JsonbIteratorToken::WJB_BEGIN_OBJECT => {
                depth += 1;
                if depth > max_depth {
                    return Err(JsonbError::TooDeep(max_depth));
                }
                stack.push(if tok == pg_sys::JsonbIteratorToken::WJB_BEGIN_ARRAY {
                    Open::Array(Vec::new())
                } else {
                    Open::Object(Map::new(), None)
                });
                None
            }
            pg_sys::JsonbIteratorToken::WJB_KEY => {
                let key = string(&v);
                if let Some(Open::Object(_, pending)) = stack.last_mut() {
                    *pending = Some(key);
                }
                None
            }
            pg_sys::JsonbIteratorToken::WJB_VALUE | pg_sys::JsonbIteratorToken::WJB_ELEM => {
                Some(scalar(&v)?)
            }
            pg_sys::JsonbIteratorToken::WJB_END_ARRAY
            | pg_sys::JsonbIteratorToken::WJB_END_OBJECT => match stack.pop() {
                Some(Open::Raw(x)) => Some(x.unwrap_or(Value::Null)),
                Some(Open::Array(a)) => {
                    depth -= 1;
                    Some(Value::Array(a))
                }
                Some(Open::Object(m, _)) => {
                    depth -= 1;
                    Some(Value::Object(m))
                }
                None => None,
            },
            _ => None,
        };
        let Some(x) = done else { continue };
        // a finished value goes into its container, or is the result
        match stack.last_mut() {
            Some(Open::Array(a)) => a.push(x),
            Some(Open::Object(m, pending)) => {
                if let Some(k) = pending.take() {
                    m.insert(k, x);
                }
            }
            Some(Open::Raw(slot)) => *slot = Some(x),
            None => return Ok(x),
        }
    }
    Ok(Value::Null)
}

unsafe fn string(v: &pg_sys::JsonbValue) -> String {
    let s = v.val.string;
    if s.val.is_null() || s.len <= 0 {
        return String::new();
    }
    let bytes = std::slice::from_raw_parts(s.val as *const u8, s.len as usize);
    String::from_utf8_lossy(bytes).into_owned()
}

unsafe fn scalar(v: &pg_sys::JsonbValue) -> Result<Value, JsonbError> {
    Ok(match v.type_ {
        pg_sys::jbvType::jbvNull => Value::Null,
        pg_sys::jbvType::jbvBool => Value::Bool(v.val.boolean),
        pg_sys::jbvType::jbvString => Value::String(string(v)),
        pg_sys::jbvType::jbvNumeric => {
            let text = pgrx::direct_function_call::<&CStr>(
                pg_sys::numeric_out,
                &[Some(pg_sys::Datum::from(v.val.numeric))],
            )
            .map(|c| c.to_string_lossy().into_owned())
            .unwrap_or_default();
            number(&text)?
        }
        _ => Value::Null,
    })
}

impl<const MAX: usize> FromDatum for Jsonb<MAX> {
    unsafe fn from_polymorphic_datum(
        datum: pg_sys::Datum,
        is_null: bool,
        _: pg_sys::Oid,
    ) -> Option<Self> {
        if is_null {
            None
        } else {
            Some(Jsonb(to_value(datum, MAX)))
        }
    }
}

impl<const MAX: usize> IntoDatum for Jsonb<MAX> {
    fn into_datum(self) -> Option<pg_sys::Datum> {
        self.0.ok().and_then(|v| JsonB(v).into_datum())
    }

    fn type_oid() -> pg_sys::Oid {
        pg_sys::JSONBOID
    }
}

unsafe impl<const MAX: usize> pgrx::datum::UnboxDatum for Jsonb<MAX> {
    type As<'src> = Jsonb<MAX>;

    unsafe fn unbox<'src>(d: pgrx::datum::Datum<'src>) -> Self::As<'src>
    where
        Self: 'src,
    {
        Jsonb(to_value(d.sans_lifetime(), MAX))
    }
}

unsafe impl<'fcx, const MAX: usize> ArgAbi<'fcx> for Jsonb<MAX> {
    unsafe fn unbox_arg_unchecked(arg: Arg<'_, 'fcx>) -> Self {
        let index = arg.index();
        arg.unbox_arg_using_from_datum()
            .unwrap_or_else(|| panic!("argument {index} must not be null"))
    }

    unsafe fn unbox_nullable_arg(arg: Arg<'_, 'fcx>) -> Nullable<Self> {
        arg.unbox_arg_using_from_datum().into()
    }
}

unsafe impl<const MAX: usize> pgrx::pgrx_sql_entity_graph::metadata::SqlTranslatable
    for Jsonb<MAX>
{
    const TYPE_IDENT: &'static str = pgrx::pgrx_resolved_type!(Jsonb<MAX>);
    const TYPE_ORIGIN: pgrx::pgrx_sql_entity_graph::metadata::TypeOrigin =
        pgrx::pgrx_sql_entity_graph::metadata::TypeOrigin::External;
    const ARGUMENT_SQL: Result<
        pgrx::pgrx_sql_entity_graph::metadata::SqlMappingRef,
        pgrx::pgrx_sql_entity_graph::metadata::ArgumentError,
    > = Ok(pgrx::pgrx_sql_entity_graph::metadata::SqlMappingRef::literal("jsonb"));
    const RETURN_SQL: Result<
        pgrx::pgrx_sql_entity_graph::metadata::ReturnsRef,
        pgrx::pgrx_sql_entity_graph::metadata::ReturnsError,
    > = Ok(pgrx::pgrx_sql_entity_graph::metadata::ReturnsRef::One(
        pgrx::pgrx_sql_entity_graph::metadata::SqlMappingRef::literal("jsonb"),
    ));
}
