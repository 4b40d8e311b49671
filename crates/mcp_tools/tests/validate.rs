//! Tool argument validation: schema checks for the registry and model-readable errors.

use mcp_tools::*;
use serde_json::{json, Value};

fn compile(s: Value) -> ToolSchema {
    ToolSchema::compile(&s).unwrap_or_else(|e| panic!("schema refused: {e:?}"))
}

fn msgs(errs: &[ArgError]) -> Vec<String> {
    errs.iter().map(|e| e.message.clone()).collect()
}

fn one(errs: Vec<ArgError>) -> ArgError {
    assert_eq!(errs.len(), 1, "expected one error, got {errs:#?}");
    errs.into_iter().next().unwrap()
}

fn sql_tool() -> ToolSchema {
    compile(json!({
        "type": "object",
        "properties": {
            "query": {"type": "string", "minLength": 1, "maxLength": 32000},
            "max_rows": {"type": "integer", "minimum": 1, "maximum": 5000}
        },
        "required": ["query"]
    }))
}

fn tarif_tool() -> ToolSchema {
    compile(json!({
        "type": "object",
        "properties": {
            "tarifgebiet": {"type": "string", "description": "Bundesland"},
            "branche": {"type": "string"},
            "filter": {
                "type": "object",
                "properties": {"year": {"type": "integer"}, "month": {"type": "integer", "minimum": 1, "maximum": 12}},
                "required": ["year"]
            },
            "search_terms": {"type": "array", "items": {"type": "string"}, "maxItems": 5},
            "unit": {"type": "string", "enum": ["celsius", "fahrenheit"]},
            "note": {"anyOf": [{"type": "string"}, {"type": "null"}]}
        },
        "required": ["tarifgebiet"]
    }))
}

// ---------------------------------------------------------------- valid calls

#[test]
fn valid_arguments_give_no_errors() {
    assert!(sql_tool()
        .validate(&json!({"query": "select 1"}))
        .is_empty());
    assert!(sql_tool()
        .validate(&json!({"query": "select 1", "max_rows": 25}))
        .is_empty());
    let t = tarif_tool();
    let args = json!({
        "tarifgebiet": "Bayern",
        "filter": {"year": 2024, "month": 5},
        "search_terms": ["Metall", "Elektro"],
        "unit": "celsius",
        "note": null
    });
    assert_eq!(t.validate(&args), vec![]);
    assert_eq!(errors_to_json(&t.validate(&args)), json!([]));
}

// ---------------------------------------------------------------- missing

#[test]
fn missing_required_parameter() {
    let e = one(tarif_tool().validate(&json!({})));
    assert_eq!(e.parameter, "tarifgebiet");
    assert_eq!(e.kind, ArgErrorKind::Missing);
    assert_eq!(e.message, "parameter 'tarifgebiet' missing");
    assert_eq!(
        correction_message("search_tarif", &[e]),
        "Tool call failed: parameter 'tarifgebiet' missing. Call 'search_tarif' again with corrected arguments."
    );
}

#[test]
fn missing_nested_parameter_has_dotted_path() {
    let e = one(tarif_tool().validate(&json!({"tarifgebiet": "Bayern", "filter": {"month": 3}})));
    assert_eq!(e.parameter, "filter.year");
    assert_eq!(e.kind, ArgErrorKind::Missing);
    assert_eq!(e.message, "parameter 'filter.year' missing");
}

// ---------------------------------------------------------------- strict types

#[test]
fn string_25_is_not_an_integer() {
    let e = one(sql_tool().validate(&json!({"query": "select 1", "max_rows": "25"})));
    assert_eq!(e.parameter, "max_rows");
    assert_eq!(e.kind, ArgErrorKind::Type);
    assert_eq!(
        e.message,
        "parameter 'max_rows' must be an integer, got string \"25\""
    );
}

