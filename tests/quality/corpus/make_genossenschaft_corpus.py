#!/usr/bin/env python3
"""Generator of corpus/genossenschaft_corpus.jsonl (tests/quality/SPEC.md, Domain G).

40 sections of the house rules and terms of use (Hausordnung und Nutzungsbedingungen) of the
eight estates of the fictional Wohnungsgenossenschaft Am Auenpark eG, one per estate and
subject. The estate is named in the title, the metadata and § 1 only. The sections of one
subject share their wording where the cooperative uses one template; figures, times, fees and
the estate's own arrangements (a shared barbecue place, tenants' gardens, an underground car
park ...) come from the tables below. No randomness: the same file on every run.

    python3 corpus/make_genossenschaft_corpus.py     (rewrites genossenschaft_corpus.jsonl beside it)
"""
import json
import os

COOP = "Wohnungsgenossenschaft Am Auenpark eG"

# ------------------------------------------------------------------------------------------
# The estates. style A: older edition of the house rules ("Mieter", "Hausbewohner"),
# style B: newer edition ("Bewohnerinnen und Bewohner").
# ------------------------------------------------------------------------------------------
ESTATES = [
    dict(slug="lindenhof", name="Wohnanlage Lindenhof", style="A",
         addr="Lindenallee 2–18 und Am Lindenhof 1–9",
         desc="Die Wohnanlage umfasst 142 Wohnungen in sechs dreigeschossigen Häusern aus den Jahren 1955 bis 1958, die um einen gemeinsamen Innenhof mit Spielplatz und Wäschetrockenplatz stehen."),
    dict(slug="auenpark", name="Wohnanlage Auenpark", style="B",
         addr="Auenring 1–31 und Weidenweg 2–14",
         desc="Zur Wohnanlage gehören 236 Wohnungen in acht fünfgeschossigen Häusern aus den Jahren 1972 bis 1975, Mietergärten der Erdgeschosswohnungen, ein Bolzplatz, ein Gemeinschaftsraum und eine Tiefgarage."),
    dict(slug="flussufer", name="Hochhäuser am Flussufer", style="A",
         addr="Uferstraße 1, 3 und 5",
         desc="Die drei Hochhäuser mit 14 und 16 Geschossen und zusammen 312 Wohnungen wurden 1974 errichtet und 2019 modernisiert. Jedes Haus hat zwei Aufzüge; die Hausmeisterloge befindet sich im Eingangsbereich des Hauses Nr. 3."),
    dict(slug="parkstrasse", name="Wohnanlage Parkstraße", style="B",
         addr="Parkstraße 21–37",
         desc="Die Wohnanlage besteht aus neun Altbauten der Jahre 1903 bis 1908 mit 64 Wohnungen, Holzbalkendecken und einem gemeinsamen Hinterhof; im Erdgeschoss der Nr. 21 befindet sich ein Café."),
    dict(slug="muehlenweg", name="Siedlung Mühlenweg", style="A",
         addr="Mühlenweg 1–45 und Am Mühlbach 2–20",
         desc="Die Siedlung umfasst 88 Wohnungen in Reihenhäusern und kleinen Mehrfamilienhäusern aus den Jahren 1934 bis 1937; zu den Reihenhäusern gehören Hausgärten, zu allen Häusern ein gemeinsamer Garagenhof."),
    dict(slug="schlossberg", name="Wohnanlage Am Schlossberg", style="B",
         addr="Schlossbergstraße 4–12 und Burgweg 1–7",
         desc="Die Wohnanlage wurde 1998 in Hanglage errichtet und besteht aus fünf Terrassenhäusern mit 118 Wohnungen, Dachterrassen, öffentlich zugänglichen Treppenanlagen und einer Tiefgarage."),
    dict(slug="gartenstadt", name="Gartenstadt Nord", style="A",
         addr="Rosenweg, Nelkenweg, Tulpenweg und Am Anger",
         desc="Die Gartenstadt wurde 1921 bis 1926 angelegt und umfasst 204 Wohnungen in Doppel- und Reihenhäusern, nahezu alle mit Mietergarten, sowie eine Festwiese mit Gemeinschaftsgrillplatz."),
    dict(slug="bahnhofsviertel", name="Wohnanlage Bahnhofsviertel", style="B",
         addr="Eisenbahnstraße 8–16 und Kopernikusplatz 2–4",
         desc="Die Wohnanlage wurde 2015 bezugsfertig; sie umfasst 96 Wohnungen in vier Häusern um einen begrünten Innenhof, einen Dachgarten auf dem Haus Nr. 12, Gewerbeflächen im Erdgeschoss und eine Tiefgarage."),
]
ESTATE = {e["slug"]: e for e in ESTATES}
LIFT = {"auenpark", "flussufer", "schlossberg", "bahnhofsviertel"}   # estates whose houses have lifts

SUBJECTS = [
    ("ruhezeiten", "Ruhezeiten und Lärmschutz"),
    ("haustiere", "Tierhaltung"),
    ("muell", "Abfall, Reinigung und Winterdienst"),
    ("balkon", "Balkone, Terrassen und Grillen"),
    ("stellplatz", "Stellplätze, Garagen und Fahrräder"),
]

# Date each section came into force and the edition it replaces.
DATES = {
    "lindenhof":       {"ruhezeiten": ("1. März 2021", "1. Januar 2009"), "haustiere": ("1. Juli 2022", "1. Januar 2009"), "muell": ("1. Oktober 2023", "1. April 2016"), "balkon": ("1. April 2024", "1. Januar 2009"), "stellplatz": ("1. Januar 2022", "1. Januar 2009")},
    "auenpark":        {"ruhezeiten": ("1. Februar 2024", "1. Mai 2012"), "haustiere": ("1. Februar 2024", "1. Mai 2012"), "muell": ("1. Januar 2025", "1. Mai 2012"), "balkon": ("1. Mai 2024", "1. Mai 2012"), "stellplatz": ("1. September 2023", "1. Mai 2012")},
    "flussufer":       {"ruhezeiten": ("1. Januar 2020", "1. Juli 2011"), "haustiere": ("1. Januar 2020", "1. Juli 2011"), "muell": ("1. Juni 2020", "1. Juli 2011"), "balkon": ("1. Januar 2020", "1. Juli 2011"), "stellplatz": ("1. März 2021", "1. Juli 2011")},
    "parkstrasse":     {"ruhezeiten": ("1. November 2023", "1. Januar 2015"), "haustiere": ("1. November 2023", "1. Januar 2015"), "muell": ("1. März 2024", "1. Januar 2015"), "balkon": ("1. Juni 2023", "1. Januar 2015"), "stellplatz": ("1. November 2023", "1. Januar 2015")},
    "muehlenweg":      {"ruhezeiten": ("1. April 2019", "1. April 2004"), "haustiere": ("1. April 2022", "1. April 2004"), "muell": ("1. Oktober 2021", "1. April 2004"), "balkon": ("1. April 2019", "1. April 2004"), "stellplatz": ("1. Januar 2023", "1. April 2004")},
    "schlossberg":     {"ruhezeiten": ("1. Juli 2023", "1. Oktober 2013"), "haustiere": ("1. Juli 2023", "1. Oktober 2013"), "muell": ("1. Dezember 2022", "1. Oktober 2013"), "balkon": ("1. Juli 2023", "1. Oktober 2013"), "stellplatz": ("1. Februar 2025", "1. Juli 2023")},
    "gartenstadt":     {"ruhezeiten": ("1. Mai 2022", "1. März 2010"), "haustiere": ("1. Mai 2022", "1. März 2010"), "muell": ("1. März 2023", "1. März 2010"), "balkon": ("1. Mai 2022", "1. März 2010"), "stellplatz": ("1. Mai 2022", "1. März 2010")},
    "bahnhofsviertel": {"ruhezeiten": ("1. Januar 2024", "1. August 2015"), "haustiere": ("1. Januar 2024", "1. August 2015"), "muell": ("1. Januar 2024", "1. August 2015"), "balkon": ("1. April 2025", "1. Januar 2024"), "stellplatz": ("1. Januar 2024", "1. August 2015")},
}


def O(text):
    """A clause the short sections leave out."""
    return "~" + text


# Length of each section: "kurz" leaves out the clauses marked with O(), "lang" adds the
# subject's further paragraphs (LONG), everything else is "mittel".
LENGTH = {
    "ruhezeiten": {"parkstrasse": "kurz", "gartenstadt": "kurz", "lindenhof": "lang", "flussufer": "lang"},
    "haustiere": {"lindenhof": "kurz", "schlossberg": "kurz", "muehlenweg": "lang", "bahnhofsviertel": "lang"},
    "muell": {"auenpark": "kurz", "bahnhofsviertel": "kurz", "schlossberg": "kurz", "lindenhof": "lang", "muehlenweg": "lang"},
    "balkon": {"parkstrasse": "kurz", "lindenhof": "kurz", "schlossberg": "lang", "gartenstadt": "lang"},
    "stellplatz": {"lindenhof": "kurz", "gartenstadt": "kurz", "parkstrasse": "kurz", "flussufer": "lang", "auenpark": "lang"},
}

def sel(e, a, b):
    """Wording of the older (A) or newer (B) edition."""
    return a if e["style"] == "A" else b


