#!/usr/bin/env python3
"""Generator of corpus/bibliothek_corpus.jsonl (Domain H of tests/quality/SPEC.md).

40 documents: the sections "Benutzungsordnung und Serviceinformationen" of the eight sites of the
fictional Stadtbibliothek Weidenau, five subjects each. Standard library only, no randomness:
every figure is written out per site below, so the output is the same on every run.

    python3 make_bibliothek_corpus.py      # rewrites bibliothek_corpus.jsonl beside this file
"""
import json
import os

SITES = [
    {"slug": "zentrale", "name": "Zentralbibliothek am Marktplatz",
     "fuer": "die Zentralbibliothek am Marktplatz",
     "addr": "Marktplatz 1, 49990 Weidenau",
     "desc": "Die Zentralbibliothek ist auf vier Ebenen im ehemaligen Kaufhaus am Marktplatz untergebracht, hält rund 180.000 Medien bereit und ist zugleich Sitz der Verwaltung, des Lektorats und der Fernleihstelle der Stadtbibliothek."},
    {"slug": "nordviertel", "name": "Stadtteilbibliothek Nordviertel",
     "fuer": "die Stadtteilbibliothek Nordviertel",
     "addr": "Nordring 44, 49992 Weidenau (Einkaufszentrum Nordring-Passage, 1. Obergeschoss)",
     "desc": "Die Stadtteilbibliothek Nordviertel liegt auf 900 Quadratmetern im ersten Obergeschoss des Einkaufszentrums und bietet rund 38.000 Medien mit Schwerpunkt auf Familien, Sprachenlernen und Medien in mehreren Sprachen."},
    {"slug": "hafen", "name": "Stadtteilbibliothek Hafen",
     "fuer": "die Stadtteilbibliothek Hafen",
     "addr": "Speicherstraße 7, 49994 Weidenau (Alter Zollspeicher)",
     "desc": "Die Stadtteilbibliothek Hafen nutzt zwei Etagen des umgebauten Zollspeichers am Hafenbecken; mit rund 45.000 Medien und vielen Lernplätzen ist sie der Lern- und Arbeitsort der Stadtbibliothek für Studierende und Berufstätige."},
    {"slug": "westend", "name": "Bibliothek im Kulturhaus Westend",
     "fuer": "die Bibliothek im Kulturhaus Westend",
     "addr": "Westendstraße 25, 49991 Weidenau",
     "desc": "Die Bibliothek im Kulturhaus Westend belegt das Erdgeschoss und die Galerie des Kulturhauses, das sie mit der Volkshochschule, der Musikschule und einem Theatersaal teilt; sie hält rund 30.000 Medien mit Schwerpunkt Musik, Noten und Kunst."},
    {"slug": "eichendorf", "name": "Stadtteilbibliothek Eichendorf",
     "fuer": "die Stadtteilbibliothek Eichendorf",
     "addr": "Am Dorfanger 3, 49996 Weidenau-Eichendorf (Bürgerhaus, Obergeschoss)",
     "desc": "Die Stadtteilbibliothek Eichendorf ist die kleinste Zweigstelle: ein großer Raum mit Leseecke im Obergeschoss des Bürgerhauses des eingemeindeten Ortsteils, rund 14.000 Medien, betreut von zwei Mitarbeiterinnen und einem Team von Ehrenamtlichen."},
    {"slug": "altstadt", "name": "Bücherei in der Altstadt",
     "fuer": "die Bücherei in der Altstadt",
     "addr": "Kirchgasse 5, 49990 Weidenau",
     "desc": "Die Bücherei in der Altstadt befindet sich in einem denkmalgeschützten Fachwerkhaus aus dem 17. Jahrhundert mit drei Ebenen und rund 18.000 Medien; Schwerpunkte sind Belletristik, Stadtgeschichte und Reiseliteratur."},
    {"slug": "suedpark", "name": "Stadtteilbibliothek Südpark",
     "fuer": "die Stadtteilbibliothek Südpark",
     "addr": "Parkallee 80, 49995 Weidenau (Bildungszentrum Südpark)",
     "desc": "Die Stadtteilbibliothek Südpark wurde 2021 im Neubau des Bildungszentrums Südpark eröffnet; sie ist öffentliche Bibliothek und zugleich Schulbibliothek der benachbarten Gesamtschule und hält rund 40.000 Medien bereit."},
    {"slug": "buecherbus", "name": "Bücherbus (Fahrbibliothek)",
     "fuer": "den Bücherbus (Fahrbibliothek)",
     "addr": "Standplatz: Betriebshof der Stadtbibliothek, Lagerstraße 12, 49993 Weidenau",
     "desc": "Der Bücherbus ist ein zwölf Meter langer Bibliotheksbus mit rund 5.000 Medien an Bord; er fährt 26 Haltestellen in Ortsteilen ohne eigene Bibliothek sowie Schulen und Kitas nach einem festen Fahrplan an."},
]

SUBJECTS = [
    ("oeffnungszeiten", "Öffnungszeiten und Rückgabe"),
    ("arbeitsplaetze", "PC-Arbeitsplätze, WLAN und Drucken"),
    ("gruppenraeume", "Lern- und Gruppenräume"),
    ("kinder", "Kinder- und Jugendbereich, Veranstaltungen"),
    ("zugang", "Zugang, Barrierefreiheit und Anfahrt"),
]

# date of coming into force and the replaced edition, per site (same day for all its sections
# would be dull: the subject shifts it)
DATES = {
    "zentrale": ("1. März 2026", "1. Januar 2023"),
    "nordviertel": ("1. Januar 2026", "1. Juli 2022"),
    "hafen": ("15. April 2026", "1. September 2023"),
    "westend": ("1. September 2025", "1. Oktober 2021"),
    "eichendorf": ("1. Februar 2026", "1. März 2019"),
    "altstadt": ("1. Juni 2026", "1. Mai 2020"),
    "suedpark": ("1. August 2025", "1. September 2021"),
    "buecherbus": ("1. Mai 2026", "1. April 2022"),
}
SHIFT = {  # sections revised for all sites on one date (None: the site's date above)
    "oeffnungszeiten": None, "arbeitsplaetze": "1. Juli 2026", "gruppenraeume": None,
    "kinder": "1. Oktober 2026", "zugang": None,
}

