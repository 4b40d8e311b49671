#!/usr/bin/env python3
"""Generator of the Domain F corpus (tests/quality/SPEC.md, "Domain F"): 40 sections of the
Ergänzende Bedingungen of the fictional Stadtwerke Lindenau, 8 tariffs x 5 subjects.

Standard library only. The figures of every tariff are fixed in TARIFFS; the wording is chosen
by a random.Random seeded with SEED and the document key (a str seed, so the output is the same
on every run whatever PYTHONHASHSEED). The tariff is named in the title, the metadata and § 1
only. `python3 tests/quality/corpus/make_stadtwerke_corpus.py` rewrites stadtwerke_corpus.jsonl
next to this file.
"""
import json
import os
import random

SEED = "stadtwerke-lindenau-2026"

SUBJECTS = [
    ("preise", "Preise und Preisbestandteile"),
    ("laufzeit", "Vertragslaufzeit und Kündigung"),
    ("preisaenderung", "Preisgarantie und Preisänderungen"),
    ("bonus", "Bonus und Neukundenvorteile"),
    ("abrechnung", "Abrechnung und Abschläge"),
]

# unit: kwh (energy per kWh), m3 (water), flat (monthly flat price)
TARIFFS = [
    dict(slug="oekostrom", name="Lindenau Ökostrom", sparte="Strom", unit="kwh",
         basis="Stromgrundversorgungsverordnung (StromGVV) und des Energiewirtschaftsgesetzes (EnWG)",
         extra="die Belieferung mit Strom aus erneuerbaren Energien (Herkunftsnachweise aus Wasserkraft)",
         ap=31.84, gp=12.90, erst=12, verl=1, kfrist_text="einem Monat", kfrist_w=4,
         garantie=12, garantie_art="eingeschränkte", notice_w=6, bonus=60, bonus_m=12, sofort=0,
         sperrfrist=6, treue=20, empf=25, day=15, count=12, ziel=14, guthaben_w=2, mahn=2.50,
         zwischen=15.00, min_abschlag=20, stand="1. Januar 2026", since="1. Februar 2026"),
    dict(slug="strombasis", name="Lindenau Strom Basis", sparte="Strom", unit="kwh",
         basis="Stromgrundversorgungsverordnung (StromGVV) und des Energiewirtschaftsgesetzes (EnWG)",
         extra="die Belieferung von Haushaltskunden in Niederspannung ohne Mindestlaufzeit",
         ap=33.47, gp=10.50, erst=1, verl=1, kfrist_text="zwei Wochen", kfrist_w=2,
         garantie=3, garantie_art="eingeschränkte", notice_w=4, bonus=0, bonus_m=0, sofort=0,
         sperrfrist=0, treue=0, empf=15, day=1, count=12, ziel=14, guthaben_w=3, mahn=1.80,
         zwischen=12.50, min_abschlag=15, stand="1. Januar 2026", since="1. Januar 2026"),
    dict(slug="waermepumpe", name="Lindenau Wärmepumpenstrom", sparte="Strom", unit="kwh",
         basis="Stromgrundversorgungsverordnung (StromGVV), des Energiewirtschaftsgesetzes (EnWG) und des § 14a EnWG",
         extra="die Belieferung steuerbarer Verbrauchseinrichtungen zum Heizen (Wärmepumpen) über einen separaten Zähler",
         ap=26.95, ap_nt=22.40, gp=9.80, erst=12, verl=12, kfrist_text="einem Monat", kfrist_w=4,
         garantie=18, garantie_art="eingeschränkte", notice_w=6, bonus=75, bonus_m=12, sofort=0,
         sperrfrist=12, treue=0, empf=25, day=5, count=11, ziel=14, guthaben_w=2, mahn=2.50,
         zwischen=15.00, min_abschlag=30, stand="1. Oktober 2025", since="1. November 2025"),
    dict(slug="erdgas", name="Lindenau Erdgas Komfort", sparte="Gas", unit="kwh",
         basis="Gasgrundversorgungsverordnung (GasGVV) und des Energiewirtschaftsgesetzes (EnWG)",
         extra="die Belieferung von Haushalts- und Gewerbekunden mit Erdgas H im Netzgebiet Lindenau",
         ap=11.28, gp=14.20, erst=12, verl=12, kfrist_text="sechs Wochen", kfrist_w=6,
         garantie=12, garantie_art="eingeschränkte", notice_w=5, bonus=80, bonus_m=12, sofort=0,
         sperrfrist=6, treue=30, empf=30, day=15, count=11, ziel=14, guthaben_w=2, mahn=2.50,
         zwischen=15.00, min_abschlag=25, stand="1. Januar 2026", since="1. März 2026"),
    dict(slug="gasfix", name="Lindenau Gas Fix 24", sparte="Gas", unit="kwh",
         basis="Gasgrundversorgungsverordnung (GasGVV) und des Energiewirtschaftsgesetzes (EnWG)",
         extra="die Belieferung mit Erdgas zu einem für 24 Monate festen Preis",
         ap=10.94, gp=13.50, erst=24, verl=12, kfrist_text="drei Monaten", kfrist_w=13,
         garantie=24, garantie_art="erweiterte", notice_w=8, bonus=100, bonus_m=12, sofort=50,
         sperrfrist=12, treue=0, empf=30, day=28, count=12, ziel=21, guthaben_w=3, mahn=3.00,
         zwischen=18.00, min_abschlag=25, stand="1. Juli 2025", since="1. August 2025"),
    dict(slug="fernwaerme", name="Lindenau Fernwärme Classic", sparte="Fernwärme", unit="kwh",
         basis="Verordnung über Allgemeine Bedingungen für die Versorgung mit Fernwärme (AVBFernwärmeV)",
         extra="die Versorgung von Gebäuden mit Heizwärme und Warmwasser aus dem Wärmenetz Lindenau-Nord",
         ap=13.65, gp=38.40, mess=96.00, erst=120, verl=60, kfrist_text="neun Monaten", kfrist_w=39,
         garantie=0, garantie_art="keine", notice_w=6, bonus=250, bonus_m=24, sofort=0,
         sperrfrist=0, treue=0, empf=0, day=10, count=11, ziel=14, guthaben_w=4, mahn=3.50,
         zwischen=25.00, min_abschlag=40, stand="1. Januar 2026", since="1. Januar 2026"),
    dict(slug="wasser", name="Lindenau Trinkwasser", sparte="Wasser", unit="m3",
         basis="Verordnung über Allgemeine Bedingungen für die Versorgung mit Wasser (AVBWasserV)",
         extra="die Versorgung der an das öffentliche Netz angeschlossenen Grundstücke mit Trinkwasser",
         ap=2.31, gp=8.75, erst=0, verl=0, kfrist_text="zwei Monaten", kfrist_w=9,
         garantie=12, garantie_art="kalenderjährliche", notice_w=4, bonus=30, bonus_m=12, sofort=0,
         sperrfrist=0, treue=0, empf=0, day=20, count=10, ziel=14, guthaben_w=4, mahn=1.50,
         zwischen=10.00, min_abschlag=10, stand="1. Januar 2026", since="1. Januar 2026"),
    dict(slug="glasfaser", name="Lindenau Glasfaser 500", sparte="Glasfaser", unit="flat",
         basis="Telekommunikationsgesetzes (TKG)",
         extra="einen Internetanschluss über das Glasfasernetz (FTTH) mit bis zu 500 Mbit/s im Download und 200 Mbit/s im Upload",
         ap=0.0, gp=44.90, intro=19.90, intro_m=6, bereit=69.90, router=4.99, erst=24, verl=1,
         kfrist_text="einem Monat", kfrist_w=4, garantie=24, garantie_art="vollständige",
         notice_w=8, bonus=120, bonus_m=3, sofort=0, sperrfrist=3, treue=0, empf=50, day=3,
         count=0, ziel=10, guthaben_w=2, mahn=2.00, zwischen=0.0, min_abschlag=0,
         stand="1. April 2026", since="1. Mai 2026"),
]

