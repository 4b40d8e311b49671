//! mcp_http — the one blocking HTTP helper for LLM calls.
//!
//! Built to run inside a PostgreSQL backend:
//!
//! * The blocking HTTP exchange runs on a long-lived worker thread of the [`HttpClient`] (one per
//!   backend in practice; spawned once with every signal blocked, so PostgreSQL's signal handlers
//!   only ever run on the backend thread). The calling thread hands the worker one attempt at a
//!   time and waits for its answer in slices of at most [`POLL_SLICE`], calling the caller's
//!   `interrupt` closure between slices. When it answers `true` (or the safety deadline passes)
//!   the call returns [`HttpErrorKind::Interrupted`] at once and the exchange is *aborted*: the
//!   worker's connections are shut down from the calling thread (`shutdown(2)` on the socket, via
//!   `ureq::Agent::shutdown`), which ends its blocked read or write immediately; the worker then
//!   exits and its socket closes. An abandoned exchange leaves no thread and no socket behind.
//!   The next request starts a fresh worker. A DNS lookup or TCP connect in progress at the
//!   cancel is not interruptible; that worker ends when it returns (bounded by the connect
//!   timeout), and nobody waits for it.
//! * Per request, no thread is created: the worker resolves host names itself (IP literals need
//!   no lookup; names are remembered for 30 s — ureq resolves before it looks for a pooled
//!   connection, and its default resolver spawns a thread per lookup when a timeout is set).
//! * Retries with exponential backoff and full jitter on 429, 500/502/503/504, 529 and network
//!   errors; `Retry-After` (seconds or HTTP-date) and `retry-after-ms` are honoured, capped by
//!   `max_delay` and the retry budget. Backoff sleeps poll `interrupt` too.
//! * The response body is capped (`max_response_bytes`); a truncated body is a network error.
//! * Non-2xx statuses are not errors here: after retries they come back as a [`Response`].
//! * Secrets: every response body and header value (success or error status) is scrubbed of the
//!   request's credentials in all their forms ([`mcp_audit::Scrubber`]) before it is returned;
//!   error messages never contain header values, URL user info, the query string or anything
//!   that looks like a credential.
//!
//! No PostgreSQL API is touched here; the caller passes `interrupt` (e.g. a closure that checks
//! `InterruptPending` / `QueryCancelPending` on the backend thread).

#[cfg(feature = "multiplex")]
pub mod multiplex;

use mcp_audit::Scrubber;
use std::borrow::Cow;
use std::fmt;
use std::io::Read;
use std::sync::mpsc;
use std::sync::{Arc, Mutex, OnceLock};
use std::time::{Duration, Instant, SystemTime};

/// Longest time the calling thread waits before calling `interrupt()` again.
pub const POLL_SLICE: Duration = Duration::from_millis(25);

/// Extra time the calling thread grants a worker beyond its own timeouts before giving up on it.
const WORKER_GRACE: Duration = Duration::from_secs(2);

// ---------------------------------------------------------------------------------------------
// Public types
// ---------------------------------------------------------------------------------------------

/// One HTTP POST with a JSON (or any text) body. `Debug` shows header names only and the URL
/// without its query string.
#[derive(Clone, Default)]
pub struct Request {
    pub url: String,
    /// Header name/value pairs. `content-type: application/json` is added when absent.
    pub headers: Vec<(String, String)>,
    pub body: String,
}

impl fmt::Debug for Request {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let names: Vec<&str> = self.headers.iter().map(|(k, _)| k.as_str()).collect();
        f.debug_struct("Request")
            .field("url", &redact_url(&self.url))
            .field("header_names", &names)
            .field("body_bytes", &self.body.len())
            .finish()
    }
}

impl Request {
    pub fn new(url: impl Into<String>, body: impl Into<String>) -> Self {
        Request {
            url: url.into(),
            headers: Vec::new(),
            body: body.into(),
        }
    }

    /// Builder-style header.
    pub fn header(mut self, name: impl Into<String>, value: impl Into<String>) -> Self {
        self.headers.push((name.into(), value.into()));
        self
    }
}

/// Retry behaviour.
#[derive(Clone, Debug)]
pub struct RetryPolicy {
    /// Retries after the first attempt (0 = a single attempt).
    pub max_retries: u32,
    /// Backoff base: attempt n waits a random time in `[0, min(max_delay, base * 2^n)]`.
    pub base_delay: Duration,
    /// Upper bound of any single wait, including a server's `Retry-After`.
    pub max_delay: Duration,
    /// Total time that may be spent waiting between attempts.
    pub retry_budget: Duration,
    /// Retry an attempt that timed out. Off by default: the server may already have processed
    /// (and billed) a request whose answer did not arrive in time.
    pub retry_timeouts: bool,
}

impl Default for RetryPolicy {
    fn default() -> Self {
        RetryPolicy {
            max_retries: 2,
            base_delay: Duration::from_millis(500),
            max_delay: Duration::from_secs(10),
            retry_budget: Duration::from_secs(30),
            retry_timeouts: false,
        }
    }
}

impl RetryPolicy {
    /// A single attempt, no retries.
    pub fn none() -> Self {
        RetryPolicy {
            max_retries: 0,
            ..RetryPolicy::default()
        }
    }
}

/// Per-call options.
#[derive(Clone, Debug)]
pub struct Options {
    /// Budget for DNS + TCP connect + TLS handshake.
    pub connect_timeout: Duration,
    /// Whole-attempt deadline: connect, send, response headers and the full body.
    pub read_timeout: Duration,
    /// Largest accepted response body; one byte more is [`HttpErrorKind::TooLarge`].
    pub max_response_bytes: usize,
    pub retry: RetryPolicy,
    /// Use `ALL_PROXY` / `HTTPS_PROXY` / `HTTP_PROXY` (with `NO_PROXY`) from the environment.
    /// Loopback targets never go through a proxy.
    pub proxy_from_env: bool,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            connect_timeout: Duration::from_secs(10),
            read_timeout: Duration::from_secs(120),
            max_response_bytes: 8 * 1024 * 1024,
            retry: RetryPolicy::default(),
            proxy_from_env: true,
        }
    }
}

