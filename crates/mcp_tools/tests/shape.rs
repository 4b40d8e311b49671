//! Result shaping and rendering.

use mcp_tools::*;
use serde_json::json;

fn cols(names: &[&str]) -> Vec<String> {
    names.iter().map(|s| s.to_string()).collect()
}

fn text(s: &str) -> Cell {
    Cell::Text(s.to_string())
}

fn meta(rows: usize) -> ResultMeta {
    ResultMeta {
        rows_shown: rows,
        elapsed_ms: 1.25,
        ..Default::default()
    }
}

/// The table lines (those starting with '|').
fn table_lines(md: &str) -> Vec<&str> {
    md.lines().filter(|l| l.starts_with('|')).collect()
}

/// Split a rendered row into cells, honouring `\|` escapes.
fn split_row(line: &str) -> Vec<String> {
    let inner = line.strip_prefix("| ").unwrap().strip_suffix(" |").unwrap();
    let mut cells = vec![String::new()];
    let mut chars = inner.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '\\' {
            cells.last_mut().unwrap().push(c);
            if let Some(n) = chars.next() {
                cells.last_mut().unwrap().push(n);
            }
        } else if c == '|' {
            let last = cells.last_mut().unwrap();
            assert!(last.ends_with(' '));
            last.pop();
            cells.push(String::new());
            assert_eq!(chars.next(), Some(' '));
        } else {
            cells.last_mut().unwrap().push(c);
        }
    }
    cells
}

#[test]
fn simple_table_with_metadata_line() {
    let rows = vec![
        vec![text("East"), Cell::Number("1200.50".into())],
        vec![text("West"), Cell::Null],
    ];
    let md = render_markdown(
        &cols(&["region", "revenue"]),
        &rows,
        &meta(2),
        &ShapeOptions::default(),
    );
    assert_eq!(
        md,
        "| region | revenue |\n|---|---|\n| East | 1200.50 |\n| West | ∅ |\n\n_2 rows shown, no more rows; 1.2 ms_"
    );
}

#[test]
fn n_plus_one_signal_and_hint() {
    // caller fetched limit+1 = 4 rows for limit 3
    let rows: Vec<Vec<Cell>> = (0..4).map(|i| vec![Cell::Number(i.to_string())]).collect();
    let mut m = ResultMeta::from_fetch(rows.len(), 3, 1.2);
    assert_eq!((m.rows_shown, m.more_rows), (3, true));
    m.max_rows = Some(500);
    let md = render_markdown(&cols(&["n"]), &rows, &m, &ShapeOptions::default());
    assert_eq!(table_lines(&md).len(), 2 + 3, "{md}");
    assert!(!md.contains("| 3 |"), "the n+1th row is not shown: {md}");
    assert!(md.ends_with("\n\n_3 rows shown, more rows exist (raise max_rows up to 500 or narrow the query); 1.2 ms_"), "{md}");
    // already at the maximum: only narrowing helps
    let m = ResultMeta {
        rows_shown: 3,
        more_rows: true,
        max_rows: Some(3),
        elapsed_ms: f64::NAN,
        ..Default::default()
    };
    let md = render_markdown(&cols(&["n"]), &rows, &m, &ShapeOptions::default());
    assert!(
        md.ends_with("_3 rows shown, more rows exist (narrow the query or aggregate in SQL)_"),
        "{md}"
    );
    // more rows in the slice than rows_shown imply more_rows even if the flag is unset
    let md = render_markdown(
        &cols(&["n"]),
        &rows,
        &ResultMeta {
            rows_shown: 2,
            ..Default::default()
        },
        &ShapeOptions::default(),
    );
    assert!(md.contains("_2 rows shown, more rows exist"), "{md}");
    assert!(!ResultMeta::from_fetch(3, 3, 0.0).more_rows);
}

#[test]
fn zero_rows() {
    let md = render_markdown(
        &cols(&["a", "b"]),
        &[],
        &ResultMeta {
            elapsed_ms: 0.04,
            ..Default::default()
        },
        &ShapeOptions::default(),
    );
    assert_eq!(md, "| a | b |\n|---|---|\n\n_0 rows; 0.0 ms_");
    let md = render_markdown(&[], &[], &ResultMeta::default(), &ShapeOptions::default());
    assert_eq!(md, "_0 rows (the result has no columns); 0.0 ms_");
}