# ------------------------------------------------------------------------------------------
# Ruhezeiten und Lärmschutz
# ------------------------------------------------------------------------------------------
RUHE = {
    "lindenhof": dict(nacht=("22", "6"), mittag=("13", "15"), mittag_tage="montags bis samstags",
                      hw="werktags von 8 bis 12 Uhr und von 15 bis 19 Uhr", hw_sa="samstags nur von 8 bis 12 Uhr",
                      musik="zwei Stunden", feier="drei Tage", ankuend="zwei Wochen",
                      geraete="Waschmaschinen, Wäschetrockner und Geschirrspüler dürfen während der Nachtruhe nicht betrieben werden. Die Waschküche im Keller kann montags bis samstags von 7 bis 20 Uhr genutzt werden.",
                      extra=[("Innenhof und Spielplatz", [
                          "Der Innenhof ist von allen Seiten bebaut; Geräusche werden dort verstärkt und sind in allen Wohnungen zu hören. Gespräche, Musik und Spiele im Innenhof sind deshalb in gedämpfter Lautstärke zu halten.",
                          "Der Spielplatz kann von 8 bis 19 Uhr genutzt werden, während der Mittagsruhe nur für ruhige Spiele. Ballspiele sind nur auf der Spielwiese gestattet, nicht an den Hauswänden und nicht vor den Kellerfenstern.",
                      ])]),
    "auenpark": dict(nacht=("22", "7"), mittag=("12:30", "14:30"), mittag_tage="montags bis samstags",
                     hw="montags bis freitags von 7:30 bis 12:30 Uhr und von 14:30 bis 19 Uhr", hw_sa="samstags von 9 bis 13 Uhr",
                     musik="90 Minuten", feier="fünf Tage", ankuend="zehn Tage",
                     geraete="Waschmaschinen und Wäschetrockner sollen während der Nachtruhe und an Sonn- und Feiertagen nicht betrieben werden; Geräte mit Zeitvorwahl sind so einzustellen, dass sie vor Beginn der Nachtruhe fertig sind.",
                     extra=[("Bolzplatz und Gemeinschaftsraum", [
                         "Der Bolzplatz ist werktags von 9 bis 20 Uhr geöffnet, an Sonn- und Feiertagen bleibt er geschlossen. Während der Mittagsruhe ist das Spielen mit Bällen nicht gestattet.",
                         "Der Gemeinschaftsraum kann für private Feiern bis 22 Uhr gemietet werden; das Nutzungsentgelt beträgt 25 Euro je Veranstaltung zuzüglich einer Kaution von 100 Euro. Fenster und Türen sind nach 20 Uhr geschlossen zu halten.",
                     ]), ("Rasen- und Gartenpflege", [
                         "Die Pflege der allgemeinen Grünflächen übernimmt eine Gartenbaufirma; sie arbeitet werktags zwischen 7 und 17 Uhr. In den Mietergärten dürfen Rasenmäher werktags von 9 bis 12:30 Uhr und von 15 bis 19 Uhr benutzt werden.",
                     ])]),
    "flussufer": dict(nacht=("22", "6"), mittag=("13", "15"), mittag_tage="täglich",
                      hw="montags bis freitags von 8 bis 13 Uhr und von 15 bis 18 Uhr", hw_sa="samstags von 9 bis 12 Uhr",
                      musik="einer Stunde", feier="sieben Tage", ankuend="drei Wochen",
                      geraete="Waschmaschinen, Wäschetrockner und Geschirrspüler dürfen nur außerhalb der Nachtruhe betrieben werden. Geräte sind auf schwingungsdämpfende Unterlagen zu stellen, weil sich Schwingungen über die Betondecken in mehrere Geschosse übertragen.",
                      extra=[("Besondere Hinweise für die Gebäude", [
                          "Über die Installationsschächte, die Treppenhäuser und die Aufzugsschächte wird Schall in andere Geschosse übertragen. Wohnungs- und Treppenhaustüren sind leise zu schließen; Aufzugstüren dürfen nicht aufgehalten werden.",
                          "Gespräche und Musik auf den Loggien sind auch in höheren Geschossen und in den Nachbarhäusern gut zu hören. Ab 22 Uhr sind die Loggien nur noch in Zimmerlautstärke zu nutzen.",
                          "Ansprechpartner bei Störungen ist die Hausmeisterloge (montags bis freitags von 7 bis 16 Uhr). Bei erheblichen nächtlichen Ruhestörungen ist die Polizei zuständig.",
                      ])]),
    "parkstrasse": dict(nacht=("22", "6"), mittag=("13", "15"), mittag_tage="montags bis samstags",
                        hw="montags bis freitags von 8 bis 12 Uhr und von 14 bis 18 Uhr", hw_sa="samstags von 9 bis 13 Uhr",
                        musik="zwei Stunden", feier="drei Tage", ankuend="zwei Wochen",
                        geraete="Waschmaschinen und Wäschetrockner dürfen während der Nachtruhe nicht betrieben werden.",
                        extra=[("Trittschall in den Altbauten", [
                            "Die Holzbalkendecken und Dielenböden übertragen Trittschall stärker als neuere Decken. In den Wohnungen sind Hausschuhe zu tragen; Stühle und Tische sind mit Filzgleitern zu versehen.",
                            "In Wohn- und Schlafräumen über fremden Wohnungen sollen Teppiche oder Läufer ausgelegt werden. Das Abschleifen der Dielen gilt als geräuschintensive Arbeit und bedarf der vorherigen Zustimmung der Genossenschaft.",
                            "Für den Betrieb des Cafés im Erdgeschoss gelten die gewerberechtlichen Bestimmungen und der Gewerbemietvertrag; die Außenbewirtschaftung im Hof endet um 21 Uhr.",
                        ])]),
    "muehlenweg": dict(nacht=("22", "6"), mittag=("12", "14"), mittag_tage="montags bis samstags",
                       hw="werktags von 7 bis 12 Uhr und von 14 bis 19 Uhr", hw_sa="samstags von 8 bis 12 Uhr und von 14 bis 17 Uhr",
                       musik="drei Stunden", feier="zwei Tage", ankuend="eine Woche",
                       geraete="Waschmaschinen und Wäschetrockner sind während der Nachtruhe außer Betrieb zu halten.",
                       extra=[("Garten- und Motorgeräte", [
                           "Rasenmäher, Heckenscheren und Häcksler dürfen in den Hausgärten werktags von 9 bis 12 Uhr und von 15 bis 19 Uhr benutzt werden. Laubbläser, Laubsauger und Freischneider dürfen nur werktags von 9 bis 13 Uhr und von 15 bis 17 Uhr betrieben werden.",
                           "Kreissägen und Holzspalter sind nur werktags außerhalb der Mittagsruhe und höchstens zwei Stunden am Tag gestattet.",
                           "Feiern in den Hausgärten sind mit Rücksicht auf die Nachbarn zu gestalten; ab 22 Uhr sind sie in das Haus zu verlegen.",
                       ])]),
    "schlossberg": dict(nacht=("22", "6:30"), mittag=("13", "14:30"), mittag_tage="montags bis samstags",
                        hw="montags bis freitags von 8 bis 12:30 Uhr und von 14:30 bis 18:30 Uhr", hw_sa="samstags von 9 bis 12 Uhr",
                        musik="zwei Stunden", feier="vier Tage", ankuend="zwei Wochen",
                        geraete="Waschmaschinen, Wäschetrockner und Geschirrspüler dürfen während der Nachtruhe nicht betrieben werden.",
                        extra=[("Terrassen und Tiefgarage", [
                            "Wegen der Hanglage trägt der Schall von den Terrassen und Dachterrassen zu den oberen Häusern. Ab 22 Uhr sind Gespräche auf den Terrassen in Zimmerlautstärke zu führen; Lautsprecher im Freien sind dann auszuschalten.",
                            "In der Tiefgarage und an ihrer Zufahrt ist unnötiger Lärm zu vermeiden (Hupen, Laufenlassen der Motoren, lautes Türenschlagen), besonders während der Nachtruhe.",
                        ])]),
    "gartenstadt": dict(nacht=("22", "6"), mittag=("13", "15"), mittag_tage="montags bis samstags",
                        hw="werktags von 8 bis 12 Uhr und von 14 bis 19 Uhr", hw_sa="samstags von 8 bis 13 Uhr",
                        musik="zwei Stunden", feier="drei Tage", ankuend="zehn Tage",
                        geraete="Waschmaschinen und Wäschetrockner dürfen während der Nachtruhe nicht betrieben werden.",
                        extra=[("Mietergärten und Festwiese", [
                            "Rasenmäher und andere Gartengeräte mit Motor dürfen werktags von 8 bis 12 Uhr und von 15 bis 19 Uhr benutzt werden; Laubbläser nur werktags von 9 bis 13 Uhr und von 15 bis 17 Uhr.",
                            "Die Festwiese kann für Nachbarschafts- und Familienfeste bis 22 Uhr genutzt werden. Eine Nutzung mit mehr als 30 Gästen ist zwei Wochen vorher bei der Geschäftsstelle anzumelden.",
                        ])]),
    "bahnhofsviertel": dict(nacht=("22", "6"), mittag=("13", "15"), mittag_tage="montags bis samstags",
                            hw="montags bis freitags von 9 bis 12 Uhr und von 14 bis 18 Uhr", hw_sa="samstags von 10 bis 13 Uhr",
                            musik="90 Minuten", feier="drei Tage", ankuend="zwei Wochen",
                            geraete="Waschmaschinen, Wäschetrockner und Geschirrspüler dürfen während der Nachtruhe nicht betrieben werden.",
                            extra=[("Dachgarten, Innenhof und Gewerbe", [
                                "Der Dachgarten ist von 8 bis 22 Uhr geöffnet. Musik ist dort nur über Kopfhörer gestattet; Feiern auf dem Dachgarten sind nicht erlaubt.",
                                "Der Innenhof ist kein Spiel- und Aufenthaltsort für Gruppen nach 20 Uhr. Kinder dürfen den Spielbereich im Innenhof bis 20 Uhr nutzen.",
                                "Lieferverkehr für die Gewerbeflächen ist montags bis samstags von 6 bis 20 Uhr zulässig. Beschwerden über den Betrieb der Gewerbeflächen richten Sie bitte an die Geschäftsstelle, nicht an die Gewerbetreibenden.",
                            ])]),
}


def doc_ruhezeiten(e):
    r = RUHE[e["slug"]]
    ps = []
    ps.append(("Allgemeine Rücksichtnahme", [
        sel(e, "Jeder Hausbewohner ist verpflichtet, vermeidbaren Lärm zu unterlassen und auf die Nachbarn Rücksicht zu nehmen.",
            "Alle Bewohnerinnen und Bewohner vermeiden unnötigen Lärm und nehmen Rücksicht auf ihre Nachbarn."),
        "Fernseh-, Radio- und Musikgeräte sind stets auf Zimmerlautstärke einzustellen. Zimmerlautstärke bedeutet, dass die Geräusche außerhalb der eigenen Wohnung nicht oder nur kaum zu hören sind; bei geöffneten Fenstern und auf Balkonen gilt dies besonders.",
        O("Geräusche spielender Kinder sind in einem Wohnhaus hinzunehmen. Eltern achten darauf, dass Kinder die Ruhezeiten im Treppenhaus, im Keller und auf den Gemeinschaftsflächen einhalten."),
    ]))
    ruhe = [
        f"Die Nachtruhe gilt täglich von {r['nacht'][0]} Uhr bis {r['nacht'][1]} Uhr.",
        f"Die Mittagsruhe gilt {r['mittag_tage']} von {r['mittag'][0]} Uhr bis {r['mittag'][1]} Uhr.",
        "An Sonn- und Feiertagen ist ganztägig Ruhe zu halten. Handwerkerarbeiten, das Benutzen motorbetriebener Gartengeräte und lautes Musizieren sind an diesen Tagen untersagt.",
        O("Während der Ruhezeiten sind alle Tätigkeiten zu unterlassen, die die Nachbarn stören können, etwa Staubsaugen, Teppichklopfen oder das Verrücken von Möbeln. Baden und Duschen sind auch während der Nachtruhe erlaubt."),
    ]
    ps.append(("Ruhezeiten", ruhe))
    ps.append(("Handwerkerarbeiten", [
        f"Geräuschintensive Handwerkerarbeiten in der Wohnung, im Keller und auf dem Balkon, insbesondere Bohren, Hämmern, Sägen, Schleifen und Stemmen, sind {r['hw']} zulässig, {r['hw_sa']}.",
        O(f"Renovierungen, die länger als drei Tage dauern, sind den Nachbarn im Haus durch Aushang mindestens {r['feier']} vorher anzukündigen."),
        O(f"Handwerkerarbeiten, die die Genossenschaft beauftragt (Instandsetzung, Modernisierung), werden in der Regel {r['ankuend']} vorher durch Aushang angekündigt und finden werktags statt. Reparaturen zur Abwendung von Gefahren, etwa bei Rohrbrüchen, sind jederzeit zulässig."),
    ]))
    ps.append(("Musizieren und Feiern", [
        O(f"Musizieren ist außerhalb der Ruhezeiten bis zu {r['musik']} täglich gestattet. Instrumente mit großer Lautstärke (Schlagzeug, Blechblasinstrumente, verstärkte Instrumente) dürfen nur mit Dämpfung oder über Kopfhörer gespielt werden."),
        f"Private Feiern sind den unmittelbaren Nachbarn mindestens {r['feier']} vorher anzukündigen. Die Ankündigung befreit nicht von der Einhaltung der Nachtruhe; ab {r['nacht'][0]} Uhr ist Zimmerlautstärke einzuhalten.",
    ]))
    ps.append(("~Haushaltsgeräte", [r["geraete"]]))
    ps.extend(r["extra"])
    ps.append(("~Verstöße", [
        sel(e, "Wird die Hausruhe wiederholt gestört, kann die Genossenschaft den Mieter abmahnen. Beschwerden sollen schriftlich und mit Datum und Uhrzeit der Störungen (Lärmprotokoll) an die Geschäftsstelle gerichtet werden.",
            "Bei wiederholten Störungen kann die Genossenschaft eine Abmahnung aussprechen. Beschwerden richten Sie bitte schriftlich an die Geschäftsstelle, möglichst mit einem Lärmprotokoll, das Datum, Uhrzeit und Art der Störung festhält."),
        O("Bitte versuchen Sie zunächst, Probleme im persönlichen Gespräch mit den Nachbarn zu klären."),
    ]))
    return ps