/// What one attempt ended with.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AttemptOutcome {
    Status(u16),
    Error(HttpErrorKind),
}

impl fmt::Display for AttemptOutcome {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            AttemptOutcome::Status(s) => write!(f, "{s}"),
            AttemptOutcome::Error(k) => write!(f, "{}", k.as_str()),
        }
    }
}

/// A complete HTTP answer (any status) plus how it was obtained.
#[derive(Clone, Debug)]
pub struct Response {
    pub status: u16,
    /// Header names lowercased, in the order received.
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
    /// Number of attempts made (1 = no retry).
    pub attempts: u32,
    /// Outcome of every attempt, in order; the last one is this response's status.
    pub attempt_log: Vec<AttemptOutcome>,
    /// Wall time of the whole call, including retries and backoff.
    pub latency: Duration,
    /// Time spent sleeping between attempts.
    pub waited: Duration,
    /// True when this answer came after at least one retry.
    pub retried: bool,
}

impl Response {
    /// The body as text (invalid UTF-8 replaced).
    pub fn text(&self) -> Cow<'_, str> {
        String::from_utf8_lossy(&self.body)
    }

    /// The body as an owned `String` (invalid UTF-8 replaced).
    pub fn into_text(self) -> String {
        match String::from_utf8(self.body) {
            Ok(s) => s,
            Err(e) => String::from_utf8_lossy(e.as_bytes()).into_owned(),
        }
    }

    /// First header with this name (case-insensitive).
    pub fn header(&self, name: &str) -> Option<&str> {
        header_lookup(&self.headers, name)
    }

    pub fn is_success(&self) -> bool {
        (200..300).contains(&self.status)
    }
}

/// Error classes. Only `Timeout` (when [`RetryPolicy::retry_timeouts`]), `Connect` and `Network` are retried.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum HttpErrorKind {
    /// Connect, response or whole-request deadline passed.
    Timeout,
    /// Could not connect: refused, unreachable, DNS failure.
    Connect,
    /// Connection reset, closed early, truncated body, malformed HTTP.
    Network,
    /// Response body larger than `max_response_bytes` (or oversized headers).
    TooLarge,
    /// The caller's `interrupt()` returned true.
    Interrupted,
    /// URL is not an absolute http(s) URL.
    InvalidUrl,
    /// Bad header name or value in the request.
    InvalidRequest,
    /// TLS handshake / certificate failure.
    Tls,
    /// Worker thread could not be started or died.
    Internal,
}

impl HttpErrorKind {
    pub fn as_str(self) -> &'static str {
        match self {
            HttpErrorKind::Timeout => "timeout",
            HttpErrorKind::Connect => "connect",
            HttpErrorKind::Network => "network",
            HttpErrorKind::TooLarge => "too_large",
            HttpErrorKind::Interrupted => "interrupted",
            HttpErrorKind::InvalidUrl => "invalid_url",
            HttpErrorKind::InvalidRequest => "invalid_request",
            HttpErrorKind::Tls => "tls",
            HttpErrorKind::Internal => "internal",
        }
    }

    /// Whether an attempt failing this way is worth another attempt.
    pub fn is_retryable(self) -> bool {
        matches!(
            self,
            HttpErrorKind::Timeout | HttpErrorKind::Connect | HttpErrorKind::Network
        )
    }
}

/// A failed call. `message` is safe to log and show: no header values, no query string.
#[derive(Clone, Debug)]
pub struct HttpError {
    pub kind: HttpErrorKind,
    pub message: String,
    pub attempts: u32,
    pub attempt_log: Vec<AttemptOutcome>,
    pub latency: Duration,
}

impl HttpError {
    pub fn kind(&self) -> HttpErrorKind {
        self.kind
    }
}

impl fmt::Display for HttpError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for HttpError {}

/// Whether a status is worth retrying: 429, 500, 502, 503, 504, 529 (Anthropic overloaded).
pub fn is_retryable_status(status: u16) -> bool {
    matches!(status, 429 | 500 | 502 | 503 | 504 | 529)
}

// ---------------------------------------------------------------------------------------------
// Client
// ---------------------------------------------------------------------------------------------

/// Idle workers a client keeps (more only when several threads share one client).
const MAX_IDLE_WORKERS: usize = 32;

/// A reusable client: its worker thread(s), each with its own `ureq::Agent` (connection pool).
/// Keep one per backend. Clones share the workers. Dropping the last clone lets idle workers
/// exit.
#[derive(Clone)]
pub struct HttpClient {
    inner: Arc<ClientInner>,
}

struct ClientInner {
    idle: Mutex<Idle>,
}

struct Idle {
    /// Process that started these workers: after a fork they do not exist in the child.
    pid: u32,
    workers: Vec<Worker>,
}

impl Default for HttpClient {
    fn default() -> Self {
        Self::new()
    }
}

impl fmt::Debug for HttpClient {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("HttpClient")
    }
}

impl HttpClient {
    pub fn new() -> Self {
        HttpClient {
            inner: Arc::new(ClientInner {
                idle: Mutex::new(Idle {
                    pid: std::process::id(),
                    workers: Vec::new(),
                }),
            }),
        }
    }

    /// Worker threads currently idle in this client (for tests and diagnostics).
    pub fn idle_workers(&self) -> usize {
        lock(&self.inner.idle).workers.len()
    }

    fn checkout(&self) -> std::io::Result<Worker> {
        let pid = std::process::id();
        let mut idle = lock(&self.inner.idle);
        if idle.pid != pid {
            // Forked: the workers are threads of the parent, absent here. Forget them without
            // dropping (their channels and sockets belong to the parent's threads).
            std::mem::forget(std::mem::take(&mut idle.workers));
            idle.pid = pid;
        }
        match idle.workers.pop() {
            Some(w) => Ok(w),
            None => {
                drop(idle);
                Worker::spawn()
            }
        }
    }

