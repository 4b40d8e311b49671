//! The registry pages: the lists, and a form per row of the editable tables (crate::console::forms)
//! to create, change and delete tools, interfaces and their tools, prompt versions, plans and
//! their steps. Every change is one statement (two to activate a prompt version) as the signed-in
//! role: PostgreSQL's grants (`mcp_admin`), the tables' constraints and the registry triggers
//! decide, and a refusal is shown next to the form with PostgreSQL's message, detail, hint and
//! SQLSTATE, the form keeping what was typed.

use super::app::{redirect, text, Console, Req, Who};
use super::db::{DbError, RoleTx};
use super::forms::{self, Entity};
use axum::http::StatusCode;
use axum::response::Response;
use serde_json::{json, Value};
use std::collections::HashMap;
use std::sync::Arc;

const PAGE_TIMEOUT_MS: u32 = 30_000;

type Page = Result<Response, DbError>;

fn params_of(v: &[String]) -> Vec<&(dyn tokio_postgres::types::ToSql + Sync)> {
    v.iter()
        .map(|s| s as &(dyn tokio_postgres::types::ToSql + Sync))
        .collect()
}

/// A row's page, below /console: /registry/{entity}/{key}/{key}.
pub fn row_url(e: &Entity, key: &[String]) -> String {
    let mut u = format!("/console/registry/{}", e.name);
    for k in key {
        u.push('/');
        // %20, not +: the path is decoded with + as a plus
        u.push_str(
            &url::form_urlencoded::byte_serialize(k.as_bytes())
                .collect::<String>()
                .replace('+', "%20"),
        );
    }
    u
}

fn decode(s: &str) -> String {
    url::form_urlencoded::parse(format!("x={}", s.replace('+', "%2B")).as_bytes())
        .next()
        .map(|(_, v)| v.into_owned())
        .unwrap_or_default()
}

/// The messages a page shows after a change that was made (`?done=`), from a fixed list.
fn done_message(done: Option<&str>) -> Value {
    match done {
        Some("created") => json!("Created."),
        Some("saved") => json!("Saved."),
        Some("deleted") => json!("Deleted."),
        Some("activated") => json!("This version is now the active one."),
        Some("mapped") => json!("The tool is offered by the interface now."),
        Some("unmapped") => json!("The tool is no longer offered by the interface."),
        _ => Value::Null,
    }
}

/// `/console/registry/…` below the list: `{entity}/new` or `{entity}/{key…}`.
pub async fn dispatch(c: &Arc<Console>, req: &Req, who: &Who, rest: &str) -> Option<Page> {
    let mut parts = rest.split('/');
    let e = forms::entity(parts.next()?)?;
    let key: Vec<String> = parts.map(decode).collect();
    let post = req.method == axum::http::Method::POST;
    Some(if key.len() == 1 && key[0] == "new" {
        if post {
            create(c, e, req, who).await
        } else {
            new_form(c, e, req, who).await
        }
    } else if key.len() == e.keys.len() {
        if post {
            change(c, e, &key, req, who).await
        } else {
            let ok = done_message(req.q("done"));
            row_page(c, e, &key, who, None, json!({"ok": ok})).await
        }
    } else {
        return None;
    })
}

/// `GET /console/registry`: every registry table as the role may read it.
pub async fn list(c: &Arc<Console>, req: &Req, who: &Who) -> Page {
    let tx = RoleTx::begin(&c.bridge, &who.role, PAGE_TIMEOUT_MS).await?;
    let q = |sql: &'static str| {
        let tx = &tx;
        async move {
            tx.try_json(sql, &[])
                .await
                .unwrap_or_else(|e| json!({"refused": e.json()}))
        }
    };
    let interfaces = q("SELECT coalesce(jsonb_agg(jsonb_build_object('name', name, 'description', description,
              'provider', provider, 'enabled', enabled, 'tool_choice', tool_choice, 'max_iterations', max_iterations,
              'access_role', access_role) ORDER BY name), '[]')::text FROM mcp.interface").await;
    let tools = q("SELECT coalesce(jsonb_agg(jsonb_build_object('name', name, 'description', description,
              'kind', kind, 'enabled', enabled, 'read_only', read_only, 'requires_approval', requires_approval,
              'interfaces', (SELECT coalesce(jsonb_agg(it.interface ORDER BY it.interface), '[]')
                               FROM mcp.interface_tool it WHERE it.tool = t.name)) ORDER BY name), '[]')::text
              FROM mcp.tool t").await;
    let prompts = q("SELECT coalesce(jsonb_agg(jsonb_build_object('name', name, 'version', version, 'role', role,
              'active', active, 'description', description) ORDER BY name, version DESC), '[]')::text FROM mcp.prompt").await;
    let plans = q("SELECT coalesce(jsonb_agg(jsonb_build_object('name', p.name, 'interface', p.interface,
              'description', p.description, 'required_kinds', p.required_kinds, 'priority', p.priority,
              'enabled', p.enabled,
              'steps', (SELECT coalesce(jsonb_agg(jsonb_build_object('position', s.position, 'kind', s.kind,
                                 'tool', s.tool, 'ask_kind', s.ask_kind) ORDER BY s.position), '[]')
                          FROM mcp.plan_step s WHERE s.plan = p.name)) ORDER BY p.interface, p.priority DESC, p.name), '[]')::text
              FROM mcp.plan p").await;
    tx.commit().await?;
    Ok(c.render(
        "registry.html",
        json!({"page": "registry", "interfaces": interfaces, "tools": tools, "prompts": prompts,
               "plans": plans, "ok": done_message(req.q("done"))}),
        Some(who),
    ))
}

