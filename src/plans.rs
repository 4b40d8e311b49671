//! Execution plans inside `mcp.chat`. Before any LLM call the question is analyzed
//! (`mcp.analyze`), a plan chosen (`options.plan`, or the best one scoring at least
//! [`PLAN_MIN_SCORE`], [`PLAN_MIN_SCORE_EMBEDDING`] with an embedding model) and its steps
//! turned into the run's settings: prompts rendered into the system prompt, tools run before the model (their results join the conversation as tool
//! results), the model phase's tools and `tool_choice`, or a question for the user without any
//! model call. The choice, its score, the entities and the steps taken go into `mcp.run.plan`.
//! Two hooks in `chat.rs`: [`choose`] before the run row exists, [`apply`] once the host exists.

use crate::error::{McpError, McpResult};

use mcp_chat::{
    ChatConfig, Host, Message, PlanAsk, PlanRun, PreResult, Role, ToolCall, ToolChoice,
};
use pgrx::pg_sys::panic::ErrorReport;
use pgrx::prelude::*;
use pgrx::JsonB;
use serde_json::{json, Map, Value};

// The embedding signal's table and function (sql/plan_embedding.sql): after plans.sql and
// retrieval.sql, whose tables it references.
pgrx::extension_sql_file!(
    "../sql/plan_embedding.sql",
    name = "plan_embedding",
    requires = ["plans", "retrieval", plan_example_similarity]
);

/// `mcp.plan_example_similarity`: the embedding signal of `mcp.analyze` (see its comment).
/// The caller needs the interface's access (the check of mcp.chat and mcp.call_tool, on the
/// calling role: a SECURITY DEFINER function would see only its owner); then the work,
/// which writes the stored vectors callers cannot, runs as the extension owner in
/// `mcp.plan_example_similarity_as_owner`, which never waits for another transaction (issue 20).
#[pg_extern(name = "plan_example_similarity", volatile)]
fn plan_example_similarity(
    interface: Option<&str>,
    question_vector: Option<&str>,
) -> Result<
    TableIterator<
        'static,
        (
            name!(plan, String),
            name!(similarity, f64),
            name!(example, String),
        ),
    >,
    ErrorReport,
> {
    let (Some(interface), Some(question_vector)) = (interface, question_vector) else {
        return Ok(TableIterator::new(Vec::new()));
    };
    let denied = || {
        ErrorReport::new(
            PgSqlErrorCode::ERRCODE_INSUFFICIENT_PRIVILEGE,
            format!("permission denied for interface \"{interface}\""),
            "pg_mcp",
        )
    };
    let access = Spi::connect(|c| {
        let rows = c.select(
            "SELECT access_role FROM mcp.interface WHERE name OPERATOR(pg_catalog.=) $1",
            Some(1),
            &[interface.into()],
        )?;
        Ok::<_, pgrx::spi::SpiError>(rows.into_iter().next().map(|r| r.get::<String>(1)))
    })
    .map_err(|e| ErrorReport::from(McpError::Internal(format!("interface lookup: {e}"))))?;
    let Some(access_role) = access else {
        // No such interface: no plans, no rows (as before).
        return Ok(TableIterator::new(Vec::new()));
    };
    let access_role =
        access_role.map_err(|e| ErrorReport::from(McpError::Internal(e.to_string())))?;
    if !crate::tools::may_use_interface_role(access_role.as_deref()) {
        return Err(denied());
    }
    let rows = crate::pg::as_extension_owner(|| {
        Spi::connect_mut(|c| {
            let mut out = Vec::new();
            let sql =
                "SELECT plan, similarity, example FROM mcp.plan_example_similarity_as_owner($1, $2)";
            let args = [interface.into(), question_vector.into()];
            // It stores the example vectors it computed, except in a read-only transaction; on a
            // standby (no transaction id can be assigned) through read-only SPI.
            let rows = if crate::pg::can_assign_xid() {
                c.update(sql, None, &args)?
            } else {
                c.select(sql, None, &args)?
            };
            for r in rows {
                out.push((
                    r.get::<String>(1)?.unwrap_or_default(),
                    r.get::<f64>(2)?.unwrap_or(0.0),
                    r.get::<String>(3)?.unwrap_or_default(),
                ));
            }
            Ok::<_, pgrx::spi::SpiError>(out)
        })
    })
    .map_err(|e| ErrorReport::from(McpError::Internal(format!("plan example similarity: {e}"))))?;
    Ok(TableIterator::new(rows))
}