    fn checkin(&self, w: Worker) {
        let mut idle = lock(&self.inner.idle);
        if idle.workers.len() < MAX_IDLE_WORKERS && idle.pid == std::process::id() {
            idle.workers.push(w);
        }
        // else: dropped here, and the worker exits
    }

    /// POST `req`, retrying per `opts.retry`. See the crate docs.
    pub fn post_json(
        &self,
        req: &Request,
        opts: &Options,
        interrupt: &mut dyn FnMut() -> bool,
    ) -> Result<Response, HttpError> {
        // Every attempt and backoff of this client completes before its future is polled
        // again: the loop's future is always ready, `block_on` polls it once.
        block_on(post_with(self, req, opts, interrupt))
    }
}

/// How the attempts of one call are made and how it waits between them: on this client's
/// worker thread with the calling thread waiting ([`HttpClient`]), or on an I/O thread shared by
/// many calls in flight at once (`multiplex::Multiplexer`). One retry loop ([`post_with`]) for
/// both.
pub(crate) trait Attempts {
    fn attempt<'a>(
        &'a self,
        spec: &'a Arc<ExchangeSpec>,
        interrupt: &'a mut dyn FnMut() -> bool,
    ) -> BoxFuture<'a, Result<RawResponse, AttemptError>>;
    /// Wait `d`, polling `interrupt`; false when interrupted.
    fn sleep<'a>(
        &'a self,
        d: Duration,
        interrupt: &'a mut dyn FnMut() -> bool,
    ) -> BoxFuture<'a, bool>;
}

pub(crate) type BoxFuture<'a, T> = std::pin::Pin<Box<dyn std::future::Future<Output = T> + 'a>>;

impl Attempts for HttpClient {
    fn attempt<'a>(
        &'a self,
        spec: &'a Arc<ExchangeSpec>,
        interrupt: &'a mut dyn FnMut() -> bool,
    ) -> BoxFuture<'a, Result<RawResponse, AttemptError>> {
        Box::pin(std::future::ready(self.run_attempt(spec, interrupt)))
    }

    fn sleep<'a>(
        &'a self,
        d: Duration,
        interrupt: &'a mut dyn FnMut() -> bool,
    ) -> BoxFuture<'a, bool> {
        Box::pin(std::future::ready(sleep_interruptibly(d, interrupt)))
    }
}

/// Drive `f` to its end on this thread, parking it while the future is pending (a future over
/// [`HttpClient`] never is). No runtime, no thread.
pub fn block_on<F: std::future::Future>(f: F) -> F::Output {
    use std::task::{Context, Poll, Wake, Waker};
    struct Unpark(std::thread::Thread);
    impl Wake for Unpark {
        fn wake(self: Arc<Self>) {
            self.0.unpark();
        }
        fn wake_by_ref(self: &Arc<Self>) {
            self.0.unpark();
        }
    }
    let mut f = std::pin::pin!(f);
    let waker = Waker::from(Arc::new(Unpark(std::thread::current())));
    let mut cx = Context::from_waker(&waker);
    loop {
        if let Poll::Ready(v) = f.as_mut().poll(&mut cx) {
            return v;
        }
        // Polled again at least every slice: a pending future looks at its interrupt then.
        std::thread::park_timeout(POLL_SLICE);
    }
}

/// The one retry loop: POST `req` through `att`, retrying per `opts.retry`.
pub(crate) async fn post_with(
    att: &dyn Attempts,
    req: &Request,
    opts: &Options,
    interrupt: &mut dyn FnMut() -> bool,
) -> Result<Response, HttpError> {
    let start = Instant::now();
    let scrub = Scrubber::for_request(&req.url, &req.headers);
    let shown_url = redact_url(&req.url);
    let mut log: Vec<AttemptOutcome> = Vec::new();
    let fail = |kind: HttpErrorKind, msg: String, log: &Vec<AttemptOutcome>| HttpError {
        kind,
        message: scrub.scrub_message(&msg),
        attempts: log.len() as u32,
        attempt_log: log.clone(),
        latency: start.elapsed(),
    };

    let target = match parse_target(&req.url) {
        Ok(t) => t,
        Err(why) => {
            return Err(fail(
                HttpErrorKind::InvalidUrl,
                format!("invalid URL {shown_url}: {why}"),
                &log,
            ))
        }
    };
    if let Err(name) = check_headers(&req.headers) {
        return Err(fail(
            HttpErrorKind::InvalidRequest,
            format!("POST {shown_url}: invalid header {name:?} (value not shown)"),
            &log,
        ));
    }

    let job = Arc::new(ExchangeSpec {
        url: req.url.clone(),
        headers: req.headers.clone(),
        body: req.body.clone(),
        connect_timeout: opts.connect_timeout,
        read_timeout: opts.read_timeout,
        max_bytes: opts.max_response_bytes,
        no_proxy: target.loopback || !opts.proxy_from_env,
    });
    let policy = &opts.retry;
    let mut rng = fastrand::Rng::new();
    let mut waited = Duration::ZERO;
    let mut attempt: u32 = 0;

    loop {
        if interrupt() {
            return Err(fail(
                HttpErrorKind::Interrupted,
                format!("POST {shown_url}: interrupted"),
                &log,
            ));
        }
        let outcome = att.attempt(&job, &mut *interrupt).await;
        let last = attempt >= policy.max_retries;
        // Record the attempt; decide whether it is retried (with the server's hint, if any).
        let retry_hint = match &outcome {
            Ok(raw) => {
                log.push(AttemptOutcome::Status(raw.status));
                (!last && is_retryable_status(raw.status))
                    .then(|| retry_after(&raw.headers, SystemTime::now()))
            }
            Err(err) => {
                log.push(AttemptOutcome::Error(err.kind));
                if err.kind == HttpErrorKind::Interrupted {
                    return Err(fail(
                        err.kind,
                        format!("POST {shown_url}: interrupted"),
                        &log,
                    ));
                }
                let retryable = err.kind.is_retryable()
                    && (err.kind != HttpErrorKind::Timeout || policy.retry_timeouts);
                (!last && retryable).then_some(None)
            }
        };
        if let Some(hint) = retry_hint {
            if let Some(delay) = next_delay(policy, attempt, hint, waited, &mut rng) {
                if !att.sleep(delay, &mut *interrupt).await {
                    return Err(fail(
                        HttpErrorKind::Interrupted,
                        format!("POST {shown_url}: interrupted during retry backoff"),
                        &log,
                    ));
                }
                waited += delay;
                attempt += 1;
                continue;
            }
        }
        return match outcome {
            Ok(raw) => Ok(Response {
                status: raw.status,
                // A provider may echo the request's credentials, in a 200 answer too.
                headers: raw
                    .headers
                    .into_iter()
                    .map(|(k, v)| (k, scrub.scrub(&v).into_owned()))
                    .collect(),
                body: scrub.scrub_bytes(raw.body),
                attempts: log.len() as u32,
                retried: log.len() > 1,
                attempt_log: log,
                latency: start.elapsed(),
                waited,
            }),
            Err(err) => {
                let n = log.len();
                let tries = if n == 1 {
                    String::from("1 attempt")
                } else {
                    format!("{n} attempts")
                };
                Err(fail(
                    err.kind,
                    format!("POST {shown_url}: {} ({tries})", err.detail),
                    &log,
                ))
            }
        };
    }
}