NUM_WORDS = {0: "null", 1: "einem", 2: "zwei", 3: "drei", 4: "vier", 5: "fünf", 6: "sechs",
             8: "acht", 10: "zehn", 12: "zwölf"}


def de(x, places=2):
    return f"{x:.{places}f}".replace(".", ",")


def months(n):
    return "einen Monat" if n == 1 else f"{n} Monate"


def months_dat(n):
    return "einem Monat" if n == 1 else f"{n} Monaten"


def weeks(n):
    return "eine Woche" if n == 1 else f"{n} Wochen"


def pick(rng, options):
    return rng.choice(options)


# ------------------------------------------------------------------------------------------
# § 1 Geltungsbereich (the only paragraph that names the tariff)
# ------------------------------------------------------------------------------------------
def geltungsbereich(t, thema, rng):
    v = rng.randrange(3)
    if v == 0:
        p = [f"(1) Diese Ergänzenden Bedingungen gelten für Verträge über das Produkt „{t['name']}“ "
             f"der Stadtwerke Lindenau GmbH (im Folgenden „Stadtwerke“). Das Produkt umfasst {t['extra']}.",
             f"(2) Sie ergänzen die Allgemeinen Bedingungen der Stadtwerke auf der Grundlage der {t['basis']} "
             f"und regeln den Bereich „{thema}“.",
             "(3) Soweit diese Bedingungen nichts Abweichendes bestimmen, gelten die Allgemeinen Bedingungen "
             "und die gesetzlichen Vorschriften in ihrer jeweils gültigen Fassung."]
    elif v == 1:
        p = [f"(1) Der folgende Abschnitt „{thema}“ ist Bestandteil der Ergänzenden Bedingungen zum Tarif "
             f"„{t['name']}“ (Sparte {t['sparte']}) der Stadtwerke Lindenau GmbH.",
             f"(2) Der Tarif betrifft {t['extra']}. Grundlage sind die Bestimmungen der {t['basis']}.",
             "(3) Abweichende Vereinbarungen bedürfen der Textform. Im Übrigen gelten die Allgemeinen "
             "Bedingungen der Stadtwerke."]
    else:
        p = [f"(1) Die Stadtwerke Lindenau GmbH (nachfolgend „Stadtwerke“) schließen Verträge über den Tarif "
             f"„{t['name']}“ zu den nachstehenden Regelungen zu {thema} ab.",
             f"(2) Gegenstand des Vertrags ist {t['extra']}; maßgeblich sind ergänzend die Vorschriften der {t['basis']}.",
             "(3) Bei Widersprüchen gehen diese Ergänzenden Bedingungen den Allgemeinen Bedingungen vor."]
    return ("Geltungsbereich", p)


