#!/usr/bin/env python3
"""Generator of tests/quality/corpus/buerger_corpus.jsonl (Domain D of tests/quality/SPEC.md).

48 municipal bylaws: 8 towns x 6 subjects. The town stands in the title, the metadata and § 1
only. Every document of a subject shares the subject's vocabulary; figures, details, wording and
the order of some paragraphs differ between towns. Each document draws from its own
random.Random seeded with SEED and its key, so the output is the same on every run.

    python3 tests/quality/corpus/make_buerger_corpus.py   # rewrites buerger_corpus.jsonl
"""
import json
import os
import random

SEED = "buergerservice-2026"
OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "buerger_corpus.jsonl")

# slug, name, state key, council, money style
TOWNS = [
    ("kreuznach", "Bad Kreuznach", "rp", "der Stadtrat", 0),
    ("bamberg", "Bamberg", "by", "der Stadtrat", 1),
    ("cottbus", "Cottbus", "bb", "die Stadtverordnetenversammlung", 2),
    ("flensburg", "Flensburg", "sh", "die Ratsversammlung", 0),
    ("goettingen", "Göttingen", "ni", "der Rat", 1),
    ("heilbronn", "Heilbronn", "bw", "der Gemeinderat", 2),
    ("paderborn", "Paderborn", "nw", "der Rat", 0),
    ("trier", "Trier", "rp", "der Stadtrat", 1),
]

SUBJECTS = [
    ("hundesteuer", "Hundesteuer"),
    ("abfall", "Abfallgebühren"),
    ("parken", "Parken"),
    ("friedhof", "Friedhof"),
    ("laerm", "Lärm und Ruhezeiten"),
    ("winterdienst", "Straßenreinigung und Winterdienst"),
]

# legal bases per state (no town names)
LAW = {
    "rp": dict(go="§ 24 der Gemeindeordnung für Rheinland-Pfalz (GemO)",
               kag="der §§ 1, 2, 5 und 7 des Kommunalabgabengesetzes (KAG)",
               ord="der §§ 1, 9 und 43 des Polizei- und Ordnungsbehördengesetzes (POG)",
               str="§ 17 des Landesstraßengesetzes (LStrG)",
               best="des Bestattungsgesetzes (BestG)",
               laermtitle="Gefahrenabwehrverordnung über den Schutz vor Lärm",
               laermshort="Gefahrenabwehrverordnung", land="Rheinland-Pfalz"),
    "by": dict(go="Art. 23 und 24 der Gemeindeordnung für den Freistaat Bayern (GO)",
               kag="der Art. 2, 3 und 8 des Kommunalabgabengesetzes (KAG)",
               ord="der Art. 14 und 16 des Landesstraf- und Verordnungsgesetzes (LStVG)",
               str="Art. 51 des Bayerischen Straßen- und Wegegesetzes (BayStrWG)",
               best="des Bestattungsgesetzes (BestG)",
               laermtitle="Verordnung über den Schutz der Nachtruhe und der Ruhezeiten",
               laermshort="Verordnung", land="Bayern"),
    "bb": dict(go="§§ 3 und 28 der Kommunalverfassung des Landes Brandenburg (BbgKVerf)",
               kag="der §§ 1, 2, 3 und 6 des Kommunalabgabengesetzes für das Land Brandenburg (KAG)",
               ord="der §§ 24 bis 26 des Ordnungsbehördengesetzes (OBG) und des Landesimmissionsschutzgesetzes (LImschG)",
               str="§ 49a des Brandenburgischen Straßengesetzes (BbgStrG)",
               best="des Brandenburgischen Bestattungsgesetzes (BbgBestG)",
               laermtitle="Ordnungsbehördliche Verordnung zum Schutz vor Lärm",
               laermshort="Verordnung", land="Brandenburg"),
    "sh": dict(go="§ 4 der Gemeindeordnung für Schleswig-Holstein (GO)",
               kag="der §§ 1, 2, 3 und 6 des Kommunalabgabengesetzes des Landes Schleswig-Holstein (KAG)",
               ord="der §§ 175 und 176 des Landesverwaltungsgesetzes (LVwG)",
               str="§ 45 des Straßen- und Wegegesetzes des Landes Schleswig-Holstein (StrWG)",
               best="des Bestattungsgesetzes (BestattG)",
               laermtitle="Verordnung über die Abwehr von Gefahren durch Lärm",
               laermshort="Verordnung", land="Schleswig-Holstein"),
    "ni": dict(go="§§ 10 und 58 des Niedersächsischen Kommunalverfassungsgesetzes (NKomVG)",
               kag="der §§ 1, 2, 3 und 5 des Niedersächsischen Kommunalabgabengesetzes (NKAG)",
               ord="der §§ 1 und 55 des Niedersächsischen Polizei- und Ordnungsbehördengesetzes (NPOG)",
               str="§ 52 des Niedersächsischen Straßengesetzes (NStrG)",
               best="des Niedersächsischen Bestattungsgesetzes (BestattG)",
               laermtitle="Verordnung über die Aufrechterhaltung der öffentlichen Sicherheit und Ordnung (Lärmschutz)",
               laermshort="Verordnung", land="Niedersachsen"),
    "bw": dict(go="§ 4 der Gemeindeordnung für Baden-Württemberg (GemO)",
               kag="der §§ 2, 8 und 9 des Kommunalabgabengesetzes für Baden-Württemberg (KAG)",
               ord="der §§ 17 und 18 des Polizeigesetzes (PolG)",
               str="§ 41 des Straßengesetzes für Baden-Württemberg (StrG)",
               best="des Bestattungsgesetzes (BestattG)",
               laermtitle="Polizeiverordnung gegen umweltschädliches Verhalten und zum Schutz vor Lärm",
               laermshort="Polizeiverordnung", land="Baden-Württemberg"),
    "nw": dict(go="§ 7 der Gemeindeordnung für das Land Nordrhein-Westfalen (GO NRW)",
               kag="der §§ 2, 4 und 6 des Kommunalabgabengesetzes für das Land Nordrhein-Westfalen (KAG NRW)",
               ord="der §§ 25, 26 und 27 des Ordnungsbehördengesetzes (OBG)",
               str="der §§ 3 und 4 des Straßenreinigungsgesetzes NRW (StrReinG NRW)",
               best="des Bestattungsgesetzes NRW (BestG NRW)",
               laermtitle="Ordnungsbehördliche Verordnung über die Aufrechterhaltung der öffentlichen Sicherheit und Ordnung",
               laermshort="Verordnung", land="Nordrhein-Westfalen"),
}

MONTHS = ["Januar", "Februar", "März", "April", "Mai", "Juni", "Juli", "August", "September",
          "Oktober", "November", "Dezember"]


