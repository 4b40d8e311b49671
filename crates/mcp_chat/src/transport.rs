//! How the engine reaches a provider: one request body out, one raw answer back. Two
//! implementations: [`HttpTransport`] (through `mcp_http`: retries, timeouts, size cap,
//! interrupt polling) and [`ReplayTransport`] (recorded bodies, in order, no network). What the
//! body and the answer mean is the provider dialect's business (`mcp_llm::provider`); what is
//! recorded and scrubbed is the engine's.
//!
//! A send is a future: over the blocking client (or a replay) it is ready when first polled —
//! `run_chat` drives it with a trivial `block_on`, no runtime — and over the multiplexed client
//! of a chat worker ([`Http::Multiplexed`]) it is pending while the request is under way, so
//! one thread keeps many runs' requests in flight.

use mcp_http::multiplex::Multiplexer;
use mcp_http::{HttpClient, HttpErrorKind, Options, Request};
use mcp_llm::provider::replay::REPLAY_URL;
use mcp_llm::{ErrorKind, ProviderConfig, ProviderKind};
use std::future::Future;
use std::pin::Pin;
use std::time::{Duration, Instant};

/// An answer: an HTTP status (none for a replayed body), the raw body and the headers.
#[derive(Debug)]
pub struct Reply {
    pub status: Option<u16>,
    pub body: String,
    pub headers: Vec<(String, String)>,
    pub latency: Duration,
    pub attempts: u32,
    /// The body and headers are scrubbed of the request's credentials already (`mcp_http` does
    /// it for every HTTP answer); a replayed body is not, and the engine scrubs it.
    pub scrubbed: bool,
}

/// No answer.
#[derive(Debug)]
pub enum Failure {
    /// The caller's `interrupt` ended the wait.
    Cancelled { latency: Duration, attempts: u32 },
    /// Nothing usable arrived. `message` is not scrubbed yet (the engine does that, before it
    /// is cut to size); `chat_kind` replaces the error kind the run reports.
    Failed {
        kind: ErrorKind,
        code: Option<String>,
        message: String,
        chat_kind: Option<&'static str>,
        latency: Duration,
        attempts: u32,
    },
}

/// A send under way.
pub type Sending<'s> = Pin<Box<dyn Future<Output = Result<Reply, Failure>> + 's>>;

/// How HTTP requests leave the process.
#[derive(Clone, Copy, Debug)]
pub enum Http<'a> {
    /// The backend's blocking client: the calling thread waits for the answer.
    Blocking(&'a HttpClient),
    /// A chat worker's I/O thread: the send is pending while the request is under way.
    Multiplexed(&'a Multiplexer),
}

/// One request at a time, to one provider.
pub trait Transport {
    /// The request URL as the audit shows it (no user info, no query string).
    fn audit_url(&self) -> String;
    /// Send `body`; poll `interrupt` while waiting (each time the send is polled, for a
    /// multiplexed one). Attempts, backoff waits and retries all end by `deadline` (the run's
    /// time budget) when there is one.
    fn send<'s>(
        &'s mut self,
        body: String,
        interrupt: &'s mut dyn FnMut() -> bool,
        deadline: Option<Instant>,
    ) -> Sending<'s>;
}

/// The transport `provider` needs.
pub fn for_provider<'a>(
    provider: &'a ProviderConfig,
    http: &Options,
    client: Http<'a>,
) -> Box<dyn Transport + 'a> {
    if provider.kind == ProviderKind::Replay {
        Box::new(ReplayTransport {
            bodies: &provider.replay,
            next: 0,
        })
    } else {
        let mut opts = http.clone();
        if let Some(t) = provider.timeout {
            opts.read_timeout = t;
        }
        Box::new(HttpTransport {
            client,
            provider,
            opts,
        })
    }
}

/// POST through `mcp_http` (which scrubs the request's credentials from what comes back).
pub struct HttpTransport<'a> {
    client: Http<'a>,
    provider: &'a ProviderConfig,
    opts: Options,
}

