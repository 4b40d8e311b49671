//! The registry's editable tables as data: for each one its key, its fields and how a form's
//! text becomes a column value, and the SQL a change runs (INSERT, UPDATE of the fields the form
//! sent, DELETE). Pure: no I/O. Every identifier in the SQL comes from the static tables below,
//! every value is a numbered text parameter cast by PostgreSQL (so a bad value is refused with
//! PostgreSQL's own words: `invalid input syntax for type integer`, a check constraint, a
//! registry trigger).

use std::collections::HashMap;

/// How a form field's text becomes a column value (and back).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// text NOT NULL, one line.
    Line,
    /// text, one line; empty = NULL.
    NullLine,
    /// text NOT NULL, a text area.
    Text,
    /// text, a text area; empty = NULL.
    NullText,
    /// boolean NOT NULL, a checkbox (a hidden `false` before it, so an unticked box is sent).
    Bool,
    /// boolean, a choice of default / yes / no; default = NULL.
    NullBool,
    /// integer NOT NULL (empty is NULL, and PostgreSQL says the column may not be null).
    Int,
    /// integer; empty = NULL.
    NullInt,
    /// jsonb NOT NULL, a text area.
    Json,
    /// jsonb; empty = NULL.
    NullJson,
    /// text[] NOT NULL, one element a line.
    Lines,
    /// text[] NOT NULL, comma-separated.
    Csv,
    /// text[], comma-separated; empty = NULL.
    NullCsv,
    /// text NOT NULL, one of the listed values (a select).
    Choice(&'static [&'static str]),
    /// text, one of the listed values or empty = NULL (a select).
    NullChoice(&'static [&'static str]),
}

/// One column of a form.
#[derive(Debug)]
pub struct Field {
    pub col: &'static str,
    pub label: &'static str,
    pub kind: Kind,
    /// What goes in it, under the label.
    pub help: &'static str,
    /// The value of a new row's form.
    pub default: &'static str,
}

/// An editable registry table.
#[derive(Debug)]
pub struct Entity {
    /// The URL segment: /console/registry/{name}/…
    pub name: &'static str,
    /// The table (schema-qualified; a static identifier, never user input).
    pub table: &'static str,
    /// What one row is, for headings.
    pub title: &'static str,
    /// The key columns (text or integer; in the URL in this order).
    pub keys: &'static [&'static str],
    /// Every field the forms show, keys first.
    pub fields: &'static [Field],
}

const fn f(
    col: &'static str,
    label: &'static str,
    kind: Kind,
    help: &'static str,
    default: &'static str,
) -> Field {
    Field {
        col,
        label,
        kind,
        help,
        default,
    }
}

const TOOL_KINDS: &[&str] = &[
    "function",
    "builtin",
    "report",
    "vector_search",
    "text_search",
    "hybrid_search",
];
const TOOL_CHOICES: &[&str] = &["auto", "none", "required"];

