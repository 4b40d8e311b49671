"""Load test of pg_mcp_bridge's Streamable HTTP transport: 16 well-behaved clients alone, then
the same 16 side by side with one hostile client (slow calls, hang-ups, session floods) of
another role. Prints the well-behaved clients' tools/call latency and the ratio of the p95s.

  python3 load.py URL GOOD_TOKEN EVIL_TOKEN [SECONDS]

Exit status 1 when the well-behaved p95 under attack is more than 2x the p95 alone.
The hostile client runs in a process of its own (no shared interpreter lock with the
well-behaved ones, whose latencies are measured).
"""
import http.client
import json
import multiprocessing
import socket
import sys
import threading
import time
import urllib.parse

QUERY = "SELECT id, titel FROM t ORDER BY id LIMIT 25"
GOOD_CLIENTS = 16
THINK_S = 0.01  # a well-behaved client's pause between calls


def pct(xs, p):
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(round(p / 100 * (len(xs) - 1))))]


class Client:
    def __init__(self, host, port, token):
        self.host, self.port, self.token = host, port, token
        self.c = http.client.HTTPConnection(host, port, timeout=120)
        self.session = None
        self.n = 0

    def post(self, msg):
        h = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream",
             "Authorization": f"Bearer {self.token}"}
        if self.session:
            h["Mcp-Session-Id"] = self.session
            h["MCP-Protocol-Version"] = "2025-06-18"
        body = json.dumps(msg)
        for attempt in (1, 2):
            try:
                self.c.request("POST", "/mcp", body, h)
                r = self.c.getresponse()
                return r.status, r, r.read()
            except (BrokenPipeError, ConnectionResetError, http.client.RemoteDisconnected):
                self.c.close()
                if attempt == 2:
                    raise

    def initialize(self):
        self.session = None
        st, r, _ = self.post({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {},
            "clientInfo": {"name": "load", "version": "1"}}})
        if st == 200:
            self.session = r.getheader("Mcp-Session-Id")
            self.post({"jsonrpc": "2.0", "method": "notifications/initialized"})
        return st

    def call(self, query):
        self.n += 1
        return self.post({"jsonrpc": "2.0", "id": self.n, "method": "tools/call", "params": {
            "name": "sql_query", "arguments": {"query": query}}})[0]


def good_phase(host, port, token, seconds):
    lat, errors = [], []
    lock = threading.Lock()
    end = time.monotonic() + seconds

    def run():
        c = Client(host, port, token)
        if c.initialize() != 200:
            errors.append("initialize")
            return
        mine = []
        while time.monotonic() < end:
            t0 = time.perf_counter()
            st = c.call(QUERY)
            mine.append((time.perf_counter() - t0) * 1000)
            if st != 200:
                errors.append(st)
            time.sleep(THINK_S)
        with lock:
            lat.extend(mine[5:])  # without the warm-up calls

    threads = [threading.Thread(target=run) for _ in range(GOOD_CLIENTS)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return lat, errors


def hostile(host, port, token, seconds, counts):
    """Slow calls (pg_sleep), hang-ups during tools/call and initialize floods, at once."""
    end = time.monotonic() + seconds

    def slow():
        c = Client(host, port, token)
        c.initialize()
        while time.monotonic() < end:
            c.call("SELECT pg_sleep(2)")
            counts["slow"] += 1

    def hangups():
        c = Client(host, port, token)
        c.initialize()
        body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {
            "name": "sql_query", "arguments": {"query": "SELECT pg_sleep(30)"}}}).encode()
        while time.monotonic() < end:
            s = socket.create_connection((host, port))
            s.sendall(b"POST /mcp HTTP/1.1\r\nHost: %s:%d\r\nContent-Type: application/json\r\n"
                      b"Authorization: Bearer %s\r\nMcp-Session-Id: %s\r\n"
                      b"MCP-Protocol-Version: 2025-06-18\r\nContent-Length: %d\r\n\r\n"
                      % (host.encode(), port, token.encode(), c.session.encode(), len(body)) + body)
            time.sleep(0.3)
            s.close()
            counts["hangups"] += 1

    def flood():
        c = Client(host, port, token)
        while time.monotonic() < end:
            c.initialize()
            counts["initialize"] += 1

    threads = [threading.Thread(target=slow) for _ in range(8)]
    threads += [threading.Thread(target=hangups) for _ in range(2)]
    threads += [threading.Thread(target=flood) for _ in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()


def main():
    url = urllib.parse.urlparse(sys.argv[1])
    good, evil = sys.argv[2], sys.argv[3]
    seconds = float(sys.argv[4]) if len(sys.argv) > 4 else 20
    host, port = url.hostname, url.port
    rows = []
    alone, err_alone = good_phase(host, port, good, seconds)
    rows.append(("16 well-behaved clients alone", alone, err_alone, ""))
    mgr = multiprocessing.Manager()
    counts = mgr.dict(slow=0, hangups=0, initialize=0)
    p = multiprocessing.Process(target=hostile, args=(host, port, evil, seconds + 2, counts))
    p.start()
    time.sleep(2)  # the hostile client at full strength first
    attacked, err_attacked = good_phase(host, port, good, seconds)
    p.join()
    what = (f"hostile: {counts['slow']} slow calls, {counts['hangups']} hang-ups, "
            f"{counts['initialize']} initialize")
    rows.append(("the same 16 beside one hostile client", attacked, err_attacked, what))
    print("| run | tools/call count | p50 | p95 | p99 | errors | hostile client |")
    print("|---|---|---|---|---|---|---|")
    for name, lat, err, note in rows:
        print(f"| {name} | {len(lat)} | {pct(lat, 50):.2f} ms | {pct(lat, 95):.2f} ms | "
              f"{pct(lat, 99):.2f} ms | {len(err)} | {note} |")
    ratio = pct(attacked, 95) / pct(alone, 95)
    print(f"\np95 under attack / p95 alone = {ratio:.2f} (must be <= 2)")
    if ratio > 2 or err_alone or err_attacked:
        sys.exit(1)


if __name__ == "__main__":
    main()
