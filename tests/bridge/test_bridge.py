"""Hostile clients against pg_mcp_bridge (issue 20, items 9-17), with real sockets, the real
binary and a real PostgreSQL. Run by tests/bridge/run.sh (which sets BRIDGE, PSQL, PG*,
PG_MCP_JWT_SECRET, OPAQUE_TOKEN). Each test starts the bridges it needs and says PASS or FAIL.

  python3 test_bridge.py [test names…]
"""
import base64
import hashlib
import hmac
import http.client
import json
import os
import select
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time

BRIDGE = os.environ["BRIDGE"]
PSQL = os.environ["PSQL"]
SECRET = os.environ["PG_MCP_JWT_SECRET"].encode()
OPAQUE = os.environ["OPAQUE_TOKEN"]
AUTH = "mcp_b_auth"


def b64(b):
    return base64.urlsafe_b64encode(b).rstrip(b"=").decode()


def jwt(claims, header=None):
    h = b64(json.dumps(header or {"alg": "HS256", "typ": "JWT"}).encode())
    p = b64(json.dumps(claims).encode())
    s = b64(hmac.new(SECRET, f"{h}.{p}".encode(), hashlib.sha256).digest())
    return f"{h}.{p}.{s}"


TOKEN_A = jwt({"role": "mcp_b_a"})
TOKEN_B = jwt({"role": "mcp_b_b"})


def psql(sql):
    return subprocess.run([PSQL, "-XAtq", "-U", "postgres", "-c", sql], check=True,
                          capture_output=True, text=True).stdout.strip()


def busy_backends():
    """Backends of the authenticator still running a statement."""
    return int(psql(f"SELECT count(*) FROM pg_stat_activity WHERE usename = '{AUTH}' "
                    "AND state = 'active' AND pid <> pg_backend_pid()"))


def wait_until(cond, timeout):
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if cond():
            return True
        time.sleep(0.1)
    return cond()


def status_kb(pid, field):
    for line in open(f"/proc/{pid}/status"):
        if line.startswith(field + ":"):
            return int(line.split()[1])
    return 0


class Bridge:
    """An HTTP bridge (or, with stdio=True, a stdio one) with extra arguments."""

    def __init__(self, *args, stdio=False, user=AUTH):
        self.log = tempfile.NamedTemporaryFile("w+", prefix="bridge_", suffix=".log")
        env = dict(os.environ, PGUSER=user)
        if stdio:
            self.p = subprocess.Popen([BRIDGE, "stdio", *args], env=env, stdin=subprocess.PIPE,
                                      stdout=subprocess.PIPE, stderr=self.log)
            return
        self.p = subprocess.Popen([BRIDGE, "http", "--listen", "127.0.0.1:0", *args], env=env,
                                  stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                  stderr=self.log)
        for _ in range(200):
            text = self.text()
            if "Streamable HTTP on http://" in text:
                addr = text.split("Streamable HTTP on http://")[1].split("/")[0]
                self.host, port = addr.rsplit(":", 1)
                self.port = int(port)
                return
            if self.p.poll() is not None:
                break
            time.sleep(0.05)
        raise RuntimeError("bridge did not start: " + self.text())

    def text(self):
        self.log.flush()
        with open(self.log.name) as f:
            return f.read()

    def rss_kb(self):
        return status_kb(self.p.pid, "VmRSS")

    def hwm_kb(self):
        return status_kb(self.p.pid, "VmHWM")

    def stop(self):
        if self.p.poll() is None:
            self.p.send_signal(signal.SIGTERM)
            try:
                self.p.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.p.kill()
                self.p.wait()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.stop()