#[test]
fn fractional_and_float_literals_are_not_integers() {
    let e = one(sql_tool().validate(&json!({"query": "q", "max_rows": 1.5})));
    assert_eq!(e.kind, ArgErrorKind::Type);
    assert_eq!(
        e.message,
        "parameter 'max_rows' must be an integer, got number 1.5"
    );
    // Plain JSON Schema accepts 25.0 as an integer; we do not.
    let e = one(sql_tool().validate(&json!({"query": "q", "max_rows": 25.0})));
    assert_eq!(e.kind, ArgErrorKind::Type);
    assert_eq!(
        e.message,
        "parameter 'max_rows' must be an integer, got number 25.0"
    );
}

#[test]
fn number_is_not_a_string_and_bool_is_not_a_number() {
    let e = one(sql_tool().validate(&json!({"query": 25})));
    assert_eq!(
        e.message,
        "parameter 'query' must be a string, got number 25"
    );
    let t = compile(json!({"type": "object", "properties": {"x": {"type": "number"}}}));
    let e = one(t.validate(&json!({"x": true})));
    assert_eq!(e.kind, ArgErrorKind::Type);
    assert_eq!(
        e.message,
        "parameter 'x' must be a number, got boolean true"
    );
    // integers are numbers
    assert!(t.validate(&json!({"x": 3})).is_empty());
    assert!(t.validate(&json!({"x": 3.25})).is_empty());
}

#[test]
fn type_unions_and_nullable_any_of() {
    let t = compile(json!({"type": "object", "properties": {
        "a": {"type": ["integer", "null"]},
        "b": {"anyOf": [{"type": "string"}, {"type": "null"}]}
    }}));
    assert!(t.validate(&json!({"a": null, "b": null})).is_empty());
    let e = t.validate(&json!({"a": "1", "b": 5}));
    assert_eq!(
        msgs(&e),
        vec![
            "parameter 'a' must be an integer or null, got string \"1\"",
            "parameter 'b' must be a string or null, got number 5",
        ]
    );
    assert!(e.iter().all(|e| e.kind == ArgErrorKind::Type));
    // integer-or-null still rejects 2.0
    assert_eq!(one(t.validate(&json!({"a": 2.0}))).kind, ArgErrorKind::Type);
}

#[test]
fn arguments_that_are_not_an_object_give_one_error() {
    for (args, got) in [
        (json!("select 1"), "string \"select 1\""),
        (json!([1, 2]), "array [1,2]"),
        (json!(null), "null"),
        (json!(42), "number 42"),
    ] {
        let e = one(sql_tool().validate(&args));
        assert_eq!(e.parameter, "");
        assert_eq!(e.kind, ArgErrorKind::Type);
        assert_eq!(
            e.message,
            format!("arguments must be a JSON object of named parameters, got {got}")
        );
    }
}

// ---------------------------------------------------------------- unknown

#[test]
fn unknown_parameter_lists_allowed_ones() {
    let e = one(sql_tool().validate(&json!({"query": "q", "foo": 1})));
    assert_eq!(e.parameter, "foo");
    assert_eq!(e.kind, ArgErrorKind::Unknown);
    assert_eq!(
        e.message,
        "unknown parameter 'foo' (allowed: query, max_rows)"
    );
}

#[test]
fn unknown_nested_parameter() {
    let e =
        one(tarif_tool()
            .validate(&json!({"tarifgebiet": "BY", "filter": {"year": 2024, "day": 1}})));
    assert_eq!(e.parameter, "filter.day");
    assert_eq!(
        e.message,
        "unknown parameter 'filter.day' (allowed: year, month)"
    );
}

#[test]
fn unknown_parameter_for_tool_without_parameters() {
    let t = compile(json!({"type": "object"}));
    assert!(t.validate(&json!({})).is_empty());
    let e = one(t.validate(&json!({"x": 1})));
    assert_eq!(
        e.message,
        "unknown parameter 'x' (this tool takes no parameters)"
    );
}