class Doc:
    def __init__(self, town, subject):
        self.slug, self.name, self.state, self.council, self.money = town
        self.tidx = [t[0] for t in TOWNS].index(self.slug)
        self.subject = subject
        self.rng = random.Random(f"{SEED}:{self.slug}:{subject}")
        self.law = LAW[self.state]

    def pick(self, *options):
        return self.rng.choice(options)

    def uniq(self, key, options):
        """A value no other town gets for this subject and key (options holds at least 8)."""
        opts = list(options)
        random.Random(f"{SEED}:{self.subject}:{key}").shuffle(opts)
        return opts[self.tidx]

    def var(self, n=2):
        """A wording variant, spread over the towns (not random: neighbouring towns differ)."""
        return (self.tidx + self.rng.randrange(n)) % n

    def eur(self, x):
        s = f"{x:,.2f}".replace(",", "X").replace(".", ",").replace("X", ".")
        return s + [" Euro", " EUR", " €"][self.money]

    def date(self, year_lo=2023, year_hi=2026):
        d = self.rng.randint(1, 28)
        m = self.rng.randrange(12)
        y = self.rng.randint(year_lo, year_hi)
        return f"{d}. {MONTHS[m]} {y}", y

    def olddate(self, before):
        d = self.rng.randint(1, 28)
        m = self.rng.randrange(12)
        y = self.rng.randint(before - 14, before - 3)
        return f"{d}. {MONTHS[m]} {y}"


def paras(items):
    """[(heading, [absatz, ...]), ...] -> text with § numbers and (n) Absätze."""
    out = []
    for i, (head, abs_) in enumerate(items, 1):
        if len(abs_) == 1:
            body = abs_[0]
        else:
            body = "\n".join(f"({j}) {a}" for j, a in enumerate(abs_, 1))
        out.append(f"§ {i} {head}\n{body}")
    return "\n\n".join(out)


def shuffle_some(d, items, movable):
    """Swap neighbouring movable paragraphs for some towns, as real bylaws order them differently."""
    items = list(items)
    for a, b in movable:
        if d.rng.random() < 0.5:
            items[a], items[b] = items[b], items[a]
    return items


def inkraft(d, kind, oldname):
    date, y = d.date()
    old = d.olddate(y)
    if d.var() == 0:
        return ("Inkrafttreten", [f"Diese {kind} tritt am {date} in Kraft.",
                                  f"Gleichzeitig tritt die {oldname} vom {old} in der zuletzt geltenden Fassung außer Kraft."])
    return ("Inkrafttreten, Außerkrafttreten",
            [f"Diese {kind} tritt am {date} in Kraft; zugleich tritt die bisherige {oldname} vom {old} außer Kraft."])


def preamble(d, basis, what):
    if d.var() == 0:
        return f"Aufgrund {basis} hat {d.council} in seiner Sitzung am {d.date(2022, 2025)[0]} folgende {what} beschlossen:".replace(
            "die Stadtverordnetenversammlung in seiner", "die Stadtverordnetenversammlung in ihrer").replace(
            "die Ratsversammlung in seiner", "die Ratsversammlung in ihrer")
    return f"{d.council[0].upper() + d.council[1:]} hat aufgrund {basis} am {d.date(2022, 2025)[0]} die folgende {what} erlassen."