class Client:
    """One keep-alive HTTP connection and an MCP session."""

    def __init__(self, bridge, token, version="2025-06-18", timeout=60):
        self.b, self.token, self.version = bridge, token, version
        self.c = http.client.HTTPConnection(bridge.host, bridge.port, timeout=timeout)
        self.session = None
        self.next_id = 0

    def post(self, body, headers=None, token=None):
        h = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream",
             "Authorization": f"Bearer {token or self.token}"}
        if self.session:
            h["Mcp-Session-Id"] = self.session
            h["MCP-Protocol-Version"] = self.version
        h.update(headers or {})
        body = body if isinstance(body, (bytes, str)) else json.dumps(body)
        try:
            self.c.request("POST", "/mcp", body, h)
            r = self.c.getresponse()
        except (BrokenPipeError, ConnectionResetError, http.client.RemoteDisconnected):
            # the bridge closed the kept-alive connection (idle timeout): a new one
            self.c.close()
            self.c.request("POST", "/mcp", body, h)
            r = self.c.getresponse()
        data = r.read()
        try:
            data = json.loads(data) if data else None
        except ValueError:
            pass
        return r.status, r, data

    def initialize(self):
        self.session = None
        st, r, data = self.post({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
            "protocolVersion": self.version, "capabilities": {},
            "clientInfo": {"name": "tests/bridge", "version": "1"}}})
        if st != 200:
            return st, data
        self.session = r.getheader("Mcp-Session-Id")
        self.post({"jsonrpc": "2.0", "method": "notifications/initialized"})
        return st, data

    def request(self, method, params=None, **kw):
        self.next_id += 1
        msg = {"jsonrpc": "2.0", "id": self.next_id, "method": method}
        if params is not None:
            msg["params"] = params
        return self.post(msg, **kw)

    def sql(self, query):
        return self.request("tools/call", {"name": "sql_query", "arguments": {"query": query}})


def raw_post(bridge, session, body, token=TOKEN_A, extra=b""):
    """A socket with one whole POST sent (the caller reads or hangs up)."""
    s = socket.create_connection((bridge.host, bridge.port))
    body = json.dumps(body).encode()
    s.sendall(b"POST /mcp HTTP/1.1\r\nHost: %s:%d\r\nContent-Type: application/json\r\n"
              b"Accept: application/json, text/event-stream\r\nAuthorization: Bearer %s\r\n"
              b"Mcp-Session-Id: %s\r\nMCP-Protocol-Version: 2025-06-18\r\n%s"
              b"Content-Length: %d\r\n\r\n" % (bridge.host.encode(), bridge.port, token.encode(),
                                               session.encode(), extra, len(body)) + body)
    return s


SLEEP_CALL = lambda i, secs: {"jsonrpc": "2.0", "id": 1000 + i, "method": "tools/call", "params": {
    "name": "sql_query", "arguments": {"query": f"SELECT pg_sleep({secs})"}}}


# ---------------------------------------------------------------------------------------------
# item 9: a client that hangs up during tools/call

def test_hangup_cancels_the_query():
    with Bridge() as b:
        c = Client(b, TOKEN_A)
        assert c.initialize()[0] == 200
        socks = [raw_post(b, c.session, SLEEP_CALL(i, 30)) for i in range(12)]
        time.sleep(1.5)
        assert busy_backends() > 0, "the slow calls did not start"
        for s in socks:
            s.close()
        assert wait_until(lambda: busy_backends() == 0, 5), \
            f"{busy_backends()} backends still busy after 12 hang-ups"
        # the slots are free again: a call runs at once
        t0 = time.monotonic()
        st, _, data = c.request("ping")
        assert st == 200 and time.monotonic() - t0 < 2, (st, data, time.monotonic() - t0)
        n = int(psql(f"SELECT count(*) FROM pg_stat_activity WHERE usename = '{AUTH}'"))
        assert n <= 8 + 2 + 1, f"{n} connections of the authenticator"


# ---------------------------------------------------------------------------------------------
# the stateless 2026-07-28 path: no session, the same limits

MODERN_META = {"io.modelcontextprotocol/protocolVersion": "2026-07-28",
               "io.modelcontextprotocol/clientCapabilities": {"elicitation": {}}}


def modern_post(bridge, body, token=TOKEN_A):
    """A socket with one whole stateless POST sent (the caller reads or hangs up)."""
    s = socket.create_connection((bridge.host, bridge.port))
    body = dict(body)
    body["params"] = dict(body.get("params", {}), _meta=MODERN_META)
    name = body["params"].get("name")
    extra = b"Mcp-Name: %s\r\n" % name.encode() if name else b""
    raw = json.dumps(body).encode()
    s.sendall(b"POST /mcp HTTP/1.1\r\nHost: %s:%d\r\nContent-Type: application/json\r\n"
              b"Accept: application/json, text/event-stream\r\nAuthorization: Bearer %s\r\n"
              b"MCP-Protocol-Version: 2026-07-28\r\nMcp-Method: %s\r\n%s"
              b"Content-Length: %d\r\n\r\n" % (bridge.host.encode(), bridge.port, token.encode(),
                                               body["method"].encode(), extra, len(raw)) + raw)
    return s