# ------------------------------------------------------------------------------------------
# Tierhaltung
# ------------------------------------------------------------------------------------------
TIERE = {
    "lindenhof": dict(hunde="ein Hund", katzen="zwei Katzen", aquarium="100 Liter", wochen="drei Wochen",
                      besuch="drei Tagen", haftpflicht="einer Million Euro", entfernen="vier Wochen",
                      katzenfrei="Katzen sind in der Wohnung zu halten. Katzenklappen in Wohnungs-, Keller- oder Haustüren dürfen nicht eingebaut werden.",
                      kot="Hundekot ist sofort zu beseitigen; ein Spender mit Kotbeuteln befindet sich an der Einfahrt zum Innenhof.",
                      verbot="Hunde dürfen nicht auf den Spielplatz, die Spielwiese und den Wäschetrockenplatz im Innenhof mitgenommen werden.",
                      extra=[]),
    "auenpark": dict(hunde="ein Hund", katzen="zwei Katzen", aquarium="200 Liter", wochen="vier Wochen",
                     besuch="einer Woche", haftpflicht="drei Millionen Euro", entfernen="sechs Wochen",
                     katzenfrei="Katzen mit Freigang sind zugelassen, wenn sie kastriert und gechippt sind. Katzennetze an Balkonen sind mit Zustimmung der Genossenschaft erlaubt, wenn sie ohne Bohrungen in der Fassade befestigt werden.",
                     kot="Hundekot ist sofort zu beseitigen und in die Restmülltonne zu geben. Kotbeutelspender stehen an den beiden Zugängen zur Grünanlage.",
                     verbot="Hunde dürfen nicht auf den Bolzplatz, den Spielplatz und in die Mietergärten anderer Haushalte.",
                     extra=[("Mietergärten", [
                         "In den Mietergärten dürfen Kaninchen und Meerschweinchen in einem Freigehege gehalten werden, höchstens vier Tiere je Garten. Die Gehege sind sauber zu halten und über Nacht zu sichern.",
                         "Das Füttern von Enten, Schwänen und anderen Wildtieren an den Gewässern und auf den Grünflächen ist untersagt, weil es Ratten anzieht.",
                     ])]),
    "flussufer": dict(hunde="ein Hund", katzen="zwei Katzen", aquarium="150 Liter", wochen="drei Wochen",
                      besuch="zwei Tagen", haftpflicht="einer Million Euro", entfernen="vier Wochen",
                      katzenfrei="Katzen sind ausschließlich in der Wohnung zu halten. Loggien dürfen mit einem durchsichtigen Katzennetz gesichert werden; das Netz bedarf der Zustimmung der Genossenschaft und darf nicht an der Fassade verschraubt werden.",
                      kot="Hundekot ist sofort zu beseitigen. In den Eingangsbereichen der Häuser stehen Kotbeutelspender.",
                      verbot="Hunde dürfen sich im Eingangsbereich, in den Treppenhäusern und auf den Fluren nicht ohne Aufsicht aufhalten.",
                      extra=[("Aufzüge", [
                          "In den Aufzügen sind Hunde an kurzer Leine zu führen. Fährt eine Person mit, die sich vor dem Tier fürchtet oder allergisch ist, ist der nächste Aufzug abzuwarten.",
                          "Verschmutzungen der Aufzugskabinen durch Tiere sind sofort zu beseitigen oder der Hausmeisterloge zu melden; die Kosten einer Sonderreinigung trägt der Tierhalter.",
                      ])]),
    "parkstrasse": dict(hunde="ein Hund", katzen="zwei Katzen", aquarium="120 Liter", wochen="zwei Wochen",
                        besuch="drei Tagen", haftpflicht="zwei Millionen Euro", entfernen="vier Wochen",
                        katzenfrei="Katzen sind in der Wohnung zu halten; Freigang über den Hinterhof ist nicht gestattet.",
                        kot="Hundekot ist sofort zu beseitigen, auch auf dem Gehweg vor den Häusern.",
                        verbot="Tiere dürfen sich nicht im Hinterhof aufhalten; der Hinterhof ist nur auf dem Weg zu den Hauseingängen mit angeleinten Hunden zu betreten.",
                        extra=[("Aquarien und Terrarien in den Altbauten", [
                            "Wegen der Tragfähigkeit der Holzbalkendecken bedürfen Aquarien und Terrarien mit mehr als 120 Litern Inhalt der vorherigen schriftlichen Zustimmung der Genossenschaft; sie prüft die Aufstellung an einer tragenden Wand.",
                            "Aquarien sind auf eine Auffangwanne oder eine wasserdichte Unterlage zu stellen. Wasserschäden durch Aquarien trägt der Halter.",
                        ])]),
    "muehlenweg": dict(hunde="zwei Hunde", katzen="drei Katzen", aquarium="200 Liter", wochen="vier Wochen",
                       besuch="einer Woche", haftpflicht="einer Million Euro", entfernen="acht Wochen",
                       katzenfrei="Katzen dürfen Freigang haben; sie sollen kastriert und gechippt sein.",
                       kot="Hundekot ist sofort zu beseitigen, auch auf den Gehwegen und im Garagenhof.",
                       verbot="Im Garagenhof sind Hunde an kurzer Leine zu führen; im eigenen Hausgarten dürfen sie frei laufen, wenn der Garten eingezäunt ist.",
                       extra=[("Hühner, Kaninchen und Bienen in den Hausgärten", [
                           "In den Hausgärten dürfen bis zu vier Hühner gehalten werden; Hähne sind nicht erlaubt. Der Stall muss mindestens drei Meter von der Grenze zum Nachbargarten entfernt stehen und ist regelmäßig auszumisten.",
                           "Kaninchen dürfen in Ställen oder Freigehegen im Hausgarten gehalten werden, höchstens sechs Tiere je Garten.",
                           "Bis zu zwei Bienenvölker dürfen mit Zustimmung der Genossenschaft aufgestellt werden, wenn die Nachbarn angehört wurden. Die Haltung ist dem Veterinäramt anzuzeigen.",
                           "Zucht zu gewerblichen Zwecken ist nicht gestattet.",
                       ])]),
    "schlossberg": dict(hunde="ein Hund", katzen="zwei Katzen", aquarium="200 Liter", wochen="drei Wochen",
                        besuch="drei Tagen", haftpflicht="drei Millionen Euro", entfernen="sechs Wochen",
                        katzenfrei="Katzen sind in der Wohnung zu halten. Terrassen und Dachterrassen dürfen mit Zustimmung der Genossenschaft mit einem Katzennetz gesichert werden.",
                        kot="Hundekot ist sofort zu beseitigen. An den Treppenanlagen stehen zwei Hundetoiletten mit Kotbeuteln.",
                        verbot="In der Tiefgarage dürfen Tiere nicht unbeaufsichtigt in Fahrzeugen zurückgelassen werden. Auf den öffentlich zugänglichen Treppenanlagen gilt Leinenpflicht.",
                        extra=[]),
    "gartenstadt": dict(hunde="zwei Hunde", katzen="zwei Katzen", aquarium="150 Liter", wochen="drei Wochen",
                        besuch="fünf Tagen", haftpflicht="einer Million Euro", entfernen="sechs Wochen",
                        katzenfrei="Katzen dürfen Freigang haben. Halter sorgen dafür, dass ihre Katzen nicht in die Sandkästen gelangen; Sandkästen sind abzudecken, wenn sie nicht benutzt werden.",
                        kot="Hundekot ist sofort zu beseitigen, auch auf der Festwiese und auf den Wegen zwischen den Gärten.",
                        verbot="Auf der Festwiese dürfen Hunde nicht frei laufen; ihr Spielbereich ist für Hunde gesperrt.",
                        extra=[("Kleintiere im Mietergarten", [
                            "Kaninchen und Meerschweinchen dürfen im Mietergarten in einem Freigehege gehalten werden. Die Haltung von Hühnern, Enten und anderem Geflügel ist nicht gestattet.",
                            "Ställe und Gehege dürfen nicht fest mit dem Boden verbunden werden und sind beim Auszug zu entfernen.",
                        ])]),
    "bahnhofsviertel": dict(hunde="ein Hund", katzen="zwei Katzen", aquarium="100 Liter", wochen="zwei Wochen",
                            besuch="zwei Tagen", haftpflicht="drei Millionen Euro", entfernen="vier Wochen",
                            katzenfrei="Katzen sind ausschließlich in der Wohnung zu halten.",
                            kot="Hundekot ist sofort zu beseitigen, auch auf den Gehwegen vor den Gewerbeflächen.",
                            verbot="Auf den Dachgarten und in den begrünten Innenhof dürfen keine Tiere mitgenommen werden; ausgenommen sind Assistenzhunde.",
                            extra=[("Tauben", [
                                "Das Füttern von Tauben auf Balkonen, Fensterbänken, im Innenhof und auf dem Dachgarten ist verboten.",
                                "Die Genossenschaft hat an den Dachkanten Taubenabwehr anbringen lassen. Eigene Netze an Balkonen bedürfen ihrer Zustimmung.",
                            ])]),
}