def inkrafttreten(t, rng):
    v = rng.randrange(2)
    if v == 0:
        p = [f"(1) Diese Ergänzenden Bedingungen treten am {t['since']} in Kraft.",
             "(2) Sie ersetzen die bisherigen Regelungen zu diesem Gegenstand für alle ab diesem Tag "
             "geschlossenen Verträge; für bestehende Verträge gelten sie nach Mitteilung in Textform.",
             "(3) Sollte eine Bestimmung unwirksam sein, bleibt die Wirksamkeit der übrigen Bestimmungen unberührt."]
    else:
        p = [f"(1) Dieser Abschnitt gilt ab dem {t['since']}.",
             "(2) Frühere Fassungen treten zum selben Zeitpunkt außer Kraft. Die jeweils gültige Fassung "
             "ist im Kundenportal und im Kundenzentrum der Stadtwerke einsehbar.",
             "(3) Fragen zu diesen Bedingungen beantwortet der Kundenservice der Stadtwerke schriftlich oder telefonisch."]
    return ("Inkrafttreten", p)


# ------------------------------------------------------------------------------------------
# Subjects
# ------------------------------------------------------------------------------------------
def s_preise(t, rng):
    out = []
    u = t["unit"]
    bestandteile = {
        "kwh": "die Kosten für Beschaffung und Vertrieb, die Netzentgelte, die Entgelte für den "
               "Messstellenbetrieb, die Konzessionsabgabe, die gesetzlichen Umlagen sowie die Energiesteuer "
               "beziehungsweise die Steuer nach dem jeweiligen Verbrauchsteuergesetz",
        "m3": "die Kosten für Gewinnung, Aufbereitung und Verteilung, das Entgelt für die Wasserzähler, "
              "das Wasserentnahmeentgelt des Landes und die Konzessionsabgabe",
        "flat": "die Kosten für die Bereitstellung des Anschlusses, den Netzbetrieb, die Vermittlung von "
                "Sprachverbindungen in das deutsche Festnetz und den Kundenservice",
    }[u]
    a = [pick(rng, [f"(1) Der Gesamtpreis setzt sich aus einem Grundpreis und einem Arbeitspreis zusammen. "
                    f"In den Preisen enthalten sind {bestandteile}.",
                    f"(1) Die Preise enthalten folgende Preisbestandteile: {bestandteile}. Sie werden als "
                    f"Grundpreis und Arbeitspreis ausgewiesen."]),
         pick(rng, ["(2) Alle genannten Preise sind Bruttopreise und enthalten die Umsatzsteuer in der "
                    "gesetzlichen Höhe von derzeit 19 Prozent.",
                    "(2) Die Preise verstehen sich einschließlich der Umsatzsteuer (derzeit 19 Prozent); "
                    "die Nettopreise sind im Preisblatt gesondert ausgewiesen."])]
    if u == "m3":
        a[1] = a[1].replace("19 Prozent", "7 Prozent")
    out.append(("Preisbestandteile", a))
    if u == "kwh":
        if "ap_nt" in t:
            ap = (f"(1) Der Arbeitspreis beträgt in der Hochtarifzeit {de(t['ap'])} Cent je Kilowattstunde (kWh) "
                  f"und in der Niedertarifzeit (22 bis 6 Uhr) {de(t['ap_nt'])} Cent je kWh.")
        else:
            ap = f"(1) Der Arbeitspreis beträgt {de(t['ap'])} Cent je Kilowattstunde (kWh)."
        if "mess" in t:
            gp = (f"(2) Der Grundpreis beträgt {de(t['gp'])} Euro je Kilowatt Anschlussleistung und Jahr; "
                  f"hinzu kommt ein Messpreis von {de(t['mess'])} Euro im Jahr.")
        else:
            gp = pick(rng, [f"(2) Der Grundpreis beträgt {de(t['gp'])} Euro im Monat.",
                            f"(2) Unabhängig vom Verbrauch wird ein Grundpreis von {de(t['gp'])} Euro "
                            f"monatlich berechnet."])
        rest = pick(rng, ["(3) Der Arbeitspreis wird für die tatsächlich gelieferte Menge berechnet, "
                          "der Grundpreis taggenau für die Dauer der Belieferung.",
                          "(3) Angefangene Monate werden beim Grundpreis taggenau abgerechnet."])
        out.append(("Arbeitspreis und Grundpreis", [ap, gp, rest]))
    elif u == "m3":
        out.append(("Arbeitspreis und Grundpreis", [
            f"(1) Der Arbeitspreis (Mengenpreis) beträgt {de(t['ap'])} Euro je Kubikmeter (m³) entnommenen Wassers.",
            f"(2) Der Grundpreis richtet sich nach der Größe des Wasserzählers und beträgt für einen "
            f"Zähler Q3 = 4 {de(t['gp'])} Euro im Monat, für einen Zähler Q3 = 10 {de(t['gp'] * 2.4)} Euro im Monat.",
            "(3) Das Schmutzwasserentgelt ist nicht Bestandteil dieser Preise; es wird von der Gemeinde "
            "gesondert erhoben."]))
    else:
        out.append(("Arbeitspreis und Grundpreis", [
            f"(1) Der monatliche Grundpreis beträgt {de(t['gp'])} Euro. In den ersten {t['intro_m']} Monaten "
            f"ab Freischaltung beträgt er {de(t['intro'])} Euro.",
            "(2) Ein verbrauchsabhängiger Arbeitspreis fällt nicht an; das Datenvolumen ist nicht begrenzt.",
            f"(3) Für die Bereitstellung des Anschlusses wird einmalig ein Entgelt von {de(t['bereit'])} Euro "
            f"berechnet. Ein WLAN-Router kann für {de(t['router'])} Euro im Monat gemietet werden."]))
    sonst = [pick(rng, [
        "(1) Für Leistungen, die der Kunde gesondert veranlasst, werden Entgelte nach dem Preisblatt "
        "berechnet, insbesondere für eine Zwischenablesung, eine Sperrung und die Wiederherstellung der Versorgung.",
        "(1) Zusätzliche Entgelte entstehen nur für gesondert beauftragte Leistungen nach dem jeweils "
        "gültigen Preisblatt, etwa für Sperrung und Entsperrung oder eine zusätzliche Ablesung."])]
    if t["mahn"]:
        sonst.append(f"(2) Die Kosten einer Mahnung betragen pauschal {de(t['mahn'])} Euro. Dem Kunden "
                     f"bleibt der Nachweis gestattet, dass Kosten nicht oder in geringerer Höhe entstanden sind.")
    extra = ("Weitere Entgelte", sonst)
    hinweis = ("Preisblatt", [pick(rng, [
        f"(1) Die Preise entsprechen dem Stand vom {t['stand']} und sind im Preisblatt zusammengefasst.",
        f"(1) Das Preisblatt mit Stand {t['stand']} ist Bestandteil des Vertrags und wird auf Wunsch "
        f"kostenlos zugesandt."]),
        "(2) Auf Anfrage weisen die Stadtwerke die einzelnen Preisbestandteile gesondert aus."])
    if rng.random() < 0.5:
        out += [extra, hinweis]
    else:
        out += [hinweis, extra]
    return out


