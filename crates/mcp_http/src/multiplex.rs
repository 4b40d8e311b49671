//! Many requests in flight at once on ONE I/O thread: the HTTP client of pg_mcp's chat workers,
//! which keep many runs waiting on their LLM requests at the same time.
//!
//! * [`Multiplexer::start`] spawns the I/O thread (every signal blocked, like the blocking
//!   client's worker threads): a tokio `current_thread` runtime with a hyper client (connection
//!   pool, HTTP/1.1, rustls with the webpki roots). It is the only thread; a request is a task on
//!   it, not a thread. DNS lookups of host names run on tokio's blocking pool (IP literals need
//!   none).
//! * [`Multiplexer::post_json`] is the same call as [`HttpClient::post_json`] (the one retry loop,
//!   the same timeouts, size cap, scrubbing and error kinds) as a future: it is pending while its
//!   attempt or backoff runs on the I/O thread, whose completion wakes the future's waker *from
//!   the I/O thread* — the caller's waker must be `Send` and do nothing but note the wake (a chat
//!   worker writes to an eventfd its main thread waits on). No PostgreSQL API is touched here.
//! * `interrupt` is called each time the future is polled: true ends the call with
//!   [`HttpErrorKind::Interrupted`] and drops the attempt (the I/O thread sees the closed reply
//!   channel and aborts the request, closing its connection). The caller polls the future again
//!   when it wants the interrupt looked at (a cancel).
//! * A request that would go through a proxy (`proxy_from_env`, a proxy variable set, a
//!   non-loopback target) is sent through the blocking client instead: correct, but it holds the
//!   calling thread for that attempt.

use crate::{
    block_on, post_with, AttemptError, Attempts, BoxFuture, ExchangeSpec, HttpClient, HttpError,
    HttpErrorKind, Options, RawResponse, Request, Response,
};
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Duration;
use tokio::sync::{mpsc, oneshot};

/// Connect budget of the I/O thread's connector (the whole attempt is bounded by the request's
/// read timeout besides).
const CONNECT_TIMEOUT: Duration = Duration::from_secs(10);

enum Job {
    Attempt {
        spec: Arc<ExchangeSpec>,
        reply: oneshot::Sender<Result<RawResponse, AttemptError>>,
    },
    Sleep {
        d: Duration,
        reply: oneshot::Sender<()>,
    },
}

/// The handle of one I/O thread. Dropping it (every clone) ends the thread once its requests
/// are done or dropped.
#[derive(Clone)]
pub struct Multiplexer {
    jobs: mpsc::UnboundedSender<Job>,
    /// For the requests that go through a proxy.
    blocking: HttpClient,
}

impl std::fmt::Debug for Multiplexer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Multiplexer")
    }
}

impl Multiplexer {
    /// Spawn the I/O thread.
    pub fn start() -> std::io::Result<Multiplexer> {
        let (jobs, mut queue) = mpsc::unbounded_channel::<Job>();
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .thread_name("mcp_http_io")
            .build()?;
        crate::spawn_worker(move || {
            rt.block_on(async move {
                let client = new_client();
                while let Some(job) = queue.recv().await {
                    match job {
                        Job::Attempt { spec, mut reply } => {
                            let client = client.clone();
                            tokio::spawn(async move {
                                tokio::select! {
                                    r = exchange(&client, &spec) => { let _ = reply.send(r); }
                                    // The caller gave up (interrupt): dropping the request
                                    // closes its connection.
                                    _ = reply.closed() => {}
                                }
                            });
                        }
                        Job::Sleep { d, mut reply } => {
                            tokio::spawn(async move {
                                tokio::select! {
                                    _ = tokio::time::sleep(d) => { let _ = reply.send(()); }
                                    _ = reply.closed() => {}
                                }
                            });
                        }
                    }
                }
            });
        })?;
        Ok(Multiplexer {
            jobs,
            blocking: HttpClient::new(),
        })
    }

    /// POST `req` as [`HttpClient::post_json`] does, without holding the calling thread while
    /// the request is under way (see the module docs).
    pub fn post_json<'a>(
        &'a self,
        req: &'a Request,
        opts: &'a Options,
        interrupt: &'a mut dyn FnMut() -> bool,
    ) -> impl Future<Output = Result<Response, HttpError>> + 'a {
        post_with(self, req, opts, interrupt)
    }

    /// The same call, driven to its end on the calling thread (tests, tools).
    pub fn post_json_blocking(
        &self,
        req: &Request,
        opts: &Options,
        interrupt: &mut dyn FnMut() -> bool,
    ) -> Result<Response, HttpError> {
        block_on(self.post_json(req, opts, interrupt))
    }
}

