//! Rows of a tool's query → `mcp_tools::Cell`s, with memory bounded by what is shown.
//!
//! * The query runs through a cursor and rows are fetched **one at a time** (at most
//!   `limit + 1`, the n+1 row only says "more rows exist"); each row's SPI copy is freed
//!   before the next is fetched, so a wide row is held once, not `limit` times.
//! * A value's size is checked **before** it is detoasted: text-like values are read as a
//!   slice of the bytes a cell can show; bytea and vectors are measured, not read; any other
//!   value larger than the result budget is not read at all and becomes the placeholder
//!   `<TYPE not shown, N bytes>`.
//! * A **result budget** (`mcp.max_result_bytes`) bounds the rendered size of all rows
//!   together; the row that would exceed it ends the fetch, and the metadata line says so.

use mcp_tools::{Cell, ResultBudget, ShapeOptions};
use pgrx::datum::DatumWithOid;
use pgrx::pg_sys;
use pgrx::prelude::*;
use pgrx::spi::SpiResult;
use std::cell::Cell as StdCell;
use std::ffi::CStr;
use std::mem::ManuallyDrop;

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

/// How rows are collected.
pub struct CollectOptions {
    /// Rows to keep; one more is fetched to learn whether more exist.
    pub limit: usize,
    /// Rendering options (the budget counts rendered bytes).
    pub shape: ShapeOptions,
    /// Characters of a text-like value kept per cell (at least what rendering shows).
    pub keep_chars: usize,
    /// A lone value (the first row of a one-column result) may keep this many characters and
    /// its JSON whole; clipped like every other cell once a second row arrives (function tools
    /// return a single value as is).
    pub single_value_chars: Option<usize>,
    /// Keep JSON documents whole (the MCP server's resources parse them).
    pub json_whole: bool,
    /// The result budget in bytes (also the largest value read for output).
    pub max_bytes: usize,
}

/// The outcome of [`fetch`].
pub struct Fetched {
    pub rows: Rows,
    /// The first row's lone jsonb value, read as a value through PostgreSQL's jsonb iterator
    /// (with `single_value_chars`): a function tool's result is not parsed back from its text.
    pub lone_json: Option<serde_json::Value>,
    /// Rows exist beyond those kept (the n+1 row, or the row that did not fit the budget).
    pub more_rows: bool,
    /// The budget ended the fetch.
    pub budget_reached: bool,
}