# ---------------------------------------------------------------------------------------------
# Öffnungszeiten und Rückgabe
# ---------------------------------------------------------------------------------------------
OEFF = {
 "zentrale": [
  ("Öffnungszeiten", [
   "Die Bibliothek ist mit Personal geöffnet: Montag bis Freitag von 10 bis 19 Uhr, Samstag von 10 bis 16 Uhr.",
   "Die Servicetheke schließt 15 Minuten vor dem Ende der Öffnungszeiten; Neuanmeldungen werden bis 30 Minuten vor Schluss angenommen.",
   "Das Lesecafé im Erdgeschoss öffnet werktags bereits um 9 Uhr; die Tageszeitungen liegen dort ab 9 Uhr aus.",
   "Aktuelle Öffnungszeiten, Schließtage und kurzfristige Änderungen werden im Online-Katalog, in der App und durch Aushang am Eingang bekannt gegeben."]),
  ("Open Library", [
   "Außerhalb der Öffnungszeiten ist die Bibliothek als Open Library ohne Personal zugänglich: Montag bis Samstag von 8 bis 10 Uhr und von 19 bis 22 Uhr, samstags bis 22 Uhr.",
   "Zutritt erhalten Personen ab 18 Jahren mit gültigem Bibliotheksausweis und persönlicher PIN nach einer einmaligen Einweisung an der Servicetheke (etwa 10 Minuten). Minderjährige dürfen die Open Library nur in Begleitung einer berechtigten erwachsenen Person besuchen.",
   "In der Open Library sind Erdgeschoss und erstes Obergeschoss geöffnet; Magazin, Musikabteilung und Lesesaal bleiben geschlossen. Ausleihe und Rückgabe sind an den Selbstverbuchungsgeräten möglich, Anmeldung, Beratung und Barzahlung nicht.",
   "Die Räume sind während der Open Library videoüberwacht. Wer andere Personen ohne Berechtigung einlässt, kann von der Nutzung ausgeschlossen werden."]),
  ("Rückgabe und Rückgabeautomat", [
   "Der Rückgabeautomat mit Sortieranlage steht im Foyer und ist während der Öffnungszeiten und der Open Library zugänglich. Er nimmt alle Medien an, auch Tonies, Konsolenspiele und Spiele; eine Quittung wird auf Wunsch gedruckt oder per E-Mail verschickt.",
   "Außerhalb dieser Zeiten nimmt die Rückgabeklappe an der Außenwand rund um die Uhr Bücher, CDs und DVDs an. E-Reader, Tablets, Tonies und Spiele mit vielen Teilen dürfen nicht in die Rückgabeklappe eingeworfen werden.",
   "Über die Rückgabeklappe zurückgegebene Medien werden am nächsten Öffnungstag bis 12 Uhr verbucht; als Rückgabetag gilt der Tag des Einwurfs.",
   "Medien aller Standorte der Stadtbibliothek können hier zurückgegeben werden."]),
  ("Feiertage und Schließtage", [
   "An gesetzlichen Feiertagen ist die Bibliothek geschlossen, auch die Open Library und das Lesecafé.",
   "Am 24. und 31. Dezember bleibt die Bibliothek geschlossen; am Rosenmontag schließt sie um 13 Uhr.",
   "Wegen der Jahresinventur sind in der zweiten Februarwoche drei Schließtage (Dienstag bis Donnerstag); die Rückgabeklappe bleibt geöffnet.",
   "Leihfristen, die an einem Schließtag enden, verlängern sich automatisch bis zum nächsten Öffnungstag."]),
  ("Sommerpause", [
   "Eine Sommerpause gibt es nicht.",
   "In den sechs Wochen der Sommerferien ist samstags nur von 10 bis 14 Uhr geöffnet; die Open Library gilt in dieser Zeit unverändert."]),
 ],
 "nordviertel": [
  ("Öffnungszeiten", [
   "Die Bibliothek ist geöffnet: Dienstag und Donnerstag von 13 bis 18 Uhr, Mittwoch von 10 bis 18 Uhr, Freitag von 10 bis 16 Uhr und Samstag von 10 bis 13 Uhr. Montags ist geschlossen.",
   "Der Zugang führt über die Ladenpassage. An verkaufsoffenen Sonntagen bleibt die Bibliothek geschlossen.",
   "Die Servicetheke schließt 10 Minuten vor dem Ende der Öffnungszeiten.",
   "Aktuelle Öffnungszeiten und Schließtage stehen im Online-Katalog, in der App und am Eingang."]),
  ("Open Library", [
   "Eine Open Library ohne Personal wird an diesem Standort nicht angeboten, weil die Türen der Passage um 20 Uhr schließen und die Räume über keinen eigenen Außeneingang verfügen.",
   "Vorgemerkte Medien können nur während der Öffnungszeiten am Abholregal abgeholt werden."]),
  ("Rückgabe und Rückgabeautomat", [
   "Ein Rückgabeautomat steht vor dem Eingang in der Passage. Er ist zu den Öffnungszeiten des Einkaufszentrums, Montag bis Samstag von 8 bis 20 Uhr, zugänglich, auch wenn die Bibliothek selbst geschlossen ist.",
   "Der Automat nimmt höchstens 20 Medien je Vorgang an. Größere Mengen, Spiele mit Zubehör und beschädigte Medien bitte an der Theke abgeben.",
   "Einen Rückgabekasten für die Nacht gibt es nicht. Als Rückgabetag gilt der Tag der Verbuchung am Automaten; eine Quittung wird gedruckt.",
   "Medien aller Standorte der Stadtbibliothek können hier zurückgegeben werden, mit Ausnahme von Fernleihen."]),
  ("Feiertage und Schließtage", [
   "An gesetzlichen Feiertagen ist geschlossen; weil auch das Einkaufszentrum geschlossen ist, ist dann auch der Rückgabeautomat nicht zugänglich.",
   "Schließtage sind der 24. Dezember bis einschließlich 1. Januar sowie der letzte Freitag im Januar (Inventur).",
   "Leihfristen, die an Feiertagen oder Schließtagen enden, verlängern sich bis zum nächsten Öffnungstag."]),
  ("Sommerpause", [
   "In den letzten zwei Wochen der Sommerferien ist Sommerpause. Der Rückgabeautomat bleibt in dieser Zeit zu den Zeiten des Einkaufszentrums zugänglich.",
   "Leihfristen, die in die Sommerpause fallen, werden automatisch bis zum ersten Öffnungstag nach der Pause verlängert."]),
 ],
 "hafen": [
  ("Öffnungszeiten", [
   "Die Servicezeiten mit Personal sind Dienstag bis Freitag von 11 bis 19 Uhr und Samstag von 11 bis 15 Uhr.",
   "Montags und außerhalb der Servicezeiten ist die Bibliothek als Open Library geöffnet (§ 3).",
   "Anmeldungen, Beratung und Zahlungen an der Theke sind nur während der Servicezeiten möglich."]),
  ("Open Library", [
   "Die Open Library ist täglich von 7 bis 23 Uhr geöffnet, auch sonntags und montags.",
   "Zutritt über den Seiteneingang mit gültigem Bibliotheksausweis und vierstelliger PIN ab 16 Jahren; Jugendliche von 16 und 17 Jahren brauchen die schriftliche Einwilligung einer erziehungsberechtigten Person. Die einmalige Einweisung erfolgt als kurzes Video mit Test im Bibliothekskonto oder an der Theke.",
   "Alle Lernplätze, die Selbstverbuchung, der Kassenautomat und die Schließfächer sind in der Open Library nutzbar; Gruppenräume nur mit Buchung.",
   "Die Räume sind videoüberwacht; ein Notruftelefon befindet sich neben dem Seiteneingang."]),
  ("Rückgabe und Rückgabeautomat", [
   "Der Rückgabeautomat im Eingangsbereich ist über den Seiteneingang rund um die Uhr zugänglich, also 24 Stunden an sieben Tagen.",
   "Der Automat verbucht sofort; die Quittung kommt per E-Mail, wenn im Konto eine Adresse hinterlegt ist.",
   "Medien aller Standorte der Stadtbibliothek können hier zurückgegeben werden."]),
  ("Feiertage und Schließtage", [
   "An Feiertagen ist kein Personal da. Die Open Library öffnet an Feiertagen von 10 bis 18 Uhr, außer am 1. Januar, am Karfreitag und vom 24. bis 26. Dezember.",
   "Schließtag ist außerdem der 31. Dezember. Für die Wartung der Technik sind im März zwei Schließtage vorgesehen, die vier Wochen vorher angekündigt werden.",
   "Leihfristen, die an einem Schließtag enden, verlängern sich bis zum nächsten Tag mit Servicezeit."]),
  ("Sommerpause", [
   "Eine Sommerpause gibt es nicht.",
   "In den Sommerferien ist die Theke nur Dienstag bis Freitag von 12 bis 18 Uhr besetzt; die Open Library gilt unverändert."]),
 ],
 "westend": [
  ("Öffnungszeiten", [
   "Die Bibliothek ist geöffnet: Dienstag bis Freitag von 12 bis 20 Uhr und Samstag von 11 bis 17 Uhr.",
   "An Sonntagen mit Veranstaltungen im Haus ist zusätzlich von 14 bis 18 Uhr geöffnet; die Termine stehen im Monatsprogramm.",
   "Die Servicetheke schließt 15 Minuten vor Ende der Öffnungszeiten. Noten werden bis 30 Minuten vor Schluss aus dem Magazin geholt."]),
  ("Open Library", [
   "Eine Open Library wird nicht angeboten, weil das Haus abends für Konzerte, Kurse und Proben genutzt wird und die Bibliotheksräume dann abgeschlossen sind.",
   "Der Übungsraum mit Klavier kann nur während der Öffnungszeiten genutzt werden."]),
  ("Rückgabe und Rückgabeautomat", [
   "Der Rückgabeautomat steht im Foyer des Hauses und ist während der Öffnungszeiten des Foyers zugänglich: Montag bis Samstag von 9 bis 22 Uhr, Sonntag von 10 bis 18 Uhr.",
   "Noten, Medien mit Beilagen und Instrumente aus der Instrumentenausleihe bitte nur an der Theke zurückgeben, nicht am Automaten.",
   "Medien aller Standorte der Stadtbibliothek können zurückgegeben werden; als Rückgabetag gilt der Tag der Verbuchung."]),
  ("Feiertage und Schließtage", [
   "An gesetzlichen Feiertagen ist geschlossen. Am Tag der offenen Tür des Hauses, dem ersten Sonntag im Oktober, ist von 11 bis 18 Uhr geöffnet.",
   "Schließtage sind der 24. Dezember bis 1. Januar.",
   "Leihfristen, die an einem Schließtag enden, verlängern sich bis zum nächsten Öffnungstag."]),
  ("Sommerpause", [
   "Während der dreiwöchigen Sommerpause des ganzen Hauses ist auch die Bibliothek geschlossen; die Termine werden im Mai veröffentlicht.",
   "In der Sommerpause ist auch das Foyer geschlossen und der Rückgabeautomat nicht zugänglich. Leihfristen, die in die Pause fallen, werden verlängert; vor der Pause ausgeliehene Medien erhalten eine Leihfrist von 6 Wochen."]),
 ],
 "eichendorf": [
  ("Öffnungszeiten", [
   "Die Bibliothek ist geöffnet: Dienstag von 15 bis 19 Uhr, Donnerstag von 10 bis 13 Uhr und von 15 bis 18 Uhr, Freitag von 15 bis 18 Uhr.",
   "Donnerstagvormittags ist die Bibliothek vor allem für Kitagruppen und Schulklassen reserviert; Einzelbesucherinnen und Einzelbesucher sind willkommen, sollten aber mit Gruppen rechnen.",
   "Aktuelle Öffnungszeiten hängen im Schaukasten am Eingang des Hauses aus."]),
  ("Open Library", [
   "Eine Open Library ist wegen der Lage im Obergeschoss des Hauses und der gemeinsam genutzten Eingangstür nicht möglich."]),
  ("Rückgabe und Rückgabeautomat", [
   "Einen Rückgabeautomaten gibt es nicht. Neben der Eingangstür des Hauses hängt ein Rückgabekasten, der rund um die Uhr Medien annimmt und an Öffnungstagen geleert wird.",
   "Medien im Rückgabekasten gelten am Tag der nächsten Leerung als zurückgegeben. Tonies, Spiele und DVDs bitte in einer Tüte einwerfen oder an der Theke abgeben.",
   "Medien anderer Standorte werden angenommen und mit dem Medientransport am Mittwoch zurückgebracht."]),
  ("Feiertage und Schließtage", [
   "An gesetzlichen Feiertagen und am Montag und Dienstag der Kirmes im August ist geschlossen.",
   "Schließtage sind außerdem die Tage vom 24. Dezember bis zum 6. Januar sowie Tage, an denen das Haus für Wahlen vorbereitet wird (werden zwei Wochen vorher ausgehängt).",
   "Leihfristen, die an einem Schließtag enden, verlängern sich bis zum nächsten Öffnungstag."]),
  ("Sommerpause", [
   "Die Bibliothek macht eine Sommerpause von drei Wochen, in der Regel in der Mitte der Sommerferien.",
   "Vor der Sommerpause ausgeliehene Medien erhalten eine Leihfrist von 7 Wochen. Der Rückgabekasten wird während der Pause einmal in der Woche geleert."]),
 ],
 "altstadt": [
  ("Öffnungszeiten", [
   "Die Bücherei ist geöffnet: Montag, Mittwoch und Freitag von 10 bis 13 Uhr und von 14 bis 18 Uhr, Samstag von 10 bis 13 Uhr.",
   "Von 13 bis 14 Uhr ist Mittagspause; dienstags und donnerstags ist geschlossen.",
   "Das Lesezimmer im Dachgeschoss schließt 30 Minuten vor der Bücherei."]),
  ("Open Library", [
   "Eine Open Library wird nicht angeboten, weil das denkmalgeschützte Gebäude keine automatische Zugangstechnik zulässt."]),
  ("Rückgabe und Rückgabeautomat", [
   "Einen Rückgabeautomaten gibt es in diesem Haus nicht; Medien werden an der Theke zurückgebucht.",
   "Außerhalb der Öffnungszeiten nimmt der Briefschlitz in der Haustür Bücher bis 4 Zentimeter Dicke an; sie gelten am nächsten Öffnungstag als zurückgegeben. CDs, DVDs, Tonies und Spiele dürfen nicht eingeworfen werden.",
   "Medien anderer Standorte werden angenommen."]),
  ("Feiertage und Schließtage", [
   "An gesetzlichen Feiertagen ist geschlossen.",
   "Am Samstag des Stadtfestes im September und vom 24. Dezember bis zum 1. Januar bleibt die Bücherei geschlossen.",
   "Leihfristen, die an einem Schließtag enden, verlängern sich bis zum nächsten Öffnungstag."]),
  ("Sommerpause", [
   "Die Sommerpause dauert zwei Wochen Anfang August. In dieser Zeit ist auch der Briefschlitz verschlossen.",
   "Leihfristen, die in die Sommerpause fallen, werden bis zum ersten Öffnungstag danach verlängert."]),
 ],
 "suedpark": [
  ("Öffnungszeiten", [
   "Die Bibliothek ist für alle geöffnet: Montag bis Freitag von 11 bis 19 Uhr und Samstag von 10 bis 14 Uhr.",
   "An Schultagen ist sie von 8 bis 11 Uhr den Klassen der benachbarten Schule vorbehalten. In den Schulferien öffnet sie für alle bereits um 10 Uhr.",
   "Die Servicetheke schließt 10 Minuten vor dem Ende der Öffnungszeiten."]),
  ("Open Library", [
   "Die Open Library ist Montag bis Freitag von 7 bis 8 Uhr und von 19 bis 21 Uhr sowie Samstag von 14 bis 20 Uhr geöffnet.",
   "Zutritt ab 14 Jahren mit gültigem Ausweis und PIN; unter 18 Jahren mit schriftlicher Einwilligung einer erziehungsberechtigten Person. Die Einweisung erfolgt an der Theke.",
   "Die Räume sind videoüberwacht; der Kinderbereich ist in der Open Library geschlossen."]),
  ("Rückgabe und Rückgabeautomat", [
   "Der Rückgabeautomat ist in die Fassade neben dem Haupteingang eingebaut und rund um die Uhr zugänglich; er nimmt auch Tonies und Spiele in Kartons bis Schuhkartongröße an.",
   "Die Quittung wird per E-Mail verschickt. Medien aller Standorte werden angenommen."]),
  ("Feiertage und Schließtage", [
   "An gesetzlichen Feiertagen ist geschlossen, auch die Open Library.",
   "In der ersten Januarwoche sind Schließtage wegen der Inventur; der Rückgabeautomat bleibt zugänglich.",
   "Leihfristen, die an einem Schließtag enden, verlängern sich bis zum nächsten Öffnungstag."]),
  ("Sommerpause", [
   "Eine Sommerpause gibt es nicht; in den Sommerferien gelten die Öffnungszeiten ab 10 Uhr (§ 2 Absatz 2)."]),
 ],
 "buecherbus": [
  ("Öffnungszeiten und Fahrplan", [
   "Die Öffnungszeiten ergeben sich aus dem Fahrplan: jede der 26 Haltestellen wird im Abstand von 14 Tagen angefahren, an Dienstagen bis Freitagen zwischen 9 und 18.30 Uhr, an zwei Samstagen im Monat zwischen 9 und 12 Uhr.",
   "Die Haltezeit beträgt je nach Haltestelle 30 bis 90 Minuten. Vormittags werden vor allem Schulen und Kitas angefahren.",
   "Der Fahrplan steht im Online-Katalog und in der App; er wird halbjährlich zum Schuljahr und zum Halbjahr neu festgelegt."]),
  ("Open Library", [
   "Eine Open Library ist im Fahrzeug nicht möglich. Zwischen den Halten können die digitalen Angebote der Stadtbibliothek genutzt werden."]),
  ("Rückgabe und Rückgabeautomat", [
   "Medien werden beim Halt im Fahrzeug zurückgebucht. Ein Rückgabeautomat ist nicht an Bord.",
   "Medien aus dem Fahrzeug können auch an jedem Rückgabeautomaten und jeder Theke der Stadtbibliothek zurückgegeben werden.",
   "Wegen des kurzen Halts bitte große Mengen vorher in Taschen sortieren; Spiele und Tonies nicht lose abgeben."]),
  ("Feiertage und Schließtage", [
   "Fahrten an gesetzlichen Feiertagen fallen ersatzlos aus. Fällt ein Halt aus, verlängern sich die Leihfristen der Medien bis zum nächsten Halt an dieser Haltestelle.",
   "Bei Glätte, Schnee, Sturm oder einer Panne kann ein Halt kurzfristig entfallen; Ausfälle werden in der App und im Online-Katalog gemeldet.",
   "Schließtage sind zwei Werkstatttage im Frühjahr (Hauptuntersuchung) und die Tage vom 22. Dezember bis 6. Januar."]),
  ("Sommerpause", [
   "In der Mitte der Sommerferien ist vier Wochen Sommerpause.",
   "Medien, die am letzten Halt vor der Sommerpause ausgeliehen werden, erhalten eine Leihfrist von 8 Wochen."]),
 ],
}

