#!/usr/bin/env python3
"""Generator of corpus/klinik_corpus.jsonl (Domain I of tests/quality/SPEC.md).

40 documents: the sections of the "Hausordnung und Besucherinformation" of the eight sites of the
fictional Klinikverbund Lindental, five subjects each (Besuchszeiten und Begleitpersonen, Anfahrt
und Parken, Cafeteria/Kiosk/Verpflegung, WLAN/Telefon/Fernsehen am Bett, Unterbringung von
Angehörigen). Standard library only, no randomness: every figure is written out per site below,
so the output is the same on every run (whatever PYTHONHASHSEED).

The site is named in the title, the metadata and § 1 only; the later paragraphs speak of
"das Haus", "die Klinik", "der Standort". Every section of a subject uses the subject's shared
vocabulary; figures, times and details differ between the sites.

    python3 make_klinik_corpus.py      # rewrites klinik_corpus.jsonl beside this file
"""
import json
import os

GROUP = "Klinikverbund Lindental"
GROUP_GEN = "Klinikverbunds Lindental"

SITES = [
    {"slug": "mitte", "name": "Klinikum Lindental-Mitte (Haupthaus)",
     "fuer": "das Klinikum Lindental-Mitte (Haupthaus)",
     "addr": "Am Klinikum 1, 49970 Lindental",
     "desc": "Das Klinikum Lindental-Mitte ist mit rund 720 Betten das Haupthaus und größte Krankenhaus des Verbunds; hier liegen die Zentrale Notaufnahme, das Herzzentrum, das Perinatalzentrum und die meisten Fachabteilungen mit ihren Ambulanzen.",
     "date": "1. Februar 2026", "prev": "1. Juli 2023", "sign": "Die Krankenhausdirektion"},
    {"slug": "nord", "name": "Klinik Nord am Stadtwald",
     "fuer": "die Klinik Nord am Stadtwald",
     "addr": "Waldweg 40, 49972 Lindental",
     "desc": "Die Klinik Nord am Stadtwald ist ein Krankenhaus der Grund- und Regelversorgung mit 310 Betten in einem Pavillonbau am Waldrand; Schwerpunkte sind die Neurologie mit Stroke Unit, die Innere Medizin und die Urologie.",
     "date": "15. März 2026", "prev": "1. April 2022", "sign": "Die Klinikleitung"},
    {"slug": "suedstadt", "name": "Krankenhaus Südstadt",
     "fuer": "das Krankenhaus Südstadt",
     "addr": "Schillerstraße 112, 49975 Lindental",
     "desc": "Das Krankenhaus Südstadt hat 380 Betten in einem sanierten Altbau mit neuem Bettenhaus; Schwerpunkte sind die Geburtshilfe mit Kreißsaal, die Allgemein- und Viszeralchirurgie, die Gastroenterologie und die Onkologie mit Tagesklinik.",
     "date": "1. Januar 2026", "prev": "1. Oktober 2023", "sign": "Die Krankenhausleitung"},
    {"slug": "kinderklinik", "name": "Kinderklinik Sonnenhügel",
     "fuer": "die Kinderklinik Sonnenhügel",
     "addr": "Sonnenhügel 5, 49971 Lindental",
     "desc": "Die Kinderklinik Sonnenhügel versorgt mit 140 Betten Kinder und Jugendliche vom Frühgeborenen bis zum 18. Lebensjahr; zu ihr gehören die Kindernotaufnahme, die Kinderchirurgie, die Neonatologie und eine Klinikschule.",
     "date": "1. April 2026", "prev": "1. September 2024", "sign": "Die Klinikleitung und die Pflegedirektion"},
    {"slug": "bergfeld", "name": "Fachklinik für Orthopädie Bergfeld",
     "fuer": "die Fachklinik für Orthopädie Bergfeld",
     "addr": "Bergfelder Straße 20, 49978 Lindental-Bergfeld",
     "desc": "Die Fachklinik für Orthopädie Bergfeld ist mit 160 Betten auf Gelenkersatz, Wirbelsäulenchirurgie und Sportorthopädie spezialisiert; die meisten Patientinnen und Patienten kommen zu einer geplanten Operation.",
     "date": "1. Mai 2026", "prev": "1. Mai 2021", "sign": "Die Geschäftsführung der Fachklinik"},
    {"slug": "rosenau", "name": "Geriatrische Klinik Rosenau",
     "fuer": "die Geriatrische Klinik Rosenau",
     "addr": "Rosenauer Allee 9, 49976 Lindental-Rosenau",
     "desc": "Die Geriatrische Klinik Rosenau behandelt mit 120 Betten und einer Tagesklinik ältere Menschen mit mehreren Erkrankungen, nach Stürzen und Knochenbrüchen und mit Gedächtnisstörungen; das Haus ist ein umgebautes Gutshaus mit Park.",
     "date": "1. Juni 2026", "prev": "1. Juni 2022", "sign": "Die Chefärztin und die Pflegedienstleitung"},
    {"slug": "kurpark", "name": "Reha-Zentrum Am Kurpark",
     "fuer": "das Reha-Zentrum Am Kurpark",
     "addr": "Kurparkallee 2, 49979 Lindental",
     "desc": "Das Reha-Zentrum Am Kurpark bietet 200 stationäre und 60 ganztägig ambulante Plätze für orthopädische, kardiologische und neurologische Rehabilitation und Anschlussheilbehandlungen; der Aufenthalt dauert meist drei Wochen.",
     "date": "1. März 2026", "prev": "1. März 2024", "sign": "Die Verwaltungsdirektion"},
    {"slug": "mvz", "name": "Medizinisches Versorgungszentrum am Bahnhof",
     "fuer": "das Medizinische Versorgungszentrum am Bahnhof",
     "addr": "Bahnhofsplatz 3, 49970 Lindental",
     "desc": "Das MVZ – Medizinisches Versorgungszentrum am Bahnhof – behandelt ausschließlich ambulant: Praxen für Radiologie, Kardiologie, Gynäkologie und Chirurgie, ein ambulantes OP-Zentrum mit Aufwachraum und ein Dialysezentrum mit 24 Plätzen verteilen sich auf fünf Etagen eines Geschäftshauses.",
     "date": "1. Juli 2026", "prev": "1. Januar 2025", "sign": "Die ärztliche Leitung des MVZ"},
]

SUBJECTS = [
    ("besuch", "Besuchszeiten und Begleitpersonen"),
    ("anfahrt", "Anfahrt und Parken"),
    ("verpflegung", "Cafeteria, Kiosk und Verpflegung"),
    ("medien", "WLAN, Telefon und Fernsehen am Bett"),
    ("angehoerige", "Unterbringung von Angehörigen"),
]

TITLE_PATTERNS = [
    "Hausordnung und Besucherinformation {site} – {subject}",
    "{site}: Hausordnung und Besucherinformation, Abschnitt {subject}",
    "{subject} – Hausordnung {site}",
]


def geltung(site, subject, i):
    """§ 1: the only paragraph that names the site."""
    s1 = [
        f"Dieser Abschnitt „{subject}“ der Hausordnung und Besucherinformation gilt für {site['fuer']} des {GROUP_GEN}, {site['addr']}.",
        f"Die folgenden Regelungen zum Thema „{subject}“ gelten für {site['fuer']}, {site['addr']}, einen Standort des {GROUP_GEN}.",
        f"Für {site['fuer']} ({site['addr']}) regelt dieser Abschnitt der Hausordnung und Besucherinformation das Thema „{subject}“.",
    ][i % 3]
    s3 = [
        "Er ergänzt die Allgemeine Hausordnung des Klinikverbunds; bei Widersprüchen gehen die Anweisungen des Personals im Einzelfall vor.",
        "Die Allgemeine Hausordnung des Klinikverbunds gilt daneben fort. Den Anweisungen der Mitarbeiterinnen und Mitarbeiter ist Folge zu leisten.",
        "Ergänzend gilt die Allgemeine Hausordnung des Klinikverbunds; im Einzelfall entscheidet das diensthabende Personal.",
    ][(i + 1) % 3]
    return "§ {n} Geltungsbereich", [s1, site["desc"], s3]


def inkraft(site, i):
    text = [
        f"Dieser Abschnitt tritt am {site['date']} in Kraft und ersetzt die Fassung vom {site['prev']}. {site['sign']}.",
        f"Die Regelungen gelten ab dem {site['date']}; die bisherige Fassung vom {site['prev']} tritt gleichzeitig außer Kraft. {site['sign']}.",
    ][i % 2]
    return "§ {n} Inkrafttreten", [text]