def read_response(s, timeout=10):
    s.settimeout(timeout)
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = s.recv(65536)
        if not chunk:
            break
        data += chunk
    head, _, rest = data.partition(b"\r\n\r\n")
    return int(head.split()[1]), head, rest


def test_modern_hangup_cancels_the_query():
    with Bridge() as b:
        socks = [modern_post(b, SLEEP_CALL(i, 30)) for i in range(12)]
        assert wait_until(lambda: busy_backends() > 0, 5), "the slow calls did not start"
        for s in socks:
            s.close()
        assert wait_until(lambda: busy_backends() == 0, 5), \
            f"{busy_backends()} backends still busy after 12 stateless hang-ups"
        s = modern_post(b, {"jsonrpc": "2.0", "id": 1, "method": "tools/list"})
        t0 = time.monotonic()
        st, _, _ = read_response(s)
        s.close()
        assert st == 200 and time.monotonic() - t0 < 2, (st, time.monotonic() - t0)


def test_modern_flood_of_one_role_does_not_starve_another():
    with Bridge() as b:
        socks = [modern_post(b, SLEEP_CALL(i, 4)) for i in range(40)]
        assert wait_until(lambda: busy_backends() >= 4, 5), "role A did not saturate"
        lat = []
        for i in range(10):
            t0 = time.monotonic()
            s = modern_post(b, {"jsonrpc": "2.0", "id": i, "method": "tools/list"}, token=TOKEN_B)
            st, _, _ = read_response(s)
            s.close()
            lat.append(time.monotonic() - t0)
            assert st == 200, st
        busy = busy_backends()
        n = int(psql(f"SELECT count(*) FROM pg_stat_activity WHERE usename = '{AUTH}'"))
        for s in socks:
            s.close()
        print(f"    role B latency while 40 stateless calls of role A wait: max {max(lat) * 1000:.0f} ms "
              f"({busy} backends busy, {n} connections)")
        # role A holds its share (4 of 8), never more; the pool stays bounded
        assert 4 <= busy <= 5, busy
        assert n <= 8 + 2 + 1, f"{n} connections of the authenticator"
        assert max(lat) < 1.0, lat


def test_input_waits_hold_no_backend():
    """2025-11-25 calls whose tool asks for input wait in the bridge for the client's answer
    (elicitation/create on the SSE answer): 30 of them hold no database connection."""
    with Bridge() as b:
        c = Client(b, TOKEN_A)
        c.version = "2025-11-25"
        st, r, _ = c.post({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
            "protocolVersion": "2025-11-25", "capabilities": {"elicitation": {}},
            "clientInfo": {"name": "tests/bridge", "version": "1"}}})
        assert st == 200, st
        c.session = r.getheader("Mcp-Session-Id")
        socks = []
        for i in range(30):
            s = socket.create_connection((b.host, b.port))
            raw = json.dumps({"jsonrpc": "2.0", "id": 500 + i, "method": "tools/call",
                              "params": {"name": "ask_b", "arguments": {}}}).encode()
            s.sendall(b"POST /mcp HTTP/1.1\r\nHost: %s:%d\r\nContent-Type: application/json\r\n"
                      b"Accept: application/json, text/event-stream\r\nAuthorization: Bearer %s\r\n"
                      b"Mcp-Session-Id: %s\r\nMCP-Protocol-Version: 2025-11-25\r\n"
                      b"Content-Length: %d\r\n\r\n" % (b.host.encode(), b.port, TOKEN_A.encode(),
                                                       c.session.encode(), len(raw)) + raw)
            socks.append(s)
        # each got its server-to-client request
        first = None
        for s in socks:
            s.settimeout(10)
            data = b""
            while b"elicitation/create" not in data:
                chunk = s.recv(65536)
                assert chunk, data
                data += chunk
            if first is None:
                line = [l for l in data.split(b"\n") if b"elicitation/create" in l][0]
                first = (s, json.loads(line.split(b"data:", 1)[1]))
        # (a previous test's cancelled statements may still be ending)
        assert wait_until(lambda: busy_backends() == 0, 8), busy_backends()
        n = int(psql(f"SELECT count(*) FROM pg_stat_activity WHERE usename = '{AUTH}' AND state LIKE 'idle in%'"))
        assert n == 0, f"{n} connections idle in a transaction while clients think"
        st, _, data = c.request("ping")
        assert st == 200, (st, data)
        # the answer of one: its call continues and ends with the tool's result
        s, req = first
        st, _, data = c.post({"jsonrpc": "2.0", "id": req["id"], "result": {"action": "accept", "content": {}}})
        assert st == 202, (st, data)
        rest = b""
        while b'"answered' not in rest:
            chunk = s.recv(65536)
            assert chunk, rest
            rest += chunk
        assert b"accept" in rest, rest
        # an answer to a request nobody sent is no answer: it goes to mcp.handle (202, nothing)
        st, _, _ = c.post({"jsonrpc": "2.0", "id": "pg_mcp-999999", "result": {"action": "accept"}})
        assert st == 202, st
        for s in socks:
            s.close()


