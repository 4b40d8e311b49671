"""Per-scenario table of conformance results: one column per output directory of the suite
(`conformance server -o DIR`), a scenario passing when none of its checks failed or warned (as the suite's own exit code judges)."""
import json, pathlib, re, sys

def results(d):
    out = {}
    for f in pathlib.Path(d).glob("*/checks.json"):
        name = re.sub(r"-\d{4}-\d{2}-\d{2}T[\d-]+Z$", "", f.parent.name)
        name = name.removeprefix("server-")  # the suite prefixes each directory with its mode
        checks = json.loads(f.read_text())
        ok = all(c.get("status") not in ("FAILURE", "WARNING") for c in checks)
        out[name] = ok
    return out

cols = [results(d) for d in sys.argv[1:]]
labels = ["pg_mcp", "server-everything"][: len(cols)]
names = sorted(set().union(*cols))
print("| scenario | " + " | ".join(labels) + " |")
print("|---|" + "---|" * len(cols))
for n in names:
    print(f"| {n} | " + " | ".join("pass" if c.get(n) else ("FAIL" if n in c else "—") for c in cols) + " |")
print("| **passed** | " + " | ".join(f"**{sum(c.values())} of {len(c)}**" for c in cols) + " |")