# ---------------------------------------------------------------------------------------------
# Besuchszeiten und Begleitpersonen
# shared: Besuchszeiten, Ruhezeiten, Intensivstation, Begleitperson, Kinder unter 14 Jahren,
#         Infektionsschutz, Ausnahmen
# ---------------------------------------------------------------------------------------------
BESUCH = {
    "mitte": dict(
        zeiten=["Die allgemeinen Besuchszeiten auf den Normalstationen sind täglich von 10 bis 20 Uhr.",
                "Je Patientin oder Patient sind höchstens 2 Besucherinnen oder Besucher gleichzeitig im Zimmer erlaubt; in Mehrbettzimmern bitten wir, längere Besuche in den Aufenthaltsraum der Station oder in die Eingangshalle zu verlegen.",
                "Nach 20 Uhr ist der Zugang nur noch über den Nebeneingang an der Notaufnahme möglich; die Pforte fragt nach dem Ziel des Besuchs."],
        ruhe=["Die Mittagsruhe dauert von 13 bis 14:30 Uhr, die Nachtruhe beginnt um 21 Uhr.",
              "In den Ruhezeiten finden keine Besuche auf den Zimmern statt; Fernseher und Telefone sind leise zu stellen."],
        intensiv=["Auf der Intensivstation und der Intermediate-Care-Station sind Besuche von 15 bis 19 Uhr nach Anmeldung über die Klingel an der Stationstür möglich, höchstens 2 Personen gleichzeitig und in der Regel nicht länger als 30 Minuten.",
                  "Im Kreißsaal ist eine Begleitperson jederzeit willkommen; auf der Wochenstation gelten für Geschwisterkinder eigene Zeiten von 15 bis 18 Uhr."],
        begleit=["Eine Begleitperson kann Patientinnen und Patienten mit Demenz, einer geistigen Behinderung oder einem besonderen Unterstützungsbedarf auch außerhalb der Besuchszeiten begleiten, wenn die Stationsleitung zustimmt.",
                 "Zu Untersuchungen in der Notaufnahme darf in der Regel eine Begleitperson mitkommen; im Wartebereich stehen dafür 60 Sitzplätze zur Verfügung."],
        kinder=["Kinder unter 14 Jahren dürfen nur in Begleitung eines Erwachsenen zu Besuch kommen und sollen sich nicht länger als eine Stunde auf der Station aufhalten.",
                "Auf die Intensivstation dürfen Kinder unter 14 Jahren nur nach Rücksprache mit dem ärztlichen Dienst."],
        infekt=["Zum Infektionsschutz desinfizieren Besucherinnen und Besucher beim Betreten und Verlassen der Station die Hände; Spender hängen an jeder Stationstür.",
                "Wer an Fieber, Durchfall oder einer Erkältung leidet, verzichtet bitte auf den Besuch. Bei Patientinnen und Patienten in Isolierung sind Schutzkittel und Maske nach Einweisung durch die Pflege zu tragen.",
                "In Zeiten mit vielen Atemwegsinfektionen kann die Krankenhausleitung eine Maskenpflicht anordnen; sie wird am Eingang bekannt gegeben."],
        ausnahmen=["Ausnahmen von den Besuchszeiten sind bei schwerkranken und sterbenden Menschen jederzeit möglich; auf der Palliativstation gibt es keine festen Besuchszeiten.",
                   "Über weitere Ausnahmen entscheidet die Stationsleitung; sie kann Besuche auch einschränken, wenn der Zustand der Patientin oder des Patienten es erfordert."],
    ),
    "nord": dict(
        zeiten=["Besuche sind an allen Tagen von 11 bis 19:30 Uhr möglich.",
                "Es dürfen höchstens 2 Personen gleichzeitig eine Patientin oder einen Patienten besuchen.",
                "Der Haupteingang schließt um 19:30 Uhr; wer danach das Haus verlässt, benutzt die Tür neben der Pforte."],
        ruhe=["Zwischen 12:30 und 14 Uhr ist Mittagsruhe; die Nachtruhe gilt von 20 bis 6 Uhr.",
              "Auf der Stroke Unit werden in den Ruhezeiten auch keine Telefonate ins Zimmer durchgestellt."],
        intensiv=["Die Intensivstation und die Stroke Unit können von 14 bis 18 Uhr besucht werden, jeweils nur 1 Person zur gleichen Zeit und für höchstens 20 Minuten; bitte vorher über die Gegensprechanlage anmelden.",
                  "Blumen und Topfpflanzen sind auf der Intensivstation aus hygienischen Gründen nicht erlaubt."],
        begleit=["Eine Begleitperson kann für Patientinnen und Patienten nach einem Schlaganfall mit Sprachstörungen oder mit Demenz auch außerhalb der Besuchszeiten anwesend sein, wenn die Pflege dies für hilfreich hält.",
                 "Für die Begleitperson kann ein Ruhesessel ins Zimmer gestellt werden."],
        kinder=["Kinder unter 14 Jahren sind als Besucher willkommen, müssen aber von einer erwachsenen Person beaufsichtigt werden.",
                "Auf der Intensivstation und der Stroke Unit sind Kinder unter 14 Jahren nur in Ausnahmefällen und nach Absprache zugelassen."],
        infekt=["Der Infektionsschutz hat Vorrang: vor jedem Besuch die Hände desinfizieren, bei Erkältungszeichen zu Hause bleiben.",
                "Für Isolierzimmer gelten die Anweisungen an der Zimmertür; die Schutzkleidung wird nach dem Besuch im Zimmer abgelegt."],
        ausnahmen=["Ausnahmen von den Besuchszeiten vereinbaren Angehörige mit der Stationsleitung, zum Beispiel bei Berufstätigkeit im Schichtdienst oder bei weiter Anreise.",
                   "Bei sterbenden Patientinnen und Patienten ist die Anwesenheit der Angehörigen rund um die Uhr möglich."],
    ),
    "suedstadt": dict(
        zeiten=["Die Besuchszeiten sind täglich von 9 bis 20 Uhr.",
                "Bis zu 3 Besucherinnen und Besucher dürfen gleichzeitig bei einer Patientin oder einem Patienten sein; im Zweibettzimmer bitten wir um Rücksicht auf die Mitpatientin oder den Mitpatienten.",
                "In der onkologischen Tagesklinik ist während der Behandlung eine Person am Platz erlaubt."],
        ruhe=["Auf den chirurgischen Stationen gilt von 13 bis 15 Uhr eine Ruhezeit, auf den übrigen Stationen von 12:30 bis 14 Uhr; die Nachtruhe beginnt um 22 Uhr.",
              "Während der Visite am Vormittag werden Besucherinnen und Besucher gebeten, das Zimmer kurz zu verlassen."],
        intensiv=["Auf der Intensivstation sind Besuche von 16 bis 19 Uhr möglich, höchstens 2 Personen gleichzeitig, nach Anmeldung an der Stationstür.",
                  "Im Kreißsaal kann eine Begleitperson die Geburt rund um die Uhr begleiten; eine zweite Person, etwa eine Doula, nach Absprache mit der Hebamme."],
        begleit=["Auf der Wochenstation können Partnerinnen und Partner von 8 bis 21 Uhr bleiben; im Familienzimmer auch über Nacht.",
                 "Für Patientinnen und Patienten mit Demenz oder Behinderung ist eine Begleitperson ganztägig willkommen."],
        kinder=["Kinder unter 14 Jahren dürfen in Begleitung Erwachsener zu Besuch kommen; auf der Wochenstation sind nur die Geschwister des Neugeborenen zugelassen.",
                "Auf die Intensivstation dürfen Kinder unter 14 Jahren nicht."],
        infekt=["Zum Infektionsschutz gilt: Hände desinfizieren, keine Besuche mit Fieber, Husten oder Magen-Darm-Beschwerden, keine Schnittblumen in der Onkologie.",
                "Patientinnen und Patienten unter Chemotherapie sind besonders gefährdet; die Pflege kann hier das Tragen einer Maske verlangen."],
        ausnahmen=["Ausnahmen, etwa für Besuche am frühen Morgen oder späten Abend, sind nach Absprache mit der Stationsleitung möglich.",
                   "Bei Ausbrüchen von Infektionen kann die Krankenhausleitung die Besuchszeiten vorübergehend einschränken; Aushänge an den Eingängen informieren."],
    ),
    "kinderklinik": dict(
        zeiten=["Eltern und Sorgeberechtigte können ihr Kind rund um die Uhr besuchen und bei ihm bleiben.",
                "Für alle anderen Besucherinnen und Besucher, etwa Großeltern, Freunde und Verwandte, gelten die Besuchszeiten von 14 bis 19 Uhr; neben den Eltern höchstens 2 weitere Personen gleichzeitig.",
                "Bitte melden Sie sich beim ersten Besuch im Stationszimmer; die Eltern können eine Liste von Personen hinterlegen, die besuchen dürfen."],
        ruhe=["Von 12:30 bis 14:30 Uhr ist Mittagsruhe, damit die kleinen Patientinnen und Patienten schlafen können; ab 19:30 Uhr beginnt die Nachtruhe.",
              "In den Ruhezeiten bleiben die Spielzimmer geschlossen."],
        intensiv=["Auf der Kinderintensivstation und der Neugeborenen-Intensivstation dürfen Eltern jederzeit bei ihrem Kind sein; weitere Personen nur nach Absprache, höchstens 1 zusätzliche Person zur gleichen Zeit.",
                  "Vor dem Betreten der Intensivstation werden Hände und Unterarme desinfiziert; Schmuck an Händen und Armen ist abzulegen."],
        begleit=["Ein Elternteil kann als Begleitperson mit aufgenommen werden; bei Kindern unter 9 Jahren übernimmt die Krankenkasse in der Regel die Kosten.",
                 "Die Begleitperson übernimmt Teile der Versorgung, etwa Waschen und Füttern, nach Anleitung durch die Pflege."],
        kinder=["Kinder unter 14 Jahren, insbesondere Geschwister, sind willkommen, wenn sie gesund sind und in den letzten drei Wochen keinen Kontakt zu Windpocken, Masern oder Keuchhusten hatten.",
                "Geschwister werden von einem Erwachsenen begleitet und bleiben in der Regel nicht länger als eine Stunde."],
        infekt=["Der Infektionsschutz ist für kranke Kinder besonders wichtig: wer erkältet ist, Fieber oder Durchfall hat, bleibt bitte zu Hause.",
                "Mitgebrachte Kuscheltiere und Spielsachen sollen waschbar sein; Luftballons aus Latex sind wegen Allergien nicht erlaubt."],
        ausnahmen=["Ausnahmen von der Begrenzung der Besucherzahl sind bei schwer kranken Kindern nach Absprache mit dem Stationsteam möglich.",
                   "Bei Verdacht auf Kindeswohlgefährdung kann die Klinikleitung Besuche einzelner Personen untersagen."],
    ),
    "bergfeld": dict(
        zeiten=["Von Montag bis Freitag sind Besuche von 14 bis 20 Uhr möglich, an Samstagen, Sonntagen und Feiertagen von 11 bis 20 Uhr.",
                "Vormittags finden Physiotherapie, Visiten und Operationen statt; Besuche sind deshalb werktags vor 14 Uhr nicht vorgesehen.",
                "Je Patientin oder Patient dürfen 2 Personen gleichzeitig zu Besuch sein."],
        ruhe=["Die Mittagsruhe von 12 bis 14 Uhr dient der Erholung nach der Therapie; die Nachtruhe beginnt um 21:30 Uhr.",
              "Auf den Fluren und in den Zimmern ist während der Ruhezeiten Zimmerlautstärke einzuhalten."],
        intensiv=["Auf der Intensivstation mit Überwachungsbetten sind Besuche von 15 bis 18 Uhr möglich, höchstens 2 Personen gleichzeitig, nach Anmeldung über die Klingel.",
                  "Am Tag der Operation bitten wir, auf Besuche zu verzichten und sich telefonisch bei der Station zu erkundigen."],
        begleit=["Eine Begleitperson ist für Patientinnen und Patienten möglich, die wegen einer Behinderung oder Demenz Hilfe brauchen.",
                 "Angehörige können an der Gangschule und an Therapiestunden teilnehmen, wenn die Therapeutin oder der Therapeut zustimmt; das erleichtert die Versorgung nach der Entlassung."],
        kinder=["Kinder unter 14 Jahren dürfen in Begleitung Erwachsener zu Besuch kommen.",
                "In den Therapieräumen und im Bewegungsbad dürfen sich Kinder unter 14 Jahren aus Sicherheitsgründen nicht aufhalten."],
        infekt=["Zum Infektionsschutz, besonders nach dem Einsetzen eines künstlichen Gelenks, sind vor jedem Besuch die Hände zu desinfizieren; Besucherinnen und Besucher setzen sich nicht auf das Patientenbett.",
                "Wer erkältet ist oder eine offene Wunde hat, verschiebt den Besuch bitte; bei Patientinnen und Patienten mit multiresistenten Keimen weist die Pflege in die Schutzmaßnahmen ein."],
        ausnahmen=["Ausnahmen von den Besuchszeiten sind nach Absprache mit der Stationsleitung möglich, zum Beispiel für Angehörige, die von weit her anreisen.",
                   "In begründeten Fällen kann die Klinik Besuche einschränken."],
    ),
    "rosenau": dict(
        zeiten=["Besuche sind täglich von 10 bis 19:30 Uhr möglich; wir empfehlen die Nachmittage, weil am Vormittag die Therapien stattfinden.",
                "Bis zu 3 Personen dürfen gleichzeitig zu Besuch kommen; bei schönem Wetter laden Park und Terrasse zum gemeinsamen Aufenthalt ein.",
                "Wer mit der Patientin oder dem Patienten das Haus oder den Park verlassen möchte, meldet dies bitte im Stationszimmer an."],
        ruhe=["Die Mittagsruhe dauert von 12 bis 14 Uhr, die Nachtruhe von 20:30 bis 6:30 Uhr.",
              "Viele Patientinnen und Patienten hören schlecht oder ermüden schnell; kürzere Besuche mehrmals in der Woche sind oft angenehmer als ein langer."],
        intensiv=["Eine eigene Intensivstation gibt es in diesem Haus nicht; Patientinnen und Patienten, die eine intensivmedizinische Behandlung brauchen, werden in ein Akutkrankenhaus des Verbunds verlegt.",
                  "Die Überwachungseinheit mit 6 Betten kann von 15 bis 18 Uhr von 1 Person zur gleichen Zeit besucht werden."],
        begleit=["Für Menschen mit Demenz oder Delir ist eine vertraute Begleitperson ausdrücklich erwünscht, auch außerhalb der Besuchszeiten und auf Wunsch über Nacht (Rooming-in).",
                 "Angehörige sind eingeladen, an Mahlzeiten, Therapien und am Angehörigengespräch teilzunehmen; Termine vergibt die Station."],
        kinder=["Kinder unter 14 Jahren, zum Beispiel Enkelkinder, sind gern gesehen; sie werden von einem Erwachsenen begleitet.",
                "Im Spielbereich der Eingangshalle gibt es Malsachen und Bücher für Kinder."],
        infekt=["Infektionsschutz: ältere Menschen sind durch Grippe, Corona und Noroviren besonders gefährdet. Bitte kommen Sie nur gesund zu Besuch und desinfizieren Sie sich die Hände.",
                "In der Wintersaison empfiehlt die Klinik Besucherinnen und Besuchern das Tragen einer Maske auf den Stationen."],
        ausnahmen=["Ausnahmen von den Besuchszeiten sind nach Absprache jederzeit möglich, besonders bei sterbenden Patientinnen und Patienten und bei Menschen mit Demenz.",
                   "Bei einem Ausbruch von Noroviren auf einer Station können Besuche dort für einige Tage eingeschränkt werden."],
    ),
    "kurpark": dict(
        zeiten=["Besuche sind täglich von 10 bis 21 Uhr möglich, außerhalb der Therapiezeiten; der Therapieplan hängt im Zimmer aus.",
                "Die Zahl der Besucherinnen und Besucher ist nicht begrenzt; größere Besuchergruppen treffen sich bitte in der Cafeteria, im Foyer oder im Park.",
                "Rehabilitandinnen und Rehabilitanden können ihren Besuch im Haus und im Park empfangen; in den Therapieräumen sind Besucher nicht erlaubt."],
        ruhe=["Die Mittagsruhe dauert von 13 bis 14:30 Uhr; die Nachtruhe beginnt um 22 Uhr, das Haus wird um 22 Uhr abgeschlossen.",
              "Wer nach 22 Uhr zurückkehrt, klingelt am Nachteingang; wiederholtes spätes Heimkommen wird mit der Stationsleitung besprochen."],
        intensiv=["Eine Intensivstation gibt es im Haus nicht; bei einem medizinischen Notfall wird die Rehabilitandin oder der Rehabilitand in ein Akutkrankenhaus verlegt.",
                  "Für die neurologische Frührehabilitation mit 12 Betten gelten Besuchszeiten von 14 bis 19 Uhr, höchstens 2 Personen gleichzeitig."],
        begleit=["Eine Begleitperson kann während der Rehabilitation mit aufgenommen werden, wenn dies ärztlich notwendig ist, etwa bei schweren Sprachstörungen; die Kosten trägt dann der Kostenträger der Rehabilitation.",
                 "Angehörige können nach Absprache an Schulungen teilnehmen, zum Beispiel an der Ernährungsberatung oder am Training für die häusliche Versorgung."],
        kinder=["Kinder unter 14 Jahren sind als Besucher willkommen, müssen aber beaufsichtigt werden; Spielplatz und Minigolfanlage im Park stehen Familien offen.",
                "Das Bewegungsbad und die Trainingsräume sind für Kinder unter 14 Jahren nicht zugänglich."],
        infekt=["Zum Infektionsschutz bitten wir Besucherinnen und Besucher mit Infektzeichen, auf den Besuch zu verzichten; Desinfektionsspender stehen an allen Eingängen.",
                "Bei gehäuften Infektionen kann die Verwaltungsdirektion vorübergehend Besuche nur im Freien oder im Foyer zulassen."],
        ausnahmen=["Ausnahmen, zum Beispiel Besuche nach 21 Uhr, genehmigt die Stationsleitung.",
                   "Heimfahrten am Wochenende sind nur mit ärztlicher Zustimmung und Rücksprache mit dem Kostenträger möglich."],
    ),
    "mvz": dict(
        zeiten=["Da hier nur ambulant behandelt wird, gibt es keine Besuchszeiten im Sinne eines Krankenhauses; die Praxen sind Montag bis Freitag von 7:30 bis 18 Uhr, das Dialysezentrum von Montag bis Samstag von 6 bis 22 Uhr geöffnet.",
                "In den Wartebereichen darf jede Patientin und jeder Patient eine Begleitperson mitbringen; bei Platzmangel bitten wir Begleitpersonen, im Foyer im Erdgeschoss zu warten."],
        ruhe=["Ruhezeiten gelten im Aufwachraum des ambulanten OP-Zentrums und während der Dialyse: Telefonate, laute Gespräche und Musik ohne Kopfhörer sind dort nicht erlaubt.",
              "Im Aufwachraum ist Besuch nicht vorgesehen; die Begleitperson wird angerufen, sobald die Patientin oder der Patient abgeholt werden kann."],
        intensiv=["Eine Intensivstation gibt es nicht; Patientinnen und Patienten, die nach einem Eingriff überwacht werden müssen, werden in ein Krankenhaus des Verbunds verlegt.",
                  "Nach ambulanten Operationen in Narkose muss eine erwachsene Begleitperson die Patientin oder den Patienten abholen und in den ersten 24 Stunden erreichbar sein; eine Fahrt mit dem eigenen Auto oder allein mit dem Taxi ist nicht erlaubt."],
        begleit=["Bei der Dialyse kann eine Begleitperson beim ersten Termin und danach nach Absprache am Platz bleiben.",
                 "Für Patientinnen und Patienten, die eine Übersetzung brauchen, darf eine zusätzliche Person als Sprachmittler mitkommen."],
        kinder=["Kinder unter 14 Jahren dürfen in die Wartebereiche mitgebracht werden, wenn sie beaufsichtigt werden; in der Radiologie dürfen sie aus Strahlenschutzgründen nicht in die Untersuchungsräume.",
                "Eine Kinderbetreuung gibt es nicht; für Termine mit längerer Dauer bitten wir, eine Betreuung zu organisieren."],
        infekt=["Zum Infektionsschutz melden sich Patientinnen und Patienten mit Fieber oder ansteckenden Erkrankungen vor dem Termin telefonisch; Begleitpersonen mit Infektzeichen bleiben bitte zu Hause.",
                "Im Dialysezentrum ist auf Anordnung eine Maske zu tragen."],
        ausnahmen=["Ausnahmen, etwa eine zweite Begleitperson für Patientinnen und Patienten mit Behinderung, sind nach Absprache mit der jeweiligen Praxis möglich.",
                   "Das Praxispersonal kann Begleitpersonen bitten, den Untersuchungsraum zu verlassen."],
    ),
}


