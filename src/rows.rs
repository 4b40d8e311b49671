//! SPI result rows → `mcp_tools::Cell`s, without formatting what is never shown
//! (bytea and vectors are measured, not printed).

use mcp_tools::Cell;
use pgrx::pg_sys;
use pgrx::prelude::*;
use pgrx::spi::{SpiResult, SpiTupleTable};
use std::cell::Cell as StdCell;
use std::ffi::CStr;

/// Fetched rows with their column names.
pub struct Rows {
    pub columns: Vec<String>,
    pub rows: Vec<Vec<Cell>>,
}

impl Rows {
    /// The value when the result is exactly one row of one json/jsonb column.
    pub fn single_json(&self) -> Option<serde_json::Value> {
        match self.rows.as_slice() {
            [row] => match row.as_slice() {
                [Cell::Json(text)] => serde_json::from_str(text).ok(),
                _ => None,
            },
            _ => None,
        }
    }
}

/// OID of pgvector's `vector` type (cached per backend; INVALID when not installed).
fn vector_oid() -> pg_sys::Oid {
    thread_local! { static OID: StdCell<Option<pg_sys::Oid>> = const { StdCell::new(None) }; }
    if let Some(o) = OID.with(|c| c.get()) {
        return o;
    }
    let o = Spi::get_one::<pg_sys::Oid>(
        "SELECT t.oid FROM pg_catalog.pg_type t JOIN pg_catalog.pg_extension e \
         ON e.extnamespace = t.typnamespace WHERE e.extname = 'vector' AND t.typname = 'vector'",
    )
    .ok()
    .flatten()
    .unwrap_or(pg_sys::Oid::INVALID);
    OID.with(|c| c.set(Some(o)));
    o
}

fn type_name(oid: pg_sys::Oid) -> String {
    unsafe {
        let p = pg_sys::format_type_be(oid);
        let s = CStr::from_ptr(p).to_string_lossy().into_owned();
        pg_sys::pfree(p.cast());
        s
    }
}

/// Text output of any datum through its type's output function.
unsafe fn output_text(datum: pg_sys::Datum, typoid: pg_sys::Oid) -> String {
    let mut out_fn = pg_sys::Oid::INVALID;
    let mut is_varlena = false;
    pg_sys::getTypeOutputInfo(typoid, &mut out_fn, &mut is_varlena);
    let p = pg_sys::OidOutputFunctionCall(out_fn, datum);
    let s = CStr::from_ptr(p).to_string_lossy().into_owned();
    pg_sys::pfree(p.cast());
    s
}

unsafe fn cell_of(datum: Option<pg_sys::Datum>, typoid: pg_sys::Oid, vector: pg_sys::Oid) -> Cell {
    let Some(d) = datum else { return Cell::Null };
    match typoid {
        pg_sys::BOOLOID => Cell::Bool(bool::from_datum(d, false).unwrap_or(false)),
        pg_sys::INT2OID
        | pg_sys::INT4OID
        | pg_sys::INT8OID
        | pg_sys::NUMERICOID
        | pg_sys::FLOAT4OID
        | pg_sys::FLOAT8OID
        | pg_sys::OIDOID => Cell::Number(output_text(d, typoid)),
        pg_sys::JSONBOID | pg_sys::JSONOID => Cell::Json(output_text(d, typoid)),
        pg_sys::BYTEAOID => {
            let raw = pg_sys::toast_raw_datum_size(d);
            Cell::Bytes {
                len: raw.saturating_sub(pg_sys::VARHDRSZ),
            }
        }
        pg_sys::TEXTOID | pg_sys::VARCHAROID | pg_sys::BPCHAROID | pg_sys::NAMEOID => {
            Cell::Text(output_text(d, typoid))
        }
        t if t == vector && t != pg_sys::Oid::INVALID => {
            // pgvector layout: varlena header, int16 dim, int16 unused, float4 x[dim].
            let v = pg_sys::pg_detoast_datum(d.cast_mut_ptr());
            let dim = *(v as *const u8).add(pg_sys::VARHDRSZ).cast::<i16>();
            Cell::Vector {
                dim: dim.max(0) as usize,
            }
        }
        _ => Cell::Other {
            type_name: type_name(typoid),
            text: output_text(d, typoid),
        },
    }
}

/// Copy up to `limit` rows of a tuple table into cells.
pub fn collect(table: SpiTupleTable<'_>, limit: usize) -> SpiResult<Rows> {
    let ncols = table.columns().unwrap_or(0);
    let mut columns = Vec::with_capacity(ncols);
    let mut column_types = Vec::with_capacity(ncols);
    for i in 1..=ncols {
        columns.push(table.column_name(i)?);
        column_types.push(table.column_type_oid(i)?.value());
    }
    let vector = vector_oid();
    let mut rows = Vec::new();
    let nrows = table.len();
    let mut table = table;
    for r in 0..nrows.min(limit) {
        table = if r == 0 {
            table.first()
        } else {
            advance(table)
        };
        let mut row = Vec::with_capacity(ncols);
        for (i, typoid) in column_types.iter().enumerate() {
            let datum = table.get_datum_by_ordinal(i + 1)?;
            row.push(unsafe { cell_of(datum, *typoid, vector) });
        }
        rows.push(row);
    }
    Ok(Rows { columns, rows })
}

fn advance(mut table: SpiTupleTable<'_>) -> SpiTupleTable<'_> {
    // The iterator moves the cursor one row; the row itself is read by ordinal afterwards.
    let _ = table.next();
    table
}