/// OID of pgvector's `vector` type (cached per backend; INVALID when not installed).
fn vector_oid() -> pg_sys::Oid {
    thread_local! { static OID: StdCell<Option<pg_sys::Oid>> = const { StdCell::new(None) }; }
    if let Some(o) = OID.with(|c| c.get()) {
        return o;
    }
    let o = crate::pg::read_one::<pg_sys::Oid>(
        "SELECT t.oid FROM pg_catalog.pg_type t JOIN pg_catalog.pg_extension e \
         ON e.extnamespace OPERATOR(pg_catalog.=) t.typnamespace \
         WHERE e.extname OPERATOR(pg_catalog.=) 'vector' AND t.typname OPERATOR(pg_catalog.=) 'vector'",
        &[],
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

/// The first `max_chars` characters plus one (so that clipping stays visible), without
/// splitting a character.
fn keep_prefix(mut s: String, max_chars: usize) -> String {
    if let Some((idx, _)) = s.char_indices().nth(max_chars.saturating_add(1)) {
        s.truncate(idx);
    }
    s
}

/// Bytes of a varlena value's data once detoasted, read from its header (no detoasting).
unsafe fn varlena_size(d: pg_sys::Datum) -> usize {
    pg_sys::toast_raw_datum_size(d).saturating_sub(pg_sys::VARHDRSZ)
}

/// The text of a text-like varlena value (text, varchar, char, json), at most `max_chars`
/// characters plus one: a long value is read as a slice of its first bytes (a TOASTed value
/// is not fetched or decompressed beyond them).
unsafe fn text_like(d: pg_sys::Datum, typoid: pg_sys::Oid, max_chars: usize) -> String {
    // UTF-8 needs at most 4 bytes per character.
    let want = max_chars.saturating_add(2).saturating_mul(4);
    if varlena_size(d) <= want {
        return keep_prefix(output_text(d, typoid), max_chars);
    }
    let slice =
        pg_sys::pg_detoast_datum_slice(d.cast_mut_ptr(), 0, want.min(i32::MAX as usize) as i32);
    let bytes = std::slice::from_raw_parts(
        pgrx::varlena::vardata_any(slice).cast::<u8>(),
        pgrx::varlena::varsize_any_exhdr(slice),
    );
    let text = String::from_utf8_lossy(bytes).into_owned();
    pg_sys::pfree(slice.cast());
    keep_prefix(text, max_chars)
}

/// How much of one value to keep.
#[derive(Clone, Copy)]
struct Keep {
    chars: usize,
    json_whole: bool,
    max_bytes: usize,
}

unsafe fn cell_of(
    datum: Option<pg_sys::Datum>,
    typoid: pg_sys::Oid,
    typlen: i16,
    vector: pg_sys::Oid,
    keep: Keep,
) -> Cell {
    let Some(d) = datum else { return Cell::Null };
    match typoid {
        pg_sys::BOOLOID => Cell::Bool(bool::from_datum(d, false).unwrap_or(false)),
        pg_sys::INT2OID
        | pg_sys::INT4OID
        | pg_sys::INT8OID
        | pg_sys::FLOAT4OID
        | pg_sys::FLOAT8OID
        | pg_sys::OIDOID => Cell::Number(output_text(d, typoid)),
        pg_sys::BYTEAOID => Cell::Bytes {
            len: varlena_size(d),
        },
        pg_sys::TEXTOID | pg_sys::VARCHAROID | pg_sys::BPCHAROID => {
            Cell::Text(text_like(d, typoid, keep.chars))
        }
        pg_sys::NAMEOID => Cell::Text(output_text(d, typoid)),
        pg_sys::JSONOID if !keep.json_whole => Cell::Json(text_like(d, typoid, keep.chars)),
        t if t == vector && t != pg_sys::Oid::INVALID => {
            // pgvector layout: varlena header, int16 dim, int16 unused, float4 x[dim]; only
            // the dimension is read.
            let head = pg_sys::pg_detoast_datum_slice(d.cast_mut_ptr(), 0, 4);
            let dim = if pgrx::varlena::varsize_any_exhdr(head) >= 2 {
                (pgrx::varlena::vardata_any(head) as *const u8)
                    .cast::<i16>()
                    .read_unaligned()
            } else {
                0
            };
            pg_sys::pfree(head.cast());
            Cell::Vector {
                dim: dim.max(0) as usize,
            }
        }
        _ => {
            // Everything else needs its output function, which reads the whole value: only
            // for values that fit the result budget.
            let size = if typlen == -1 {
                varlena_size(d)
            } else if typlen == -2 {
                CStr::from_ptr(d.cast_mut_ptr::<std::ffi::c_char>())
                    .to_bytes()
                    .len()
            } else {
                typlen.max(0) as usize
            };
            if size > keep.max_bytes {
                return Cell::Omitted {
                    type_name: type_name(typoid),
                    len: Some(size as u64),
                };
            }
            let text = output_text(d, typoid);
            match typoid {
                pg_sys::JSONOID | pg_sys::JSONBOID if keep.json_whole => Cell::Json(text),
                pg_sys::JSONOID | pg_sys::JSONBOID => Cell::Json(keep_prefix(text, keep.chars)),
                pg_sys::NUMERICOID => Cell::Number(keep_prefix(text, keep.chars)),
                _ => Cell::Other {
                    type_name: type_name(typoid),
                    text: keep_prefix(text, keep.chars),
                },
            }
        }
    }
}

/// Clip a cell that was kept as a lone value to what any other cell keeps.
fn clip_kept(cell: &mut Cell, chars: usize) {
    match cell {
        Cell::Text(s) | Cell::Number(s) | Cell::Json(s) | Cell::Other { text: s, .. } => {
            *s = keep_prefix(std::mem::take(s), chars);
        }
        _ => {}
    }
}

/// Run `sql` (a query that returns rows) with `args` through a cursor and collect its rows
/// as described in the module docs. Raises on SQL errors: call it in a subtransaction.
/// The cursor of [`fetch`], closed when it goes out of scope — except while an ERROR unwinds.
/// pgrx's cursor closes its portal in `Drop`; during the unwinding of an ERROR that runs before
/// the subtransaction's abort, in the wrong order: dropping the failed portal releases its
/// resources (the dynamic shared memory of a parallel query started inside the query, e.g. by
/// `query_to_xml`), and the abort's parallel cleanup then touched the unmapped memory (signal 11
/// when a parallel worker's error reached the tool). While panicking the portal is left to the
/// abort, which cleans parallel state first and portals after, as PostgreSQL's own error path.
struct OpenCursor<'a>(ManuallyDrop<pgrx::spi::SpiCursor<'a>>);

impl Drop for OpenCursor<'_> {
    fn drop(&mut self) {
        if !std::thread::panicking() {
            // SAFETY: dropped once, here; never used afterwards
            unsafe { ManuallyDrop::drop(&mut self.0) }
        }
    }
}