# ------------------------------------------------------------------------------------------
def hundesteuer(d):
    h1 = d.uniq("h1", [60, 72, 75, 84, 90, 96, 100, 108, 120, 132, 150])
    h2 = round(h1 * d.pick(1.25, 1.4, 1.5, 1.6, 1.8) / 6) * 6
    h3 = h2 + d.pick(0, 0, 12, 24, 30)
    g = d.uniq("g", [480, 540, 600, 612, 660, 720, 800, 900, 1000, 1200])
    age = d.pick(3, 4)
    frist = d.pick("zwei Wochen", "14 Tagen", "einem Monat", "vier Wochen")
    ersatz = d.pick(2.5, 3.0, 5.0, 7.5, 10.0)
    tierheim = d.pick(6, 12, 12, 24, 0)
    pct = d.pick(50, 50, 25, 0)
    buss = d.pick(2500, 5000, 10000)
    breeds = {
        "rp": "Pit Bull Terrier, American Staffordshire Terrier und Staffordshire Bullterrier",
        "by": "Pit-Bull, Bandog, American Staffordshire Terrier, Staffordshire Bullterrier und Tosa-Inu",
        "bb": "American Pitbull Terrier, American Staffordshire Terrier, Bullterrier und Tosa Inu",
        "bw": "American Staffordshire Terrier, Bullterrier und Pit Bull Terrier",
        "nw": "Pittbull Terrier, American Staffordshire Terrier, Staffordshire Bullterrier und Bullterrier",
    }.get(d.state)
    law = d.law
    pre = preamble(d, f"{law['go']} und {law['kag']}", "Satzung")
    if d.var() == 0:
        p1 = ("Geltungsbereich", [f"Diese Satzung gilt im gesamten Gebiet der Stadt {d.name}.",
                                  f"Die Stadt {d.name} erhebt eine Hundesteuer als örtliche Aufwandsteuer nach Maßgabe dieser Satzung.",
                                  "Gegenstand der Steuer ist das Halten von Hunden durch natürliche Personen für Zwecke der persönlichen Lebensführung."])
    else:
        p1 = ("Geltungsbereich und Steuergegenstand", [
            f"Die Stadt {d.name} erhebt für das Halten von Hunden in ihrem Gebiet eine Hundesteuer.",
            "Nicht der Steuer unterliegt das Halten von Hunden, die ausschließlich der Erfüllung öffentlicher Aufgaben oder der Berufsausübung dienen."])
    p2 = ("Steuerpflicht", [
        f"Steuerpflichtig ist, wer einen über {age} Monate alten Hund in seinen Haushalt oder Wirtschaftsbetrieb aufgenommen hat (Hundehalter).",
        "Alle in einem Haushalt gehaltenen Hunde gelten als von den Haushaltsmitgliedern gemeinsam gehalten; mehrere Halter haften als Gesamtschuldner.",
        d.pick("Wer einen Hund länger als zwei Monate in Pflege oder zum Anlernen hält, gilt als Halter.",
               "Als Halter gilt auch, wer einen Hund länger als drei Monate in Pflege oder Verwahrung genommen hat.")])
    rates = [f"Die Steuer beträgt im Kalenderjahr für den ersten Hund {d.eur(h1)}, für den Zweithund {d.eur(h2)} und für jeden weiteren Hund {d.eur(h3)}."
             if d.var() == 0 else
             f"Der Steuersatz beträgt jährlich a) für einen Hund {d.eur(h1)}, b) für den Zweithund {d.eur(h2)}, c) für den dritten und jeden weiteren Hund je {d.eur(h3)}.",
             f"Für das Halten eines gefährlichen Hundes beträgt der Steuersatz abweichend davon {d.eur(g)} im Jahr; gefährliche Hunde werden bei der Zählung als Zweithund nicht berücksichtigt.",
             d.pick("Steuerfreie Hunde werden bei der Berechnung der Zahl der Hunde nicht mitgezählt; ermäßigt zu versteuernde Hunde gelten als erste Hunde.",
                    "Hunde, für die eine Steuerbefreiung gewährt wird, bleiben bei der Ermittlung des Steuersatzes für weitere Hunde außer Betracht.")]
    if d.rng.random() < 0.6:
        rates.append("Beginnt oder endet die Steuerpflicht im Laufe des Kalenderjahres, wird die Steuer anteilig für jeden vollen Kalendermonat erhoben.")
    p3 = ("Steuersatz", rates)
    if breeds:
        gef = [f"Gefährliche Hunde sind insbesondere Hunde der Rassen {breeds} sowie deren Kreuzungen untereinander oder mit anderen Hunden.",
               "Gefährlich sind ferner Hunde, die sich als bissig erwiesen, Menschen oder Tiere gefährdend angesprungen oder wiederholt Wild oder Vieh gehetzt haben.",
               d.pick("Weist der Halter durch einen Wesenstest nach, dass sein Hund keine gesteigerte Aggressivität zeigt, gilt der allgemeine Steuersatz.",
                      "Der Nachweis der Ungefährlichkeit durch ein Sachverständigengutachten befreit nicht von dem erhöhten Steuersatz.")]
    else:
        gef = ["Gefährliche Hunde im Sinne dieser Satzung sind Hunde, deren Gefährlichkeit die zuständige Behörde nach dem Landesrecht durch Verwaltungsakt festgestellt hat.",
               "Eine Zuordnung allein nach der Rasse erfolgt nicht; maßgeblich ist das Verhalten des einzelnen Hundes, etwa ein Beißvorfall gegenüber Menschen oder Tieren."]
    p4 = ("Gefährliche Hunde", gef)
    bef = ["Blindenführhunden und Assistenzhunden, die zum Schutz und zur Hilfe blinder, gehörloser oder sonst hilfsbedürftiger Personen unentbehrlich sind",
           "Rettungshunden, die eine Prüfung für den Rettungsdienst oder Katastrophenschutz abgelegt haben",
           "Diensthunden von Polizei, Zoll und Bundeswehr, die privat gehalten werden",
           "Herdengebrauchshunden in der erforderlichen Anzahl"]
    d.rng.shuffle(bef)
    bef = bef[:d.rng.randint(2, 4)]
    if tierheim:
        bef.append(f"Hunden, die aus einem Tierheim aufgenommen wurden, für die Dauer von {tierheim} Monaten")
    befr = ["Steuerbefreiung ist auf Antrag zu gewähren für das Halten von " + "; ".join(f"{i}. {b}" for i, b in enumerate(bef, 1)) + ".",
            d.pick("Für gefährliche Hunde wird keine Steuerbefreiung gewährt.",
                   "Die Steuerbefreiung wird vom Beginn des Monats an gewährt, in dem der Antrag gestellt wird; die Voraussetzungen sind nachzuweisen.")]
    p5 = ("Steuerbefreiung", befr)
    erm = []
    if pct:
        erm.append(f"Die Steuer für einen Hund ist auf Antrag um {pct} Prozent zu ermäßigen für Halter, die Bürgergeld, Sozialhilfe, Grundsicherung im Alter oder Leistungen nach dem Asylbewerberleistungsgesetz beziehen.")
    erm.append(f"Für Hunde, die zur Bewachung von Gebäuden gehalten werden, die mehr als {d.pick(200, 300, 400, 500)} Meter vom nächsten bewohnten Gebäude entfernt liegen, wird die Steuer auf Antrag um {d.pick(25, 50)} Prozent ermäßigt.")
    p6 = ("Steuerermäßigung", erm)
    due = d.pick("zu je einem Viertel ihres Jahresbetrages am 15. Februar, 15. Mai, 15. August und 15. November fällig",
                 "jährlich am 1. Juli in einem Betrag fällig",
                 "mit ihrem Jahresbetrag am 1. März fällig; auf Antrag kann sie vierteljährlich entrichtet werden")
    p7 = ("Beginn und Ende der Steuerpflicht, Fälligkeit", [
        "Die Steuerpflicht beginnt mit dem ersten Tag des Kalendermonats, der auf die Aufnahme des Hundes folgt, frühestens mit dem Monat, in dem der Hund das steuerpflichtige Alter erreicht.",
        "Sie endet mit Ablauf des Kalendermonats, in dem der Hund abgeschafft wird, abhanden kommt oder stirbt.",
        f"Die Steuer wird durch Bescheid festgesetzt und ist {due}."])
    p8 = ("Anmeldung, Abmeldung und Hundesteuermarke", [
        f"Wer einen Hund aufnimmt oder mit einem Hund zuzieht, hat ihn innerhalb von {frist} bei der Stadtverwaltung (Steueramt) schriftlich oder elektronisch anzumelden; die Anmeldung eines gefährlichen Hundes ist mit den Nachweisen zu verbinden.",
        f"Die Abmeldung hat innerhalb von {d.pick('zwei Wochen', '14 Tagen', 'einem Monat')} nach dem Ende der Haltung zu erfolgen; bei Abgabe an eine andere Person sind deren Name und Anschrift anzugeben.",
        f"Mit der Anmeldung erhält der Halter eine Hundesteuermarke, die der Hund außerhalb der Wohnung sichtbar zu tragen hat. Für eine verlorene Marke wird eine Ersatzmarke gegen eine Gebühr von {d.eur(ersatz)} ausgegeben."])
    p9 = ("Ordnungswidrigkeiten", [
        f"Ordnungswidrig handelt, wer vorsätzlich oder leichtfertig einen Hund nicht oder nicht fristgerecht anmeldet oder abmeldet oder die Hundesteuermarke nicht sichtbar anlegt. Die Ordnungswidrigkeit kann mit einer Geldbuße bis zu {d.eur(buss)} geahndet werden."])
    mid = shuffle_some(d, [p2, p3, p4, p5, p6, p7, p8], [(3, 4), (5, 6)])
    return pre, [p1] + mid + [p9, inkraft(d, "Satzung", "Hundesteuersatzung")]


