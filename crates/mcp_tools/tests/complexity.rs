//! Bounded validation cost: schemas whose validation could explode are refused
//! when checked or compiled, arguments too large for a schema are refused before validation,
//! and everything that does run fits a small stack.

use mcp_tools::validate::*;
use serde_json::{json, Map, Value};
use std::time::{Duration, Instant};

/// `levels` definitions, each an `anyOf` of `branches` references to the next.
fn fan_out(branches: usize, levels: usize) -> Value {
    let mut defs = Map::new();
    for i in 0..levels {
        let refs: Vec<Value> = (0..branches)
            .map(|_| json!({"$ref": format!("#/$defs/d{}", i + 1)}))
            .collect();
        defs.insert(format!("d{i}"), json!({"anyOf": refs}));
    }
    defs.insert(format!("d{levels}"), json!({"type": "string"}));
    json!({"type": "object", "properties": {"x": {"$ref": "#/$defs/d0"}}, "$defs": defs})
}

/// `anyOf`s nested inline, `branches` copies per level.
fn inline_chain(branches: usize, levels: usize) -> Value {
    let mut v = json!({"type": "string"});
    for _ in 0..levels {
        v = json!({"anyOf": vec![v; branches]});
    }
    json!({"type": "object", "properties": {"x": v}})
}

fn too_complex(schema: &Value) -> String {
    let t = Instant::now();
    let e = check_tool_schema(schema).expect_err("refused");
    let c = ToolSchema::compile(schema).expect_err("refused when compiled too");
    assert!(t.elapsed() < Duration::from_secs(2), "{:?}", t.elapsed());
    assert_eq!(e, c);
    let m = e.iter().find(|m| m.starts_with(TOO_COMPLEX)).cloned();
    m.unwrap_or_else(|| panic!("no complexity error in {e:?}"))
}

#[test]
fn fan_out_through_refs_is_refused_quickly() {
    // the shapes: ~1 KB schemas that took 5.5 s (branching 5) and ~1 min (branching 7)
    for (b, l) in [(5, 6), (5, 8), (7, 8), (10, 10), (2, 40)] {
        let s = fan_out(b, l);
        let m = too_complex(&s);
        assert!(m.contains("more than 2000 subschema evaluations"), "{m}");
        assert!(m.contains("#/$defs/d"), "names where: {m}");
    }
    // a small fan-out stays acceptable
    let ok = ToolSchema::compile(&fan_out(2, 3)).expect("accepted");
    assert_eq!(ok.validate(&json!({"x": "s"})), vec![]);
    assert_eq!(ok.validate(&json!({"x": 1})).len(), 1);
}

#[test]
fn inline_any_of_chains_are_refused() {
    for (b, l) in [(3, 8), (2, 12), (40, 3)] {
        too_complex(&inline_chain(b, l));
    }
    // every other combinator multiplies as well
    for kw in ["allOf", "oneOf"] {
        let mut v = json!({"type": "string"});
        for _ in 0..12 {
            v = json!({kw: [v.clone(), v]});
        }
        too_complex(&json!({"type": "object", "properties": {"x": v}}));
    }
    let mut v = json!({"type": "string"});
    for _ in 0..12 {
        v = json!({"if": v.clone(), "then": v.clone(), "else": v});
    }
    too_complex(&json!({"type": "object", "properties": {"x": v}}));
}

#[test]
fn cycles_that_never_descend_are_refused() {
    for s in [
        json!({"type": "object", "properties": {"x": {"$ref": "#/$defs/a"}},
               "$defs": {"a": {"anyOf": [{"$ref": "#/$defs/a"}, {"type": "string"}]}}}),
        json!({"type": "object", "properties": {"x": {"$ref": "#/$defs/a"}},
               "$defs": {"a": {"allOf": [{"$ref": "#/$defs/b"}]}, "b": {"not": {"$ref": "#/$defs/a"}}}}),
        json!({"type": "object", "allOf": [{"$ref": "#"}]}),
        json!({"type": "object", "properties": {"x": {"$ref": "#a"}},
               "$defs": {"a": {"$anchor": "a", "oneOf": [{"$ref": "#a"}]}}}),
    ] {
        let m = too_complex(&s);
        assert!(m.contains("never end"), "{m}");
    }
}

#[test]
fn recursive_schemas_are_bounded_by_argument_depth() {
    // a tree: accepted; arguments deeper than its limit are refused before validation
    let tree = json!({"type": "object", "properties": {"root": {"$ref": "#/$defs/node"}},
        "$defs": {"node": {"type": "object", "properties": {
            "name": {"type": "string"},
            "children": {"type": "array", "items": {"$ref": "#/$defs/node"}}}}}});
    let c = ToolSchema::compile(&tree).expect("a tree schema is accepted");
    let limit = c.max_argument_depth();
    assert!(
        (MIN_RECURSIVE_DEPTH..=MAX_ARGUMENT_DEPTH).contains(&limit),
        "{limit}"
    );
    let nest = |levels: usize| {
        let mut v = json!({"name": "leaf"});
        for _ in 0..levels {
            v = json!({"name": "n", "children": [v]});
        }
        json!({"root": v})
    };
    assert_eq!(c.validate(&nest(5)), vec![]);
    let e = c.validate(&nest(limit));
    assert_eq!(e.len(), 1, "{e:?}");
    assert!(e[0].message.contains("nested more than"), "{e:?}");
    // a recursion that doubles per level is refused
    let doubling = json!({"type": "object", "properties": {"c": {"$ref": "#/$defs/n"}},
        "$defs": {"n": {"anyOf": [
            {"type": "object", "properties": {"c": {"$ref": "#/$defs/n"}}},
            {"type": "object", "properties": {"c": {"$ref": "#/$defs/n"}, "d": {"type": "string"}}}]}}});
    let m = too_complex(&doubling);
    assert!(m.contains("recursive schema"), "{m}");
}

