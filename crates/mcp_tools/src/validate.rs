//! Tool argument validation.
//!
//! Two jobs:
//!
//! * [`check_tool_schema`] — the registry refuses a tool whose `parameters` column is not a
//!   usable JSON Schema. The schema is validated against its meta-schema (draft 2020-12 unless
//!   `$schema` names another bundled draft) plus our own rules (top-level object, `required`
//!   names defined, only local `$ref`s, bounded nesting). Messages are written for an admin.
//! * [`ToolSchema`] — a compiled, cacheable validator for a tool's arguments, producing
//!   [`ArgError`]s written for a model: `parameter 'max_rows' must be an integer, got string "25"`.
//!
//! Strictness on top of plain JSON Schema:
//!
//! * Unknown properties are errors wherever a schema declares `properties` (and at the top
//!   level, always), unless that schema says otherwise with `additionalProperties`,
//!   `unevaluatedProperties` or `patternProperties`. For drafts 2019-09/2020-12 this is done with
//!   `unevaluatedProperties: false`, which sees through `allOf`/`$ref` (so an object schema
//!   reached through a local `$ref` is closed too); for older drafts with
//!   `additionalProperties: false` where no composition keyword is present. An object schema
//!   without `properties` (`{"type": "object"}`) stays free-form.
//! * `integer` means an integer *literal*: `25` is an integer, `25.0` and `1.5` are not (plain
//!   JSON Schema accepts `25.0`). Strings are never coerced: `"25"` is not an integer.
//! * `format` is asserted (not just annotated) for the formats the validator knows.
//!
//! Remote references are never fetched: the crate is built without its network/file resolvers,
//! and [`check_tool_schema`] refuses any `$ref` that is not a local `#…` reference.

use std::panic::{catch_unwind, AssertUnwindSafe};

mod complexity;
pub use complexity::{
    argument_size, Complexity, MAX_ARGUMENT_DEPTH, MAX_ARGUMENT_WORK, MAX_EVALUATIONS,
    MAX_EVALUATION_DEPTH, MAX_SUBSCHEMAS, MIN_RECURSIVE_DEPTH,
};

use jsonschema::error::{TypeKind, ValidationErrorKind};
use jsonschema::{Draft, JsonType, ValidationError, Validator};
use serde::Serialize;
use serde_json::{Map, Value};

/// Internal keyword injected next to `"type": "integer"` to reject `25.0`.
const STRICT_INT_KEYWORD: &str = "x-pg-mcp-strict-integer";
/// Deepest schema nesting accepted by the registry (the validator compiles recursively: in a
/// debug build a level costs ~7 KB of stack).
pub const MAX_SCHEMA_DEPTH: usize = 32;
/// Schema problems that are about cost, not validity, start with this.
pub const TOO_COMPLEX: &str = "too complex: ";
/// At most this many errors are collected from one validation (the correction message shows
/// `MAX_ERRORS_IN_MESSAGE`); failing evaluations cost the most.
const MAX_COLLECTED_ERRORS: usize = 50;
/// Backtracking steps one `pattern` match may take (fancy-regex; the default is 1,000,000).
const REGEX_BACKTRACK_LIMIT: usize = 100_000;
/// Longest excerpt of a value (or a name) echoed in a message.
const MAX_ECHO_CHARS: usize = 100;
/// At most this many errors are spelled out in a correction message.
const MAX_ERRORS_IN_MESSAGE: usize = 10;
/// At most this many names are listed in "allowed: …" / enum options.
const MAX_LISTED: usize = 20;

/// What kind of problem an argument has. Serialized in lowercase (`"missing"`, `"type"`, …).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum ArgErrorKind {
    /// A required parameter is absent.
    Missing,
    /// Wrong JSON type (`"25"` for an integer, `1.5` for an integer, `true` for a number …).
    Type,
    /// A parameter the schema does not define.
    Unknown,
    /// Value not among `enum` (or not equal to `const`).
    Enum,
    /// Value does not match its `format` (date, email, uuid …).
    Format,
    /// Number outside `minimum`/`maximum`/`exclusive*`, or not a `multipleOf`.
    Range,
    /// String, array or object too short/long (`minLength`, `maxItems`, …).
    Length,
    /// String does not match `pattern`.
    Pattern,
    /// Anything else (`anyOf`/`oneOf`/`not`, `uniqueItems`, …).
    Other,
}

impl ArgErrorKind {
    /// The lowercase name used in JSON.
    pub fn as_str(self) -> &'static str {
        match self {
            ArgErrorKind::Missing => "missing",
            ArgErrorKind::Type => "type",
            ArgErrorKind::Unknown => "unknown",
            ArgErrorKind::Enum => "enum",
            ArgErrorKind::Format => "format",
            ArgErrorKind::Range => "range",
            ArgErrorKind::Length => "length",
            ArgErrorKind::Pattern => "pattern",
            ArgErrorKind::Other => "other",
        }
    }
}

impl std::fmt::Display for ArgErrorKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One problem with a tool call's arguments.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ArgError {
    /// Dotted path of the parameter: `max_rows`, `filter.year`, `search_terms[2]`,
    /// `["odd key"]`; empty for the arguments object as a whole.
    pub parameter: String,
    pub kind: ArgErrorKind,
    /// A complete sentence for the model, e.g. `parameter 'tarifgebiet' missing`.
    pub message: String,
}

// ---------------------------------------------------------------------------------------------
// Registry check
// ---------------------------------------------------------------------------------------------

