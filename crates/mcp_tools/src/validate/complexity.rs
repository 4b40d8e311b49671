//! The worst-case cost of validating arguments against a schema, computed from the schema alone.
//!
//! The `jsonschema` crate cannot be interrupted, and the cost of a validation can grow
//! exponentially with the schema: `anyOf` members that `$ref` definitions that are `anyOf`s
//! again multiply (a 937-byte schema took 5.5 s, with branching 7 about a minute). So the cost
//! is bounded *before* anything is compiled or validated:
//!
//! * The subschemas reachable from the root are the nodes of a graph. Edges are either
//!   *in place* — the child applies to the same argument value: `allOf`/`anyOf`/`oneOf`
//!   members, `not`, `if`/`then`/`else`, `dependentSchemas`, `$ref`/`$dynamicRef`/
//!   `$recursiveRef` targets — or *descending* — the child applies to a value one level down:
//!   `properties`, `patternProperties`, `additionalProperties`, `items`, `prefixItems`,
//!   `contains`, `propertyNames`, `unevaluated*`, `contentSchema`.
//! * A cycle of in-place edges (`{"$defs": {"a": {"anyOf": [{"$ref": "#/$defs/a"}]}}}`) would
//!   never end: refused.
//! * `cost(s, d)` = evaluations of subschemas when `s` checks one value nested at most `d`
//!   levels deep = `weight(s)` + Σ in-place `cost(c, d)` + Σ descending `cost(c, d − 1)`; the
//!   nesting of those evaluations (the validator's recursion) likewise. Computed row by row for
//!   `d` = 0 … [`MAX_ARGUMENT_DEPTH`] (saturating), every node once per row. Each evaluation
//!   of one argument value is one path through this graph, so validating arguments with `N`
//!   values costs at most `N × cost(root, depth)` evaluations.
//! * A schema is accepted when `cost` stays within [`MAX_EVALUATIONS`] and the nesting within
//!   [`MAX_EVALUATION_DEPTH`] for every argument depth; a recursive schema (a cycle through a
//!   descending keyword, e.g. a tree) when that holds for arguments at least
//!   [`MIN_RECURSIVE_DEPTH`] levels deep — arguments nested deeper than the schema's own limit
//!   are then refused when they are validated.
//!
//! Only local references are followed (`#`, `#/json/pointer`, `#anchor`); pg_mcp refuses
//! others. A nested `$id` would change what a pointer resolves to, so it is refused here.

use std::collections::HashMap;

use jsonschema::Draft;
use serde_json::Value;

/// Most subschema evaluations one argument value may cost (see the module documentation).
/// Measured: a failing evaluation with its error context costs ~2 µs, a passing one ~0.2 µs.
pub const MAX_EVALUATIONS: u32 = 2_000;
/// Deepest nesting of subschema evaluations (the validator recurses once per level; in a debug
/// build a level costs ~2 KB of stack).
pub const MAX_EVALUATION_DEPTH: u32 = 128;
/// Most subschemas a schema may have.
pub const MAX_SUBSCHEMAS: usize = 5_000;
/// A recursive schema must allow at least this argument nesting within the limits above.
pub const MIN_RECURSIVE_DEPTH: usize = 16;
/// Deepest argument nesting considered (pg_mcp's jsonb conversion refuses deeper values).
pub const MAX_ARGUMENT_DEPTH: usize = 128;
/// Most `values × cost` one validation may do (≈ 0.2 s of passing evaluations).
pub const MAX_ARGUMENT_WORK: u64 = 1_000_000;

/// The cost profile of an accepted schema.
#[derive(Clone, Debug)]
pub struct Complexity {
    /// `cost[d]`: evaluations for one argument value nested at most `d` levels deep.
    cost: Vec<u32>,
    /// Deepest argument nesting the schema accepts (≤ [`MAX_ARGUMENT_DEPTH`]).
    pub max_depth: usize,
}

impl Complexity {
    /// Worst-case evaluations for one value nested at most `depth` levels deep.
    pub fn cost_at(&self, depth: usize) -> u32 {
        self.cost
            .get(depth.min(self.cost.len().saturating_sub(1)))
            .copied()
            .unwrap_or(1)
    }