pub const ENTITIES: &[Entity] = &[
    Entity {
        name: "tool",
        table: "mcp.tool",
        title: "Tool",
        keys: &["name"],
        fields: &[
            f(
                "name",
                "Name",
                Kind::Line,
                "as the model sees it: letters, digits, _ and -",
                "",
            ),
            f(
                "description",
                "Description (what the model reads)",
                Kind::Text,
                "",
                "",
            ),
            f(
                "parameters",
                "Parameters (JSON Schema of an object)",
                Kind::Json,
                "",
                "{\"type\": \"object\", \"properties\": {}}",
            ),
            f(
                "output_schema",
                "Output schema",
                Kind::NullJson,
                "optional JSON Schema of an object: the structured result MCP clients see",
                "",
            ),
            f("kind", "Kind", Kind::Choice(TOOL_KINDS), "", "function"),
            f(
                "function",
                "Function",
                Kind::NullLine,
                "signature of the SQL function, e.g. public.hours_of(text)",
                "",
            ),
            f(
                "body",
                "Report query",
                Kind::NullText,
                "report tools: one read-only query, $1..$n the parameters in alphabetical order",
                "",
            ),
            f(
                "collection",
                "Collection",
                Kind::NullLine,
                "search tools: the collection searched",
                "",
            ),
            f("enabled", "enabled", Kind::Bool, "", "true"),
            f(
                "read_only",
                "read-only (does not change data)",
                Kind::Bool,
                "",
                "true",
            ),
            f(
                "requires_approval",
                "Needs approval",
                Kind::NullBool,
                "default: yes for a tool that acts, no for a read-only one",
                "",
            ),
            f(
                "timeout_ms",
                "Timeout (ms)",
                Kind::NullInt,
                "empty: mcp.tool_timeout_ms",
                "",
            ),
        ],
    },
    Entity {
        name: "interface",
        table: "mcp.interface",
        title: "Interface",
        keys: &["name"],
        fields: &[
            f("name", "Name", Kind::Line, "letters, digits, _ . and -", ""),
            f("description", "Description", Kind::NullText, "", ""),
            f(
                "provider",
                "Provider",
                Kind::NullLine,
                "a row of mcp.provider",
                "",
            ),
            f(
                "system_prompt",
                "System prompt",
                Kind::Line,
                "name of the prompt whose active version is the system prompt",
                "system",
            ),
            f(
                "tool_choice",
                "Tool choice",
                Kind::Line,
                "none, auto, required or function:<tool>",
                "auto",
            ),
            f(
                "max_iterations",
                "Max iterations",
                Kind::Int,
                "1 to 25",
                "10",
            ),
            f(
                "max_total_tokens",
                "Token budget per run",
                Kind::NullInt,
                "empty: no budget",
                "",
            ),
            f(
                "deadline_ms",
                "Deadline (ms)",
                Kind::NullInt,
                "empty: no deadline",
                "",
            ),
            f(
                "access_role",
                "Access role",
                Kind::NullLine,
                "who may use it: a role, public, or empty (closed)",
                "",
            ),
            f("enabled", "enabled", Kind::Bool, "", "true"),
            f(
                "allow_acting_tools",
                "offers tools that act",
                Kind::Bool,
                "",
                "false",
            ),
            f(
                "allow_self_approval",
                "an approver may decide calls of its own runs",
                Kind::Bool,
                "",
                "false",
            ),
        ],
    },
    Entity {
        name: "interface_tool",
        table: "mcp.interface_tool",
        title: "Tool of an interface",
        keys: &["interface", "tool"],
        fields: &[
            f("interface", "Interface", Kind::Line, "", ""),
            f("tool", "Tool", Kind::Line, "", ""),
        ],
    },
    Entity {
        name: "prompt",
        table: "mcp.prompt",
        title: "Prompt",
        keys: &["name", "version"],
        fields: &[
            f("name", "Name", Kind::Line, "letters, digits, _ . and -", ""),
            f("version", "Version", Kind::Int, "", "1"),
            f(
                "role",
                "Message role",
                Kind::Choice(&["system", "user", "assistant"]),
                "",
                "system",
            ),
            f(
                "template",
                "Template",
                Kind::Text,
                "{{variable}} placeholders",
                "",
            ),
            f("variables", "Variables", Kind::Csv, "comma-separated", ""),
            f("description", "Description", Kind::NullText, "", ""),
            f(
                "active",
                "the active version (one per name)",
                Kind::Bool,
                "",
                "true",
            ),
        ],
    },
    Entity {
        name: "plan",
        table: "mcp.plan",
        title: "Plan",
        keys: &["name"],
        fields: &[
            f("name", "Name", Kind::Line, "letters, digits, _ . and -", ""),
            f("interface", "Interface", Kind::Line, "", ""),
            f(
                "description",
                "Description",
                Kind::Text,
                "what questions it answers",
                "",
            ),
            f(
                "examples",
                "Example questions",
                Kind::Lines,
                "one a line",
                "",
            ),
            f(
                "required_kinds",
                "Required entity kinds",
                Kind::Csv,
                "comma-separated",
                "",
            ),
            f(
                "optional_kinds",
                "Optional entity kinds",
                Kind::Csv,
                "comma-separated",
                "",
            ),
            f(
                "priority",
                "Priority",
                Kind::Int,
                "higher first among equal scores",
                "0",
            ),
            f("enabled", "enabled", Kind::Bool, "", "true"),
        ],
    },
    Entity {
        name: "plan_step",
        table: "mcp.plan_step",
        title: "Plan step",
        keys: &["plan", "position"],
        fields: &[
            f("plan", "Plan", Kind::Line, "", ""),
            f("position", "Position", Kind::Int, "", "1"),
            f(
                "kind",
                "Kind",
                Kind::Choice(&["prompt", "retrieve", "tool", "llm", "ask"]),
                "",
                "tool",
            ),
            f(
                "prompt",
                "Prompt",
                Kind::NullLine,
                "prompt steps: the prompt's name",
                "",
            ),
            f(
                "prompt_mode",
                "Prompt mode",
                Kind::Choice(&["extend", "system"]),
                "prompt steps",
                "extend",
            ),
            f(
                "tool",
                "Tool",
                Kind::NullLine,
                "retrieve and tool steps",
                "",
            ),
            f(
                "arguments",
                "Arguments",
                Kind::Json,
                "retrieve and tool steps: \"{{kind}}\" is the entity's label",
                "{}",
            ),
            f(
                "tools",
                "Tools of the model phase",
                Kind::NullCsv,
                "llm steps: comma-separated; empty: all of the interface's",
                "",
            ),
            f(
                "tool_choice",
                "Tool choice of the model phase",
                Kind::NullChoice(TOOL_CHOICES),
                "llm steps (or function:<tool>, set in SQL)",
                "",
            ),
            f("ask_kind", "Ask for kind", Kind::NullLine, "ask steps", ""),
            f("question", "Question", Kind::NullText, "ask steps", ""),
        ],
    },
];