def abfall(d):
    per_l = d.uniq("per_l", [0.85, 0.95, 1.05, 1.2, 1.35, 1.5, 1.7, 1.9, 2.05])
    weeks = d.pick("14-täglicher", "vierwöchentlicher", "14-täglicher")
    person = d.var() == 1 and d.rng.random() < 0.7
    sizes = [60, 80, 120, 240, 1100] if d.rng.random() < 0.5 else [40, 60, 120, 240, 770, 1100]
    law = d.law
    pre = preamble(d, f"{law['go']} und {law['kag']} in Verbindung mit dem Kreislaufwirtschaftsgesetz und dem Landesabfallrecht", "Satzung")
    p1 = ("Geltungsbereich", [
        d.pick(f"Die Stadt {d.name} betreibt die Abfallentsorgung in ihrem Gebiet als öffentliche Einrichtung und erhebt für deren Benutzung Gebühren nach dieser Satzung.",
               f"Diese Satzung gilt für die Benutzung der öffentlichen Einrichtung Abfallentsorgung der Stadt {d.name}."),
        "Mit den Gebühren werden die Kosten der Sammlung, Beförderung, Verwertung und Beseitigung von Restmüll, Bioabfall und Sperrmüll sowie der Betrieb der Wertstoffhöfe und die Abfallberatung gedeckt."])
    if person:
        grund = d.pick(24, 30, 36, 42, 48) + d.tidx
        masz = ("Gebührenmaßstab", [
            f"Die Gebühr setzt sich aus einer Grundgebühr und einer Leistungsgebühr zusammen. Die Grundgebühr beträgt {d.eur(grund)} je Person und Jahr, die auf dem Grundstück mit Haupt- oder Nebenwohnung gemeldet ist.",
            f"Die Leistungsgebühr richtet sich nach dem Volumen des Restmüllbehälters bei {weeks} Leerung."])
        factor = 0.55
    else:
        masz = ("Gebührenmaßstab", [
            f"Maßstab für die Gebühr ist das Volumen der auf dem Grundstück vorgehaltenen Abfallbehälter und die Zahl der Leerungen; die Regelabfuhr erfolgt in {weeks} Leerung.",
            "Jedes Grundstück muss mindestens ein Behältervolumen von 10 Litern Restmüll je Person und Woche vorhalten."])
        factor = 1.0
    rest = [f"{s} Liter: {d.eur(round(s * per_l * factor * (0.9 if s >= 770 else 1.0), 0))}" for s in sizes]
    p3 = ("Gebühren für Restmüll", [
        "Die jährliche Gebühr für einen Restmüllbehälter beträgt bei einem Volumen von " + ", ".join(rest) + ".",
        d.pick("Für Abfallsäcke für vorübergehend anfallenden Restmüll beträgt die Gebühr je Sack {}.".format(d.eur(d.pick(3.5, 4.0, 5.0, 6.0))),
               "Für eine zusätzliche Leerung auf Antrag wird je Behälter eine Gebühr von {} erhoben.".format(d.eur(d.pick(8.0, 12.5, 15.0, 18.0))))])
    bio120 = d.uniq("bio", [36, 42, 48, 54, 60, 66, 72, 84, 96])
    if d.rng.random() < 0.3:
        bio = [f"Die Gebühr für die Biotonne ist in der Gebühr für Restmüll enthalten; für jede weitere Biotonne mit 120 Litern werden jährlich {d.eur(bio120)} erhoben."]
    else:
        bio = [f"Die jährliche Gebühr für die Biotonne beträgt bei 120 Litern {d.eur(bio120)} und bei 240 Litern {d.eur(bio120 * 1.8)}."]
    bio.append(d.pick("Wer nachweist, dass er alle kompostierbaren Abfälle auf dem eigenen Grundstück ordnungsgemäß verwertet (Eigenkompostierung), wird auf Antrag von der Pflicht zur Biotonne befreit.",
                      f"Eigenkompostierer erhalten auf Antrag einen Abschlag von {d.pick(10, 15, 20)} Prozent auf die Restmüllgebühr; eine Befreiung von der Biotonne ist nicht möglich."))
    p4 = ("Gebühren für Bioabfall", bio)
    free = d.pick(0, 1, 2, 2, 4)
    if free:
        sp = [f"Je Haushalt und Kalenderjahr sind {free} Abholung{'en' if free > 1 else ''} von Sperrmüll bis zu je {d.pick(2, 3, 4, 5)} Kubikmetern mit der Gebühr abgegolten.",
              f"Jede weitere Abholung kostet {d.eur(d.pick(25, 30, 35, 40, 50))}; eine Expressabholung innerhalb von fünf Werktagen kostet zusätzlich {d.eur(d.pick(40, 50, 60))}."]
    else:
        sp = [f"Für die Abholung von Sperrmüll wird je Auftrag bis zu drei Kubikmetern eine Gebühr von {d.eur(d.pick(20, 25, 29.5, 35))} erhoben, für jeden weiteren Kubikmeter {d.eur(d.pick(10, 12, 15))}.",
              "Große Elektrogeräte, Kühlschränke und Waschmaschinen werden gebührenfrei abgeholt."]
    sp.append(f"Die Abholung ist mindestens {d.pick(5, 7, 10, 14)} Tage vorher bei der Abfallberatung telefonisch, schriftlich oder online anzumelden; bereitgestellt werden darf der Sperrmüll frühestens am Vorabend.")
    p5 = ("Sperrmüll", sp)
    p6 = ("Grünschnitt und Wertstoffhof", [
        f"Grünschnitt aus Haushalten wird am Wertstoffhof bis zu {d.pick(1, 1, 2, 3)} Kubikmeter je Anlieferung gebührenfrei angenommen; darüber hinaus beträgt die Gebühr {d.eur(d.pick(5, 8, 10, 12.5))} je angefangenem Kubikmeter.",
        d.pick("Altpapier, Glas, Metalle und Kunststoffe werden am Wertstoffhof gebührenfrei angenommen.",
               f"Für die Anlieferung von Bauschutt aus Haushalten bis 100 Liter werden {d.eur(d.pick(3, 5, 6))} erhoben.")])
    p7 = ("Ermäßigungen", [
        f"Haushalte mit Kindern unter {d.pick(2, 3, 3)} Jahren sowie Haushalte mit pflegebedürftigen Personen erhalten auf Antrag {d.pick('eine gebührenfreie Windeltonne mit 120 Litern', 'kostenlose Windelsäcke', 'eine Ermäßigung der Restmüllgebühr um 50 Prozent für einen Behälter')}.",
        "Der Antrag ist jährlich neu zu stellen."])
    p8 = ("Gebührenpflichtige, Entstehung und Fälligkeit", [
        "Gebührenpflichtig sind die Eigentümer der angeschlossenen Grundstücke, Erbbauberechtigte und Wohnungseigentümer; mehrere Gebührenpflichtige haften als Gesamtschuldner.",
        "Die Gebührenpflicht entsteht mit dem Ersten des Monats, der auf die Bereitstellung der Abfallbehälter folgt, und endet mit Ablauf des Monats, in dem die Behälter abgezogen werden.",
        d.pick("Die Gebühren werden durch Bescheid festgesetzt und zu je einem Viertel am 15. Februar, 15. Mai, 15. August und 15. November fällig.",
               "Die Gebühren werden zusammen mit der Grundsteuer angefordert und zu deren Fälligkeitsterminen fällig.")])
    p9 = ("Behälteränderung", [
        f"Für den Tausch eines Abfallbehälters auf Wunsch des Gebührenpflichtigen wird eine Verwaltungsgebühr von {d.eur(d.pick(10, 15, 20, 25))} erhoben; die erste Anpassung nach einem Eigentümerwechsel ist gebührenfrei."])
    mid = shuffle_some(d, [masz, p3, p4, p5, p6, p7, p8, p9], [(3, 4), (5, 6), (6, 7)])
    return pre, [p1] + mid + [inkraft(d, "Satzung", "Abfallgebührensatzung")]


