//! `schema_information`: the relations and columns the calling role can read, from the catalog,
//! rendered as one line per column ([`mcp_tools::report::render_schema`]). The catalog query
//! runs in the read-only context and returns arrays, read as values (no JSON built in SQL).

use super::shape::max_result_bytes;
use super::{query_fault, Call, Kind, ToolOutcome};
use crate::error::McpResult;
use crate::sql_tool;
use mcp_tools::report::{ColumnInfo, RelationInfo};
use mcp_tools::ResultBudget;
use pgrx::prelude::*;
use serde_json::Value;

pub struct SchemaInformation;

/// Characters of schema overview a model gets at most.
const SCHEMA_INFO_MAX_CHARS: usize = 16_000;
/// Relations read at most (one more says that more exist).
const SCHEMA_INFO_MAX_RELATIONS: usize = 1000;

impl Kind for SchemaInformation {
    fn run(&self, call: &mut Call<'_>) -> McpResult<ToolOutcome> {
        let filter = |key: &str| {
            call.args
                .get(key)
                .and_then(Value::as_str)
                .map(str::to_string)
        };
        let (schema, table) = (filter("schema"), filter("table"));
        match sql_tool::read_only(|| relations(schema, table)) {
            Ok((relations, more)) => {
                let mut text = mcp_tools::report::render_schema(&relations, SCHEMA_INFO_MAX_CHARS);
                if more && !text.contains("not shown") {
                    text.push_str(
                        "… more relations exist; ask again with a schema or table filter.\n",
                    );
                }
                Ok(ToolOutcome::ok((text, None)))
            }
            Err(f) => Ok(query_fault(call, f, false)),
        }
    }
}

/// The relations (at most [`SCHEMA_INFO_MAX_RELATIONS`], within the result budget) and whether
/// more exist.
fn relations(
    schema: Option<String>,
    table: Option<String>,
) -> Result<(Vec<RelationInfo>, bool), pgrx::spi::SpiError> {
    Spi::connect(|c| {
        let rows = c.select(
            SCHEMA_SQL,
            Some((SCHEMA_INFO_MAX_RELATIONS + 1) as i64),
            &[schema.into(), table.into()],
        )?;
        let mut budget = ResultBudget::new(max_result_bytes());
        let mut out = Vec::new();
        for row in rows {
            if out.len() == SCHEMA_INFO_MAX_RELATIONS {
                return Ok((out, true));
            }
            let texts = |i: usize| -> Result<Vec<String>, pgrx::spi::SpiError> {
                Ok(row
                    .get::<Vec<Option<String>>>(i)?
                    .unwrap_or_default()
                    .into_iter()
                    .map(Option::unwrap_or_default)
                    .collect())
            };
            let names = texts(7)?;
            let types = texts(8)?;
            let not_null: Vec<Option<bool>> = row.get(9)?.unwrap_or_default();
            let comments: Vec<Option<String>> = row.get(10)?.unwrap_or_default();
            let columns: Vec<ColumnInfo> = names
                .into_iter()
                .enumerate()
                .map(|(i, name)| ColumnInfo {
                    name,
                    type_name: types.get(i).cloned().unwrap_or_default(),
                    not_null: not_null.get(i).copied().flatten().unwrap_or(false),
                    comment: comments.get(i).cloned().flatten(),
                })
                .collect();
            let rel = RelationInfo {
                schema: row.get::<String>(1)?.unwrap_or_default(),
                name: row.get::<String>(2)?.unwrap_or_default(),
                kind: row.get::<String>(3)?.unwrap_or_default(),
                comment: row.get::<String>(4)?,
                primary_key: texts(5)?,
                foreign_keys: texts(6)?,
                columns,
            };
            if !budget.take(relation_bytes(&rel)) {
                return Ok((out, true));
            }
            out.push(rel);
        }
        Ok((out, false))
    })
}

/// The bytes a relation's catalog data holds (what the result budget counts).
fn relation_bytes(r: &RelationInfo) -> usize {
    let text = |s: &str| s.len() + 3;
    text(&r.schema)
        + text(&r.name)
        + text(&r.kind)
        + r.comment.as_deref().map_or(0, text)
        + r.primary_key.iter().map(|s| text(s)).sum::<usize>()
        + r.foreign_keys.iter().map(|s| text(s)).sum::<usize>()
        + r.columns
            .iter()
            .map(|c| text(&c.name) + text(&c.type_name) + 6 + c.comment.as_deref().map_or(0, text))
            .sum::<usize>()
}

/// Relations and columns the calling role can read (privileges checked per column), without
/// system schemas and pg_mcp's own.
const SCHEMA_SQL: &str = "
SELECT n.nspname::text, c.relname::text,
       CASE c.relkind WHEN 'r' THEN 'table' WHEN 'p' THEN 'partitioned table' WHEN 'v' THEN 'view'
                      WHEN 'm' THEN 'materialized view' WHEN 'f' THEN 'foreign table' END,
       pg_catalog.obj_description(c.oid, 'pg_class'),
       ARRAY(SELECT a.attname::text
               FROM pg_catalog.pg_constraint con
               CROSS JOIN LATERAL pg_catalog.unnest(con.conkey) WITH ORDINALITY AS k(attnum, ord)
               JOIN pg_catalog.pg_attribute a ON a.attrelid = c.oid AND a.attnum = k.attnum
              WHERE con.conrelid = c.oid AND con.contype = 'p'
              ORDER BY k.ord),
       ARRAY(SELECT pg_catalog.regexp_replace(pg_catalog.pg_get_constraintdef(con.oid), '^FOREIGN KEY ', '')
               FROM pg_catalog.pg_constraint con WHERE con.conrelid = c.oid AND con.contype = 'f'
              ORDER BY con.conname),
       cols.names, cols.types, cols.not_null, cols.comments
  FROM pg_catalog.pg_class c
  JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
  CROSS JOIN LATERAL (
       SELECT pg_catalog.array_agg(a.attname::text ORDER BY a.attnum) AS names,
              pg_catalog.array_agg(pg_catalog.format_type(a.atttypid, a.atttypmod) ORDER BY a.attnum) AS types,
              pg_catalog.array_agg(a.attnotnull ORDER BY a.attnum) AS not_null,
              pg_catalog.array_agg(pg_catalog.col_description(c.oid, a.attnum) ORDER BY a.attnum) AS comments
         FROM pg_catalog.pg_attribute a
        WHERE a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped
          AND pg_catalog.has_column_privilege(c.oid, a.attnum, 'SELECT')) cols
 WHERE c.relkind IN ('r', 'p', 'v', 'm', 'f')
   AND NOT c.relispartition
   AND n.nspname NOT IN ('pg_catalog', 'information_schema')
   AND n.nspname !~ '^pg_(toast|temp_)'
   AND (n.nspname <> 'mcp' OR $1 = 'mcp')
   AND pg_catalog.has_schema_privilege(n.oid, 'USAGE')
   AND cols.names IS NOT NULL
   AND ($1 IS NULL OR n.nspname = $1)
   AND ($2 IS NULL OR c.relname = $2)
 ORDER BY 1, 2";