/// Check that `schema` is acceptable as a tool's `parameters`.
///
/// `Err` carries one precise message per problem (for an admin-facing `ERROR`).
pub fn check_tool_schema(schema: &Value) -> Result<(), Vec<String>> {
    let (errors, _) = check_rules(schema);
    if !errors.is_empty() {
        return Err(errors);
    }
    build(schema).map(|_| ()).map_err(|e| vec![e])
}

fn draft_of(schema: &Value) -> Draft {
    match schema.get("$schema").and_then(Value::as_str) {
        Some(uri) => Draft::from_schema_uri(uri),
        None => Draft::Draft202012,
    }
}

/// Meta-schema validation, our own structural rules and the complexity bound, without
/// compiling. The complexity profile when the schema passed.
fn check_rules(schema: &Value) -> (Vec<String>, Option<Complexity>) {
    let mut errors = Vec::new();
    let Some(obj) = schema.as_object() else {
        errors.push(format!(
            "parameters must be a JSON object (a JSON Schema with \"type\": \"object\"), got {}",
            describe_value(schema)
        ));
        return (errors, None);
    };

    // Nesting depth and references, walked over every subschema (a schema far larger than
    // the complexity bound allows is not walked to its end).
    let mut too_deep = false;
    let mut walked = 0usize;
    walk_subschemas(schema, "", 0, &mut |node, ptr, depth| {
        walked += 1;
        if depth > MAX_SCHEMA_DEPTH {
            too_deep = true;
            return false;
        }
        if walked > 4 * MAX_SUBSCHEMAS {
            return false;
        }
        if let Some(map) = node.as_object() {
            for kw in ["$ref", "$dynamicRef", "$recursiveRef"] {
                match map.get(kw) {
                    Some(Value::String(r)) if r.starts_with('#') => {}
                    Some(Value::String(r)) => errors.push(format!(
                        "{kw} {} at {} is not allowed: only local references such as \"#/$defs/name\" are resolved, nothing is fetched",
                        clip_json(&Value::String(r.clone())),
                        location(ptr)
                    )),
                    _ => {}
                }
            }
        }
        true
    });
    if too_deep {
        errors.push(format!(
            "schema is nested more than {MAX_SCHEMA_DEPTH} levels deep"
        ));
    }

    // What validation can cost, before anything is compiled (see complexity.rs).
    let mut profile = None;
    if !too_deep && errors.is_empty() {
        match Complexity::analyze(schema, draft_of(schema)) {
            Ok(c) => profile = Some(c),
            Err(e) => errors.push(format!("{TOO_COMPLEX}{e}")),
        }
    }

    // `$schema`: only the bundled drafts (nothing is ever fetched).
    let mut meta_ok = true;
    match obj.get("$schema") {
        None => {}
        Some(Value::String(uri)) if Draft::from_schema_uri(uri) == Draft::Unknown => {
            meta_ok = false;
            errors.push(format!(
                "unsupported \"$schema\" {}: use a JSON Schema draft URI such as \"https://json-schema.org/draft/2020-12/schema\" (2020-12, 2019-09, draft-07, draft-06, draft-04), or omit it for 2020-12",
                clip_json(&Value::String(uri.clone()))
            ));
        }
        Some(Value::String(_)) => {}
        Some(other) => {
            meta_ok = false;
            errors.push(format!(
                "\"$schema\" must be a string (a draft URI), got {}",
                describe_value(other)
            ));
        }
    }

    if meta_ok && !too_deep && profile.is_some() {
        errors.extend(meta_errors(schema));
    }

    // Our own rules.
    match obj.get("type") {
        Some(Value::String(t)) if t == "object" => {}
        Some(other) => errors.push(format!(
            "top-level \"type\" must be \"object\" (tool arguments are a JSON object), got {}",
            clip_json(other)
        )),
        None => errors.push(
            "top-level \"type\": \"object\" is missing (tool arguments are a JSON object)".into(),
        ),
    }
    let props = match obj.get("properties") {
        None => None,
        Some(Value::Object(p)) => Some(p),
        Some(other) => {
            errors.push(format!(
                "\"properties\" must be an object mapping parameter names to their schemas, got {}",
                describe_value(other)
            ));
            None
        }
    };
    if let Some(Value::Array(req)) = obj.get("required") {
        for name in req.iter().filter_map(Value::as_str) {
            if !props.is_some_and(|p| p.contains_key(name)) {
                errors.push(format!(
                    "required parameter '{}' is not defined in \"properties\"",
                    clip_str(name, MAX_ECHO_CHARS)
                ));
            }
        }
    }

    let mut seen = std::collections::HashSet::new();
    errors.retain(|e| seen.insert(e.clone()));
    (errors, profile)
}

/// Meta-schema errors, one message each.
fn meta_errors(schema: &Value) -> Vec<String> {
    let result = catch_unwind(AssertUnwindSafe(|| -> Vec<String> {
        let validator = match jsonschema::meta::validator_for(schema) {
            Ok(v) => v,
            Err(e) => {
                return vec![format!(
                    "the meta-schema could not be loaded: {}",
                    clip_str(&e.to_string(), 200)
                )]
            }
        };
        validator
            .iter_errors(schema)
            .map(|e| {
                let ptr = e.instance_path().as_str().to_string();
                let last = ptr.rsplit('/').next().unwrap_or("");
                let detail = if last == "type" && !ptr.contains("/properties/type") {
                    format!(
                        "\"type\" must be one of \"array\", \"boolean\", \"integer\", \"null\", \"number\", \"object\", \"string\" (or an array of them), got {}",
                        clip_json(e.instance())
                    )
                } else {
                    clip_str(&e.to_string(), 200)
                };
                format!("invalid JSON Schema at {}: {}", location(&ptr), detail)
            })
            .collect()
    }));
    result
        .unwrap_or_else(|_| vec!["the schema could not be checked against its meta-schema".into()])
}