def besuch(site, i):
    d = BESUCH[site["slug"]]
    head_kind = ["Besuch von Kindern", "Kinder als Besucher", "Besuch mit Kindern"][i % 3]
    return [
        ("§ {n} Besuchszeiten", d["zeiten"]),
        ("§ {n} Ruhezeiten", d["ruhe"]),
        ("§ {n} Intensivstation und besondere Bereiche", d["intensiv"]),
        ("§ {n} Begleitpersonen", d["begleit"]),
        ("§ {n} " + head_kind, d["kinder"]),
        ("§ {n} Infektionsschutz", d["infekt"]),
        ("§ {n} Ausnahmen", d["ausnahmen"]),
    ]


# ---------------------------------------------------------------------------------------------
# Anfahrt und Parken
# shared: Anfahrt, Haltestelle, Buslinie, Parkplatz/Parkhaus, Parkgebühren, Tageshöchstsatz,
#         Behindertenparkplätze, Kurzzeitparken, Fahrrad, Taxi
# ---------------------------------------------------------------------------------------------
ANFAHRT = {
    "mitte": dict(
        oepnv=["Die Anfahrt mit Bus und Bahn wird empfohlen: Die Haltestelle „Klinikplatz“ vor dem Haupteingang bedienen die Buslinien 1, 4 und 12 tagsüber alle 10 Minuten, die Nachtbuslinie N2 stündlich.",
               "Vom Hauptbahnhof fährt die Buslinie 4 in 8 Minuten zur Haltestelle; zu Fuß sind es etwa 20 Minuten."],
        auto=["Mit dem Auto erfolgt die Anfahrt über die Lessingstraße; die Zufahrt ist ab der Stadtautobahn, Ausfahrt Zentrum/Kliniken, ausgeschildert.",
              "Die Zufahrt zur Notaufnahme ist Rettungswagen und Notfällen vorbehalten."],
        parken=["Das Parkhaus P1 mit 640 Stellplätzen ist rund um die Uhr geöffnet. Die Parkgebühren betragen 1,50 Euro je angefangene Stunde, der Tageshöchstsatz 12 Euro.",
                "Für Angehörige von Langzeitpatienten gibt es an der Pforte eine Wochenkarte für 30 Euro.",
                "Bezahlt wird an den Kassenautomaten im Erdgeschoss des Parkhauses bar, mit Karte oder mit dem Smartphone."],
        sonder=["20 Behindertenparkplätze befinden sich auf Ebene 0 des Parkhauses und 6 weitere direkt vor dem Haupteingang; mit Parkausweis für Schwerbehinderte ist das Parken dort kostenlos.",
                "In der Vorfahrt vor dem Haupteingang ist Kurzzeitparken zum Ein- und Aussteigen bis 15 Minuten erlaubt.",
                "Acht Ladesäulen für Elektroautos stehen auf Ebene 1; der Ladestrom wird gesondert abgerechnet."],
        rad=["Überdachte Fahrradständer für 150 Räder gibt es links vom Haupteingang, abschließbare Fahrradboxen gegen Gebühr an der Pforte.",
             "Der Taxistand liegt vor dem Haupteingang; eine Taxirufsäule verbindet direkt mit der Zentrale der Taxigenossenschaft."],
    ),
    "nord": dict(
        oepnv=["Mit öffentlichen Verkehrsmitteln ist die Anfahrt über die Buslinie 7 möglich, die montags bis samstags alle 20 Minuten, sonntags alle 40 Minuten an der Haltestelle „Waldfriedhof/Klinik“ hält.",
               "Von der Haltestelle sind es 5 Gehminuten auf einem beleuchteten Fußweg zum Haupteingang."],
        auto=["Mit dem Auto führt die Anfahrt über die Bundesstraße 214, Abfahrt Waldsiedlung, dann der Beschilderung folgen.",
              "Im Winter wird der Zufahrtsweg früh geräumt; bei Glatteis bitten wir um besondere Vorsicht."],
        parken=["Der Besucherparkplatz mit 280 Stellplätzen liegt gegenüber dem Haupteingang. Die ersten 30 Minuten sind frei, danach kostet jede angefangene Stunde 1 Euro, der Tageshöchstsatz beträgt 6 Euro.",
                "Parkscheine gibt es am Automaten an der Schranke; die Automaten nehmen Münzen und Karten.",
                "Auf der Zufahrtsstraße vor dem Haus ist das Parken nicht erlaubt, es wird abgeschleppt."],
        sonder=["12 Behindertenparkplätze befinden sich am Haupteingang und 4 am Eingang der Neurologie; das Parken dort ist mit Ausweis bis zu 4 Stunden kostenlos.",
                "Zum Bringen und Abholen gibt es eine Kurzzeitparkzone mit 10 Plätzen, Kurzzeitparken bis 20 Minuten kostenfrei."],
        rad=["Fahrradstellplätze stehen am Haupteingang und an der Cafeteria; über den Waldradweg ist das Haus vom Stadtzentrum in etwa 25 Minuten zu erreichen.",
             "Ein Taxi ruft die Pforte auf Wunsch; einen festen Taxistand gibt es nicht."],
    ),
    "suedstadt": dict(
        oepnv=["Die Straßenbahnlinien 2 und 5 halten an der Haltestelle „Körnerplatz“, 150 Meter vom Eingang entfernt; außerdem fährt die Buslinie 9 bis vor die Tür.",
               "Vom Hauptbahnhof erreicht man das Haus mit der Straßenbahnlinie 2 in 12 Minuten ohne Umsteigen."],
        auto=["Die Anfahrt mit dem Auto ist über die Körnerstraße nur aus Richtung Süden möglich, da der nördliche Teil eine Einbahnstraße ist.",
              "In den umliegenden Straßen gilt Bewohnerparken; Besucherinnen und Besucher finden dort kaum Plätze."],
        parken=["Die Tiefgarage unter dem neuen Bettenhaus hat 190 Stellplätze und ist von 6 bis 23 Uhr geöffnet. Die Parkgebühren betragen 2 Euro je angefangene Stunde, der Tageshöchstsatz 15 Euro.",
                "Für werdende Eltern gibt es im Kreißsaal eine Parkkarte für 5 Euro, die 48 Stunden gilt.",
                "Die Tiefgarage ist wegen der geringen Höhe von 2,10 Metern nicht für Transporter und Wohnmobile geeignet."],
        sonder=["Im ersten Untergeschoss der Tiefgarage sind 8 Behindertenparkplätze neben dem Aufzug; mit Parkausweis gilt ein ermäßigter Tageshöchstsatz von 5 Euro.",
                "Vor dem Haupteingang darf nur zum Ein- und Aussteigen gehalten werden; Kurzzeitparken ist dort bis 10 Minuten erlaubt.",
                "Für Patientinnen und Patienten der onkologischen Tagesklinik gibt die Anmeldung eine Ausfahrtskarte für 3 Euro je Behandlungstag aus."],
        rad=["Ein Fahrradparkhaus mit 80 Plätzen befindet sich an der Rückseite des Altbaus; Fahrräder dürfen nicht im Gebäude abgestellt werden.",
             "Taxis warten am Taxistand auf der gegenüberliegenden Straßenseite."],
    ),
    "kinderklinik": dict(
        oepnv=["Mit dem Bus ist die Anfahrt über die Linie 3 möglich, Haltestelle „Sonnenweg“, tagsüber alle 15 Minuten; von dort führt ein kinderwagengerechter Weg in 3 Minuten zum Eingang.",
               "Abends nach 20 Uhr fährt die Linie 3 nur noch halbstündlich."],
        auto=["Die Anfahrt mit dem Auto führt über die Ringstraße und die Hangstraße; der Weg zur Kindernotaufnahme ist rot ausgeschildert.",
              "Vor der Kindernotaufnahme gibt es 6 Kurzzeitparkplätze für Eltern, die mit einem kranken Kind kommen."],
        parken=["Der Eltern- und Besucherparkplatz hat 160 Stellplätze. Parkgebühren: 1 Euro je angefangene Stunde, Tageshöchstsatz 5 Euro.",
                "Eltern, deren Kind stationär aufgenommen ist, erhalten im Stationszimmer eine Elternparkkarte: 10 Euro für 7 Tage, bei Aufenthalten über 4 Wochen kostenlos.",
                "Die Schranke öffnet mit dem Parkticket; verlorene Tickets werden mit dem Tageshöchstsatz berechnet."],
        sonder=["10 Behindertenparkplätze und 8 breite Familienparkplätze mit Platz für Kinderwagen liegen direkt am Eingang.",
                "Kurzzeitparken an der Kindernotaufnahme ist auf 30 Minuten begrenzt; danach bitte auf den Besucherparkplatz umsetzen."],
        rad=["Fahrradständer und Abstellplätze für Lastenräder und Fahrradanhänger gibt es neben dem Haupteingang.",
             "Ein Taxi kann an der Information bestellt werden; für Kinder bis 12 Jahre halten die Taxiunternehmen auf Wunsch Kindersitze bereit."],
    ),
    "bergfeld": dict(
        oepnv=["Die Anfahrt mit öffentlichen Verkehrsmitteln erfolgt mit der Regionalbuslinie 620, die stündlich an der Haltestelle „Am Kreuzweg“ hält, etwa 400 Meter bergauf vom Eingang.",
               "Für Patientinnen und Patienten mit Gehhilfen fährt werktags zwischen 7 und 18 Uhr ein kostenloser Shuttlebus der Klinik alle 30 Minuten zwischen der Haltestelle und dem Eingang."],
        auto=["Mit dem Auto ist das Haus über die Landstraße 88 zu erreichen; im Ortskern weisen Schilder den Weg.",
              "Wer zur Operation kommt, lässt sich bitte bringen: nach dem Eingriff dürfen Patientinnen und Patienten mehrere Wochen nicht selbst Auto fahren."],
        parken=["Auf dem Klinikparkplatz stehen 220 Stellplätze zur Verfügung. Die Parkgebühren betragen 3 Euro pro Tag, ohne Staffelung nach Stunden.",
                "Das Tagesticket gibt es am Automaten neben der Einfahrt; es gilt bis Mitternacht.",
                "Das Dauerparken von Patientenfahrzeugen während des stationären Aufenthalts ist nicht gestattet."],
        sonder=["16 Behindertenparkplätze liegen vor dem Haupteingang; das Parken dort ist für Menschen mit Ausweis kostenlos.",
                "An der Vorfahrt ist Kurzzeitparken bis 15 Minuten erlaubt, damit Patientinnen und Patienten mit Gepäck und Gehstützen ein- und aussteigen können; Rollstühle stehen am Eingang bereit."],
        rad=["Fahrradstellplätze mit Ladepunkten für E-Bikes stehen neben der Einfahrt.",
             "Ein Taxi kann an der Pforte bestellt werden; die Krankenfahrt nach Hause muss vorher mit der Krankenkasse geklärt sein."],
    ),
    "rosenau": dict(
        oepnv=["Mit dem Bus ist die Anfahrt über die Linie 11 möglich, die alle 30 Minuten an der Haltestelle „Gutshof“ direkt vor dem Tor hält; die Haltestelle ist barrierefrei ausgebaut.",
               "Sonntags verkehrt die Linie 11 nur stündlich; ein Anrufsammeltaxi ergänzt den Fahrplan am Abend."],
        auto=["Die Anfahrt mit dem Auto erfolgt über die Allee; die Einfahrt befindet sich neben dem Torhaus.",
              "Der Weg vom Parkplatz zum Eingang ist eben und mit Bänken zum Ausruhen versehen."],
        parken=["Der Parkplatz hat 85 Stellplätze. Das Parken ist für Besucherinnen und Besucher bis 2 Stunden kostenlos, danach kosten jede angefangene Stunde 0,50 Euro; der Tageshöchstsatz beträgt 4 Euro.",
                "Die Parkscheibe ist gut sichtbar auszulegen; Parkscheine für längere Besuche gibt es an der Pforte.",
                "Angehörige, die täglich kommen, erhalten an der Pforte eine Monatskarte für 15 Euro."],
        sonder=["12 Behindertenparkplätze, davon 4 mit besonders breiten Flächen für Fahrzeuge mit Rampe, liegen neben dem Eingang.",
                "Kurzzeitparken zum Bringen und Abholen ist auf dem Vorplatz bis 20 Minuten erlaubt; die Pforte hält Rollstühle und Rollatoren zum Ausleihen bereit."],
        rad=["Fahrradstellplätze gibt es am Torhaus.",
             "Taxi: die Pforte bestellt auf Wunsch ein Taxi oder einen Fahrdienst für Rollstuhlfahrer."],
    ),
    "kurpark": dict(
        oepnv=["Die Anfahrt mit Bus und Bahn ist über den Hauptbahnhof möglich; von dort fährt die Buslinie 6 alle 20 Minuten zur Haltestelle „Kurhaus“, die 200 Meter vom Eingang entfernt liegt.",
               "Bei der Anreise zur Rehabilitation holt ein Shuttle Rehabilitandinnen und Rehabilitanden mit Gepäck nach Anmeldung kostenlos am Hauptbahnhof ab (Anmeldung bis 2 Tage vor Anreise)."],
        auto=["Mit dem Auto folgt man der Beschilderung „Kurgebiet“; im Kurgebiet gilt Tempo 30.",
              "Für die Anreise am ersten Tag gibt es vor dem Eingang Plätze zum Ausladen des Gepäcks."],
        parken=["Der Parkplatz hat 310 Stellplätze. Für Besucherinnen und Besucher kostet das Parken 1 Euro je angefangene Stunde, der Tageshöchstsatz beträgt 5 Euro.",
                "Rehabilitandinnen und Rehabilitanden, die mit dem eigenen Auto anreisen, können an der Rezeption eine Dauerparkkarte für 2 Euro am Tag erwerben, für die ganze Aufenthaltsdauer im Voraus zu zahlen.",
                "Ob das eigene Auto während der Rehabilitation gefahren werden darf, klärt die Ärztin oder der Arzt beim Aufnahmegespräch."],
        sonder=["18 Behindertenparkplätze befinden sich vor dem Eingang und am Therapiegebäude; mit Ausweis ist das Parken kostenlos.",
                "Kurzzeitparken vor dem Eingang ist bis 30 Minuten erlaubt, etwa zum Ein- und Ausladen bei An- und Abreise."],
        rad=["Fahrräder können in der Fahrradgarage am Therapiegebäude abgestellt werden; E-Bikes werden dort kostenlos geladen, Leihräder gibt es an der Rezeption für 5 Euro am Tag.",
             "Taxis halten vor dem Eingang; die Rezeption bestellt sie auf Wunsch."],
    ),
    "mvz": dict(
        oepnv=["Die Anfahrt mit Bus und Bahn wird dringend empfohlen: Der Hauptbahnhof liegt gegenüber, alle Stadtbuslinien und die Straßenbahnlinien 1, 2 und 5 halten an der Haltestelle „Busbahnhof“ vor dem Gebäude.",
               "Vom Bahnsteig sind es über die Fußgängerbrücke etwa 3 Minuten zu Fuß; der Eingang liegt an der Ostseite."],
        auto=["Mit dem Auto ist die Anfahrt über die Ringstraße möglich; eigene Parkplätze gibt es nicht.",
              "Zum Bringen und Abholen nach ambulanten Operationen darf die Ladezone im Hof angefahren werden (Einfahrt über die Poststraße)."],
        parken=["Das öffentliche Parkhaus „Bahnhof Ost“ mit 900 Stellplätzen ist durch einen Gang mit dem Gebäude verbunden. Es kostet 2,50 Euro je angefangene Stunde, der Tageshöchstsatz beträgt 18 Euro.",
                "Patientinnen und Patienten des Dialysezentrums erhalten an der Anmeldung ein Ausfahrticket für 2 Euro je Behandlung; für andere Patientinnen und Patienten gibt es keine Ermäßigung.",
                "Das Parkhaus wird nicht vom Klinikverbund betrieben; Beschwerden über das Parkhaus richten sich an den Betreiber."],
        sonder=["Im Parkhaus sind 14 Behindertenparkplätze auf Ebene 1, vom Aufzug direkt erreichbar.",
                "In der Ladezone im Hof ist Kurzzeitparken bis 10 Minuten erlaubt, nur zum Ein- und Aussteigen."],
        rad=["Die Fahrradstation am Hauptbahnhof bietet 600 bewachte Stellplätze; vor dem Gebäude gibt es 30 öffentliche Fahrradständer.",
             "Der Taxistand am Hauptbahnhof liegt 100 Meter vom Eingang entfernt."],
    ),
}