def s_laufzeit(t, rng):
    out = []
    if t["erst"] == 0:
        e = ("(1) Eine Erstlaufzeit besteht nicht. Der Vertrag beginnt mit dem Anschluss an das Netz und "
             "läuft auf unbestimmte Zeit.")
        v = ("(2) Eine Verlängerung ist daher nicht vorgesehen; der Vertrag besteht fort, bis er gekündigt wird.")
    else:
        e = pick(rng, [f"(1) Die Erstlaufzeit des Vertrags beträgt {months(t['erst'])} ab Lieferbeginn.",
                       f"(1) Der Vertrag wird mit einer Erstlaufzeit von {months_dat(t['erst'])} geschlossen; "
                       f"sie beginnt mit dem Tag der ersten Belieferung."])
        if t["verl"] == 1:
            v = pick(rng, ["(2) Nach Ablauf der Erstlaufzeit verlängert sich der Vertrag auf unbestimmte Zeit; "
                           "er kann dann jederzeit mit einer Frist von einem Monat gekündigt werden.",
                           "(2) Wird der Vertrag nicht zum Ende der Erstlaufzeit gekündigt, tritt eine "
                           "Verlängerung auf unbestimmte Zeit ein, mit monatlicher Kündbarkeit."])
        else:
            v = pick(rng, [f"(2) Nach Ablauf der Erstlaufzeit verlängert sich der Vertrag jeweils um "
                           f"{months(t['verl'])}, wenn er nicht fristgerecht gekündigt wird.",
                           f"(2) Die stillschweigende Verlängerung beträgt jeweils {months(t['verl'])}."])
    out.append(("Erstlaufzeit und Verlängerung", [e, v]))
    k = [pick(rng, [f"(1) Die Kündigungsfrist beträgt {t['kfrist_text']} zum Ende der Erstlaufzeit "
                    f"oder eines Verlängerungszeitraums.",
                    f"(1) Beide Seiten können den Vertrag mit einer Kündigungsfrist von {t['kfrist_text']} "
                    f"kündigen, erstmals zum Ablauf der Erstlaufzeit."])]
    if t["erst"] == 0:
        k = [f"(1) Der Vertrag kann mit einer Kündigungsfrist von {t['kfrist_text']} zum Ende eines "
             f"Kalendermonats gekündigt werden."]
    k.append(pick(rng, ["(2) Die Kündigung bedarf der Textform (zum Beispiel Brief, E-Mail oder das "
                        "Kündigungsformular im Kundenportal). Die Stadtwerke bestätigen sie innerhalb "
                        "einer Woche in Textform.",
                        "(2) Kündigungen sind in Textform zu erklären; eine telefonische Kündigung genügt "
                        "nicht. Der Kunde erhält eine Kündigungsbestätigung."]))
    k.append("(3) Die Stadtwerke dürfen keine gesonderten Entgelte für den Fall einer Kündigung verlangen.")
    out.append(("Kündigungsfrist und Form", k))
    s = [pick(rng, ["(1) Ein Sonderkündigungsrecht besteht bei einer Änderung der Preise oder der "
                    "Vertragsbedingungen; die Kündigung ist dann ohne Einhaltung einer Frist zum "
                    "Wirksamwerden der Änderung möglich.",
                    "(1) Ändern die Stadtwerke Preise oder Bedingungen, hat der Kunde ein "
                    "Sonderkündigungsrecht zum Zeitpunkt der Änderung."])]
    if t["unit"] == "flat":
        s.append("(2) Bei einem Umzug an einen Ort, an dem die Leistung nicht angeboten werden kann, ist "
                 "der Kunde zur Kündigung mit einer Frist von einem Monat berechtigt.")
    elif t["unit"] == "m3" or "mess" in t:
        s.append("(2) Bei Übertragung des Eigentums am Grundstück kann der Kunde den Vertrag mit einer "
                 "Frist von zwei Wochen kündigen; der neue Eigentümer tritt in den Vertrag ein.")
    else:
        s.append(pick(rng, ["(2) Bei einem Umzug kann der Kunde mit einer Frist von sechs Wochen kündigen, "
                            "sofern die Stadtwerke an der neuen Adresse nicht liefern oder der Kunde das "
                            "Angebot zur Fortsetzung ablehnt.",
                            "(2) Ein Umzug berechtigt zur Kündigung mit einer Frist von sechs Wochen; "
                            "dabei sind Auszugsdatum, neue Anschrift und Zählerstand anzugeben."]))
    out.append(("Sonderkündigungsrecht", s))
    if rng.random() < 0.6:
        out.append(("Ende der Belieferung", [
            "(1) Zum Vertragsende ist der Zählerstand abzulesen und mitzuteilen. Die Stadtwerke erstellen "
            "innerhalb von sechs Wochen eine Schlussrechnung."]))
    return out