fn location(ptr: &str) -> String {
    if ptr.is_empty() {
        "the top level".into()
    } else {
        clip_str(ptr, 200)
    }
}

/// Visit `node` and every subschema below it (pre-order). `f` gets the node, its JSON pointer
/// and depth; returning `false` stops descending below that node.
fn walk_subschemas(
    node: &Value,
    ptr: &str,
    depth: usize,
    f: &mut dyn FnMut(&Value, &str, usize) -> bool,
) {
    if !f(node, ptr, depth) {
        return;
    }
    let Some(map) = node.as_object() else { return };
    for (kw, child) in map {
        let base = format!("{ptr}/{}", escape_pointer(kw));
        let kw = kw.as_str();
        if is_map_schema_kw(kw) {
            if let Value::Object(m) = child {
                for (name, c) in m {
                    if c.is_object() || c.is_boolean() {
                        let p = format!("{base}/{}", escape_pointer(name));
                        walk_subschemas(c, &p, depth + 1, f);
                    }
                }
            }
        } else if is_array_schema_kw(kw) && child.is_array() {
            if let Value::Array(items) = child {
                for (i, c) in items.iter().enumerate() {
                    walk_subschemas(c, &format!("{base}/{i}"), depth + 1, f);
                }
            }
        } else if is_single_schema_kw(kw) && (child.is_object() || child.is_boolean()) {
            walk_subschemas(child, &base, depth + 1, f);
        }
    }
}

fn is_single_schema_kw(kw: &str) -> bool {
    matches!(
        kw,
        "additionalProperties"
            | "items"
            | "additionalItems"
            | "contains"
            | "propertyNames"
            | "not"
            | "if"
            | "then"
            | "else"
            | "unevaluatedItems"
            | "unevaluatedProperties"
            | "contentSchema"
    )
}

fn is_array_schema_kw(kw: &str) -> bool {
    matches!(kw, "allOf" | "anyOf" | "oneOf" | "prefixItems" | "items")
}

fn is_map_schema_kw(kw: &str) -> bool {
    matches!(
        kw,
        "properties"
            | "patternProperties"
            | "$defs"
            | "definitions"
            | "dependentSchemas"
            | "dependencies"
    )
}

fn escape_pointer(s: &str) -> String {
    s.replace('~', "~0").replace('/', "~1")
}

// ---------------------------------------------------------------------------------------------
// Compiled schema
// ---------------------------------------------------------------------------------------------

/// A tool's parameter schema, checked and compiled. Cheap to clone; keep one per tool in a
/// per-backend cache.
#[derive(Clone)]
pub struct ToolSchema {
    schema: Value,
    hardened: Value,
    validator: Validator,
    complexity: Complexity,
}

impl std::fmt::Debug for ToolSchema {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ToolSchema")
            .field("schema", &self.schema)
            .finish_non_exhaustive()
    }
}

impl ToolSchema {
    /// Check (like [`check_tool_schema`]) and compile. `Err` carries the admin-facing messages.
    pub fn compile(schema: &Value) -> Result<ToolSchema, Vec<String>> {
        let (errors, profile) = check_rules(schema);
        let complexity = match profile {
            Some(c) if errors.is_empty() => c,
            _ => return Err(errors),
        };
        let (hardened, validator) = build(schema).map_err(|e| vec![e])?;
        Ok(ToolSchema {
            schema: schema.clone(),
            hardened,
            validator,
            complexity,
        })
    }

    /// Deepest argument nesting this schema accepts (recursive schemas may allow fewer than
    /// [`MAX_ARGUMENT_DEPTH`] levels).
    pub fn max_argument_depth(&self) -> usize {
        self.complexity.max_depth
    }

    /// Arguments whose validation would cost too much: nested deeper than the schema allows,
    /// or more values than the work budget allows at this schema's cost per value.
    fn too_big(&self, args: &Value) -> Option<String> {
        let max_depth = self.complexity.max_depth;
        let (depth, values) = argument_size(args, MAX_ARGUMENT_WORK);
        if depth > max_depth {
            return Some(format!(
                "arguments are nested more than {max_depth} levels deep, more than this tool accepts"
            ));
        }
        let per_value = u64::from(self.complexity.cost_at(depth)).max(1);
        let max_values = MAX_ARGUMENT_WORK / per_value;
        if values > max_values {
            return Some(format!(
                "arguments are too large: more than {max_values} values (counting those inside arrays and objects) for this tool"
            ));
        }
        None
    }

    /// The schema as registered.
    pub fn schema(&self) -> &Value {
        &self.schema
    }