# ---------------------------------------------------------------------------------------------
# PC-Arbeitsplätze, WLAN und Drucken
# ---------------------------------------------------------------------------------------------
PC = {
 "zentrale": dict(pcs="24", office="16 mit Office-Programmen und 2 mit Vorlesesoftware und Großbildschirm für sehbehinderte Menschen", katalog="Acht",
   limit="120", verl="danach kann verlängert werden, wenn niemand wartet.",
   reserve="Arbeitsplätze können bis zu 7 Tage im Voraus im Online-Katalog für feste Zeitfenster von 60 Minuten reserviert werden; eine Reservierung verfällt 10 Minuten nach Beginn.",
   gast="2 Euro je Tag", wlan="Die Verbindung ist auf 4 Stunden je Tag und drei Geräte je Person begrenzt; danach ist am nächsten Tag eine neue Anmeldung möglich.",
   sw="0,10 Euro", farbe="0,50 Euro", a3="; A3 schwarzweiß 0,20 Euro, A3 farbig 1,00 Euro",
   kopierer="Zwei Multifunktionsgeräte für Kopien bis A3 stehen im ersten Obergeschoss; Kopieren kostet so viel wie Drucken.",
   scan="Scannen auf einen USB-Stick oder an die eigene E-Mail-Adresse ist kostenlos; ein Buchscanner für gebundene Bücher steht im Lesesaal.",
   pay="Bezahlt wird über das Druckguthaben auf dem Bibliotheksausweis oder der Gastkarte; es wird am Kassenautomaten (bar oder Girocard), an der Theke oder online im Bibliothekskonto ab 1 Euro aufgeladen. Nicht verbrauchtes Guthaben wird nicht ausgezahlt.",
   kids=["Für Kinder bis 11 Jahre gibt es im Kinderbereich vier eigene PCs mit ausgewählten Lernprogrammen und einer Kindersuchmaschine; das Zeitlimit beträgt dort 30 Minuten.",
         "Kinder unter 12 Jahren dürfen die PC-Arbeitsplätze der Erwachsenenbereiche nur in Begleitung Erwachsener nutzen."],
   extra=[]),
 "nordviertel": dict(pcs="8", office="alle mit Office-Programmen", katalog="Zwei",
   limit="60", verl="eine Verlängerung um weitere 60 Minuten ist möglich, wenn niemand wartet.",
   reserve="Reservierungen sind telefonisch oder an der Theke für denselben und den nächsten Öffnungstag möglich.",
   gast="1 Euro je Tag", wlan="Die Verbindung ist auf 2 Stunden je Tag begrenzt. Am Fensterband ist der Empfang am besten.",
   sw="0,15 Euro", farbe="0,60 Euro", a3="; Drucken in A3 wird nicht angeboten",
   kopierer="Ein Kopierer für A4 steht neben der Theke.",
   scan="Ein Scanner für A4 ist in den Kopierer eingebaut; Scans werden kostenlos an eine E-Mail-Adresse geschickt oder auf einem USB-Stick gespeichert.",
   pay="Bezahlt wird über das Druckguthaben, das an der Theke bar oder mit Girocard ab 50 Cent aufgeladen wird.",
   kids=["Zwei PCs in der Familienecke sind für Kinder von 6 bis 11 Jahren reserviert (Zeitlimit 30 Minuten, nur Lernspiele und Kindersuchmaschine).",
         "Jugendliche ab 12 Jahren können die übrigen Arbeitsplätze ohne Begleitung nutzen."],
   extra=["Ein PC mit Tastaturen für Arabisch, Russisch, Türkisch und Ukrainisch steht für Bewerbungen und Formulare von Behörden bereit; an zwei Vormittagen im Monat hilft ein Ehrenamtlicher beim Ausfüllen von Online-Formularen (Termine an der Theke)."]),
 "hafen": dict(pcs="30", office="alle mit Office-Programmen, sechs davon zusätzlich mit Programmen für Bild- und Videobearbeitung", katalog="Vier",
   limit="180", verl="eine Verlängerung am selben Tag ist nicht möglich.",
   reserve="Alle Arbeitsplätze sind im Online-Katalog bis zu 14 Tage im Voraus buchbar; ein freier Platz ohne Buchung kann sofort genutzt werden.",
   gast="3 Euro je Tag", wlan="Das WLAN ist ohne Zeitlimit nutzbar, auch in der Open Library, mit bis zu fünf Geräten je Person. Für Angehörige von Hochschulen steht zusätzlich eduroam zur Verfügung.",
   sw="0,10 Euro", farbe="0,40 Euro", a3="; A3 schwarzweiß 0,20 Euro, A3 farbig 0,80 Euro; Posterdruck bis A1 auf Bestellung 8 Euro je Poster",
   kopierer="Drei Multifunktionsgeräte zum Kopieren, Drucken und Scannen stehen auf beiden Etagen, auch während der Open Library.",
   scan="Scannen ist kostenlos; zwei Buchscanner mit Texterkennung speichern auf einen USB-Stick oder senden ein PDF an die eigene E-Mail-Adresse. Ein 3D-Drucker kann nach einer Einweisung genutzt werden (0,10 Euro je Gramm Material).",
   pay="Bezahlt wird über das Druckguthaben, aufzuladen am Kassenautomaten, online im Bibliothekskonto oder an der Theke.",
   kids=["Eigene Kinder-PCs gibt es nicht. Kinder unter 12 Jahren dürfen die Arbeitsplätze nur in Begleitung Erwachsener nutzen; für die Open Library gilt das Mindestalter von 16 Jahren."],
   extra=[]),
 "westend": dict(pcs="10", office="sechs mit Office-Programmen und vier Musik-Arbeitsplätze mit Keyboard, Kopfhörern und Notensatzprogramm", katalog="Zwei",
   limit="90", verl="Musik-Arbeitsplätze können für 120 Minuten gebucht werden.",
   reserve="Die Musik-Arbeitsplätze werden an der Theke oder telefonisch bis zu 7 Tage im Voraus gebucht; die übrigen Plätze werden ohne Reservierung vergeben.",
   gast="2 Euro je Tag", wlan="Die Verbindung ist auf 3 Stunden je Tag begrenzt; im Theatersaal und in den Kursräumen des Hauses gilt ein anderes Netz mit eigenen Bedingungen.",
   sw="0,20 Euro", farbe="0,50 Euro", a3="; A3 schwarzweiß 0,40 Euro; Noten können auch farbig in A3 gedruckt werden (1,00 Euro)",
   kopierer="Ein Kopierer bis A3 steht im Galeriegeschoss; er kopiert auch Noten auf festes Papier (0,30 Euro je Seite).",
   scan="Ein Aufsichtsscanner für Noten und großformatige Kunstbände speichert kostenlos auf einen USB-Stick.",
   pay="Bezahlt wird über das Druckguthaben, das an der Theke bar oder mit Girocard aufgeladen wird.",
   kids=["Zwei Kinder-PCs mit Lernprogrammen stehen in der Kinderecke (Zeitlimit 45 Minuten).", "Die Musik-Arbeitsplätze dürfen Kinder ab 10 Jahren nutzen."],
   extra=["Urheberrechtlich geschützte Noten dürfen nur im gesetzlich erlaubten Umfang kopiert werden; ganze Notenausgaben dürfen nicht kopiert werden."]),
 "eichendorf": dict(pcs="3", office="alle mit Office-Programmen", katalog="Ein",
   limit="60", verl="bei freiem Platz kann verlängert werden.",
   reserve="Eine Reservierung ist nicht möglich.",
   gast="1 Euro je Tag", wlan="Die Verbindung ist auf 2 Stunden je Tag begrenzt.",
   sw="0,20 Euro", farbe="0,60 Euro", a3="; Drucken in A3 wird nicht angeboten",
   kopierer="Kopien bis A4 fertigt das Personal am Gerät hinter der Theke an.",
   scan="Scannen an eine E-Mail-Adresse oder auf einen USB-Stick ist kostenlos.",
   pay="Gezahlt wird bar an der Theke; ein Druckguthaben gibt es an diesem Standort nicht, ein anderswo aufgeladenes Guthaben kann hier nicht verwendet werden.",
   kids=["Ein PC ist nachmittags bis 17 Uhr für Kinder und Jugendliche reserviert (Zeitlimit 30 Minuten).", "Kinder unter 10 Jahren dürfen die PCs nur mit Begleitung nutzen."],
   extra=["Am ersten Dienstag im Monat bietet das Team der Ehrenamtlichen von 15 bis 17 Uhr eine Computersprechstunde für Seniorinnen und Senioren an; eigene Smartphones und Tablets können mitgebracht werden."]),
 "altstadt": dict(pcs="4", office="alle mit Office-Programmen", katalog="Ein",
   limit="60", verl="danach nur, wenn niemand wartet.",
   reserve="Reservierungen nimmt die Theke für denselben Tag an.",
   gast="2 Euro je Tag", wlan="Das WLAN ist ohne Zeitlimit nutzbar; wegen der dicken Fachwerkwände ist der Empfang im Lesezimmer im Dachgeschoss schwächer.",
   sw="0,15 Euro", farbe="0,50 Euro", a3="; A3 schwarzweiß 0,30 Euro",
   kopierer="Ein Kopierer bis A3 steht im Erdgeschoss.",
   scan="Scans auf einen USB-Stick sind kostenlos; für nicht ausleihbare Bücher zur Stadtgeschichte steht ein Buchscanner bereit.",
   pay="Bezahlt wird über das Druckguthaben, das an der Theke bar oder mit Girocard ab 1 Euro aufgeladen wird.",
   kids=["Für Kinder gibt es einen eigenen PC mit Lernprogrammen im Erdgeschoss (Zeitlimit 30 Minuten)."],
   extra=["Die Arbeitsplätze im ersten Obergeschoss sind nur über eine Treppe erreichbar; ein Laptop-Arbeitsplatz im Erdgeschoss wird auf Wunsch bereitgestellt."]),
 "suedpark": dict(pcs="20", office="alle mit Office-Programmen und den Lernprogrammen der Schule", katalog="Zwei",
   limit="90", verl="Schülerinnen und Schüler der benachbarten Schule melden sich mit ihrer Schulkennung an und haben in Freistunden kein Zeitlimit.",
   reserve="Reservierungen sind im Online-Katalog bis zu 3 Tage im Voraus möglich; an Schultagen sind die PCs vormittags für den Unterricht gebucht.",
   gast="2 Euro je Tag", wlan="Die Verbindung ist auf 4 Stunden je Tag begrenzt; das Netz der Schule ist davon getrennt.",
   sw="0,10 Euro", farbe="0,30 Euro", a3="; A3 schwarzweiß 0,20 Euro, A3 farbig 0,60 Euro",
   kopierer="Zwei Kopierer stehen im Lernzentrum.",
   scan="Scannen ist kostenlos; ein Dokumentenscanner erstellt PDF-Dateien mit Texterkennung auf einem USB-Stick oder per E-Mail.",
   pay="Bezahlt wird über das Druckguthaben, aufzuladen am Kassenautomaten, online im Bibliothekskonto oder mit der Schulkarte.",
   kids=["Im Kinderbereich stehen sechs Tablets mit Lern-Apps für Kinder von 6 bis 11 Jahren bereit (Zeitlimit 30 Minuten, Ausgabe an der Theke gegen den Ausweis).",
         "Jugendliche ab 12 Jahren nutzen die PC-Arbeitsplätze ohne Begleitung."],
   extra=["Fünf Laptops können an der Theke gegen den Ausweis für 3 Stunden zur Nutzung im Haus ausgeliehen werden."]),
}