    /// Analyze `schema` (a JSON Schema of `draft`). `Err` says what is too complex, for an
    /// admin.
    pub fn analyze(schema: &Value, draft: Draft) -> Result<Complexity, String> {
        let g = Graph::build(schema, draft)?;
        g.check_in_place_cycles()?;
        g.profile()
    }
}

const CAP_COST: u32 = MAX_EVALUATIONS + 1;
const CAP_DEPTH: u32 = MAX_EVALUATION_DEPTH + 1;

struct Node<'a> {
    value: &'a Value,
    ptr: String,
    weight: u32,
    in_place: Vec<usize>,
    descending: Vec<usize>,
}

struct Graph<'a> {
    nodes: Vec<Node<'a>>,
}

fn is_schema(v: &Value) -> bool {
    v.is_object() || v.is_boolean()
}

fn escape(s: &str) -> String {
    s.replace('~', "~0").replace('/', "~1")
}

/// Decode `%XX` in a URI fragment (JSON pointers in `$ref` may be percent-encoded).
fn percent_decode(s: &str) -> String {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'%' && i + 2 < b.len() {
            let hex = std::str::from_utf8(&b[i + 1..i + 3]).ok();
            if let Some(n) = hex.and_then(|h| u8::from_str_radix(h, 16).ok()) {
                out.push(n);
                i += 3;
                continue;
            }
        }
        out.push(b[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// Child schemas of a schema object: (in place?, location suffix, child).
fn children(map: &serde_json::Map<String, Value>) -> Vec<(bool, String, &Value)> {
    let mut out = Vec::new();
    for (kw, v) in map {
        let base = format!("/{}", escape(kw));
        match kw.as_str() {
            "allOf" | "anyOf" | "oneOf" => {
                if let Value::Array(a) = v {
                    for (i, c) in a.iter().enumerate().filter(|(_, c)| is_schema(c)) {
                        out.push((true, format!("{base}/{i}"), c));
                    }
                }
            }
            "not" | "if" | "then" | "else" if is_schema(v) => out.push((true, base, v)),
            "dependentSchemas" | "dependencies" => {
                if let Value::Object(m) = v {
                    for (k, c) in m.iter().filter(|(_, c)| is_schema(c)) {
                        out.push((true, format!("{base}/{}", escape(k)), c));
                    }
                }
            }
            "properties" | "patternProperties" => {
                if let Value::Object(m) = v {
                    for (k, c) in m.iter().filter(|(_, c)| is_schema(c)) {
                        out.push((false, format!("{base}/{}", escape(k)), c));
                    }
                }
            }
            "items" | "prefixItems" => match v {
                Value::Array(a) => {
                    for (i, c) in a.iter().enumerate().filter(|(_, c)| is_schema(c)) {
                        out.push((false, format!("{base}/{i}"), c));
                    }
                }
                c if is_schema(c) => out.push((false, base, c)),
                _ => {}
            },
            "additionalProperties"
            | "additionalItems"
            | "contains"
            | "propertyNames"
            | "unevaluatedItems"
            | "unevaluatedProperties"
            | "contentSchema"
                if is_schema(v) =>
            {
                out.push((false, base, v))
            }
            _ => {}
        }
    }
    out
}

/// Where definitions live: reachable only through references.
fn definitions(map: &serde_json::Map<String, Value>) -> Vec<(String, &Value)> {
    let mut out = Vec::new();
    for kw in ["$defs", "definitions"] {
        if let Some(Value::Object(m)) = map.get(kw) {
            for (k, c) in m.iter().filter(|(_, c)| is_schema(c)) {
                out.push((format!("/{kw}/{}", escape(k)), c));
            }
        }
    }
    out
}

impl<'a> Graph<'a> {
    fn build(root: &'a Value, draft: Draft) -> Result<Graph<'a>, String> {
        // every schema position of the document (also unreferenced definitions): anchors and
        // nested $id
        let mut anchors: HashMap<&'a str, Vec<&'a Value>> = HashMap::new();
        let mut dynamic: HashMap<&'a str, Vec<&'a Value>> = HashMap::new();
        let mut recursive_anchors: Vec<&'a Value> = Vec::new();
        let mut todo: Vec<(String, &'a Value)> = vec![(String::new(), root)];
        let mut seen_positions = 0usize;
        while let Some((ptr, v)) = todo.pop() {
            let Value::Object(map) = v else { continue };
            seen_positions += 1;
            if seen_positions > 4 * MAX_SUBSCHEMAS {
                return Err(too_many());
            }
            if !ptr.is_empty() {
                let nested_id = map.get("$id").is_some_and(Value::is_string)
                    || (draft == Draft::Draft4 && map.get("id").is_some_and(Value::is_string));
                if nested_id {
                    return Err(format!(
                        "a nested \"$id\" (at {}) is not supported: references are resolved within this one schema document",
                        at(&ptr)
                    ));
                }
            }
            if let Some(Value::String(a)) = map.get("$anchor") {
                anchors.entry(a).or_default().push(v);
            }
            if let Some(Value::String(a)) = map.get("$dynamicAnchor") {
                anchors.entry(a).or_default().push(v);
                dynamic.entry(a).or_default().push(v);
            }
            if map.get("$recursiveAnchor") == Some(&Value::Bool(true)) {
                recursive_anchors.push(v);
            }
            for (_, suffix, c) in children(map) {
                todo.push((format!("{ptr}{suffix}"), c));
            }
            for (suffix, c) in definitions(map) {
                todo.push((format!("{ptr}{suffix}"), c));
            }
        }

        // the graph of what validation reaches
        let mut g = Graph { nodes: Vec::new() };
        let mut index: HashMap<*const Value, usize> = HashMap::new();
        let mut queue: Vec<usize> = Vec::new();
        let mut add = |g: &mut Graph<'a>, v: &'a Value, ptr: String, queue: &mut Vec<usize>| {
            let key = v as *const Value;
            if let Some(&i) = index.get(&key) {
                return Ok(i);
            }
            if g.nodes.len() >= MAX_SUBSCHEMAS {
                return Err(too_many());
            }
            let weight = 1 + v
                .get("enum")
                .and_then(Value::as_array)
                .map_or(0, |e| (e.len() / 32) as u32);
            g.nodes.push(Node {
                value: v,
                ptr,
                weight,
                in_place: Vec::new(),
                descending: Vec::new(),
            });
            let i = g.nodes.len() - 1;
            index.insert(key, i);
            queue.push(i);
            Ok(i)
        };
        add(&mut g, root, String::new(), &mut queue)?;
        while let Some(i) = queue.pop() {
            let (v, ptr) = (g.nodes[i].value, g.nodes[i].ptr.clone());
            let Value::Object(map) = v else { continue };
            let mut in_place = Vec::new();
            let mut descending = Vec::new();
            for (inp, suffix, c) in children(map) {
                let j = add(&mut g, c, format!("{ptr}{suffix}"), &mut queue)?;
                if inp {
                    in_place.push(j);
                } else {
                    descending.push(j);
                }
            }
            for kw in ["$ref", "$dynamicRef", "$recursiveRef"] {
                let Some(Value::String(r)) = map.get(kw) else {
                    continue;
                };
                let mut targets: Vec<(String, &'a Value)> = Vec::new();
                if let Some(frag) = r.strip_prefix('#') {
                    let frag = percent_decode(frag);
                    if frag.is_empty() {
                        targets.push((String::new(), root));
                        if kw == "$recursiveRef" {
                            targets.extend(recursive_anchors.iter().map(|v| (String::new(), *v)));
                        }
                    } else if frag.starts_with('/') {
                        if let Some(t) = root.pointer(&frag).filter(|t| is_schema(t)) {
                            targets.push((frag.clone(), t));
                        }
                    } else {
                        let named = if kw == "$dynamicRef" {
                            dynamic
                                .get(frag.as_str())
                                .or_else(|| anchors.get(frag.as_str()))
                        } else {
                            anchors.get(frag.as_str())
                        };
                        if let Some(vs) = named {
                            targets.extend(vs.iter().map(|v| (format!("#{frag}"), *v)));
                        }
                    }
                }
                for (tptr, t) in targets {
                    let j = add(&mut g, t, tptr, &mut queue)?;
                    in_place.push(j);
                }
            }
            g.nodes[i].in_place = in_place;
            g.nodes[i].descending = descending;
        }
        Ok(g)
    }

    /// Children-first order of the in-place edges; `Err(node)` names a node on an in-place
    /// cycle.
    fn in_place_order(&self) -> Result<Vec<usize>, usize> {
        let n = self.nodes.len();
        let mut indegree = vec![0usize; n];
        for node in &self.nodes {
            for &c in &node.in_place {
                indegree[c] += 1;
            }
        }
        let mut ready: Vec<usize> = (0..n).filter(|&i| indegree[i] == 0).collect();
        let mut order = Vec::with_capacity(n);
        while let Some(i) = ready.pop() {
            order.push(i);
            for &c in &self.nodes[i].in_place {
                indegree[c] -= 1;
                if indegree[c] == 0 {
                    ready.push(c);
                }
            }
        }
        if order.len() < n {
            // follow in-place edges among the rest until a node repeats: it is on a cycle
            let mut seen = vec![false; n];
            let mut i = (0..n).find(|&i| indegree[i] > 0).unwrap_or(0);
            while !seen[i] {
                seen[i] = true;
                i = self.nodes[i]
                    .in_place
                    .iter()
                    .copied()
                    .find(|&c| indegree[c] > 0)
                    .unwrap_or(i);
            }
            return Err(i);
        }
        order.reverse();
        Ok(order)
    }

    fn check_in_place_cycles(&self) -> Result<(), String> {
        match self.in_place_order() {
            Ok(_) => Ok(()),
            Err(i) => Err(format!(
                "the schema refers to itself without descending into the arguments (a $ref/anyOf/allOf/oneOf/not cycle through {}): validation would never end",
                at(&self.nodes[i].ptr)
            )),
        }
    }

    /// Is there a cycle through a descending edge (a recursive schema)?
    fn recursive(&self) -> bool {
        let n = self.nodes.len();
        let mut indegree = vec![0usize; n];
        for node in &self.nodes {
            for &c in node.in_place.iter().chain(&node.descending) {
                indegree[c] += 1;
            }
        }
        let mut ready: Vec<usize> = (0..n).filter(|&i| indegree[i] == 0).collect();
        let mut done = 0;
        while let Some(i) = ready.pop() {
            done += 1;
            for &c in self.nodes[i]
                .in_place
                .iter()
                .chain(&self.nodes[i].descending)
            {
                indegree[c] -= 1;
                if indegree[c] == 0 {
                    ready.push(c);
                }
            }
        }
        done < n
    }

    /// One row: costs and nesting for values at most `d` levels deep, from the row for `d − 1`.
    fn row(&self, order: &[usize], d: usize, prev: &Row, cur: &mut Row) {
        for &i in order {
            let node = &self.nodes[i];
            let mut w = node.weight;
            let mut r = 0u32;
            for &c in &node.in_place {
                w = w.saturating_add(cur.cost[c]);
                r = r.max(cur.depth[c]);
            }
            if d > 0 {
                for &c in &node.descending {
                    w = w.saturating_add(prev.cost[c]);
                    r = r.max(prev.depth[c]);
                }
            }
            cur.cost[i] = w.min(CAP_COST);
            cur.depth[i] = (r + 1).min(CAP_DEPTH);
        }
    }

    fn profile(&self) -> Result<Complexity, String> {
        let order = self
            .in_place_order()
            .map_err(|_| "in-place cycle".to_string())?;
        let n = self.nodes.len();
        let mut prev = Row::new(n);
        let mut cur = Row::new(n);
        let mut cost = Vec::with_capacity(MAX_ARGUMENT_DEPTH + 1);
        let mut fail: Option<usize> = None;
        for d in 0..=MAX_ARGUMENT_DEPTH {
            self.row(&order, d, &prev, &mut cur);
            cost.push(cur.cost[0]);
            if cur.cost[0] > MAX_EVALUATIONS || cur.depth[0] > MAX_EVALUATION_DEPTH {
                fail = Some(d);
                break;
            }
            if d > 0 && cur == prev {
                break; // every deeper row is the same
            }
            std::mem::swap(&mut prev, &mut cur);
        }
        let Some(d) = fail else {
            return Ok(Complexity {
                cost,
                max_depth: MAX_ARGUMENT_DEPTH,
            });
        };
        cost.pop();
        if self.recursive() && d > MIN_RECURSIVE_DEPTH {
            return Ok(Complexity {
                cost,
                max_depth: d - 1,
            });
        }
        let what = if cur.cost[0] > MAX_EVALUATIONS {
            let i = self.culprit(d, &prev, &cur, |r, i| r.cost[i] > MAX_EVALUATIONS);
            format!(
                "validating one argument value could take more than {MAX_EVALUATIONS} subschema evaluations (anyOf/oneOf/allOf members and $refs multiply; see {})",
                at(&self.nodes[i].ptr)
            )
        } else {
            let i = self.culprit(d, &prev, &cur, |r, i| r.depth[i] > MAX_EVALUATION_DEPTH);
            format!(
                "subschemas nest more than {MAX_EVALUATION_DEPTH} levels deep through $refs and combinators (see {})",
                at(&self.nodes[i].ptr)
            )
        };
        if self.recursive() {
            Err(format!(
                "{what}, already for arguments nested {d} levels deep; a recursive schema must allow at least {MIN_RECURSIVE_DEPTH} levels"
            ))
        } else {
            Err(what)
        }
    }

    /// The smallest subschema that is over the limit on its own (for the message): from the
    /// root, follow children that are over the limit by themselves. Only the rows for `d` and
    /// `d − 1` are known, so descending stops one level down.
    fn culprit(
        &self,
        d: usize,
        prev: &Row,
        cur: &Row,
        over: impl Fn(&Row, usize) -> bool,
    ) -> usize {
        let row = |l: usize| if l == d { cur } else { prev };
        let (mut i, mut level) = (0usize, d);
        for _ in 0..self.nodes.len() {
            let node = &self.nodes[i];
            let mut next = node
                .in_place
                .iter()
                .map(|&c| (c, level))
                .find(|&(c, l)| over(row(l), c));
            if next.is_none() && level == d && d > 0 {
                next = node
                    .descending
                    .iter()
                    .map(|&c| (c, d - 1))
                    .find(|&(c, _)| over(prev, c));
            }
            match next {
                Some((c, l)) => (i, level) = (c, l),
                None => break,
            }
        }
        i
    }
}

#[derive(Clone, PartialEq, Eq)]
struct Row {
    cost: Vec<u32>,
    depth: Vec<u32>,
}

impl Row {
    fn new(n: usize) -> Row {
        Row {
            cost: vec![0; n],
            depth: vec![0; n],
        }
    }
}

fn too_many() -> String {
    format!("the schema has more than {MAX_SUBSCHEMAS} subschemas")
}

fn at(ptr: &str) -> String {
    if ptr.is_empty() {
        "the top level".into()
    } else {
        let p = if ptr.starts_with('#') {
            ptr.to_string()
        } else {
            format!("#{ptr}")
        };
        super::clip_str(&p, 200)
    }
}

/// Depth and number of values of `v` (containers count; a scalar has depth 0), walking with a
/// work list; stops counting once `max_values` is passed.
pub fn argument_size(v: &Value, max_values: u64) -> (usize, u64) {
    let mut depth = 0usize;
    let mut values = 0u64;
    let mut todo: Vec<(&Value, usize)> = vec![(v, 0)];
    while let Some((v, d)) = todo.pop() {
        values += 1;
        if values > max_values {
            break;
        }
        match v {
            Value::Array(a) => {
                depth = depth.max(d + 1);
                todo.extend(a.iter().map(|c| (c, d + 1)));
            }
            Value::Object(m) => {
                depth = depth.max(d + 1);
                todo.extend(m.values().map(|c| (c, d + 1)));
            }
            _ => {}
        }
    }
    (depth, values)
}