/// POST with a process-wide default [`HttpClient`].
pub fn post_json(
    req: &Request,
    opts: &Options,
    interrupt: &mut dyn FnMut() -> bool,
) -> Result<Response, HttpError> {
    static CLIENT: OnceLock<HttpClient> = OnceLock::new();
    CLIENT
        .get_or_init(HttpClient::new)
        .post_json(req, opts, interrupt)
}

// ---------------------------------------------------------------------------------------------
// One attempt on a worker thread
// ---------------------------------------------------------------------------------------------

/// What one attempt sends (shared by the attempts of one call).
pub(crate) struct ExchangeSpec {
    url: String,
    headers: Vec<(String, String)>,
    body: String,
    connect_timeout: Duration,
    read_timeout: Duration,
    max_bytes: usize,
    no_proxy: bool,
}

/// One attempt handed to a worker, with the channel its result goes back on.
struct Job {
    spec: Arc<ExchangeSpec>,
    reply: mpsc::SyncSender<Result<RawResponse, AttemptError>>,
}

/// A long-lived thread that runs one exchange at a time with its own agent (connection pool).
struct Worker {
    jobs: mpsc::Sender<Job>,
    /// A clone of the thread's agent: shutting it down closes the thread's connections, idle or
    /// in use, which ends a blocked read or write at once.
    agent: ureq::Agent,
}

impl Worker {
    fn spawn() -> std::io::Result<Worker> {
        let agent = new_agent();
        let thread_agent = agent.clone();
        let (jobs, queue) = mpsc::channel::<Job>();
        spawn_worker(move || {
            // Ends when the client drops or retires this worker (the sender is gone).
            while let Ok(job) = queue.recv() {
                let result = exchange(&thread_agent, &job.spec);
                // The caller may have given up (interrupted): then the result is dropped.
                let _ = job.reply.send(result);
            }
        })?;
        Ok(Worker { jobs, agent })
    }

    /// Give up on the exchange in flight: close the worker's sockets so its blocked I/O returns
    /// now, and let the thread exit after that (dropping `self` closes its queue).
    fn abort(self) {
        self.agent.shutdown();
    }
}

fn new_agent() -> ureq::Agent {
    let config = ureq::Agent::config_builder()
        .http_status_as_error(false)
        .max_redirects(0) // never follow redirects for POSTs; a 3xx is returned as is
        .max_redirects_will_error(false)
        .user_agent(concat!("pg_mcp/", env!("CARGO_PKG_VERSION")))
        .max_idle_connections(16)
        .max_idle_connections_per_host(4)
        .max_idle_age(Duration::from_secs(30))
        .build();
    ureq::Agent::with_parts(
        config,
        ureq::unversioned::transport::DefaultConnector::default(),
        WorkerResolver::default(),
    )
}

/// How long a worker remembers a host name's addresses.
const DNS_CACHE_TTL: Duration = Duration::from_secs(30);

/// Name resolution of one worker's agent. ureq resolves the host before it looks for a pooled
/// connection, so every request, keep-alive or not, resolves; and its default resolver spawns a
/// thread per lookup whenever a timeout is set. Here an IP literal needs no lookup at all, and a
/// host name is resolved on the worker thread itself (which a cancel may abandon: nobody waits
/// for it) and remembered for [`DNS_CACHE_TTL`].
#[derive(Debug, Default)]
struct WorkerResolver {
    cache: Mutex<Vec<(String, Instant, Vec<std::net::SocketAddr>)>>,
}