def anfahrt(site, i):
    d = ANFAHRT[site["slug"]]
    return [
        ("§ {n} Anfahrt mit Bus und Bahn", d["oepnv"]),
        ("§ {n} Anfahrt mit dem Auto", d["auto"]),
        ("§ {n} Parken und Parkgebühren", d["parken"]),
        ("§ {n} Behindertenparkplätze und Kurzzeitparken", d["sonder"]),
        ("§ {n} Fahrrad und Taxi", d["rad"]),
    ]


# ---------------------------------------------------------------------------------------------
# Cafeteria, Kiosk und Verpflegung
# shared: Cafeteria, Kiosk, Öffnungszeiten, Mittagstisch, Patientenverpflegung, Sonderkost,
#         Speisen mitbringen, Alkohol, Warenautomaten, Bezahlung
# ---------------------------------------------------------------------------------------------
VERPFLEGUNG = {
    "mitte": dict(
        cafe=["Die Cafeteria im Erdgeschoss der Eingangshalle ist Montag bis Freitag von 7 bis 19 Uhr, an Samstagen, Sonntagen und Feiertagen von 10 bis 18 Uhr geöffnet.",
              "Sie bietet 140 Sitzplätze innen und 60 auf der Terrasse, Frühstück, Kuchen, Salate und Snacks."],
        mittag=["Der Mittagstisch mit drei Gerichten, darunter immer ein vegetarisches, wird von 11:30 bis 14 Uhr angeboten; ein Gericht kostet für Besucherinnen und Besucher 7,90 Euro.",
                "Besucherinnen und Besucher können auch im Personalrestaurant im 1. Obergeschoss essen, zum Gästepreis von 8,50 Euro."],
        kiosk=["Der Kiosk neben der Pforte hat Montag bis Samstag von 7:30 bis 18 Uhr geöffnet, sonntags von 11 bis 17 Uhr; er führt Zeitungen, Zeitschriften, Hygieneartikel, Blumen und kleine Geschenke.",
               "Rund um die Uhr gibt es Warenautomaten für Getränke und Snacks in der Eingangshalle und im Wartebereich der Notaufnahme."],
        patienten=["Patientinnen und Patienten erhalten drei Mahlzeiten am Tag; das Mittagessen wählen sie am Vortag aus vier Menüs auf dem Tablet der Station.",
                   "Sonderkost wie diabetesgerechte, glutenfreie, laktosefreie oder pürierte Kost wird nach ärztlicher Anordnung oder nach Rücksprache mit der Diätassistenz angeboten; auch halal zubereitete Speisen sind auf Wunsch möglich."],
        mitbringen=["Mitgebrachte Speisen und Getränke bitte vorher mit der Pflege absprechen, da manche Patientinnen und Patienten nüchtern bleiben oder eine Diät einhalten müssen.",
                    "Für mitgebrachte Lebensmittel steht auf jeder Station ein Kühlschrank; die Lebensmittel sind mit Namen und Datum zu beschriften.",
                    "Alkohol ist im gesamten Haus nicht erlaubt, auch nicht in der Cafeteria."],
        zahlung=["In der Cafeteria und am Kiosk kann bar, mit Karte und kontaktlos mit dem Smartphone bezahlt werden; die Warenautomaten nehmen Münzen und Karten."],
    ),
    "nord": dict(
        cafe=["Die Cafeteria „Waldblick“ im Verbindungsbau ist täglich von 8 bis 18 Uhr geöffnet.",
              "Mit ihren 80 Plätzen und der Terrasse zum Wald ist sie auch ein beliebter Treffpunkt für Patientinnen und Patienten, die aufstehen dürfen."],
        mittag=["Von 11:30 bis 13:30 Uhr gibt es einen Mittagstisch mit zwei Gerichten für 7,20 Euro und eine Tagessuppe für 3,50 Euro.",
                "Am Wochenende ersetzt ein kleines warmes Angebot den Mittagstisch."],
        kiosk=["Einen eigenen Kiosk gibt es nicht; Zeitungen, Zahnbürsten, Ladekabel und andere Kleinigkeiten verkauft die Cafeteria an ihrer Theke.",
               "Warenautomaten für Getränke und Snacks stehen rund um die Uhr im Foyer."],
        patienten=["Die Patientenverpflegung umfasst Frühstück, Mittagessen und Abendessen; zwischendurch bietet die Station Tee, Wasser und Obst an.",
                   "Sonderkost für Menschen mit Schluckstörungen nach einem Schlaganfall wird in angepasster Konsistenz zubereitet; andere Sonderkost wie diabetesgerechte oder vegane Kost wird bei der Aufnahme angemeldet."],
        mitbringen=["Wer Speisen mitbringen möchte, fragt bitte vorher die Pflege: bei Schluckstörungen kann schon ein Stück Kuchen gefährlich sein.",
                    "Alkohol ist nicht gestattet; Energy-Drinks und koffeinhaltige Getränke nur nach Rücksprache."],
        zahlung=["Bezahlt wird in der Cafeteria bar oder mit Karte; am Wochenende nur bar, wenn das Kartenterminal nicht besetzt ist."],
    ),
    "suedstadt": dict(
        cafe=["Die Cafeteria im Erdgeschoss des Altbaus ist Montag bis Freitag von 7:30 bis 18:30 Uhr geöffnet, am Wochenende von 12 bis 17 Uhr.",
              "Sie bietet 90 Sitzplätze und einen Innenhof mit Brunnen."],
        mittag=["Der Mittagstisch von 11:30 bis 14 Uhr bietet ein Tagesgericht für 6,80 Euro, ein vegetarisches Gericht für 6,20 Euro und eine Salattheke nach Gewicht.",
                "Für Väter und Begleitpersonen auf der Wochenstation gibt es ein Frühstückspaket für 6 Euro, das am Vorabend im Stationszimmer bestellt wird."],
        kiosk=["Der Kiosk im Foyer des Bettenhauses ist Montag bis Freitag von 8 bis 17 Uhr geöffnet; er führt auch Babyartikel, Stilleinlagen und Glückwunschkarten.",
               "Warenautomaten für Getränke, Kaffee und Snacks stehen in jedem Stockwerk des Bettenhauses."],
        patienten=["Patientinnen und Patienten erhalten Frühstück, Mittagessen und Abendessen und wählen täglich aus drei Menülinien.",
                   "Sonderkost für Menschen unter Chemotherapie, nach Magen-Darm-Operationen und bei Nahrungsmittelunverträglichkeiten stellt die Diätküche nach Rücksprache mit der Ernährungsberatung zusammen."],
        mitbringen=["Mitgebrachte Speisen sind nach Rücksprache mit der Pflege erlaubt; in der Onkologie sollen wegen der Infektionsgefahr keine rohen Lebensmittel mitgebracht werden.",
                    "Alkohol ist im Haus nicht erlaubt; zur Geburt darf auf der Wochenstation mit alkoholfreiem Sekt angestoßen werden."],
        zahlung=["In Cafeteria und Kiosk wird bar oder mit Karte bezahlt; ab 5 Euro auch kontaktlos."],
    ),
    "kinderklinik": dict(
        cafe=["Die Cafeteria „Sonnenstube“ ist Montag bis Freitag von 8 bis 17 Uhr, samstags und sonntags von 11 bis 16 Uhr geöffnet.",
              "Sie hat 60 Plätze, eine Spielecke und Hochstühle; Kinderwagen können mitgebracht werden."],
        mittag=["Der Mittagstisch wird von 11:30 bis 14 Uhr angeboten: ein Tagesgericht für Erwachsene für 6,50 Euro, ein Kinderteller für 3,50 Euro.",
                "Eltern, die als Begleitperson aufgenommen sind, erhalten ihre Mahlzeiten auf der Station; sie sind im Tagessatz enthalten."],
        kiosk=["Einen Kiosk gibt es nicht; die Cafeteria verkauft Windeln, Spielsachen, Malbücher und Zeitschriften.",
               "In der Elternküche jeder Station können Eltern Getränke und kleine Speisen zubereiten; Warenautomaten stehen im Eingangsbereich."],
        patienten=["Die Kinder erhalten altersgerechte Mahlzeiten; für Säuglinge stellt die Milchküche Flaschennahrung bereit, stillende Mütter können im Stillzimmer Muttermilch abpumpen und kühlen lassen.",
                   "Sonderkost bei Allergien, Zöliakie, Diabetes oder Stoffwechselerkrankungen wird mit der Ernährungsberatung abgestimmt."],
        mitbringen=["Lieblingsspeisen von zu Hause sind nach Rücksprache mit der Pflege erlaubt; wegen der anderen Kinder bitte keine Nüsse und keine Süßigkeiten zum Verteilen mitbringen.",
                    "Alkohol ist auf dem gesamten Gelände verboten."],
        zahlung=["In der Cafeteria kann bar oder mit Karte bezahlt werden."],
    ),
    "bergfeld": dict(
        cafe=["Die Cafeteria mit Sonnenterrasse ist Montag bis Freitag von 9 bis 18 Uhr, am Wochenende von 13 bis 18 Uhr geöffnet.",
              "Die Wege zur Cafeteria sind eben und mit Handläufen versehen; es gibt hohe Stühle mit Armlehnen für Patientinnen und Patienten nach Hüftoperationen."],
        mittag=["Einen Mittagstisch für Besucherinnen und Besucher gibt es von 12 bis 13:30 Uhr: ein Gericht für 8,20 Euro, Essensmarken an der Kasse.",
                "Kuchen wird täglich selbst gebacken; sonntags gibt es ein Kuchenbuffet."],
        kiosk=["Ein Kiosk ist nicht vorhanden; die Cafeteria führt Zeitschriften, Hygieneartikel und Greifzangen.",
               "Warenautomaten stehen in der Eingangshalle und sind rund um die Uhr zugänglich."],
        patienten=["Es gibt drei Mahlzeiten; nach Operationen beginnt der Kostaufbau nach Anordnung.",
                   "Sonderkost wie diabetesgerechte, vegetarische, vegane oder glutenfreie Kost wird bei der Aufnahme angemeldet; eine Ernährungsberatung zur Gewichtsreduktion vor Gelenkoperationen ist auf Wunsch möglich."],
        mitbringen=["Mitgebrachte Speisen sind nach Rücksprache erlaubt; Kühlschränke stehen in den Aufenthaltsräumen.",
                    "Alkohol ist nicht erlaubt, auch nicht in kleinen Mengen, weil er mit Schmerz- und Gerinnungsmitteln zusammenwirken kann."],
        zahlung=["In der Cafeteria wird bar oder mit Karte bezahlt; Essensmarken gibt es nur an der Kasse."],
    ),
    "rosenau": dict(
        cafe=["Das Café im Gartensaal ist täglich von 10 bis 17 Uhr geöffnet und wird von der Klinikküche und ehrenamtlichen Helferinnen betrieben.",
              "Es hat 50 Plätze; an warmen Tagen wird auf der Terrasse zum Park bedient."],
        mittag=["Einen Mittagstisch für Gäste gibt es von 11:45 bis 13:30 Uhr: ein Menü mit Suppe und Nachtisch für 7 Euro; Angehörige können auch gemeinsam mit der Patientin oder dem Patienten im Speisesaal der Station essen, wenn sie das Essen am Vortag bestellen.",
                "Am Nachmittag gibt es Kaffee und Kuchen für 3,50 Euro."],
        kiosk=["Einen Kiosk gibt es nicht; Zeitungen und Hygieneartikel verkauft die Pforte.",
               "Ein Warenautomat mit Getränken steht im Eingangsbereich; heißes Wasser für Tee gibt es in jeder Stationsküche."],
        patienten=["Die Mahlzeiten werden gemeinsam im Speisesaal der Station eingenommen, wer nicht aufstehen kann, isst im Zimmer. Es gibt fünf Mahlzeiten, darunter eine Spätmahlzeit.",
                   "Sonderkost für Menschen mit Schluckstörungen, Diabetes oder Mangelernährung stellt die Küche nach Absprache mit der Logopädie und der Ernährungsberatung zusammen; Fingerfood-Menüs gibt es für Menschen mit Demenz."],
        mitbringen=["Angehörige dürfen gern Lieblingsspeisen mitbringen, wenn die Pflege zustimmt; viele Patientinnen und Patienten essen zu wenig, und Vertrautes hilft.",
                    "Alkohol ist nur nach ärztlicher Erlaubnis gestattet, etwa ein Glas Wein zu besonderen Anlässen."],
        zahlung=["Im Café wird nur bar bezahlt."],
    ),
    "kurpark": dict(
        cafe=["Die Cafeteria im Foyer ist täglich von 9 bis 20 Uhr geöffnet, das Bistro im Park von April bis Oktober zusätzlich von 12 bis 18 Uhr.",
              "Beide stehen Rehabilitandinnen und Rehabilitanden und Gästen offen."],
        mittag=["Für Besucherinnen und Besucher gibt es mittags von 12 bis 14 Uhr ein Gästeessen im Speisesaal für 9,50 Euro, mit Salatbuffet; bitte bis 10 Uhr an der Rezeption anmelden.",
                "Am Wochenende ist ein Gästefrühstück für 8 Euro möglich."],
        kiosk=["Der Kiosk an der Rezeption ist Montag bis Samstag von 8 bis 12 und 14 bis 18 Uhr geöffnet und führt Zeitungen, Sportbekleidung, Badeschuhe und Hygieneartikel.",
               "Warenautomaten stehen im Foyer und am Therapiegebäude."],
        patienten=["Rehabilitandinnen und Rehabilitanden essen im Speisesaal an festen Tischen: Frühstücksbuffet von 7 bis 9 Uhr, Mittagessen von 11:45 bis 13:30 Uhr mit drei Menüs zur Wahl, Abendessen von 17:30 bis 19 Uhr.",
                   "Sonderkost und kalorienreduzierte Kost nach ärztlicher Verordnung sind Teil der Therapie; Lehrküche und Ernährungsschulungen gehören zum Programm."],
        mitbringen=["Eigene Speisen dürfen in den Zimmern aufbewahrt werden; Kühlschränke gibt es in den Etagenküchen.",
                    "Alkohol ist während der Rehabilitation im gesamten Haus und auf dem Gelände nicht erlaubt; Verstöße können zur vorzeitigen Entlassung führen."],
        zahlung=["In Cafeteria, Bistro und Kiosk kann bar oder mit Karte bezahlt werden; Rehabilitandinnen und Rehabilitanden können auch auf die Zimmerrechnung schreiben lassen, die bei der Abreise an der Rezeption beglichen wird."],
    ),
    "mvz": dict(
        cafe=["Eine eigene Cafeteria gibt es nicht; im Erdgeschoss betreibt ein Bäcker ein Café, das Montag bis Freitag von 6:30 bis 18 Uhr geöffnet ist.",
              "Die Gastronomie im Hauptbahnhof gegenüber ist täglich bis spät abends geöffnet."],
        mittag=["Einen Mittagstisch gibt es im Haus nicht; das Café bietet belegte Brötchen, Suppen und Salate an.",
                "Nach einer ambulanten Operation reicht das Team im Aufwachraum Getränke und einen kleinen Imbiss, bevor die Patientin oder der Patient abgeholt wird."],
        kiosk=["Einen Kiosk gibt es nicht; im Hauptbahnhof sind Zeitungen und Lebensmittel erhältlich.",
               "Warenautomaten mit Wasser und Snacks stehen im Wartebereich des Dialysezentrums und im 2. Obergeschoss."],
        patienten=["Während der Dialyse erhalten Patientinnen und Patienten Getränke und einen kleinen Imbiss, abgestimmt auf die Trinkmengen- und Kaliumvorgaben.",
                   "Sonderkost wird nicht angeboten, da keine Mahlzeiten ausgegeben werden; die Ernährungsberatung des Dialysezentrums berät zu Diät und Trinkmenge."],
        mitbringen=["Eigene Speisen dürfen in den Wartebereichen verzehrt werden; vor Untersuchungen und Eingriffen, für die Nüchternheit verlangt ist, bitte nichts essen.",
                    "Alkohol ist in den Praxisräumen nicht erlaubt."],
        zahlung=["Das Café nimmt Bargeld und Karten; die Warenautomaten nur Münzen."],
    ),
}