def parken(d):
    z1 = d.uniq("z1", [1.5, 1.8, 2.0, 2.2, 2.4, 2.5, 3.0, 3.2, 3.5])
    z2 = round(z1 * d.pick(0.5, 0.6, 0.75), 1)
    z3 = d.pick(0.5, 0.8, 1.0)
    max1 = d.pick(1, 2, 2, 3)
    unit = d.pick(10, 15, 20, 30)
    bpa = d.uniq("bpa", [30.7, 40, 60, 90, 120, 150, 180, 200, 240])
    law = d.law
    pre = (f"Aufgrund des § 6a Absatz 5a, 6 und 7 des Straßenverkehrsgesetzes (StVG) in Verbindung mit der Landesverordnung über Zuständigkeiten im Straßenverkehr des Landes {law['land']} "
           f"wird verordnet:" if d.var() == 0 else
           f"Auf Grund des § 6a des Straßenverkehrsgesetzes (StVG) und des Landesrechts von {law['land']} hat {d.council} am {d.date(2022, 2025)[0]} die folgende Parkgebührenordnung beschlossen:")
    p1 = ("Geltungsbereich", [
        d.pick(f"Diese Verordnung gilt für das Parken auf öffentlichen Straßen, Wegen und Plätzen der Stadt {d.name}, soweit das Parken durch Verkehrszeichen an Parkscheinautomaten gebührenpflichtig ist.",
               f"Im Gebiet der Stadt {d.name} werden für das Parken an Parkscheinautomaten und für Bewohnerparkausweise Gebühren nach dieser Verordnung erhoben."),
        "Die Parkflächen sind in Gebührenzonen eingeteilt; die Abgrenzung ergibt sich aus dem anliegenden Lageplan, der Bestandteil dieser Verordnung ist."])
    p2 = ("Parkgebühren", [
        f"Die Parkgebühr beträgt in der Zone I (Innenstadt) {d.eur(z1)}, in der Zone II (Innenstadtrand) {d.eur(z2)} und in der Zone III (Park-and-Ride-Flächen) {d.eur(z3)} je Stunde.",
        f"Die Gebühr wird in Zeiteinheiten von {unit} Minuten erhoben; die Mindestgebühr beträgt {d.eur(round(z1 * unit / 60, 2))}.",
        d.pick(f"In der Zone III kann ein Tagesticket zu {d.eur(d.pick(3, 4, 5, 6))} gelöst werden.",
               f"Die ersten {d.pick(15, 20, 30)} Minuten sind an besonders gekennzeichneten Parkscheinautomaten gebührenfrei (Brötchentaste); ein Parkschein ist gleichwohl zu ziehen.")])
    p3 = ("Gebührenpflichtige Zeiten und Höchstparkdauer", [
        f"Gebührenpflicht besteht montags bis freitags von {d.pick(8, 8, 9)} bis {d.pick(18, 19, 20)} Uhr und samstags von {d.pick(8, 9)} bis {d.pick(14, 16, 18)} Uhr; an Sonn- und Feiertagen ist das Parken gebührenfrei.",
        f"Die Höchstparkdauer beträgt in der Zone I {max1} Stunde{'n' if max1 > 1 else ''} und in der Zone II {max1 + d.pick(1, 2)} Stunden; in der Zone III ist die Parkdauer nicht beschränkt."])
    p4 = ("Entrichtung der Gebühr", [
        "Die Gebühr ist bei Beginn des Parkens am Parkscheinautomaten mit Münzen, Girocard oder Kreditkarte oder über einen zugelassenen Anbieter für Handyparken zu entrichten.",
        d.pick("Der Parkschein ist gut lesbar hinter der Windschutzscheibe auszulegen.",
               "Beim Handyparken wird minutengenau abgerechnet; die Servicegebühr des Anbieters ist nicht Teil der Parkgebühr."),
        "Bei einem defekten Parkscheinautomaten ist der nächstgelegene Automat zu benutzen oder die Parkscheibe auszulegen; die Höchstparkdauer gilt entsprechend."])
    bew = [f"Die Gebühr für einen Bewohnerparkausweis beträgt {d.eur(bpa)} für ein Jahr{d.pick('', f' und {d.eur(round(bpa / 2 + 5, 2))} für ein halbes Jahr')}.",
           "Einen Bewohnerparkausweis erhält auf Antrag, wer im Bewohnerparkgebiet mit Hauptwohnsitz gemeldet ist und Halter eines auf ihn zugelassenen Fahrzeugs ist oder ein ihm dauerhaft zur Nutzung überlassenes Fahrzeug nachweist; je Person wird nur ein Ausweis ausgegeben.",
           "Der Bewohnerparkausweis berechtigt zum Parken ohne Parkschein nur in der darauf bezeichneten Bewohnerparkzone; ein Anspruch auf einen freien Stellplatz besteht nicht."]
    if d.rng.random() < 0.6:
        bew.append(f"Für Inhaber eines Schwerbehindertenausweises mit dem Merkzeichen G oder aG sowie für Empfänger von Sozialleistungen ermäßigt sich die Gebühr um {d.pick(50, 50, 75)} Prozent.")
    bew.append(f"Für die Änderung des Kennzeichens oder einen Ersatzausweis wird eine Gebühr von {d.eur(d.pick(10, 12.5, 15, 20))} erhoben.")
    p5 = ("Bewohnerparken", bew)
    bef = ["Von der Parkgebühr befreit sind Fahrzeuge von Inhabern eines blauen EU-Parkausweises für Menschen mit Behinderung sowie Einsatzfahrzeuge im Dienst."]
    ev = d.pick(0, 0, 1, 2)
    if ev:
        bef.append(f"Elektrofahrzeuge mit E-Kennzeichen dürfen bis zu {ev} Stunde{'n' if ev > 1 else ''} gebührenfrei parken, wenn die Parkscheibe ausgelegt ist.")
    else:
        bef.append("Elektrofahrzeuge sind nicht befreit; an Ladesäulen gilt die dort angeordnete Parkdauer.")
    bef.append(f"Handwerksbetriebe können einen Parkausweis für Handwerker zu einer Gebühr von {d.eur(d.pick(150, 200, 250, 300, 360))} jährlich beantragen.")
    p6 = ("Ausnahmen und Befreiungen", bef)
    mid = shuffle_some(d, [p2, p3, p4, p5, p6], [(1, 2), (3, 4)])
    ink = inkraft(d, "Verordnung", "Parkgebührenordnung")
    return pre, [p1] + mid + [ink]


