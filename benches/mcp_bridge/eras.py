"""tools/call round trips in both MCP eras through one pg_mcp_bridge over stdio, side by side in
one run: the same call as a 2025-11-25 request (after initialize) and as a stateless
2026-07-28 request (its _meta envelope, no session), interleaved one by one so that both see
the same machine load.

  python3 eras.py CALLS TOOL ARGS_JSON -- COMMAND [ARGS...]

Prints one JSON object per era: p50, p95 and mean in ms over CALLS calls after 20 warm-up
calls of each.
"""
import json
import subprocess
import sys
import time

from bench import Server, pct

ENVELOPE = {"io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientInfo": {"name": "bench", "version": "1"},
            "io.modelcontextprotocol/clientCapabilities": {}}


def main():
    calls, tool, args = int(sys.argv[1]), sys.argv[2], json.loads(sys.argv[3])
    cmd = sys.argv[sys.argv.index("--") + 1:]
    s = Server(cmd)
    r = s.request("initialize", {"protocolVersion": "2025-11-25", "capabilities": {},
                                 "clientInfo": {"name": "bench", "version": "1"}})
    s.send({"jsonrpc": "2.0", "method": "notifications/initialized"})
    assert r["protocolVersion"] == "2025-11-25", r
    legacy = {"name": tool, "arguments": args}
    modern = {"name": tool, "arguments": args, "_meta": ENVELOPE}
    times = {"2025-11-25": [], "2026-07-28": []}
    for i in range(calls + 20):
        for era, params in (("2025-11-25", legacy), ("2026-07-28", modern)):
            t = time.perf_counter()
            res = s.request("tools/call", params)
            dt = (time.perf_counter() - t) * 1000
            assert not res.get("isError"), res
            assert ("resultType" in res) == (era == "2026-07-28"), res
            if i >= 20:
                times[era].append(dt)
    s.close()
    for era, xs in times.items():
        print(json.dumps({"era": era, "calls": len(xs), "p50_ms": round(pct(xs, 50), 3),
                          "p95_ms": round(pct(xs, 95), 3), "mean_ms": round(sum(xs) / len(xs), 3)}))


if __name__ == "__main__":
    main()