    /// Validate a tool call's arguments. Empty when valid; otherwise sorted by parameter path.
    pub fn validate(&self, args: &Value) -> Vec<ArgError> {
        if !args.is_object() {
            return vec![ArgError {
                parameter: String::new(),
                kind: ArgErrorKind::Type,
                message: format!(
                    "arguments must be a JSON object of named parameters, got {}",
                    describe_value(args)
                ),
            }];
        }
        if let Some(message) = self.too_big(args) {
            return vec![ArgError {
                parameter: String::new(),
                kind: ArgErrorKind::Other,
                message,
            }];
        }
        let result = catch_unwind(AssertUnwindSafe(|| {
            let mut out = Vec::new();
            for err in self.validator.iter_errors(args).take(MAX_COLLECTED_ERRORS) {
                map_error(&err, args, &self.hardened, &mut out);
                // one schema error can name many parameters (every unknown property)
                if out.len() >= MAX_COLLECTED_ERRORS {
                    break;
                }
            }
            out
        }));
        let mut errors = result.unwrap_or_else(|_| {
            vec![ArgError {
                parameter: String::new(),
                kind: ArgErrorKind::Other,
                message: "arguments could not be checked".into(),
            }]
        });
        errors.sort_by(|a, b| {
            (&a.parameter, a.kind, &a.message).cmp(&(&b.parameter, b.kind, &b.message))
        });
        errors.dedup();
        errors.truncate(MAX_COLLECTED_ERRORS);
        errors
    }
}

/// Harden a copy of the schema and compile it.
fn build(schema: &Value) -> Result<(Value, Validator), String> {
    let draft = draft_of(schema);
    let mut hardened = schema.clone();
    harden(&mut hardened, schema, draft, true, true, 0);
    let built = catch_unwind(AssertUnwindSafe(|| {
        jsonschema::options()
            .with_draft(draft)
            .should_validate_formats(true)
            .with_pattern_options(
                jsonschema::PatternOptions::fancy_regex().backtrack_limit(REGEX_BACKTRACK_LIMIT),
            )
            .with_keyword(STRICT_INT_KEYWORD, |_, _, _| Ok(Box::new(StrictInteger)))
            .build(&hardened)
            .map_err(|e| {
                let at = e.instance_path().as_str();
                if at.is_empty() {
                    e.to_string()
                } else {
                    format!("at {}: {e}", clip_str(at, 200))
                }
            })
    }));
    match built {
        Ok(Ok(v)) => Ok((hardened, v)),
        Ok(Err(e)) => Err(format!(
            "the schema cannot be compiled: {}",
            clip_str(&e, 300)
        )),
        Err(_) => Err("the schema cannot be compiled".into()),
    }
}

/// Close object schemas (unknown properties → error) and mark strict integers.
fn harden(
    node: &mut Value,
    original: &Value,
    draft: Draft,
    value_pos: bool,
    root: bool,
    depth: usize,
) {
    if depth > MAX_SCHEMA_DEPTH {
        return;
    }
    let Some(map) = node.as_object_mut() else {
        return;
    };
    let modern = matches!(draft, Draft::Draft201909 | Draft::Draft202012);

    if value_pos {
        let explicit = [
            "additionalProperties",
            "unevaluatedProperties",
            "patternProperties",
        ]
        .iter()
        .any(|k| map.contains_key(*k));
        if !explicit {
            let has_props = map.get("properties").is_some_and(Value::is_object);
            let composed = ["allOf", "anyOf", "oneOf", "$ref"]
                .iter()
                .any(|k| map.contains_key(*k));
            if modern {
                // Composition (allOf/$ref …) is seen through by unevaluatedProperties, so close
                // whenever something in it declares properties.
                let composed_props = composed && declares_properties_in(map, original, 0);
                if has_props || composed_props || root {
                    map.insert("unevaluatedProperties".into(), Value::Bool(false));
                }
            } else if (has_props || root) && !composed {
                map.insert("additionalProperties".into(), Value::Bool(false));
            }
        }
    }

    let strict_int = match map.get("type") {
        Some(Value::String(t)) => t == "integer",
        Some(Value::Array(ts)) => {
            ts.iter().any(|t| t == "integer") && !ts.iter().any(|t| t == "number")
        }
        _ => false,
    };
    if strict_int {
        map.insert(STRICT_INT_KEYWORD.into(), Value::Bool(true));
    }

    for (kw, child) in map.iter_mut() {
        let kw = kw.as_str();
        let child_value_pos = matches!(
            kw,
            "properties"
                | "patternProperties"
                | "items"
                | "prefixItems"
                | "additionalProperties"
                | "additionalItems"
        );
        if is_map_schema_kw(kw) {
            if let Value::Object(m) = child {
                for c in m.values_mut() {
                    harden(c, original, draft, child_value_pos, false, depth + 1);
                }
            }
        } else if is_array_schema_kw(kw) && child.is_array() {
            if let Value::Array(items) = child {
                for c in items.iter_mut() {
                    harden(c, original, draft, child_value_pos, false, depth + 1);
                }
            }
        } else if is_single_schema_kw(kw) {
            harden(child, original, draft, child_value_pos, false, depth + 1);
        }
    }
}

/// Does `node` declare `properties`, directly or through `allOf`/`anyOf`/`oneOf` members or
/// local `$ref`s (bounded depth)?
fn declares_properties(node: &Value, root: &Value, depth: usize) -> bool {
    match node.as_object() {
        Some(map) => declares_properties_in(map, root, depth),
        None => false,
    }
}