#[test]
fn additional_properties_explicitly_allowed() {
    let t = compile(
        json!({"type": "object", "properties": {"a": {"type": "string"}}, "additionalProperties": true}),
    );
    assert!(t.validate(&json!({"a": "x", "b": 1})).is_empty());
    let t = compile(
        json!({"type": "object", "properties": {"a": {"type": "string"}}, "additionalProperties": {"type": "integer"}}),
    );
    assert!(t.validate(&json!({"a": "x", "b": 1})).is_empty());
    let e = one(t.validate(&json!({"a": "x", "b": "y"})));
    assert_eq!(e.parameter, "b");
    assert_eq!(
        e.message,
        "parameter 'b' must be an integer, got string \"y\""
    );
    // explicit false behaves like the default
    let t =
        compile(json!({"type": "object", "properties": {"a": {}}, "additionalProperties": false}));
    assert_eq!(
        one(t.validate(&json!({"z": 1}))).message,
        "unknown parameter 'z' (allowed: a)"
    );
}

#[test]
fn free_form_nested_object_stays_open() {
    // An object without "properties" is free-form on purpose.
    let t = compile(json!({"type": "object", "properties": {"meta": {"type": "object"}}}));
    assert!(t
        .validate(&json!({"meta": {"anything": [1, 2]}}))
        .is_empty());
}

#[test]
fn composition_with_all_of_and_refs_is_not_broken_by_closing() {
    let t = compile(json!({
        "type": "object",
        "$defs": {"base": {"properties": {"id": {"type": "integer"}}, "required": ["id"]}},
        "allOf": [{"$ref": "#/$defs/base"}],
        "properties": {"name": {"type": "string"}}
    }));
    assert!(t.validate(&json!({"id": 1, "name": "x"})).is_empty());
    let e = one(t.validate(&json!({"id": 1, "nme": "x"})));
    assert_eq!(e.kind, ArgErrorKind::Unknown);
    assert_eq!(e.message, "unknown parameter 'nme' (allowed: name, id)");
}

#[test]
fn draft7_schema_is_closed_too() {
    let t = compile(json!({
        "$schema": "http://json-schema.org/draft-07/schema#",
        "type": "object",
        "properties": {"a": {"type": "integer"}}
    }));
    assert!(t.validate(&json!({"a": 1})).is_empty());
    let e = t.validate(&json!({"a": 1.0, "b": 2}));
    assert_eq!(
        msgs(&e),
        vec![
            "parameter 'a' must be an integer, got number 1.0",
            "unknown parameter 'b' (allowed: a)"
        ]
    );
}

// ---------------------------------------------------------------- enum / const

#[test]
fn enum_lists_options() {
    let e = one(tarif_tool().validate(&json!({"tarifgebiet": "BY", "unit": "kelvin"})));
    assert_eq!(e.kind, ArgErrorKind::Enum);
    assert_eq!(
        e.message,
        "parameter 'unit' must be one of \"celsius\", \"fahrenheit\", got \"kelvin\""
    );
    let t = compile(json!({"type": "object", "properties": {"v": {"const": "v1"}}}));
    let e = one(t.validate(&json!({"v": "v2"})));
    assert_eq!(e.kind, ArgErrorKind::Enum);
    assert_eq!(e.message, "parameter 'v' must be \"v1\", got \"v2\"");
}

// ---------------------------------------------------------------- arrays

#[test]
fn array_items_get_indexed_paths() {
    let e =
        one(tarif_tool().validate(&json!({"tarifgebiet": "BY", "search_terms": ["a", "b", 3]})));
    assert_eq!(e.parameter, "search_terms[2]");
    assert_eq!(
        e.message,
        "parameter 'search_terms[2]' must be a string, got number 3"
    );
    let e = one(tarif_tool()
        .validate(&json!({"tarifgebiet": "BY", "search_terms": ["1", "2", "3", "4", "5", "6"]})));
    assert_eq!(e.kind, ArgErrorKind::Length);
    assert_eq!(
        e.message,
        "parameter 'search_terms' must have at most 5 items, got 6"
    );
}