impl ureq::unversioned::resolver::Resolver for WorkerResolver {
    fn resolve(
        &self,
        uri: &ureq::http::Uri,
        config: &ureq::config::Config,
        _timeout: ureq::unversioned::transport::NextTimeout,
    ) -> Result<ureq::unversioned::resolver::ResolvedSocketAddrs, ureq::Error> {
        use std::net::{IpAddr, SocketAddr, ToSocketAddrs};
        let authority = uri.authority().ok_or(ureq::Error::HostNotFound)?.clone();
        let port = authority
            .port_u16()
            .unwrap_or(if uri.scheme_str() == Some("https") {
                443
            } else {
                80
            });
        let host = authority.host();
        let mut out = self.empty();
        let bare = host.trim_start_matches('[').trim_end_matches(']');
        if let Ok(ip) = bare.parse::<IpAddr>() {
            out.push(SocketAddr::new(ip, port));
            return Ok(out);
        }
        let key = format!("{host}:{port}");
        let now = Instant::now();
        let cached = lock(&self.cache)
            .iter()
            .find(|(k, at, _)| *k == key && now.duration_since(*at) < DNS_CACHE_TTL)
            .map(|(_, _, addrs)| addrs.clone());
        let addrs = match cached {
            Some(a) => a,
            None => {
                let found: Vec<SocketAddr> = config
                    .ip_family()
                    .keep_wanted((host, port).to_socket_addrs()?)
                    .take(16)
                    .collect();
                let mut cache = lock(&self.cache);
                cache.retain(|(k, at, _)| *k != key && now.duration_since(*at) < DNS_CACHE_TTL);
                cache.truncate(15);
                cache.push((key, now, found.clone()));
                found
            }
        };
        for a in addrs {
            out.push(a);
        }
        if out.is_empty() {
            return Err(ureq::Error::HostNotFound);
        }
        Ok(out)
    }
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

pub(crate) struct RawResponse {
    status: u16,
    headers: Vec<(String, String)>,
    body: Vec<u8>,
}

pub(crate) struct AttemptError {
    kind: HttpErrorKind,
    /// Not yet scrubbed; the caller scrubs before it leaves the crate.
    detail: String,
}

impl AttemptError {
    pub(crate) fn new(kind: HttpErrorKind, detail: impl Into<String>) -> Self {
        AttemptError {
            kind,
            detail: detail.into(),
        }
    }
}

impl HttpClient {
    fn run_attempt(
        &self,
        spec: &Arc<ExchangeSpec>,
        interrupt: &mut dyn FnMut() -> bool,
    ) -> Result<RawResponse, AttemptError> {
        let cannot_start = |e: std::io::Error| {
            AttemptError::new(
                HttpErrorKind::Internal,
                format!("could not start HTTP worker thread: {e}"),
            )
        };
        let (reply, result) = mpsc::sync_channel(1);
        let job = Job {
            spec: spec.clone(),
            reply,
        };
        let mut worker = self.checkout().map_err(cannot_start)?;
        if let Err(mpsc::SendError(job)) = worker.jobs.send(job) {
            // The thread is gone (it cannot panic on its own, but be safe): a fresh one.
            worker = Worker::spawn().map_err(cannot_start)?;
            if worker.jobs.send(job).is_err() {
                return Err(AttemptError::new(
                    HttpErrorKind::Internal,
                    "HTTP worker thread did not accept the request",
                ));
            }
        }

        // The worker ends the exchange itself on `read_timeout` (a global deadline that
        // includes connect); this is only a safety net in case it does not.
        let deadline = Instant::now() + spec.read_timeout.max(spec.connect_timeout) + WORKER_GRACE;
        loop {
            match result.recv_timeout(POLL_SLICE) {
                Ok(r) => {
                    self.checkin(worker);
                    return r;
                }
                Err(mpsc::RecvTimeoutError::Timeout) => {
                    if interrupt() {
                        worker.abort();
                        return Err(AttemptError::new(HttpErrorKind::Interrupted, "interrupted"));
                    }
                    if Instant::now() >= deadline {
                        worker.abort();
                        return Err(AttemptError::new(
                            HttpErrorKind::Timeout,
                            format!("no answer within {} ms", spec.read_timeout.as_millis()),
                        ));
                    }
                }
                Err(mpsc::RecvTimeoutError::Disconnected) => {
                    worker.abort();
                    return Err(AttemptError::new(
                        HttpErrorKind::Internal,
                        "HTTP worker thread ended without a result",
                    ));
                }
            }
        }
    }
}

/// Spawn a detached worker with every signal blocked (the mask is inherited from the spawning
/// thread, so block, spawn, restore). PostgreSQL's handlers must only ever run on the backend
/// thread.
#[cfg(unix)]
pub(crate) fn spawn_worker<F: FnOnce() + Send + 'static>(f: F) -> std::io::Result<()> {
    // SAFETY: plain libc calls on stack-allocated sigset_t values; the old mask is restored
    // before returning on every path.
    unsafe {
        let mut all: libc::sigset_t = std::mem::zeroed();
        let mut old: libc::sigset_t = std::mem::zeroed();
        libc::sigfillset(&mut all);
        let blocked = libc::pthread_sigmask(libc::SIG_SETMASK, &all, &mut old) == 0;
        let res = std::thread::Builder::new()
            .name("mcp_http".into())
            .spawn(f)
            .map(|_| ());
        if blocked {
            libc::pthread_sigmask(libc::SIG_SETMASK, &old, std::ptr::null_mut());
        }
        res
    }
}

#[cfg(not(unix))]
pub(crate) fn spawn_worker<F: FnOnce() + Send + 'static>(f: F) -> std::io::Result<()> {
    std::thread::Builder::new()
        .name("mcp_http".into())
        .spawn(f)
        .map(|_| ())
}

fn exchange(agent: &ureq::Agent, spec: &ExchangeSpec) -> Result<RawResponse, AttemptError> {
    let ExchangeSpec {
        url,
        headers,
        body,
        connect_timeout,
        read_timeout,
        max_bytes,
        no_proxy,
    } = spec;
    let (connect_timeout, read_timeout, max_bytes) = (*connect_timeout, *read_timeout, *max_bytes);
    let mut builder = agent.post(url);
    let mut has_content_type = false;
    for (name, value) in headers {
        if name.eq_ignore_ascii_case("content-type") {
            has_content_type = true;
        }
        builder = builder.header(name.as_str(), value.as_str());
    }
    if !has_content_type {
        builder = builder.header("content-type", "application/json");
    }
    let mut cfg = builder
        .config()
        .timeout_global(Some(read_timeout))
        .timeout_connect(Some(connect_timeout));
    if *no_proxy {
        cfg = cfg.proxy(None);
    }
    let builder = cfg.build();

    let annotate = |mut e: AttemptError| {
        if e.kind == HttpErrorKind::Timeout {
            e.detail = if e.detail.starts_with("connect") {
                format!("connect timed out after {} ms", connect_timeout.as_millis())
            } else {
                format!(
                    "no complete response within the read timeout of {} ms",
                    read_timeout.as_millis()
                )
            };
        }
        e
    };
    let response = builder
        .send(body.as_bytes())
        .map_err(|e| annotate(classify(e)))?;
    let status = response.status().as_u16();
    let headers = header_pairs(response.headers());
    let body = response.into_body();
    if let Some(len) = body.content_length() {
        if len > max_bytes as u64 {
            return Err(AttemptError::new(
                HttpErrorKind::TooLarge,
                format!("response body of {len} bytes exceeds the limit of {max_bytes} bytes"),
            ));
        }
    }
    let cap = (max_bytes as u64).saturating_add(1);
    let mut buf = Vec::with_capacity(
        body.content_length()
            .map(|l| l as usize)
            .unwrap_or(8 * 1024)
            .min(max_bytes.saturating_add(1)),
    );
    let mut reader = body.into_with_config().limit(u64::MAX).reader().take(cap);
    if let Err(e) = reader.read_to_end(&mut buf) {
        return Err(annotate(classify_io_body(e)));
    }
    if buf.len() > max_bytes {
        return Err(AttemptError::new(
            HttpErrorKind::TooLarge,
            format!("response body exceeds the limit of {max_bytes} bytes"),
        ));
    }
    Ok(RawResponse {
        status,
        headers,
        body: buf,
    })
}