def friedhof(d):
    rz_e = d.pick(20, 20, 25, 25, 30)
    rz_k = d.pick(10, 15, 15, 20)
    rz_u = d.pick(15, 20, 20, 25)
    nutz = d.pick(25, 30, 30, 40)
    k = d.uniq("k", [0.8, 0.88, 0.95, 1.0, 1.08, 1.15, 1.25, 1.33, 1.4])
    law = d.law
    pre = preamble(d, f"{law['go']}, {law['best']} und {law['kag']}", "Satzung")
    p1 = ("Geltungsbereich", [
        d.pick(f"Diese Satzung gilt für die Friedhöfe und die Bestattungseinrichtungen der Stadt {d.name}.",
               f"Für die Benutzung der städtischen Friedhöfe und Bestattungseinrichtungen der Stadt {d.name} werden Gebühren nach dieser Satzung erhoben."),
        "Für Leistungen, die in dieser Satzung nicht aufgeführt sind, werden Gebühren nach dem tatsächlichen Aufwand berechnet."])
    p2 = ("Gebührenschuldner", [d.pick(
        "Gebührenschuldner ist, wer die Leistung beantragt oder in wessen Auftrag sie erbracht wird, sowie der jeweilige Nutzungsberechtigte einer Grabstätte.",
        "Zur Zahlung der Gebühren ist verpflichtet, wer die Benutzung der Friedhöfe oder die Leistung beantragt; daneben haften die nach dem Bestattungsrecht zur Bestattung verpflichteten Angehörigen."),
        "Mehrere Gebührenschuldner haften als Gesamtschuldner."])
    p3 = ("Bestattungsgebühren", [
        f"Für das Öffnen und Schließen des Grabes werden erhoben: bei einer Erdbestattung von Personen ab dem vollendeten {d.pick(5, 10)}. Lebensjahr {d.eur(round(780 * k, -1))}, bei einer Erdbestattung von Kindern {d.eur(round(330 * k, -1))}, bei einer Urnenbeisetzung {d.eur(round(260 * k, -1))}.",
        f"Für Bestattungen an Samstagen wird ein Zuschlag von {d.pick(25, 30, 40, 50)} Prozent erhoben; an Sonn- und Feiertagen finden keine Bestattungen statt."])
    p4 = ("Ruhezeit", [
        f"Die Ruhezeit beträgt für Erdbestattungen {rz_e} Jahre, für Verstorbene bis zum vollendeten zehnten Lebensjahr {rz_k} Jahre und für Urnenbeisetzungen {rz_u} Jahre."])
    graves = [f"Reihengrab für die Dauer der Ruhezeit {d.eur(round(1100 * k, -1))}",
              f"Wahlgrab je Grabstelle für {nutz} Jahre {d.eur(round(1800 * k, -1))}",
              f"Urnenreihengrab {d.eur(round(650 * k, -1))}",
              f"Urnenwahlgrab für bis zu vier Urnen für {nutz} Jahre {d.eur(round(1150 * k, -1))}"]
    if d.rng.random() < 0.7:
        graves.append(f"Baumgrab (Urnenbeisetzung unter Bäumen) einschließlich Pflege {d.eur(round(d.pick(1300, 1500, 1700) * k, -1))}")
    if d.rng.random() < 0.6:
        graves.append(f"Grabstätte in der anonymen Urnengemeinschaftsanlage {d.eur(round(d.pick(700, 850, 950) * k, -1))}")
    p5 = ("Gebühren für das Nutzungsrecht an Grabstätten", [
        "Für die Verleihung des Nutzungsrechts an einer Grabstätte werden erhoben: " + "; ".join(graves) + ".",
        f"Die Verlängerung des Nutzungsrechts an einem Wahlgrab kostet je Grabstelle und Jahr {d.eur(round(1800 * k / nutz, 2))}.",
        d.pick("Das Nutzungsrecht an einem Reihengrab kann nicht verlängert werden.",
               "Bei vorzeitiger Rückgabe eines Nutzungsrechts werden Gebühren nicht erstattet.")])
    p6 = ("Trauerhalle und Kühlzelle", [
        f"Für die Benutzung der Trauerhalle zu einer Trauerfeier werden {d.eur(round(d.pick(180, 240, 300, 360) * k, -1))} erhoben, für die Benutzung einer Kühlzelle je angefangenem Tag {d.eur(round(d.pick(22, 28, 35, 40) * k, 0))}."])
    p7 = ("Sonstige Gebühren", [
        f"Für die Genehmigung zur Errichtung eines Grabmals beträgt die Gebühr {d.eur(d.pick(45, 55, 65, 80))}, für die Ausgrabung oder Umbettung einer Urne {d.eur(round(320 * k, -1))} und einer Leiche {d.eur(round(1250 * k, -1))}.",
        d.pick("Für das Abräumen einer Grabstätte nach Ablauf der Ruhezeit durch die Friedhofsverwaltung werden die Kosten nach Aufwand erhoben.",
               f"Für die Ausstellung einer Graburkunde wird eine Gebühr von {d.eur(d.pick(15, 20, 25))} erhoben.")])
    p8 = ("Entstehung und Fälligkeit", [
        "Die Gebührenschuld entsteht mit der Inanspruchnahme der Leistung, beim Nutzungsrecht mit dessen Verleihung.",
        f"Die Gebühren werden durch Bescheid festgesetzt und {d.pick('einen Monat', 'zwei Wochen', 'vier Wochen')} nach Bekanntgabe des Bescheides fällig."])
    mid = shuffle_some(d, [p2, p3, p4, p5, p6, p7, p8], [(1, 2), (4, 5)])
    return pre, [p1] + mid + [inkraft(d, "Satzung", "Friedhofsgebührensatzung")]