/// A reply from the I/O thread, or the caller's interrupt first.
struct Reply<'a, T> {
    rx: oneshot::Receiver<T>,
    interrupt: &'a mut dyn FnMut() -> bool,
}

impl<T> Future for Reply<'_, T> {
    type Output = Option<T>;
    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<T>> {
        if (self.interrupt)() {
            return Poll::Ready(None);
        }
        match Pin::new(&mut self.rx).poll(cx) {
            Poll::Ready(Ok(v)) => Poll::Ready(Some(v)),
            Poll::Ready(Err(_)) => Poll::Ready(None),
            Poll::Pending => Poll::Pending,
        }
    }
}

fn proxied(spec: &ExchangeSpec) -> bool {
    !spec.no_proxy
        && [
            "ALL_PROXY",
            "all_proxy",
            "HTTPS_PROXY",
            "https_proxy",
            "HTTP_PROXY",
            "http_proxy",
        ]
        .iter()
        .any(|v| std::env::var_os(v).is_some_and(|x| !x.is_empty()))
}

impl Attempts for Multiplexer {
    fn attempt<'a>(
        &'a self,
        spec: &'a Arc<ExchangeSpec>,
        interrupt: &'a mut dyn FnMut() -> bool,
    ) -> BoxFuture<'a, Result<RawResponse, AttemptError>> {
        if proxied(spec) {
            return self.blocking.attempt(spec, interrupt);
        }
        let (reply, rx) = oneshot::channel();
        let sent = self.jobs.send(Job::Attempt {
            spec: spec.clone(),
            reply,
        });
        Box::pin(async move {
            if sent.is_err() {
                return Err(AttemptError::new(
                    HttpErrorKind::Internal,
                    "the HTTP I/O thread is gone",
                ));
            }
            match (Reply { rx, interrupt }).await {
                Some(r) => r,
                None => Err(AttemptError::new(HttpErrorKind::Interrupted, "interrupted")),
            }
        })
    }

    fn sleep<'a>(
        &'a self,
        d: Duration,
        interrupt: &'a mut dyn FnMut() -> bool,
    ) -> BoxFuture<'a, bool> {
        let (reply, rx) = oneshot::channel();
        let sent = self.jobs.send(Job::Sleep { d, reply }).is_ok();
        Box::pin(async move { sent && (Reply { rx, interrupt }).await.is_some() })
    }
}

type Body = http_body_util::Full<bytes::Bytes>;
type Client = hyper_util::client::legacy::Client<
    hyper_rustls::HttpsConnector<hyper_util::client::legacy::connect::HttpConnector>,
    Body,
>;

fn new_client() -> Client {
    let mut http = hyper_util::client::legacy::connect::HttpConnector::new();
    http.enforce_http(false);
    http.set_nodelay(true);
    http.set_connect_timeout(Some(CONNECT_TIMEOUT));
    // The ring provider supports its default protocol versions: the builder cannot fail.
    let tls = rustls::ClientConfig::builder_with_provider(Arc::new(
        rustls::crypto::ring::default_provider(),
    ))
    .with_safe_default_protocol_versions()
    .expect("ring supports the default TLS versions");
    let tls = hyper_rustls::ConfigBuilderExt::with_webpki_roots(tls).with_no_client_auth();
    let https = hyper_rustls::HttpsConnectorBuilder::new()
        .with_tls_config(tls)
        .https_or_http()
        .enable_http1()
        .wrap_connector(http);
    hyper_util::client::legacy::Client::builder(hyper_util::rt::TokioExecutor::new())
        .pool_idle_timeout(Duration::from_secs(30))
        .pool_max_idle_per_host(256)
        .build(https)
}

/// One attempt on the I/O thread: the same request, limits and error kinds as the blocking
/// client's.
async fn exchange(client: &Client, spec: &ExchangeSpec) -> Result<RawResponse, AttemptError> {
    let read_timeout = spec.read_timeout;
    match tokio::time::timeout(read_timeout, exchange_inner(client, spec)).await {
        Ok(r) => r,
        Err(_) => Err(AttemptError::new(
            HttpErrorKind::Timeout,
            format!(
                "no complete response within the read timeout of {} ms",
                read_timeout.as_millis()
            ),
        )),
    }
}