def doc_haustiere(e):
    t = TIERE[e["slug"]]
    ps = []
    ps.append(("Kleintiere", [
        "Kleintiere wie Ziervögel, Zierfische, Hamster, Meerschweinchen, Kaninchen und Schildkröten dürfen ohne Zustimmung der Genossenschaft in üblicher Anzahl in der Wohnung gehalten werden, solange sie die Nachbarn nicht belästigen.",
        f"Aquarien dürfen bis zu {t['aquarium']} Inhalt ohne Zustimmung aufgestellt werden.",
    ]))
    ps.append(("Hunde und Katzen", [
        "Die Haltung von Hunden und Katzen bedarf der vorherigen schriftlichen Zustimmung der Genossenschaft. Der Antrag auf Tierhaltung ist über das Mieterportal oder schriftlich bei der Geschäftsstelle zu stellen; er nennt Tierart, Rasse und Größe.",
        f"Je Wohnung werden höchstens {t['hunde']} und {t['katzen']} zugelassen. Über den Antrag entscheidet die Genossenschaft in der Regel innerhalb von {t['wochen']}.",
        f"Für jeden Hund ist eine Hundehaftpflichtversicherung mit einer Deckungssumme von mindestens {t['haftpflicht']} nachzuweisen.",
        O("Die Zustimmung gilt nur für das im Antrag genannte Tier. Für ein weiteres oder ein neues Tier ist ein neuer Antrag zu stellen."),
    ]))
    ps.append(("Nicht zugelassene Tiere", [
        "Nicht zugelassen werden Hunde, die nach Landesrecht als gefährlich gelten (Listenhunde), giftige Tiere sowie Tiere, die nicht artgerecht in einer Wohnung gehalten werden können.",
        O("Die Zucht und der Handel mit Tieren in der Wohnung sind untersagt."),
    ]))
    ps.append(("Pflichten der Tierhalter", [
        O(sel(e, "Der Tierhalter hat dafür zu sorgen, dass durch das Tier weder Hausbewohner noch Besucher belästigt oder gefährdet werden.",
            "Tierhalterinnen und Tierhalter sorgen dafür, dass ihre Tiere Nachbarn und Besucher weder belästigen noch gefährden.")),
        "Auf den gemeinschaftlich genutzten Flächen der Wohnanlage, in Treppenhäusern" + (", Kellern und Aufzügen" if e["slug"] in LIFT else " und Kellern") + " gilt Anleinpflicht für Hunde. " + t["verbot"],
        t["kot"],
        t["katzenfrei"],
        O("Katzenstreu gehört in den Restmüll, nicht in die Toilette."),
    ]))
    ps.extend(t["extra"])
    ps.append(("Besuchstiere und Assistenzhunde", [
        f"Hunde von Besuchern dürfen ohne Zustimmung bis zu {t['besuch']} in der Wohnung bleiben; für sie gelten die Pflichten der Tierhalter entsprechend.",
        O("Blindenführhunde und andere Assistenzhunde bedürfen keiner Zustimmung; die Genossenschaft ist jedoch zu informieren."),
    ]))
    ps.append(("~Widerruf der Zustimmung", [
        "Die Genossenschaft kann die Zustimmung widerrufen, wenn von dem Tier erhebliche Belästigungen oder Gefahren ausgehen, die Pflichten nach diesen Bestimmungen wiederholt verletzt werden oder die Voraussetzungen der Zustimmung entfallen.",
        f"Nach dem Widerruf ist das Tier innerhalb von {t['entfernen']} abzuschaffen.",
    ]))
    return ps


# ------------------------------------------------------------------------------------------
# Abfall, Reinigung und Winterdienst
# ------------------------------------------------------------------------------------------
MUELL = {
    "lindenhof": dict(
        platz="Die Abfallbehälter stehen auf dem Müllplatz an der Einfahrt zum Innenhof.",
        glas="Die Glascontainer stehen gegenüber der Einfahrt zum Innenhof; Einwurfzeiten werktags von 7 bis 20 Uhr.",
        sperr="Zweimal im Jahr, im April und im Oktober, veranstaltet die Genossenschaft Sperrmülltage; die Termine werden vier Wochen vorher durch Aushang bekanntgegeben. Außerhalb dieser Termine ist Sperrmüll bei der städtischen Abfallwirtschaft zur Abholung anzumelden.",
        reinigung=[
            "Die Treppenhausreinigung übernehmen die Mieter selbst nach dem Reinigungsplan, der im Treppenhaus aushängt. Jeder Haushalt reinigt in seiner Woche (Kehrwoche) den Treppenabschnitt und das Podest vor seiner Wohnung bis zum darunterliegenden Geschoss, die Haushalte im Erdgeschoss zusätzlich den Hauseingang.",
            "Einmal im Monat ist nach dem Reinigungsplan die große Hausordnung zu erledigen: Kellergänge, Waschküche, Trockenraum und Treppenhausfenster.",
            "Wird die Reinigung nicht oder nicht ordentlich ausgeführt, kann die Genossenschaft nach erfolgloser Erinnerung eine Reinigungsfirma auf Kosten des säumigen Haushalts beauftragen.",
        ],
        winter=("ein Hausmeisterdienst", "werktags von 7 bis 20 Uhr", "an Sonn- und Feiertagen von 9 bis 20 Uhr"),
        winter_extra="Die Gehwege, die Hauszugänge, der Weg zum Müllplatz und der Zugang zum Innenhof werden geräumt und mit abstumpfenden Mitteln gestreut.",
        extra=[]),
    "auenpark": dict(
        platz="Die Abfallbehälter stehen in den eingehausten Müllstandplätzen zwischen den Häusern; sie sind mit dem Hausschlüssel zugänglich und nach der Benutzung zu verschließen.",
        glas="Die Glascontainer stehen an der Wertstoffinsel beim Bolzplatz; Einwurfzeiten werktags von 8 bis 19 Uhr.",
        sperr="Sperrmüll ist bei der städtischen Abfallwirtschaft zur Abholung anzumelden; zwei Abholungen im Jahr sind kostenlos. Sperrmüll darf erst am Abend vor dem Abholtag an die Straße gestellt werden, nicht in Kellergänge oder Müllstandplätze.",
        reinigung=[
            "Die Treppenhausreinigung übernimmt eine Reinigungsfirma: die Treppenhäuser wöchentlich, die Treppenhausfenster und die Kellergänge vierteljährlich. Die Kosten werden als Betriebskosten umgelegt.",
            "Grobe Verschmutzungen, die Bewohnerinnen und Bewohner verursachen (etwa beim Umzug oder durch Tiere), beseitigen sie selbst und unverzüglich.",
        ],
        winter=("eine Winterdienstfirma", "werktags von 7 bis 20 Uhr", "an Sonn- und Feiertagen von 8 bis 20 Uhr"),
        winter_extra="Geräumt werden die Gehwege, die Hauszugänge, die Zufahrt zur Tiefgarage und die Wege zu den Müllstandplätzen. Die Zugänge zu den Mietergärten räumen die Nutzer der Gärten selbst.",
        extra=[]),
    "flussufer": dict(
        platz="In jedem Haus befindet sich im Erdgeschoss ein Müllraum mit Behältern für alle Abfallarten. Die früheren Abfallschächte in den Geschossen sind stillgelegt und verschlossen; es dürfen dort keine Abfälle abgestellt werden.",
        glas="Die Glascontainer stehen am Parkplatz vor Haus Nr. 5; Einwurfzeiten werktags von 7 bis 19 Uhr.",
        sperr="Sperrmüll ist bei der Hausmeisterloge anzumelden; er wird jeden ersten Montag im Monat gesammelt und ist bis dahin in der eigenen Wohnung oder im eigenen Kellerabteil aufzubewahren. Auf Fluren, Podesten und vor den Aufzügen darf nichts abgestellt werden.",
        reinigung=[
            "Die Treppenhausreinigung übernimmt eine Reinigungsfirma: Eingangsbereiche und Aufzugskabinen werktags täglich, Treppenhäuser und Geschossflure wöchentlich. Die Kosten werden als Betriebskosten umgelegt.",
            "Die Flure sind Fluchtwege und müssen für die Reinigung frei sein; Schuhe, Schuhschränke und Pflanzen dürfen dort nicht abgestellt werden.",
        ],
        winter=("eine Winterdienstfirma", "werktags von 6:30 bis 20 Uhr", "an Sonn- und Feiertagen von 8:30 bis 20 Uhr"),
        winter_extra="Geräumt werden die Gehwege, die Hauszugänge, die Feuerwehrzufahrten, die Zufahrt zur Tiefgarage und die Besucherparkplätze.",
        extra=[]),
    "parkstrasse": dict(
        platz="Die Abfallbehälter stehen im Hinterhof. Am Abholtag stellt der Hausmeister sie an die Straße und bringt sie anschließend zurück.",
        glas="Eigene Glascontainer hat die Wohnanlage nicht; Altglas darf nicht in die Behälter im Hinterhof gegeben werden.",
        sperr="Sperrmüll ist bei der städtischen Abfallwirtschaft anzumelden und erst am Abholtag an die Straße zu stellen. Im Hinterhof und in der Durchfahrt darf kein Sperrmüll abgestellt werden.",
        reinigung=[
            "Die Treppenhausreinigung übernehmen die Bewohnerinnen und Bewohner selbst nach dem Reinigungsplan, der im Hausflur aushängt: Die Haushalte eines Geschosses wechseln sich wöchentlich ab und reinigen die Treppe bis zum darunterliegenden Geschoss. Die Haushalte im Erdgeschoss reinigen zusätzlich Hausflur und Hauseingang.",
            "Die Dielentreppen sind feucht zu wischen, nicht nass, und dürfen nicht mit scharfen Mitteln behandelt werden.",
            "Wer die Reinigung nicht selbst übernehmen kann, kann sie auf eigene Kosten einer Reinigungsfirma übertragen; die Genossenschaft vermittelt auf Wunsch.",
        ],
        winter=("eine Winterdienstfirma", "werktags von 7 bis 20 Uhr", "an Sonn- und Feiertagen von 9 bis 20 Uhr"),
        winter_extra="Geräumt werden der Gehweg vor den Häusern, die Hauseingänge und der Weg durch die Durchfahrt zum Hinterhof.",
        extra=[]),
    "muehlenweg": dict(
        platz="Zu jedem Reihenhaus gehören eigene Abfallbehälter, die am Haus aufzubewahren sind. Sie sind am Abend vor der Abholung ab 18 Uhr, spätestens am Abholtag bis 7 Uhr an den Straßenrand zu stellen und am selben Tag wieder zurückzuholen. Die Mehrfamilienhäuser haben einen gemeinsamen Müllplatz.",
        glas="Die Glascontainer stehen am Garagenhof; Einwurfzeiten werktags von 7 bis 20 Uhr.",
        sperr="Sperrmüll ist bei der städtischen Abfallwirtschaft zur Abholung anzumelden. Gartenabfälle gehören nicht zum Sperrmüll.",
        reinigung=[
            "Die Treppenhausreinigung in den Mehrfamilienhäusern übernehmen die Mieter; sie reinigen Treppenhaus, Kellergang und Hauseingang abwechselnd nach dem Reinigungsplan, der im Treppenhaus aushängt. In den Reihenhäusern obliegt die Reinigung der Hauszugänge den Mietern des jeweiligen Hauses.",
            "Gartenabfälle dürfen im eigenen Hausgarten kompostiert werden. Der Kompost ist so anzulegen, dass er die Nachbarn nicht durch Geruch belästigt; das Verbrennen von Gartenabfällen ist verboten.",
        ],
        winter=("die Mieter", "werktags von 7 bis 20 Uhr", "an Sonn- und Feiertagen von 8 bis 20 Uhr"),
        winter_extra="Jeder Mieter eines Reihenhauses räumt und streut den Gehweg vor seinem Haus und den Hauszugang in ganzer Breite. Für die Mehrfamilienhäuser gilt der Winterdienstplan im Treppenhaus. Streugut stellt die Genossenschaft in den Streugutkisten am Garagenhof bereit; Streusalz darf nicht verwendet werden.",
        extra=[("Verhinderung", [
            "Mieter, die wegen Alter, Krankheit oder Abwesenheit den Winterdienst nicht selbst leisten können, sorgen für eine Vertretung. Die Genossenschaft kann gegen Kostenerstattung eine Firma beauftragen.",
        ])]),
    "schlossberg": dict(
        platz="Die Abfallbehälter stehen in den Müllräumen an der Zufahrt zur Tiefgarage; die Müllräume sind mit dem Haustransponder zugänglich.",
        glas="Die Glascontainer stehen an der Wertstoffinsel an der unteren Zufahrt; Einwurfzeiten werktags von 8 bis 20 Uhr.",
        sperr="Zweimal im Jahr, im März und im September, findet eine Sperrmüllsammlung statt; die Termine werden drei Wochen vorher durch Aushang bekanntgegeben. Bis dahin ist Sperrmüll im eigenen Kellerabteil aufzubewahren.",
        reinigung=[
            "Die Treppenhausreinigung übernimmt eine Reinigungsfirma, die die Treppenhäuser wöchentlich und die Tiefgarage zweimal im Jahr reinigt. Die Kosten werden als Betriebskosten umgelegt.",
            "Terrassen und Dachterrassen reinigen die Bewohnerinnen und Bewohner selbst; die Abläufe sind frei von Laub zu halten.",
        ],
        winter=("eine Winterdienstfirma", "werktags von 6 bis 20 Uhr", "an Sonn- und Feiertagen von 8 bis 20 Uhr"),
        winter_extra="Geräumt und gestreut werden die Gehwege, die Hauszugänge, die Zufahrt zur Tiefgarage und die Treppenanlagen. Wegen der Hanglage darf auf den Treppenanlagen Streusalz verwendet werden, auf den übrigen Flächen nur abstumpfendes Streugut.",
        extra=[]),
    "gartenstadt": dict(
        platz="Die Abfallbehälter stehen an den gemeinsamen Müllplätzen der Hausgruppen. Sie sind nach der Leerung zu schließen.",
        glas="Die Glascontainer stehen an der Festwiese; Einwurfzeiten werktags von 7 bis 20 Uhr.",
        sperr="Sperrmüll ist bei der städtischen Abfallwirtschaft zur Abholung anzumelden. Im Frühjahr und im Herbst stellt die Genossenschaft für jeweils eine Woche Container für Grünschnitt auf; die Termine werden durch Aushang bekanntgegeben.",
        reinigung=[
            "Die Treppenhausreinigung der gemeinsamen Hausflure in den Doppelhäusern übernehmen die Haushalte im wöchentlichen Wechsel nach dem Reinigungsplan.",
            "Die Mietergärten sind von ihren Nutzern zu pflegen. Laub ist im Herbst auch vom Gehweg vor dem eigenen Garten zu entfernen. Gartenabfälle dürfen im Mietergarten kompostiert werden.",
        ],
        winter=("die Mieter", "werktags von 7 bis 20 Uhr", "an Sonn- und Feiertagen von 9 bis 20 Uhr"),
        winter_extra="Jeder Haushalt räumt und streut den Hauszugang und den Gehweg vor seinem Garten. Die Wege zur Festwiese und die Fußwege zwischen den Hausgruppen räumt eine Winterdienstfirma; ihre Kosten werden als Betriebskosten umgelegt.",
        extra=[]),
    "bahnhofsviertel": dict(
        platz="Restmüll, Altpapier und Leichtverpackungen gehören in die Unterflurbehälter an der Zufahrt; sie werden mit dem Haustransponder geöffnet. Bioabfälle gehören in die Biotonnen im Müllraum im Untergeschoss.",
        glas="Die Glascontainer stehen an der Zufahrt; Einwurfzeiten werktags von 7 bis 20 Uhr.",
        sperr="Sperrmüll ist bei der städtischen Abfallwirtschaft zur Abholung anzumelden. Er darf weder im Fahrradkeller noch in der Tiefgarage zwischengelagert werden.",
        reinigung=[
            "Die Treppenhausreinigung übernimmt eine Reinigungsfirma: Treppenhäuser wöchentlich, Innenhof und Dachgarten zweimal wöchentlich. Die Kosten werden als Betriebskosten umgelegt.",
            "Abfälle der Gewerbeflächen werden getrennt entsorgt; die Gewerbetreibenden dürfen die Behälter der Wohnungen nicht benutzen.",
        ],
        winter=("eine Winterdienstfirma", "werktags von 7 bis 20 Uhr", "an Sonn- und Feiertagen von 9 bis 20 Uhr"),
        winter_extra="Geräumt werden die Gehwege, die Hauszugänge, die Zufahrt zur Tiefgarage und die Wege im Innenhof.",
        extra=[]),
}