def s_preisaenderung(t, rng):
    out = []
    if t["garantie"] == 0:
        g = [("(1) Eine Preisgarantie wird nicht gewährt. Die Preise werden nach der vereinbarten "
              "Preisänderungsklausel jeweils zum 1. Januar und 1. Juli angepasst."),
             ("(2) Die Preisänderungsklausel bildet die Kostenentwicklung (Marktelement) und die "
              "Entwicklung der Lohn- und Investitionskosten (Kostenelement) ab; die Indizes sind im "
              "Preisblatt genannt.")]
    else:
        art = t["garantie_art"]
        g = [pick(rng, [f"(1) Die Stadtwerke gewähren eine {art} Preisgarantie für {months(t['garantie'])} "
                        f"ab Lieferbeginn.",
                        f"(1) Für die ersten {months_dat(t['garantie'])} nach Lieferbeginn gilt eine "
                        f"{art} Preisgarantie."])]
        if art == "erweiterte" or art == "vollständige":
            g.append("(2) Die Preisgarantie umfasst den Grundpreis und den Arbeitspreis einschließlich der "
                     "Netzentgelte; ausgenommen sind nur die Umsatzsteuer sowie künftig neu eingeführte "
                     "Steuern und Abgaben.")
        elif art == "kalenderjährliche":
            g.append("(2) Die Preise werden jeweils für ein Kalenderjahr festgesetzt und während dieses "
                     "Zeitraums nicht geändert; ausgenommen sind Änderungen von Steuern und Abgaben.")
        else:
            g.append(pick(rng, ["(2) Die Preisgarantie umfasst die Kosten für Beschaffung und Vertrieb. "
                                "Ausgenommen sind Steuern, Abgaben, Umlagen und Netzentgelte.",
                                "(2) Von der Preisgarantie ausgenommen sind Änderungen von Steuern und Abgaben, "
                                "Umlagen und Netzentgelten; sie werden unverändert weitergegeben."]))
    out.append(("Preisgarantie", g))
    m = [pick(rng, [f"(1) Eine Preisänderung teilen die Stadtwerke dem Kunden spätestens {weeks(t['notice_w'])} "
                    f"vor ihrem Wirksamwerden in Textform mit.",
                    f"(1) Preisänderungen werden mindestens {weeks(t['notice_w'])} vor dem Zeitpunkt, zu dem "
                    f"sie wirksam werden sollen, brieflich oder per E-Mail mitgeteilt."]),
         pick(rng, ["(2) Die Mitteilung nennt Anlass, Voraussetzungen und Umfang der Änderung sowie den "
                    "alten und den neuen Preis.",
                    "(2) In der Mitteilung sind Umfang, Anlass und Voraussetzungen der Preisänderung "
                    "verständlich darzustellen."]),
         ("(3) Preissenkungen geben die Stadtwerke in gleichem Umfang und nach denselben Grundsätzen "
          "weiter wie Preiserhöhungen.")]
    out.append(("Mitteilung von Preisänderungen", m))
    out.append(("Sonderkündigungsrecht bei Preisänderungen", [pick(rng, [
        "(1) Bei einer Preisänderung hat der Kunde ein Sonderkündigungsrecht. Er kann den Vertrag ohne "
        "Einhaltung einer Frist zum Zeitpunkt des Wirksamwerdens der Änderung in Textform kündigen.",
        "(1) Ist der Kunde mit der Preisänderung nicht einverstanden, kann er den Vertrag fristlos zum "
        "Wirksamwerden der Änderung kündigen (Sonderkündigungsrecht)."]),
        "(2) Auf das Sonderkündigungsrecht wird in der Mitteilung ausdrücklich hingewiesen."]))
    if t["garantie"] and rng.random() < 0.7:
        out.append(("Ende der Preisgarantie", [
            f"(1) Nach Ablauf der Preisgarantie gelten die Preise des dann gültigen Preisblatts; eine "
            f"Änderung ist frühestens {weeks(t['notice_w'])} nach Mitteilung möglich."]))
    return out