def pc_sections(slug):
    if slug == "buecherbus":
        return [
         ("PC-Arbeitsplätze", [
          "Im Fahrzeug gibt es keine PC-Arbeitsplätze mit Internetzugang; ein Terminal dient der Katalogrecherche und dem Zugriff auf das eigene Bibliothekskonto.",
          "Das Personal recherchiert auf Wunsch im Katalog und nimmt Vormerkungen und Bestellungen auf.",
          "Eine Gastkarte für die PC-Nutzung wird im Fahrzeug nicht ausgegeben."]),
         ("WLAN", [
          "Während des Halts steht an Bord das kostenlose WLAN „Stadtbibliothek-Gast“ über Mobilfunk zur Verfügung. Das Zeitlimit beträgt 30 Minuten je Gerät und Halt.",
          "Das WLAN eignet sich zum Herunterladen von E-Books und eAudios, nicht zum Streamen von Filmen.",
          "Ein Jugendschutzfilter sperrt jugendgefährdende und strafbare Inhalte."]),
         ("Drucken, Kopieren und Scannen", [
          "Drucken, Kopieren und Scannen sind im Fahrzeug nicht möglich.",
          "Quittungen und Leihfristlisten werden auf Wunsch per E-Mail verschickt.",
          "Ein Druckguthaben für die Geräte der Stadtbibliothek kann im Fahrzeug bar ab 1 Euro aufgeladen werden."]),
         ("Kinder und Jugendliche", [
          "An den Halten bei Schulen und Kitas stehen zwei Tablets mit Bilderbuch-Apps für Gruppen bereit, die von den Begleitpersonen angeleitet werden."]),
         ("Haftung und Datenschutz", [
          "Nach jeder Sitzung am Terminal wird das Konto automatisch abgemeldet. Eigene Daten können nicht auf einem USB-Stick gespeichert werden.",
          "Die Stadtbibliothek haftet nicht für Datenverlust und nicht für Schäden an mitgebrachten Geräten."]),
        ]
    d = PC[slug]
    pcs = [f"Es stehen {d['pcs']} PC-Arbeitsplätze mit Internetzugang zur Verfügung, {d['office']}. {d['katalog']} weitere Rechner dienen nur der Katalogrecherche.",
           f"Die Nutzung ist mit gültigem Bibliotheksausweis kostenlos. Wer keinen Ausweis hat, erhält an der Theke gegen Vorlage eines Lichtbildausweises eine Gastkarte für {d['gast']}.",
           f"Das Zeitlimit beträgt {d['limit']} Minuten je Tag und Person; {d['verl']}",
           d["reserve"]]
    wlan = ["Das kostenlose WLAN „Stadtbibliothek-Gast“ steht in allen öffentlichen Räumen zur Verfügung. Angemeldet wird man über die Startseite im Browser mit Zustimmung zu den Nutzungsbedingungen; ein Ausweis ist nicht nötig.",
            d["wlan"],
            "Ein Jugendschutzfilter sperrt jugendgefährdende und strafbare Inhalte. Das Herunterladen und Verbreiten urheberrechtlich geschützter Werke ist untersagt."]
    druck = [f"Drucken ist von den PC-Arbeitsplätzen und vom eigenen Gerät über das Druckportal möglich. Preise je Seite: A4 schwarzweiß {d['sw']}, A4 farbig {d['farbe']}{d['a3']}.",
             d["kopierer"], d["scan"], d["pay"]]
    haft = ["Beim Abmelden werden alle Daten, Downloads und der Browserverlauf des Arbeitsplatzes gelöscht. Eigene Dateien bitte auf einem USB-Stick oder in einem eigenen Cloudspeicher sichern.",
            "Die Stadtbibliothek haftet nicht für Datenverlust, für Schäden an mitgebrachten Geräten oder Datenträgern und nicht für die Inhalte aufgerufener Seiten."] + d["extra"]
    return [("PC-Arbeitsplätze", pcs), ("WLAN", wlan), ("Drucken, Kopieren und Scannen", druck),
            ("Kinder und Jugendliche", d["kids"]), ("Haftung, Datenschutz und besondere Regeln", haft)]