impl Transport for HttpTransport<'_> {
    fn audit_url(&self) -> String {
        mcp_http::redact_url(&self.provider.endpoint())
    }

    fn send<'s>(
        &'s mut self,
        body: String,
        interrupt: &'s mut dyn FnMut() -> bool,
        deadline: Option<Instant>,
    ) -> Sending<'s> {
        let request = Request {
            url: self.provider.endpoint(),
            headers: self.provider.headers(),
            body,
        };
        let client = self.client;
        let mut opts = std::borrow::Cow::Borrowed(&self.opts);
        if let Some(d) = deadline {
            let left = d.saturating_duration_since(Instant::now());
            let o = opts.to_mut();
            o.read_timeout = o.read_timeout.min(left.max(Duration::from_millis(1)));
            o.connect_timeout = o.connect_timeout.min(o.read_timeout);
            o.retry.retry_budget = o.retry.retry_budget.min(left);
        }
        Box::pin(async move {
            let result = match client {
                Http::Blocking(c) => c.post_json(&request, &opts, interrupt),
                Http::Multiplexed(m) => m.post_json(&request, &opts, interrupt).await,
            };
            drop(request);
            reply_of(result)
        })
    }
}

/// The engine's view of what `mcp_http` answered.
fn reply_of(result: Result<mcp_http::Response, mcp_http::HttpError>) -> Result<Reply, Failure> {
    match result {
        Ok(r) => {
            let (latency, attempts, status) = (r.latency, r.attempts, r.status);
            let headers = r.headers.clone();
            Ok(Reply {
                status: Some(status),
                body: r.into_text(),
                headers,
                latency,
                attempts,
                scrubbed: true,
            })
        }
        Err(e) if e.kind == HttpErrorKind::Interrupted => Err(Failure::Cancelled {
            latency: e.latency,
            attempts: e.attempts,
        }),
        Err(e) => Err(Failure::Failed {
            kind: match e.kind {
                HttpErrorKind::Timeout => ErrorKind::Timeout,
                HttpErrorKind::TooLarge => ErrorKind::InvalidResponse,
                HttpErrorKind::InvalidUrl | HttpErrorKind::InvalidRequest => ErrorKind::BadRequest,
                _ => ErrorKind::Network,
            },
            code: Some(e.kind.as_str().to_string()),
            message: e.message,
            chat_kind: None,
            latency: e.latency,
            attempts: e.attempts,
        }),
    }
}

/// Recorded raw bodies, served in order; one more request than recorded fails with
/// `replay_exhausted`.
pub struct ReplayTransport<'a> {
    bodies: &'a [String],
    next: usize,
}

impl Transport for ReplayTransport<'_> {
    fn audit_url(&self) -> String {
        REPLAY_URL.to_string()
    }

    fn send<'s>(
        &'s mut self,
        _body: String,
        _interrupt: &'s mut dyn FnMut() -> bool,
        _deadline: Option<Instant>,
    ) -> Sending<'s> {
        Box::pin(std::future::ready(self.next_reply()))
    }
}

impl ReplayTransport<'_> {
    fn next_reply(&mut self) -> Result<Reply, Failure> {
        let t0 = Instant::now();
        match self.bodies.get(self.next) {
            Some(b) => {
                self.next += 1;
                Ok(Reply {
                    status: None,
                    body: b.clone(),
                    headers: Vec::new(),
                    latency: t0.elapsed(),
                    attempts: 0,
                    scrubbed: false,
                })
            }
            None => Err(Failure::Failed {
                kind: ErrorKind::InvalidResponse,
                code: None,
                message: format!(
                    "replay exhausted: the recording holds {} responses, request {} has none",
                    self.bodies.len(),
                    self.next + 1
                ),
                chat_kind: Some("replay_exhausted"),
                latency: Duration::ZERO,
                attempts: 0,
            }),
        }
    }
}