#[test]
fn nested_arrays_of_objects() {
    let t = compile(json!({"type": "object", "properties": {
        "rows": {"type": "array", "items": {"type": "object", "properties": {"id": {"type": "integer"}}, "required": ["id"]}}
    }}));
    let e = t.validate(&json!({"rows": [{"id": 1}, {"id": "2"}, {"x": 1}]}));
    assert_eq!(
        e.iter()
            .map(|e| (e.parameter.as_str(), e.kind))
            .collect::<Vec<_>>(),
        vec![
            ("rows[1].id", ArgErrorKind::Type),
            ("rows[2].id", ArgErrorKind::Missing),
            ("rows[2].x", ArgErrorKind::Unknown),
        ]
    );
    assert_eq!(e[2].message, "unknown parameter 'rows[2].x' (allowed: id)");
}

// ---------------------------------------------------------------- range / length / pattern / format

#[test]
fn range_errors() {
    let e = one(sql_tool().validate(&json!({"query": "q", "max_rows": 0})));
    assert_eq!(e.kind, ArgErrorKind::Range);
    assert_eq!(e.message, "parameter 'max_rows' must be >= 1, got 0");
    let e = one(sql_tool().validate(&json!({"query": "q", "max_rows": 9999})));
    assert_eq!(e.message, "parameter 'max_rows' must be <= 5000, got 9999");
    let t = compile(json!({"type": "object", "properties": {
        "p": {"type": "number", "exclusiveMinimum": 0, "exclusiveMaximum": 1},
        "m": {"type": "integer", "multipleOf": 5}
    }}));
    let e = t.validate(&json!({"p": 1, "m": 7}));
    assert_eq!(
        msgs(&e),
        vec![
            "parameter 'm' must be a multiple of 5, got 7",
            "parameter 'p' must be < 1, got 1"
        ]
    );
    assert!(e.iter().all(|e| e.kind == ArgErrorKind::Range));
    assert_eq!(
        one(t.validate(&json!({"p": 0}))).message,
        "parameter 'p' must be > 0, got 0"
    );
}

#[test]
fn length_errors() {
    let e = one(sql_tool().validate(&json!({"query": ""})));
    assert_eq!(e.kind, ArgErrorKind::Length);
    assert_eq!(
        e.message,
        "parameter 'query' must be at least 1 character long, got 0"
    );
    let long = "x".repeat(32001);
    let e = one(sql_tool().validate(&json!({"query": long})));
    assert_eq!(
        e.message,
        "parameter 'query' must be at most 32000 characters long, got 32001"
    );
    // the value itself is not echoed
    assert!(e.message.len() < 200);
}

#[test]
fn pattern_error() {
    let t = compile(
        json!({"type": "object", "properties": {"code": {"type": "string", "pattern": "^[A-Z]{2}$"}}}),
    );
    let e = one(t.validate(&json!({"code": "bay"})));
    assert_eq!(e.kind, ArgErrorKind::Pattern);
    assert_eq!(
        e.message,
        "parameter 'code' must match the pattern ^[A-Z]{2}$, got \"bay\""
    );
}

#[test]
fn format_error() {
    let t = compile(json!({"type": "object", "properties": {
        "day": {"type": "string", "format": "date"},
        "mail": {"type": "string", "format": "email"},
        "free": {"type": "string", "format": "sql-identifier"}
    }}));
    assert!(t
        .validate(&json!({"day": "2024-05-31", "mail": "a@b.de", "free": "anything"}))
        .is_empty());
    let e = t.validate(&json!({"day": "31.05.2024", "mail": "nope"}));
    assert_eq!(
        msgs(&e),
        vec![
            "parameter 'day' must be a valid date (YYYY-MM-DD), got string \"31.05.2024\"",
            "parameter 'mail' must be a valid email (e-mail address), got string \"nope\"",
        ]
    );
    assert!(e.iter().all(|e| e.kind == ArgErrorKind::Format));
}