async fn exchange_inner(client: &Client, spec: &ExchangeSpec) -> Result<RawResponse, AttemptError> {
    use http_body_util::BodyExt;
    let mut builder = hyper::Request::post(spec.url.as_str());
    let mut has_content_type = false;
    for (name, value) in &spec.headers {
        if name.eq_ignore_ascii_case("content-type") {
            has_content_type = true;
        }
        builder = builder.header(name.as_str(), value.as_str());
    }
    if !has_content_type {
        builder = builder.header("content-type", "application/json");
    }
    builder = builder.header("user-agent", concat!("pg_mcp/", env!("CARGO_PKG_VERSION")));
    let request = builder
        .body(Body::new(bytes::Bytes::from(spec.body.clone())))
        .map_err(|_| {
            AttemptError::new(
                HttpErrorKind::InvalidRequest,
                "invalid request (URL, header name or value)",
            )
        })?;
    let response = client.request(request).await.map_err(classify)?;
    let status = response.status().as_u16();
    let headers = crate::header_pairs(response.headers());
    let max_bytes = spec.max_bytes;
    let mut body = response.into_body();
    let mut buf: Vec<u8> = Vec::new();
    while let Some(frame) = body.frame().await {
        let frame = frame.map_err(|e| {
            AttemptError::new(
                HttpErrorKind::Network,
                format!("reading response body: {}", short(&e)),
            )
        })?;
        if let Ok(data) = frame.into_data() {
            if buf.len().saturating_add(data.len()) > max_bytes {
                return Err(AttemptError::new(
                    HttpErrorKind::TooLarge,
                    format!("response body exceeds the limit of {max_bytes} bytes"),
                ));
            }
            buf.extend_from_slice(&data);
        }
    }
    Ok(RawResponse {
        status,
        headers,
        body: buf,
    })
}

/// An error's text without its sources' details that could name the request (hyper's messages
/// hold no header values or URLs).
fn short(e: &dyn std::error::Error) -> String {
    let mut s = e.to_string();
    let mut src = e.source();
    let mut n = 0;
    while let Some(x) = src {
        s.push_str(": ");
        s.push_str(&x.to_string());
        src = x.source();
        n += 1;
        if n >= 3 {
            break;
        }
    }
    s.chars().take(300).collect()
}