/// A cursor over `sql` run as SPI runs a statement that may write (`read_only = false`): with a
/// fresh snapshot, so a tool called late in a long chat sees what other transactions committed
/// since the chat's statement began, and the functions it calls may write. pgrx's
/// `try_open_cursor_mut` first assigns a transaction id (`GetCurrentTransactionId`), which a tool
/// that only reads does not need: the caller's transaction then had one for nothing, and its
/// commit wrote a commit record and waited for a WAL flush although nothing was written (with the
/// durable audit on, the caller's transaction writes nothing at all). A hot standby cannot assign
/// one (XX000 "cannot assign TransactionIds during recovery"); this path needs none there either.
/// A tool that writes gets its transaction id from its first write, as any statement does.
fn open_fresh_cursor<'c>(
    c: &pgrx::spi::SpiClient<'c>,
    sql: &str,
    args: &[DatumWithOid<'_>],
) -> SpiResult<pgrx::spi::SpiCursor<'c>> {
    let Ok(src) = std::ffi::CString::new(sql) else {
        return Err(pgrx::spi::SpiError::SpiError(
            pgrx::spi::SpiErrorCodes::Argument,
        ));
    };
    let mut types: Vec<pg_sys::Oid> = args.iter().map(|a| a.oid()).collect();
    let mut values: Vec<pg_sys::Datum> = Vec::with_capacity(args.len());
    let mut nulls: Vec<std::ffi::c_char> = Vec::with_capacity(args.len());
    for a in args {
        match a.datum() {
            Some(d) => {
                values.push(d.sans_lifetime());
                nulls.push(b' ' as std::ffi::c_char);
            }
            None => {
                values.push(pg_sys::Datum::from(0usize));
                nulls.push(b'n' as std::ffi::c_char);
            }
        }
    }
    // SAFETY: SPI is connected (`c`); the arrays hold args.len() entries each and outlive the
    // call, which copies the values into the portal; it raises an ERROR instead of returning
    // NULL. The portal's name is a NUL-terminated string PostgreSQL assigned (`<unnamed portal
    // N>`), valid while the portal is.
    let name = unsafe {
        let portal = pg_sys::SPI_cursor_open_with_args(
            std::ptr::null(),
            src.as_ptr(),
            args.len() as i32,
            types.as_mut_ptr(),
            values.as_mut_ptr(),
            nulls.as_ptr(),
            false,
            0,
        );
        CStr::from_ptr((*portal).name)
            .to_string_lossy()
            .into_owned()
    };
    c.find_cursor(&name)
}

