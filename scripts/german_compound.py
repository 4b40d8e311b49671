#!/usr/bin/env python3
"""Write PostgreSQL ispell files for German compound splitting from Debian's hunspell-de-de.

    python3 scripts/german_compound.py /usr/share/hunspell/de_DE.dic OUT   # OUT.dict, OUT.affix

PostgreSQL's ispell template reads hunspell affix files, but not the way igerman98 builds its
compounds (decapitalizing prefixes and continuation flags), so de_DE.aff as shipped splits no
compound. This writes a small ispell-format pair instead: every noun of the word list, lower
case, allowed inside compounds (`compoundwords controlled z`) with the German linking and plural
endings -s, -n/-en, -e, -er as suffixes; the other words as they are. to_tsvector then gives
the parts of a compound (Nachtzuschlag -> nacht, zuschlag) and the base form of a plural
(Tage -> tag); words the list does not know fall through to german_stem in mcp.german_compound.
"""
import re
import sys

src, out = sys.argv[1], sys.argv[2]
words = set()
with open(src, encoding="utf-8") as f:
    for i, line in enumerate(f):
        # the first line is the word count; tab-indented lines are the file's comment
        if i == 0 or line.startswith("\t"):
            continue
        w = line.strip().split("/")[0]
        if re.fullmatch(r"[A-Za-zÄÖÜäöüß]{3,}", w):
            words.add(w)
nouns = {w.lower() for w in words if w[0].isupper()}
other = {w.lower() for w in words if not w[0].isupper()} - nouns
with open(out + ".dict", "w", encoding="utf-8") as f:
    for w in sorted(nouns):
        f.write(w + "/SNERz\n")
    for w in sorted(other):
        f.write(w + "\n")
with open(out + ".affix", "w", encoding="utf-8") as f:
    f.write("""compoundwords controlled z

suffixes

flag *S:
    .   >   S

flag *N:
    E   >   N
    [^E] > EN

flag *E:
    [^E] > E

flag *R:
    [^E] > ER
""")