# ---------------------------------------------------------------------------------------------
# Lern- und Gruppenräume
# ---------------------------------------------------------------------------------------------
GR = {
 "zentrale": dict(
   lern=["Im Lesesaal im zweiten Obergeschoss gibt es 80 Einzelarbeitsplätze mit Steckdose und Leselampe, weitere 40 Lernplätze verteilen sich auf die Fachabteilungen.",
         "Der Lesesaal ist Ruhezone: Telefonieren und Gespräche sind dort nicht erlaubt.",
         "Lernplätze werden nicht reserviert. In den Prüfungszeiten im Januar, Februar, Juli und August darf ein Platz höchstens 60 Minuten unbesetzt bleiben; dafür liegt eine Parkscheibe am Platz."],
   rooms=["Es stehen drei Gruppenräume für je 4 bis 6 Personen mit Bildschirm und Whiteboard und ein großer Gruppenraum für bis zu 12 Personen mit Beamer zur Verfügung.",
          "Einen Gruppenraum können Gruppen ab 2 Personen buchen; die buchende Person braucht einen gültigen Bibliotheksausweis."],
   buch=["Die Buchung erfolgt im Online-Katalog unter „Räume buchen“ oder an der Theke, frühestens 14 Tage im Voraus.",
         "Eine Buchung dauert höchstens 3 Stunden; je Ausweis sind 2 Buchungen je Woche möglich.",
         "Die Buchung ist mit gültigem Ausweis kostenlos. Den großen Raum können Vereine und Initiativen für 15 Euro je Stunde mieten, für gewerbliche Zwecke kostet er 40 Euro je Stunde."],
   storno=["Eine Buchung kann bis 2 Stunden vor Beginn im Bibliothekskonto storniert werden.",
           "Wer 15 Minuten nach Beginn nicht erschienen ist, verliert die Buchung; nach drei Fällen von Nichterscheinen sind für 4 Wochen keine Buchungen möglich."],
   regeln=["In den Gruppenräumen sind Getränke in verschließbaren Flaschen erlaubt, Essen nicht; dafür steht das Lesecafé im Erdgeschoss offen.",
           "Die Gruppenräume sind auch während der Open Library nutzbar, wenn die Buchung in diese Zeit fällt; der Zugang erfolgt mit Ausweis und PIN."]),
 "nordviertel": dict(
   lern=["Es gibt 18 Lernplätze am Fensterband und 6 Einzelarbeitsplätze in der Lernecke.",
         "Eine eigene Ruhezone gibt es nicht; in der Lernecke wird leise gesprochen.",
         "Lernplätze werden nicht reserviert."],
   rooms=["Es steht ein Gruppenraum für bis zu 8 Personen mit einem Bildschirm zum Anschließen eines Laptops zur Verfügung.",
          "Der Gruppenraum kann von Gruppen ab 2 Personen gebucht werden. Er ist schallgedämmt und kann auch für Vorstellungsgespräche per Video genutzt werden; Webcam und Headset gibt es an der Theke."],
   buch=["Die Buchung erfolgt an der Theke oder telefonisch, frühestens 7 Tage im Voraus.",
         "Eine Buchung dauert höchstens 2 Stunden; je Ausweis ist 1 Buchung je Woche möglich.",
         "Die Buchung ist kostenlos. Dienstags und donnerstags ab 15 Uhr belegen das Sprachcafé und die Hausaufgabenhilfe den Raum; dann ist keine Buchung möglich."],
   storno=["Bitte sagen Sie eine Buchung bis zum Vortag ab.",
           "Ist die Gruppe 20 Minuten nach Beginn nicht da, wird der Raum anderweitig vergeben."],
   regeln=["Essen und Trinken sind im Gruppenraum erlaubt, an den Lernplätzen neben den Medien nur Getränke in Flaschen.",
           "Der Raum ist aufgeräumt zu verlassen; das Whiteboard ist abzuwischen."]),
 "hafen": dict(
   lern=["Auf beiden Etagen gibt es 160 Lernplätze, davon 60 Einzelarbeitsplätze mit Steckdose und Schreibtischlampe und 20 Plätze in schallgedämmten Lernkabinen.",
         "Die obere Etage ist Ruhezone: Flüstern ist erlaubt, Telefonieren nicht. Auf der unteren Etage ist Gruppenarbeit in normaler Lautstärke erlaubt.",
         "Die 20 Lernkabinen werden im Online-Katalog für höchstens 4 Stunden gebucht; die übrigen Lernplätze werden nicht reserviert. Wer einen Platz länger als 45 Minuten verlässt, muss ihn räumen."],
   rooms=["Es stehen sechs Gruppenräume für je 4 bis 8 Personen mit Bildschirm, Whiteboard und Kamera für Videokonferenzen zur Verfügung; einer davon ist barrierefrei und hat einen höhenverstellbaren Tisch.",
          "Einen Gruppenraum können Gruppen ab 2 Personen buchen."],
   buch=["Die Buchung erfolgt ausschließlich im Online-Katalog oder in der App, frühestens 21 Tage im Voraus.",
         "Eine Buchung dauert höchstens 4 Stunden; je Ausweis sind 3 Buchungen je Woche möglich.",
         "Die Buchung ist mit gültigem Ausweis kostenlos. Wird der Raum während der Open Library genutzt, braucht jede Person der Gruppe einen eigenen gültigen Ausweis."],
   storno=["Eine Stornierung ist bis 30 Minuten vor Beginn möglich.",
           "Wer 10 Minuten nach Beginn nicht mit dem QR-Code an der Tür eingecheckt hat, verliert die Buchung; nach zwei Fällen von Nichterscheinen ist das Buchen für 14 Tage gesperrt."],
   regeln=["Getränke sind erlaubt; Essen ist nur als kalter Snack auf der unteren Etage erlaubt, warme Speisen nirgends.",
           "Die Gruppenräume sind täglich von 7 bis 23 Uhr nutzbar, außerhalb der Servicezeiten mit Ausweis und PIN."]),
 "westend": dict(
   lern=["Auf der Galerie gibt es 24 Lernplätze, acht davon an Einzeltischen mit Blick auf den Innenhof.",
         "Eine Ruhezone gibt es nicht. Während der Proben im Haus kann Musik zu hören sein; Gehörschutz gibt es an der Theke.",
         "Lernplätze werden nicht reserviert."],
   rooms=["Es stehen ein Gruppenraum für bis zu 10 Personen mit Beamer und Whiteboard und ein Übungsraum mit Klavier für 1 bis 3 Personen zur Verfügung.",
          "Den Gruppenraum können Gruppen ab 3 Personen buchen, den Übungsraum auch Einzelpersonen ab 10 Jahren."],
   buch=["Die Buchung erfolgt an der Theke oder per E-Mail an die Bibliothek, frühestens 30 Tage im Voraus.",
         "Eine Buchung dauert höchstens 2 Stunden; je Ausweis sind 2 Buchungen je Woche möglich.",
         "Der Gruppenraum ist für Lern- und Arbeitsgruppen kostenlos. Der Übungsraum kostet 2 Euro je Stunde; für Schülerinnen und Schüler der Musikschule ist er kostenlos."],
   storno=["Stornierungen sind bis 24 Stunden vorher möglich; später abgesagte Zeiten im Übungsraum werden berechnet.",
           "Bei Nichterscheinen wird die Buchung nach 15 Minuten freigegeben."],
   regeln=["Essen und Trinken sind in beiden Räumen nicht erlaubt; im Foyer gibt es ein Café.",
           "Am Klavier dürfen nur eigene oder ausgeliehene Noten verwendet werden; Verstärker sind nicht erlaubt."]),
 "eichendorf": dict(
   lern=["Es gibt 8 Lernplätze an zwei großen Tischen.",
         "Eine Ruhezone gibt es nicht; donnerstagvormittags sind Kitagruppen und Schulklassen im Raum.",
         "Lernplätze werden nicht reserviert."],
   rooms=["Einen eigenen Gruppenraum hat die Bibliothek nicht. Der Mehrzweckraum im Erdgeschoss des Hauses für bis zu 20 Personen kann über die Bibliothek gebucht werden, wenn er frei ist.",
          "Gebucht werden kann er von Gruppen ab 4 Personen; die verantwortliche Person muss volljährig sein."],
   buch=["Die Buchung erfolgt an der Theke während der Öffnungszeiten, frühestens 60 Tage im Voraus.",
         "Eine Buchung dauert höchstens 3 Stunden; je Ausweis ist 1 Buchung je Woche möglich.",
         "Für Lerngruppen, Lesekreise und Schulgruppen ist die Nutzung kostenlos; für andere Zwecke gelten die Entgelte der Ortsverwaltung."],
   storno=["Absagen bitte spätestens 3 Tage vorher.",
           "Wer zweimal ohne Absage nicht erscheint, kann für den Rest des Jahres nicht mehr buchen."],
   regeln=["Getränke sind erlaubt, Essen nur bei Veranstaltungen; die Teeküche darf genutzt werden.",
           "Den Schlüssel holt die verantwortliche Person an der Theke gegen Hinterlegung des Ausweises ab; außerhalb der Öffnungszeiten gibt ihn der Hausmeister bis 17 Uhr aus."]),
 "altstadt": dict(
   lern=["Im Lesezimmer im Dachgeschoss gibt es 12 Einzelarbeitsplätze, im Erdgeschoss einen großen Lesetisch für 8 Personen.",
         "Das Lesezimmer ist Ruhezone.",
         "Lernplätze werden nicht reserviert."],
   rooms=["Es steht ein kleiner Gruppenraum im ersten Obergeschoss, die ehemalige Stube des Hauses, für bis zu 5 Personen mit Whiteboard zur Verfügung; einen Bildschirm gibt es nicht.",
          "Der Gruppenraum kann von Gruppen ab 2 Personen gebucht werden. Er ist nur über eine steile Treppe zu erreichen; auf Wunsch wird der Lesetisch im Erdgeschoss mit Stellwänden abgetrennt."],
   buch=["Die Buchung erfolgt an der Theke oder telefonisch, frühestens 7 Tage im Voraus.",
         "Eine Buchung dauert höchstens 2 Stunden; je Ausweis ist 1 Buchung je Woche möglich.",
         "Die Buchung ist kostenlos."],
   storno=["Bitte bis 12 Uhr am Vortag absagen.",
           "Nach 15 Minuten ohne Erscheinen wird der Raum freigegeben."],
   regeln=["Wegen der historischen Holzböden sind Essen und offene Getränke in allen Räumen verboten.",
           "Der Raum ist aufgeräumt zu verlassen; Stühle dürfen nicht in andere Räume getragen werden."]),
 "suedpark": dict(
   lern=["Im Lernzentrum gibt es 70 Lernplätze, davon 30 Einzelarbeitsplätze.",
         "Nach 14 Uhr ist die Galerie Ruhezone.",
         "Vormittags an Schultagen sind die Lernplätze für Schulklassen reserviert; sonst werden sie nicht reserviert."],
   rooms=["Es stehen vier Gruppenräume für je 4 bis 6 Personen mit Bildschirm und ein Medienraum für bis zu 16 Personen mit interaktiver Tafel zur Verfügung.",
          "Einen Gruppenraum können Gruppen ab 2 Personen buchen."],
   buch=["Die Buchung erfolgt im Online-Katalog oder in der App, für Schülerinnen und Schüler der benachbarten Schule auch über deren Lernplattform, frühestens 10 Tage im Voraus.",
         "Eine Buchung dauert höchstens 3 Stunden; je Ausweis sind 2 Buchungen je Woche möglich.",
         "Die Buchung ist kostenlos. Den Medienraum vergibt die Bibliothek an externe Gruppen nur nachmittags für 10 Euro je Stunde."],
   storno=["Eine Stornierung ist bis 1 Stunde vor Beginn möglich.",
           "Ohne Check-in an der Theke 15 Minuten nach Beginn verfällt die Buchung."],
   regeln=["Getränke in Flaschen sind erlaubt; Essen nur in der Cafeteria.",
           "Ab 19 Uhr stehen die Gruppenräume auch in der Open Library zur Verfügung."]),
 "buecherbus": dict(
   lern=["Im Fahrzeug gibt es keine Lernplätze und keine Ruhezone; eine Sitzbank für 4 Personen und eine Leseecke für Kinder laden zum Blättern ein."],
   rooms=["Lern- und Gruppenräume stehen im Fahrzeug nicht zur Verfügung; eine Buchung von Räumen ist nicht möglich.",
          "Für Schulklassen und Kitagruppen kann stattdessen ein eigener Halt von 45 Minuten gebucht werden."],
   buch=["Einen Klassenhalt bucht die Lehrkraft oder die Kita-Leitung per E-Mail oder Telefon mindestens 4 Wochen im Voraus.",
         "Gleichzeitig dürfen höchstens 15 Kinder mit zwei Begleitpersonen im Fahrzeug sein; größere Gruppen werden geteilt.",
         "Die Buchung ist kostenlos."],
   storno=["Eine Stornierung ist bis 2 Werktage vorher möglich.",
           "Erscheint eine Gruppe zweimal ohne Absage nicht, wird der Halt für das laufende Halbjahr gestrichen."],
   regeln=["Essen und Trinken sind im Fahrzeug nicht erlaubt.",
           "Während der Fahrt darf sich niemand im Fahrzeug aufhalten außer dem Personal."]),
}

def gr_sections(slug):
    d = GR[slug]
    return [("Lernplätze und Ruhezone", d["lern"]), ("Gruppenräume", d["rooms"]),
            ("Buchung", d["buch"]), ("Stornierung und Nichterscheinen", d["storno"]),
            ("Verhalten im Fahrzeug" if slug == "buecherbus" else "Verhalten in den Räumen", d["regeln"])]