def doc_muell(e):
    m = MUELL[e["slug"]]
    ps = []
    ps.append(("Mülltrennung", [
        "Abfälle sind getrennt zu sammeln und in die dafür bestimmten Behälter zu geben: Restmüll, Bioabfälle (Biotonne), Leichtverpackungen (Gelbe Tonne) und Altpapier. Kartons sind zu zerkleinern. Altglas gehört nach Farben getrennt in die Glascontainer.",
        m["platz"],
        O(m["glas"]),
        O("Abfälle dürfen nicht neben den Behältern abgestellt werden. Batterien, Farben, Lacke, Energiesparlampen und Elektrogeräte gehören nicht in den Hausmüll, sondern zum Wertstoffhof oder zum Schadstoffmobil."),
    ]))
    ps.append(("Sperrmüll", [
        m["sperr"],
        O(sel(e, "Werden Sperrmüll oder Abfälle unzulässig abgestellt, lässt die Genossenschaft sie entfernen; die Kosten trägt der Verursacher. Ist er nicht zu ermitteln, werden sie als Betriebskosten auf alle Mieter umgelegt.",
            "Unzulässig abgestellter Sperrmüll wird auf Kosten der Verursacher entfernt. Lassen sich diese nicht ermitteln, werden die Kosten als Betriebskosten auf alle Haushalte umgelegt.")),
    ]))
    ps.append(("Reinigung", m["reinigung"]))
    wer, wt, so = m["winter"]
    ps.append(("Winterdienst", [
        f"Die Räum- und Streupflicht bei Schnee und Glätte {'übernehmen' if wer == 'die Mieter' else 'übernimmt'} {wer}. Sie gilt {wt} und {so}.",
        m["winter_extra"],
        O("Bei anhaltendem Schneefall oder überfrierender Nässe ist so oft wie nötig zu räumen und zu streuen. Schnee darf nicht auf Fahrbahnen, Zufahrten oder Abflussrinnen geschoben werden."),
    ]))
    ps.extend(m["extra"])
    return ps