def s_bonus(t, rng):
    out = []
    if t["bonus"] == 0:
        b = ["(1) Ein Neukundenbonus wird nicht gewährt.",
             "(2) Der Tarif ist ohne Mindestlaufzeit kalkuliert; Sofortbonus und Treuebonus sind deshalb "
             "nicht vorgesehen."]
    else:
        if t["unit"] == "flat":
            b = [f"(1) Neukunden erhalten einen Wechselbonus (Neukundenbonus) von {t['bonus']} Euro, der "
                 f"nach {months_dat(t['bonus_m'])} ununterbrochener Vertragsdauer mit dem Grundpreis "
                 f"verrechnet wird."]
        elif "mess" in t:
            b = [f"(1) Bei einem Neuanschluss oder der Umstellung einer bestehenden Heizung erhalten Neukunden "
                 f"einen Anschlussbonus (Neukundenbonus) von {t['bonus']} Euro. Er wird nach "
                 f"{months_dat(t['bonus_m'])} Belieferung mit der Jahresabrechnung gutgeschrieben."]
        else:
            b = [pick(rng, [f"(1) Neukunden erhalten einen Neukundenbonus von {t['bonus']} Euro. Er wird nach "
                            f"{months_dat(t['bonus_m'])} ununterbrochener Belieferung mit der ersten "
                            f"Jahresabrechnung verrechnet.",
                            f"(1) Der Neukundenbonus beträgt {t['bonus']} Euro und wird fällig, wenn der Kunde "
                            f"{months(t['bonus_m'])} ohne Unterbrechung beliefert wurde; er wird in der "
                            f"Jahresabrechnung gutgeschrieben."])]
        if t["unit"] == "m3":
            b[0] = (f"(1) Wer neben diesem Vertrag einen Energievertrag der Stadtwerke abschließt, erhält einmalig "
                    f"einen Kombibonus (Neukundenbonus) von {t['bonus']} Euro. Er wird nach "
                    f"{months_dat(t['bonus_m'])} mit der Jahresabrechnung verrechnet.")
        if t["sofort"]:
            b.append(f"(2) Zusätzlich wird ein Sofortbonus von {t['sofort']} Euro gewährt, der etwa acht "
                     f"Wochen nach Lieferbeginn auf das Kundenkonto überwiesen wird.")
        else:
            b.append("(2) Eine Barauszahlung des Bonus ist ausgeschlossen; endet der Vertrag vorher, "
                     "entfällt der Anspruch.")
    out.append(("Neukundenbonus", b))
    v = [pick(rng, ["(1) Als Neukunde gilt, wer an der Lieferstelle in den letzten {n} Monaten vor "
                    "Vertragsschluss nicht von den Stadtwerken beliefert wurde.",
                    "(1) Voraussetzung ist, dass an der Lieferstelle in den letzten {n} Monaten kein "
                    "Vertrag mit den Stadtwerken bestand."]).format(n=max(t["sperrfrist"], 6))]
    v.append(pick(rng, ["(2) Ein Tarifwechsel innerhalb der Stadtwerke begründet keinen Anspruch auf einen Bonus.",
                        "(2) Bestandskunden, die in diesen Tarif wechseln, erhalten keinen Neukundenbonus."]))
    v.append("(3) Pro Lieferstelle wird ein Bonus nur einmal gewährt.")
    out.append(("Voraussetzungen", v))
    w = []
    if t["treue"]:
        w.append(f"(1) Nach jedem vollen Belieferungsjahr im Anschluss an die Erstlaufzeit erhält der Kunde "
                 f"einen Treuebonus von {t['treue']} Euro.")
    if t["empf"]:
        w.append(f"({len(w) + 1}) Für jede erfolgreiche Empfehlung eines Neukunden erhalten der empfehlende "
                 f"Kunde und der Neukunde je {t['empf']} Euro (Empfehlungsbonus).")
    if w and not t["treue"]:
        w.append(f"({len(w) + 1}) Ein Treuebonus wird nicht gewährt.")
    if not w:
        w.append("(1) Weitere Boni, insbesondere ein Treuebonus oder ein Empfehlungsbonus, werden nicht gewährt.")
    out.append(("Weitere Vorteile", w))
    if rng.random() < 0.6:
        out.append(("Ausschluss", [pick(rng, [
            "(1) Der Bonus entfällt, wenn der Vertrag vor Ablauf der genannten Belieferungsdauer durch den "
            "Kunden gekündigt wird; ein Sonderkündigungsrecht wegen Preisänderung bleibt unberührt.",
            "(1) Boni können nicht mit anderen Aktionen kombiniert werden, sofern dies nicht ausdrücklich "
            "zugesagt ist."])]))
    return out