fn declares_properties_in(map: &Map<String, Value>, root: &Value, depth: usize) -> bool {
    if depth > 8 {
        return false;
    }
    if map.get("properties").is_some_and(Value::is_object) {
        return true;
    }
    let members = ["allOf", "anyOf", "oneOf"].iter().any(|k| {
        map.get(*k)
            .and_then(Value::as_array)
            .is_some_and(|a| a.iter().any(|m| declares_properties(m, root, depth + 1)))
    });
    members
        || map
            .get("$ref")
            .and_then(Value::as_str)
            .and_then(|r| r.strip_prefix('#'))
            .and_then(|frag| root.pointer(frag))
            .is_some_and(|t| declares_properties(t, root, depth + 1))
}

struct StrictInteger;

impl<'i> jsonschema::Keyword<'i> for StrictInteger {
    fn validate(&self, instance: &'i Value) -> Result<(), ValidationError<'i>> {
        if self.is_valid(instance) {
            Ok(())
        } else {
            Err(ValidationError::custom("not an integer literal"))
        }
    }

    fn is_valid(&self, instance: &'i Value) -> bool {
        // Only integral floats (25.0, 1e3) need this: other numbers already fail `type`.
        match instance {
            Value::Number(n) => {
                n.is_i64() || n.is_u64() || n.as_f64().is_none_or(|f| f.fract() != 0.0)
            }
            _ => true,
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Error mapping
// ---------------------------------------------------------------------------------------------

fn subject(param: &str) -> String {
    if param.is_empty() {
        "arguments".into()
    } else {
        format!("parameter '{param}'")
    }
}

fn map_error(err: &ValidationError<'_>, args: &Value, schema: &Value, out: &mut Vec<ArgError>) {
    let ptr = err.instance_path().as_str();
    let (param, instance) = pointer_to_param(ptr, args);
    let instance = instance.unwrap_or_else(|| err.instance().as_ref());
    let subj = subject(&param);
    let got = describe_value(instance);
    let push = |out: &mut Vec<ArgError>, parameter: String, kind, message| {
        out.push(ArgError {
            parameter,
            kind,
            message,
        })
    };
    use ArgErrorKind as K;
    match err.kind() {
        ValidationErrorKind::Required { property } => {
            let name = property
                .as_str()
                .map(str::to_string)
                .unwrap_or_else(|| property.to_string());
            let p = join_param(&param, &name);
            let m = format!("parameter '{p}' missing");
            push(out, p, K::Missing, m);
        }
        ValidationErrorKind::AdditionalProperties { unexpected }
        | ValidationErrorKind::UnevaluatedProperties { unexpected } => {
            let schema_node = parent_schema_node(schema, err.schema_path().as_str());
            let allowed = schema_node
                .map(|n| allowed_names(schema, n))
                .unwrap_or_default();
            let hint = if allowed.is_empty() {
                if param.is_empty() {
                    " (this tool takes no parameters)".to_string()
                } else {
                    " (no properties are allowed here)".to_string()
                }
            } else {
                format!(" (allowed: {})", list_names(&allowed))
            };
            for name in unexpected {
                let p = join_param(&param, name);
                let m = format!("unknown parameter '{p}'{hint}");
                push(out, p, K::Unknown, m);
            }
        }
        ValidationErrorKind::FalseSchema => {
            let m = format!("{subj} is not allowed");
            push(out, param, K::Unknown, m);
        }
        ValidationErrorKind::Type { kind } => {
            let types: Vec<JsonType> = match kind {
                TypeKind::Single(t) => vec![*t],
                TypeKind::Multiple(set) => set.iter().collect(),
            };
            let m = format!("{subj} must be {}, got {got}", expected_types(&types));
            push(out, param, K::Type, m);
        }
        ValidationErrorKind::Custom { message, .. } if message == "not an integer literal" => {
            let m = format!("{subj} must be an integer, got {got}");
            push(out, param, K::Type, m);
        }
        ValidationErrorKind::Enum { options } => {
            let opts = match options.as_ref() {
                Value::Array(a) => list_values(a),
                other => clip_json(other),
            };
            let m = format!("{subj} must be one of {opts}, got {}", clip_json(instance));
            push(out, param, K::Enum, m);
        }
        ValidationErrorKind::Constant { expected_value } => {
            let m = format!(
                "{subj} must be {}, got {}",
                clip_json(expected_value),
                clip_json(instance)
            );
            push(out, param, K::Enum, m);
        }
        ValidationErrorKind::Format { format } => {
            let m = format!(
                "{subj} must be a valid {}{}, got {got}",
                clip_str(format, 50),
                format_hint(format)
            );
            push(out, param, K::Format, m);
        }
        ValidationErrorKind::Minimum { limit } => {
            let m = format!("{subj} must be >= {limit}, got {}", clip_json(instance));
            push(out, param, K::Range, m);
        }
        ValidationErrorKind::Maximum { limit } => {
            let m = format!("{subj} must be <= {limit}, got {}", clip_json(instance));
            push(out, param, K::Range, m);
        }
        ValidationErrorKind::ExclusiveMinimum { limit } => {
            let m = format!("{subj} must be > {limit}, got {}", clip_json(instance));
            push(out, param, K::Range, m);
        }
        ValidationErrorKind::ExclusiveMaximum { limit } => {
            let m = format!("{subj} must be < {limit}, got {}", clip_json(instance));
            push(out, param, K::Range, m);
        }
        ValidationErrorKind::MultipleOf { .. } => {
            let m = match keyword_value(schema, err.schema_path().as_str()) {
                Some(v) => format!(
                    "{subj} must be a multiple of {}, got {}",
                    clip_json(v),
                    clip_json(instance)
                ),
                None => format!(
                    "{subj} is not an allowed multiple, got {}",
                    clip_json(instance)
                ),
            };
            push(out, param, K::Range, m);
        }
        ValidationErrorKind::MinLength { limit } => {
            let n = instance.as_str().map_or(0, |s| s.chars().count());
            let m = format!(
                "{subj} must be at least {limit} {} long, got {n}",
                plural(*limit, "character", "characters")
            );
            push(out, param, K::Length, m);
        }
        ValidationErrorKind::MaxLength { limit } => {
            let n = instance.as_str().map_or(0, |s| s.chars().count());
            let m = format!(
                "{subj} must be at most {limit} {} long, got {n}",
                plural(*limit, "character", "characters")
            );
            push(out, param, K::Length, m);
        }
        ValidationErrorKind::MinItems { limit } => {
            let n = instance.as_array().map_or(0, Vec::len);
            let m = format!(
                "{subj} must have at least {limit} {}, got {n}",
                plural(*limit, "item", "items")
            );
            push(out, param, K::Length, m);
        }
        ValidationErrorKind::MaxItems { limit } => {
            let n = instance.as_array().map_or(0, Vec::len);
            let m = format!(
                "{subj} must have at most {limit} {}, got {n}",
                plural(*limit, "item", "items")
            );
            push(out, param, K::Length, m);
        }
        ValidationErrorKind::MinProperties { limit } => {
            let n = instance.as_object().map_or(0, Map::len);
            let m = format!(
                "{subj} must have at least {limit} {}, got {n}",
                plural(*limit, "property", "properties")
            );
            push(out, param, K::Length, m);
        }
        ValidationErrorKind::MaxProperties { limit } => {
            let n = instance.as_object().map_or(0, Map::len);
            let m = format!(
                "{subj} must have at most {limit} {}, got {n}",
                plural(*limit, "property", "properties")
            );
            push(out, param, K::Length, m);
        }
        ValidationErrorKind::Pattern { pattern } => {
            let m = format!(
                "{subj} must match the pattern {}, got {}",
                clip_str(pattern, MAX_ECHO_CHARS),
                clip_json(instance)
            );
            push(out, param, K::Pattern, m);
        }
        ValidationErrorKind::BacktrackLimitExceeded { .. }
        | ValidationErrorKind::RegexEngineFailure { .. } => {
            let m = format!("{subj} could not be checked against its pattern; use a simpler value");
            push(out, param, K::Pattern, m);
        }
        ValidationErrorKind::AnyOf { context } | ValidationErrorKind::OneOfNotValid { context } => {
            // `anyOf: [{type: string}, {type: null}]` reads better as a type error.
            let mut types = Vec::new();
            let only_types = !context.is_empty()
                && context.iter().all(|branch| {
                    !branch.is_empty()
                        && branch.iter().all(|e| match e.kind() {
                            ValidationErrorKind::Type { kind }
                                if e.instance_path().as_str() == ptr =>
                            {
                                match kind {
                                    TypeKind::Single(t) => types.push(*t),
                                    TypeKind::Multiple(set) => types.extend(set.iter()),
                                }
                                true
                            }
                            _ => false,
                        })
                });
            if only_types {
                types.sort_by_key(|t| type_rank(*t));
                types.dedup();
                let m = format!("{subj} must be {}, got {got}", expected_types(&types));
                push(out, param, K::Type, m);
            } else {
                let m = format!("{subj} does not match any of the allowed forms, got {got}");
                push(out, param, K::Other, m);
            }
        }
        ValidationErrorKind::OneOfMultipleValid { .. } => {
            let m =
                format!("{subj} matches more than one of the allowed forms (ambiguous), got {got}");
            push(out, param, K::Other, m);
        }
        ValidationErrorKind::Not { .. } => {
            let m = format!("{subj} has a value that is not allowed, got {got}");
            push(out, param, K::Other, m);
        }
        ValidationErrorKind::UniqueItems => {
            let m = format!("{subj} must not contain duplicate items");
            push(out, param, K::Other, m);
        }
        ValidationErrorKind::Contains => {
            let m = format!("{subj} must contain at least one matching item");
            push(out, param, K::Other, m);
        }
        ValidationErrorKind::PropertyNames { .. } => {
            let m = format!("{subj} contains a key that is not allowed");
            push(out, param, K::Other, m);
        }
        ValidationErrorKind::UnevaluatedItems { .. }
        | ValidationErrorKind::AdditionalItems { .. } => {
            let m = format!("{subj} has more items than allowed");
            push(out, param, K::Length, m);
        }
        ValidationErrorKind::Referencing(_) => {
            let m = format!("{subj} could not be checked (schema reference error)");
            push(out, param, K::Other, m);
        }
        _ => {
            let m = format!(
                "{subj} is invalid: {}",
                clip_str(&err.masked().to_string(), 200)
            );
            push(out, param, K::Other, m);
        }
    }
}

fn plural(n: u64, one: &'static str, many: &'static str) -> &'static str {
    if n == 1 {
        one
    } else {
        many
    }
}

fn format_hint(format: &str) -> &'static str {
    match format {
        "date" => " (YYYY-MM-DD)",
        "date-time" => " (RFC 3339, e.g. 2024-05-31T14:30:00Z)",
        "time" => " (RFC 3339 time, e.g. 14:30:00Z)",
        "email" => " (e-mail address)",
        "uuid" => " (e.g. 123e4567-e89b-12d3-a456-426614174000)",
        "uri" => " (absolute URI)",
        "ipv4" => " (IPv4 address)",
        "ipv6" => " (IPv6 address)",
        "duration" => " (ISO 8601 duration, e.g. P3D)",
        _ => "",
    }
}

fn type_rank(t: JsonType) -> u8 {
    match t {
        JsonType::Integer => 0,
        JsonType::Number => 1,
        JsonType::String => 2,
        JsonType::Boolean => 3,
        JsonType::Object => 4,
        JsonType::Array => 5,
        JsonType::Null => 6,
    }
}

fn type_phrase(t: JsonType) -> &'static str {
    match t {
        JsonType::Integer => "an integer",
        JsonType::Number => "a number",
        JsonType::String => "a string",
        JsonType::Boolean => "a boolean",
        JsonType::Object => "an object",
        JsonType::Array => "an array",
        JsonType::Null => "null",
    }
}

/// "an integer", "a string or null", "an integer, a string or null".
fn expected_types(types: &[JsonType]) -> String {
    let mut ts = types.to_vec();
    ts.sort_by_key(|t| type_rank(*t));
    ts.dedup();
    let phrases: Vec<&str> = ts.iter().map(|t| type_phrase(*t)).collect();
    match phrases.len() {
        0 => "of another type".into(),
        1 => phrases[0].into(),
        n => format!("{} or {}", phrases[..n - 1].join(", "), phrases[n - 1]),
    }
}

/// Translate a JSON pointer into the dotted parameter path, walking `args` to tell array
/// indexes from object keys. Also returns the value found there (if any).
fn pointer_to_param<'a>(ptr: &str, args: &'a Value) -> (String, Option<&'a Value>) {
    let mut out = String::new();
    let mut cur = Some(args);
    if ptr.is_empty() {
        return (out, cur);
    }
    for raw in ptr.split('/').skip(1) {
        let seg = raw.replace("~1", "/").replace("~0", "~");
        match cur {
            Some(Value::Array(a)) if seg.parse::<usize>().is_ok() => {
                let i: usize = seg.parse().unwrap_or(0);
                out.push_str(&format!("[{i}]"));
                cur = a.get(i);
            }
            Some(Value::Object(m)) => {
                cur = m.get(&seg);
                out = join_param(&out, &seg);
            }
            _ => {
                cur = None;
                out = join_param(&out, &seg);
            }
        }
    }
    (out, cur)
}