#[test]
fn single_row_wording_and_clipped_limit() {
    let limit = resolve_limit(Some(9999), RowCap::default()).unwrap();
    assert_eq!(limit.limit, 500);
    let m = ResultMeta {
        rows_shown: 1,
        clipped_limit: limit.clipped,
        elapsed_ms: 3.0,
        ..Default::default()
    };
    let md = render_markdown(
        &cols(&["x"]),
        &[vec![Cell::Bool(true)]],
        &m,
        &ShapeOptions::default(),
    );
    assert!(md.ends_with("_1 row shown, no more rows; requested max_rows 9999 is above the maximum, 500 used; 3.0 ms_"), "{md}");
    assert!(md.contains("| true |"));
}

#[test]
fn null_is_distinct_from_the_text_null_and_from_the_marker_text() {
    let rows = vec![vec![
        Cell::Null,
        text("NULL"),
        text("∅"),
        text(""),
        text("\\∅"),
    ]];
    let md = render_markdown(
        &cols(&["a", "b", "c", "d", "e"]),
        &rows,
        &meta(1),
        &ShapeOptions::default(),
    );
    let row = table_lines(&md)[2];
    assert_eq!(row, "| ∅ | NULL | \\∅ | | \\\\∅ |");
    // configurable marker keeps the property
    let opts = ShapeOptions {
        null_marker: "NULL".into(),
        ..Default::default()
    };
    assert_eq!(render_cell(&Cell::Null, &opts), "NULL");
    assert_eq!(render_cell(&text("NULL"), &opts), "\\NULL");
}

#[test]
fn pipes_and_newlines_cannot_forge_rows() {
    let evil = "x | y |\n|---|---|\n| forged | row |\r\n| more | forged |";
    let rows = vec![
        vec![text(evil), text("ok")],
        vec![text("a|b"), text("c\\|d")],
    ];
    let md = render_markdown(
        &cols(&["a", "b"]),
        &rows,
        &meta(2),
        &ShapeOptions::default(),
    );
    let lines = table_lines(&md);
    assert_eq!(lines.len(), 4, "{md}");
    assert_eq!(md.lines().count(), 4 + 2, "{md}");
    for l in &lines[2..] {
        assert_eq!(split_row(l).len(), 2, "{l}");
    }
    assert_eq!(
        split_row(lines[2])[0],
        "x \\| y \\|\\n\\|---\\|---\\|\\n\\| forged \\| row \\|\\r\\n\\| more \\| forged \\|"
    );
    // backslash escaping keeps `c\|d` distinguishable from `c|d`
    assert_eq!(split_row(lines[3]), vec!["a\\|b", "c\\\\\\|d"]);
}

#[test]
fn column_names_are_escaped() {
    let md = render_markdown(
        &cols(&["a|b", "line\nbreak"]),
        &[],
        &meta(0),
        &ShapeOptions::default(),
    );
    assert_eq!(table_lines(&md)[0], "| a\\|b | line\\nbreak |");
    assert_eq!(md.lines().count(), 4);
}

#[test]
fn control_and_invisible_characters_escaped() {
    assert_eq!(
        escape_cell("a\u{0}b\u{1b}[31m\u{7f}"),
        "a\\u0000b\\u001b[31m\\u007f"
    );
    assert_eq!(
        escape_cell("x\u{2028}y\u{202e}z\u{85}\t"),
        "x\\u2028y\\u202ez\\u0085\\t"
    );
    assert_eq!(escape_cell("ümlaut 日本 🙂"), "ümlaut 日本 🙂");
}

#[test]
fn clipping_at_exactly_the_limit() {
    let opts = ShapeOptions {
        max_cell_chars: 5,
        ..Default::default()
    };
    assert_eq!(render_cell(&text("abcde"), &opts), "abcde");
    assert_eq!(render_cell(&text("abcdef"), &opts), "abcde…");
    assert_eq!(clip_chars("abcde", 5), ("abcde".to_string(), false));
    assert_eq!(clip_chars("abcdef", 5), ("abcde…".to_string(), true));
    assert_eq!(clip_chars("abc", 0), ("…".to_string(), true));
    assert_eq!(clip_chars("", 0), ("".to_string(), false));
    // default: 500 chars
    let d = ShapeOptions::default();
    assert_eq!(
        render_cell(&text(&"a".repeat(500)), &d).chars().count(),
        500
    );
    assert_eq!(
        render_cell(&text(&"a".repeat(501)), &d),
        format!("{}…", "a".repeat(500))
    );
}

