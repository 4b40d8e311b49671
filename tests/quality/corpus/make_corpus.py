#!/usr/bin/env python3
"""Generate tests/quality/corpus/tarif_corpus.jsonl: 96 Manteltarifvertrag excerpts
(12 branches x 8 regions of tests/quality/SPEC.md), one JSON object a line.

Deterministic: every document draws its figures from its own random.Random seeded with
SEED and its key (string seeds hash with SHA-512, independent of PYTHONHASHSEED), so the
corpus is the same on every run. The Eckentgelt is made unique over the corpus by stepping a
clashing value up by one cent (hourly) or 50 cents (monthly), without a further draw.

Usage: python3 make_corpus.py [output]   (default: tarif_corpus.jsonl next to this script)

Branch and region appear in the title, the metadata and § 1 Geltungsbereich only; the other
clauses are written without them, as in real agreements.
"""
import json
import os
import random
import sys

SEED = "pg_mcp-evalcorpus-2026"

# slug, SPEC name, Geltungsbereich phrase (fachlich), wage basis, pay-group label, worker
# noun, base monthly pay (or hourly wage), extra clauses it may carry (with probability)
BRANCHES = [
    ("metall", "Metall- und Elektroindustrie",
     "alle Betriebe und selbständigen Betriebsteile der Metall- und Elektroindustrie einschließlich ihrer Hilfs- und Nebenbetriebe",
     "monat", "Entgeltgruppe EG {n}", "beschaeftigte", 3650,
     {"schicht": 0.9, "altersteilzeit": 0.7, "vl": 0.3}),
    ("chemie", "Chemische Industrie",
     "die Betriebe der Chemischen Industrie und der chemienahen Zweige, die Mitglied eines vertragschließenden Arbeitgeberverbands sind",
     "monat", "Entgeltgruppe E {n}", "arbeitnehmer", 3580,
     {"schicht": 0.9, "altersteilzeit": 0.8, "rufbereitschaft": 0.3}),
    ("einzelhandel", "Einzelhandel",
     "alle Unternehmen des Einzelhandels einschließlich ihrer Verkaufsstellen, Lager, Hilfs- und Nebenbetriebe",
     "monat", "Gehaltsgruppe G {r}", "awan", 2780,
     {"vl": 0.8, "altersteilzeit": 0.2}),
    ("grosshandel", "Groß- und Außenhandel",
     "alle Betriebe des Groß- und Außenhandels sowie des Streckengroßhandels und der Handelsvermittlung",
     "monat", "Lohn- und Gehaltsgruppe {r}", "beschaeftigte", 3010,
     {"vl": 0.8, "schicht": 0.3}),
    ("bau", "Bauhauptgewerbe",
     "alle Betriebe des Bauhauptgewerbes, die nach ihrer durch die Art der betrieblichen Tätigkeit geprägten Zweckbestimmung Bauleistungen erbringen",
     "stunde", "Lohngruppe {n}", "arbeitnehmer", 21.40,
     {"vl": 0.9, "altersteilzeit": 0.2}),
    ("reinigung", "Gebäudereinigung",
     "alle Betriebe der Gebäudereinigung (Gebäudereinigerhandwerk) einschließlich der Glas- und Fassadenreinigung",
     "stunde", "Lohngruppe {n}", "beschaeftigte", 13.90,
     {"schicht": 0.3, "vl": 0.3}),
    ("gastro", "Hotel- und Gaststättengewerbe",
     "alle Betriebe des Hotel- und Gaststättengewerbes, insbesondere Hotels, Gasthöfe, Pensionen, Restaurants, Cafés und Systemgastronomie",
     "monat", "Entgeltgruppe {n}", "mitarbeitende", 2460,
     {"vl": 0.2}),
    ("versicherung", "Versicherungen",
     "die Unternehmen der privaten Versicherungswirtschaft (Versicherungen) einschließlich der Rückversicherer und Versicherungsvereine auf Gegenseitigkeit",
     "monat", "Tarifgruppe {n}", "angestellte", 3720,
     {"rufbereitschaft": 0.5, "altersteilzeit": 0.7, "vl": 0.6}),
    ("banken", "Private Banken",
     "die privaten Banken (privates Bankgewerbe) einschließlich der Bausparkassen in privater Rechtsform und der Hypothekenbanken",
     "monat", "Tarifgruppe {n}", "angestellte", 3810,
     {"rufbereitschaft": 0.5, "altersteilzeit": 0.6, "vl": 0.7}),
    ("druck", "Druckindustrie",
     "alle Betriebe der Druckindustrie, der Druckvorstufe und der Weiterverarbeitung",
     "monat", "Lohngruppe {r}", "arbeitnehmer", 3240,
     {"schicht": 0.8, "vl": 0.6}),
    ("kfz", "Kfz-Handwerk",
     "alle Betriebe des Kfz-Handwerks (Kraftfahrzeugtechniker-, Karosserie- und Fahrzeugbauerhandwerk) einschließlich der Autohäuser mit Werkstatt",
     "monat", "Lohngruppe {n}", "awan", 2950,
     {"rufbereitschaft": 0.4, "vl": 0.7}),
    ("energie", "Energieversorgung",
     "alle Unternehmen der Energieversorgung, die Strom, Gas, Fernwärme oder Wasser erzeugen, verteilen oder damit handeln",
     "monat", "Entgeltgruppe {n}", "mitarbeitende", 3890,
     {"schicht": 0.7, "rufbereitschaft": 0.9, "altersteilzeit": 0.7}),
]

