//! Arguments → typed statement parameters: the one way a tool's JSON arguments reach SQL.
//!
//! Every value becomes a [`Param`]: the type it is bound as (an OID: a function tool's
//! argument type from `pg_proc`, a report parameter's type from its schema property) and the
//! value — SQL NULL, text for the type's input function ([`mcp_tools::report::input_text`]:
//! strings as they are, arrays as array literals), or a jsonb document. The value is never
//! spliced into the statement text; bad input raises in the type's input function, inside the
//! call's subtransaction.

use mcp_tools::report::{input_text, InputForm, SqlType};
use pgrx::datum::DatumWithOid;
use pgrx::prelude::*;
use pgrx::JsonB;
use serde_json::Value;
use std::ffi::CString;

/// One bound argument.
pub struct Param {
    /// The type the value is bound as.
    pub oid: pg_sys::Oid,
    pub value: ParamValue,
}

/// The value of a [`Param`].
pub enum ParamValue {
    Null,
    /// Text for the input function of [`Param::oid`].
    Text(String),
    /// A jsonb document (json and jsonb arguments).
    Jsonb(Value),
    /// A JSON object for a composite type, filled by name (`jsonb_populate_record`).
    Record(Value),
}

/// The OID of a report parameter's type.
pub fn sql_type_oid(t: SqlType) -> pg_sys::Oid {
    match t {
        SqlType::Bigint => pg_sys::INT8OID,
        SqlType::Numeric => pg_sys::NUMERICOID,
        SqlType::Boolean => pg_sys::BOOLOID,
        SqlType::Date => pg_sys::DATEOID,
        SqlType::Timestamptz => pg_sys::TIMESTAMPTZOID,
        SqlType::Time => pg_sys::TIMEOID,
        SqlType::Uuid => pg_sys::UUIDOID,
        SqlType::Text => pg_sys::TEXTOID,
        SqlType::Jsonb => pg_sys::JSONBOID,
        SqlType::TextArray => pg_sys::TEXTARRAYOID,
        SqlType::BigintArray => pg_sys::INT8ARRAYOID,
        SqlType::NumericArray => pg_sys::NUMERICARRAYOID,
        SqlType::BooleanArray => pg_sys::BOOLARRAYOID,
    }
}

impl Param {
    /// A text value (`text` parameter).
    pub fn text(value: &str) -> Param {
        Param {
            oid: pg_sys::TEXTOID,
            value: ParamValue::Text(value.to_string()),
        }
    }

    /// A JSON argument (`None`: absent) bound as type `oid`.
    pub fn of_json(value: Option<&Value>, oid: pg_sys::Oid) -> Param {
        let value = match value {
            None | Some(Value::Null) => {
                return Param {
                    oid,
                    value: ParamValue::Null,
                }
            }
            Some(v) => v,
        };
        let value = if oid == pg_sys::JSONBOID || oid == pg_sys::JSONOID {
            ParamValue::Jsonb(value.clone())
        } else if value.is_object() && unsafe { pg_sys::type_is_rowtype(oid) } {
            ParamValue::Record(value.clone())
        } else {
            let is_array = unsafe { pg_sys::get_element_type(pg_sys::getBaseType(oid)) }
                != pg_sys::Oid::INVALID;
            let form = if is_array {
                InputForm::Array
            } else {
                InputForm::Scalar
            };
            ParamValue::Text(input_text(Some(value), form).unwrap_or_default())
        };
        Param { oid, value }
    }

    /// Append this parameter's datums to `datums` and return its expression in the statement
    /// (`$n`, a cast for json, `jsonb_populate_record` for a record). Raises on input the type
    /// refuses: call it inside the call's subtransaction.
    pub fn bind(&self, datums: &mut Vec<DatumWithOid<'static>>) -> String {
        match &self.value {
            ParamValue::Jsonb(v) => {
                datums.push(JsonB(v.clone()).into());
                if self.oid == pg_sys::JSONOID {
                    // jsonb's normalized text, as a json value
                    format!("${}::pg_catalog.json", datums.len())
                } else {
                    format!("${}", datums.len())
                }
            }
            ParamValue::Record(v) => {
                // a typed NULL of the composite type selects jsonb_populate_record's result type
                datums.push(DatumWithOid::null_oid(self.oid));
                datums.push(JsonB(v.clone()).into());
                format!(
                    "pg_catalog.jsonb_populate_record(${}, ${})",
                    datums.len() - 1,
                    datums.len()
                )
            }
            ParamValue::Null => {
                datums.push(DatumWithOid::null_oid(self.oid));
                format!("${}", datums.len())
            }
            ParamValue::Text(t) => {
                datums.push(input_datum(t, self.oid));
                format!("${}", datums.len())
            }
        }
    }

    /// The parameter as the one datum of a positional `$n` (report bodies, whose types are
    /// never composite).
    pub fn datum(&self) -> DatumWithOid<'static> {
        match &self.value {
            ParamValue::Null => DatumWithOid::null_oid(self.oid),
            ParamValue::Text(t) => input_datum(t, self.oid),
            ParamValue::Jsonb(v) | ParamValue::Record(v) => input_datum(&v.to_string(), self.oid),
        }
    }
}

/// A value of type `oid` from its text, through the type's input function (raises on bad
/// input). NUL characters, which no PostgreSQL text can hold, are dropped.
fn input_datum(text: &str, oid: pg_sys::Oid) -> DatumWithOid<'static> {
    let Ok(c) = CString::new(text.replace('\0', "")) else {
        return DatumWithOid::null_oid(oid);
    };
    unsafe {
        let mut input = pg_sys::Oid::INVALID;
        let mut ioparam = pg_sys::Oid::INVALID;
        pg_sys::getTypeInputInfo(oid, &mut input, &mut ioparam);
        let d = pg_sys::OidInputFunctionCall(input, c.as_ptr().cast_mut(), ioparam, -1);
        DatumWithOid::new(d, oid)
    }
}