/// Append a property name to a parameter path: `a` + `b` → `a.b`; odd names → `a["b c"]`.
fn join_param(base: &str, name: &str) -> String {
    let plain = !name.is_empty()
        && name.chars().count() <= MAX_ECHO_CHARS
        && name.chars().all(|c| {
            !c.is_whitespace()
                && !c.is_control()
                && !matches!(c, '.' | '[' | ']' | '"' | '\'' | '\\' | '|')
        });
    if plain {
        if base.is_empty() {
            name.to_string()
        } else {
            format!("{base}.{name}")
        }
    } else {
        format!("{base}[{}]", clip_json(&Value::String(name.to_string())))
    }
}

/// The schema object owning the keyword at `keyword_ptr` (its parent).
fn parent_schema_node<'a>(schema: &'a Value, keyword_ptr: &str) -> Option<&'a Value> {
    let parent = match keyword_ptr.rfind('/') {
        Some(i) => &keyword_ptr[..i],
        None => "",
    };
    schema.pointer(parent)
}

fn keyword_value<'a>(schema: &'a Value, keyword_ptr: &str) -> Option<&'a Value> {
    schema.pointer(keyword_ptr)
}

/// Property names a schema object accepts, including those from `allOf`/`anyOf`/`oneOf`
/// members, conditionals and local `$ref`s (bounded depth).
fn allowed_names(root: &Value, node: &Value) -> Vec<String> {
    fn collect(root: &Value, node: &Value, depth: usize, out: &mut Vec<String>) {
        if depth > 8 {
            return;
        }
        let Some(map) = node.as_object() else { return };
        if let Some(Value::Object(props)) = map.get("properties") {
            for k in props.keys() {
                if !out.contains(k) {
                    out.push(k.clone());
                }
            }
        }
        for kw in ["allOf", "anyOf", "oneOf"] {
            if let Some(Value::Array(members)) = map.get(kw) {
                for m in members {
                    collect(root, m, depth + 1, out);
                }
            }
        }
        for kw in ["if", "then", "else"] {
            if let Some(m) = map.get(kw) {
                collect(root, m, depth + 1, out);
            }
        }
        if let Some(Value::Object(deps)) = map.get("dependentSchemas") {
            for m in deps.values() {
                collect(root, m, depth + 1, out);
            }
        }
        if let Some(Value::String(r)) = map.get("$ref") {
            if let Some(frag) = r.strip_prefix('#') {
                if let Some(target) = root.pointer(frag) {
                    collect(root, target, depth + 1, out);
                }
            }
        }
    }
    let mut out = Vec::new();
    collect(root, node, 0, &mut out);
    out
}