def laerm(d):
    night_end, mitt, (lo, hi) = d.uniq("ruhe", [
        (6, (13, 15), (7, 20)), (7, None, (7, 20)), (6, (12, 14), (8, 20)), (6, None, (8, 19)),
        (7, (13, 15), (8, 20)), (6, (12, 15), (7, 19)), (6, None, (7, 20)), (7, (12, 14), (8, 19)),
        (6, (13, 15), (8, 19))])
    glas = d.pick((7, 20), (8, 20), (8, 19), (7, 19), (8, 18))
    mus = d.pick(2, 2, 3, 1)
    buss = d.pick(1000, 2500, 5000, 5000)
    law = d.law
    kind = d.law["laermshort"]
    art = "Diese"
    if d.var() == 0:
        gen = {"der Stadtrat": "des Stadtrates", "der Rat": "des Rates", "der Gemeinderat": "des Gemeinderates",
               "die Ratsversammlung": "der Ratsversammlung",
               "die Stadtverordnetenversammlung": "der Stadtverordnetenversammlung"}[d.council]
        pre = f"Aufgrund {law['ord']} wird von der Stadtverwaltung als örtlicher Ordnungsbehörde mit Zustimmung {gen} folgende {kind} erlassen:"
    else:
        pre = f"Auf Grund {law['ord']} erlässt die Stadt als Ordnungsbehörde folgende {kind}:"
    p1 = ("Geltungsbereich", [
        d.pick(f"{art} {kind} gilt für das gesamte Gebiet der Stadt {d.name}.",
               f"Die Vorschriften dieser {kind} gelten im Gebiet der Stadt {d.name} zum Schutz der Allgemeinheit vor Lärm."),
        "Weitergehende Vorschriften des Bundes und des Landes, insbesondere des Bundes-Immissionsschutzgesetzes und der Geräte- und Maschinenlärmschutzverordnung, bleiben unberührt."])
    ruhe = [f"Nachtruhe ist von 22 Uhr bis {night_end} Uhr. Während der Nachtruhe sind Betätigungen verboten, die die Ruhe unbeteiligter Personen stören."]
    if mitt:
        ruhe.append(f"Mittagsruhe ist werktags von {mitt[0]} Uhr bis {mitt[1]} Uhr{d.pick('', ' in Wohngebieten')}; in dieser Zeit sind lärmintensive Tätigkeiten im Freien und in Gebäuden untersagt.")
    else:
        ruhe.append("Eine allgemeine Mittagsruhe wird nicht festgesetzt; auf die Nachbarschaft ist gleichwohl Rücksicht zu nehmen.")
    ruhe.append("An Sonn- und Feiertagen ist ganztägig Ruhe zu halten; verboten sind insbesondere Haus- und Gartenarbeiten, die die Ruhe stören.")
    p2 = ("Ruhezeiten", ruhe)
    garten = [f"Rasenmäher und andere motorbetriebene Gartengeräte dürfen in Wohngebieten nur werktags von {lo} Uhr bis {hi} Uhr{' außerhalb der Mittagsruhe' if mitt else ''} betrieben werden.",
              f"Laubbläser, Laubsammler, Freischneider und Motorsägen dürfen nur werktags von {d.pick(9, 9, 8)} bis 13 Uhr und von 15 bis {d.pick(17, 17, 18)} Uhr betrieben werden, sofern sie nicht das EU-Umweltzeichen tragen."]
    if d.rng.random() < 0.5:
        garten.append(f"Samstags endet die zulässige Betriebszeit bereits um {d.pick(17, 18, 19)} Uhr.")
    p3 = ("Gartengeräte und Rasenmäher", garten)
    p4 = ("Musizieren und Tonwiedergabegeräte", [
        "Rundfunk- und Fernsehgeräte, Lautsprecher und Musikinstrumente dürfen nur in Zimmerlautstärke benutzt werden; in Gärten und auf Balkonen ist darauf zu achten, dass Unbeteiligte nicht erheblich belästigt werden.",
        f"Das Musizieren ist außerhalb der Ruhezeiten bis zu {mus} Stunde{'n' if mus > 1 else ''} täglich zulässig{d.pick('', ', bei geschlossenen Fenstern auch länger')}."])
    p5 = ("Glascontainer", [
        f"Der Einwurf in Altglascontainer und andere Wertstoffcontainer ist nur werktags von {glas[0]} Uhr bis {glas[1]} Uhr gestattet; an Sonn- und Feiertagen ist er verboten."])
    fw = ["Pyrotechnische Gegenstände der Kategorie F2 dürfen nur am 31. Dezember und am 1. Januar abgebrannt werden."]
    fw.append(d.pick("In der Nähe von Kirchen, Krankenhäusern, Kinder- und Altenheimen sowie besonders brandempfindlichen Gebäuden ist das Abbrennen ganzjährig verboten.",
                     "In der Altstadt innerhalb des im Lageplan bezeichneten Bereichs ist das Abbrennen von Feuerwerk ganzjährig verboten.",
                     f"Das Abbrennen ist am 31. Dezember erst ab {d.pick(18, 20)} Uhr und am 1. Januar nur bis {d.pick(1, 2)} Uhr erlaubt."))
    p6 = ("Feuerwerk", fw)
    p7 = ("Tierhaltung", [d.pick(
        "Tiere sind so zu halten, dass niemand durch anhaltende Tiergeräusche, insbesondere anhaltendes Hundegebell, mehr als nach den Umständen unvermeidbar gestört wird.",
        "Wer Tiere hält, hat dafür zu sorgen, dass Nachbarn durch Bellen, Heulen oder sonstige Tiergeräusche nicht erheblich belästigt werden; während der Nachtruhe sind Hunde so unterzubringen, dass ihr Lärm nicht nach außen dringt.")])
    p8 = ("Ausnahmen", [d.pick(
        "Die Ordnungsbehörde kann auf Antrag Ausnahmen von dieser Verordnung zulassen, wenn ein öffentliches Interesse besteht, etwa für Volksfeste, Märkte und Veranstaltungen; die Ausnahme kann mit Auflagen verbunden werden.",
        f"Ausnahmen von den Ruhezeiten können für Veranstaltungen im Freien, Straßenfeste und Baustellen auf Antrag zugelassen werden; der Antrag ist spätestens {d.pick('zwei Wochen', 'vier Wochen', 'einen Monat')} vorher bei der Ordnungsbehörde zu stellen."),
        "Unaufschiebbare Arbeiten zur Abwendung einer Gefahr sind von den Verboten ausgenommen."])
    p9 = ("Ordnungswidrigkeiten", [
        f"Ordnungswidrig handelt, wer vorsätzlich oder fahrlässig gegen die Ruhezeiten oder die Betriebszeiten für Gartengeräte und Glascontainer verstößt. Die Ordnungswidrigkeit kann mit einer Geldbuße bis zu {d.eur(buss)} geahndet werden."])
    mid = shuffle_some(d, [p2, p3, p4, p5, p6, p7, p8], [(2, 3), (4, 5)])
    date, y = d.date()
    if d.var() == 0:
        ink = ("Inkrafttreten, Geltungsdauer", [f"{art} {kind} tritt am Tag nach ihrer öffentlichen Bekanntmachung in Kraft.",
                                                f"Sie gilt für die Dauer von {d.pick(10, 20)} Jahren; zugleich tritt die bisherige {kind} vom {d.olddate(y)} außer Kraft."])
    else:
        ink = ("Inkrafttreten", [f"{art} {kind} tritt am {date} in Kraft. Die {kind} vom {d.olddate(y)} tritt zum selben Zeitpunkt außer Kraft."])
    return pre, [p1] + mid + [p9, ink]