# ------------------------------------------------------------------------------------------
# Balkone, Terrassen und Grillen
# ------------------------------------------------------------------------------------------
BALKON = {
    "lindenhof": dict(
        wort="Balkone",
        grill=["Auf den Balkonen dürfen nur Elektrogrills benutzt werden. Holzkohlegrills, Gasgrills und andere Geräte mit offener Flamme sind auf den Balkonen verboten.",
               "Im Innenhof steht ein gemauerter Gemeinschaftsgrillplatz, auf dem mit Holzkohle gegrillt werden darf. Er ist von April bis Oktober bis 22 Uhr nutzbar und beim Hausmeister zu reservieren; nach der Benutzung ist er zu reinigen und die Asche erkaltet in die Restmülltonne zu geben."],
        pflanzen="Blumenkästen sind an der Innenseite der Brüstung anzubringen.",
        waesche="Wäsche darf auf den Balkonen nur unterhalb der Brüstung getrocknet werden. Außerdem steht der Wäschetrockenplatz im Innenhof zur Verfügung.",
        markise="Markisen sind nur in der von der Genossenschaft vorgegebenen Farbe (Sandbeige) und mit ihrer Zustimmung zulässig.",
        extra=[]),
    "auenpark": dict(
        wort="Balkone",
        grill=["Auf den Balkonen dürfen Elektrogrills und Gasgrills mit einer Gasflasche von höchstens 5 Kilogramm benutzt werden. Gasflaschen dürfen nicht im Keller oder in der Tiefgarage gelagert werden.",
               "Holzkohlegrills sind nur in den Mietergärten und auf den Terrassen der Erdgeschosswohnungen erlaubt, höchstens zweimal im Monat und mit mindestens drei Metern Abstand zur Hauswand."],
        pflanzen="Blumenkästen sind an der Innenseite der Brüstung anzubringen.",
        waesche="Wäsche darf nur unterhalb der Brüstung getrocknet werden.",
        markise="Markisen und Sichtschutz bedürfen der Zustimmung der Genossenschaft; Sichtschutz aus Schilfmatten oder Kunststoffstreifen ist nicht zugelassen.",
        extra=[("Mietergärten und Terrassen", [
            "Die Terrassen und Mietergärten der Erdgeschosswohnungen sind von ihren Nutzerinnen und Nutzern zu pflegen; Hecken dürfen höchstens 1,80 Meter hoch sein.",
            "Gartenhäuser bis zu vier Quadratmetern Grundfläche sind mit Zustimmung der Genossenschaft erlaubt.",
        ])]),
    "flussufer": dict(
        wort="Loggien und Balkone",
        grill=["Das Grillen ist auf den Loggien und Balkonen aus Gründen des Brandschutzes verboten, gleich ob mit Holzkohle-, Gas- oder Elektrogrill. Ebenso verboten sind Feuerschalen, Fackeln und Heizpilze.",
               "Zum Grillen steht der Grillplatz auf der Wiese hinter Haus Nr. 1 zur Verfügung; er ist von Mai bis September täglich bis 21:30 Uhr nutzbar und vorher bei der Hausmeisterloge anzumelden."],
        pflanzen="Blumenkästen und Pflanzgefäße dürfen nur auf dem Boden der Loggia stehen. Ab dem fünften Obergeschoss dürfen wegen des Windes keine Sonnenschirme, losen Möbel oder leichten Gegenstände ungesichert abgestellt werden.",
        waesche="Wäsche darf nur unterhalb der Brüstung getrocknet werden.",
        markise="Markisen, Verglasungen und Sichtschutz an den Loggien sind nicht zulässig.",
        extra=[]),
    "parkstrasse": dict(
        wort="Balkone",
        grill=["Auf den Balkonen dürfen nur Elektrogrills benutzt werden. Holzkohle- und Gasgrills sind verboten.",
               "Im Hinterhof ist das Grillen nicht erlaubt; einen Gemeinschaftsgrillplatz gibt es nicht."],
        pflanzen="Blumenkästen sind an der Innenseite der Brüstung anzubringen; an den schmiedeeisernen Geländern der Straßenseite dürfen keine Halterungen angebracht werden.",
        waesche="Wäsche darf nur unterhalb der Brüstung getrocknet werden. Zum Trocknen steht außerdem der Wäscheboden im Dachgeschoss zur Verfügung.",
        markise="Markisen sind an den denkmalgeschützten Straßenfassaden nicht zulässig; auf der Hofseite nur mit Zustimmung der Genossenschaft.",
        extra=[]),
    "muehlenweg": dict(
        wort="Balkone, Terrassen und Hausgärten",
        grill=["In den Hausgärten und auf den Terrassen der Reihenhäuser dürfen Holzkohle-, Gas- und Elektrogrills benutzt werden, mit mindestens drei Metern Abstand zu den Fenstern der Nachbarhäuser.",
               "Auf den Balkonen der Mehrfamilienhäuser dürfen nur Elektrogrills benutzt werden.",
               "Feuerschalen und Feuerkörbe sind in den Hausgärten erlaubt, wenn nur trockenes, unbehandeltes Holz verbrannt wird; bei Trockenheit und Waldbrandwarnung ist offenes Feuer untersagt."],
        pflanzen="Blumenkästen an Balkonen sind an der Innenseite der Brüstung anzubringen.",
        waesche="Wäsche darf auf den Balkonen nur unterhalb der Brüstung getrocknet werden; in den Hausgärten ist das Aufstellen von Wäschespinnen erlaubt.",
        markise="Markisen an den Reihenhäusern sind mit Zustimmung der Genossenschaft erlaubt.",
        extra=[("Planschbecken", [
            "Planschbecken und Aufstellpools bis zu einem Durchmesser von 3,60 Metern dürfen in den Hausgärten von Mai bis September aufgestellt werden. Fest eingebaute Pools sind nicht erlaubt.",
        ])]),
    "schlossberg": dict(
        wort="Terrassen, Dachterrassen und Balkone",
        grill=["Auf den Terrassen, Dachterrassen und Balkonen dürfen Elektrogrills und Gasgrills mit einer Gasflasche von höchstens 11 Kilogramm benutzt werden. Holzkohlegrills sind verboten, weil der Rauch am Hang in die darüberliegenden Wohnungen zieht.",
               "Einen Gemeinschaftsgrillplatz gibt es nicht."],
        pflanzen="Pflanzgefäße auf den Dachterrassen dürfen zusammen nicht mehr als 200 Kilogramm je Quadratmeter wiegen; größere Pflanzkübel nur mit Zustimmung der Genossenschaft.",
        waesche="Wäsche darf nur unterhalb der Brüstung getrocknet werden.",
        markise="Markisen sind in der einheitlichen Ausführung der Wohnanlage mit Zustimmung der Genossenschaft erlaubt.",
        extra=[("Wasserbecken auf den Terrassen", [
            "Planschbecken dürfen auf Terrassen und Dachterrassen nur bis zu einem Inhalt von 300 Litern aufgestellt werden. Whirlpools und Aufstellpools sind nicht zugelassen.",
            "Die Abdichtung der Terrassen darf durch Becken, Pflanzkübel und Möbel nicht beschädigt werden.",
        ])]),
    "gartenstadt": dict(
        wort="Terrassen, Mietergärten und Balkone",
        grill=["In den Mietergärten und auf den Terrassen darf mit Holzkohle-, Gas- und Elektrogrills gegrillt werden. Auf den Balkonen der oberen Geschosse sind nur Elektrogrills erlaubt.",
               "Auf der Festwiese steht ein Gemeinschaftsgrillplatz zur Verfügung, der ohne Anmeldung bis 22 Uhr genutzt werden kann.",
               "Feuerschalen, Feuerkörbe und Lagerfeuer sind in den Gärten nicht gestattet."],
        pflanzen="Blumenkästen an Balkonen sind an der Innenseite der Brüstung anzubringen. Bäume dürfen in den Mietergärten nur mit Zustimmung der Genossenschaft gepflanzt werden.",
        waesche="Wäsche darf auf den Balkonen nur unterhalb der Brüstung getrocknet werden; in den Gärten sind Wäschespinnen erlaubt.",
        markise="Markisen und Terrassenüberdachungen bedürfen der Zustimmung der Genossenschaft.",
        extra=[]),
    "bahnhofsviertel": dict(
        wort="Balkone und Dachgarten",
        grill=["Auf den Balkonen dürfen nur Elektrogrills benutzt werden. Holzkohle- und Gasgrills sind verboten.",
               "Auf dem Dachgarten steht ein fest eingebauter Elektrogrill, der über das Mieterportal für bis zu drei Stunden gebucht werden kann; die Nutzung ist von April bis Oktober bis 21 Uhr möglich."],
        pflanzen="Blumenkästen sind an der Innenseite der Brüstung anzubringen. Auf dem Dachgarten dürfen keine eigenen Pflanzgefäße aufgestellt werden.",
        waesche="Wäsche darf nur unterhalb der Brüstung getrocknet werden.",
        markise="An den Balkonen sind bereits Markisen eingebaut; zusätzlicher Sichtschutz ist nur in der einheitlichen Ausführung zulässig.",
        extra=[]),
}


def doc_balkon(e):
    b = BALKON[e["slug"]]
    ps = []
    ps.append(("Nutzung", [
        f"{b['wort']} gehören zur Wohnung oder zur gemeinschaftlichen Anlage und sind pfleglich zu behandeln und sauber zu halten. Die Abläufe sind freizuhalten.",
        O("Sie dürfen nicht als Abstellfläche für Sperrmüll, Altpapier, Reifen oder Gerümpel genutzt werden."),
        b["waesche"],
    ]))
    ps.append(("Grillen", b["grill"] + [
        "Beim Grillen ist darauf zu achten, dass Rauch und Gerüche die Nachbarn nicht erheblich belästigen. Ein Eimer Wasser oder ein Feuerlöscher ist bereitzuhalten. Mit Beginn der Nachtruhe um 22 Uhr ist das Grillen zu beenden.",
    ]))
    ps.append(("Bepflanzung", [
        b["pflanzen"],
        "Pflanzen sind so zu gießen, dass kein Wasser an der Fassade herunterläuft oder auf darunterliegende Balkone tropft. Kletterpflanzen dürfen nicht an der Fassade hochwachsen.",
    ]))
    ps.append(("Bauliche Veränderungen", [
        b["markise"],
        "Bohrungen in Fassade, Brüstung und Balkonplatte sind ohne Zustimmung der Genossenschaft nicht gestattet. Satellitenschüsseln dürfen nicht angebracht werden, da alle Wohnungen an das Kabelnetz angeschlossen sind.",
        "Steckersolargeräte (Balkonkraftwerke) bis 800 Watt sind mit Zustimmung der Genossenschaft erlaubt; sie sind ohne Bohrungen sicher zu befestigen und beim Netzbetreiber und im Marktstammdatenregister anzumelden.",
    ]))
    ps.extend(b["extra"])
    ps.append(("Rauchen und offenes Feuer", [
        "Das Rauchen auf Balkonen und Terrassen ist erlaubt; Zigarettenreste dürfen nicht hinuntergeworfen werden.",
        O("Kerzen und Windlichter sind nur in geschlossenen Behältern und unter Aufsicht gestattet."),
    ]))
    return ps


