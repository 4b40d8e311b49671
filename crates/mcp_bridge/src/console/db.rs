//! The console's SQL runs like a bridge request: on one of the bridge's pooled connections (the
//! role's share first), in a transaction under `SET LOCAL ROLE` (set_config('role', …, true))
//! to the session's role, refused when that leaves the authenticator itself. Every query
//! returns one jsonb value built by PostgreSQL (the page's rows as JSON), so that what a page
//! shows is exactly what the role may read.

use super::bridge::{Bridge, Lease};
use serde_json::Value;
use std::sync::Arc;
use tokio_postgres::types::ToSql;

/// A failed statement as the page shows it: PostgreSQL's own words.
#[derive(Debug, Clone)]
pub struct DbError {
    pub sqlstate: String,
    pub message: String,
    pub detail: Option<String>,
    pub hint: Option<String>,
}

impl DbError {
    pub fn other(message: impl Into<String>) -> DbError {
        DbError {
            sqlstate: String::new(),
            message: message.into(),
            detail: None,
            hint: None,
        }
    }

    pub fn json(&self) -> Value {
        serde_json::json!({"sqlstate": self.sqlstate, "message": self.message,
                           "detail": self.detail, "hint": self.hint})
    }
}

impl From<tokio_postgres::Error> for DbError {
    fn from(e: tokio_postgres::Error) -> DbError {
        match e.as_db_error() {
            Some(d) => DbError {
                sqlstate: d.code().code().to_string(),
                message: d.message().to_string(),
                detail: d.detail().map(str::to_string),
                hint: d.hint().map(str::to_string),
            },
            None if e.is_closed() => DbError::other("the database connection was lost; retry"),
            None => DbError::other("the database request failed"),
        }
    }
}

/// One page's transaction as the session's role. Ended with [`RoleTx::commit`]; dropped
/// without it (an error, the client gone), it is rolled back before the connection goes back.
/// Dropped while a [`RoleTx::try_json_cancellable`] statement runs (the browser went away and
/// the bridge dropped the request), the statement is cancelled first.
pub struct RoleTx {
    lease: Option<Lease>,
    in_flight: Option<tokio_postgres::CancelToken>,
}

impl RoleTx {
    /// BEGIN, the role, the statement timeout of the page, the console's application_name.
    pub async fn begin(
        bridge: &Arc<dyn Bridge>,
        role: &str,
        timeout_ms: u32,
    ) -> Result<RoleTx, DbError> {
        let lease = bridge
            .clone()
            .lease(role.to_string())
            .await
            .map_err(DbError::other)?;
        let tx = RoleTx {
            lease: Some(lease),
            in_flight: None,
        };
        let c = tx.client();
        c.batch_execute("BEGIN").await?;
        c.execute("SELECT pg_catalog.set_config('role', $1, true)", &[&role])
            .await?;
        let row = c
            .query_one(
                "SELECT pg_catalog.set_config('application_name', 'pg_mcp_console', true),
                        pg_catalog.set_config('statement_timeout', $1, true),
                        current_user OPERATOR(pg_catalog.=) session_user, current_user::text",
                &[&format!("{timeout_ms}ms")],
            )
            .await?;
        let same: bool = row.get(2);
        let current: String = row.get(3);
        if same || current != role {
            return Err(DbError::other(
                "this role may not be used through the bridge",
            ));
        }
        Ok(tx)
    }

    fn client(&self) -> &tokio_postgres::Client {
        self.lease
            .as_ref()
            .expect("lease held until the end")
            .client()
    }

    /// A statement whose one column is jsonb (or json) as text, of at most one row; NULL reads as
    /// JSON null.
    pub async fn json(&self, sql: &str, params: &[&(dyn ToSql + Sync)]) -> Result<Value, DbError> {
        // no row (a run another role's policy hides) reads as null too
        let text: Option<String> = match self.client().query_opt(sql, params).await? {
            Some(row) => row.try_get(0)?,
            None => None,
        };
        Ok(match text {
            Some(t) => serde_json::from_str(&t).map_err(|_| DbError::other("not JSON"))?,
            None => Value::Null,
        })
    }

    /// [`RoleTx::json`] in a savepoint: a refusal (a table the role may not read) leaves the
    /// transaction usable for the page's other parts.
    pub async fn try_json(
        &self,
        sql: &str,
        params: &[&(dyn ToSql + Sync)],
    ) -> Result<Value, DbError> {
        self.client().batch_execute("SAVEPOINT console").await?;
        match self.json(sql, params).await {
            Ok(v) => {
                self.client()
                    .batch_execute("RELEASE SAVEPOINT console")
                    .await?;
                Ok(v)
            }
            Err(e) => {
                self.client()
                    .batch_execute("ROLLBACK TO SAVEPOINT console")
                    .await?;
                Err(e)
            }
        }
    }

    /// [`RoleTx::try_json`] of a long statement (a chat): when the request is dropped while it
    /// runs, the backend's query is cancelled (PostgreSQL's cancel request, awaited before the
    /// rollback, so that it cannot reach a later statement of the connection).
    pub async fn try_json_cancellable(
        &mut self,
        sql: &str,
        params: &[&(dyn ToSql + Sync)],
    ) -> Result<Value, DbError> {
        self.in_flight = Some(self.client().cancel_token());
        let r = self.try_json(sql, params).await;
        self.in_flight = None;
        r
    }

    pub async fn commit(mut self) -> Result<(), DbError> {
        let lease = self.lease.take().expect("lease held until the end");
        let r = lease.client().batch_execute("COMMIT").await;
        if r.is_err() {
            let _ = lease.client().batch_execute("ROLLBACK").await;
        }
        r.map_err(DbError::from)
    }
}

impl Drop for RoleTx {
    fn drop(&mut self) {
        if let Some(lease) = self.lease.take() {
            let running = self.in_flight.take();
            tokio::spawn(async move {
                if let Some(token) = running {
                    // the cancel request's connection ends once the server has signalled the
                    // backend: the signal is there before the ROLLBACK is sent
                    if let Err(e) = token.cancel_query(tokio_postgres::NoTls).await {
                        eprintln!("pg_mcp_bridge: console: cancel request failed: {e}");
                    }
                }
                let _ = lease.client().batch_execute("ROLLBACK").await;
                drop(lease);
            });
        }
    }
}