pub fn entity(name: &str) -> Option<&'static Entity> {
    ENTITIES.iter().find(|e| e.name == name)
}

/// The SQL expression of parameter `$n` as a value of the column.
pub fn param_expr(kind: Kind, n: usize) -> String {
    let p = format!("${n}::text");
    let list = |sep: &str| {
        format!(
            "ARRAY(SELECT btrim(x, E' \\t\\r') FROM unnest(string_to_array({p}, {sep})) WITH ORDINALITY u(x, i) \
             WHERE btrim(x, E' \\t\\r') <> '' ORDER BY i)"
        )
    };
    match kind {
        Kind::Line | Kind::Text | Kind::Choice(_) => p,
        Kind::NullLine | Kind::NullChoice(_) => format!("nullif(btrim({p}), '')"),
        Kind::NullText => format!("nullif({p}, '')"),
        Kind::Bool => format!("({p})::boolean"),
        Kind::NullBool => format!("(nullif({p}, ''))::boolean"),
        Kind::Int | Kind::NullInt => format!("(nullif(btrim({p}), ''))::integer"),
        Kind::Json | Kind::NullJson => format!("(nullif(btrim({p}), ''))::jsonb"),
        Kind::Lines => list("E'\\n'"),
        Kind::Csv => list("','"),
        Kind::NullCsv => format!(
            "CASE WHEN btrim({p}) = '' THEN NULL ELSE {} END",
            list("','")
        ),
    }
}

/// The SQL expression that shows a column in a form (text, or a boolean for a checkbox).
fn show_expr(f: &Field) -> String {
    let c = f.col;
    match f.kind {
        Kind::Bool => c.to_string(),
        Kind::Json | Kind::NullJson => format!("coalesce(jsonb_pretty({c}), '')"),
        Kind::Lines => format!("array_to_string({c}, E'\\n')"),
        Kind::Csv | Kind::NullCsv => format!("coalesce(array_to_string({c}, ', '), '')"),
        _ => format!("coalesce({c}::text, '')"),
    }
}

/// `WHERE` of the key columns, from parameter `$first` on (compared as text: every key is text
/// or an integer, and the tables are small).
fn key_cond(e: &Entity, first: usize) -> String {
    e.keys
        .iter()
        .enumerate()
        .map(|(i, k)| format!("{k}::text = ${}::text", first + i))
        .collect::<Vec<_>>()
        .join(" AND ")
}

/// One row as a JSON object of its form values, plus whether the role may change the table.
pub fn select_sql(e: &Entity) -> String {
    let cols: Vec<String> = e
        .fields
        .iter()
        .map(|f| format!("'{}', {}", f.col, show_expr(f)))
        .collect();
    format!(
        "SELECT (jsonb_build_object({}) || jsonb_build_object('may_update', has_table_privilege('{t}', 'UPDATE'),
                 'may_delete', has_table_privilege('{t}', 'DELETE')))::text
           FROM {t} WHERE {}",
        cols.join(", "),
        key_cond(e, 1),
        t = e.table
    )
}