#[test]
fn clipping_counts_chars_not_bytes() {
    let opts = ShapeOptions {
        max_cell_chars: 3,
        ..Default::default()
    };
    assert_eq!(render_cell(&text("äöü"), &opts), "äöü");
    assert_eq!(render_cell(&text("äöüß"), &opts), "äöü…");
    assert_eq!(render_cell(&text("🙂🙂🙂🙂"), &opts), "🙂🙂🙂…");
    assert_eq!(render_cell(&text("日本語テキスト"), &opts), "日本語…");
    // clip happens before escaping: escapes are never cut in half
    assert_eq!(render_cell(&text("ab|cd"), &opts), "ab\\|…");
    assert_eq!(render_cell(&text("a\nbcd"), &opts), "a\\nb…");
}

#[test]
fn json_has_its_own_limit_and_metadata_counts_clipped_values() {
    let big = serde_json::to_string(&json!({"k": "v".repeat(2000)})).unwrap();
    let small = r#"{"a":1}"#.to_string();
    let rows = vec![vec![
        Cell::Json(big.clone()),
        Cell::Json(small.clone()),
        text(&"t".repeat(600)),
    ]];
    let opts = ShapeOptions::default();
    let md = render_markdown(&cols(&["j", "s", "t"]), &rows, &meta(1), &opts);
    let cells = split_row(table_lines(&md)[2]);
    assert_eq!(cells[0].chars().count(), 1001);
    assert!(cells[0].ends_with('…'));
    assert_eq!(cells[1], small);
    assert_eq!(cells[2].chars().count(), 501);
    assert!(
        md.contains("; 2 long values clipped (…) at 500 chars (1000 for JSON); "),
        "{md}"
    );
}

#[test]
fn binary_vector_and_omitted_placeholders() {
    let rows = vec![vec![
        Cell::Bytes { len: 1048576 },
        Cell::Vector { dim: 1536 },
        Cell::Omitted {
            type_name: "large object".into(),
            len: Some(99),
        },
        Cell::Omitted {
            type_name: "text".into(),
            len: None,
        },
        Cell::Other {
            type_name: "tsvector".into(),
            text: "'a':1 | 'b':2".into(),
        },
    ]];
    let md = render_markdown(
        &cols(&["b", "v", "lo", "t", "o"]),
        &rows,
        &meta(1),
        &ShapeOptions::default(),
    );
    assert_eq!(
        table_lines(&md)[2],
        "| <binary 1048576 bytes> | <vector dim=1536> | <large object not shown, 99 bytes> | <text not shown> | 'a':1 \\| 'b':2 |"
    );
}

#[test]
fn ragged_rows_do_not_panic() {
    let rows = vec![
        vec![text("only one")],
        vec![text("a"), text("b"), text("extra")],
        vec![],
    ];
    let md = render_markdown(
        &cols(&["a", "b"]),
        &rows,
        &meta(3),
        &ShapeOptions::default(),
    );
    let lines = table_lines(&md);
    assert_eq!(lines.len(), 5);
    assert_eq!(lines[2], "| only one | |");
    assert_eq!(lines[3], "| a | b |");
    assert_eq!(lines[4], "| | |");
    // rows_shown larger than the slice
    let md = render_markdown(
        &cols(&["a"]),
        &[vec![text("x")]],
        &meta(10),
        &ShapeOptions::default(),
    );
    assert!(md.contains("_1 row shown, no more rows"), "{md}");
}