# ------------------------------------------------------------------------------------------
# Stellplätze, Garagen und Fahrräder
# ------------------------------------------------------------------------------------------
PARK = {
    "lindenhof": dict(
        orte="Auf den Stellplätzen und in den Garagen",
        bestand="Zur Wohnanlage gehören 38 Stellplätze im Hof und 12 Garagen.",
        preise="Das Entgelt beträgt monatlich 32 Euro für einen Stellplatz und 48 Euro für eine Garage.",
        frist="Der Stellplatzmietvertrag kann mit einer Frist von einem Monat zum Monatsende gekündigt werden, der Garagenmietvertrag mit einer Frist von drei Monaten.",
        besucher="Besucherparkplätze gibt es nicht; Besucher parken im öffentlichen Straßenraum.",
        rad=["Fahrräder sind in den Fahrradkellern der Häuser oder an den Fahrradständern im Innenhof (60 Plätze) abzustellen.",
             "Kinderwagen und Rollatoren dürfen im Kinderwagenraum im Erdgeschoss abgestellt werden."],
        akku="Akkus von E-Bikes und E-Scootern dürfen nicht in den Kellern geladen werden, sondern nur in der Wohnung und unter Aufsicht.",
        aktion="Einmal im Jahr werden Fahrräder, die offensichtlich nicht mehr genutzt werden, mit einer Banderole gekennzeichnet und nach vier Wochen entfernt.",
        extra=[]),
    "auenpark": dict(
        orte="Auf den Stellplätzen und in der Tiefgarage",
        bestand="Zur Wohnanlage gehören eine Tiefgarage mit 60 Stellplätzen und 40 Außenstellplätze.",
        preise="Das Entgelt beträgt monatlich 55 Euro für einen Tiefgaragenstellplatz und 28 Euro für einen Außenstellplatz. Für den Handsender des Tiefgaragentors wird ein Pfand von 30 Euro erhoben.",
        frist="Stellplatzmietverträge können mit einer Frist von drei Monaten zum Monatsende gekündigt werden.",
        besucher="Für Besucher stehen sechs gekennzeichnete Besucherparkplätze zur Verfügung; sie dürfen höchstens 24 Stunden ununterbrochen belegt werden.",
        rad=["Fahrräder sind in den vier abschließbaren Fahrradhäusern mit je 25 Plätzen oder in den Fahrradkellern abzustellen. Ein Platz im Fahrradhaus kostet 3 Euro im Monat.",
             "Kinderwagen und Rollatoren dürfen in den Kinderwagenräumen im Erdgeschoss der Häuser abgestellt werden."],
        akku="Akkus von E-Bikes dürfen in den Fahrradhäusern an den dafür vorgesehenen Ladesteckdosen geladen werden, im Keller nicht.",
        aktion="Herrenlose Fahrräder werden nach Kennzeichnung und einer Frist von sechs Wochen entfernt.",
        extra=[("Hochwasser", [
            "Bei einer amtlichen Hochwasserwarnung kann die Genossenschaft die Räumung der Tiefgarage anordnen. Fahrzeuge sind dann innerhalb der genannten Frist aus der Tiefgarage zu entfernen.",
            "Für Schäden an Fahrzeugen, die trotz Räumungsaufforderung in der Tiefgarage verbleiben, haftet die Genossenschaft nicht.",
        ])]),
    "flussufer": dict(
        orte="In der Tiefgarage und auf den Besucherparkplätzen",
        bestand="Zu den Häusern gehören eine Tiefgarage mit 120 Stellplätzen, davon 10 für Motorräder, und 30 Besucherparkplätze.",
        preise="Das Entgelt beträgt monatlich 62 Euro für einen Tiefgaragenstellplatz und 18 Euro für einen Motorradstellplatz. Für den Handsender wird ein Pfand von 50 Euro erhoben.",
        frist="Stellplatzmietverträge können mit einer Frist von einem Monat zum Monatsende gekündigt werden.",
        besucher="Die Besucherparkplätze dürfen mit Parkscheibe höchstens 48 Stunden belegt werden; Dauerparken von Bewohnern ist dort nicht gestattet.",
        rad=["Fahrräder sind in den Fahrradräumen im Sockelgeschoss der Häuser abzustellen, die über Rampen erreichbar sind. In den Aufzügen dürfen Fahrräder nicht transportiert werden.",
             "Kinderwagen und Rollatoren dürfen nicht auf den Geschossfluren stehen; sie sind in der Wohnung oder im Kinderwagenraum im Erdgeschoss unterzubringen."],
        akku="Akkus von E-Bikes und E-Scootern dürfen nur in der Wohnung geladen werden, nicht in den Fahrradräumen und nicht auf den Fluren.",
        aktion="Herrenlose Fahrräder werden nach Kennzeichnung und einer Frist von vier Wochen entfernt.",
        extra=[("Feuerwehrzufahrten", [
            "Die Feuerwehrzufahrten und Aufstellflächen vor den Häusern sind jederzeit freizuhalten, auch für kurzes Halten.",
            "Fahrzeuge, die dort abgestellt werden, werden ohne vorherige Ankündigung auf Kosten des Halters abgeschleppt.",
        ])]),
    "parkstrasse": dict(
        orte="Auf den Stellplätzen im Hinterhof",
        bestand="Zur Wohnanlage gehören 14 Stellplätze im Hinterhof; Garagen gibt es nicht.",
        preise="Das Entgelt beträgt monatlich 35 Euro je Stellplatz.",
        frist="Der Stellplatzmietvertrag kann mit einer Frist von einem Monat zum Monatsende gekündigt werden.",
        besucher="Besucherparkplätze gibt es nicht. Die Durchfahrt zum Hinterhof ist Rettungsweg und darf nicht zum Halten oder Parken genutzt werden.",
        rad=["Fahrräder sind an den 40 Anlehnbügeln im Hinterhof oder im Fahrradkeller des jeweiligen Hauses abzustellen. Lastenräder dürfen nur auf den markierten Flächen im Hinterhof stehen.",
             "Kinderwagen und Rollatoren dürfen im Hausflur unter der Treppe abgestellt werden, wenn ein Durchgang von mindestens 1,20 Metern frei bleibt."],
        akku="Akkus von E-Bikes dürfen nicht im Keller geladen werden.",
        aktion="Herrenlose Fahrräder werden nach Kennzeichnung und einer Frist von vier Wochen entfernt.",
        extra=[]),
    "muehlenweg": dict(
        orte="In den Garagen und auf den Stellplätzen des Garagenhofs",
        bestand="Zum Garagenhof gehören 30 Garagen, 10 offene Stellplätze und vier Stellplätze für Anhänger und Wohnwagen.",
        preise="Das Entgelt beträgt monatlich 42 Euro für eine Garage, 20 Euro für einen offenen Stellplatz und 15 Euro für einen Anhängerstellplatz.",
        frist="Garagen- und Stellplatzmietverträge können mit einer Frist von drei Monaten zum Monatsende gekündigt werden.",
        besucher="Besucher parken im öffentlichen Straßenraum der Siedlungsstraßen; die Wendehämmer sind freizuhalten.",
        rad=["Fahrräder der Reihenhäuser sind im Haus, im Schuppen oder im Hausgarten abzustellen. In den Mehrfamilienhäusern steht ein Fahrradkeller zur Verfügung.",
             "Kinderwagen und Rollatoren dürfen in den Hausfluren der Mehrfamilienhäuser nur abgestellt werden, wenn der Durchgang frei bleibt."],
        akku="Akkus von E-Bikes dürfen nicht in den Garagen geladen werden; die Garagen haben keinen Stromanschluss. Ladestationen für Elektrofahrzeuge können im Garagenhof derzeit nicht eingerichtet werden.",
        aktion="Herrenlose Fahrräder im Fahrradkeller werden nach Kennzeichnung und einer Frist von vier Wochen entfernt.",
        extra=[("Garagen", [
            "In den Garagen dürfen neben dem Fahrzeug nur Reifen und übliches Zubehör aufbewahrt werden. Brennbare Flüssigkeiten außer dem Kraftstoff im Tank dürfen nicht gelagert werden.",
            "Die Garagentore sind geschlossen zu halten. Der Verlust eines Garagenschlüssels ist der Geschäftsstelle sofort zu melden.",
        ])]),
    "schlossberg": dict(
        orte="In der Tiefgarage und auf den Besucherparkplätzen",
        bestand="Zur Wohnanlage gehören eine Tiefgarage mit 95 Stellplätzen, davon 12 mit Ladepunkt für Elektrofahrzeuge, und acht Besucherparkplätze an der oberen Zufahrt.",
        preise="Das Entgelt beträgt monatlich 68 Euro für einen Tiefgaragenstellplatz und 85 Euro für einen Stellplatz mit Ladepunkt; der Ladestrom wird gesondert abgerechnet. Für den Handsender wird ein Pfand von 40 Euro erhoben.",
        frist="Stellplatzmietverträge können mit einer Frist von drei Monaten zum Monatsende gekündigt werden.",
        besucher="Die Besucherparkplätze dürfen höchstens 24 Stunden belegt werden.",
        rad=["Fahrräder sind im Fahrradkeller in der Tiefgarage (140 Plätze) abzustellen.",
             "Kinderwagen und Rollatoren dürfen in den Nischen neben den Aufzügen abgestellt werden."],
        akku="Akkus von E-Bikes dürfen im Fahrradkeller nur in den abschließbaren Ladeschränken geladen werden.",
        aktion="Herrenlose Fahrräder werden nach Kennzeichnung und einer Frist von sechs Wochen entfernt.",
        extra=[("Wallboxen", [
            "Auf Stellplätzen ohne Ladepunkt kann eine eigene Wallbox mit Zustimmung der Genossenschaft eingebaut werden. Den Einbau übernimmt der Elektrofachbetrieb der Genossenschaft; die Kosten trägt der Antragsteller.",
        ])]),
    "gartenstadt": dict(
        orte="In den Carports und auf den Stellplätzen",
        bestand="Zur Wohnanlage gehören 48 Carports und 20 offene Stellplätze.",
        preise="Das Entgelt beträgt monatlich 30 Euro für einen Carport und 22 Euro für einen offenen Stellplatz.",
        frist="Carport- und Stellplatzmietverträge können mit einer Frist von einem Monat zum Monatsende gekündigt werden.",
        besucher="Besucher parken am Straßenrand. Die Wege zwischen den Gärten sind keine Fahrwege und dürfen nicht befahren werden, außer zum Be- und Entladen.",
        rad=["Fahrräder sind im Schuppen des Mietergartens oder an den Fahrradbügeln an den Hauszugängen abzustellen.",
             "Kinderwagen und Rollatoren sind in der Wohnung oder im Schuppen unterzubringen, in den gemeinsamen Hausfluren der Doppelhäuser nur, wenn der Durchgang frei bleibt."],
        akku="Akkus von E-Bikes dürfen nicht in den Schuppen geladen werden.",
        aktion="Herrenlose Fahrräder werden nach Kennzeichnung und einer Frist von vier Wochen entfernt.",
        extra=[("Carports", [
            "Carports dürfen nicht verkleidet oder zu Garagen umgebaut werden. Das Abstellen von Gartengeräten und Möbeln im Carport ist nicht erlaubt.",
            "Eine Wallbox am Carport kann mit Zustimmung der Genossenschaft auf eigene Kosten installiert werden.",
        ])]),
    "bahnhofsviertel": dict(
        orte="In der Tiefgarage",
        bestand="Zur Wohnanlage gehört eine Tiefgarage mit 40 Stellplätzen, davon 8 mit Ladepunkt; Außenstellplätze gibt es nicht.",
        preise="Das Entgelt beträgt monatlich 79 Euro je Tiefgaragenstellplatz, mit Ladepunkt 95 Euro zuzüglich Ladestrom. Für den Transponder wird ein Pfand von 25 Euro erhoben.",
        frist="Stellplatzmietverträge können mit einer Frist von drei Monaten zum Monatsende gekündigt werden.",
        besucher="Besucherparkplätze gibt es nicht. Im Innenhof stehen zwei Carsharing-Fahrzeuge, die Mitglieder zu vergünstigten Tarifen nutzen können.",
        rad=["Fahrräder sind im Fahrradkeller (180 Plätze in Doppelstockparkern) abzustellen; Lastenräder auf den gekennzeichneten Plätzen im Fahrradkeller.",
             "Zwei Lastenräder der Genossenschaft können über das Mieterportal gebucht werden, bis zu vier Stunden kostenlos."],
        akku="Akkus von E-Bikes dürfen im Fahrradkeller nur an der Ladestation mit Ladeschränken geladen werden.",
        aktion="Herrenlose Fahrräder werden nach Kennzeichnung und einer Frist von vier Wochen entfernt.",
        extra=[]),
}


def doc_stellplatz(e):
    k = PARK[e["slug"]]
    ps = []
    ps.append(("Bestand und Vergabe", [
        k["bestand"],
        "Stellplätze und Garagen werden mit einem gesonderten Stellplatzmietvertrag vergeben. Anfragen nimmt die Geschäftsstelle entgegen; sind alle Plätze vergeben, wird die Anfrage in eine Warteliste aufgenommen. Mitglieder, die in der Wohnanlage wohnen, haben Vorrang; Menschen mit Schwerbehindertenausweis mit Merkzeichen G oder aG werden bevorzugt berücksichtigt.",
    ]))
    ps.append(("Entgelt und Kündigung", [k["preise"], k["frist"]]))
    ps.append(("Nutzung der Stellplätze", [
        f"{k['orte']} dürfen nur zugelassene und betriebsbereite Fahrzeuge abgestellt werden. Abgemeldete Fahrzeuge, Anhänger und Wohnmobile dürfen nur auf den dafür ausdrücklich vorgesehenen Plätzen stehen.",
        O("Das Waschen von Fahrzeugen, Ölwechsel und Reparaturen sind nicht gestattet. Auf allen Fahrwegen gilt Schrittgeschwindigkeit."),
        "Fahrzeuge, die unberechtigt auf fremden Stellplätzen, Feuerwehrzufahrten oder Rettungswegen stehen, können auf Kosten des Halters abgeschleppt werden.",
        k["besucher"],
    ]))
    ps.append(("Fahrräder, Kinderwagen und Rollatoren", k["rad"] + [
        "Fahrräder dürfen nicht in Treppenhäusern, Fluren und vor den Hauseingängen abgestellt werden; Fluchtwege sind freizuhalten.",
        O(k["aktion"]),
    ]))
    ps.append(("Elektromobilität", [k["akku"]]))
    ps.extend(k["extra"])
    return ps