fn classify(e: ureq::Error) -> AttemptError {
    use HttpErrorKind as K;
    match e {
        ureq::Error::Timeout(t) => match t {
            ureq::Timeout::Connect | ureq::Timeout::Resolve => {
                AttemptError::new(K::Timeout, "connect timed out")
            }
            _ => AttemptError::new(K::Timeout, "timed out"),
        },
        ureq::Error::Io(io) => classify_io(&io, false),
        ureq::Error::HostNotFound => AttemptError::new(K::Connect, "host not found"),
        ureq::Error::ConnectionFailed => AttemptError::new(K::Connect, "connection failed"),
        ureq::Error::BadUri(_) => AttemptError::new(K::InvalidUrl, "invalid URL"),
        ureq::Error::Http(_) => {
            AttemptError::new(K::InvalidRequest, "invalid request (header name or value)")
        }
        ureq::Error::Protocol(p) => {
            AttemptError::new(K::Network, format!("HTTP protocol error: {p}"))
        }
        ureq::Error::BodyExceedsLimit(n) => AttemptError::new(
            K::TooLarge,
            format!("response body exceeds the limit of {n} bytes"),
        ),
        ureq::Error::LargeResponseHeader(x, y) => AttemptError::new(
            K::TooLarge,
            format!("response headers too large: {x} > {y} bytes"),
        ),
        ureq::Error::Tls(m) => AttemptError::new(K::Tls, format!("TLS error: {m}")),
        ureq::Error::Pem(_) => AttemptError::new(K::Tls, "TLS error: bad PEM data"),
        ureq::Error::Rustls(r) => AttemptError::new(K::Tls, format!("TLS error: {r}")),
        ureq::Error::TlsRequired => AttemptError::new(K::Tls, "TLS required"),
        ureq::Error::RequireHttpsOnly(_) => AttemptError::new(K::Tls, "https required"),
        ureq::Error::InvalidProxyUrl => AttemptError::new(K::Connect, "invalid proxy URL"),
        ureq::Error::ConnectProxyFailed(_) => AttemptError::new(K::Connect, "proxy CONNECT failed"),
        ureq::Error::BodyStalled => AttemptError::new(K::Network, "response body stalled"),
        ureq::Error::StatusCode(s) => {
            AttemptError::new(K::Internal, format!("unexpected status error {s}"))
        }
        other => AttemptError::new(K::Network, format!("{other}")),
    }
}

/// Errors while reading the body come wrapped in `io::Error`, sometimes around a `ureq::Error`.
fn classify_io_body(e: std::io::Error) -> AttemptError {
    if e.get_ref().is_some_and(|inner| inner.is::<ureq::Error>()) {
        if let Some(Ok(ue)) = e.into_inner().map(|b| b.downcast::<ureq::Error>()) {
            let mut err = classify(*ue);
            if err.kind == HttpErrorKind::Network {
                err.detail = format!("reading response body: {}", err.detail);
            }
            return err;
        }
        return AttemptError::new(HttpErrorKind::Network, "error reading response body");
    }
    classify_io(&e, true)
}

fn classify_io(io: &std::io::Error, in_body: bool) -> AttemptError {
    use std::io::ErrorKind as E;
    use HttpErrorKind as K;
    let kind = io.kind();
    let (k, what) = match kind {
        E::ConnectionRefused => (K::Connect, "connection refused"),
        E::NotConnected | E::AddrNotAvailable | E::AddrInUse => (K::Connect, "could not connect"),
        E::HostUnreachable | E::NetworkUnreachable | E::NetworkDown => {
            (K::Connect, "host or network unreachable")
        }
        E::TimedOut | E::WouldBlock => (K::Timeout, "timed out"),
        E::ConnectionReset => (K::Network, "connection reset by peer"),
        E::ConnectionAborted => (K::Network, "connection aborted"),
        E::BrokenPipe => (K::Network, "connection closed while sending (broken pipe)"),
        E::UnexpectedEof => (
            K::Network,
            if in_body {
                "connection closed before the full body arrived (truncated response)"
            } else {
                "connection closed unexpectedly"
            },
        ),
        _ => (K::Network, "I/O error"),
    };
    let detail = if in_body && k == K::Network && kind != E::UnexpectedEof {
        format!("reading response body: {what} ({kind})")
    } else if what == "I/O error" {
        format!("{what}: {io}")
    } else {
        what.to_string()
    };
    AttemptError::new(k, detail)
}

// ---------------------------------------------------------------------------------------------
// Retry helpers
// ---------------------------------------------------------------------------------------------