fn list_names(names: &[String]) -> String {
    let mut shown: Vec<String> = names
        .iter()
        .take(MAX_LISTED)
        .map(|n| clip_str(n, 50))
        .collect();
    if names.len() > MAX_LISTED {
        shown.push(format!("… {} more", names.len() - MAX_LISTED));
    }
    shown.join(", ")
}

fn list_values(values: &[Value]) -> String {
    let mut shown: Vec<String> = values.iter().take(MAX_LISTED).map(clip_json).collect();
    if values.len() > MAX_LISTED {
        shown.push(format!("… {} more", values.len() - MAX_LISTED));
    }
    shown.join(", ")
}

/// `string "25"`, `number 1.5`, `boolean true`, `null`, `array [1,2]`, `object {"a":1}` —
/// the JSON text clipped to ~100 chars.
pub(crate) fn describe_value(v: &Value) -> String {
    match v {
        Value::Null => "null".into(),
        Value::Bool(_) => format!("boolean {v}"),
        Value::Number(_) => format!("number {}", clip_json(v)),
        Value::String(_) => format!("string {}", clip_json(v)),
        Value::Array(_) => format!("array {}", clip_json(v)),
        Value::Object(_) => format!("object {}", clip_json(v)),
    }
}

/// Compact JSON text of `v`, clipped to [`MAX_ECHO_CHARS`] characters (with `…`).
fn clip_json(v: &Value) -> String {
    // Avoid serializing a huge value only to throw most of it away.
    let text = match v {
        Value::String(s) if s.len() > 4 * MAX_ECHO_CHARS => {
            let head: String = s.chars().take(MAX_ECHO_CHARS).collect();
            let mut t = serde_json::to_string(&Value::String(head)).unwrap_or_default();
            t.pop();
            t.push('…');
            return clip_str(&t, MAX_ECHO_CHARS);
        }
        _ => serde_json::to_string(v).unwrap_or_default(),
    };
    clip_str(&text, MAX_ECHO_CHARS)
}