/// What a row's page shows beside its form: the rows that belong to it.
async fn related(tx: &RoleTx, e: &Entity, key: &[String]) -> Value {
    let k0 = key.first().cloned().unwrap_or_default();
    let sql = match e.name {
        "tool" => "SELECT jsonb_build_object('interfaces', coalesce(jsonb_agg(interface ORDER BY interface), '[]'))::text
                     FROM mcp.interface_tool WHERE tool = $1::text",
        "interface" => "SELECT jsonb_build_object(
                  'tools', (SELECT coalesce(jsonb_agg(tool ORDER BY tool), '[]') FROM mcp.interface_tool WHERE interface = $1::text),
                  'other_tools', (SELECT coalesce(jsonb_agg(name ORDER BY name), '[]') FROM mcp.tool t
                                   WHERE NOT EXISTS (SELECT 1 FROM mcp.interface_tool it WHERE it.interface = $1::text AND it.tool = t.name)),
                  'plans', (SELECT coalesce(jsonb_agg(name ORDER BY priority DESC, name), '[]') FROM mcp.plan WHERE interface = $1::text))::text",
        "plan" => "SELECT jsonb_build_object('steps', coalesce(jsonb_agg(jsonb_build_object('position', position, 'kind', kind,
                  'tool', tool, 'prompt', prompt, 'ask_kind', ask_kind) ORDER BY position), '[]'))::text
                     FROM mcp.plan_step WHERE plan = $1::text",
        "prompt" => "SELECT jsonb_build_object('versions', coalesce(jsonb_agg(jsonb_build_object('version', version, 'active', active,
                  'created', to_char(created_at, 'YYYY-MM-DD HH24:MI')) ORDER BY version DESC), '[]'),
                  'active_version', (max(version) FILTER (WHERE active))::text)::text
                     FROM mcp.prompt WHERE name = $1::text",
        _ => return json!({}),
    };
    tx.try_json(sql, &[&k0])
        .await
        .unwrap_or_else(|e| json!({"refused": e.json()}))
}

/// A row's page: its form (the stored values, or what was typed after a refusal), the outcome
/// of the last change, the rows that belong to it.
async fn row_page(
    c: &Arc<Console>,
    e: &'static Entity,
    key: &[String],
    who: &Who,
    typed: Option<&HashMap<String, String>>,
    outcome: Value,
) -> Page {
    let tx = RoleTx::begin(&c.bridge, &who.role, PAGE_TIMEOUT_MS).await?;
    let row = tx.try_json(&forms::select_sql(e), &params_of(key)).await;
    let rel = related(&tx, e, key).await;
    tx.commit().await?;
    let row = match row {
        Ok(Value::Null) => {
            let mut r = c.render(
                "error.html",
                json!({"page": "registry", "error": {"message": format!(
                    "No such {}, or not one your role may read.", e.title.to_lowercase())}}),
                Some(who),
            );
            *r.status_mut() = StatusCode::NOT_FOUND;
            return Ok(r);
        }
        Ok(v) => v,
        Err(err) => {
            let mut r = c.render(
                "error.html",
                json!({"page": "registry", "error": err.json()}),
                Some(who),
            );
            *r.status_mut() = StatusCode::FORBIDDEN;
            return Ok(r);
        }
    };
    let form = match typed {
        Some(t) => forms::typed(e, t, &row),
        None => row.clone(),
    };
    let status = if outcome.get("error").is_some_and(|v| !v.is_null()) {
        StatusCode::UNPROCESSABLE_ENTITY
    } else {
        StatusCode::OK
    };
    let mut r = c.render(
        "entity.html",
        json!({"page": "registry", "entity": {"name": e.name, "title": e.title},
               "key": key, "url": row_url(e, key), "row": row, "form": form,
               "fields": forms::layout(e, false), "creating": false,
               "related": rel, "outcome": outcome}),
        Some(who),
    );
    *r.status_mut() = status;
    Ok(r)
}