fn classify(e: hyper_util::client::legacy::Error) -> AttemptError {
    let text = short(&e);
    if e.is_connect() {
        let lower = text.to_ascii_lowercase();
        if lower.contains("certificate") || lower.contains("tls") || lower.contains("handshake") {
            return AttemptError::new(HttpErrorKind::Tls, format!("TLS error: {text}"));
        }
        if lower.contains("timed out") || lower.contains("timeout") {
            return AttemptError::new(
                HttpErrorKind::Timeout,
                format!("connect timed out after {} ms", CONNECT_TIMEOUT.as_millis()),
            );
        }
        if lower.contains("refused") {
            return AttemptError::new(HttpErrorKind::Connect, "connection refused");
        }
        return AttemptError::new(HttpErrorKind::Connect, format!("could not connect: {text}"));
    }
    AttemptError::new(HttpErrorKind::Network, text)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::RetryPolicy;
    use std::io::{BufRead, BufReader, Read, Write};
    use std::net::{TcpListener, TcpStream};
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::task::{Wake, Waker};

    struct Count(AtomicUsize, std::thread::Thread);
    impl Wake for Count {
        fn wake(self: Arc<Self>) {
            self.0.fetch_add(1, Ordering::SeqCst);
            self.1.unpark();
        }
    }

    fn opts() -> Options {
        Options {
            retry: RetryPolicy::none(),
            read_timeout: Duration::from_secs(60),
            ..Options::default()
        }
    }

    /// Read one request (headers, then a content-length body).
    fn read_request(s: &TcpStream) -> String {
        let mut r = BufReader::new(s.try_clone().unwrap());
        let mut len = 0;
        loop {
            let mut line = String::new();
            if r.read_line(&mut line).unwrap_or(0) == 0 || line == "\r\n" {
                break;
            }
            if let Some(v) = line.to_ascii_lowercase().strip_prefix("content-length:") {
                len = v.trim().parse().unwrap_or(0);
            }
        }
        let mut body = vec![0; len];
        r.read_exact(&mut body).unwrap();
        String::from_utf8(body).unwrap()
    }

    /// A server that answers nothing until `n` requests are in, then answers them all (each
    /// with its own body). A client that has fewer than `n` requests in flight at once never
    /// gets an answer: the server gives up after 60 s and the call fails.
    fn all_at_once(n: usize) -> String {
        let l = TcpListener::bind("127.0.0.1:0").unwrap();
        let url = format!("http://{}/v1/chat/completions", l.local_addr().unwrap());
        std::thread::spawn(move || {
            l.set_nonblocking(true).unwrap();
            let end = std::time::Instant::now() + Duration::from_secs(60);
            let mut held = Vec::new();
            while held.len() < n && std::time::Instant::now() < end {
                match l.accept() {
                    Ok((s, _)) => {
                        s.set_nonblocking(false).unwrap();
                        let body = read_request(&s);
                        held.push((s, body));
                    }
                    Err(_) => std::thread::sleep(Duration::from_millis(5)),
                }
            }
            if held.len() < n {
                return; // dropped: the held connections close unanswered
            }
            for (mut s, body) in held {
                let _ = write!(
                    s,
                    "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{}",
                    body.len(),
                    body
                );
            }
        });
        url
    }

    /// Twenty requests in flight at once on the one I/O thread: the server answers only when all
    /// twenty are in, and every call gets its own answer.
    #[test]
    fn many_requests_in_flight_on_one_thread() {
        let url = all_at_once(20);
        let mux = Multiplexer::start().unwrap();
        let reqs: Vec<Request> = (0..20)
            .map(|i| Request::new(url.clone(), format!("{{\"n\":{i}}}")))
            .collect();
        let o = opts();
        let mut flags: Vec<Box<dyn FnMut() -> bool>> = (0..20)
            .map(|_| Box::new(|| false) as Box<dyn FnMut() -> bool>)
            .collect();
        let mut futs: Vec<Pin<Box<dyn Future<Output = Result<Response, HttpError>> + '_>>> =
            Vec::new();
        for (r, f) in reqs.iter().zip(flags.iter_mut()) {
            futs.push(Box::pin(mux.post_json(r, &o, &mut **f)));
        }
        let woken = Arc::new(Count(AtomicUsize::new(0), std::thread::current()));
        let waker = Waker::from(woken.clone());
        let mut cx = Context::from_waker(&waker);
        let mut done: Vec<Option<Result<Response, HttpError>>> = (0..20).map(|_| None).collect();
        while done.iter().any(Option::is_none) {
            for (i, f) in futs.iter_mut().enumerate() {
                if done[i].is_none() {
                    if let Poll::Ready(r) = f.as_mut().poll(&mut cx) {
                        done[i] = Some(r);
                    }
                }
            }
            if done.iter().any(Option::is_none) {
                std::thread::park();
            }
        }
        for (i, r) in done.into_iter().enumerate() {
            let r = r.unwrap().unwrap();
            assert_eq!(r.status, 200);
            assert_eq!(r.text(), format!("{{\"n\":{i}}}"));
        }
        assert!(
            woken.0.load(Ordering::SeqCst) > 0,
            "woken from the I/O thread"
        );
    }

    /// An interrupt ends a call in flight at its next poll, with the blocking client's kind.
    #[test]
    fn interrupt_ends_a_call_in_flight() {
        let url = all_at_once(2); // one request never completes the pair
        let mux = Multiplexer::start().unwrap();
        let req = Request::new(url, "{}");
        let mut polls = 0;
        let mut stop = move || {
            polls += 1;
            polls > 3
        };
        let e = mux
            .post_json_blocking(&req, &opts(), &mut stop)
            .unwrap_err();
        assert_eq!(e.kind, HttpErrorKind::Interrupted, "{e}");
    }

    /// Errors come out as the blocking client's kinds.
    #[test]
    fn connect_refused_is_connect() {
        let port = TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        let mux = Multiplexer::start().unwrap();
        let req = Request::new(format!("http://127.0.0.1:{port}/x"), "{}");
        let e = mux
            .post_json_blocking(&req, &opts(), &mut || false)
            .unwrap_err();
        assert_eq!(e.kind, HttpErrorKind::Connect, "{e}");
    }

    /// The size cap holds on this path too.
    #[test]
    fn body_over_the_cap_is_too_large() {
        let url = all_at_once(1);
        let mux = Multiplexer::start().unwrap();
        let req = Request::new(url, "x".repeat(100));
        let o = Options {
            max_response_bytes: 10,
            ..opts()
        };
        let e = mux.post_json_blocking(&req, &o, &mut || false).unwrap_err();
        assert_eq!(e.kind, HttpErrorKind::TooLarge, "{e}");
    }
}