# slug, SPEC name, accusative phrase ("für ..."), pay factor, extra weekly hours
REGIONS = [
    ("by", "Bayern", "das Gebiet des Freistaates Bayern", 1.05, 0.0),
    ("bw", "Baden-Württemberg", "das Gebiet des Landes Baden-Württemberg", 1.06, 0.0),
    ("nw", "Nordrhein-Westfalen", "das Gebiet des Landes Nordrhein-Westfalen", 1.02, 0.0),
    ("he", "Hessen", "das Gebiet des Landes Hessen", 1.04, 0.0),
    ("ni", "Niedersachsen", "das Gebiet des Landes Niedersachsen", 1.00, 0.0),
    ("sn", "Sachsen", "das Gebiet des Freistaates Sachsen", 0.90, 1.5),
    ("be", "Berlin", "das Gebiet des Landes Berlin", 0.98, 0.5),
    ("hh", "Hamburg", "das Gebiet der Freien und Hansestadt Hamburg", 1.05, 0.0),
]

# worker nouns: with article (nominative, dative), after "alle", without article
NOUNS = {
    "beschaeftigte": ("die Beschäftigten", "den Beschäftigten", "Beschäftigten", "Beschäftigte"),
    "arbeitnehmer": ("die Arbeitnehmer", "den Arbeitnehmern", "Arbeitnehmer", "Arbeitnehmer"),
    "awan": ("die Arbeitnehmerinnen und Arbeitnehmer", "den Arbeitnehmerinnen und Arbeitnehmern",
             "Arbeitnehmerinnen und Arbeitnehmer", "Arbeitnehmerinnen und Arbeitnehmer"),
    "mitarbeitende": ("die Mitarbeiterinnen und Mitarbeiter", "den Mitarbeiterinnen und Mitarbeitern",
                      "Mitarbeiterinnen und Mitarbeiter", "Mitarbeiterinnen und Mitarbeiter"),
    "angestellte": ("die Angestellten", "den Angestellten", "Angestellten", "Angestellte"),
}

ROMAN = ["I", "II", "III", "IV", "V", "VI", "VII"]
MONTHS = ["Januar", "Februar", "März", "April", "Mai", "Juni", "Juli", "August",
          "September", "Oktober", "November", "Dezember"]
NUMWORDS = {1: "einem", 2: "zwei", 3: "drei", 4: "vier", 5: "fünf", 6: "sechs", 7: "sieben",
            8: "acht", 9: "neun", 10: "zehn", 12: "zwölf", 24: "vierundzwanzig"}


def cap(s):
    return s[:1].upper() + s[1:]


def num(x, decimals=None):
    """German number: 37,5; 3.412,50; 38."""
    if decimals is None:
        if abs(x - round(x)) < 1e-9:
            return f"{int(round(x)):,}".replace(",", ".")
        decimals = 1
    s = f"{x:,.{decimals}f}"
    return s.replace(",", "X").replace(".", ",").replace("X", ".")


def euro(x):
    return num(x, 2) + " Euro"


def paras(items):
    return " ".join(f"({i}) {t}" for i, t in enumerate(items, 1))