/// `GET /console/registry/{entity}/new`: an empty form (the columns' defaults); a new prompt
/// version starts from the latest version of that prompt, a new step after the plan's last.
async fn new_form(c: &Arc<Console>, e: &'static Entity, req: &Req, who: &Who) -> Page {
    let mut q = req.query.clone();
    let tx = RoleTx::begin(&c.bridge, &who.role, PAGE_TIMEOUT_MS).await?;
    let prefill = match (e.name, req.q("name"), req.q("plan")) {
        ("prompt", Some(name), _) => {
            tx.try_json(
                "SELECT jsonb_build_object('version', (SELECT max(version) + 1 FROM mcp.prompt WHERE name = $1::text)::text,
                        'active', 'false', 'role', p.role, 'template', p.template,
                        'variables', array_to_string(p.variables, ', '), 'description', coalesce(p.description, ''))::text
                   FROM mcp.prompt p WHERE p.name = $1::text ORDER BY p.version DESC LIMIT 1",
                &[&name],
            )
            .await
        }
        ("plan_step", _, Some(plan)) => {
            tx.try_json(
                "SELECT jsonb_build_object('position', (coalesce(max(position), 0) + 1)::text)::text
                   FROM mcp.plan_step WHERE plan = $1::text",
                &[&plan],
            )
            .await
        }
        _ => Ok(Value::Null),
    };
    tx.commit().await?;
    if let Ok(Value::Object(m)) = prefill {
        for (k, v) in m {
            if let Some(s) = v.as_str() {
                q.insert(k, s.to_string());
            }
        }
    }
    Ok(c.render(
        "entity.html",
        json!({"page": "registry", "entity": {"name": e.name, "title": e.title},
               "url": format!("/console/registry/{}/new", e.name),
               "form": forms::defaults(e, &q), "fields": forms::layout(e, true),
               "creating": true, "outcome": {}}),
        Some(who),
    ))
}

/// Where a change of `e` goes back to: the mapping's interface, else the row itself.
fn back_to(e: &Entity, key: &[String]) -> String {
    match (e.name, key.first()) {
        ("interface_tool", Some(i)) => row_url(
            forms::entity("interface").expect("listed"),
            std::slice::from_ref(i),
        ),
        _ => row_url(e, key),
    }
}

/// `POST /console/registry/{entity}/new`: INSERT as the role.
async fn create(c: &Arc<Console>, e: &'static Entity, req: &Req, who: &Who) -> Page {
    let (sql, params) = forms::insert_sql(e, &req.form);
    let tx = RoleTx::begin(&c.bridge, &who.role, PAGE_TIMEOUT_MS).await?;
    let r = tx.try_json(&sql, &params_of(&params)).await;
    tx.commit().await?;
    match r {
        Ok(Value::Array(k)) => {
            let key: Vec<String> = k
                .iter()
                .map(|v| v.as_str().unwrap_or("").to_string())
                .collect();
            let done = if e.name == "interface_tool" {
                "mapped"
            } else {
                "created"
            };
            Ok(redirect(&format!("{}?done={done}", back_to(e, &key))))
        }
        Ok(_) => Err(DbError::other("the row was not created")),
        Err(err) if e.name == "interface_tool" => {
            // refused where the person asked: on the interface's page, by its tools
            let iface = req.f("interface").unwrap_or("").to_string();
            let iface_e = forms::entity("interface").expect("listed");
            row_page(
                c,
                iface_e,
                &[iface],
                who,
                None,
                json!({"error": err.json(), "at": "tools"}),
            )
            .await
        }
        Err(err) => {
            let mut r = c.render(
                "entity.html",
                json!({"page": "registry", "entity": {"name": e.name, "title": e.title},
                       "url": format!("/console/registry/{}/new", e.name),
                       "form": forms::typed(e, &req.form, &forms::defaults(e, &HashMap::new())),
                       "fields": forms::layout(e, true), "creating": true,
                       "outcome": {"error": err.json()}}),
                Some(who),
            );
            *r.status_mut() = StatusCode::UNPROCESSABLE_ENTITY;
            Ok(r)
        }
    }
}