def verpflegung(site, i):
    d = VERPFLEGUNG[site["slug"]]
    kiosk_head = ["Kiosk und Warenautomaten", "Kiosk, Einkäufe und Warenautomaten", "Kiosk und Automaten"][i % 3]
    return [
        ("§ {n} Cafeteria und Öffnungszeiten", d["cafe"]),
        ("§ {n} Mittagstisch und Gästeessen", d["mittag"]),
        ("§ {n} " + kiosk_head, d["kiosk"]),
        ("§ {n} Patientenverpflegung und Sonderkost", d["patienten"]),
        ("§ {n} Mitgebrachte Speisen und Alkohol", d["mitbringen"]),
        ("§ {n} Bezahlung", d["zahlung"]),
    ]


# ---------------------------------------------------------------------------------------------
# WLAN, Telefon und Fernsehen am Bett
# shared: WLAN, Zugangsdaten, Telefon, Fernsehen, Kopfhörer, Gebühren, Mobiltelefone,
#         Nachtruhe, Fotografieren, Datenschutz
# ---------------------------------------------------------------------------------------------
MEDIEN = {
    "mitte": dict(
        wlan=["Im ganzen Haus steht das kostenlose WLAN „Gast-WLAN“ zur Verfügung. Die Zugangsdaten sind nicht nötig: nach dem Verbinden werden die Nutzungsbedingungen bestätigt.",
              "Die Bandbreite ist auf 10 Mbit/s je Gerät begrenzt; Streaming in hoher Auflösung ist nicht möglich. Die Verbindung muss alle 24 Stunden neu bestätigt werden."],
        telefon=["Jedes Bett hat ein Telefon. Die Freischaltung erfolgt am Kassenautomaten in der Eingangshalle: Grundgebühr 2 Euro je Tag, Gespräche ins deutsche Festnetz kostenlos, in Mobilfunknetze 0,15 Euro je Minute, Pfand für die Karte 10 Euro.",
                 "Ankommende Gespräche sind kostenlos; die Durchwahl steht auf dem Beleg."],
        tv=["Fernsehen am Bett über den schwenkbaren Bildschirm am Bettplatz kostet 3 Euro je Tag; Telefon und Fernsehen zusammen 4 Euro je Tag.",
            "Kopfhörer sind Pflicht; sie sind am Kiosk und am Automaten für 3 Euro erhältlich, eigene Kopfhörer mit Klinkenstecker passen ebenfalls."],
        handy=["Mobiltelefone dürfen auf den Stationen benutzt werden. Auf der Intensivstation, im OP-Bereich und in den Untersuchungsräumen sind sie auszuschalten oder stummzuschalten.",
               "Während der Nachtruhe ab 21 Uhr bitte nur leise telefonieren, am besten im Aufenthaltsraum."],
        foto=["Fotografieren und Filmen anderer Patientinnen und Patienten und des Personals ist aus Gründen des Datenschutzes nicht erlaubt; Aufnahmen im eigenen Zimmer nur mit Zustimmung der Mitpatienten.",
              "Steckdosen am Bett dürfen zum Laden von Handy und Tablet genutzt werden; andere Elektrogeräte nur nach Prüfung durch die Haustechnik."],
    ),
    "nord": dict(
        wlan=["Das kostenlose Gäste-WLAN ist in den Patientenzimmern, im Foyer und in der Cafeteria verfügbar. Die Zugangsdaten stehen auf dem Informationsblatt im Zimmer und werden monatlich geändert.",
              "Im Pavillon C ist der Empfang wegen der dicken Wände schwach; im Aufenthaltsraum ist er besser."],
        telefon=["Das Telefon am Bett wird an der Pforte freigeschaltet: 1,50 Euro je Tag, Gespräche ins deutsche Festnetz und in deutsche Mobilfunknetze sind inklusive. Für die Telefonkarte wird ein Pfand von 5 Euro erhoben.",
                 "Auf der Stroke Unit gibt es keine Telefone am Bett; Angehörige erreichen die Station über die Zentrale."],
        tv=["Das Fernsehen am Bett ist kostenlos; der Bildschirm gehört zum Bettplatz.",
            "Kopfhörer sind zu benutzen; an der Pforte gibt es Einmal-Kopfhörer für 2 Euro."],
        handy=["Mobiltelefone sind erlaubt; auf der Intensivstation und der Stroke Unit bitte nur im Flüstermodus und stumm geschaltet.",
               "Während der Nachtruhe von 20 bis 6 Uhr sind Telefonate im Zimmer nicht gestattet."],
        foto=["Fotos und Videos von Mitpatienten und Mitarbeitenden sind verboten (Datenschutz und Persönlichkeitsrecht).",
              "Ladekabel für gängige Smartphones können an der Pforte gegen Pfand ausgeliehen werden."],
    ),
    "suedstadt": dict(
        wlan=["Im gesamten Gebäude gibt es kostenloses WLAN. Die Zugangsdaten erhalten Patientinnen und Patienten bei der Aufnahme, Besucherinnen und Besucher an der Information; sie gelten 7 Tage.",
              "Je Zugang können 2 Geräte verbunden werden; das Datenvolumen ist auf 5 Gigabyte am Tag begrenzt."],
        telefon=["Telefon am Bett: Freischaltung am Automaten im Foyer des Bettenhauses. Die Grundgebühr beträgt 1,90 Euro je Tag, Gespräche kosten 0,10 Euro je Einheit; das Pfand beträgt 10 Euro und wird bei Rückgabe der Karte erstattet.",
                 "Im Kreißsaal und auf der Intensivstation gibt es keine Patiententelefone."],
        tv=["Das Multimedia-Terminal am Bett bietet Fernsehen, Radio und Internet für 2,90 Euro je Tag; ein Paket mit Telefon kostet 3,90 Euro je Tag.",
            "Kopfhörer gibt es am Kiosk für 2,50 Euro; ohne Kopfhörer ist der Ton nicht zulässig."],
        handy=["Mobiltelefone dürfen benutzt werden, außer im Kreißsaal während der Geburt nach Absprache, auf der Intensivstation und in der onkologischen Tagesklinik während der Infusion.",
               "Ab 22 Uhr ist Nachtruhe; Telefonate bitte außerhalb des Zimmers führen."],
        foto=["Fotos vom eigenen Neugeborenen sind selbstverständlich erlaubt; andere Patientinnen, Patienten und Mitarbeitende dürfen nicht fotografiert werden (Datenschutz).",
              "Eine Babyfotografin bietet auf der Wochenstation zweimal in der Woche Fotos an; die Teilnahme ist freiwillig."],
    ),
    "kinderklinik": dict(
        wlan=["Das WLAN ist für Patientinnen, Patienten und Eltern kostenlos. Die Zugangsdaten bekommen die Eltern bei der Aufnahme; für Kinder unter 12 Jahren ist ein Jugendschutzfilter aktiv.",
              "Für die Klinikschule und Videoanrufe mit der Schulklasse kann die Station einen Zugang mit höherer Bandbreite freischalten."],
        telefon=["Telefone am Bett gibt es nur in den Zimmern für Jugendliche ab 12 Jahren; die Nutzung ist kostenlos, Gespräche ins Festnetz und in Mobilfunknetze sind frei.",
                 "Eltern erreichen die Station jederzeit über die Stationsnummer."],
        tv=["Fernsehen am Bett ist kostenlos; das Programm ist für Kinder und Jugendliche zusammengestellt, die Geräte schalten sich um 20 Uhr automatisch ab.",
            "Kinderkopfhörer leiht die Station aus; Spielkonsolen, Tablets und Filme können im Spielzimmer ausgeliehen werden."],
        handy=["Eigene Mobiltelefone und Tablets dürfen Kinder nach Absprache mit den Eltern nutzen; die Bildschirmzeit kann das Stationsteam begrenzen.",
               "In der Nachtruhe ab 19:30 Uhr sind Handys stumm zu schalten; auf der Intensivstation sind sie nur für Eltern erlaubt."],
        foto=["Eltern dürfen ihr eigenes Kind fotografieren; andere Kinder und deren Eltern dürfen nicht fotografiert oder gefilmt werden (Datenschutz).",
              "Das Veröffentlichen von Fotos aus der Klinik in sozialen Netzwerken, auf denen andere Kinder oder Mitarbeitende zu sehen sind, ist untersagt."],
    ),
    "bergfeld": dict(
        wlan=["Kostenloses WLAN gibt es in allen Zimmern und in der Cafeteria. Die Zugangsdaten stehen auf dem Aufsteller am Nachttisch; der Zugang gilt für die gesamte Aufenthaltsdauer.",
              "Videotelefonie ist möglich; bitte nehmen Sie Rücksicht auf Mitpatientinnen und Mitpatienten."],
        telefon=["Das Telefon am Bett wird an der Rezeption freigeschaltet: Grundgebühr 2,50 Euro je Tag, alle Gespräche ins deutsche Festnetz und Mobilfunknetz inklusive, Pfand 20 Euro.",
                 "Das Telefon ist auf dem Nachttisch so angebracht, dass es auch nach Operationen ohne Aufstehen erreichbar ist."],
        tv=["Fernsehen am Bett kostet 2,50 Euro je Tag; Telefon und Fernsehen zusammen 4 Euro je Tag, ab dem 15. Tag sind beide kostenlos.",
            "Kopfhörer sind an der Rezeption für 2 Euro erhältlich."],
        handy=["Mobiltelefone dürfen genutzt werden, außer während der Therapien, im Operationsbereich und auf der Intensivstation.",
               "Während der Nachtruhe ab 21:30 Uhr sind Handys leise zu stellen."],
        foto=["Fotografieren und Filmen von Mitpatienten, Personal und Therapiesituationen anderer ist aus Datenschutzgründen untersagt.",
              "Videos der eigenen Übungen darf die Therapeutin oder der Therapeut auf Wunsch mit dem eigenen Handy aufnehmen."],
    ),
    "rosenau": dict(
        wlan=["Ein kostenloses WLAN steht im Erdgeschoss, im Gartensaal und in den Zimmern des Neubaus zur Verfügung; im Altbau ist der Empfang nicht überall gut. Die Zugangsdaten gibt es an der Pforte.",
              "Ehrenamtliche „Digitalpaten“ helfen dienstags und donnerstags von 14 bis 16 Uhr beim Einrichten von Tablets und Videoanrufen mit der Familie."],
        telefon=["Das Telefon am Bett hat große Tasten und einen lauten Hörer. Es ist kostenlos; die Station schaltet es bei der Aufnahme frei.",
                 "Für Patientinnen und Patienten mit Demenz können Angehörige mit der Pflege feste Anrufzeiten vereinbaren."],
        tv=["Fernsehen gibt es im Aufenthaltsraum jeder Station und in den Zimmern; die Nutzung des Fernsehers im Zimmer kostet 1,50 Euro je Tag.",
            "Kopfhörer mit Lautstärkeregler für schwerhörige Menschen leiht die Station kostenlos aus."],
        handy=["Mobiltelefone sind erlaubt; bei Patientinnen und Patienten, die das Gerät nicht selbst bedienen können, hilft die Pflege beim Laden und Annehmen von Anrufen, soweit es die Zeit erlaubt.",
               "Die Nachtruhe beginnt um 20:30 Uhr; danach bitte keine Anrufe mehr auf das Zimmertelefon."],
        foto=["Fotografieren anderer Patientinnen und Patienten ist nicht erlaubt (Datenschutz); Familienfotos mit der eigenen Angehörigen sind willkommen.",
              "Für Hörgeräte, Brillen und Handys gibt es beschriftete Aufbewahrungsboxen am Bett."],
    ),
    "kurpark": dict(
        wlan=["Das WLAN im Haus ist für Rehabilitandinnen und Rehabilitanden in einer Grundversion kostenlos (2 Mbit/s); ein schnellerer Zugang mit 50 Mbit/s kostet 10 Euro für den gesamten Aufenthalt. Die Zugangsdaten gibt die Rezeption aus.",
              "Besucherinnen und Besucher nutzen das Gäste-WLAN im Foyer und in der Cafeteria, 2 Stunden am Tag kostenlos."],
        telefon=["Jedes Zimmer hat ein Telefon. Die Grundgebühr beträgt 1 Euro je Tag, Gespräche ins deutsche Festnetz sind frei, in Mobilfunknetze kosten sie 0,09 Euro je Minute; abgerechnet wird mit der Zimmerrechnung bei der Abreise.",
                 "Die Rezeption vermittelt Anrufe von 7 bis 21 Uhr; danach nur über die Durchwahl."],
        tv=["Fernsehen: jedes Zimmer hat ein Fernsehgerät mit Satellitenempfang; die Nutzung kostet 1,50 Euro je Tag oder 25 Euro pauschal für den ganzen Aufenthalt.",
            "Im Doppelzimmer sind nach 22 Uhr Kopfhörer zu benutzen; Kopfhörer gibt es am Kiosk für 4 Euro."],
        handy=["Mobiltelefone dürfen im Haus genutzt werden, nicht aber in Therapie- und Gruppenräumen und im Speisesaal; dort sind sie stummzuschalten.",
               "Die Nachtruhe beginnt um 22 Uhr."],
        foto=["In Therapieräumen, im Bewegungsbad und in der Sauna ist das Fotografieren wegen des Datenschutzes der anderen Rehabilitandinnen und Rehabilitanden verboten.",
              "Ladegeräte für Handy und Tablet sind erlaubt; eigene Wasserkocher und Heizlüfter nicht. Medizinische Geräte wie Heimbeatmungsgeräte prüft die Haustechnik bei der Anreise."],
    ),
    "mvz": dict(
        wlan=["In allen Wartebereichen gibt es kostenloses WLAN „Praxis-Gast“; nach dem Verbinden ist nur die Annahme der Nutzungsbedingungen nötig, die Sitzung endet nach 4 Stunden.",
              "Für Dialysepatientinnen und -patienten gibt die Anmeldung Zugangsdaten mit unbegrenzter Dauer aus, damit sie während der Behandlung streamen können."],
        telefon=["Telefone am Behandlungsplatz gibt es nicht, weil hier nur ambulant behandelt wird.",
                 "Für wichtige Anrufe, etwa um die Abholung nach einer ambulanten Operation zu organisieren, dürfen Patientinnen und Patienten das Telefon der Anmeldung nutzen."],
        tv=["An den 24 Dialyseplätzen hat jeder Platz einen eigenen Bildschirm mit Fernsehen und Radio, kostenlos; Kopfhörer werden gestellt, eigene Kopfhörer mit Bluetooth können gekoppelt werden.",
            "In den Wartebereichen zeigen Bildschirme Informationen und die Aufrufnummern."],
        handy=["Mobiltelefone sind in den Wartebereichen erlaubt, bitte lautlos; in den Untersuchungsräumen, im MRT-Bereich und im Aufwachraum sind sie auszuschalten.",
               "Im MRT-Bereich müssen Handys, Karten mit Magnetstreifen und Metallgegenstände in den Schließfächern vor dem Untersuchungsraum bleiben."],
        foto=["In den Praxen und Wartebereichen ist das Fotografieren und Filmen anderer Personen verboten (Datenschutz).",
              "Eigene Geräte wie Laptops dürfen in den Wartebereichen an den gekennzeichneten Steckdosen geladen werden; besondere Regeln gelten nur im MRT-Bereich."],
    ),
}


