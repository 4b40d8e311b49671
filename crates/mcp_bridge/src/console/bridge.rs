//! What the console needs of the HTTP bridge, as a trait the bridge's shared state implements
//! (crate::http): its Origin check, its token check and its request pool.

use axum::http::HeaderMap;
use futures_util::future::BoxFuture;
use std::sync::Arc;

/// What the console uses of the HTTP bridge (implemented by its shared state in crate::http).
pub trait Bridge: Send + Sync + 'static {
    /// The bridge's Origin / Host check (DNS rebinding, cross-site requests).
    fn origin_allowed(&self, headers: &HeaderMap) -> bool;
    /// The role of a token, checked the bridge's way (a JWT with its key, an OAuth access
    /// token, an opaque token in mcp.bridge_token; no token: the anonymous role if one is
    /// configured), or why not.
    fn authenticate<'a>(&'a self, token: Option<&'a str>) -> BoxFuture<'a, Result<String, String>>;
    /// A connection of the bridge's request pool, after the role's share (FIFO) and a pool
    /// permit; given back when the lease is dropped.
    fn lease(self: Arc<Self>, role: String) -> BoxFuture<'static, Result<Lease, String>>;
    /// The authenticator's connection settings (host, port, database): a sign-in with database
    /// credentials connects with them, as that user, to let PostgreSQL check the password.
    fn connection_settings(&self) -> tokio_postgres::Config;
    /// Largest request body the bridge takes.
    fn max_body(&self) -> usize;
}

/// A pooled connection; `give_back` returns it (and its permits) when the lease is dropped.
pub struct Lease {
    client: Option<tokio_postgres::Client>,
    give_back: Option<Box<dyn FnOnce(tokio_postgres::Client) + Send + Sync>>,
}

impl Lease {
    pub fn new(
        client: tokio_postgres::Client,
        give_back: Box<dyn FnOnce(tokio_postgres::Client) + Send + Sync>,
    ) -> Lease {
        Lease {
            client: Some(client),
            give_back: Some(give_back),
        }
    }

    pub fn client(&self) -> &tokio_postgres::Client {
        self.client
            .as_ref()
            .expect("held until the lease is dropped")
    }
}

impl Drop for Lease {
    fn drop(&mut self) {
        if let (Some(c), Some(back)) = (self.client.take(), self.give_back.take()) {
            back(c);
        }
    }
}