def s_abrechnung(t, rng):
    out = []
    if t["unit"] == "flat":
        out.append(("Abrechnungszeitraum", [
            "(1) Die Abrechnung erfolgt monatlich im Voraus; die Rechnung wird im Kundenportal bereitgestellt.",
            "(2) Eine Jahresabrechnung und Abschläge fallen nicht an; verbrauchsunabhängige Entgelte werden "
            "taggenau berechnet."]))
        out.append(("Fälligkeit und Zahlung", [
            f"(1) Der Rechnungsbetrag ist zum {t['day']}. Tag des Monats fällig und wird per SEPA-Lastschrift "
            f"eingezogen, sofern ein SEPA-Lastschriftmandat erteilt wurde.",
            f"(2) Bei Zahlung per Überweisung ist der Betrag innerhalb von {t['ziel']} Tagen nach Zugang der "
            f"Rechnung zu zahlen.",
            f"(3) Ein Guthaben, etwa aus einer Gutschrift, wird mit der nächsten Rechnung verrechnet oder "
            f"innerhalb von {weeks(t['guthaben_w'])} erstattet."]))
    else:
        out.append(("Abrechnungszeitraum", [pick(rng, [
            "(1) Der Verbrauch wird in der Regel einmal jährlich abgerechnet (Jahresabrechnung). Der "
            "Abrechnungszeitraum beträgt zwölf Monate.",
            "(1) Die Stadtwerke erstellen eine Jahresverbrauchsabrechnung über einen Abrechnungszeitraum "
            "von zwölf Monaten."]),
            pick(rng, [f"(2) Auf Wunsch wird monatlich, vierteljährlich oder halbjährlich abgerechnet; für jede "
                       f"zusätzliche Abrechnung wird ein Entgelt von {de(t['zwischen'])} Euro berechnet.",
                       f"(2) Eine Zwischenabrechnung auf Wunsch des Kunden kostet {de(t['zwischen'])} Euro."])]))
        a = [f"(1) Auf die Jahresabrechnung zahlt der Kunde {t['count']} monatliche Abschläge. Die Höhe "
             f"richtet sich nach dem Verbrauch des letzten Abrechnungszeitraums; der Mindestabschlag "
             f"beträgt {t['min_abschlag']} Euro.",
             pick(rng, [f"(2) Die Abschläge sind jeweils zum {t['day']}. eines Monats fällig.",
                        f"(2) Fälligkeit der Abschläge ist der {t['day']}. Tag jedes Monats."]),
             pick(rng, ["(3) Der Kunde kann eine Anpassung der Abschläge verlangen, wenn sich sein Verbrauch "
                        "erheblich ändert; die Anpassung ist im Kundenportal möglich.",
                        "(3) Eine Änderung der Abschlagshöhe kann jederzeit beantragt werden; die Stadtwerke "
                        "übersenden einen neuen Abschlagsplan."])]
        if t["count"] == 11:
            a.append("(4) Im Monat der Jahresabrechnung wird kein Abschlag erhoben.")
        elif t["count"] == 10:
            a.append("(4) In den zwei Monaten nach der Jahresabrechnung werden keine Abschläge erhoben.")
        out.append(("Abschläge und Fälligkeit", a))
        out.append(("Nachzahlung und Guthaben", [
            pick(rng, [f"(1) Eine Nachzahlung aus der Jahresabrechnung ist innerhalb von {t['ziel']} Tagen "
                       f"nach Zugang der Rechnung fällig.",
                       f"(1) Ergibt die Jahresabrechnung eine Nachzahlung, ist sie binnen {t['ziel']} Tagen "
                       f"zu zahlen."]),
            pick(rng, [f"(2) Ein Guthaben wird innerhalb von {weeks(t['guthaben_w'])} nach Zugang der "
                       f"Abrechnung erstattet oder mit dem nächsten Abschlag verrechnet.",
                       f"(2) Guthaben zahlen die Stadtwerke binnen {weeks(t['guthaben_w'])} auf das "
                       f"hinterlegte Konto aus."])]))
        out.append(("Zahlungsweise", [pick(rng, [
            "(1) Zahlungen erfolgen per SEPA-Lastschrift aufgrund eines SEPA-Lastschriftmandats oder per "
            "Überweisung. Eine Änderung der Bankverbindung ist in Textform mitzuteilen.",
            "(1) Der Kunde kann den Stadtwerken ein SEPA-Lastschriftmandat erteilen oder die Beträge "
            "überweisen; Barzahlung im Kundenzentrum ist möglich."])]))
    out.append(("Zahlungsverzug", [pick(rng, [
        f"(1) Bei Zahlungsverzug erhält der Kunde eine Mahnung; die Mahnkosten betragen {de(t['mahn'])} Euro.",
        f"(1) Gerät der Kunde in Verzug, stellen die Stadtwerke für jede Mahnung {de(t['mahn'])} Euro "
        f"in Rechnung."]),
        "(2) Einwände gegen Rechnungen berechtigen zum Zahlungsaufschub nur, soweit die ernsthafte "
        "Möglichkeit eines offensichtlichen Fehlers besteht."]))
    return out


# one more section per subject (two wordings each), so that every section has enough substance
def x_laufzeit(t, rng):
    return ("Vertragsschluss und Lieferbeginn", [pick(rng, [
        "(1) Der Vertrag kommt mit der Vertragsbestätigung der Stadtwerke in Textform zustande. Sie nennt "
        "den voraussichtlichen Lieferbeginn.",
        "(1) Mit dem Zugang der Vertragsbestätigung in Textform ist der Vertrag geschlossen; der Tag des "
        "Lieferbeginns wird darin mitgeteilt."]),
        pick(rng, ["(2) Verbraucher können einen außerhalb von Geschäftsräumen oder im Fernabsatz geschlossenen "
                   "Vertrag innerhalb von 14 Tagen ohne Angabe von Gründen widerrufen.",
                   "(2) Bei Verträgen im Fernabsatz besteht ein Widerrufsrecht von 14 Tagen ab Vertragsschluss; "
                   "die Widerrufsbelehrung ist der Vertragsbestätigung beigefügt."])])