def winterdienst(d):
    width = d.pick("1,00", "1,20", "1,20", "1,50", "1,25")
    wd = d.pick("7.00", "7.00", "7.30", "8.00")
    sd = d.pick("8.00", "9.00", "9.00", "10.00")
    end = d.pick(20, 20, 21, 22)
    k1 = d.uniq("k1", [1.1, 1.35, 1.6, 1.85, 2.1, 2.4, 2.75, 3.1])
    wdg = d.uniq("wdg", [0.45, 0.55, 0.65, 0.8, 0.95, 1.05, 1.2, 1.35])
    ecke = d.pick(0, 25, 30, 50)
    law = d.law
    pre = preamble(d, f"{law['go']}, {law['str']} und {law['kag']}", "Satzung")
    p1 = ("Geltungsbereich", [
        d.pick(f"Diese Satzung regelt die Reinigung und den Winterdienst auf den öffentlichen Straßen, Wegen und Plätzen innerhalb der geschlossenen Ortslage der Stadt {d.name}.",
               f"Die Stadt {d.name} reinigt die öffentlichen Straßen innerhalb der geschlossenen Ortslage als öffentliche Einrichtung, soweit die Reinigung nicht nach dieser Satzung den Anliegern übertragen ist."),
        "Zur Straße gehören Fahrbahnen, Gehwege, Radwege, Parkstreifen, Rinnsteine und Straßenbegleitgrün."])
    p2 = ("Übertragung der Reinigungspflicht", [
        d.pick("Die Reinigung der Gehwege und Rinnsteine sowie der Winterdienst auf den Gehwegen werden den Eigentümern der an die Straße angrenzenden Grundstücke (Anlieger) übertragen; Erbbauberechtigte und Nießbraucher stehen ihnen gleich.",
               "Den Eigentümern der an öffentliche Straßen angrenzenden und der durch sie erschlossenen Grundstücke (Anlieger) obliegen die Reinigung der Gehwege und Rinnsteine sowie das Schneeräumen und Streuen auf den Gehwegen; Mieter können die Pflicht durch Vertrag übernehmen, der Eigentümer bleibt verantwortlich."),
        "Ist kein Gehweg vorhanden, gilt als Gehweg ein Streifen von 1,50 Metern Breite entlang der Grundstücksgrenze am Fahrbahnrand."])
    rein = [d.pick("Die Gehwege sind wöchentlich, in der Regel bis Samstag 18 Uhr, und bei besonderer Verschmutzung unverzüglich zu reinigen" + (" (Kehrwoche)." if d.state == "bw" else "."),
                   "Die Gehwege und Rinnsteine sind nach Bedarf, mindestens jedoch einmal wöchentlich, zu kehren; Laub ist zu entfernen, sobald es eine Gefahr bildet."),
            "Kehricht, Laub und Unrat dürfen nicht in Straßenrinnen, Sinkkästen oder auf die Fahrbahn gekehrt werden; Wildkraut in Fugen ist ohne Herbizide zu beseitigen."]
    p3 = ("Umfang der Reinigung", rein)
    p4 = ("Schneeräumen", [
        f"Die Anlieger haben die Gehwege bei Schneefall in einer Breite von mindestens {width} Metern von Schnee freizuhalten; vor Hauseingängen und an Haltestellen ist ein Zugang zur Fahrbahn zu schaffen.",
        d.pick(f"Die Gehwege müssen werktags bis {wd} Uhr, an Sonn- und Feiertagen bis {sd} Uhr geräumt sein; die Räumpflicht besteht bis {end} Uhr. Nach {end} Uhr gefallener Schnee und entstandene Glätte sind bis {wd} Uhr des folgenden Werktags zu beseitigen.",
               f"Die Räumpflicht besteht werktags ab {wd} Uhr, an Sonn- und gesetzlichen Feiertagen ab {sd} Uhr und endet um {end} Uhr; bei andauerndem Schneefall ist wiederholt zu räumen."),
        "Der geräumte Schnee ist auf dem Gehwegrand oder dem eigenen Grundstück zu lagern; er darf nicht auf die Fahrbahn geschoben werden. Hydranten, Sinkkästen und Fußgängerüberwege sind freizuhalten."])
    salz = d.pick("Die Verwendung von Streusalz ist verboten; ausgenommen sind Treppen, Rampen und starke Gefällstrecken sowie Eisregen.",
                  "Streusalz darf nur in geringen Mengen bei Eisregen, auf Treppen und an Gefällstrecken verwendet werden; auf Baumscheiben und begrünten Flächen ist es verboten.")
    p5 = ("Streupflicht", [
        "Bei Glätte sind die Gehwege mit abstumpfenden Stoffen wie Sand, Splitt oder Granulat zu bestreuen; das Streuen ist so oft zu wiederholen, wie es zur Verhütung von Unfällen erforderlich ist.",
        salz,
        "Nach Ende der Frostperiode sind die Rückstände des Streuguts zu beseitigen."])
    klassen = [f"Reinigungsklasse 1 (wöchentliche Fahrbahnreinigung) {d.eur(round(k1, 2))}",
               f"Reinigungsklasse 2 (vierzehntägliche Fahrbahnreinigung) {d.eur(round(k1 * 0.55, 2))}"]
    if d.rng.random() < 0.6:
        klassen.append(f"Reinigungsklasse 3 (Innenstadt, zweimal wöchentlich) {d.eur(round(k1 * 1.9, 2))}")
    p6 = ("Straßenreinigungsgebühren", [
        "Für die von der Stadt durchgeführte Fahrbahnreinigung werden Gebühren erhoben. Maßstab ist die Länge der an die Straße grenzenden Grundstücksseite (Frontmeter).",
        "Die jährliche Straßenreinigungsgebühr beträgt je Frontmeter: " + "; ".join(klassen) + ".",
        f"Für den Winterdienst auf der Fahrbahn wird zusätzlich eine Gebühr von {d.eur(round(wdg, 2))} je Frontmeter und Jahr erhoben." +
        (f" Bei Eckgrundstücken wird die längere Seite voll, die kürzere um {ecke} Prozent ermäßigt berechnet." if ecke else " Eckgrundstücke werden mit allen angrenzenden Seiten veranlagt.")])
    p7 = ("Ordnungswidrigkeiten", [
        f"Ordnungswidrig handelt, wer vorsätzlich oder fahrlässig seiner Reinigungs-, Räum- oder Streupflicht nicht nachkommt. Die Ordnungswidrigkeit kann mit einer Geldbuße bis zu {d.eur(d.pick(500, 1000, 2500, 5000))} geahndet werden."])
    mid = shuffle_some(d, [p2, p3, p4, p5, p6], [(1, 2), (3, 4)])
    return pre, [p1] + mid + [p7, inkraft(d, "Satzung", "Straßenreinigungssatzung")]


def title(d):
    n = d.name
    v = d.var(3)
    s = d.subject
    if s == "hundesteuer":
        return [f"Satzung über die Erhebung der Hundesteuer in der Stadt {n} (Hundesteuersatzung)",
                f"Hundesteuersatzung der Stadt {n}",
                f"Satzung der Stadt {n} über die Erhebung einer Hundesteuer"][v]
    if s == "abfall":
        return [f"Satzung über die Gebühren für die Abfallentsorgung in der Stadt {n} (Abfallgebührensatzung)",
                f"Abfallgebührensatzung der Stadt {n}",
                f"Gebührensatzung zur Abfallwirtschaftssatzung der Stadt {n}"][v]
    if s == "parken":
        return [f"Verordnung über Parkgebühren und Bewohnerparkausweise in der Stadt {n} (Parkgebührenordnung)",
                f"Parkgebührenordnung der Stadt {n}",
                f"Gebührenordnung für das Parken auf öffentlichen Straßen und für Bewohnerparkausweise der Stadt {n}"][v]
    if s == "friedhof":
        return [f"Satzung über die Erhebung von Gebühren für die Friedhöfe und das Bestattungswesen der Stadt {n} (Friedhofsgebührensatzung)",
                f"Friedhofsgebührensatzung der Stadt {n}",
                f"Gebührensatzung für die Friedhöfe der Stadt {n}"][v]
    if s == "laerm":
        return f"{d.law['laermtitle']} in der Stadt {n}"
    if s == "winterdienst":
        return [f"Satzung über die Straßenreinigung und den Winterdienst in der Stadt {n} (Straßenreinigungssatzung)",
                f"Straßenreinigungs- und Winterdienstsatzung der Stadt {n}",
                f"Satzung der Stadt {n} über die Reinigung öffentlicher Straßen und den Winterdienst"][v]


BUILDERS = {"hundesteuer": hundesteuer, "abfall": abfall, "parken": parken, "friedhof": friedhof,
            "laerm": laerm, "winterdienst": winterdienst}


def build():
    docs = []
    for town in TOWNS:
        for subj, thema in SUBJECTS:
            d = Doc(town, subj)
            pre, items = BUILDERS[subj](d)
            body = pre + "\n\n" + paras(items)
            docs.append({
                "uri": f"sz://{d.slug}/{subj}",
                "title": title(d),
                "metadata": {"stadt": d.name, "thema": thema, "town_slug": d.slug, "subject_slug": subj},
                "body": body,
            })
    return docs


if __name__ == "__main__":
    docs = build()
    with open(OUT, "w", encoding="utf-8") as f:
        for doc in docs:
            f.write(json.dumps(doc, ensure_ascii=False) + "\n")
    print(f"{len(docs)} documents -> {OUT}")