#[test]
fn other_errors() {
    let t = compile(json!({"type": "object", "properties": {
        "tags": {"type": "array", "uniqueItems": true},
        "id": {"oneOf": [{"type": "integer"}, {"type": "string", "pattern": "^[0-9]+$"}]}
    }}));
    let e = t.validate(&json!({"tags": ["a", "a"], "id": "abc"}));
    assert_eq!(
        msgs(&e),
        vec![
            "parameter 'id' does not match any of the allowed forms, got string \"abc\"",
            "parameter 'tags' must not contain duplicate items",
        ]
    );
    assert!(e.iter().all(|e| e.kind == ArgErrorKind::Other));
    // branches that only differ by type read as a type error
    let e = one(t.validate(&json!({"id": true})));
    assert_eq!(e.kind, ArgErrorKind::Type);
    assert_eq!(
        e.message,
        "parameter 'id' must be an integer or a string, got boolean true"
    );
    let t = compile(
        json!({"type": "object", "properties": {"s": {"type": "string", "not": {"const": "root"}}}}),
    );
    let e = one(t.validate(&json!({"s": "root"})));
    assert_eq!(e.kind, ArgErrorKind::Other);
    assert_eq!(
        e.message,
        "parameter 's' has a value that is not allowed, got string \"root\""
    );
}

// ---------------------------------------------------------------- messages and output

#[test]
fn several_errors_sorted_by_path_and_joined() {
    let e = tarif_tool().validate(&json!({
        "unit": "kelvin", "filter": {"year": "2024"}, "zzz": 1, "search_terms": [1]
    }));
    let params: Vec<&str> = e.iter().map(|e| e.parameter.as_str()).collect();
    assert_eq!(
        params,
        vec![
            "filter.year",
            "search_terms[0]",
            "tarifgebiet",
            "unit",
            "zzz"
        ]
    );
    let m = correction_message("search_tarif", &e);
    assert!(
        m.starts_with(
            "Tool call failed: parameter 'filter.year' must be an integer, got string \"2024\"; "
        ),
        "{m}"
    );
    assert!(m.contains("; parameter 'tarifgebiet' missing; "), "{m}");
    assert!(
        m.ends_with("Call 'search_tarif' again with corrected arguments."),
        "{m}"
    );
    // deterministic
    assert_eq!(
        e,
        tarif_tool().validate(&json!({
            "zzz": 1, "search_terms": [1], "filter": {"year": "2024"}, "unit": "kelvin"
        }))
    );
}

#[test]
fn errors_to_json_shape() {
    let e = sql_tool().validate(&json!({"max_rows": "25"}));
    assert_eq!(
        errors_to_json(&e),
        json!([
            {"parameter": "max_rows", "kind": "type", "message": "parameter 'max_rows' must be an integer, got string \"25\""},
            {"parameter": "query", "kind": "missing", "message": "parameter 'query' missing"}
        ])
    );
    // serde serialization agrees
    assert_eq!(serde_json::to_value(&e).unwrap(), errors_to_json(&e));
}

#[test]
fn long_values_are_not_echoed() {
    let big = "y".repeat(10_000);
    let e = one(sql_tool().validate(&json!({"query": "q", "max_rows": big})));
    assert!(e.message.chars().count() < 180, "{}", e.message);
    assert!(e.message.contains('…'));
    let e =
        sql_tool().validate(&json!({"query": "q", "max_rows": {"k": big.clone()}, big.clone(): 1}));
    for x in &e {
        assert!(x.message.chars().count() < 300, "{}", x.message);
        assert!(x.parameter.chars().count() < 120, "{}", x.parameter);
    }
}

#[test]
fn odd_property_names_are_quoted_in_paths() {
    let t = compile(
        json!({"type": "object", "properties": {"a b": {"type": "integer"}, "x.y": {"type": "integer"}}}),
    );
    let e = t.validate(&json!({"a b": "1", "x.y": "2"}));
    let params: Vec<&str> = e.iter().map(|e| e.parameter.as_str()).collect();
    assert_eq!(params, vec!["[\"a b\"]", "[\"x.y\"]"]);
    let e = one(t.validate(&json!({"evil\nname|": 1})));
    assert_eq!(e.kind, ArgErrorKind::Unknown);
    assert!(!e.message.contains('\n'));
}