def x_preisaenderung(t, rng):
    return ("Änderungen von Steuern und Abgaben", [pick(rng, [
        "(1) Werden Steuern, Abgaben oder sonstige hoheitlich auferlegte Belastungen neu eingeführt, "
        "geändert oder abgeschafft, passen die Stadtwerke die Preise in dem Umfang an, in dem sich die "
        "Kosten ändern.",
        "(1) Änderungen der Umsatzsteuer und anderer gesetzlicher Steuern und Abgaben werden ohne "
        "Gewinnaufschlag an den Kunden weitergegeben."]),
        "(2) Für solche Anpassungen gelten die Regeln über die Mitteilung entsprechend; bei einer reinen "
        "Änderung der Umsatzsteuer besteht kein Sonderkündigungsrecht."])


def x_bonus(t, rng):
    return ("Verrechnung und Übertragung", [pick(rng, [
        "(1) Gewährte Boni werden in der Rechnung gesondert ausgewiesen. Eine Übertragung auf Dritte ist "
        "ausgeschlossen.",
        "(1) Jeder Bonus erscheint als eigene Position in der Rechnung; er ist nicht übertragbar."]),
        pick(rng, ["(2) Zieht der Kunde innerhalb des Versorgungsgebiets um und wird der Vertrag an der neuen "
                   "Lieferstelle fortgesetzt, bleibt der Anspruch auf einen noch nicht verrechneten Bonus erhalten.",
                   "(2) Bei einem Umzug innerhalb des Versorgungsgebiets mit Fortsetzung des Vertrags geht ein "
                   "bereits erworbener Anspruch nicht verloren."])])


def x_abrechnung(t, rng):
    if t["unit"] == "flat":
        return ("Rechnungsstellung", [
            "(1) Rechnungen werden im Kundenportal als PDF-Datei bereitgestellt; eine Papierrechnung wird "
            "auf Wunsch gegen ein Entgelt von 1,50 Euro je Rechnung versandt.",
            "(2) Ein Einzelverbindungsnachweis für kostenpflichtige Verbindungen wird auf Wunsch kostenlos "
            "erstellt. Einwendungen gegen die Rechnung sind innerhalb von acht Wochen zu erheben."])
    return ("Rechnungsstellung", [pick(rng, [
        "(1) Die Rechnung weist den Abrechnungszeitraum, die abgelesenen oder geschätzten Zählerstände, den "
        "Verbrauch, die Preise und die geleisteten Abschläge aus.",
        "(1) Aus der Jahresabrechnung gehen Zählerstände, Abrechnungszeitraum, Verbrauch, die angewandten "
        "Preise und die Summe der gezahlten Abschläge hervor."]),
        pick(rng, ["(2) Kann der Zählerstand nicht abgelesen werden und teilt der Kunde ihn nicht mit, darf der "
                   "Verbrauch geschätzt werden; die Schätzung wird in der Rechnung gekennzeichnet.",
                   "(2) Liegt kein Zählerstand vor, wird der Verbrauch auf Grundlage der letzten Ablesung "
                   "geschätzt und die Schätzung als solche ausgewiesen."])])


def x_preise(t, rng):
    return ("Preisvergleich und Grundversorgung", [pick(rng, [
        "(1) Die Stadtwerke informieren in jeder Rechnung über die geltenden Preise und den Verbrauch des "
        "Vorjahres im selben Zeitraum.",
        "(1) Jede Rechnung enthält die geltenden Preise und einen Vergleich mit dem Verbrauch des "
        "entsprechenden Vorjahreszeitraums."]),
        "(2) Auskünfte zu den Preisen erteilt der Kundenservice; das aktuelle Preisblatt ist im "
        "Kundenportal abrufbar."])


EXTRA_FUN = {"preise": x_preise, "laufzeit": x_laufzeit, "preisaenderung": x_preisaenderung,
             "bonus": x_bonus, "abrechnung": x_abrechnung}


SUBJECT_FUN = {"preise": s_preise, "laufzeit": s_laufzeit, "preisaenderung": s_preisaenderung,
               "bonus": s_bonus, "abrechnung": s_abrechnung}

TITLE_PATTERNS = [
    "Ergänzende Bedingungen {name}: {thema}",
    "{name} – Ergänzende Bedingungen, Abschnitt {thema}",
    "Ergänzende Bedingungen zum Tarif {name} – {thema}",
]


def document(t, subj_slug, thema):
    key = f"{SEED}:{t['slug']}:{subj_slug}"
    rng = random.Random(key)
    title = rng.choice(TITLE_PATTERNS).format(name=t["name"], thema=thema)
    body_sections = SUBJECT_FUN[subj_slug](t, rng)
    more = EXTRA_FUN[subj_slug](t, rng)
    if subj_slug == "laufzeit":
        body_sections.insert(0, more)
    else:
        body_sections.insert(rng.randrange(1, len(body_sections) + 1), more)
    sections = [geltungsbereich(t, thema, rng)] + body_sections + [inkrafttreten(t, rng)]
    parts = []
    for i, (head, paras) in enumerate(sections, start=1):
        parts.append(f"§ {i} {head}\n" + "\n".join(paras))
    body = "\n\n".join(parts)
    return {"uri": f"eb://{t['slug']}/{subj_slug}", "title": title,
            "metadata": {"produkt": t["name"], "sparte": t["sparte"], "thema": thema,
                         "tariff_slug": t["slug"], "subject_slug": subj_slug},
            "body": body}


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    out = os.path.join(here, "stadtwerke_corpus.jsonl")
    with open(out, "w", encoding="utf-8") as f:
        for t in TARIFFS:
            for slug, thema in SUBJECTS:
                f.write(json.dumps(document(t, slug, thema), ensure_ascii=False) + "\n")


if __name__ == "__main__":
    main()