def medien(site, i):
    d = MEDIEN[site["slug"]]
    tv_head = ["Fernsehen am Bett", "Fernsehen und Radio", "Fernsehen und Kopfhörer"][i % 3]
    return [
        ("§ {n} WLAN und Zugangsdaten", d["wlan"]),
        ("§ {n} Telefon am Bett", d["telefon"]),
        ("§ {n} " + tv_head, d["tv"]),
        ("§ {n} Mobiltelefone und Nachtruhe", d["handy"]),
        ("§ {n} Fotografieren, Datenschutz und eigene Geräte", d["foto"]),
    ]


# ---------------------------------------------------------------------------------------------
# Unterbringung von Angehörigen
# shared: Unterbringung, Begleitperson, Übernachtung, Angehörigenzimmer/Gästezimmer, Preis pro
#         Nacht, Frühstück, Buchung/Reservierung, Kostenübernahme, Krankenkasse, Hotel
# ---------------------------------------------------------------------------------------------
ANGEHOERIGE = {
    "mitte": dict(
        angebot=["Für Angehörige von Patientinnen und Patienten stehen im Gästehaus auf dem Gelände 12 Gästezimmer zur Verfügung, davon 4 Doppelzimmer; alle mit eigenem Bad.",
                 "Die Unterbringung ist vor allem für Angehörige von Patientinnen und Patienten der Intensivstation, des Herzzentrums und der Palliativstation gedacht und für Familien von Frühgeborenen."],
        preise=["Die Übernachtung kostet im Einzelzimmer 49 Euro, im Doppelzimmer 69 Euro je Nacht, Frühstück 8,50 Euro je Person. Ab der 8. Nacht gibt es 20 Prozent Nachlass.",
                "Die Rechnung wird bei der Abreise an der Pforte bar oder mit Karte bezahlt."],
        begleit=["Ist eine Begleitperson aus medizinischen Gründen mit aufgenommen, etwa bei Menschen mit schwerer Behinderung, übernimmt die Krankenkasse die Kosten für Unterkunft und Verpflegung im Patientenzimmer; eine ärztliche Bescheinigung stellt die Station aus.",
                 "Ein Rooming-in ohne medizinische Begründung ist im Einbettzimmer als Wahlleistung für 45 Euro je Nacht möglich."],
        buchung=["Reservierungen nimmt die Pforte rund um die Uhr telefonisch unter der Durchwahl 04970 820-190 entgegen; die Zimmer werden nach Dringlichkeit vergeben, Angehörige von Schwerkranken haben Vorrang.",
                 "Stornierungen sind bis 18 Uhr am Anreisetag kostenlos."],
        weitere=["Sind alle Zimmer belegt, vermittelt die Pforte Zimmer im Partnerhotel „Am Stadtpark“ 600 Meter entfernt zum Klinikpreis von 75 Euro je Nacht einschließlich Frühstück.",
                 "Ein Aufenthaltsraum für Angehörige mit Kaffeeautomat und Ruhesesseln liegt neben der Intensivstation und ist rund um die Uhr zugänglich."],
    ),
    "nord": dict(
        angebot=["Eigene Gästezimmer gibt es nicht; für Angehörige von Patientinnen und Patienten der Stroke Unit und der Intensivstation stehen 2 Angehörigenzimmer mit Schlafsessel und Dusche auf der Station zur Verfügung.",
                 "Die Angehörigenzimmer werden nur für einzelne Nächte vergeben, wenn der Zustand der Patientin oder des Patienten es erfordert."],
        preise=["Die Nutzung der Angehörigenzimmer ist kostenlos; Frühstück kann für 6 Euro in der Cafeteria erworben werden.",
                "Für längere Aufenthalte vermittelt die Pforte Unterkünfte in der Umgebung."],
        begleit=["Wird eine Begleitperson aus medizinischen Gründen aufgenommen, zum Beispiel bei schwerer Demenz, stellt die Station ein Zustellbett in das Patientenzimmer; die Krankenkasse übernimmt die Kosten bei ärztlicher Begründung.",
                 "Ohne medizinische Notwendigkeit ist eine Begleitperson im Patientenzimmer nur im Einzelzimmer möglich: 40 Euro je Nacht mit Frühstück."],
        buchung=["Über die Vergabe der Angehörigenzimmer entscheidet die Stationsleitung; eine Reservierung im Voraus ist nicht möglich.",
                 "Zustellbetten für Begleitpersonen bitte bis 16 Uhr im Stationszimmer anmelden."],
        weitere=["Die Pension „Forsthaus“ und das Hotel „Waldrand“ in 2 Kilometern Entfernung gewähren Angehörigen mit einer Bescheinigung der Pforte 10 Prozent Ermäßigung.",
                 "Der Aufenthaltsraum im Foyer steht Angehörigen von 6 bis 22 Uhr offen."],
    ),
    "suedstadt": dict(
        angebot=["Auf der Wochenstation gibt es 6 Familienzimmer, in denen der Partner oder die Partnerin nach der Geburt mit übernachten kann. Für andere Angehörige stehen 3 Gästezimmer im 5. Stock des Bettenhauses bereit.",
                 "Die Gästezimmer sind vor allem für Angehörige von Patientinnen und Patienten der Onkologie und der Intensivstation gedacht."],
        preise=["Das Familienzimmer kostet 65 Euro je Nacht für die Begleitperson, einschließlich Frühstück und Abendessen. Ein Gästezimmer kostet 39 Euro je Nacht ohne Frühstück.",
                "Eine Übernachtung im Familienzimmer übernehmen manche Krankenkassen und Zusatzversicherungen; die Rechnung wird bei der Entlassung ausgestellt."],
        begleit=["Ist eine Begleitperson medizinisch notwendig, trägt die Krankenkasse die Kosten der Unterbringung im Patientenzimmer; die Ärztin oder der Arzt bescheinigt die Notwendigkeit.",
                 "Für Begleitpersonen von Patientinnen und Patienten mit geistiger Behinderung gibt es seit 2022 zusätzlich Krankengeld von der Krankenkasse; die Bescheinigung stellt die Patientenaufnahme aus."],
        buchung=["Familienzimmer werden bei der Anmeldung zur Geburt reserviert, eine Garantie gibt es nicht; die Vergabe erfolgt nach der Reihenfolge der Geburten.",
                 "Gästezimmer reserviert die Information im Foyer unter der Durchwahl 04970 820-390."],
        weitere=["Das Hotel „Körnerhof“ in der Nachbarschaft hält für Angehörige ein Kontingent zum Preis von 62 Euro je Nacht bereit.",
                 "Ein Elternraum mit Wickeltisch und Stillsessel liegt neben dem Kreißsaal."],
    ),
    "kinderklinik": dict(
        angebot=["Die Unterbringung eines Elternteils als Begleitperson im Zimmer des Kindes ist der Regelfall: jedes Patientenzimmer hat ein Eltern-Klappbett.",
                 "Für Familien, deren Kind lange behandelt wird, stehen im Elternhaus neben der Klinik 15 Apartments mit Küche zur Verfügung; es wird von einem Förderverein betrieben."],
        preise=["Bei Kindern unter 9 Jahren übernimmt die Krankenkasse die Kosten der Begleitperson in der Regel ohne weiteren Nachweis; bei älteren Kindern mit ärztlicher Bescheinigung. Ohne Kostenübernahme beträgt der Tagessatz 35 Euro mit Verpflegung (Frühstück, Mittag- und Abendessen).",
                "Im Elternhaus kostet die Übernachtung 20 Euro je Nacht und Apartment, unabhängig von der Zahl der Familienmitglieder; Familien mit geringem Einkommen zahlen nach Absprache weniger."],
        begleit=["Berufstätige Eltern erhalten für die Zeit der Mitaufnahme eine Bescheinigung für den Arbeitgeber und für das Kinderkrankengeld der Krankenkasse.",
                 "Geschwisterkinder können im Elternhaus mit übernachten, nicht aber im Patientenzimmer."],
        buchung=["Die Mitaufnahme eines Elternteils wird bei der Aufnahme des Kindes angemeldet; Apartments im Elternhaus reserviert die Elternhaus-Rezeption von 9 bis 17 Uhr unter der Durchwahl 04970 820-470.",
                 "Wartezeiten auf ein Apartment sind möglich; Familien von Frühgeborenen und schwer kranken Kindern haben Vorrang."],
        weitere=["Die Elternküche auf jeder Station, eine Waschmaschine im Elternhaus und ein Elterncafé mit Beratung durch den psychosozialen Dienst unterstützen Familien während des Aufenthalts.",
                 "Auf Wunsch vermittelt der Sozialdienst Zimmer im Hotel „Sonnenhof“, das Familien 15 Prozent Nachlass gibt."],
    ),
    "bergfeld": dict(
        angebot=["Für Angehörige gibt es 4 Gästezimmer im Verwaltungsgebäude, jeweils mit Dusche und WC; Haustiere sind nicht erlaubt.",
                 "Die Gästezimmer werden vor allem von Angehörigen genutzt, die von weit her zu einer geplanten Operation anreisen."],
        preise=["Die Übernachtung kostet 45 Euro je Nacht und Zimmer, Frühstück in der Cafeteria 7,50 Euro.",
                "Bezahlt wird bei der Abreise an der Rezeption."],
        begleit=["Eine Begleitperson kann im Patientenzimmer aufgenommen werden, wenn dies medizinisch notwendig ist, zum Beispiel bei Menschen mit Demenz; dann trägt die Krankenkasse die Kosten.",
                 "Sonst ist die Unterbringung einer Begleitperson im Patientenzimmer nur im Einbettzimmer möglich; sie kostet 50 Euro je Nacht mit Vollverpflegung."],
        buchung=["Gästezimmer können bis 4 Wochen im Voraus an der Rezeption unter der Durchwahl 04970 820-590 oder per E-Mail reserviert werden.",
                 "Kostenfreie Stornierung bis 3 Tage vor Anreise; danach wird eine Nacht berechnet."],
        weitere=["Im Ort gibt es zwei Gasthöfe und ein kleines Hotel mit Zimmern; die Rezeption gibt eine Liste mit Preisen aus.",
                 "Angehörige, die eine Patientin oder einen Patienten nach der Operation zu Hause versorgen werden, können an einer kostenlosen Pflegeschulung teilnehmen."],
    ),
    "rosenau": dict(
        angebot=["Die Unterbringung einer Begleitperson im Patientenzimmer (Rooming-in) ist für Angehörige von Menschen mit Demenz oder Delir ausdrücklich erwünscht; dafür stehen 10 Zimmer mit zweitem Bett zur Verfügung.",
                 "Zusätzlich gibt es 2 Gästezimmer im Torhaus."],
        preise=["Das Rooming-in ist für Angehörige kostenlos, wenn die Ärztin oder der Arzt die Begleitung für notwendig hält; die Krankenkasse übernimmt dann die Kosten. Sonst kostet es 30 Euro je Nacht mit Frühstück.",
                "Ein Gästezimmer im Torhaus kostet 35 Euro je Nacht; Frühstück gibt es im Café für 6 Euro."],
        begleit=["Angehörige, die im Rooming-in bleiben, können bei Mahlzeiten, Körperpflege und Therapien dabei sein und werden vom Team angeleitet.",
                 "Für berufstätige Angehörige stellt die Station eine Bescheinigung über die Begleitung aus."],
        buchung=["Rooming-in wird mit der Stationsleitung vereinbart, möglichst schon bei der Aufnahme; Gästezimmer reserviert die Pforte unter der Durchwahl 04970 820-690.",
                 "Die Vergabe erfolgt nach Dringlichkeit."],
        weitere=["Ein Angehörigenzimmer mit Sofa, Bücherregal und Teeküche im Erdgeschoss steht tagsüber allen Angehörigen offen.",
                 "Die Angehörigenberatung des Sozialdienstes bietet Gespräche zur Versorgung nach der Entlassung und zur Pflege zu Hause an.",
                   "Sind Rooming-in-Zimmer und Gästezimmer belegt, vermittelt die Pforte Zimmer im Hotel „Zur Linde“ im Ort für 55 Euro je Nacht mit Frühstück."],
    ),
    "kurpark": dict(
        angebot=["Angehörige können im Haus als Gäste in einem von 20 Gästezimmern wohnen oder im Doppelzimmer der Rehabilitandin oder des Rehabilitanden mit übernachten, wenn dieses frei ist.",
                 "Die Unterbringung von Angehörigen ist besonders an Wochenenden gefragt; bitte frühzeitig buchen."],
        preise=["Ein Gästezimmer kostet 58 Euro je Nacht einschließlich Frühstücksbuffet, mit Halbpension 72 Euro. Die Mitübernachtung im Zimmer der Rehabilitandin oder des Rehabilitanden kostet 38 Euro je Nacht mit Frühstück.",
                "Gäste können Schwimmbad und Sauna in den freien Zeiten für 5 Euro am Tag nutzen."],
        begleit=["Ist eine Begleitperson medizinisch notwendig, etwa bei Rehabilitandinnen und Rehabilitanden mit schweren neurologischen Ausfällen, übernimmt der Kostenträger der Rehabilitation (Rentenversicherung oder Krankenkasse) nach vorheriger Genehmigung die Kosten.",
                 "Den Antrag stellt die Rehabilitandin oder der Rehabilitand mit einer ärztlichen Bescheinigung vor der Anreise."],
        buchung=["Reservierungen nimmt die Rezeption täglich von 7 bis 21 Uhr unter der Durchwahl 04970 820-790 entgegen; die Zimmer sind für Angehörige reserviert, andere Gäste nur bei freien Kapazitäten.",
                 "Stornierung bis 2 Tage vor Anreise kostenfrei."],
        weitere=["Im Kurgebiet gibt es zahlreiche Hotels, Pensionen und Ferienwohnungen; die Rezeption gibt eine Liste aus.",
                 "Angehörige können an den Angehörigenseminaren am Samstagvormittag teilnehmen."],
    ),
    "mvz": dict(
        angebot=["Da hier nur ambulant behandelt wird, gibt es keine Unterbringung von Angehörigen im Haus und keine Gäste- oder Angehörigenzimmer.",
                 "Für Begleitpersonen von Patientinnen und Patienten, die zu einer ambulanten Operation oder Untersuchung von weit her anreisen, bestehen Vereinbarungen mit Hotels in der Nähe."],
        preise=["Das Hotel „Am Hauptbahnhof“ bietet Patientinnen, Patienten und Begleitpersonen Zimmer zum Preis von 79 Euro je Nacht im Einzelzimmer und 95 Euro im Doppelzimmer, jeweils mit Frühstück.",
                "Die Kosten trägt die Patientin oder der Patient selbst; eine Übernahme durch die Krankenkasse ist in der Regel nicht möglich."],
        begleit=["Die Begleitperson nach einer ambulanten Operation in Narkose muss die erste Nacht bei der Patientin oder dem Patienten bleiben; wer allein lebt, spricht dies bitte vorher an.",
                 "Kann niemand die Begleitung übernehmen, ist der Eingriff unter Umständen nur stationär in einem Krankenhaus des Verbunds möglich."],
        buchung=["Die Buchung erfolgt direkt beim Hotel mit dem Stichwort „Ambulante Behandlung“; die Anmeldung der Praxis hilft bei Bedarf.",
                 "Eine Reservierung über die Praxen ist nicht möglich."],
        weitere=["Während der Wartezeit können Begleitpersonen im Foyer warten oder die Gastronomie in der Nähe nutzen; die Praxis ruft an, wenn die Patientin oder der Patient abgeholt werden kann.",
                 "Für Dialysepatientinnen und -patienten auf Reisen (Feriendialyse) gibt es ein gesondertes Merkblatt."],
    ),
}