/// The fields of a form that are columns of `e` (those the form sent), in the table's order.
fn sent<'a>(e: &'a Entity, form: &HashMap<String, String>, keys: bool) -> Vec<&'a Field> {
    e.fields
        .iter()
        .filter(|f| form.contains_key(f.col) && (keys || !e.keys.contains(&f.col)))
        .collect()
}

/// INSERT of the fields the form sent (the others get the column's default); returns the new
/// row's key as a JSON array of text. Parameters: the values, in the order of the result's list.
pub fn insert_sql(e: &Entity, form: &HashMap<String, String>) -> (String, Vec<String>) {
    let fs = sent(e, form, true);
    let cols: Vec<&str> = fs.iter().map(|f| f.col).collect();
    let vals: Vec<String> = fs
        .iter()
        .enumerate()
        .map(|(i, f)| param_expr(f.kind, i + 1))
        .collect();
    let keys: Vec<String> = e.keys.iter().map(|k| format!("{k}::text")).collect();
    let sql = format!(
        "INSERT INTO {} ({}) VALUES ({}) RETURNING jsonb_build_array({})::text",
        e.table,
        cols.join(", "),
        vals.join(", "),
        keys.join(", ")
    );
    (sql, fs.iter().map(|f| form[f.col].clone()).collect())
}

/// UPDATE of the non-key fields the form sent, of the row with the key; returns the number of
/// rows changed (0: not visible to the role). None when the form sent no field.
pub fn update_sql(
    e: &Entity,
    key: &[String],
    form: &HashMap<String, String>,
) -> Option<(String, Vec<String>)> {
    let fs = sent(e, form, false);
    if fs.is_empty() {
        return None;
    }
    let sets: Vec<String> = fs
        .iter()
        .enumerate()
        .map(|(i, f)| format!("{} = {}", f.col, param_expr(f.kind, i + 1)))
        .collect();
    let sql = format!(
        "WITH u AS (UPDATE {} SET {} WHERE {} RETURNING 1) SELECT count(*)::text FROM u",
        e.table,
        sets.join(", "),
        key_cond(e, fs.len() + 1)
    );
    let mut params: Vec<String> = fs.iter().map(|f| form[f.col].clone()).collect();
    params.extend(key.iter().cloned());
    Some((sql, params))
}

/// DELETE of the row with the key; returns the number of rows deleted.
pub fn delete_sql(e: &Entity) -> String {
    format!(
        "WITH d AS (DELETE FROM {} WHERE {} RETURNING 1) SELECT count(*)::text FROM d",
        e.table,
        key_cond(e, 1)
    )
}

/// A form's values for a new row: the defaults, then what the query string names.
pub fn defaults(e: &Entity, query: &HashMap<String, String>) -> serde_json::Value {
    let mut m = serde_json::Map::new();
    for f in e.fields {
        let v = query.get(f.col).map(String::as_str).unwrap_or(f.default);
        m.insert(
            f.col.into(),
            if f.kind == Kind::Bool {
                serde_json::Value::Bool(v == "true")
            } else {
                serde_json::Value::String(v.into())
            },
        );
    }
    serde_json::Value::Object(m)
}

/// What the form sent, as the form shows it again after a refusal (a checkbox as a boolean).
pub fn typed(
    e: &Entity,
    form: &HashMap<String, String>,
    stored: &serde_json::Value,
) -> serde_json::Value {
    let mut m = stored.as_object().cloned().unwrap_or_default();
    for f in e.fields {
        if let Some(v) = form.get(f.col) {
            m.insert(
                f.col.into(),
                if f.kind == Kind::Bool {
                    serde_json::Value::Bool(matches!(v.as_str(), "true" | "1" | "on" | "yes"))
                } else {
                    serde_json::Value::String(v.clone())
                },
            );
        }
    }
    serde_json::Value::Object(m)
}

