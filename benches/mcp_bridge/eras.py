"""tools/call round trips in both MCP eras through one pg_mcp_bridge over stdio, side by side in
one run: the same call as a 2025-11-25 request (after initialize) and as a stateless
2026-07-28 request (its _meta envelope, no session), interleaved one by one so that both see
the same machine load.

  python3 eras.py CALLS TOOL ARGS_JSON -- COMMAND [ARGS...]
  python3 eras.py CALLS TOOL ARGS_JSON --reference RTOOL RARGS_JSON -- COMMAND [ARGS...] -- RCOMMAND [ARGS...]

With --reference, a second server (the reference @modelcontextprotocol/server-postgres) gets
its own call (RTOOL with RARGS) in the same round, after the two eras' calls: all three series
see the same load. Prints one JSON object per series: p50, p95 and mean in ms over CALLS calls
after 20 warm-up calls of each.
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
    rest = sys.argv[sys.argv.index("--") + 1:]
    reference = None
    if "--reference" in sys.argv[:sys.argv.index("--")]:
        at = sys.argv.index("--reference")
        rtool, rargs = sys.argv[at + 1], json.loads(sys.argv[at + 2])
        cmd, rcmd = rest[:rest.index("--")], rest[rest.index("--") + 1:]
        reference = Server(rcmd)
        reference.initialize()
    else:
        cmd = rest
    s = Server(cmd)
    r = s.request("initialize", {"protocolVersion": "2025-11-25", "capabilities": {},
                                 "clientInfo": {"name": "bench", "version": "1"}})
    s.send({"jsonrpc": "2.0", "method": "notifications/initialized"})
    assert r["protocolVersion"] == "2025-11-25", r
    legacy = {"name": tool, "arguments": args}
    modern = {"name": tool, "arguments": args, "_meta": ENVELOPE}
    times = {"2025-11-25": [], "2026-07-28": []}
    series = [("2025-11-25", s, legacy), ("2026-07-28", s, modern)]
    if reference:
        times["reference"] = []
        series.append(("reference", reference, {"name": rtool, "arguments": rargs}))
    for i in range(calls + 20):
        for era, server, params in series:
            t = time.perf_counter()
            res = server.request("tools/call", params)
            dt = (time.perf_counter() - t) * 1000
            assert not res.get("isError"), res
            if server is s:
                assert ("resultType" in res) == (era == "2026-07-28"), res
            if i >= 20:
                times[era].append(dt)
    s.close()
    if reference:
        reference.close()
    for era, xs in times.items():
        print(json.dumps({"era": era, "calls": len(xs), "p50_ms": round(pct(xs, 50), 3),
                          "p95_ms": round(pct(xs, 95), 3), "mean_ms": round(sum(xs) / len(xs), 3)}))


if __name__ == "__main__":
    main()
