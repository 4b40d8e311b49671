#!/usr/bin/env bash
# Throughput benchmark for mcp_repair (opt-in; not part of `cargo test`).
#   benches/json_repair/run.sh [DIR]
# 1. generates the inputs with gen_bench.py (deterministic, seed 42) into DIR (default: a temp dir),
# 2. runs the Rust bench (release) against them,
# 3. if installable from the registries, runs the peers side by side on the same files:
#    Python json_repair (pip, into a temp venv) and JS jsonrepair (npm, into a temp dir).
#    Peers that cannot be installed are skipped.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
GEN="${GEN_BENCH:-$ROOT/../shared/bench/json_repair/gen_bench.py}"
[ -f "$GEN" ] || GEN=/work/shared/bench/json_repair/gen_bench.py
DIR="${1:-$(mktemp -d)}"
PEERS="$(mktemp -d)"
trap 'rm -rf "$PEERS"' EXIT

if [ ! -f "$DIR/valid.json" ]; then
  python3 "$GEN" --out "$DIR" >/dev/null
fi
echo "## mcp_repair"
(cd "$ROOT" && CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$ROOT/target/bench}" cargo run -q --release -p mcp_repair --example bench -- "$DIR")

echo
echo "## peers (same inputs, CPU time)"
if python3 -m venv "$PEERS/venv" >/dev/null 2>&1 && "$PEERS/venv/bin/pip" install -q json_repair >/dev/null 2>&1; then
  "$PEERS/venv/bin/python" - "$DIR" <<'PY'
import json, sys, time, json_repair
d = sys.argv[1]
def cpu(f, n=1):
    best = 1e9
    for _ in range(n):
        t = time.process_time(); f(); best = min(best, time.process_time() - t)
    return best
defective = open(f"{d}/defective.txt", encoding="utf-8").read()
valid = json.load(open(f"{d}/valid.json", encoding="utf-8"))
meta = json.load(open(f"{d}/defective.meta.json"))
out = {}
t = cpu(lambda: out.setdefault("v", json_repair.loads(defective)))
v = out["v"]; n = meta["elements"] - 1
exact = sum(1 for k in range(n) if isinstance(v, list) and k < len(v) and v[k] == valid[k])
small = [json.loads(l) for l in open(f"{d}/small_defective.jsonl", encoding="utf-8")][:200]
ts = cpu(lambda: [json_repair.loads(c["text"]) for c in small])
print(f"| json_repair (Python) defective | {len(defective.encode())/1e6/t:.2f} MB/s, {exact}/{n} complete elements exact (result type {type(v).__name__}) |")
print(f"| json_repair (Python) small defective | {ts*1e6/len(small):.0f} µs per response (first 200) |")
PY
else
  echo "(python json_repair not installable: skipped)"
fi
if command -v npm >/dev/null && npm install --silent --prefix "$PEERS/js" jsonrepair >/dev/null 2>&1; then
  NODE_PATH="$PEERS/js/node_modules" node - "$DIR" <<'JS'
const fs = require('fs'); const { jsonrepair } = require('jsonrepair');
const d = process.argv[2];
const cpu = (f) => { const t = process.cpuUsage(); f(); const u = process.cpuUsage(t); return (u.user + u.system) / 1e6; };
const valid = fs.readFileSync(`${d}/valid.json`, 'utf8');
const defective = fs.readFileSync(`${d}/defective.txt`, 'utf8');
const mb = (s) => Buffer.byteLength(s) / 1e6;
let tv = cpu(() => JSON.parse(jsonrepair(valid)));
let ok = 'ok', td = 0;
try { td = cpu(() => JSON.parse(jsonrepair(defective))); } catch (e) { ok = 'error: ' + e.message.slice(0, 60); }
const small = fs.readFileSync(`${d}/small_defective.jsonl`, 'utf8').trim().split('\n').slice(0, 200).map(JSON.parse);
let fails = 0;
const ts = cpu(() => { for (const c of small) { try { JSON.parse(jsonrepair(c.text)); } catch (e) { fails++; } } });
console.log(`| jsonrepair (JS) valid | ${(mb(valid) / tv).toFixed(1)} MB/s |`);
console.log(`| jsonrepair (JS) defective | ${td ? (mb(defective) / td).toFixed(2) + ' MB/s' : ok} |`);
console.log(`| jsonrepair (JS) small defective | ${(ts * 1e6 / small.length).toFixed(0)} µs per response (first 200, ${fails} errors) |`);
JS
else
  echo "(JS jsonrepair not installable: skipped)"
fi
