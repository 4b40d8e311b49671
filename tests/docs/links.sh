#!/usr/bin/env bash
# Checks every relative Markdown link in README.md, ARCHITECTURE.md and docs/*.md: the file it
# names exists, and its #anchor matches a heading of that file under GitHub's slug rules. No
# network, no build. A link to a page another branch is still writing is accepted while the page
# is named in docs/.pending (one repository-relative path a line, # starts a comment). Also
# checks that the code layout in ARCHITECTURE.md names every directory and source file.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
exec python3 - "$ROOT" <<'PY'
import os, re, sys, unicodedata

root = sys.argv[1]
pages = ["README.md", "ARCHITECTURE.md"] + sorted(
    "docs/" + f for f in os.listdir(os.path.join(root, "docs")) if f.endswith(".md")
) if os.path.isdir(os.path.join(root, "docs")) else ["README.md", "ARCHITECTURE.md"]

pending = set()
pending_file = os.path.join(root, "docs", ".pending")
if os.path.exists(pending_file):
    for line in open(pending_file, encoding="utf-8"):
        line = line.split("#", 1)[0].strip()
        if line:
            pending.add(os.path.normpath(line))

FENCE = re.compile(r"^\s{0,3}(`{3,}|~{3,})")
CODE_SPAN = re.compile(r"(`+)(.+?)\1")
LINK = re.compile(r"(!?)\[((?:[^\[\]]|\[[^\]]*\])*)\]\(\s*<?([^)\s>]*)>?(?:\s+\"[^\"]*\")?\s*\)")
REFDEF = re.compile(r"^\s{0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s+.*)?$")
HEADING = re.compile(r"^\s{0,3}(#{1,6})\s+(.*?)\s*#*\s*$")
HTML_ID = re.compile(r"<a\s+(?:name|id)=\"([^\"]+)\"", re.I)

def lines_outside_code(path):
    """(line number, text) of the lines outside fenced code blocks."""
    fence = None
    with open(path, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            m = FENCE.match(line)
            if m:
                mark = m.group(1)
                if fence is None:
                    fence = mark[0] * len(mark)
                    continue
                if mark[0] == fence[0] and len(mark) >= len(fence) and not line.strip()[len(mark):].strip():
                    fence = None
                    continue
            if fence is None:
                yield n, line.rstrip("\n")

def slug(text):
    """GitHub's heading anchor: markup stripped, lower case, punctuation but - and _ removed,
    spaces to hyphens."""
    text = CODE_SPAN.sub(lambda m: m.group(2), text)
    text = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", text)   # links keep their text
    text = re.sub(r"<[^>]+>", "", text)                       # inline HTML
    text = text.replace("*", "")
    text = text.strip().lower()
    out = []
    for ch in text:
        cat = unicodedata.category(ch)
        if ch in "-_ " or cat[0] in "LN" or cat == "Mn" or cat == "Pc":
            out.append("-" if ch == " " else ch)
    return "".join(out)

anchor_cache = {}
def anchors(path):
    if path not in anchor_cache:
        seen, result = {}, set()
        for _, line in lines_outside_code(path):
            for a in HTML_ID.findall(line):
                result.add(a)
            m = HEADING.match(line)
            if not m:
                continue
            s = slug(m.group(2))
            if s in seen:
                seen[s] += 1
                result.add(f"{s}-{seen[s]}")
            else:
                seen[s] = 0
                result.add(s)
        anchor_cache[path] = result
    return anchor_cache[path]

errors, layout_errors, checked, pending_used = [], [], 0, set()
for page in pages:
    path = os.path.join(root, page)
    if not os.path.exists(path):
        errors.append(f"{page}: missing")
        continue
    # Link text may run over several lines: search the text outside code blocks as a whole,
    # code spans removed line by line, and count newlines back to the line number.
    numbered = [(n, CODE_SPAN.sub("", line)) for n, line in lines_outside_code(path)]
    text = "\n".join(line for _, line in numbered)
    found = []
    for m in LINK.finditer(text):
        found.append((numbered[text.count("\n", 0, m.start())][0], m.group(3)))
    for n, line in numbered:
        m = REFDEF.match(line)
        if m:
            found.append((n, m.group(1)))
    for n, target in found:
        if not target or re.match(r"^[a-zA-Z][a-zA-Z0-9+.-]*:", target) or target.startswith("//"):
            continue   # URLs (https:, mailto:) are not checked: no network
        checked += 1
        file_part, _, anchor = target.partition("#")
        if file_part.startswith("/"):
            dest = os.path.normpath(os.path.join(root, file_part.lstrip("/")))
        elif file_part:
            dest = os.path.normpath(os.path.join(os.path.dirname(path), file_part))
        else:
            dest = path
        rel = os.path.relpath(dest, root)
        where = f"{page}:{n}: ({target})"
        if rel.startswith(".."):
            errors.append(f"{where} points outside the repository")
            continue
        if not os.path.exists(dest):
            if rel in pending:
                pending_used.add(rel)
                continue
            errors.append(f"{where} {rel} does not exist")
            continue
        if anchor:
            if os.path.isdir(dest) or not dest.endswith(".md"):
                if not re.fullmatch(r"L\d+(-L\d+)?", anchor):
                    errors.append(f"{where} anchor on a file that is not Markdown")
                continue
            if anchor not in anchors(dest):
                errors.append(f"{where} no heading of {rel} has the anchor #{anchor}")

# ARCHITECTURE.md's layout table names every top-level directory, every directory of tests/,
# every SQL file and every source file of src/ and crates/*/src/.
import subprocess
try:
    tracked = subprocess.run(["git", "-C", root, "ls-files"], capture_output=True, text=True,
                             check=True).stdout.split("\n")
except (OSError, subprocess.CalledProcessError):
    tracked = None
    print("note: not a git checkout, the layout table is not checked")
if tracked is not None:
    arch = open(os.path.join(root, "ARCHITECTURE.md"), encoding="utf-8").read()
    wanted = set()
    for f in filter(None, tracked):
        parts = f.split("/")
        if len(parts) > 1:
            wanted.add(parts[0] + "/")
        if parts[0] == "tests" and len(parts) > 2:
            wanted.add("tests/" + parts[1] + "/")
        if (parts[0] == "src" or (parts[0] == "crates" and len(parts) > 3 and parts[2] == "src")) \
                and f.endswith(".rs"):
            wanted.add(f)
        if parts[0] == "sql" and f.endswith(".sql"):
            wanted.add(f)
    for w in sorted(wanted):
        if f"`{w}`" not in arch:
            layout_errors.append(f"ARCHITECTURE.md: the code layout does not name `{w}`")

for p in sorted(pending):
    if os.path.exists(os.path.join(root, p)):
        print(f"note: {p} exists now: remove it from docs/.pending")
    elif p not in pending_used:
        print(f"note: {p} is pending but nothing links to it")

for e in errors:
    print(f"broken link: {e}")
for e in layout_errors:
    print(f"layout: {e}")
print(f"{checked} relative links in {len(pages)} pages, {len(errors)} broken; "
      f"{len(layout_errors)} paths missing from the code layout")
sys.exit(1 if errors or layout_errors else 0)
PY