def test_cancelled_notification_cancels_over_http():
    with Bridge() as b:
        c = Client(b, TOKEN_A)
        assert c.initialize()[0] == 200
        out = {}

        def slow():
            c2 = Client(b, TOKEN_A)
            c2.session = c.session
            t0 = time.monotonic()
            out["r"] = c2.post(SLEEP_CALL(7, 30))
            out["t"] = time.monotonic() - t0

        t = threading.Thread(target=slow)
        t.start()
        assert wait_until(lambda: busy_backends() == 1, 5), "the slow call did not start"
        st, _, _ = c.post({"jsonrpc": "2.0", "method": "notifications/cancelled",
                           "params": {"requestId": 1007, "reason": "user"}})
        assert st == 202, st
        t.join(10)
        assert not t.is_alive() and out["t"] < 5, out
        assert wait_until(lambda: busy_backends() == 0, 3), "the cancelled call still runs"
        # the operator's log keeps the SQLSTATE
        assert "SQLSTATE 57014" in b.text(), b.text()
        # a request cancelled while it waits for its role's share does not run at all
        socks = [raw_post(b, c.session, SLEEP_CALL(i, 30)) for i in range(4)]
        assert wait_until(lambda: busy_backends() == 4, 5), "role A did not saturate"
        t = threading.Thread(target=slow)
        out.clear()
        t.start()
        time.sleep(0.5)
        st, _, _ = c.post({"jsonrpc": "2.0", "method": "notifications/cancelled",
                           "params": {"requestId": 1007}})
        assert st == 202, st
        for s in socks:
            s.close()
        t.join(10)
        assert not t.is_alive(), "the queued call was not cancelled"
        st, _, data = out["r"]
        assert data["error"]["code"] == -32800, data
        assert wait_until(lambda: busy_backends() == 0, 5), "the queued call ran"


# ---------------------------------------------------------------------------------------------
# item 10: the session table

def test_session_flood_does_not_lock_out_others():
    with Bridge() as b:
        first = Client(b, TOKEN_A)
        assert first.initialize()[0] == 200
        errors = []

        def flood(n):
            c = Client(b, TOKEN_A)
            for _ in range(n):
                st, _ = c.initialize()
                if st != 200:
                    errors.append(st)
                    return

        threads = [threading.Thread(target=flood, args=(2500,)) for _ in range(4)]
        t0 = time.monotonic()
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        print(f"    10,000 initialize from one token in {time.monotonic() - t0:.1f} s")
        assert not errors, f"the flooding role's own initialize failed: {errors[:3]}"
        other = Client(b, TOKEN_B)
        st, data = other.initialize()
        assert st == 200 and other.session, (st, data)
        assert other.request("ping")[0] == 200
        # the flooder lost its own oldest session, not the others'
        assert first.request("ping")[0] == 404