/// A plan is chosen on its own (without `options.plan`) only from this score up (calibrated with
/// the ranking's weights in `mcp.rank_plans` on the six calibration sets of
/// `tests/quality/plans_eval.sh`; 0.5 until the entities' own words counted, docs/plans.md).
pub const PLAN_MIN_SCORE: f64 = 0.35;

/// The same threshold when the interface has an embedding model: the score then blends in the
/// embedding signal above its floor (`mcp.rank_plans`), whose values are smaller, so the scale is
/// another one (calibrated on the same sets; 0.2 before).
pub const PLAN_MIN_SCORE_EMBEDDING: f64 = 0.19;

/// The threshold for a ranked plan: [`PLAN_MIN_SCORE_EMBEDDING`] when its score includes the
/// embedding signal (`why.embedding` is a number), else [`PLAN_MIN_SCORE`].
fn min_score_for(ranked: &Value) -> f64 {
    if ranked["why"]["embedding"].is_number() {
        PLAN_MIN_SCORE_EMBEDDING
    } else {
        PLAN_MIN_SCORE
    }
}

/// The analysis and the plan chosen for one turn.
pub struct Chosen {
    question: String,
    analysis: Value,
    plan: Option<String>,
    score: f64,
    forced: bool,
    continued: bool,
    steps: Vec<Value>,
}