#[test]
fn row_limits() {
    let cap = RowCap::default();
    assert_eq!(
        cap,
        RowCap {
            default: 25,
            max: 500,
            hard_max: 5000
        }
    );
    assert_eq!(effective_limit(None, cap), Ok(25));
    assert_eq!(effective_limit(Some(1), cap), Ok(1));
    assert_eq!(effective_limit(Some(500), cap), Ok(500));
    assert_eq!(effective_limit(Some(501), cap), Ok(500));
    assert_eq!(effective_limit(Some(i64::MAX), cap), Ok(500));
    assert_eq!(resolve_limit(Some(500), cap).unwrap().clipped, None);
    assert_eq!(
        resolve_limit(Some(501), cap).unwrap().clipped,
        Some(ClippedLimit {
            requested: 501,
            applied: 500
        })
    );
    assert_eq!(
        effective_limit(Some(0), cap),
        Err("max_rows must be between 1 and 500, got 0; omit it for the default of 25".to_string())
    );
    assert!(effective_limit(Some(-5), cap)
        .unwrap_err()
        .contains("got -5"));
    assert!(effective_limit(Some(i64::MIN), cap).is_err());
    // operator raised max up to the hard maximum, not beyond
    let raised = RowCap { max: 10_000, ..cap };
    assert_eq!(effective_limit(Some(9_999), raised), Ok(5000));
    // nonsense configuration stays sane
    let odd = RowCap {
        default: 0,
        max: 0,
        hard_max: 0,
    };
    assert_eq!(effective_limit(None, odd), Ok(1));
    assert_eq!(effective_limit(Some(7), odd), Ok(1));
    let odd = RowCap {
        default: 900,
        max: 100,
        hard_max: 5000,
    };
    assert_eq!(effective_limit(None, odd), Ok(100));
}