# ------------------------------------------------------------------------------------------
# Further paragraphs of the long sections
# ------------------------------------------------------------------------------------------
FEUERWERK = {
    "lindenhof": "Im Innenhof ist das Abbrennen von Feuerwerkskörpern auch an Silvester verboten, weil Raketen und Böller dort an den Hauswänden und Fenstern abprallen.",
    "auenpark": "Feuerwerkskörper dürfen auf dem Gelände nur am 31. Dezember ab 18 Uhr bis zum 1. Januar um 1 Uhr abgebrannt werden, nicht von Balkonen und mit mindestens zehn Metern Abstand zu den Häusern.",
    "flussufer": "Das Abbrennen von Feuerwerkskörpern ist auf den Loggien, auf den Balkonen und auf dem gesamten Gelände verboten, auch an Silvester.",
}


def long_ruhezeiten(e):
    return [("Gemeinschaftsräume und Außenanlagen", [
        "In Kellern, Waschküchen, Trockenräumen und Fahrradräumen sind die Ruhezeiten ebenso einzuhalten wie in den Wohnungen. Türen zu diesen Räumen sind leise zu schließen.",
        "Zusammenkünfte auf Wegen, Rasenflächen und vor den Hauseingängen sind mit Beginn der Nachtruhe zu beenden.",
        FEUERWERK[e["slug"]],
        "Tierhalter sorgen dafür, dass ihre Tiere die Ruhe der Nachbarn nicht durch anhaltendes Bellen oder Jaulen stören, auch wenn sie allein in der Wohnung sind.",
    ])]


PFLEGE = {"muehlenweg": "acht Wochen", "bahnhofsviertel": "vier Wochen"}


def long_haustiere(e):
    return [("Pflegetiere und Tierbetreuung", [
        f"Pflegetiere von Tierschutzvereinen und Tiere von Angehörigen dürfen bis zu {PFLEGE[e['slug']]} ohne Zustimmung aufgenommen werden, wenn die Genossenschaft vorher informiert wird.",
        "Gewerbliche Tierbetreuung, etwa eine Hundepension oder Katzenbetreuung gegen Entgelt, ist in der Wohnung nicht gestattet.",
    ]), ("Schäden und Auszug", [
        "Für Schäden, die Tiere an der Wohnung, am Gebäude oder an den Außenanlagen verursachen, haftet der Tierhalter; dazu gehören Kratzspuren an Türen und Böden und Verunreinigungen.",
        "Beim Auszug ist die Wohnung frei von Tiergerüchen und Ungeziefer zu übergeben. Eine notwendige Desinfektion oder Sonderreinigung geht zu Lasten des Tierhalters.",
    ])]


def long_muell(e):
    nacht = RUHE[e["slug"]]["nacht"]
    return [("Keller, Dachböden und Gemeinschaftsräume", [
        "Kellergänge, Dachböden, Trockenräume und Waschküchen sind keine Abstellflächen; außerhalb der eigenen Abteile darf dort nichts gelagert werden.",
        "In Kellerabteilen und auf Dachböden dürfen keine leicht entzündlichen Stoffe wie Benzin, Gasflaschen oder größere Mengen Farbe aufbewahrt werden.",
        f"Keller- und Bodenfenster sind bei Frost, Sturm und Regen zu schließen. Haustüren sind von {nacht[0]} bis {nacht[1]} Uhr geschlossen zu halten, dürfen aber nicht abgeschlossen werden.",
    ]), ("Schädlinge", [
        "Essensreste gehören in die Biotonne oder in den Restmüll, nicht in Toilette oder Spüle, weil sie Ratten anziehen.",
        "Auf Fensterbänken und in den Außenanlagen dürfen keine Futterreste ausgelegt werden. Befall mit Ungeziefer ist der Genossenschaft sofort zu melden.",
    ])]


def long_balkon(e):
    return [("Sicherheit und Haftung", [
        "Blumenkästen, Pflanzgefäße und Möbel sind so zu sichern, dass sie auch bei Sturm nicht herabfallen können. Für Schäden durch herabfallende Gegenstände haftet, wer sie aufgestellt hat.",
        "Schnee ist von Balkonen und Terrassen zu entfernen, bevor er die Abdichtung belastet; er darf nicht hinuntergeworfen werden.",
        "Teppiche, Betten und Tischdecken dürfen nicht über der Brüstung ausgeschüttelt werden.",
    ]), ("Tauben und Wildtiere", [
        "Tauben und andere Wildtiere dürfen nicht gefüttert werden. Netze zur Taubenabwehr bedürfen der Zustimmung der Genossenschaft.",
        "Vogelhäuschen sind im Winter erlaubt, wenn kein Futter auf darunterliegende Balkone oder Terrassen fällt.",
    ])]


def long_stellplatz(e):
    return [("Handsender und Schlüssel", [
        "Der Verlust eines Handsenders oder Schlüssels ist der Geschäftsstelle sofort zu melden; Ersatz wird gegen Kostenerstattung ausgegeben.",
        "Handsender dürfen nicht an Personen weitergegeben werden, die keinen Stellplatz gemietet haben.",
    ]), ("Motorräder und Motorroller", [
        "Motorräder, Motorroller und Mopeds dürfen nur auf Stellplätzen abgestellt werden, nicht in Fahrradkellern oder Fahrradräumen.",
        "Auf einem Pkw-Stellplatz dürfen mit Zustimmung der Genossenschaft bis zu zwei Motorräder abgestellt werden.",
    ]), ("Haftung", [
        "Die Genossenschaft haftet nicht für Diebstahl oder Beschädigung abgestellter Fahrzeuge und Fahrräder, außer bei Vorsatz oder grober Fahrlässigkeit.",
        "Schäden an Toren, Schranken und Beleuchtung sind der Geschäftsstelle unverzüglich zu melden.",
    ])]


LONG = {"ruhezeiten": long_ruhezeiten, "haustiere": long_haustiere, "muell": long_muell,
        "balkon": long_balkon, "stellplatz": long_stellplatz}


BUILDERS = {"ruhezeiten": doc_ruhezeiten, "haustiere": doc_haustiere, "muell": doc_muell,
            "balkon": doc_balkon, "stellplatz": doc_stellplatz}


# ------------------------------------------------------------------------------------------
# Assembly: title, § 1 Geltungsbereich, the subject's paragraphs, Inkrafttreten
# ------------------------------------------------------------------------------------------
def title(e, thema, i):
    n = i % 3
    if n == 0:
        return f"Hausordnung und Nutzungsbedingungen {e['name']} – {thema}"
    if n == 1:
        return f"{e['name']}: Hausordnung, Abschnitt {thema}"
    return f"Nutzungsbedingungen für die {e['name']} – {thema}"


def geltungsbereich(e, thema, i):
    n = i % 3
    if n == 0:
        c = [f"Dieser Abschnitt „{thema}“ der Hausordnung und Nutzungsbedingungen gilt für die {e['name']} der {COOP} ({e['addr']}).",
             e["desc"],
             sel(e, "Der Abschnitt gilt für alle Mieter, ihre Haushaltsangehörigen und Besucher. Der Nutzungsvertrag und die Satzung der Genossenschaft gehen vor.",
                 "Der Abschnitt gilt für alle Bewohnerinnen und Bewohner, ihre Haushaltsangehörigen und Gäste. Der Nutzungsvertrag und die Satzung der Genossenschaft gehen vor.")]
    elif n == 1:
        c = [f"Die folgenden Bestimmungen zum Thema „{thema}“ sind Teil der Hausordnung und Nutzungsbedingungen der {COOP} für die {e['name']}, {e['addr']}.",
             e["desc"],
             "Diese Bestimmungen sind für alle Nutzerinnen und Nutzer der Wohnungen und der gemeinschaftlichen Einrichtungen verbindlich."]
    else:
        verb = "sind" if e["slug"] == "flussufer" else "ist"
        c = [f"Geltungsbereich dieses Abschnitts {verb} die {e['name']} ({e['addr']}) der {COOP}.",
             e["desc"],
             sel(e, "Die Bestimmungen gelten für alle Hausbewohner und ihre Besucher; sie ergänzen den Nutzungsvertrag.",
                 "Die Bestimmungen gelten für alle, die in der Wohnanlage wohnen oder sie besuchen; sie ergänzen den Nutzungsvertrag.")]
    return ("Geltungsbereich", c)


def inkrafttreten(e, subj):
    neu, alt = DATES[e["slug"]][subj]
    return ("Inkrafttreten", [
        f"Dieser Abschnitt tritt am {neu} in Kraft. Er ersetzt die Fassung vom {alt}.",
        "Änderungen werden durch Aushang in den Häusern und im Mieterportal bekanntgegeben.",
    ])


def render(paragraphs):
    out = []
    for n, (head, clauses) in enumerate(paragraphs, 1):
        lines = [f"§ {n} {head}"]
        for m, c in enumerate(clauses, 1):
            lines.append(f"({m}) {c}")
        out.append("\n".join(lines))
    return "\n\n".join(out)


def build():
    docs = []
    for ei, e in enumerate(ESTATES):
        for si, (subj, thema) in enumerate(SUBJECTS):
            i = ei + si
            size = LENGTH[subj].get(e["slug"], "mittel")
            body = BUILDERS[subj](e)
            if size == "kurz":
                body = [(h, [c for c in cs if not c.startswith("~")]) for h, cs in body if not h.startswith("~")]
                body = [(h, cs) for h, cs in body if cs]
            else:
                body = [(h.lstrip("~"), [c.lstrip("~") for c in cs]) for h, cs in body]
            if size == "lang":
                # before the closing paragraph (Verstöße, Widerruf, Rauchen) where there is one
                at = len(body) - 1 if subj in ("ruhezeiten", "haustiere", "balkon") else len(body)
                body = body[:at] + LONG[subj](e) + body[at:]
            paras = [geltungsbereich(e, thema, i)] + body + [inkrafttreten(e, subj)]
            docs.append({
                "uri": f"ho://{e['slug']}/{subj}",
                "title": title(e, thema, i),
                "metadata": {"wohnanlage": e["name"], "thema": thema,
                             "estate_slug": e["slug"], "subject_slug": subj},
                "body": render(paras),
            })
    return docs


if __name__ == "__main__":
    here = os.path.dirname(os.path.abspath(__file__))
    with open(os.path.join(here, "genossenschaft_corpus.jsonl"), "w", encoding="utf-8") as f:
        for d in build():
            f.write(json.dumps(d, ensure_ascii=False) + "\n")