fn spi_json(sql: &str, args: &[pgrx::datum::DatumWithOid<'_>]) -> McpResult<Value> {
    Ok(crate::pg::read_one::<JsonB>(sql, args)
        .map_err(|e| McpError::Internal(format!("plan lookup: {e}")))?
        .map(|j| j.0)
        .unwrap_or(Value::Null))
}

/// The last assistant text of the session and the user message before it.
fn last_exchange(history: &[Message]) -> Option<(String, String)> {
    let a = history.iter().rposition(|m| m.role == Role::Assistant)?;
    let asked = history[a].content.clone()?;
    let user = history[..a]
        .iter()
        .rev()
        .find(|m| m.role == Role::User)?
        .content
        .clone()?;
    Some((asked, user))
}

/// Analyzes the question and chooses the plan; `None` when the interface has no plans (and
/// none is named). An `options.plan` that is no enabled plan of the interface is refused (22023).
pub fn choose(
    question: &str,
    interface: &str,
    named: Option<&str>,
    history: &[Message],
) -> McpResult<Option<Chosen>> {
    // Every chat asks this: through a kept plan (no parse and plan per chat).
    let has_plans = crate::pg::first_row(
        "SELECT EXISTS (SELECT 1 FROM mcp.plan WHERE interface = $1 AND enabled)",
        &[interface.into()],
        |t| t.get::<bool>(1),
    )
    .map_err(|e| McpError::Internal(format!("plan lookup: {e}")))?
    .flatten()
    .unwrap_or(false);
    if !has_plans && named.is_none() {
        return Ok(None);
    }
    let mut forced = named.map(str::to_string);
    // An answer to a plan's `ask` (the session's last assistant message is that question): the
    // earlier question and the answer are analyzed together and the same plan goes on.
    let mut text = question.to_string();
    let mut continued = false;
    if let Some((asked, earlier)) = last_exchange(history) {
        let plan = crate::pg::read_one::<String>(
            "SELECT s.plan FROM mcp.plan_step s JOIN mcp.plan p ON p.name = s.plan
              WHERE p.interface = $1 AND p.enabled AND s.kind = 'ask'
                AND COALESCE(s.question, 'Bitte nennen Sie: ' || s.ask_kind || '.') = $2
              ORDER BY s.plan LIMIT 1",
            &[interface.into(), asked.into()],
        )
        .map_err(|e| McpError::Internal(format!("plan lookup: {e}")))?;
        if let Some(p) = plan {
            continued = true;
            text = format!("{earlier}\n{question}");
            forced.get_or_insert(p);
        }
    }
    if let Some(p) = &forced {
        let ok = crate::pg::read_one::<bool>(
            "SELECT EXISTS (SELECT 1 FROM mcp.plan WHERE name = $1 AND interface = $2 AND enabled)",
            &[p.as_str().into(), interface.into()],
        )
        .map_err(|e| McpError::Internal(format!("plan lookup: {e}")))?
        .unwrap_or(false);
        if !ok {
            return Err(McpError::InvalidParameter(format!(
                "mcp.chat options: plan \"{}\" is not an enabled plan of interface \"{interface}\"",
                p.chars().take(64).collect::<String>()
            )));
        }
    }
    let analysis = spi_json(
        "SELECT mcp.analyze($1, $2)",
        &[text.as_str().into(), interface.into()],
    )?;
    let ranked = analysis["plans"].as_array().cloned().unwrap_or_default();
    let score_of = |name: &str| {
        ranked
            .iter()
            .find(|p| p["name"] == name)
            .and_then(|p| p["score"].as_f64())
            .unwrap_or(0.0)
    };
    let plan = match &forced {
        Some(p) => Some(p.clone()),
        None => ranked
            .first()
            .filter(|p| p["score"].as_f64().unwrap_or(0.0) >= min_score_for(p))
            .and_then(|p| p["name"].as_str().map(str::to_string)),
    };
    let score = plan.as_deref().map(score_of).unwrap_or(0.0);
    let steps = match &plan {
        Some(p) => spi_json(
            "SELECT COALESCE(jsonb_agg(to_jsonb(s) ORDER BY s.position), '[]') FROM mcp.plan_step s WHERE s.plan = $1",
            &[p.as_str().into()],
        )?
        .as_array()
        .cloned()
        .unwrap_or_default(),
        None => Vec::new(),
    };
    Ok(Some(Chosen {
        question: text,
        analysis,
        plan,
        score,
        forced: named.is_some(),
        continued,
        steps,
    }))
}

/// Labels of the entities found, by kind (several of one kind in the order found).
fn entity_labels(analysis: &Value) -> Map<String, Value> {
    let mut by_kind: Map<String, Value> = Map::new();
    for e in analysis["entities"].as_array().into_iter().flatten() {
        if let (Some(kind), Some(label)) = (e["kind"].as_str(), e["label"].as_str()) {
            let list = by_kind.entry(kind).or_insert_with(|| json!([]));
            if let Value::Array(a) = list {
                a.push(json!(label));
            }
        }
    }
    by_kind
}

/// A tool argument template: "{{kind}}" becomes the first entity label of that kind,
/// "{{question}}" the question; other text is kept. Values that are not strings stay as they are.
fn fill_arguments(args: &Value, labels: &Map<String, Value>, question: &str) -> Value {
    match args {
        Value::String(s) => {
            let mut out = s.clone();
            for (kind, list) in labels {
                if let Some(first) = list.get(0).and_then(Value::as_str) {
                    out = out.replace(&format!("{{{{{kind}}}}}"), first);
                }
            }
            Value::String(out.replace("{{question}}", question))
        }
        Value::Object(o) => Value::Object(
            o.iter()
                .map(|(k, v)| (k.clone(), fill_arguments(v, labels, question)))
                .collect(),
        ),
        Value::Array(a) => Value::Array(
            a.iter()
                .map(|v| fill_arguments(v, labels, question))
                .collect(),
        ),
        other => other.clone(),
    }
}

/// Renders a prompt step's template with the question and the entities (every declared
/// variable given; a kind not found renders empty) through `mcp.render_prompt`.
fn render(prompt: &str, labels: &Map<String, Value>, question: &str) -> Result<String, String> {
    let vars = crate::pg::in_subtransaction(false, || {
        let declared = crate::pg::read_one::<Vec<String>>(
            "SELECT variables FROM mcp.prompt WHERE name = $1 AND active",
            &[prompt.into()],
        )?
        .unwrap_or_default();
        let mut vars = Map::new();
        for v in declared {
            let value = if v == "question" {
                question.to_string()
            } else {
                labels
                    .get(&v)
                    .and_then(Value::as_array)
                    .map(|a| {
                        a.iter()
                            .filter_map(Value::as_str)
                            .collect::<Vec<_>>()
                            .join(", ")
                    })
                    .unwrap_or_default()
            };
            vars.insert(v, json!(value));
        }
        crate::pg::read_one::<String>(
            "SELECT mcp.render_prompt($1, $2)",
            &[prompt.into(), JsonB(Value::Object(vars)).into()],
        )
    });
    match vars {
        Ok(Ok(Some(text))) => Ok(text),
        Ok(Ok(None)) => Err(format!("prompt {prompt} rendered nothing")),
        Ok(Err(e)) => Err(e.to_string()),
        Err(info) => Err(format!("{}: {}", info.sqlstate, info.message)),
    }
}

/// Turns the chosen plan's steps into the run's settings (`cfg`), running its pre-steps through
/// the host (as the calling role, audited as tool calls of this run). Returns the record of the
/// choice, which the run's audit stores in `mcp.run.plan` with the run's end.
pub fn apply(chosen: Option<Chosen>, cfg: &mut ChatConfig, host: &mut dyn Host) -> Option<Value> {
    let c = chosen?;
    let labels = entity_labels(&c.analysis);
    let mut run = PlanRun::default();
    let mut taken = Vec::new();
    let name = c.plan.clone().unwrap_or_default();
    for s in &c.steps {
        let position = s["position"].clone();
        match s["kind"].as_str().unwrap_or("") {
            "ask" => {
                let kind = s["ask_kind"].as_str().unwrap_or("");
                if let Some(found) = labels.get(kind) {
                    taken.push(json!({"position": position, "kind": "ask", "kind_found": kind, "labels": found}));
                    continue;
                }
                let question = s["question"]
                    .as_str()
                    .map(str::to_string)
                    .unwrap_or_else(|| format!("Bitte nennen Sie: {kind}."));
                taken.push(json!({"position": position, "kind": "ask", "asked": kind}));
                run.ask = Some(PlanAsk {
                    request: json!({"needs_input": true, "missing_parameters": [kind],
                                    "plan": name, "question": question}),
                    question,
                });
                break;
            }
            "prompt" => {
                let prompt = s["prompt"].as_str().unwrap_or("");
                match render(prompt, &labels, &c.question) {
                    Ok(text) => {
                        if s["prompt_mode"] == "system" {
                            cfg.system_prompts = vec![text];
                        } else {
                            cfg.system_prompts.push(text);
                        }
                        taken.push(json!({"position": position, "kind": "prompt", "prompt": prompt, "mode": s["prompt_mode"]}));
                    }
                    Err(e) => taken.push(
                        json!({"position": position, "kind": "prompt", "prompt": prompt, "error": e}),
                    ),
                }
            }
            kind @ ("retrieve" | "tool") => {
                let tool = s["tool"].as_str().unwrap_or("").to_string();
                let arguments = fill_arguments(&s["arguments"], &labels, &c.question);
                let id = format!("plan_{}", run.pre_results.len() + 1);
                let raw = arguments.to_string();
                let out = host.execute_tool(
                    &ToolCall::new(id.clone(), tool.clone(), arguments.clone()),
                    &raw,
                );
                taken.push(json!({"position": position, "kind": kind, "tool": tool, "tool_call_id": id,
                                  "arguments": arguments, "status": format!("{:?}", out.status).to_lowercase()}));
                run.pre_results.push(PreResult {
                    tool,
                    arguments,
                    content: out.content,
                });
            }
            "llm" => {
                if let Some(t) = s["tools"].as_array() {
                    run.tools = Some(
                        t.iter()
                            .filter_map(|v| v.as_str().map(str::to_string))
                            .collect(),
                    );
                }
                if let Some(tc) = s["tool_choice"].as_str() {
                    cfg.tool_choice = match tc.strip_prefix("function:") {
                        Some(f) => ToolChoice::Function(f.to_string()),
                        None => ToolChoice::parse(tc).unwrap_or(ToolChoice::Auto),
                    };
                }
                taken.push(json!({"position": position, "kind": "llm", "tools": s["tools"], "tool_choice": s["tool_choice"]}));
            }
            other => taken.push(json!({"position": position, "kind": other, "skipped": true})),
        }
    }
    cfg.plan = run;
    let best = c.analysis["plans"].get(0).cloned().unwrap_or(Value::Null);
    let record = json!({
        "plan": c.plan, "score": c.score, "forced": c.forced, "continued": c.continued,
        "min_score": min_score_for(&best), "best": best,
        "entities": c.analysis["entities"], "missing": c.analysis["missing"], "steps": taken,
    });
    Some(record)
}