class Doc:
    def __init__(self, branch, region, bi, ri):
        (self.bslug, self.bname, self.fachlich, self.basis, self.group, noun, self.base,
         self.extras_p) = branch
        self.rslug, self.rname, self.rphrase, self.factor, self.ost_hours = region
        self.bi, self.ri = bi, ri
        self.nom, self.dat, self.alle, self.bare = NOUNS[noun]
        self.rng = random.Random(f"{SEED}:{self.bslug}/{self.rslug}")
        # wording style per branch (and clause): texts of one branch share phrasing, other
        # branches phrase the same rule differently
        self.style = bi

    def v(self, clause, n):
        """Variant index of a clause for this document: fixed per branch, shifted by region
        for some clauses so that the documents of one branch are not all alike."""
        return (self.style * 7 + clause * 3 + (self.ri if clause % 2 else 0)) % n

    # ---------------------------------------------------------------- clauses
    def geltungsbereich(self):
        raum = f"{self.rphrase} (Tarifgebiet {self.rname})"
        variants = [
            paras([f"Räumlich: {raum}.",
                   f"Fachlich: {self.fachlich} (Branche {self.bname}).",
                   f"Persönlich: alle {self.alle} einschließlich der Auszubildenden, ausgenommen "
                   "leitende Angestellte im Sinne des § 5 Abs. 3 BetrVG."]),
            f"Dieser Tarifvertrag der Branche {self.bname} gilt räumlich für {raum}, fachlich für "
            f"{self.fachlich} und persönlich für alle dort tätigen {self.alle} mit Ausnahme der "
            "leitenden Angestellten.",
            paras([f"Der Tarifvertrag gilt für {self.fachlich} (Branche {self.bname}) "
                   f"im Tarifgebiet {self.rname}, d. h. für {self.rphrase}.",
                   f"Er erfasst alle {self.alle} einschließlich der Teilzeitbeschäftigten und Auszubildenden."]),
        ]
        return "Geltungsbereich", variants[self.v(1, 3)]

    def arbeitszeit(self):
        r = self.rng
        base = r.choice([35.0, 36.0, 37.0, 37.5, 38.0, 38.5, 39.0])
        h = min(base + self.ost_hours, 40.0)
        months = r.choice([6, 12, 12, 24])
        daily = r.choice([8, 9, 10])
        days = "Montag bis Freitag" if r.random() < 0.7 else "Montag bis Samstag"
        items_a = [
            f"Die regelmäßige wöchentliche Arbeitszeit ohne Pausen beträgt {num(h)} Stunden; sie wird "
            f"in der Regel auf die Werktage {days} verteilt.",
            f"Eine ungleichmäßige Verteilung ist zulässig, wenn der Durchschnitt innerhalb von "
            f"{NUMWORDS[months]} Monaten erreicht wird.",
        ]
        if r.random() < 0.35:
            q = r.choice([13, 15, 18, 20])
            items_a.append(f"Mit bis zu {q} Prozent der {self.alle} kann eine Arbeitszeit von bis zu "
                           "40 Stunden vereinbart werden.")
        variants = [
            paras(items_a),
            f"Die tarifliche Wochenarbeitszeit beläuft sich auf {num(h)} Stunden, ausschließlich der Pausen, "
            f"verteilt auf die Tage {days}. Abweichungen sind zulässig, sofern der Durchschnitt in einem "
            f"Ausgleichszeitraum von {NUMWORDS[months]} Monaten eingehalten wird; mehr als "
            f"{NUMWORDS[daily]} Stunden täglich sollen nicht gearbeitet werden.",
            paras([f"{cap(self.nom)} arbeiten regelmäßig {num(h)} Stunden in der Woche (ohne Ruhepausen).",
                   f"Zeitguthaben werden auf einem Arbeitszeitkonto geführt und innerhalb von "
                   f"{NUMWORDS[months]} Monaten ausgeglichen; Regelarbeitstage sind {days}."]),
        ]
        return "Arbeitszeit", variants[self.v(2, 3)]

    def mehrarbeit(self):
        r = self.rng
        m1 = r.choice([25, 25, 30])
        m2 = r.choice([40, 50, 50])
        m_hours = r.choice([2, 3, 4, 8])
        night = r.choice([15, 20, 25, 30])
        night_from = r.choice([20, 22, 22, 23])
        sun = r.choice([50, 60, 70, 75, 100])
        hol = r.choice([100, 125, 135, 150, 175, 200])
        cap_h = r.choice([10, 16, 20, 24, 30])
        zs = [
            f"für Nachtarbeit ({night_from} bis 6 Uhr) {night} Prozent",
            f"für Sonntagsarbeit {sun} Prozent",
            f"für Feiertagsarbeit {hol} Prozent",
        ]
        if r.random() < 0.3:
            zs.append(f"am 24. und 31. Dezember ab 14 Uhr {r.choice([50, 100, 150])} Prozent")
        r.shuffle(zs)
        mehr = (f"für Mehrarbeit in den ersten {NUMWORDS[m_hours]} Stunden je Woche {m1} Prozent, "
                f"danach {m2} Prozent")
        zlist = "; ".join([mehr] + zs)
        variants = [
            paras(["Mehrarbeit ist die über die regelmäßige Arbeitszeit hinaus angeordnete Arbeit; "
                   f"sie soll {cap_h} Stunden im Monat nicht überschreiten.",
                   f"Zuschläge je Stunde: {zlist}. Es wird nur der höchste Zuschlag gezahlt."]),
            f"Als Mehrarbeit gilt jede angeordnete Arbeit über die vereinbarte Arbeitszeit hinaus; im Monat "
            f"sind höchstens {cap_h} Mehrarbeitsstunden zulässig. Die Zuschläge auf das Stundenentgelt "
            f"betragen {zlist}.",
            paras([f"Zuschläge (in Prozent des Stundenentgelts): {zlist}.",
                   "Mehrarbeit ist vorrangig durch Freizeit auszugleichen; sie ist auf "
                   f"{cap_h} Stunden monatlich begrenzt."]),
        ]
        return "Mehrarbeit und Zuschläge", variants[self.v(3, 3)]

    def urlaub(self):
        r = self.rng
        days = r.choice([24, 25, 26, 27, 28, 28, 29, 30, 30, 30, 31, 32])
        items = [f"{cap(self.nom)} haben in jedem Kalenderjahr Anspruch auf {days} Arbeitstage "
                 "bezahlten Erholungsurlaub (Fünftagewoche)."
                 if self.v(4, 2) == 0 else
                 f"Der jährliche Erholungsurlaub beträgt {days} Arbeitstage bei einer Fünftagewoche."]
        if r.random() < 0.3:
            extra = r.choice([1, 2, 3])
            age = r.choice([50, 55, 58])
            items.append(f"Ab dem {age}. Lebensjahr erhöht er sich um "
                         f"{'einen Tag' if extra == 1 else NUMWORDS[extra] + ' Tage'}.")
        kind = r.choice(["flat", "pct", "perday", "none"])
        if kind == "flat":
            items.append(f"Das Urlaubsgeld beträgt {euro(r.randrange(300, 1300, 10))} jährlich.")
        elif kind == "pct":
            items.append(f"Das zusätzliche Urlaubsgeld beträgt {r.choice([30, 40, 50, 55, 60, 69, 72])} "
                         "Prozent eines Monatsentgelts.")
        elif kind == "perday":
            items.append(f"Je Urlaubstag wird ein Urlaubsgeld von {euro(r.randrange(1200, 3500, 5) / 100)} gezahlt.")
        else:
            carry = r.choice(["31. März", "30. April"])
            items.append(f"Resturlaub kann bis zum {carry} des Folgejahres übertragen werden.")
        return "Urlaub", paras(items)

    def probezeit(self):
        r = self.rng
        unit = "Wochen" if self.basis == "stunde" and r.random() < 0.5 else "Monate"
        p = r.choice([6, 8, 12]) if unit == "Wochen" else r.choice([3, 3, 4, 6, 6])
        frist_dat = r.choice(["einer Woche", "zwei Wochen", "zwei Wochen", "vier Wochen"])
        frist = "eine Woche" if frist_dat == "einer Woche" else frist_dat
        word = NUMWORDS[p]
        variants = [
            f"Die ersten {word} {unit} des Arbeitsverhältnisses gelten als Probezeit. In dieser Zeit "
            f"kann beiderseits mit einer Frist von {frist_dat} gekündigt werden.",
            paras([f"Die Probezeit beträgt {word} {unit}.",
                   f"Innerhalb der Probezeit beträgt die Kündigungsfrist {frist}."]),
        ]
        return "Probezeit", variants[self.v(5, 2)]

    def kuendigung(self):
        r = self.rng
        base = r.choice(["vier Wochen zum Fünfzehnten oder zum Monatsende",
                         "einen Monat zum Monatsende", "sechs Wochen zum Quartalsende",
                         "sechs Wochen zum Monatsende", "zwei Wochen"])
        steps = sorted(r.sample([2, 3, 5, 8, 10, 12, 15, 20], 3))
        months = sorted(r.sample([1, 2, 3, 4, 5, 6, 7], 3))
        stufen = ", ".join(f"von {y} Jahren {'einen Monat' if m == 1 else NUMWORDS[m] + ' Monate'}"
                           for y, m in zip(steps, months))
        items = [f"Nach der Probezeit beträgt die Kündigungsfrist {base}.",
                 f"Bei Kündigung durch den Arbeitgeber beträgt sie nach einer Betriebszugehörigkeit "
                 f"{stufen} zum Monatsende."]
        if r.random() < 0.35:
            age = r.choice([50, 53, 55])
            yrs = r.choice([10, 15, 20])
            items.append(f"{self.bare}, die das {age}. Lebensjahr vollendet haben und dem Betrieb "
                         f"{yrs} Jahre angehören, sind nur aus wichtigem Grund kündbar.")
        if self.v(6, 2) == 1:
            items.append("Kündigungen bedürfen der Schriftform.")
        return "Kündigungsfristen", paras(items)

    def sonderzahlung(self):
        r = self.rng
        month = r.choice(["November", "November", "Dezember", "Oktober"])
        if r.random() < 0.4:
            tenure = r.choice([3, 6])
            a, b, c = sorted(r.sample([20, 25, 30, 35, 40, 45, 50, 55, 60, 65], 3))
            t1, t2 = r.choice([(12, 36), (24, 48), (12, 60)])
            amount = (f"nach {NUMWORDS[tenure]} Monaten Betriebszugehörigkeit {a} Prozent, nach {t1} Monaten "
                      f"{b} Prozent und nach {t2} Monaten {c} Prozent eines Monatsentgelts")
        else:
            tenure = r.choice([6, 6, 12])
            pct = r.choice([30, 40, 45, 50, 55, 60, 70, 80, 95, 100])
            amount = f"{pct} Prozent eines Monatsentgelts"
        azubi = r.choice([50, 55, 60, 80, 100])
        variants = [
            paras([f"{self.bare}, deren Arbeitsverhältnis seit mindestens {NUMWORDS[tenure]} Monaten "
                   f"besteht, erhalten eine Jahressonderzahlung; sie beträgt {amount}.",
                   f"Sie wird mit dem Entgelt für {month} ausgezahlt; Auszubildende erhalten {azubi} Prozent "
                   "ihrer Ausbildungsvergütung."]),
            f"Als Weihnachtsgeld (Jahressonderzahlung) werden {amount} gezahlt, fällig mit der Abrechnung "
            f"für {month}. Anspruch hat, wer dem Betrieb seit mindestens {NUMWORDS[tenure]} Monaten "
            f"angehört; Auszubildende erhalten {azubi} Prozent der Ausbildungsvergütung.",
        ]
        return "Jahressonderzahlung", variants[self.v(7, 2)]

    def entgelt(self, used):
        r = self.rng
        n = r.choice([4, 5, 6, 7])
        grp = self.group.format(n=n, r=ROMAN[n - 3])
        if self.basis == "stunde":
            val, step = round(self.base * self.factor * r.uniform(0.94, 1.08), 2), 0.01
        else:
            val, step = round(self.base * self.factor * r.uniform(0.93, 1.08) * 2) / 2, 0.5
        while val in used:  # every agreement its own Eckentgelt (no random draw: order-free)
            val = round(val + step, 2)
        used.add(val)
        year = r.choice([2024, 2025])
        start = f"1. {r.choice(MONTHS[:7])} {year}"
        rise = r.choice([2.0, 2.5, 2.8, 3.0, 3.3, 3.5, 4.0, 5.2])
        rise_at = f"1. {r.choice(MONTHS)} {year + 1}"
        a1 = r.randrange(880, 1250, 5)
        a2, a3 = a1 + r.randrange(40, 110, 5), a1 + r.randrange(120, 220, 5)
        years = r.choice([3, 3, 4]) if self.bslug in ("metall", "kfz", "energie", "chemie") else 3
        azubi = f"im ersten Ausbildungsjahr {euro(a1)}, im zweiten {euro(a2)}, im dritten {euro(a3)}"
        if years == 4:
            azubi += f", im vierten {euro(a3 + r.randrange(50, 120, 5))}"
        if self.basis == "stunde":
            first = f"Der Stundenlohn der {grp} (Ecklohn) beträgt ab {start} {euro(val)}."
        else:
            first = f"Das Monatsentgelt der {grp} (Eckentgelt) beträgt ab {start} {euro(val)}."
        items = [first + f" Zum {rise_at} steigen alle Tabellenwerte um {num(rise)} Prozent.",
                 f"Die monatliche Ausbildungsvergütung beträgt {azubi}."]
        if self.v(8, 2) == 1:
            items.reverse()
        return "Entgelt und Ausbildungsvergütung", paras(items)

    # ---------------------------------------------------------------- extra clauses
    def schicht(self):
        r = self.rng
        pct = r.choice([10, 12, 15, 18, 20])
        weeks = r.choice([2, 3, 4])
        return "Schichtarbeit", (
            f"Für Wechselschichtarbeit wird eine Zulage von {pct} Prozent des Stundenentgelts gezahlt. "
            f"Schichtpläne sind {NUMWORDS[weeks]} Wochen im Voraus bekanntzugeben.")

    def rufbereitschaft(self):
        r = self.rng
        hour = euro(r.randrange(150, 450, 5) / 100)
        wend = euro(r.randrange(450, 900, 5) / 100)
        return "Rufbereitschaft", (
            f"Für jede Stunde Rufbereitschaft wird eine Pauschale von {hour} gezahlt, an Wochenenden und "
            f"Feiertagen {wend}. Einsätze gelten als Arbeitszeit.")

    def altersteilzeit(self):
        r = self.rng
        age = r.choice([55, 57, 59, 60])
        yrs = r.choice([2, 3, 4, 6])
        top = r.choice([20, 25, 30, 35, 40])
        return "Altersteilzeit", (
            f"Ab dem {age}. Lebensjahr kann Altersteilzeit für bis zu {NUMWORDS[yrs]} Jahre vereinbart "
            f"werden; das Teilzeitentgelt wird um {top} Prozent aufgestockt.")

    def vl(self):
        r = self.rng
        amount = r.choice([6.65, 13.29, 20.0, 26.59, 30.0, 34.0, 39.88, 40.0])
        return "Vermögenswirksame Leistungen", (
            f"Der Arbeitgeber zahlt {self.dat} vermögenswirksame Leistungen von {euro(amount)} monatlich; "
            "Teilzeitbeschäftigte erhalten sie anteilig.")

    # ---------------------------------------------------------------- document
    def build(self, used):
        clauses = [self.geltungsbereich(), self.arbeitszeit(), self.mehrarbeit(), self.urlaub(),
                   self.probezeit(), self.kuendigung(), self.sonderzahlung(), self.entgelt(used)]
        extras = [name for name, p in sorted(self.extras_p.items()) if self.rng.random() < p]
        self.rng.shuffle(extras)
        for name in extras[:2]:
            clauses.append(getattr(self, name)())
        title = f"Manteltarifvertrag {self.bname} – {self.rname}"
        body = [f"{title} (Auszug)"]
        for i, (head, text) in enumerate(clauses, 1):
            body.append(f"§ {i} {head}\n{text}")
        return {
            "uri": f"tv://{self.bslug}/{self.rslug}",
            "title": title,
            "metadata": {"branche": self.bname, "region": self.rname,
                         "branch_slug": self.bslug, "region_slug": self.rslug},
            "body": "\n\n".join(body),
        }


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(os.path.abspath(__file__)), "tarif_corpus.jsonl")
    used = set()
    docs = []
    for bi, b in enumerate(BRANCHES):
        for ri, reg in enumerate(REGIONS):
            docs.append(Doc(b, reg, bi, ri).build(used))
    with open(out, "w", encoding="utf-8") as f:
        for d in docs:
            f.write(json.dumps(d, ensure_ascii=False) + "\n")
    words = [len(d["body"].split()) for d in docs]
    print(f"{len(docs)} documents -> {out}; words min {min(words)} max {max(words)} "
          f"mean {sum(words) / len(words):.0f}", file=sys.stderr)


if __name__ == "__main__":
    main()
