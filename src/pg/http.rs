//! The backend's one HTTP client (a connection pool kept for the backend's life) and its
//! interrupt check, shared by the chat loop and the embedding requests of retrieval.

use mcp_http::HttpClient;
use pgrx::pg_sys;

thread_local! {
    /// One HTTP client (connection pool) per backend.
    static CLIENT: HttpClient = HttpClient::new();
}

/// Run `f` with the backend's HTTP client.
pub fn with_client<T>(f: impl FnOnce(&HttpClient) -> T) -> T {
    CLIENT.with(f)
}

/// A query cancel, statement timeout or shutdown is pending: the HTTP helpers poll this while
/// they wait, and stop.
pub fn interrupt_pending() -> bool {
    unsafe {
        pg_sys::InterruptPending != 0
            && (pg_sys::QueryCancelPending != 0 || pg_sys::ProcDiePending != 0)
    }
}