# ---------------------------------------------------------------------------------------------
# Kinder- und Jugendbereich, Veranstaltungen
# ---------------------------------------------------------------------------------------------
KI = {
 "zentrale": dict(
   bereich=["Der Kinderbereich im ersten Obergeschoss umfasst 450 Quadratmeter mit rund 25.000 Medien für Kinder von 0 bis 11 Jahren, einer Krabbelecke, einem Lesepodest und einem Bilderbuchkino-Raum.",
            "Wickeltisch und Stillecke befinden sich neben den Toiletten im ersten Obergeschoss; Kinderwagen können im Foyer abgestellt werden.",
            "Kinder unter 8 Jahren müssen von einer erwachsenen Begleitperson beaufsichtigt werden. Die Aufsichtspflicht liegt bei den Eltern oder Begleitpersonen, nicht beim Personal."],
   jugend=["Der Jugendbereich im Dachgeschoss ist für Jugendliche von 12 bis 17 Jahren gedacht; Erwachsene nutzen ihn nur zum Ausleihen.",
           "Zwei Spielkonsolen können mit dem Ausweis für 60 Minuten am Tag genutzt werden; gespielt werden nur Spiele mit einer Altersfreigabe, die zum Alter passt."],
   veranst=["Die Vorlesestunde für Kinder von 4 bis 7 Jahren findet jeden Mittwoch um 16 Uhr statt (30 Minuten, ohne Anmeldung).",
            "Bilderbuchkino gibt es jeden ersten Samstag im Monat um 11 Uhr; die Krabbelgruppe „Buchstart“ für Kinder von 1 bis 3 Jahren mit einer Begleitperson trifft sich dienstags um 10 Uhr.",
            "Für Workshops (Programmieren, Trickfilm, Comiczeichnen) ist eine Anmeldung im Online-Katalog nötig; die Teilnahme kostet 3 Euro, mit dem Weidenau-Pass nichts."],
   klassen=["Klassenführungen und Kitabesuche werden mindestens 3 Wochen vorher über das Formular im Online-Katalog gebucht; möglich sind Dienstag bis Freitag von 8.30 bis 12 Uhr, höchstens 30 Kinder je Gruppe.",
            "Angeboten werden Bibliotheksführerscheine für Kitas, Rallyes für die Klassen 1 bis 4 und Recherchetrainings ab Klasse 7."],
   ferien=["Im Ferienprogramm der Sommerferien gibt es den Sommerleseclub für 8 bis 14 Jahre: wer drei Bücher liest und bewertet, erhält eine Urkunde; Anmeldung ab Juni an der Theke, die Teilnahme ist kostenlos."]),
 "nordviertel": dict(
   bereich=["Der Kinderbereich nimmt die Hälfte der Fläche ein und hält rund 12.000 Medien für Kinder bis 11 Jahren bereit, darunter Bilderbücher in zehn Sprachen.",
            "Wickeltisch und Kinderwagenstellplatz befinden sich am Eingang.",
            "Kinder unter 7 Jahren müssen von einer erwachsenen Begleitperson beaufsichtigt werden. Die Aufsichtspflicht bleibt bei den Eltern oder Begleitpersonen."],
   jugend=["Eine Jugendecke mit Sitzsäcken, Mangas und Jugendromanen ist für Jugendliche ab 12 Jahren eingerichtet.",
           "Eine Spielkonsole gibt es nicht; Konsolenspiele können ausgeliehen werden."],
   veranst=["Die mehrsprachige Vorlesestunde für Kinder von 3 bis 6 Jahren ist jeden Donnerstag um 15.30 Uhr, abwechselnd auf Deutsch und Arabisch, Türkisch oder Ukrainisch; eine Anmeldung ist nicht nötig.",
            "Bilderbuchkino gibt es jeden zweiten Freitag um 10.30 Uhr für Kitagruppen und Familien.",
            "Die Hausaufgabenhilfe für die Klassen 1 bis 6 ist dienstags und donnerstags von 15 bis 17 Uhr kostenlos; Anmeldung an der Theke."],
   klassen=["Klassenführungen und Kitabesuche werden mindestens 2 Wochen vorher telefonisch oder an der Theke vereinbart; möglich sind Mittwoch und Freitag von 10 bis 12 Uhr, höchstens 25 Kinder.",
            "Für Sprachlerngruppen gibt es eine einfache Führung mit Bildkarten."],
   ferien=["Das Ferienprogramm bietet in den Oster- und Herbstferien je einen Bastelnachmittag; im Sommer beteiligt sich die Bibliothek am Sommerleseclub (Anmeldung an der Theke, kostenlos)."]),
 "hafen": dict(
   bereich=["Ein kleiner Kinderbereich auf der unteren Etage mit rund 4.000 Medien richtet sich an Kinder von 6 bis 11 Jahren; Bilderbücher gibt es nur wenige.",
            "Einen Wickeltisch gibt es in der barrierefreien Toilette.",
            "Kinder unter 10 Jahren müssen von einer erwachsenen Begleitperson beaufsichtigt werden; die Aufsichtspflicht liegt bei den Begleitpersonen. In der Open Library gilt das Mindestalter von 16 Jahren."],
   jugend=["Der Jugendbereich „Lernlounge“ mit Schreibtischen, Sofas und Lernhilfen richtet sich an Jugendliche ab 14 Jahren, besonders zur Prüfungsvorbereitung.",
           "Spielkonsolen gibt es nicht."],
   veranst=["Eine regelmäßige Vorlesestunde gibt es nicht.",
            "Für Jugendliche gibt es monatlich einen Abend mit Bewerbungstraining und einen Lernworkshop vor den Abschlussprüfungen; Anmeldung im Online-Katalog, kostenlos.",
            "Einmal im Quartal findet samstags um 11 Uhr ein Bilderbuchkino mit Rundgang am Wasser für Familien statt; Anmeldung erforderlich, 2 Euro je Kind."],
   klassen=["Klassenführungen werden für die Klassen 8 bis 13 als Recherchetraining angeboten, mindestens 4 Wochen vorher per E-Mail zu buchen, höchstens 30 Schülerinnen und Schüler.",
            "Kitabesuche werden nicht angeboten."],
   ferien=["Ein Ferienprogramm gibt es nicht; in den Sommerferien ist der Lernbereich für Schülerinnen und Schüler mit Nachprüfungen geöffnet."]),
 "westend": dict(
   bereich=["Der Kinderbereich liegt im Erdgeschoss neben dem Foyer und hält rund 7.000 Medien für Kinder bis 11 Jahren bereit, dazu eine Musikecke mit Kinderliedern, Tonies und Instrumenten zum Ausprobieren.",
            "Wickeltisch und Kinderwagenstellplatz gibt es im Foyer.",
            "Kinder unter 8 Jahren müssen von einer erwachsenen Begleitperson beaufsichtigt werden; die Aufsichtspflicht liegt bei den Eltern oder Begleitpersonen."],
   jugend=["Für Jugendliche ab 12 Jahren gibt es eine Jugendecke auf der Galerie mit Comics, Graphic Novels und Bandnoten.",
           "Spielkonsolen gibt es nicht; die Musik-Arbeitsplätze dürfen ab 10 Jahren genutzt werden."],
   veranst=["Die musikalische Vorlesestunde für Kinder von 3 bis 6 Jahren ist jeden Samstag um 11 Uhr (45 Minuten); eine Anmeldung ist nicht nötig, der Eintritt frei.",
            "Bilderbuchkino mit Livemusik der Musikschule gibt es an jedem letzten Sonntag im Monat um 15 Uhr im Theatersaal; Eintritt 2 Euro, Karten an der Theke.",
            "Theater- und Lesungsveranstaltungen für Kinder werden im Monatsprogramm des Hauses angekündigt; für sie gelten die Eintrittspreise des Hauses."],
   klassen=["Klassenführungen und Kitabesuche sind dienstags und mittwochs von 9 bis 12 Uhr möglich und werden mindestens 3 Wochen vorher gebucht; höchstens 28 Kinder je Gruppe.",
            "Für Grundschulklassen gibt es eine Führung mit Instrumentenkunde in Zusammenarbeit mit der Musikschule."],
   ferien=["In den Sommerferien gibt es eine Woche Ferienprogramm „Lieder und Geschichten“ für 6 bis 10 Jahre, täglich 10 bis 12 Uhr, Anmeldung ab Mai, 10 Euro für die Woche."]),
 "eichendorf": dict(
   bereich=["Der Kinderbereich ist eine Ecke des Raumes mit Teppich, Bilderbuchtrögen und rund 5.000 Medien für Kinder bis 11 Jahren.",
            "Einen Wickeltisch gibt es in der Toilette im Erdgeschoss; Kinderwagen bleiben im Treppenhaus unten stehen.",
            "Kinder unter 6 Jahren müssen von einer erwachsenen Begleitperson beaufsichtigt werden; die Aufsichtspflicht liegt bei den Eltern oder Begleitpersonen."],
   jugend=["Ein eigener Jugendbereich ist nicht vorhanden; ein Regal mit Jugendbüchern und Mangas steht neben den Lernplätzen.",
           "Spielkonsolen gibt es nicht."],
   veranst=["Die Vorlesestunde für Kinder von 3 bis 8 Jahren findet jeden zweiten Dienstag um 16 Uhr statt und wird von Ehrenamtlichen gestaltet; keine Anmeldung.",
            "Bilderbuchkino gibt es in der Adventszeit jeden Freitag um 16 Uhr.",
            "Zweimal im Jahr liest eine Kinderbuchautorin oder ein Kinderbuchautor im Mehrzweckraum; Anmeldung an der Theke, kostenlos."],
   klassen=["Kitabesuche und Führungen für die Grundschulklassen werden donnerstags von 10 bis 13 Uhr angeboten und mindestens 2 Wochen vorher vereinbart; höchstens 20 Kinder.",
            "Für jede Grundschulklasse kann eine Medienkiste mit 30 Büchern für 6 Wochen zusammengestellt werden."],
   ferien=["Im Ferienprogramm der Sommerferien gibt es eine Lesenacht für Kinder von 8 bis 11 Jahren (begrenzt auf 15 Plätze, Anmeldung ab Juni, 5 Euro)."]),
 "altstadt": dict(
   bereich=["Der Kinderbereich liegt im Erdgeschoss mit rund 4.500 Medien für Kinder bis 11 Jahren, darunter eine Sammlung von Sagen und Geschichten aus der Stadt.",
            "Wegen der engen Treppen können Kinderwagen nur im Flur des Erdgeschosses abgestellt werden; einen Wickeltisch gibt es nicht.",
            "Kinder unter 9 Jahren müssen von einer erwachsenen Begleitperson beaufsichtigt werden, besonders auf den Treppen; die Aufsichtspflicht liegt bei den Begleitpersonen."],
   jugend=["Ein eigener Jugendbereich ist nicht vorhanden; Jugendromane stehen im ersten Obergeschoss.",
           "Spielkonsolen gibt es nicht."],
   veranst=["Die Vorlesestunde für Kinder von 4 bis 8 Jahren ist jeden ersten Samstag im Monat um 10.30 Uhr; keine Anmeldung.",
            "Bilderbuchkino gibt es nicht. Dafür bietet die Bücherei zweimal im Jahr eine Stadtführung für Familien „Auf den Spuren der Stadtsagen“ an (Anmeldung erforderlich, 3 Euro für Erwachsene, Kinder frei).",
            "Lesungen für Erwachsene finden im Lesezimmer statt (Eintritt 5 Euro)."],
   klassen=["Klassenführungen für die Klassen 3 bis 6 mit dem Schwerpunkt Stadtgeschichte werden mindestens 3 Wochen vorher gebucht; möglich montags und mittwochs von 10 bis 12 Uhr, höchstens 24 Kinder.",
            "Kitabesuche sind wegen der Treppen nur im Erdgeschoss möglich."],
   ferien=["Ein eigenes Ferienprogramm gibt es nicht; die Bücherei nimmt am Sommerleseclub teil."]),
 "suedpark": dict(
   bereich=["Der Kinderbereich umfasst 300 Quadratmeter mit rund 10.000 Medien für Kinder von 0 bis 11 Jahren und einer Spielzone mit Tablets.",
            "Wickelraum und Kinderwagenstellplätze gibt es im Erdgeschoss.",
            "Kinder unter 8 Jahren müssen von einer erwachsenen Begleitperson beaufsichtigt werden; die Aufsichtspflicht liegt bei den Eltern oder Begleitpersonen. In der Open Library ist der Kinderbereich geschlossen."],
   jugend=["Der Jugendbereich „Zone 12+“ mit Sofas, Spielkonsolen und einem Gaming-Bildschirm ist Jugendlichen von 12 bis 17 Jahren vorbehalten.",
           "Die Spielkonsolen können mit dem Ausweis für 90 Minuten am Tag genutzt werden; an Schultagen erst ab 13 Uhr."],
   veranst=["Die Vorlesestunde für Kinder von 3 bis 6 Jahren ist jeden Montag um 16 Uhr; keine Anmeldung.",
            "Bilderbuchkino gibt es jeden zweiten und vierten Mittwoch um 10 Uhr für Kitagruppen (Anmeldung) und um 16 Uhr für Familien (ohne Anmeldung).",
            "Gaming-Turniere und ein Maker-Nachmittag mit Robotern finden monatlich statt; Anmeldung im Online-Katalog, kostenlos."],
   klassen=["Führungen für die Klassen der benachbarten Schule sind Teil des Stundenplans; andere Schulklassen und Kitas buchen mindestens 2 Wochen vorher über das Formular im Online-Katalog, höchstens 32 Kinder.",
            "Für die Klassen 5 und 7 gibt es ein Recherchetraining mit den Datenbanken der Stadtbibliothek."],
   ferien=["In allen Ferien gibt es ein Ferienprogramm mit Workshops für 6 bis 14 Jahre (Anmeldung ab 4 Wochen vorher, 2 Euro je Workshop, mit dem Weidenau-Pass kostenlos); im Sommer außerdem den Sommerleseclub."]),
 "buecherbus": dict(
   bereich=["Der Kinderbereich ist der hintere Teil des Fahrzeugs mit niedrigen Regalen, einer Leseecke und rund 2.000 Medien für Kinder bis 11 Jahren.",
            "Kinderwagen können über den Hublift mit ins Fahrzeug genommen werden, sofern Platz ist; einen Wickeltisch gibt es nicht.",
            "Kinder unter 6 Jahren dürfen nur mit einer erwachsenen Begleitperson ins Fahrzeug; die Aufsichtspflicht liegt bei den Begleitpersonen, auch an der Haltestelle."],
   jugend=["Für Jugendliche gibt es ein Regal mit Jugendromanen, Mangas und Konsolenspielen; einen eigenen Jugendbereich gibt es nicht.",
           "Vorgemerkte Jugendbücher aus anderen Beständen werden zum nächsten Halt mitgebracht."],
   veranst=["An vier Haltestellen bei Grundschulen gibt es einmal im Monat eine Vorlesestunde von 20 Minuten vor dem Fahrzeug (bei Regen im Fahrzeug); die Termine stehen im Fahrplan.",
            "Bilderbuchkino wird nicht angeboten.",
            "Zum Sommerfest der Stadtbibliothek steht das Fahrzeug als Leseort für Kinder zur Verfügung."],
   klassen=["Für Schulklassen und Kitagruppen gibt es eigene Halte von 45 Minuten, die mindestens 4 Wochen vorher gebucht werden; gleichzeitig höchstens 15 Kinder im Fahrzeug.",
            "Jedes Kind einer angemeldeten Klasse kann mit dem Klassenausweis oder dem eigenen Ausweis bis zu 3 Medien ausleihen."],
   ferien=["In den Sommerferien ruht der Betrieb vier Wochen; vorher werden die Kinder an den Schulhalten zum Sommerleseclub eingeladen."]),
}