def test_idle_sessions_expire():
    with Bridge("--session-idle-timeout", "1") as b:
        c = Client(b, TOKEN_A)
        assert c.initialize()[0] == 200
        assert c.request("ping")[0] == 200
        time.sleep(2.5)
        assert c.request("ping")[0] == 404


# ---------------------------------------------------------------------------------------------
# item 11: one role saturating, another role's latency, authentication included

def test_one_role_does_not_starve_another():
    with Bridge() as b:
        b_client = Client(b, TOKEN_B)
        assert b_client.initialize()[0] == 200
        a = Client(b, TOKEN_A)
        assert a.initialize()[0] == 200
        socks = [raw_post(b, a.session, SLEEP_CALL(i, 4)) for i in range(8)]
        assert wait_until(lambda: busy_backends() >= 4, 5), "role A did not saturate"
        lat = []
        for _ in range(10):
            t0 = time.monotonic()
            st, _, _ = b_client.request("ping")
            lat.append(time.monotonic() - t0)
            assert st == 200, st
        # opaque-token authentication needs a database lookup: it has connections of its own
        for _ in range(3):
            fresh = Client(b, OPAQUE)
            fresh.session = b_client.session
            t0 = time.monotonic()
            st, _, data = fresh.request("ping")
            lat.append(time.monotonic() - t0)
            assert st == 200, (st, data)
        still = busy_backends()
        for s in socks:
            s.close()
        print(f"    role B latency while role A saturates: max {max(lat) * 1000:.0f} ms "
              f"({still} backends busy with role A)")
        assert still >= 4, "role A's calls ended before the measurement did"
        assert max(lat) < 1.0, lat


# ---------------------------------------------------------------------------------------------
# item 12: work before authentication, timeouts

def test_unauthenticated_bodies_are_not_buffered():
    with Bridge() as b:
        c = Client(b, TOKEN_A)
        assert c.initialize()[0] == 200
        base = b.rss_kb()
        size = 1_990_000
        head = (b"POST /mcp HTTP/1.1\r\nHost: %s:%d\r\nContent-Type: application/json\r\n"
                b"Content-Length: %d\r\n\r\n" % (b.host.encode(), b.port, size))
        socks = []
        for _ in range(200):
            s = socket.create_connection((b.host, b.port))
            s.sendall(head)
            s.setblocking(False)
            socks.append([s, 0])
        chunk = b"x" * 65536
        end = time.monotonic() + 30
        while socks and time.monotonic() < end:
            _, w, _ = select.select([], [s for s, _ in socks], [], 1)
            for entry in list(socks):
                s, sent = entry
                if s not in w:
                    continue
                try:
                    entry[1] += s.send(chunk[: size - sent])
                except OSError:
                    entry[1] = size
                if entry[1] >= size:
                    socks.remove(entry)
                    s.close()
        for s, _ in socks:
            s.close()
        peak = b.hwm_kb()
        print(f"    bridge RSS {base // 1024} MB before, peak {peak // 1024} MB after 200 "
              "unauthenticated ~2 MB bodies")
        assert peak - base < 64 * 1024, (base, peak)
        # and an authenticated body over the limit is refused by its Content-Length, unread
        s = socket.create_connection((b.host, b.port))
        s.sendall(b"POST /mcp HTTP/1.1\r\nHost: %s:%d\r\nAuthorization: Bearer %s\r\n"
                  b"Content-Type: application/json\r\nContent-Length: %d\r\n\r\n"
                  % (b.host.encode(), b.port, TOKEN_A.encode(), 4 * 1024 * 1024 + 1))
        s.settimeout(5)
        answer = s.recv(4096)
        assert b" 413 " in answer.split(b"\r\n")[0], answer