def angehoerige(site, i):
    d = ANGEHOERIGE[site["slug"]]
    return [
        ("§ {n} Unterbringung und Angebot", d["angebot"]),
        ("§ {n} Preise und Übernachtung", d["preise"]),
        ("§ {n} Begleitperson und Kostenübernahme", d["begleit"]),
        ("§ {n} Buchung und Reservierung", d["buchung"]),
        ("§ {n} Weitere Möglichkeiten für Angehörige", d["weitere"]),
    ]


BUILDERS = {"besuch": besuch, "anfahrt": anfahrt, "verpflegung": verpflegung,
            "medien": medien, "angehoerige": angehoerige}


def render(paragraphs):
    out = []
    for n, (head, clauses) in enumerate(paragraphs, start=1):
        lines = [head.format(n=n)]
        if len(clauses) == 1:
            lines.append(clauses[0])
        else:
            lines += [f"({k}) {c}" for k, c in enumerate(clauses, start=1)]
        out.append("\n".join(lines))
    return "\n\n".join(out)


def documents():
    docs = []
    for si, site in enumerate(SITES):
        for ti, (sslug, subject) in enumerate(SUBJECTS):
            i = si + ti
            paras = [geltung(site, subject, i)] + BUILDERS[sslug](site, si) + [inkraft(site, i)]
            title = TITLE_PATTERNS[(si + 2 * ti) % 3].format(site=site["name"], subject=subject)
            docs.append({
                "uri": f"kh://{site['slug']}/{sslug}",
                "title": title,
                "metadata": {"standort": site["name"], "thema": subject,
                             "site_slug": site["slug"], "subject_slug": sslug},
                "body": render(paras),
            })
    return docs


def main():
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "klinik_corpus.jsonl")
    with open(path, "w", encoding="utf-8") as f:
        for d in documents():
            f.write(json.dumps(d, ensure_ascii=False) + "\n")
    print(f"wrote {path}")


if __name__ == "__main__":
    main()