pub fn fetch(sql: &str, args: &[DatumWithOid<'_>], opts: &CollectOptions) -> SpiResult<Fetched> {
    let vector = vector_oid();
    Spi::connect(|c| {
        let cursor = open_fresh_cursor(c, sql, args)?;
        let mut cursor = OpenCursor(ManuallyDrop::new(cursor));
        let mut budget = ResultBudget::new(opts.max_bytes);
        let mut columns: Option<Vec<(String, pg_sys::Oid, i16)>> = None;
        let mut rows: Vec<Vec<Cell>> = Vec::new();
        let mut more_rows = false;
        let mut budget_reached = false;
        let mut lone_json = None;
        loop {
            let empty = cursor.0.fetch(1)?.is_empty();
            // SAFETY: SPI_cursor_fetch just set SPI_tuptable (with the tuple descriptor, also
            // for an empty fetch); it is freed below before the next fetch.
            let tuptable = unsafe { pg_sys::SPI_tuptable };
            if tuptable.is_null() {
                break;
            }
            let tupdesc = unsafe { (*tuptable).tupdesc };
            let cols = columns.get_or_insert_with(|| unsafe { column_info(tupdesc) });
            let row = if empty || rows.len() >= opts.limit {
                None
            } else {
                let single = cols.len() == 1 && rows.is_empty();
                let keep = Keep {
                    chars: match (single, opts.single_value_chars) {
                        (true, Some(n)) => n.max(opts.keep_chars),
                        _ => opts.keep_chars,
                    },
                    json_whole: opts.json_whole || (single && opts.single_value_chars.is_some()),
                    max_bytes: opts.max_bytes,
                };
                let tuple = unsafe { *(*tuptable).vals };
                if single && opts.single_value_chars.is_some() && cols[0].1 == pg_sys::JSONBOID {
                    let mut is_null = false;
                    let d = unsafe { pg_sys::SPI_getbinval(tuple, tupdesc, 1, &mut is_null) };
                    // a value beyond the result budget is not read (its cell says so)
                    if !is_null && unsafe { varlena_size(d) } <= opts.max_bytes {
                        // as deep as serde_json reads (what a caller of the text would get)
                        lone_json = unsafe {
                            crate::jsonb::JsonbArg::from_polymorphic_datum(
                                d,
                                false,
                                pg_sys::JSONBOID,
                            )
                        }
                        .and_then(|j| j.value("the result").ok());
                    }
                }
                let mut row = Vec::with_capacity(cols.len());
                for (i, (_, typoid, typlen)) in cols.iter().enumerate() {
                    let mut is_null = false;
                    let d = unsafe {
                        pg_sys::SPI_getbinval(tuple, tupdesc, (i + 1) as i32, &mut is_null)
                    };
                    row.push(unsafe {
                        cell_of((!is_null).then_some(d), *typoid, *typlen, vector, keep)
                    });
                }
                Some(row)
            };
            unsafe {
                pg_sys::SPI_freetuptable(tuptable);
                pg_sys::SPI_tuptable = std::ptr::null_mut();
            }
            if empty {
                break;
            }
            let Some(row) = row else {
                // the n+1 row
                more_rows = true;
                break;
            };
            if rows.len() == 1 && opts.single_value_chars.is_some() && !opts.json_whole {
                // a second row: the first is no longer a lone value
                rows[0]
                    .iter_mut()
                    .for_each(|c| clip_kept(c, opts.keep_chars));
            }
            if rows.is_empty() {
                let names: Vec<String> = cols.iter().map(|c| c.0.clone()).collect();
                budget.take(mcp_tools::header_bytes(&names, &opts.shape));
            }
            if !budget.take(mcp_tools::row_bytes(&row, &opts.shape)) {
                more_rows = true;
                budget_reached = true;
                break;
            }
            rows.push(row);
        }
        drop(cursor);
        let columns = columns
            .unwrap_or_default()
            .into_iter()
            .map(|c| c.0)
            .collect();
        Ok(Fetched {
            rows: Rows { columns, rows },
            lone_json,
            more_rows,
            budget_reached,
        })
    })
}

/// Names, types and type lengths of the result's columns; a domain counts as its base type
/// (a domain over text is sliced like text).
unsafe fn column_info(tupdesc: pg_sys::TupleDesc) -> Vec<(String, pg_sys::Oid, i16)> {
    if tupdesc.is_null() {
        return Vec::new();
    }
    // PgTupleDesc reads the attributes the way each version lays them out (18 moved them
    // behind TupleDescAttr); from_pg_unchecked neither releases nor frees SPI's descriptor.
    let desc = pgrx::PgTupleDesc::from_pg_unchecked(tupdesc);
    desc.iter()
        .map(|a| {
            let name = CStr::from_ptr(a.attname.data.as_ptr())
                .to_string_lossy()
                .into_owned();
            (name, pg_sys::getBaseType(a.atttypid), a.attlen)
        })
        .collect()
}