def ki_sections(slug):
    d = KI[slug]
    return [("Kinderbereich und Aufsichtspflicht", d["bereich"]), ("Jugendbereich", d["jugend"]),
            ("Veranstaltungen", d["veranst"]), ("Klassenführungen und Kitabesuche", d["klassen"]),
            ("Ferienprogramm", d["ferien"])]

# ---------------------------------------------------------------------------------------------
# Zugang, Barrierefreiheit und Anfahrt
# ---------------------------------------------------------------------------------------------
ZU = {
 "zentrale": dict(
   zugang=["Der Haupteingang liegt an der Platzseite und ist ebenerdig mit automatischer Schiebetür; der Nebeneingang für die Open Library liegt an der Rückseite.",
           "Assistenzhunde und Blindenführhunde dürfen in alle Räume mitgebracht werden; andere Tiere nicht."],
   barriere=["Alle vier Ebenen sind über zwei Aufzüge stufenlos erreichbar; die Aufzüge haben Ansagen und Bedienfelder in Brailleschrift. Ist ein Aufzug gestört, begleitet das Personal mit dem Lastenaufzug.",
             "Barrierefreie Toiletten gibt es im Erdgeschoss und im zweiten Obergeschoss.",
             "An der Servicetheke und im Veranstaltungssaal gibt es eine Induktionsschleife für Hörgeräte; ein Blindenleitsystem führt vom Eingang zur Theke und zu den Aufzügen.",
             "Zwei Arbeitsplätze mit Vorlesesoftware, Braillezeile und Großbildschirm und eine Sammlung von Großdruckbüchern und DAISY-Hörbüchern stehen zur Verfügung."],
   anfahrt=["Haltestelle Rathaus der Stadtbahn Linien 1 und 3 und der Buslinien 5, 12 und 20, etwa 200 Meter Fußweg.",
            "Eigene Parkplätze gibt es nicht; die Tiefgarage am Rathaus ist 300 Meter entfernt (erste Stunde 1,50 Euro). Zwei Behindertenparkplätze liegen direkt vor dem Haupteingang.",
            "Überdachte Fahrradständer für 60 Fahrräder stehen an der Rückseite."],
   garderobe=["Taschen, Rucksäcke und Mäntel dürfen mitgenommen werden, außer in den Lesesaal. Dafür gibt es 120 Schließfächer im Foyer (1-Euro-Pfand, Rückgabe beim Öffnen).",
              "Das Personal übt das Hausrecht aus; es kann Personen, die gegen die Benutzungsordnung verstoßen, des Hauses verweisen."]),
 "nordviertel": dict(
   zugang=["Der Zugang führt durch die Ladenpassage; die Bibliothek liegt im ersten Obergeschoss über dem Supermarkt.",
           "Assistenzhunde und Blindenführhunde sind erlaubt; andere Tiere nicht."],
   barriere=["Die Bibliothek ist über den Aufzug der Passage und über Rolltreppen stufenlos erreichbar; der Aufzug fährt während der Öffnungszeiten des Einkaufszentrums.",
             "Eine barrierefreie Toilette gibt es im Erdgeschoss der Passage (Euroschlüssel).",
             "Eine mobile Induktionsschleife kann an der Theke ausgeliehen werden; ein Blindenleitsystem gibt es nicht, das Personal begleitet auf Wunsch.",
             "Die Regale sind höchstens 1,60 Meter hoch; die Theke hat einen abgesenkten Teil."],
   anfahrt=["Haltestelle Lindenstraße der Buslinien 7 und 14 direkt vor dem Einkaufszentrum.",
            "Im Parkhaus des Einkaufszentrums mit 400 Parkplätzen sind die ersten 2 Stunden kostenlos; Behindertenparkplätze liegen im Erdgeschoss des Parkhauses neben dem Aufzug.",
            "Fahrradständer stehen am Haupteingang der Passage."],
   garderobe=["Taschen dürfen mitgenommen werden. Zwölf Schließfächer für Einkaufstaschen stehen am Eingang (kostenlos, mit eigenem Schloss oder gegen 1-Euro-Pfand).",
              "Das Personal übt das Hausrecht aus; daneben gilt die Hausordnung des Einkaufszentrums."]),
 "hafen": dict(
   zugang=["Der Haupteingang liegt an der Wasserseite; der Seiteneingang mit Ausweisleser dient der Open Library.",
           "Assistenzhunde und Blindenführhunde sind erlaubt; andere Tiere nicht."],
   barriere=["Beide Etagen sind über einen Aufzug stufenlos erreichbar; der Haupteingang hat eine Rampe mit 6 Prozent Steigung, der Seiteneingang ist ebenerdig.",
             "Barrierefreie Toiletten gibt es auf beiden Etagen.",
             "Alle Gruppenräume und die Theke haben eine Induktionsschleife; ein Blindenleitsystem führt vom Haupteingang zur Theke.",
             "Ein Gruppenraum hat einen höhenverstellbaren Tisch; an zwei Lernplätzen gibt es Lupen und Leselampen für sehbehinderte Menschen."],
   anfahrt=["Haltestelle Kaimauer der Stadtbahn Linie 2, 150 Meter; der Fähranleger ist 300 Meter entfernt.",
            "Zehn Parkplätze am Gebäude, davon zwei Behindertenparkplätze; Parken 1 Euro je Stunde, mit Bibliotheksausweis die ersten 3 Stunden frei.",
            "Es gibt 100 Fahrradstellplätze, davon 20 überdacht mit Ladepunkten für E-Bikes."],
   garderobe=["Taschen dürfen mitgenommen werden, außer in die Ruhezone. 200 Schließfächer stehen im Eingangsbereich (Öffnen mit dem Bibliotheksausweis, kostenlos, nur am selben Tag; über Nacht belegte Fächer werden geräumt).",
              "Das Personal übt das Hausrecht aus; in der Open Library übt es ein Sicherheitsdienst aus."]),
 "westend": dict(
   zugang=["Der Zugang erfolgt über das Foyer; die Bibliothek liegt links vom Haupteingang.",
           "Assistenzhunde und Blindenführhunde sind erlaubt; andere Tiere nicht."],
   barriere=["Das Erdgeschoss ist stufenlos erreichbar; die Galerie ist über einen Plattformlift erreichbar, den das Personal bedient; einen Aufzug gibt es in diesem Teil des Hauses nicht.",
             "Eine barrierefreie Toilette befindet sich im Foyer.",
             "Im Theatersaal und an der Theke gibt es eine Induktionsschleife; ein Blindenleitsystem führt vom Eingang zum Foyer, nicht aber in die Bibliothek.",
             "Für Menschen mit Hörbehinderung gibt es Noten und Musikmedien mit Untertiteln und Vibrationskissen für Konzerte nach Anmeldung."],
   anfahrt=["Haltestelle Theaterplatz der Buslinien 3 und 9, 100 Meter.",
            "Eigene Parkplätze gibt es nicht; zwei Behindertenparkplätze liegen am Theaterplatz, ein Parkplatz des Hauses öffnet nur bei Veranstaltungen (3 Euro).",
            "Fahrradständer für 30 Fahrräder stehen vor dem Foyer."],
   garderobe=["Taschen dürfen mitgenommen werden. Die Garderobe des Hauses ist bei Veranstaltungen besetzt; 40 Schließfächer stehen im Foyer (2-Euro-Pfand).",
              "Das Personal übt das Hausrecht aus; daneben gilt die Hausordnung des Hauses."]),
 "eichendorf": dict(
   zugang=["Der Zugang erfolgt über den Eingang des Hauses und das Treppenhaus ins Obergeschoss.",
           "Assistenzhunde und Blindenführhunde sind erlaubt; angeleinte Hunde dürfen auch sonst mitgebracht werden, wenn sie im Eingangsbereich bleiben."],
   barriere=["Einen Aufzug gibt es nicht; das Obergeschoss ist nur über 18 Stufen erreichbar. Menschen, die die Treppe nicht steigen können, klingeln an der Klingel „Bibliothek“ im Erdgeschoss: das Personal bringt Medien nach vorheriger Bestellung in den Mehrzweckraum im Erdgeschoss.",
             "Eine barrierefreie Toilette gibt es im Erdgeschoss.",
             "Eine Induktionsschleife und ein Blindenleitsystem gibt es nicht.",
             "Der Medienlieferdienst „Bücher auf Rädern“ bringt Menschen, die nicht kommen können, alle 4 Wochen Medien nach Hause (Anmeldung über das Servicetelefon)."],
   anfahrt=["Haltestelle Dorfkirche der Regionalbuslinie 41, stündlich, samstags alle zwei Stunden, 50 Meter.",
            "Vor dem Haus gibt es 15 kostenlose Parkplätze, davon ein Behindertenparkplatz.",
            "Fahrradständer stehen neben dem Eingang."],
   garderobe=["Taschen dürfen mitgenommen werden; Schließfächer gibt es nicht, eine Garderobe steht im Raum.",
              "Das Personal übt das Hausrecht aus; daneben gilt die Hausordnung der Ortsverwaltung."]),
 "altstadt": dict(
   zugang=["Der Eingang liegt in einer Fußgängerzone mit Kopfsteinpflaster; vor der Tür sind zwei Stufen.",
           "Assistenzhunde und Blindenführhunde sind erlaubt; andere Tiere nicht."],
   barriere=["Eine mobile Rampe für die zwei Stufen legt das Personal auf Klingeln an der Tür aus. Das Erdgeschoss ist danach stufenlos; das erste Obergeschoss und das Dachgeschoss sind wegen des Denkmalschutzes nur über Treppen erreichbar, einen Aufzug gibt es nicht.",
             "Eine barrierefreie Toilette gibt es nicht; die nächste öffentliche barrierefreie Toilette liegt 150 Meter entfernt am Domplatz.",
             "Eine mobile Induktionsschleife gibt es an der Theke.",
             "Medien aus den oberen Geschossen holt das Personal auf Wunsch ins Erdgeschoss; Großdruckbücher stehen im Erdgeschoss."],
   anfahrt=["Haltestelle Domplatz der Stadtbahn Linien 1 und 3, etwa 5 Minuten Fußweg.",
            "Die Fußgängerzone ist nur für Anlieger befahrbar; die nächsten Parkplätze bietet das Parkhaus am Stadttor (400 Meter, 2 Euro je Stunde), zwei Behindertenparkplätze gibt es in der Nebenstraße hinter dem Haus.",
            "Fahrräder dürfen nur an den Bügeln am Ende der Gasse abgestellt werden."],
   garderobe=["Große Taschen und Rucksäcke bitte an der Garderobe im Erdgeschoss lassen; acht Schließfächer stehen zur Verfügung (kostenlos).",
              "Das Personal übt das Hausrecht aus."]),
 "suedpark": dict(
   zugang=["Der öffentliche Eingang liegt an der Ostseite; der Eingang für die Schule liegt auf dem Schulhof und ist für Besucherinnen und Besucher nicht geöffnet.",
           "Assistenzhunde und Blindenführhunde sind erlaubt; andere Tiere nicht."],
   barriere=["Das Gebäude ist vollständig barrierefrei: ebenerdiger Eingang mit automatischer Tür, ein Aufzug zur Galerie, breite Gänge zwischen den Regalen.",
             "Barrierefreie Toiletten gibt es auf beiden Ebenen, dazu eine Toilette für alle mit Liege und Lifter.",
             "Induktionsschleifen gibt es an der Theke und im Medienraum; ein Blindenleitsystem führt vom Eingang zu Theke, Aufzug und Toiletten.",
             "Im Medienraum kann eine Verdolmetschung in Gebärdensprache für Veranstaltungen bestellt werden (4 Wochen vorher)."],
   anfahrt=["Haltestelle Schulzentrum der Buslinien 6 und 16, 50 Meter; Haltestelle Parkring der Stadtbahn Linie 4, 400 Meter.",
            "Die Parkplätze des Schulzentrums sind nach 15 Uhr und samstags kostenlos für Besucherinnen und Besucher geöffnet; vier Behindertenparkplätze liegen am Eingang.",
            "Es gibt 150 Fahrradstellplätze am Schulzentrum."],
   garderobe=["Taschen dürfen mitgenommen werden. 60 Schließfächer stehen im Eingangsbereich (kostenlos, mit dem Ausweis).",
              "Das Personal übt das Hausrecht aus; in der Open Library ein Sicherheitsdienst."]),
 "buecherbus": dict(
   zugang=["Der Einstieg liegt an der Fronttür mit drei Stufen und einem Haltegriff.",
           "Assistenzhunde und Blindenführhunde dürfen mit ins Fahrzeug; andere Tiere nicht."],
   barriere=["Statt eines Aufzugs ist an der Hecktür ein Hublift für Rollstühle, Rollatoren und Kinderwagen bis 300 Kilogramm eingebaut; das Personal bedient ihn auf Wunsch.",
             "Eine Toilette gibt es im Fahrzeug nicht.",
             "Eine Induktionsschleife gibt es nicht; das Personal hilft beim Suchen und reicht Medien aus den oberen Regalen.",
             "Großdruckbücher und Hörbücher werden auf Wunsch zum nächsten Halt mitgebracht."],
   anfahrt=["Die Anfahrt richtet sich nach dem Fahrplan: die 26 Haltestellen liegen an Schulen, Kitas, Seniorenwohnanlagen und Ortsmitten, meist an einer Parkbucht oder einem Dorfplatz.",
            "An den Haltestellen gibt es in der Regel keine eigenen Parkplätze; Behindertenparkplätze sind nicht ausgewiesen.",
            "Eine Haltestelle kann auf Antrag einer Gemeinde, Schule oder Seniorenwohnanlage neu eingerichtet werden, wenn mindestens 25 aktive Ausweise in der Nähe sind."],
   garderobe=["Taschen dürfen mitgenommen werden; Schließfächer gibt es nicht.",
              "Das Personal übt das Hausrecht aus; bei Gedränge lässt es nur eine begrenzte Zahl von Personen gleichzeitig ins Fahrzeug."]),
}