#[test]
fn correction_message_edge_cases() {
    assert_eq!(
        correction_message("x", &[]),
        "Tool call failed: invalid arguments. Call 'x' again with corrected arguments."
    );
    let many: Vec<ArgError> = (0..15)
        .map(|i| ArgError {
            parameter: format!("p{i}"),
            kind: ArgErrorKind::Missing,
            message: format!("parameter 'p{i}' missing"),
        })
        .collect();
    let m = correction_message("t", &many);
    assert!(m.contains("; and 5 more errors."), "{m}");
    // a hostile tool name is not echoed
    let m = correction_message("drop table x; --", &many[..1]);
    assert!(
        m.ends_with("Call the tool again with corrected arguments."),
        "{m}"
    );
}

// ---------------------------------------------------------------- registry checks

fn refused(s: Value) -> Vec<String> {
    match check_tool_schema(&s) {
        Ok(()) => panic!("schema accepted: {s}"),
        Err(e) => {
            assert!(ToolSchema::compile(&s).is_err());
            e
        }
    }
}

#[test]
fn good_schemas_accepted() {
    for s in [
        json!({"type": "object"}),
        json!({"type": "object", "properties": {}}),
        json!({"type": "object", "properties": {"q": {"type": "string"}}, "required": ["q"]}),
        json!({"$schema": "https://json-schema.org/draft/2020-12/schema", "type": "object"}),
        json!({"$schema": "http://json-schema.org/draft-04/schema#", "type": "object", "properties": {"a": {"type": "integer"}}}),
        json!({"type": "object", "properties": {"a": {"$ref": "#/$defs/A"}}, "$defs": {"A": {"type": "string"}}}),
    ] {
        assert_eq!(check_tool_schema(&s), Ok(()), "{s}");
    }
}

#[test]
fn bad_type_keyword_refused() {
    let e = refused(json!({"type": "object", "properties": {"a": {"type": "strin"}}}));
    assert_eq!(e.len(), 1, "{e:?}");
    assert!(
        e[0].starts_with("invalid JSON Schema at /properties/a/type: \"type\" must be one of"),
        "{}",
        e[0]
    );
    assert!(e[0].ends_with("got \"strin\""), "{}", e[0]);
}

#[test]
fn meta_schema_errors_refused() {
    let e = refused(
        json!({"type": "object", "properties": {"a": {"type": "string", "minLength": -1}}}),
    );
    assert!(
        e[0].starts_with("invalid JSON Schema at /properties/a/minLength: "),
        "{e:?}"
    );
    let e = refused(json!({"type": "object", "required": "a", "properties": {"a": {}}}));
    assert!(
        e[0].starts_with("invalid JSON Schema at /required: "),
        "{e:?}"
    );
}

#[test]
fn required_not_in_properties_refused() {
    let e = refused(
        json!({"type": "object", "properties": {"a": {}}, "required": ["a", "tarifgebiet"]}),
    );
    assert_eq!(
        e,
        vec!["required parameter 'tarifgebiet' is not defined in \"properties\""]
    );
    let e = refused(json!({"type": "object", "required": ["a"]}));
    assert_eq!(
        e,
        vec!["required parameter 'a' is not defined in \"properties\""]
    );
}

#[test]
fn non_object_top_level_refused() {
    assert_eq!(
        refused(json!({"type": "array", "items": {}})),
        vec!["top-level \"type\" must be \"object\" (tool arguments are a JSON object), got \"array\""]
    );
    assert_eq!(
        refused(json!({"properties": {"a": {}}})),
        vec!["top-level \"type\": \"object\" is missing (tool arguments are a JSON object)"]
    );
    assert_eq!(
        refused(json!(["type", "object"])),
        vec!["parameters must be a JSON object (a JSON Schema with \"type\": \"object\"), got array [\"type\",\"object\"]"]
    );
    assert!(refused(json!(true))[0].starts_with("parameters must be a JSON object"));
    let e = refused(json!({"type": "object", "properties": ["a"]}));
    assert!(e.contains(&"\"properties\" must be an object mapping parameter names to their schemas, got array [\"a\"]".to_string()), "{e:?}");
}

