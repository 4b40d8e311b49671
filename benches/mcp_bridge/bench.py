"""Times an MCP server over stdio with plain JSON-RPC (no SDK in the loop, the same driver for
every server): spawn -> initialize -> tools/list, and tools/call round trips.

  python3 bench.py LABEL TOOL ARGS_JSON SPAWNS CALLS -- COMMAND [ARGS...]
  python3 bench.py --table RESULTS_FILE      (the JSON lines as a markdown table)

Prints one JSON object: spawn_ms (p50, p95 over SPAWNS spawns) and call_ms (p50, p95, mean over
CALLS calls after 20 warm-up calls).
"""
import json
import subprocess
import sys
import time


def pct(xs, p):
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(round(p / 100 * (len(xs) - 1))))]


class Server:
    def __init__(self, cmd):
        # Buffered pipes (written with an explicit flush): with bufsize=0, readline() on the
        # raw pipe reads one byte per system call, ~1 ms per 1.6 KB answer on this machine,
        # which the first version of this driver charged to every server.
        self.p = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                  stderr=subprocess.DEVNULL)
        self.next_id = 0

    def send(self, msg):
        self.p.stdin.write((json.dumps(msg) + "\n").encode())
        self.p.stdin.flush()

    def request(self, method, params=None):
        self.next_id += 1
        msg = {"jsonrpc": "2.0", "id": self.next_id, "method": method}
        if params is not None:
            msg["params"] = params
        self.send(msg)
        while True:
            line = self.p.stdout.readline()
            if not line:
                raise RuntimeError(f"server closed stdout during {method}")
            try:
                m = json.loads(line)
            except ValueError:
                continue
            if m.get("id") == self.next_id:
                if "error" in m:
                    raise RuntimeError(f"{method}: {m['error']}")
                return m["result"]

    def initialize(self):
        r = self.request("initialize", {"protocolVersion": "2025-06-18", "capabilities": {},
                                        "clientInfo": {"name": "bench", "version": "1"}})
        self.send({"jsonrpc": "2.0", "method": "notifications/initialized"})
        return r

    def close(self):
        self.p.stdin.close()
        try:
            self.p.wait(timeout=5)
        except subprocess.TimeoutExpired:
            self.p.kill()
            self.p.wait()


def table(path):
    print("| server | tools/call p50 | p95 | mean | spawn -> initialize -> tools/list p50 | p95 |")
    print("|---|---|---|---|---|---|")
    for line in open(path):
        r = json.loads(line)
        c, s = r["call_ms"], r["spawn_ms"]
        print(f"| {r['server']} | {c['p50']} ms | {c['p95']} ms | {c['mean']} ms | {s['p50']} ms | {s['p95']} ms |")


def main():
    if sys.argv[1] == "--table":
        return table(sys.argv[2])
    label, tool, args, spawns, calls = sys.argv[1], sys.argv[2], json.loads(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5])
    cmd = sys.argv[sys.argv.index("--") + 1:]
    spawn_ms = []
    for _ in range(spawns):
        t0 = time.perf_counter()
        s = Server(cmd)
        s.initialize()
        tools = s.request("tools/list")
        spawn_ms.append((time.perf_counter() - t0) * 1000)
        assert any(t["name"] == tool for t in tools["tools"]), [t["name"] for t in tools["tools"]]
        s.close()
    s = Server(cmd)
    s.initialize()
    first = s.request("tools/call", {"name": tool, "arguments": args})
    text = "".join(c.get("text", "") for c in first.get("content", []))
    assert not first.get("isError") and "25" in text, first
    for _ in range(20):
        s.request("tools/call", {"name": tool, "arguments": args})
    call_ms = []
    for _ in range(calls):
        t0 = time.perf_counter()
        s.request("tools/call", {"name": tool, "arguments": args})
        call_ms.append((time.perf_counter() - t0) * 1000)
    s.close()
    print(json.dumps({
        "server": label,
        "spawn_ms": {"p50": round(pct(spawn_ms, 50), 2), "p95": round(pct(spawn_ms, 95), 2)},
        "call_ms": {"p50": round(pct(call_ms, 50), 3), "p95": round(pct(call_ms, 95), 3),
                    "mean": round(sum(call_ms) / len(call_ms), 3)},
        "calls": calls, "spawns": spawns}))


if __name__ == "__main__":
    main()