def test_slow_headers_and_bodies_time_out():
    with Bridge("--header-timeout", "2", "--body-timeout", "2") as b:
        socks = []
        for _ in range(300):
            s = socket.create_connection((b.host, b.port))
            s.sendall(b"POST /mcp HTTP/1.1\r\nHost: x\r\n")
            socks.append(s)
        t0 = time.monotonic()
        closed = set()
        while time.monotonic() - t0 < 5 and len(closed) < len(socks):
            for i, s in enumerate(socks):
                if i in closed:
                    continue
                try:
                    s.sendall(b"X-Slow: 1\r\n")
                    r, _, _ = select.select([s], [], [], 0)
                    if r and not s.recv(4096):
                        closed.add(i)
                except OSError:
                    closed.add(i)
            time.sleep(0.5)
        for s in socks:
            s.close()
        print(f"    {len(closed)} of 300 slowloris connections closed within "
              f"{time.monotonic() - t0:.1f} s")
        assert len(closed) == 300, len(closed)
        # an idle kept-alive connection is closed too
        c = Client(b, TOKEN_A)
        assert c.initialize()[0] == 200
        s = c.c.sock
        r, _, _ = select.select([s], [], [], 4)
        assert r and not s.recv(1), "an idle connection stayed open"
        # a body that does not come
        c = Client(b, TOKEN_A)
        assert c.initialize()[0] == 200
        s = raw_post(b, c.session, {"jsonrpc": "2.0", "id": 1, "method": "ping"})
        s.close()
        s = socket.create_connection((b.host, b.port))
        s.sendall(b"POST /mcp HTTP/1.1\r\nHost: %s:%d\r\nAuthorization: Bearer %s\r\n"
                  b"Content-Type: application/json\r\nContent-Length: 100\r\n\r\n{\"a"
                  % (b.host.encode(), b.port, TOKEN_A.encode()))
        s.settimeout(6)
        t0 = time.monotonic()
        answer = s.recv(4096)
        assert b" 408 " in answer.split(b"\r\n")[0] and time.monotonic() - t0 < 4, answer


# ---------------------------------------------------------------------------------------------
# item 13: batches

def ping_batch(n):
    return [{"jsonrpc": "2.0", "id": i, "method": "ping"} for i in range(n)]


def test_batches_only_in_2025_03_26_and_capped():
    with Bridge() as b:
        for version in ("2025-06-18", "2025-11-25"):
            c = Client(b, TOKEN_A, version=version)
            assert c.initialize()[0] == 200
            st, _, data = c.post(ping_batch(2))
            assert st == 400 and data["error"]["code"] == -32600, (version, st, data)
        c = Client(b, TOKEN_A, version="2025-03-26")
        assert c.initialize()[0] == 200
        st, _, data = c.post(ping_batch(2))
        assert st == 200 and isinstance(data, list) and len(data) == 2, (st, data)
        st, _, data = c.post(ping_batch(17))
        assert st == 400 and data["error"]["code"] == -32600, (st, data)
    # stdio too
    with Bridge(stdio=True, user="mcp_b_user") as b:
        out = stdio_exchange(b, [init_line("2025-06-18"), json.dumps(ping_batch(2))])
        assert out[-1]["error"]["code"] == -32600, out


def init_line(version):
    return json.dumps({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": version, "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}})


def stdio_exchange(b, lines, raw=b""):
    """Send lines (and raw bytes) to a stdio bridge; one answer per line expected."""
    for line in lines:
        b.p.stdin.write(line.encode() + b"\n")
    b.p.stdin.write(raw)
    b.p.stdin.flush()
    out = []
    for _ in range(len(lines) + raw.count(b"\n")):
        line = b.p.stdout.readline()
        assert line, f"the bridge closed stdout (exit {b.p.poll()}): {b.text()}"
        out.append(json.loads(line))
    return out


# ---------------------------------------------------------------------------------------------
# item 14: role claims that would leave the request running as the authenticator

def test_role_claims_must_name_another_role():
    with Bridge() as b:
        for role in ("none", AUTH, "NONE", "mcp_b_nobody", "postgres"):
            c = Client(b, jwt({"role": role}))
            st, data = c.initialize()
            assert st == 403, (role, st, data)
        c = Client(b, TOKEN_A)
        assert c.initialize()[0] == 200
        st, _, data = c.sql("SELECT count(*) FROM mcp.bridge_token")
        assert st == 200 and data["result"]["isError"], data
        assert "authenticator owns" not in b.text(), b.text()
    # an authenticator that owns something is told at start
    psql(f"CREATE TABLE public.owned_by_auth (x int); ALTER TABLE public.owned_by_auth OWNER TO {AUTH}")
    try:
        with Bridge() as b2:
            assert "the authenticator owns 1 objects" in b2.text(), b2.text()
    finally:
        psql("DROP TABLE public.owned_by_auth")
    with Bridge() as b:
        c = Client(b, TOKEN_A)
        assert c.initialize()[0] == 200
        # nor can the tool's SQL go back to the authenticator (RESET ROLE) to read it
        st, _, data = c.sql("SELECT set_config('role', 'none', true), "
                            "(SELECT count(*) FROM mcp.bridge_token)")
        assert st == 200 and data["result"]["isError"], data