def zu_sections(slug):
    d = ZU[slug]
    return [("Zugang und Eingang", d["zugang"]), ("Barrierefreiheit", d["barriere"]),
            ("Anfahrt", d["anfahrt"]), ("Taschen, Schließfächer und Hausrecht", d["garderobe"])]

# ---------------------------------------------------------------------------------------------
# Assembly
# ---------------------------------------------------------------------------------------------
BUILD = {
    "oeffnungszeiten": lambda slug: OEFF[slug],
    "arbeitsplaetze": pc_sections,
    "gruppenraeume": gr_sections,
    "kinder": ki_sections,
    "zugang": zu_sections,
}

SCOPE_3 = {
    "oeffnungszeiten": "Die Leihfristen, Gebühren und die Rückgabe von Fernleihen regeln die Allgemeine Benutzungsordnung und die Gebührenordnung der Stadtbibliothek Weidenau.",
    "arbeitsplaetze": "Die Allgemeine Benutzungsordnung und die Gebührenordnung der Stadtbibliothek Weidenau gelten ergänzend; die Nutzungsbedingungen für das WLAN werden bei der Anmeldung angezeigt.",
    "gruppenraeume": "Soweit hier nichts Besonderes geregelt ist, gilt die Allgemeine Benutzungsordnung der Stadtbibliothek Weidenau.",
    "kinder": "Die Regeln für Kinderausweise und die Einwilligung der Eltern stehen in der Allgemeinen Benutzungsordnung der Stadtbibliothek Weidenau.",
    "zugang": "Soweit hier nichts Besonderes geregelt ist, gilt die Allgemeine Benutzungsordnung der Stadtbibliothek Weidenau.",
}


def title(si, ji, site, thema):
    k = (si + ji) % 3
    if k == 0:
        return f"Benutzungsordnung und Serviceinformationen {site['name']} – {thema}"
    if k == 1:
        return f"{site['name']}: Serviceinformationen, Abschnitt {thema}"
    return f"{thema} – Benutzungsordnung {site['name']}"


def body(site, subj, thema):
    paras = [("Geltungsbereich", [
        f"Dieser Abschnitt „{thema}“ der Benutzungsordnung und Serviceinformationen gilt für {site['fuer']} der Stadtbibliothek Weidenau, {site['addr']}.",
        site["desc"],
        SCOPE_3[subj]])]
    paras += BUILD[subj](site["slug"])
    new, old = DATES[site["slug"]]
    if SHIFT[subj]:
        new = SHIFT[subj]
    paras.append(("Inkrafttreten", [
        f"Dieser Abschnitt tritt am {new} in Kraft.",
        f"Gleichzeitig tritt die Fassung vom {old} außer Kraft."]))
    out = []
    for n, (head, clauses) in enumerate(paras, 1):
        lines = [f"§ {n} {head}"]
        if len(clauses) == 1:
            lines.append(clauses[0])
        else:
            lines += [f"({i}) {c}" for i, c in enumerate(clauses, 1)]
        out.append("\n".join(lines))
    return "\n\n".join(out)


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    path = os.path.join(here, "bibliothek_corpus.jsonl")
    with open(path, "w", encoding="utf-8", newline="\n") as f:
        for si, site in enumerate(SITES):
            for ji, (subj, thema) in enumerate(SUBJECTS):
                doc = {
                    "uri": f"bo://{site['slug']}/{subj}",
                    "title": title(si, ji, site, thema),
                    "metadata": {"zweigstelle": site["name"], "thema": thema,
                                 "site_slug": site["slug"], "subject_slug": subj},
                    "body": body(site, subj, thema),
                }
                f.write(json.dumps(doc, ensure_ascii=False) + "\n")
    print(path)


if __name__ == "__main__":
    main()