/// [`clip_chars`](crate::clip_chars) with control characters as spaces, so an echoed value
/// cannot break a message's layout.
fn clip_str(s: &str, max: usize) -> String {
    crate::clip_chars(s, max)
        .0
        .chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect()
}

// ---------------------------------------------------------------------------------------------
// Messages and helpers for the registry
// ---------------------------------------------------------------------------------------------

/// The correction message sent back to the model instead of executing the call:
/// `Tool call failed: parameter 'tarifgebiet' missing. Call search_tarif again with corrected
/// arguments.`
pub fn correction_message(tool: &str, errors: &[ArgError]) -> String {
    let mut parts: Vec<&str> = errors
        .iter()
        .take(MAX_ERRORS_IN_MESSAGE)
        .map(|e| e.message.as_str())
        .collect();
    let more;
    if errors.len() > MAX_ERRORS_IN_MESSAGE {
        more = format!("and {} more errors", errors.len() - MAX_ERRORS_IN_MESSAGE);
        parts.push(&more);
    }
    let body = if parts.is_empty() {
        "invalid arguments".to_string()
    } else {
        parts.join("; ")
    };
    format!(
        "Tool call failed: {body}. Call {} again with corrected arguments.",
        tool_label(tool)
    )
}

/// The one tool-name check: 1 to 64 ASCII letters, digits, `_` and `-` — the form every provider
/// accepts on the wire (`^[a-zA-Z0-9_-]{1,64}$`); with `allow_dot` also `.` (a plausible name
/// to echo in a message).
pub fn is_tool_name(name: &str, allow_dot: bool) -> bool {
    !name.is_empty()
        && name.len() <= 64
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-' || (allow_dot && c == '.'))
}

/// `'name'` for a plausible tool name, otherwise `the tool` (never echo arbitrary text).
pub fn tool_label(tool: &str) -> String {
    if is_tool_name(tool, true) {
        format!("'{tool}'")
    } else {
        "the tool".into()
    }
}

/// `[]` when valid, else `[{"parameter": …, "kind": …, "message": …}, …]` — the result of SQL
/// `mcp.validate_arguments(tool, args)`.
pub fn errors_to_json(errors: &[ArgError]) -> Value {
    Value::Array(
        errors
            .iter()
            .map(|e| {
                let mut m = Map::new();
                m.insert("parameter".into(), Value::String(e.parameter.clone()));
                m.insert("kind".into(), Value::String(e.kind.as_str().into()));
                m.insert("message".into(), Value::String(e.message.clone()));
                Value::Object(m)
            })
            .collect(),
    )
}

/// Names in the schema's top-level `required`, in order (strings only).
pub fn required_properties(schema: &Value) -> Vec<String> {
    schema
        .get("required")
        .and_then(Value::as_array)
        .map(|a| {
            a.iter()
                .filter_map(Value::as_str)
                .map(str::to_string)
                .collect()
        })
        .unwrap_or_default()
}

/// The JSON type a (sub)schema declares when it is a single one (`"integer"`;
/// `["string", "null"]` counts as `"string"`); `None` when absent or ambiguous.
pub fn single_type(schema: &Value) -> Option<String> {
    match schema.get("type") {
        Some(Value::String(t)) => Some(t.clone()),
        Some(Value::Array(ts)) => {
            let non_null: Vec<&str> = ts
                .iter()
                .filter_map(Value::as_str)
                .filter(|t| *t != "null")
                .collect();
            match non_null.as_slice() {
                [one] => Some((*one).to_string()),
                _ => None,
            }
        }
        _ => None,
    }
}

/// Top-level properties with their [`single_type`].
pub fn properties(schema: &Value) -> Vec<(String, Option<String>)> {
    let Some(props) = schema.get("properties").and_then(Value::as_object) else {
        return Vec::new();
    };
    props
        .iter()
        .map(|(name, s)| (name.clone(), single_type(s)))
        .collect()
}