# ---------------------------------------------------------------------------------------------
# item 15: bad bytes

def test_nul_and_bad_bytes_are_client_errors():
    with Bridge() as b:
        c = Client(b, TOKEN_A)
        assert c.initialize()[0] == 200
        st, _, data = c.request("ping", {"x": "a\u0000b"})
        assert st == 400 and data["error"]["code"] == -32600, (st, data)
        st, _, data = c.request("tools/call", {"name": "sql_query", "arguments": {"q\u0000": 1}})
        assert st == 400 and data["error"]["code"] == -32600, (st, data)
        st, data = Client(b, jwt({"role": "mcp_b_a\u0000x"})).initialize()
        assert st == 400 and data["error"]["code"] == -32600, (st, data)
    with Bridge(stdio=True, user="mcp_b_user") as b:
        out = stdio_exchange(b, [init_line("2025-06-18"),
                                 json.dumps({"jsonrpc": "2.0", "id": 2, "method": "ping",
                                             "params": {"x": "\u0000"}})],
                             raw=b'{"jsonrpc":"2.0","id":3,"method":"ping","x":"\xff"}\n'
                                 b'{"jsonrpc":"2.0","id":4,"method":"ping"}\n')
        assert out[1]["error"]["code"] == -32600, out
        assert out[2]["error"]["code"] == -32700 and out[2]["id"] is None, out
        assert out[3]["id"] == 4 and out[3]["result"] == {}, out
        assert b.p.poll() is None, "the bridge ended"


# ---------------------------------------------------------------------------------------------
# item 16: stdio bounds and SIGTERM

def test_stdio_long_line_is_bounded():
    with Bridge(stdio=True, user="mcp_b_user") as b:
        stdio_exchange(b, [init_line("2025-06-18")])
        base = b.rss_kb()
        b.p.stdin.write(b'{"jsonrpc":"2.0","id":1,"method":"ping","params":{"x":"')
        chunk = b"a" * (1 << 20)
        for _ in range(256):
            b.p.stdin.write(chunk)
        b.p.stdin.write(b'"}}\n{"jsonrpc":"2.0","id":2,"method":"ping"}\n')
        b.p.stdin.flush()
        r1 = json.loads(b.p.stdout.readline())
        r2 = json.loads(b.p.stdout.readline())
        peak = b.hwm_kb()
        print(f"    stdio bridge RSS {base // 1024} MB before, peak {peak // 1024} MB after a "
              "256 MiB line")
        assert r1["error"]["code"] == -32600 and r2["id"] == 2 and r2["result"] == {}, (r1, r2)
        assert peak - base < 64 * 1024, (base, peak)


def test_stdio_queue_is_bounded_and_sigterm_works_while_the_client_does_not_read():
    with Bridge(stdio=True, user="mcp_b_user") as b:
        stdio_exchange(b, [init_line("2025-06-18")])
        base = b.rss_kb()
        line = b'{"jsonrpc":"2.0","id":1,"method":"tools/list"}\n'

        def write():
            try:
                for _ in range(100_000):
                    b.p.stdin.write(line)
                b.p.stdin.flush()
            except (BrokenPipeError, ValueError, OSError):
                pass

        t = threading.Thread(target=write, daemon=True)
        t.start()
        time.sleep(4)  # nobody reads the bridge's stdout
        rss = b.rss_kb()
        print(f"    stdio bridge RSS {base // 1024} MB before, {rss // 1024} MB with 100,000 "
              "requests offered to a client that does not read")
        assert rss - base < 32 * 1024, (base, rss)
        t0 = time.monotonic()
        b.p.send_signal(signal.SIGTERM)
        try:
            b.p.wait(timeout=3)
        except subprocess.TimeoutExpired:
            raise AssertionError("SIGTERM ignored while the client does not read")
        print(f"    SIGTERM honoured in {(time.monotonic() - t0) * 1000:.0f} ms")


