//! Report tools and the SQL tool: how JSON arguments become typed SQL parameters, how the
//! schema overview is rendered, and the one sentence a model gets when a query fails.
//!
//! A report tool's body is reviewed SQL with placeholders `$1 … $n`. Its parameters are the
//! properties of the tool's JSON Schema **in alphabetical order of their names** (`jsonb` does
//! not keep the order in which properties were written). Each parameter gets a SQL type from
//! its schema ([`sql_type_of`]) and is passed as a typed value through the type's input
//! function, never spliced into the text.

use crate::validate::single_type;
use serde_json::Value;

/// One `$n` parameter of a report tool.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReportParam {
    /// Property name in the tool's schema.
    pub name: String,
    /// SQL type the value is bound as.
    pub sql_type: SqlType,
}

/// The SQL types a report parameter is bound as ([`sql_type_of`]). The pgrx layer maps each to
/// its type OID with an exhaustive match: no type travels as a name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SqlType {
    Bigint,
    Numeric,
    Boolean,
    Date,
    Timestamptz,
    Time,
    Uuid,
    Text,
    Jsonb,
    TextArray,
    BigintArray,
    NumericArray,
    BooleanArray,
}

impl SqlType {
    /// The type's SQL name (for messages and docs).
    pub fn name(self) -> &'static str {
        match self {
            SqlType::Bigint => "bigint",
            SqlType::Numeric => "numeric",
            SqlType::Boolean => "boolean",
            SqlType::Date => "date",
            SqlType::Timestamptz => "timestamptz",
            SqlType::Time => "time",
            SqlType::Uuid => "uuid",
            SqlType::Text => "text",
            SqlType::Jsonb => "jsonb",
            SqlType::TextArray => "text[]",
            SqlType::BigintArray => "bigint[]",
            SqlType::NumericArray => "numeric[]",
            SqlType::BooleanArray => "boolean[]",
        }
    }
}

impl PartialEq<&str> for SqlType {
    fn eq(&self, other: &&str) -> bool {
        self.name() == *other
    }
}

/// How a type takes a JSON value through its input function.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum InputForm {
    /// The value's text (a string as is, anything else as JSON text).
    Scalar,
    /// A JSON array as an array literal; any other value as its text.
    Array,
    /// The JSON text.
    Json,
}

/// The SQL type a JSON Schema property is bound as.
///
/// | schema | SQL |
/// |---|---|
/// | `integer` | `bigint` |
/// | `number` | `numeric` |
/// | `boolean` | `boolean` |
/// | `string` | `text`; with `format` `date` → `date`, `date-time` → `timestamptz`, `time` → `time`, `uuid` → `uuid` |
/// | `array` of `string`/`integer`/`number`/`boolean` | `text[]` / `bigint[]` / `numeric[]` / `boolean[]` |
/// | `object`, other arrays, no single type | `jsonb` |
///
/// `["string", "null"]` counts as `string`.
pub fn sql_type_of(property: &Value) -> SqlType {
    match single_type(property).as_deref() {
        Some("integer") => SqlType::Bigint,
        Some("number") => SqlType::Numeric,
        Some("boolean") => SqlType::Boolean,
        Some("string") => match property.get("format").and_then(Value::as_str) {
            Some("date") => SqlType::Date,
            Some("date-time") => SqlType::Timestamptz,
            Some("time") => SqlType::Time,
            Some("uuid") => SqlType::Uuid,
            _ => SqlType::Text,
        },
        Some("array") => match property
            .get("items")
            .map(single_type)
            .unwrap_or(None)
            .as_deref()
        {
            Some("string") => SqlType::TextArray,
            Some("integer") => SqlType::BigintArray,
            Some("number") => SqlType::NumericArray,
            Some("boolean") => SqlType::BooleanArray,
            _ => SqlType::Jsonb,
        },
        _ => SqlType::Jsonb,
    }
}

/// The parameters `$1 … $n` of a report tool: its schema's properties in alphabetical order.
pub fn report_params(schema: &Value) -> Vec<ReportParam> {
    let Some(props) = schema.get("properties").and_then(Value::as_object) else {
        return Vec::new();
    };
    let mut out: Vec<ReportParam> = props
        .iter()
        .map(|(name, p)| ReportParam {
            name: name.clone(),
            sql_type: sql_type_of(p),
        })
        .collect();
    out.sort_by(|a, b| a.name.cmp(&b.name));
    out
}

/// The text handed to a type's input function for a JSON value; `None` for SQL NULL (an
/// absent or `null` argument). Used for every tool argument bound to a SQL type (report and
/// function tools alike).
pub fn input_text(value: Option<&Value>, form: InputForm) -> Option<String> {
    let value = value?;
    if value.is_null() {
        return None;
    }
    Some(match (form, value) {
        (InputForm::Json, v) => v.to_string(),
        (InputForm::Array, Value::Array(items)) => array_literal(items),
        (_, v) => scalar_text(v),
    })
}