#[test]
fn remote_refs_refused() {
    let e = refused(
        json!({"type": "object", "properties": {"a": {"$ref": "http://evil.example/s.json"}}}),
    );
    assert_eq!(
        e,
        vec!["$ref \"http://evil.example/s.json\" at /properties/a is not allowed: only local references such as \"#/$defs/name\" are resolved, nothing is fetched"]
    );
    let e = refused(
        json!({"type": "object", "properties": {"a": {"items": {"$ref": "other.json#/x"}}}}),
    );
    assert!(e[0].contains("at /properties/a/items"), "{e:?}");
    // a *property* named $ref is not a reference
    assert_eq!(
        check_tool_schema(&json!({"type": "object", "properties": {"$ref": {"type": "string"}}})),
        Ok(())
    );
}

#[test]
fn unknown_meta_schema_refused_without_fetching() {
    let e = refused(json!({"$schema": "https://example.com/my-meta", "type": "object"}));
    assert_eq!(e.len(), 1);
    assert!(
        e[0].starts_with("unsupported \"$schema\" \"https://example.com/my-meta\""),
        "{}",
        e[0]
    );
    let e = refused(json!({"$schema": 7, "type": "object"}));
    assert_eq!(
        e,
        vec!["\"$schema\" must be a string (a draft URI), got number 7"]
    );
}

#[test]
fn uncompilable_schemas_refused() {
    let e =
        refused(json!({"type": "object", "properties": {"a": {"type": "string", "pattern": "("}}}));
    assert!(e[0].starts_with("the schema cannot be compiled"), "{e:?}");
    let e = refused(json!({"type": "object", "properties": {"a": {"$ref": "#/$defs/missing"}}}));
    assert!(e[0].starts_with("the schema cannot be compiled"), "{e:?}");
}

#[test]
fn deeply_nested_schema_refused() {
    let mut s = json!({"type": "string"});
    for _ in 0..100 {
        s = json!({"type": "object", "properties": {"a": s}});
    }
    let e = refused(s);
    assert!(
        e.iter().any(|m| m.contains("nested more than 32 levels")),
        "{e:?}"
    );
}

#[test]
fn draft_specific_meta_validation() {
    // exclusiveMinimum is a boolean in draft-04, a number later
    assert!(check_tool_schema(
        &json!({"$schema": "http://json-schema.org/draft-04/schema#", "type": "object",
        "properties": {"a": {"type": "number", "minimum": 0, "exclusiveMinimum": true}}})
    )
    .is_ok());
    refused(
        json!({"type": "object", "properties": {"a": {"type": "number", "exclusiveMinimum": true}}}),
    );
}

// ---------------------------------------------------------------- helpers

#[test]
fn property_helpers() {
    let s = json!({"type": "object", "properties": {
        "q": {"type": "string"}, "n": {"type": ["integer", "null"]}, "any": {}, "u": {"type": ["string", "number"]}
    }, "required": ["q", "n"]});
    assert_eq!(required_properties(&s), vec!["q", "n"]);
    assert_eq!(
        properties(&s),
        vec![
            ("q".to_string(), Some("string".to_string())),
            ("n".to_string(), Some("integer".to_string())),
            ("any".to_string(), None),
            ("u".to_string(), None),
        ]
    );
    assert!(required_properties(&json!({"type": "object"})).is_empty());
    assert!(properties(&json!("nonsense")).is_empty());
}

#[test]
fn compiled_schema_is_clonable_and_keeps_source() {
    let t = sql_tool();
    let c = t.clone();
    assert_eq!(c.schema()["required"], json!(["query"]));
    assert_eq!(c.validate(&json!({"query": "x"})), vec![]);
}