/// The fields as the template draws them: column, label, help, the widget and its choices.
pub fn layout(e: &Entity, creating: bool) -> serde_json::Value {
    let fields: Vec<serde_json::Value> = e
        .fields
        .iter()
        .filter(|f| creating || !e.keys.contains(&f.col))
        .map(|f| {
            let (widget, choices): (&str, &[&str]) = match f.kind {
                Kind::Bool => ("checkbox", &[]),
                Kind::NullBool => ("select", &["", "true", "false"]),
                Kind::Choice(c) => ("select", c),
                Kind::NullChoice(c) => ("nullselect", c),
                Kind::Text | Kind::NullText | Kind::Lines => ("textarea", &[]),
                Kind::Json | Kind::NullJson => ("code", &[]),
                _ => ("input", &[]),
            };
            serde_json::json!({"col": f.col, "label": f.label, "help": f.help, "widget": widget,
                               "choices": choices})
        })
        .collect();
    serde_json::Value::Array(fields)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn form(pairs: &[(&str, &str)]) -> HashMap<String, String> {
        pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    }

    #[test]
    fn entities_are_well_formed() {
        for e in ENTITIES {
            assert!(e.table.starts_with("mcp."));
            for k in e.keys {
                assert!(e.fields.iter().any(|f| f.col == *k), "{} key {k}", e.name);
            }
            for f in e.fields {
                // identifiers only: they are spliced into SQL
                assert!(f.col.bytes().all(|b| b.is_ascii_lowercase() || b == b'_'));
                if let Kind::Choice(c) = f.kind {
                    assert!(c.contains(&f.default), "{} {}", e.name, f.col);
                }
            }
        }
        assert!(entity("tool").is_some() && entity("nope").is_none());
    }

    #[test]
    fn update_sets_only_what_the_form_sent_and_keeps_values_out_of_the_sql() {
        let e = entity("tool").unwrap();
        let (sql, p) = update_sql(
            e,
            &["hoursOf".into()],
            &form(&[
                ("description", "x'; DROP TABLE mcp.tool; --"),
                ("enabled", "true"),
                ("name", "renamed"),
                ("csrf", "abc"),
            ]),
        )
        .unwrap();
        assert!(!sql.contains("DROP"));
        assert_eq!(
            sql,
            "WITH u AS (UPDATE mcp.tool SET description = $1::text, enabled = ($2::text)::boolean \
             WHERE name::text = $3::text RETURNING 1) SELECT count(*)::text FROM u"
        );
        assert_eq!(p, vec!["x'; DROP TABLE mcp.tool; --", "true", "hoursOf"]);
        assert!(update_sql(e, &["x".into()], &form(&[("csrf", "a")])).is_none());
    }

    #[test]
    fn insert_delete_select() {
        let e = entity("prompt").unwrap();
        let (sql, p) = insert_sql(
            e,
            &form(&[
                ("name", "p"),
                ("version", "2"),
                ("template", "Hi"),
                ("variables", "a, b"),
            ]),
        );
        assert!(sql.starts_with("INSERT INTO mcp.prompt (name, version, template, variables) VALUES ($1::text, (nullif(btrim($2::text), ''))::integer, $3::text, ARRAY("));
        assert!(sql.ends_with("RETURNING jsonb_build_array(name::text, version::text)::text"));
        assert_eq!(p, vec!["p", "2", "Hi", "a, b"]);
        assert_eq!(
            delete_sql(e),
            "WITH d AS (DELETE FROM mcp.prompt WHERE name::text = $1::text AND version::text = $2::text RETURNING 1) SELECT count(*)::text FROM d"
        );
        let s = select_sql(e);
        assert!(s.contains("'variables', coalesce(array_to_string(variables, ', '), '')"));
        assert!(s.contains("has_table_privilege('mcp.prompt', 'UPDATE')"));
        assert_eq!(
            param_expr(Kind::NullCsv, 3),
            "CASE WHEN btrim($3::text) = '' THEN NULL ELSE ARRAY(SELECT btrim(x, E' \\t\\r') FROM unnest(string_to_array($3::text, ',')) WITH ORDINALITY u(x, i) WHERE btrim(x, E' \\t\\r') <> '' ORDER BY i) END"
        );
    }

    #[test]
    fn form_values() {
        let e = entity("interface").unwrap();
        let d = defaults(e, &form(&[("name", "new")]));
        assert_eq!(d["name"], "new");
        assert_eq!(d["max_iterations"], "10");
        assert_eq!(d["enabled"], true);
        let t = typed(
            e,
            &form(&[("enabled", "false"), ("description", "<b>")]),
            &d,
        );
        assert_eq!(t["enabled"], false);
        assert_eq!(t["description"], "<b>");
        assert_eq!(t["max_iterations"], "10");
        // the key is not a field of the edit form, only of the create form
        let edit = layout(e, false);
        assert!(edit.as_array().unwrap().iter().all(|f| f["col"] != "name"));
        assert_eq!(layout(e, true)[0]["col"], "name");
    }
}