/// `POST /console/registry/{entity}/{key…}`: `action` save (UPDATE of the fields sent), delete,
/// or activate (a prompt version: the others of its name first, then this one).
async fn change(
    c: &Arc<Console>,
    e: &'static Entity,
    key: &[String],
    req: &Req,
    who: &Who,
) -> Page {
    let action = req.f("action").unwrap_or("save");
    if action == "delete" && req.f("confirm").is_none() {
        return row_page(
            c,
            e,
            key,
            who,
            None,
            json!({"error": {"message": "Tick the box to confirm the deletion."}, "at": "delete"}),
        )
        .await;
    }
    let tx = RoleTx::begin(&c.bridge, &who.role, PAGE_TIMEOUT_MS).await?;
    let (r, done) = match action {
        "delete" => (
            tx.try_json(&forms::delete_sql(e), &params_of(key)).await,
            "deleted",
        ),
        "activate" if e.name == "prompt" => {
            let r = match tx
                .try_json(
                    "WITH u AS (UPDATE mcp.prompt SET active = false WHERE name = $1::text AND active
                                  AND version::text <> $2::text RETURNING 1) SELECT count(*)::text FROM u",
                    &params_of(key),
                )
                .await
            {
                Ok(_) => {
                    tx.try_json(
                        "WITH u AS (UPDATE mcp.prompt SET active = true WHERE name = $1::text
                                      AND version::text = $2::text RETURNING 1) SELECT count(*)::text FROM u",
                        &params_of(key),
                    )
                    .await
                }
                Err(err) => Err(err),
            };
            (r, "activated")
        }
        "save" => match forms::update_sql(e, key, &req.form) {
            Some((sql, params)) => (tx.try_json(&sql, &params_of(&params)).await, "saved"),
            None => (Ok(json!(1)), "saved"),
        },
        _ => return Ok(text(StatusCode::BAD_REQUEST, "unknown action")),
    };
    // a refused activation must not keep the deactivation of the others
    let r = match r {
        Err(err) => {
            drop(tx);
            Err(err)
        }
        Ok(v) => {
            tx.commit().await?;
            Ok(v)
        }
    };
    let nothing = json!({"error": {"message": format!(
        "Nothing was changed: no such {} is visible to your role.", e.title.to_lowercase())}});
    match r {
        Ok(n) if n.as_i64() == Some(0) => {
            if action == "delete" {
                row_page(c, e, key, who, None, nothing).await
            } else {
                row_page(c, e, key, who, Some(&req.form), nothing).await
            }
        }
        Ok(_) if action == "delete" => {
            let to = match e.name {
                "interface_tool" => format!("{}?done=unmapped", back_to(e, key)),
                "plan_step" => format!(
                    "{}?done=deleted",
                    row_url(forms::entity("plan").expect("listed"), &key[..1])
                ),
                "prompt" => "/console/registry?done=deleted#prompts-h".to_string(),
                _ => "/console/registry?done=deleted".to_string(),
            };
            Ok(redirect(&to))
        }
        Ok(_) => Ok(redirect(&format!("{}?done={done}", back_to(e, key)))),
        Err(err) if e.name == "interface_tool" => {
            let iface_e = forms::entity("interface").expect("listed");
            row_page(
                c,
                iface_e,
                &key[..1],
                who,
                None,
                json!({"error": err.json(), "at": "tools"}),
            )
            .await
        }
        Err(err) => {
            let at = if action == "save" { "form" } else { action };
            let typed = (action == "save").then_some(&req.form);
            row_page(
                c,
                e,
                key,
                who,
                typed,
                json!({"error": err.json(), "at": at}),
            )
            .await
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn urls_of_rows() {
        assert_eq!(decode("a%20b+c"), "a b+c");
        assert_eq!(decode("a%20b%2Fc"), "a b/c");
        let e = forms::entity("plan_step").unwrap();
        assert_eq!(
            row_url(e, &["a b/c".into(), "2".into()]),
            "/console/registry/plan_step/a%20b%2Fc/2"
        );
        assert_eq!(
            back_to(
                forms::entity("interface_tool").unwrap(),
                &["console".into(), "t".into()]
            ),
            "/console/registry/interface/console"
        );
        assert_eq!(done_message(Some("<script>")), Value::Null);
    }
}