fn scalar_text(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

/// A PostgreSQL array literal: every element double-quoted with `"` and `\` escaped, `null`
/// elements as unquoted `NULL`.
fn array_literal(items: &[Value]) -> String {
    let mut s = String::from("{");
    for (i, item) in items.iter().enumerate() {
        if i > 0 {
            s.push(',');
        }
        if item.is_null() {
            s.push_str("NULL");
            continue;
        }
        s.push('"');
        for c in scalar_text(item).chars() {
            if c == '"' || c == '\\' {
                s.push('\\');
            }
            s.push(c);
        }
        s.push('"');
    }
    s.push('}');
    s
}

/// The sentence a model gets when its SQL query fails: the kind of failure from the SQLSTATE
/// class (so it can correct a syntax error or a wrong column name), never the server's message
/// (which can quote data). The call id lets an operator find the detail.
pub fn sql_error_sentence(sqlstate: &str) -> String {
    let what = match sqlstate {
        "42601" => "has a syntax error",
        "42703" => "names a column that does not exist",
        "42P01" => "names a table or view that does not exist",
        "42883" => "calls a function or operator that does not exist for these argument types",
        "42501" => "needs a privilege the calling role does not have",
        "42803" | "42P20" => "uses an aggregate or window function incorrectly",
        "25006" => "tried to change data, which this tool never does",
        "25001" => "tried to leave read-only mode, which this tool never allows",
        "57014" => "took longer than the tool's time limit",
        "54001" => "is nested too deeply or is too complex to plan",
        s if s.starts_with("22") => "failed on a data value (conversion, division by zero, range)",
        s if s.starts_with("42") => "is not valid SQL for this database",
        s if s.starts_with("53") => "ran out of a resource",
        _ => "failed",
    };
    format!(
        "The query {what}; no further details are given to the model (the operator log has them)."
    )
}

/// A column of a relation in the schema overview.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ColumnInfo {
    pub name: String,
    pub type_name: String,
    pub not_null: bool,
    pub comment: Option<String>,
}

/// A relation (table, view, …) the calling role can read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RelationInfo {
    pub schema: String,
    pub name: String,
    /// `table`, `view`, `materialized view`, `foreign table`, `partitioned table`.
    pub kind: String,
    pub comment: Option<String>,
    pub primary_key: Vec<String>,
    /// `(columns) → schema.table(columns)` per foreign key.
    pub foreign_keys: Vec<String>,
    pub columns: Vec<ColumnInfo>,
}

fn one_line(s: &str, max: usize) -> String {
    let flat: String = s
        .chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect();
    crate::shape::clip_chars(flat.trim(), max).0
}