# ---------------------------------------------------------------------------------------------
# item 17: streams and tokens

def open_stream(b, session, token=TOKEN_A):
    s = socket.create_connection((b.host, b.port))
    s.sendall(b"GET /mcp HTTP/1.1\r\nHost: %s:%d\r\nAccept: text/event-stream\r\n"
              b"Authorization: Bearer %s\r\nMcp-Session-Id: %s\r\n\r\n"
              % (b.host.encode(), b.port, token.encode(), session.encode()))
    s.settimeout(5)
    head = s.recv(4096)
    return s, head.split(b"\r\n")[0]


def stream_ends(s, timeout):
    end = time.monotonic() + timeout
    s.settimeout(0.5)
    while time.monotonic() < end:
        try:
            data = s.recv(4096)
        except socket.timeout:
            continue
        except OSError:
            return True
        if not data or data.endswith(b"0\r\n\r\n"):
            return True
    return False


def test_streams_end_with_their_session_and_are_capped():
    with Bridge() as b:
        c = Client(b, TOKEN_A)
        assert c.initialize()[0] == 200
        s1, h1 = open_stream(b, c.session)
        s2, h2 = open_stream(b, c.session)
        s3, h3 = open_stream(b, c.session)
        assert b" 200 " in h1 and b" 200 " in h2, (h1, h2)
        assert b" 429 " in h3, h3
        c.c.request("DELETE", "/mcp", headers={"Authorization": f"Bearer {TOKEN_A}",
                                                "Mcp-Session-Id": c.session})
        assert c.c.getresponse().status == 200
        assert stream_ends(s1, 3) and stream_ends(s2, 3), "a stream outlived its session"


def test_tokens_crit_aud_iss_scheme_and_host():
    with Bridge() as b:
        crit = jwt({"role": "mcp_b_a"}, {"alg": "HS256", "crit": ["exp"]})
        assert Client(b, crit).initialize()[0] == 401
        c = Client(b, TOKEN_A)
        c.c.request("POST", "/mcp", json.dumps({"jsonrpc": "2.0", "id": 1, "method": "initialize",
                                                "params": {"protocolVersion": "2025-06-18",
                                                           "capabilities": {}, "clientInfo": {
                                                               "name": "t", "version": "1"}}}),
                    {"Authorization": f"bearer {TOKEN_A}", "Content-Type": "application/json",
                     "Accept": "application/json, text/event-stream"})
        assert c.c.getresponse().status == 200
        c = Client(b, TOKEN_A)
        st, _, data = c.post({"jsonrpc": "2.0", "id": 1, "method": "ping"},
                             headers={"Host": "evil.example"})
        assert st == 403, (st, data)
    with Bridge("--jwt-audience", "pg_mcp", "--jwt-issuer", "https://idp.example") as b:
        good = {"role": "mcp_b_a", "aud": "pg_mcp", "iss": "https://idp.example"}
        assert Client(b, jwt(good)).initialize()[0] == 200
        for bad in ({"role": "mcp_b_a"}, dict(good, aud="other"), dict(good, iss="https://evil"),
                    {"role": "mcp_b_a", "aud": "pg_mcp"}):
            assert Client(b, jwt(bad)).initialize()[0] == 401, bad


def main():
    names = sys.argv[1:]
    tests = [(n, f) for n, f in globals().items() if n.startswith("test_") and callable(f)]
    if names:
        tests = [(n, f) for n, f in tests if any(x in n for x in names)]
    failed = 0
    for n, f in tests:
        t0 = time.monotonic()
        try:
            f()
            print(f"PASS {n} ({time.monotonic() - t0:.1f} s)", flush=True)
        except Exception as e:  # noqa: BLE001 - a test's failure, whatever it is
            failed += 1
            print(f"FAIL {n}: {type(e).__name__}: {e}"[:2000], flush=True)
    print(f"{len(tests) - failed} passed, {failed} failed")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