/// Wait before the next attempt, or None when the budget is spent.
fn next_delay(
    policy: &RetryPolicy,
    attempt: u32,
    hint: Option<Duration>,
    waited: Duration,
    rng: &mut fastrand::Rng,
) -> Option<Duration> {
    let remaining = policy.retry_budget.checked_sub(waited)?;
    if remaining.is_zero() && !policy.retry_budget.is_zero() {
        return None;
    }
    let delay = match hint {
        Some(h) => h.min(policy.max_delay),
        None => {
            let exp = policy
                .base_delay
                .saturating_mul(1u32.checked_shl(attempt.min(20)).unwrap_or(u32::MAX))
                .min(policy.max_delay);
            // Full jitter: uniform in [0, exp].
            let ms = exp.as_millis() as u64;
            Duration::from_millis(rng.u64(0..=ms))
        }
    };
    Some(delay.min(remaining))
}

/// Sleep up to `d`, polling `interrupt`; false when interrupted.
fn sleep_interruptibly(d: Duration, interrupt: &mut dyn FnMut() -> bool) -> bool {
    let end = Instant::now() + d;
    loop {
        if interrupt() {
            return false;
        }
        let now = Instant::now();
        if now >= end {
            return true;
        }
        std::thread::sleep((end - now).min(POLL_SLICE));
    }
}

/// The server's wait hint, the one Retry-After reader of pg_mcp (the HTTP retry loop and the
/// provider error normalization both use it): `retry-after-ms` (milliseconds; OpenAI, Azure)
/// wins over `retry-after`, which is delta-seconds (`"10"`, `"1.5"`) or an HTTP-date in any of
/// the three forms of RFC 9110 (read by the `httpdate` crate), relative to `now`; a past date
/// gives zero. Header names are case-insensitive; unusable values give `None`.
pub fn retry_after<K: AsRef<str>, V: AsRef<str>>(
    headers: &[(K, V)],
    now: SystemTime,
) -> Option<Duration> {
    let get = |name: &str| {
        headers
            .iter()
            .find(|(k, _)| k.as_ref().eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_ref().trim())
    };
    if let Some(ms) = get("retry-after-ms").and_then(|v| v.parse::<f64>().ok()) {
        if ms.is_finite() && ms >= 0.0 {
            return Some(Duration::from_micros((ms.min(1e12) * 1000.0) as u64));
        }
    }
    let v = get("retry-after")?;
    if let Ok(secs) = v.parse::<f64>() {
        if secs.is_finite() && secs >= 0.0 {
            return Some(Duration::from_millis((secs.min(1e9) * 1000.0) as u64));
        }
        return None;
    }
    let at = httpdate::parse_http_date(v).ok()?;
    Some(at.duration_since(now).unwrap_or(Duration::ZERO))
}

// ---------------------------------------------------------------------------------------------
// URL / header hygiene
// ---------------------------------------------------------------------------------------------

fn header_lookup<'a>(headers: &'a [(String, String)], name: &str) -> Option<&'a str> {
    headers
        .iter()
        .find(|(k, _)| k.eq_ignore_ascii_case(name))
        .map(|(_, v)| v.as_str())
}

struct Target {
    loopback: bool,
}

fn parse_target(url: &str) -> Result<Target, &'static str> {
    let lower = url.get(..8).unwrap_or(url).to_ascii_lowercase();
    let rest = if lower.starts_with("https://") {
        &url[8..]
    } else if lower.starts_with("http://") {
        &url[7..]
    } else {
        return Err("only http:// and https:// URLs are supported");
    };
    if url.chars().any(|c| c.is_whitespace() || c.is_control()) {
        return Err("URL contains whitespace or control characters");
    }
    let authority = rest.split(['/', '?', '#']).next().unwrap_or("");
    let hostport = authority.rsplit('@').next().unwrap_or("");
    let host = if let Some(stripped) = hostport.strip_prefix('[') {
        stripped.split(']').next().unwrap_or("")
    } else {
        hostport.split(':').next().unwrap_or("")
    };
    if host.is_empty() {
        return Err("missing host");
    }
    let h = host.to_ascii_lowercase();
    let loopback = h == "localhost"
        || h.ends_with(".localhost")
        || h == "::1"
        || h.parse::<std::net::Ipv4Addr>()
            .map(|ip| ip.is_loopback())
            .unwrap_or(false);
    Ok(Target { loopback })
}

/// Header names must be tokens; values must not hold CR/LF/NUL. Returns the bad header's name.
fn check_headers(headers: &[(String, String)]) -> Result<(), String> {
    for (name, value) in headers {
        let name_ok = !name.is_empty()
            && name
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&b));
        let value_ok = value
            .bytes()
            .all(|b| b != b'\r' && b != b'\n' && b != 0 && (b >= 0x20 || b == b'\t'));
        if !name_ok || !value_ok {
            let shown: String = name.chars().filter(|c| !c.is_control()).take(64).collect();
            return Err(shown);
        }
    }
    Ok(())
}

/// A URL fit for messages: no user info, no query string, no fragment.
pub fn redact_url(url: &str) -> String {
    let no_query = url.split(['?', '#']).next().unwrap_or("");
    let (scheme, rest) = match no_query.find("://") {
        Some(i) => (&no_query[..i + 3], &no_query[i + 3..]),
        None => ("", no_query),
    };
    let (authority, path) = match rest.find('/') {
        Some(i) => (&rest[..i], &rest[i..]),
        None => (rest, ""),
    };
    let authority = authority.rsplit('@').next().unwrap_or("");
    let out: String = format!("{scheme}{authority}{path}")
        .chars()
        .filter(|c| !c.is_control())
        .take(512)
        .collect();
    out
}

/// A response's headers as (lower-case name, value) pairs, for both clients (ureq's and the
/// multiplexer's hyper both answer with the `http` crate's `HeaderMap`).
pub(crate) fn header_pairs(headers: &ureq::http::HeaderMap) -> Vec<(String, String)> {
    headers
        .iter()
        .map(|(k, v)| {
            (
                k.as_str().to_ascii_lowercase(),
                String::from_utf8_lossy(v.as_bytes()).into_owned(),
            )
        })
        .collect()
}

#[cfg(test)]
mod unit {
    use super::*;
    use std::time::UNIX_EPOCH;