#[test]
fn nested_id_and_too_many_subschemas_are_refused() {
    let m = too_complex(&json!({"type": "object", "properties": {
        "x": {"$id": "https://example.com/x", "$ref": "#/$defs/y", "$defs": {"y": {"type": "string"}}}}}));
    assert!(m.contains("$id"), "{m}");
    let mut props = Map::new();
    for i in 0..6000 {
        props.insert(format!("p{i}"), json!({"type": "string"}));
    }
    let m = too_complex(&json!({"type": "object", "properties": props}));
    assert!(m.contains("more than 5000 subschemas"), "{m}");
}

#[test]
fn percent_encoded_references_are_counted() {
    let mut defs = Map::new();
    for i in 0..8 {
        let refs: Vec<Value> = (0..6)
            .map(|_| json!({"$ref": format!("#/$defs/d%20{}", i + 1)}))
            .collect();
        defs.insert(format!("d {i}"), json!({"anyOf": refs}));
    }
    defs.insert("d 8".into(), json!({"type": "string"}));
    too_complex(
        &json!({"type": "object", "properties": {"x": {"$ref": "#/$defs/d%200"}}, "$defs": defs}),
    );
}

#[test]
fn arguments_too_large_for_the_schema_are_refused_before_validation() {
    let c = ToolSchema::compile(&json!({"type": "object",
        "properties": {"ids": {"type": "array", "items": {"anyOf": [{"type": "integer"}, {"type": "string"}]}}}}))
    .expect("accepted");
    let many: Vec<Value> = (0..400_000).map(|i| json!(i)).collect();
    let t = Instant::now();
    let e = c.validate(&json!({"ids": many}));
    assert!(t.elapsed() < Duration::from_secs(2), "{:?}", t.elapsed());
    assert_eq!(e.len(), 1, "{e:?}");
    assert!(e[0].message.starts_with("arguments are too large"), "{e:?}");
    // the same schema with a normal number of values validates
    let some: Vec<Value> = (0..1000).map(|i| json!(i)).collect();
    assert_eq!(c.validate(&json!({"ids": some})), vec![]);
    // and many failing values: only the first errors are collected
    let bad: Vec<Value> = (0..20_000).map(|_| json!(true)).collect();
    let t = Instant::now();
    let e = c.validate(&json!({"ids": bad}));
    assert!(t.elapsed() < Duration::from_secs(2), "{:?}", t.elapsed());
    assert!(!e.is_empty() && e.len() <= 50, "{}", e.len());
}

#[test]
fn catastrophic_patterns_are_cut_short() {
    let c = ToolSchema::compile(&json!({"type": "object",
        "properties": {"s": {"type": "string", "pattern": "^(a|aa)+(?=b)$"}}}))
    .expect("accepted");
    let t = Instant::now();
    let _ = c.validate(&json!({"s": "a".repeat(5_000)}));
    assert!(t.elapsed() < Duration::from_secs(2), "{:?}", t.elapsed());
}

const SMALL_STACK: usize = 512 * 1024;

fn on_small_stack<T: Send + 'static>(f: impl FnOnce() -> T + Send + 'static) -> T {
    mcp_repair::guard::on_thread_with_stack(SMALL_STACK, f)
}

/// The deepest schemas and arguments that are accepted are checked, compiled and validated on
/// a 512 KiB stack (debug build: the validator's frames are large).
#[test]
fn accepted_extremes_fit_a_small_stack() {
    on_small_stack(|| {
        // the deepest accepted schema nesting, with arguments as deep
        let mut s = json!({"type": "integer"});
        let mut a = json!("x");
        for _ in 0..MAX_SCHEMA_DEPTH - 1 {
            s = json!({"type": "object", "properties": {"a": s}});
            a = json!({"a": a});
        }
        let schema = json!({"type": "object", "properties": {"a": s}});
        check_tool_schema(&schema).expect("accepted");
        let c = ToolSchema::compile(&schema).expect("accepted");
        assert_eq!(c.validate(&json!({"a": a})).len(), 1);
        // one level more is refused without compiling
        let deeper = json!({"type": "object", "properties": {"a": schema}});
        assert!(check_tool_schema(&deeper).is_err());

        // a recursive schema at its argument limit
        let list = json!({"type": "object", "properties": {"next": {"$ref": "#/$defs/n"}},
            "$defs": {"n": {"type": "object", "properties": {"v": {"type": "integer"}, "next": {"$ref": "#/$defs/n"}}}}});
        let c = ToolSchema::compile(&list).expect("accepted");
        let mut v = json!({"v": "x"});
        for _ in 0..c.max_argument_depth() - 2 {
            v = json!({"v": 1, "next": v});
        }
        assert_eq!(c.validate(&json!({"next": v})).len(), 1);

        // arguments nested as deep as jsonb conversion allows, against free-form schemas
        let mut deep = json!(1);
        for _ in 0..MAX_ARGUMENT_DEPTH - 1 {
            deep = json!([deep]);
        }
        for schema in [
            json!({"type": "object"}),
            json!({"type": "object", "properties": {"x": {"type": "array", "uniqueItems": true, "enum": [[1]]}}}),
            json!({"type": "object", "properties": {"x": {"const": [[1]]}}}),
        ] {
            let c = ToolSchema::compile(&schema).expect("accepted");
            let _ = c.validate(&json!({"x": deep.clone()}));
        }
    });
}