/// Render the schema overview compactly: one header line per relation, one line per column.
/// Stops before `max_chars` and says how many relations were left out.
pub fn render_schema(relations: &[RelationInfo], max_chars: usize) -> String {
    if relations.is_empty() {
        return "No tables or views are visible to the calling role (with this filter).".into();
    }
    let mut out = String::new();
    for (i, r) in relations.iter().enumerate() {
        let mut block = format!("{}.{} ({})", r.schema, r.name, r.kind);
        if let Some(c) = r.comment.as_deref().filter(|c| !c.trim().is_empty()) {
            block.push_str(" — ");
            block.push_str(&one_line(c, 200));
        }
        block.push('\n');
        for c in &r.columns {
            block.push_str("  ");
            block.push_str(&c.name);
            block.push(' ');
            block.push_str(&c.type_name);
            if r.primary_key.contains(&c.name) {
                block.push_str(" PK");
            }
            if c.not_null && !r.primary_key.contains(&c.name) {
                block.push_str(" NOT NULL");
            }
            if let Some(cm) = c.comment.as_deref().filter(|c| !c.trim().is_empty()) {
                block.push_str(" — ");
                block.push_str(&one_line(cm, 160));
            }
            block.push('\n');
        }
        for fk in &r.foreign_keys {
            block.push_str("  FK ");
            block.push_str(fk);
            block.push('\n');
        }
        if out.len() + block.len() > max_chars {
            let left = relations.len() - i;
            out.push_str(&format!(
                "… {left} more relation(s) not shown; ask again with a schema or table filter.\n"
            ));
            break;
        }
        out.push_str(&block);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn types_from_schema() {
        assert_eq!(sql_type_of(&json!({"type": "integer"})), "bigint");
        assert_eq!(sql_type_of(&json!({"type": ["integer", "null"]})), "bigint");
        assert_eq!(sql_type_of(&json!({"type": "number"})), "numeric");
        assert_eq!(sql_type_of(&json!({"type": "boolean"})), "boolean");
        assert_eq!(sql_type_of(&json!({"type": "string"})), "text");
        assert_eq!(
            sql_type_of(&json!({"type": "string", "format": "date"})),
            "date"
        );
        assert_eq!(
            sql_type_of(&json!({"type": "string", "format": "date-time"})),
            "timestamptz"
        );
        assert_eq!(
            sql_type_of(&json!({"type": "array", "items": {"type": "string"}})),
            "text[]"
        );
        assert_eq!(
            sql_type_of(&json!({"type": "array", "items": {"type": "object"}})),
            "jsonb"
        );
        assert_eq!(sql_type_of(&json!({"type": "object"})), "jsonb");
        assert_eq!(sql_type_of(&json!({})), "jsonb");
    }

    #[test]
    fn params_are_alphabetical() {
        let s = json!({"type": "object", "properties": {
            "zeta": {"type": "string"}, "alpha": {"type": "integer"}, "mid": {"type": "boolean"}}});
        let p = report_params(&s);
        let names: Vec<&str> = p.iter().map(|p| p.name.as_str()).collect();
        assert_eq!(names, ["alpha", "mid", "zeta"]);
        assert_eq!(p[0].sql_type, "bigint");
        assert!(report_params(&json!({"type": "object"})).is_empty());
    }

    #[test]
    fn values_as_input_text() {
        assert_eq!(input_text(None, InputForm::Scalar), None);
        assert_eq!(input_text(Some(&json!(null)), InputForm::Scalar), None);
        assert_eq!(
            input_text(Some(&json!("a'b")), InputForm::Scalar).unwrap(),
            "a'b"
        );
        assert_eq!(
            input_text(Some(&json!(42)), InputForm::Scalar).unwrap(),
            "42"
        );
        assert_eq!(
            input_text(Some(&json!(1.5)), InputForm::Scalar).unwrap(),
            "1.5"
        );
        assert_eq!(
            input_text(Some(&json!(true)), InputForm::Scalar).unwrap(),
            "true"
        );
        assert_eq!(
            input_text(Some(&json!({"a": 1})), InputForm::Json).unwrap(),
            r#"{"a":1}"#
        );
        assert_eq!(
            input_text(
                Some(&json!(["x", "y\"z", "b\\s", null, "NULL"])),
                InputForm::Array
            )
            .unwrap(),
            r#"{"x","y\"z","b\\s",NULL,"NULL"}"#
        );
        assert_eq!(
            input_text(Some(&json!([1, 2])), InputForm::Array).unwrap(),
            r#"{"1","2"}"#
        );
        assert_eq!(
            input_text(Some(&json!([])), InputForm::Array).unwrap(),
            "{}"
        );
        // a value that is not an array goes to the array type's input function as is
        assert_eq!(
            input_text(Some(&json!("{1,2}")), InputForm::Array).unwrap(),
            "{1,2}"
        );
    }

    #[test]
    fn error_sentences_never_echo_detail() {
        assert!(sql_error_sentence("42601").contains("syntax error"));
        assert!(sql_error_sentence("42P01").contains("does not exist"));
        assert!(sql_error_sentence("22012").contains("data value"));
        assert!(sql_error_sentence("57014").contains("time limit"));
        assert!(sql_error_sentence("54001").contains("nested too deeply"));
        assert!(sql_error_sentence("XX000").starts_with("The query failed"));
    }

    fn rel(name: &str, cols: usize) -> RelationInfo {
        RelationInfo {
            schema: "public".into(),
            name: name.into(),
            kind: "table".into(),
            comment: Some("Tariff\nrows".into()),
            primary_key: vec!["id".into()],
            foreign_keys: vec!["(region) → public.region(code)".into()],
            columns: (0..cols)
                .map(|i| ColumnInfo {
                    name: if i == 0 { "id".into() } else { format!("c{i}") },
                    type_name: "integer".into(),
                    not_null: true,
                    comment: (i == 1).then(|| "a column".to_string()),
                })
                .collect(),
        }
    }

    #[test]
    fn schema_rendering_is_compact_and_bounded() {
        let text = render_schema(&[rel("tarif", 3)], 10_000);
        assert_eq!(
            text,
            "public.tarif (table) — Tariff rows\n  id integer PK\n  c1 integer NOT NULL — a column\n  c2 integer NOT NULL\n  FK (region) → public.region(code)\n"
        );
        let many: Vec<RelationInfo> = (0..100).map(|i| rel(&format!("t{i}"), 5)).collect();
        let text = render_schema(&many, 2_000);
        assert!(text.len() < 2_200, "{}", text.len());
        assert!(text.contains("more relation(s) not shown"), "{text}");
        assert!(render_schema(&[], 100).starts_with("No tables"));
    }
}