#[test]
fn no_panic_on_odd_inputs() {
    let t = tarif_tool();
    for args in [
        json!({"tarifgebiet": "\u{0000}\u{202e}", "filter": [], "search_terms": {"0": "a"}, "note": [[[[]]]]}),
        json!({"": 1, "~": 2, "/": 3}),
        json!({"tarifgebiet": f64::MAX, "filter": {"year": i64::MIN, "month": u64::MAX}}),
    ] {
        let e = t.validate(&args);
        let _ = correction_message("t", &e);
        let _ = errors_to_json(&e);
    }
    for s in [
        json!({}),
        json!(null),
        json!({"type": "object", "properties": {"a": null}}),
        json!({"type": "object", "properties": {"a": {"pattern": 5}}}),
    ] {
        let _ = check_tool_schema(&s);
    }
}

#[test]
fn object_behind_a_ref_is_closed_and_lists_its_names() {
    let t = compile(json!({
        "type": "object",
        "properties": {"filter": {"$ref": "#/$defs/Filter"}, "meta": {"$ref": "#/$defs/Free"}},
        "$defs": {
            "Filter": {"type": "object", "properties": {"year": {"type": "integer"}}},
            "Free": {"type": "object"}
        }
    }));
    assert!(t
        .validate(&json!({"filter": {"year": 2024}, "meta": {"x": 1}}))
        .is_empty());
    let e = one(t.validate(&json!({"filter": {"year": 2024, "yaer": 1}})));
    assert_eq!(e.parameter, "filter.yaer");
    assert_eq!(e.message, "unknown parameter 'filter.yaer' (allowed: year)");
}

#[test]
fn recursive_schema() {
    let t = compile(json!({
        "type": "object",
        "properties": {"name": {"type": "string"}, "child": {"$ref": "#"}}
    }));
    assert!(t
        .validate(&json!({"name": "a", "child": {"name": "b", "child": {}}}))
        .is_empty());
    let e = one(t.validate(&json!({"child": {"child": {"name": 1}}})));
    assert_eq!(e.parameter, "child.child.name");
    assert_eq!(e.kind, ArgErrorKind::Type);
    let e = one(t.validate(&json!({"child": {"nme": "x"}})));
    assert_eq!(
        e.message,
        "unknown parameter 'child.nme' (allowed: name, child)"
    );
}

#[test]
fn tool_schema_can_live_in_a_shared_cache() {
    fn assert_send_sync<T: Send + Sync>() {}
    assert_send_sync::<ToolSchema>();
}

#[test]
fn the_one_tool_name_check() {
    use mcp_tools::{is_tool_name, tool_label};
    assert!(is_tool_name("search_tarif-2", false));
    assert!(is_tool_name("a.b", true));
    assert!(!is_tool_name("a.b", false));
    assert!(!is_tool_name("", true));
    assert!(!is_tool_name("a b", true));
    assert!(is_tool_name(&"x".repeat(64), false));
    assert!(!is_tool_name(&"x".repeat(65), true));
    assert!(!is_tool_name("ä", true));
    assert_eq!(tool_label("getDialog"), "'getDialog'");
    assert_eq!(tool_label("x'); drop"), "the tool");
}

/// One schema error can name many parameters: 100,000 unknown properties still give at most
/// 50 errors (the documented bound), and the message the model gets stays short.
#[test]
fn many_unknown_properties_give_a_bounded_error_list() {
    let s = compile(json!({
        "type": "object",
        "properties": {"a": {"type": "string"}},
        "required": ["a"],
        "additionalProperties": false
    }));
    let mut args = serde_json::Map::new();
    for i in 0..100_000 {
        args.insert(format!("p{i}"), json!(i));
    }
    let errs = s.validate(&Value::Object(args));
    assert!(!errs.is_empty());
    assert!(errs.len() <= 50, "{} errors", errs.len());
}