    #[test]
    fn retry_after_forms() {
        // 1994-11-06T08:49:37Z = 784111777; the three HTTP-date forms, and the numeric ones.
        let at = UNIX_EPOCH + Duration::from_secs(784_111_777);
        let now = at - Duration::from_secs(5);
        let h = |k: &str, v: &str| vec![(k.to_string(), v.to_string())];
        for date in [
            "Sun, 06 Nov 1994 08:49:37 GMT",
            "Sunday, 06-Nov-94 08:49:37 GMT",
            "Sun Nov  6 08:49:37 1994",
        ] {
            assert_eq!(
                retry_after(&h("retry-after", date), now),
                Some(Duration::from_secs(5)),
                "{date}"
            );
            assert_eq!(
                retry_after(&h("retry-after", date), at + Duration::from_secs(60)),
                Some(Duration::ZERO),
                "a past date: {date}"
            );
        }
        assert_eq!(retry_after(&h("retry-after", "garbage"), now), None);
        assert_eq!(
            retry_after(&h("Retry-After", "2"), now),
            Some(Duration::from_secs(2))
        );
        assert_eq!(
            retry_after(&h("retry-after-ms", "150"), now),
            Some(Duration::from_millis(150))
        );
        assert_eq!(retry_after(&h("retry-after", "-1"), now), None);
        // retry-after-ms wins; a negative one is ignored in favour of retry-after.
        let both = [("retry-after", "7"), ("RETRY-AFTER-MS", "250")];
        assert_eq!(retry_after(&both, now), Some(Duration::from_millis(250)));
        let bad_ms = [("retry-after-ms", "-5"), ("retry-after", "3")];
        assert_eq!(retry_after(&bad_ms, now), Some(Duration::from_secs(3)));
        assert_eq!(retry_after::<&str, &str>(&[], now), None);
    }

    #[test]
    fn redaction() {
        assert_eq!(
            redact_url("https://user:pw@h.example:8443/a/b?key=sk-1#x"),
            "https://h.example:8443/a/b"
        );
        let req = Request::new("http://h/p?api-key=abcdef123", "")
            .header("Authorization", "Bearer sk-secret-123");
        let s = Scrubber::for_request(&req.url, &req.headers);
        let m =
            s.scrub_message("x Bearer sk-secret-123 y sk-secret-123 ?api-key=abcdef123 abcdef123");
        assert!(
            !m.contains("sk-secret-123") && !m.contains("abcdef123"),
            "{m}"
        );
        let dbg = format!("{req:?}");
        assert!(
            !dbg.contains("sk-secret") && !dbg.contains("abcdef123"),
            "{dbg}"
        );
        assert!(dbg.contains("Authorization"), "{dbg}");
    }

    #[test]
    fn backoff_is_bounded() {
        let p = RetryPolicy {
            max_retries: 5,
            base_delay: Duration::from_millis(100),
            max_delay: Duration::from_millis(300),
            retry_budget: Duration::from_millis(500),
            retry_timeouts: false,
        };
        let mut rng = fastrand::Rng::new();
        for a in 0..5 {
            let d = next_delay(&p, a, None, Duration::ZERO, &mut rng).unwrap();
            assert!(d <= Duration::from_millis(300));
        }
        let d = next_delay(
            &p,
            0,
            Some(Duration::from_secs(5)),
            Duration::from_millis(400),
            &mut rng,
        );
        assert_eq!(d, Some(Duration::from_millis(100)));
        assert_eq!(
            next_delay(&p, 0, None, Duration::from_millis(500), &mut rng),
            None
        );
    }

    #[cfg(unix)]
    fn blocked(sig: libc::c_int) -> bool {
        // SAFETY: querying the current thread's mask into a local sigset_t.
        unsafe {
            let mut cur: libc::sigset_t = std::mem::zeroed();
            libc::pthread_sigmask(libc::SIG_BLOCK, std::ptr::null(), &mut cur);
            libc::sigismember(&cur, sig) == 1
        }
    }

    #[cfg(unix)]
    #[test]
    fn worker_threads_block_all_signals() {
        let before = blocked(libc::SIGINT);
        let (tx, rx) = mpsc::channel();
        spawn_worker(move || {
            let _ = tx.send(
                [libc::SIGINT, libc::SIGALRM, libc::SIGUSR1, libc::SIGTERM]
                    .iter()
                    .all(|s| blocked(*s)),
            );
        })
        .unwrap();
        assert!(rx.recv_timeout(Duration::from_secs(5)).unwrap());
        assert_eq!(blocked(libc::SIGINT), before, "caller's mask restored");
    }

    #[test]
    fn resolver_takes_ip_literals_as_is_and_remembers_host_names() {
        use ureq::unversioned::resolver::Resolver;
        let r = WorkerResolver::default();
        let cfg = ureq::config::Config::default();
        let resolve = |u: &str| {
            let uri: ureq::http::Uri = u.parse().unwrap();
            r.resolve(&uri, &cfg, Default::default())
                .map(|a| a.iter().map(|x| x.to_string()).collect::<Vec<_>>())
        };
        assert_eq!(
            resolve("http://127.0.0.1:8080/v1").unwrap(),
            ["127.0.0.1:8080"]
        );
        assert_eq!(resolve("https://[::1]/v1").unwrap(), ["[::1]:443"]);
        assert!(lock(&r.cache).is_empty(), "no lookup for an IP literal");
        let a = resolve("http://localhost:9/x").unwrap();
        assert!(a.iter().any(|x| x.ends_with(":9")), "{a:?}");
        assert_eq!(resolve("http://localhost:9/y").unwrap(), a);
        assert_eq!(lock(&r.cache).len(), 1, "one lookup, then the cache");
    }

    #[test]
    fn targets() {
        assert!(parse_target("http://127.0.0.1:1/x").unwrap().loopback);
        assert!(parse_target("http://[::1]:8/x").unwrap().loopback);
        assert!(!parse_target("https://api.openai.com/v1").unwrap().loopback);
        assert!(parse_target("ftp://x").is_err());
        assert!(parse_target("http:///x").is_err());
    }
}
