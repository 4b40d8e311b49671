"""The driver's floor: a stdio MCP "server" that answers every request at once with a canned
result of the same shape and size as a 25-row sql_query answer (no database). bench.py against
it measures the JSON-RPC driver and the pipes, nothing else."""
import sys, json
out = sys.stdout.buffer
for line in sys.stdin.buffer:
    m = json.loads(line)
    if "id" not in m: continue
    meth = m["method"]
    if meth == "initialize": r = {"protocolVersion": "2025-06-18", "capabilities": {"tools": {}}, "serverInfo": {"name": "echo", "version": "1"}}
    elif meth == "tools/list": r = {"tools": [{"name": "sql_query", "inputSchema": {"type": "object"}}]}
    else: r = {"content": [{"type": "text", "text": "| id | titel |\n" + "".join(f"| {i} | Titel {i} |\n" for i in range(1, 26))}], "isError": False}
    out.write((json.dumps({"jsonrpc": "2.0", "id": m["id"], "result": r}) + "\n").encode()); out.flush()