#[test]
fn json_rendering_for_structured_content() {
    let rows = vec![
        vec![
            text("East"),
            Cell::Number("1200.50".into()),
            Cell::Number("42".into()),
            Cell::Number("2.5".into()),
            Cell::Number("NaN".into()),
            Cell::Json(r#"{"a":[1,2]}"#.into()),
            Cell::Bytes { len: 3 },
            Cell::Vector { dim: 3 },
            Cell::Null,
            Cell::Bool(false),
        ],
        vec![text("x")],
    ];
    let m = ResultMeta {
        rows_shown: 1,
        more_rows: true,
        elapsed_ms: 2.5,
        ..Default::default()
    };
    let v = render_json(
        &cols(&["region", "rev", "n", "f", "nan", "j", "b", "v", "z", "ok"]),
        &rows,
        &m,
        &ShapeOptions::default(),
    );
    assert_eq!(
        v,
        json!({
            "columns": ["region", "rev", "n", "f", "nan", "j", "b", "v", "z", "ok"],
            "row_count": 1,
            "rows": [{
                "region": "East", "rev": "1200.50", "n": 42, "f": 2.5, "nan": "NaN",
                "j": {"a": [1, 2]}, "b": "<binary 3 bytes>", "v": "<vector dim=3>", "z": null, "ok": false
            }],
            "more_rows": true,
            "elapsed_ms": 2.5,
            "clipped_values": 0,
            "clipped_limit": null
        })
    );
}

#[test]
fn json_rendering_duplicate_columns_and_clipping() {
    let opts = ShapeOptions {
        max_cell_chars: 3,
        max_json_chars: 5,
        ..Default::default()
    };
    let rows = vec![vec![
        text("abcdef"),
        Cell::Json(r#"{"long":true}"#.into()),
        text("b"),
    ]];
    let v = render_json(&cols(&["a", "a", "a_2"]), &rows, &meta(1), &opts);
    assert_eq!(
        v["rows"][0],
        json!({"a": "abc…", "a_2": "{\"lon…", "a_2_2": "b"})
    );
    assert_eq!(v["clipped_values"], json!(2));
    assert_eq!(v["columns"], json!(["a", "a", "a_2"]));
}

#[test]
fn generic_error_has_no_details() {
    let m = generic_tool_error("sql_query");
    assert_eq!(
        m,
        "Tool 'sql_query' failed during execution. No details are available; the error was logged for the operator. Do not retry the same call unchanged."
    );
    let m = generic_tool_error("x'; select pg_read_file('/etc/passwd') --");
    assert!(m.starts_with("The tool failed during execution."), "{m}");
    assert!(!m.contains("passwd"));
}

#[test]
fn result_budget_counts_rendered_bytes_and_refuses_what_does_not_fit() {
    let opts = ShapeOptions::default();
    let mut budget = ResultBudget::new(100);
    assert!(budget.take(60));
    assert!(!budget.take(41), "over the limit");
    assert_eq!(budget.used(), 60, "a refused take counts nothing");
    assert!(budget.take(40));
    assert!(!budget.take(usize::MAX), "no overflow");
    // a clipped text cell costs what is shown (escapes included), not what was held
    let shown = row_bytes(&[text(&"x".repeat(500))], &opts);
    assert!((500..520).contains(&shown), "{shown}");
    let escaped = row_bytes(&[text(&"|".repeat(100))], &opts);
    assert!(escaped >= 200, "escaping doubles | : {escaped}");
    // a value held longer than shown (a lone function result, a JSON document kept whole)
    // counts what it holds
    let held = row_bytes(&[Cell::Json(format!("[{}]", "1,".repeat(5000)))], &opts);
    assert!(held > 10_000, "{held}");
    assert!(header_bytes(&cols(&["a", "b"]), &opts) > 0);
}

#[test]
fn metadata_line_reports_the_size_limit() {
    let rows: Vec<Vec<Cell>> = (0..3).map(|i| vec![Cell::Number(i.to_string())]).collect();
    let m = ResultMeta {
        rows_shown: 3,
        more_rows: true,
        max_rows: Some(500),
        budget_reached: Some(1_048_576),
        elapsed_ms: 2.0,
        ..Default::default()
    };
    let md = render_markdown(&cols(&["n"]), &rows, &m, &ShapeOptions::default());
    assert!(
        md.ends_with("_3 rows shown, more rows exist (narrow the query or aggregate in SQL); result size limit of 1048576 bytes reached; 2.0 ms_"),
        "raising max_rows would not help: {md}"
    );
    let js = render_json(&cols(&["n"]), &rows, &m, &ShapeOptions::default());
    assert_eq!(js["size_limit_bytes"], 1_048_576);
    assert_eq!(js["more_rows"], true);
    // without the limit the JSON has no such key and the line no such clause
    let m = ResultMeta {
        budget_reached: None,
        ..m
    };
    assert!(
        render_json(&cols(&["n"]), &rows, &m, &ShapeOptions::default())
            .get("size_limit_bytes")
            .is_none()
    );
    assert!(
        !render_markdown(&cols(&["n"]), &rows, &m, &ShapeOptions::default()).contains("size limit")
    );
}

#[test]
fn omitted_values_show_type_and_size() {
    let cell = Cell::Omitted {
        type_name: "jsonb".into(),
        len: Some(2_000_005),
    };
    assert_eq!(
        render_cell(&cell, &ShapeOptions::default()),
        "<jsonb not shown, 2000005 bytes>"
    );
}

#[test]
fn rendered_len_matches_render_cell() {
    let opts = ShapeOptions {
        max_cell_chars: 20,
        max_json_chars: 30,
        ..ShapeOptions::default()
    };
    let samples = [
        "",
        "plain",
        "∅",
        "\\∅",
        "a|b\\c\nd\re\tf",
        "\u{202e}bidi\u{feff}\u{7}",
        "ünïcødé ✓ 𝄞 emoji 🎉🎉🎉🎉🎉🎉🎉🎉🎉🎉🎉🎉🎉🎉🎉🎉",
        "exactly twenty chars",
        "exactly twenty-one c",
        "||||||||||||||||||||||||||||||",
    ];
    for s in samples {
        for cell in [
            Cell::Text(s.to_string()),
            Cell::Number(s.to_string()),
            Cell::Json(s.to_string()),
            Cell::Other {
                type_name: "x".into(),
                text: s.to_string(),
            },
        ] {
            assert_eq!(
                rendered_len(&cell, &opts),
                render_cell(&cell, &opts).len(),
                "{cell:?}"
            );
        }
    }
    for cell in [
        Cell::Null,
        Cell::Bool(true),
        Cell::Bytes { len: 12 },
        Cell::Vector { dim: 3 },
        Cell::Omitted {
            type_name: "jsonb".into(),
            len: Some(7),
        },
    ] {
        assert_eq!(
            rendered_len(&cell, &opts),
            render_cell(&cell, &opts).len(),
            "{cell:?}"
        );
    }
}
