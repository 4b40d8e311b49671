#!/usr/bin/env python3
"""Generator of corpus/hochschule_corpus.jsonl (tests/quality/SPEC.md, Domain E).

40 sections of examination regulations of the fictional Hochschule Nordstadt: 8 programmes x 5
subjects. The programme stands in the title, the metadata and § 1 (Geltungsbereich) only; the
other paragraphs use the subject's shared vocabulary, with figures and details from the
per-programme tables below. Wording varies per programme (several phrasings per paragraph,
optional paragraphs and sentences), chosen by a random.Random seeded with SEED and the key, so
every run writes the same file.

    python3 tests/quality/corpus/make_hochschule_corpus.py
"""
import json
import os
import random
import zlib

SEED = 20261202
OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "hochschule_corpus.jsonl")

# ------------------------------------------------------------------------------------------------
# Programmes
# ------------------------------------------------------------------------------------------------
P = {
    "informatik": dict(gen="des Fachbereichs Informatik und Medien", name="Informatik", degree="B.Sc.", level="Bachelor", kind="Bachelorstudiengang",
                       sem=7, ects=210, unit="Fachbereich Informatik und Medien", council="Fachbereichsrat",
                       po="12. Juli 2022", amb="Nr. 14/2022", start="Wintersemester 2022/23", chair="Prüfungsausschuss"),
    "bwl": dict(gen="des Fachbereichs Wirtschaft", name="Betriebswirtschaftslehre", degree="B.A.", level="Bachelor", kind="Bachelorstudiengang",
                sem=7, ects=210, unit="Fachbereich Wirtschaft", council="Fachbereichsrat",
                po="3. Februar 2021", amb="Nr. 4/2021", start="Sommersemester 2021", chair="Prüfungsausschuss"),
    "maschinenbau": dict(gen="des Fachbereichs Maschinenbau und Verfahrenstechnik", name="Maschinenbau", degree="B.Eng.", level="Bachelor", kind="Bachelorstudiengang",
                         sem=7, ects=210, unit="Fachbereich Maschinenbau und Verfahrenstechnik",
                         council="Fachbereichsrat", po="18. Mai 2023", amb="Nr. 11/2023",
                         start="Wintersemester 2023/24", chair="Prüfungsausschuss"),
    "psychologie": dict(gen="der Fakultät für Human- und Sozialwissenschaften", name="Psychologie", degree="B.Sc.", level="Bachelor", kind="Bachelorstudiengang",
                        sem=6, ects=180, unit="Fakultät für Human- und Sozialwissenschaften", council="Fakultätsrat",
                        po="9. Juni 2021", amb="Nr. 17/2021", start="Wintersemester 2021/22",
                        chair="Prüfungsausschuss"),
    "sozialearbeit": dict(gen="des Fachbereichs Sozialwesen", name="Soziale Arbeit", degree="B.A.", level="Bachelor", kind="Bachelorstudiengang",
                          sem=7, ects=210, unit="Fachbereich Sozialwesen", council="Fachbereichsrat",
                          po="25. Januar 2024", amb="Nr. 2/2024", start="Sommersemester 2024",
                          chair="Prüfungsausschuss"),
    "pflege": dict(gen="des Fachbereichs Gesundheit", name="Pflegewissenschaft", degree="B.Sc.", level="Bachelor",
                   kind="primärqualifizierenden Bachelorstudiengang", sem=7, ects=210,
                   unit="Fachbereich Gesundheit", council="Fachbereichsrat", po="30. August 2023",
                   amb="Nr. 19/2023", start="Wintersemester 2023/24", chair="Prüfungsausschuss"),
    "elektrotechnik": dict(gen="des Fachbereichs Elektrotechnik und Informationstechnik", name="Elektrotechnik", degree="M.Eng.", level="Master", kind="Masterstudiengang",
                           sem=3, ects=90, unit="Fachbereich Elektrotechnik und Informationstechnik",
                           council="Fachbereichsrat", po="14. Dezember 2022", amb="Nr. 27/2022",
                           start="Sommersemester 2023", chair="Masterprüfungsausschuss"),
    "germanistik": dict(gen="der Philosophischen Fakultät", name="Germanistik", degree="M.A.", level="Master", kind="Masterstudiengang",
                        sem=4, ects=120, unit="Philosophische Fakultät", council="Fakultätsrat",
                        po="7. Oktober 2020", amb="Nr. 22/2020", start="Wintersemester 2020/21",
                        chair="Prüfungsausschuss"),
}
ORDER = ["informatik", "bwl", "maschinenbau", "psychologie", "sozialearbeit", "pflege", "elektrotechnik", "germanistik"]

SUBJECTS = {
    "anmeldung": ("Prüfungsanmeldung und Rücktritt", "Prüfungsanmeldung und Rücktritt"),
    "wiederholung": ("Wiederholung von Prüfungen", "Wiederholung von Prüfungen"),
    "abschlussarbeit": ("Bachelor-/Masterarbeit", None),
    "praktikum": ("Praxissemester und Pflichtpraktikum", None),
    "anerkennung": ("Anerkennung von Studien- und Prüfungsleistungen", "Anerkennung von Studien- und Prüfungsleistungen"),
}

NUM = {1: "einen", 2: "zwei", 3: "drei", 4: "vier", 5: "fünf", 6: "sechs", 7: "sieben", 8: "acht",
       9: "neun", 10: "zehn", 12: "zwölf"}


def num(n):
    return NUM.get(n, str(n))


# ------------------------------------------------------------------------------------------------
# Per-programme figures of each subject
# ------------------------------------------------------------------------------------------------
EXTRA = {  # optional paragraphs per programme and subject
    "anmeldung": {"bwl", "psychologie", "pflege", "germanistik"},
    "wiederholung": {"informatik", "maschinenbau", "sozialearbeit", "germanistik"},
    "abschlussarbeit": {"informatik", "bwl", "maschinenbau", "elektrotechnik", "pflege"},
    "praktikum": {"informatik", "bwl", "maschinenbau", "elektrotechnik", "sozialearbeit"},
    "anerkennung": {"psychologie", "pflege", "elektrotechnik", "germanistik", "bwl"},
}
ANM = {  # period, withdrawal days before the exam, attest working days, official doctor from the nth time,
    # automatic registration for the repeat, disadvantage compensation weeks ahead, oral exam withdrawal days
    "informatik": dict(period="in der vierten bis sechsten Vorlesungswoche", rt=7, att=3, amt=2, auto=True, nta=4, oral=5, portal=True, max_pz=None),
    "bwl": dict(period="vom Beginn der dritten bis zum Ende der fünften Vorlesungswoche", rt=3, att=3, amt=3, auto=False, nta=6, oral=3, portal=True, max_pz=6),
    "maschinenbau": dict(period="in einem Zeitraum von vier Wochen nach Bekanntgabe durch den Prüfungsausschuss", rt=5, att=2, amt=None, auto=True, nta=3, oral=7, portal=True, max_pz=None),
    "psychologie": dict(period="bis spätestens 28 Tage vor Beginn des Prüfungszeitraums", rt=10, att=5, amt=2, auto=False, nta=4, oral=10, portal=True, max_pz=5),
    "sozialearbeit": dict(period="in der fünften und sechsten Vorlesungswoche", rt=2, att=4, amt=3, auto=True, nta=5, oral=2, portal=False, max_pz=None),
    "pflege": dict(period="bis spätestens sechs Wochen vor dem Prüfungstermin", rt=14, att=3, amt=None, auto=True, nta=6, oral=14, portal=False, max_pz=4),
    "elektrotechnik": dict(period="bis zum Ende der siebten Vorlesungswoche", rt=1, att=2, amt=2, auto=False, nta=3, oral=1, portal=True, max_pz=None),
    "germanistik": dict(period="in den ersten vier Wochen der Vorlesungszeit", rt=4, att=5, amt=3, auto=False, nta=4, oral=7, portal=True, max_pz=None),
}
WDH = {  # repeats allowed, deadline for the repeat, Freiversuch (None or max count), oral supplementary exam (times, minutes),
    # repeats of the thesis, hardship fourth attempt, elective module may be swapped n times
    "informatik": dict(rep=2, frist="spätestens im Prüfungszeitraum des übernächsten Semesters", fv=3, erg=(3, 20), thesis=1, haerte=True, wahl=2),
    "bwl": dict(rep=2, frist="innerhalb von zwölf Monaten nach Bekanntgabe des Ergebnisses", fv=None, erg=(2, 15), thesis=1, haerte=False, wahl=1),
    "maschinenbau": dict(rep=3, frist="innerhalb von drei Semestern nach dem ersten Versuch", fv=4, erg=(4, 20), thesis=1, haerte=False, wahl=3),
    "psychologie": dict(rep=2, frist="im unmittelbar folgenden Prüfungszeitraum", fv=2, erg=(2, 30), thesis=1, haerte=True, wahl=None),
    "sozialearbeit": dict(rep=3, frist="innerhalb von 18 Monaten nach dem ersten Versuch", fv=None, erg=(3, 15), thesis=1, haerte=True, wahl=2),
    "pflege": dict(rep=2, frist="spätestens sechs Monate nach dem nicht bestandenen Versuch", fv=None, erg=(1, 30), thesis=1, haerte=False, wahl=None),
    "elektrotechnik": dict(rep=1, frist="im nächsten regulären Prüfungszeitraum", fv=2, erg=(2, 20), thesis=1, haerte=True, wahl=1),
    "germanistik": dict(rep=2, frist="innerhalb von 24 Monaten nach dem ersten Versuch", fv=2, erg=(2, 25), thesis=1, haerte=False, wahl=2),
}
ABS = {  # admission credits, processing weeks, credits, pages, extension weeks, colloquium minutes (None = none),
    # printed copies, return of the topic within weeks, group work, assessment weeks
    "informatik": dict(zul=165, wochen=12, cp=12, seiten=(40, 60), verl=4, kol=30, kolcp=3, druck=0, rueck=2, gruppe=True, bew=6),
    "bwl": dict(zul=150, wochen=10, cp=12, seiten=(35, 50), verl=3, kol=None, kolcp=None, druck=2, rueck=3, gruppe=False, bew=8),
    "maschinenbau": dict(zul=170, wochen=14, cp=12, seiten=(50, 70), verl=4, kol=45, kolcp=3, druck=2, rueck=4, gruppe=True, bew=6),
    "psychologie": dict(zul=120, wochen=8, cp=12, seiten=(30, 40), verl=2, kol=20, kolcp=None, druck=1, rueck=2, gruppe=False, bew=4),
    "sozialearbeit": dict(zul=160, wochen=11, cp=10, seiten=(40, 50), verl=3, kol=None, kolcp=None, druck=2, rueck=3, gruppe=True, bew=8),
    "pflege": dict(zul=180, wochen=9, cp=12, seiten=(35, 45), verl=4, kol=30, kolcp=2, druck=0, rueck=2, gruppe=False, bew=6),
    "elektrotechnik": dict(zul=45, wochen=22, cp=27, seiten=(60, 90), verl=6, kol=45, kolcp=3, druck=3, rueck=4, gruppe=False, bew=8),
    "germanistik": dict(zul=60, wochen=26, cp=25, seiten=(80, 100), verl=8, kol=60, kolcp=5, druck=2, rueck=6, gruppe=False, bew=10),
}
PRA = {  # form, semester, duration, credits, admission credits, report pages, place examples, abroad, absence days
    "informatik": dict(form="Praxissemester", sem="im sechsten Semester", dauer="20 Wochen mit mindestens 95 Arbeitstagen",
                       cp=30, zul=90, bericht="15 bis 20 Seiten", ort="einem Unternehmen, einer Behörde oder einer Forschungseinrichtung mit Aufgaben der Softwareentwicklung oder des IT-Betriebs",
                       ausland=True, fehl=5, vor=None, begleit="ein begleitendes Seminar mit Abschlusspräsentation"),
    "bwl": dict(form="Praxissemester", sem="im fünften Semester", dauer="22 Wochen in Vollzeit",
                cp=30, zul=80, bericht="etwa 20 Seiten", ort="einem Unternehmen, einer Verwaltung oder einer Non-Profit-Organisation, in dem betriebliche Aufgaben in Controlling, Marketing, Personal oder Finanzen anfallen",
                ausland=True, fehl=10, vor=None, begleit="zwei Reflexionsgespräche mit der betreuenden Lehrkraft"),
    "maschinenbau": dict(form="Praxissemester", sem="im siebten Semester vor der Bachelorarbeit", dauer="18 Wochen",
                         cp=24, zul=120, bericht="12 bis 15 Seiten", ort="einem Industriebetrieb mit Konstruktion, Fertigung, Versuch oder Instandhaltung",
                         ausland=True, fehl=5, vor=8, begleit="Besuche einer Lehrkraft der Hochschule in der Praktikumsstelle und eine Präsentation im Kolloquium der Praxisphase"),
    "psychologie": dict(form="Pflichtpraktikum", sem="ab dem dritten Semester", dauer="acht Wochen mit insgesamt 320 Stunden, teilbar in zwei Abschnitte von mindestens vier Wochen",
                        cp=12, zul=60, bericht="8 bis 10 Seiten", ort="einer Klinik, einer Beratungsstelle, einer Rehabilitationseinrichtung oder einem Unternehmen mit diagnostischen oder beratenden Aufgaben",
                        ausland=True, fehl=3, vor=None, begleit="eine Anleitung durch eine approbierte oder einschlägig qualifizierte Fachkraft"),
    "sozialearbeit": dict(form="Praxissemester", sem="im vierten Semester", dauer="100 Arbeitstage mit mindestens 800 Stunden",
                          cp=30, zul=60, bericht="20 bis 25 Seiten", ort="einer Einrichtung eines öffentlichen oder freien Trägers der Kinder- und Jugendhilfe, der Eingliederungshilfe oder der Sozialverwaltung",
                          ausland=True, fehl=10, vor=None, begleit="sechs Sitzungen Gruppensupervision an der Hochschule und die Anleitung durch eine Fachkraft mit mindestens zwei Jahren Berufserfahrung"),
    "pflege": dict(form="Praxiseinsätze", sem="in allen Semestern", dauer="insgesamt 2.300 Stunden, aufgeteilt in Orientierungseinsatz, Pflichteinsätze, Vertiefungseinsatz und weitere Einsätze",
                   cp=50, zul=None, bericht="je Einsatz ein Reflexionsbericht von 5 bis 8 Seiten", ort="Krankenhäusern, stationären Langzeiteinrichtungen und ambulanten Diensten, mit denen die Hochschule einen Kooperationsvertrag geschlossen hat",
                   ausland=False, fehl=10, vor=None, begleit="eine Praxisanleitung im Umfang von mindestens zehn Prozent der Einsatzzeit und eine Praxisbegleitung durch Lehrende der Hochschule"),
    "elektrotechnik": dict(form="Industrieprojekt", sem="im zweiten Semester", dauer="zwölf Wochen",
                           cp=15, zul=20, bericht="etwa 15 Seiten", ort="einem Unternehmen oder Forschungsinstitut der Energie-, Automatisierungs- oder Kommunikationstechnik",
                           ausland=True, fehl=5, vor=None, begleit="die fachliche Begleitung durch eine Professorin oder einen Professor und einen Vortrag von 20 Minuten im Projektseminar"),
    "germanistik": dict(form="Berufsfeldpraktikum", sem="nach dem ersten Semester, auch in der vorlesungsfreien Zeit", dauer="sechs Wochen mit mindestens 240 Stunden",
                        cp=10, zul=None, bericht="12 bis 15 Seiten", ort="einem Verlag, einer Redaktion, einem Archiv, einer Bibliothek, einer Kultureinrichtung oder einer Bildungseinrichtung",
                        ausland=True, fehl=3, vor=None, begleit="regelmäßige Rücksprachen und ein Abschlussgespräch mit der betreuenden Lehrkraft"),
}
ANE = {  # application deadline, decision weeks, max credits for non-university competences, min credits per semester abroad,
    # recognised credits per semester counted, fee, thesis excluded
    "informatik": dict(frist="bis zum Ende des ersten Semesters nach der Einschreibung", woche=6, ausser=90, ausland=20, sem=30, gebuehr=None),
    "bwl": dict(frist="innerhalb von sechs Wochen nach Vorlesungsbeginn des ersten Fachsemesters", woche=4, ausser=60, ausland=25, sem=30, gebuehr=None),
    "maschinenbau": dict(frist="vor der ersten Anmeldung zu einer Prüfung des betreffenden Moduls", woche=8, ausser=45, ausland=20, sem=30, gebuehr=None),
    "psychologie": dict(frist="bis zum 15. November des ersten Studienjahres im Wintersemester beziehungsweise bis zum 15. Mai im Sommersemester", woche=5, ausser=30, ausland=24, sem=30, gebuehr=None),
    "sozialearbeit": dict(frist="spätestens bis zum Ende des zweiten Fachsemesters", woche=10, ausser=75, ausland=20, sem=30, gebuehr=None),
    "pflege": dict(frist="mit der Einschreibung, spätestens vier Wochen nach Vorlesungsbeginn", woche=12, ausser=105, ausland=15, sem=30, gebuehr=None),
    "elektrotechnik": dict(frist="innerhalb von vier Wochen nach der Einschreibung", woche=3, ausser=30, ausland=25, sem=30, gebuehr=None),
    "germanistik": dict(frist="bis zur Anmeldung der letzten Modulprüfung vor der Masterarbeit", woche=7, ausser=20, ausland=20, sem=30, gebuehr=None),
}


def rng_for(key):
    return random.Random(SEED + zlib.crc32(key.encode()))


def pick(r, *options):
    return r.choice(options)


# ------------------------------------------------------------------------------------------------
# Shared parts
# ------------------------------------------------------------------------------------------------
def preamble(p, r, subject_title):
    law = pick(r, "§ 52 Absatz 1 des Hochschulgesetzes (HSG)", "§ 52 Abs. 1 HSG", "§ 52 Absatz 1 in Verbindung mit § 22 Absatz 4 des Hochschulgesetzes")
    return pick(r,
                f"Aufgrund von {law} hat der {p['council']} am {p['po']} die folgende Ordnung beschlossen (Auszug: {subject_title}).",
                f"Der {p['council']} hat aufgrund von {law} am {p['po']} die nachstehende Satzung erlassen; sie wurde vom Präsidium genehmigt.",
                f"Auf der Grundlage von {law} erlässt die Hochschule Nordstadt nach Beschluss des {p['council'].replace('rat', 'rates')} vom {p['po']} die folgende Prüfungsordnung (Auszug).")


def geltung(p, r, what):
    full = f"{p['name']} ({p['degree']})"
    s = pick(r,
             f"Dieser Abschnitt der Studien- und Prüfungsordnung gilt für den {p['kind']} {full} im {p['unit']} der Hochschule Nordstadt. Er regelt {what}.",
             f"Die folgenden Bestimmungen gelten für alle Studierenden des {p['kind'].replace('studiengang', 'studiengangs').replace('primärqualifizierenden', 'primärqualifizierenden')} {full} an der Hochschule Nordstadt ({p['unit']}) und regeln {what}.",
             f"Diese Ordnung regelt {what} im {p['kind']} {full} der Hochschule Nordstadt; zuständig ist der {p['chair']} {p['gen']}.")
    s += " " + pick(r,
                    f"Die Regelstudienzeit beträgt {num(p['sem'])} Semester mit {p['ects']} Leistungspunkten (ECTS).",
                    f"Das Studium umfasst {p['ects']} Leistungspunkte nach dem European Credit Transfer System bei einer Regelstudienzeit von {num(p['sem'])} Semestern.",
                    f"Bei einer Regelstudienzeit von {num(p['sem'])} Semestern sind {p['ects']} ECTS-Leistungspunkte zu erwerben.")
    s += " Soweit hier nichts anderes bestimmt ist, gilt die Rahmenprüfungsordnung der Hochschule."
    return s


def gen_sem(term):
    return term.replace("semester ", "semesters ", 1)


def inkraft(p, r):
    s = pick(r,
             f"Diese Ordnung tritt am Tag nach ihrer Veröffentlichung im Amtlichen Mitteilungsblatt der Hochschule ({p['amb']}) in Kraft.",
             f"Diese Satzung tritt am ersten Tag des {gen_sem(p['start'])} in Kraft; sie wird im Amtlichen Mitteilungsblatt {p['amb']} bekannt gemacht.",
             f"Die Ordnung wird im Amtlichen Mitteilungsblatt ({p['amb']}) veröffentlicht und tritt mit Beginn des {gen_sem(p['start'])} in Kraft.")
    s += " " + pick(r,
                    f"Sie gilt für alle Studierenden, die ihr Studium ab dem {p['start']} aufnehmen.",
                    "Studierende, die ihr Studium vorher aufgenommen haben, können auf Antrag in diese Fassung wechseln; der Wechsel ist unwiderruflich.",
                    "Für Studierende, die vor ihrem Inkrafttreten eingeschrieben waren, gilt die bisherige Fassung längstens bis zum Ende der um zwei Semester verlängerten Regelstudienzeit fort.")
    return s


# ------------------------------------------------------------------------------------------------
# Subjects
# ------------------------------------------------------------------------------------------------
def s_anmeldung(p, r, f):
    paras = []
    a = f"Zu jeder Modulprüfung ist eine Prüfungsanmeldung erforderlich. Sie ist {f['period']} möglich (Anmeldezeitraum)."
    a += " " + (pick(r, "Die Anmeldung erfolgt elektronisch über das Prüfungsportal NordCampus.",
                     "Angemeldet wird ausschließlich online über NordCampus; eine Anmeldung auf Papier ist nur bei technischen Störungen zulässig.")
                if f["portal"] else
                pick(r, "Die Anmeldung erfolgt schriftlich auf dem Formular des Prüfungsamts oder über NordCampus.",
                     "Die Anmeldung ist beim Prüfungsamt schriftlich oder elektronisch einzureichen."))
    a += " " + pick(r, "Wer die Frist versäumt, kann an der Prüfung in diesem Semester nicht teilnehmen.",
                    "Eine verspätete Anmeldung ist ausgeschlossen, es sei denn, die Versäumnis der Frist war nicht zu vertreten.",
                    "Nach Ablauf des Anmeldezeitraums sind Nachmeldungen nicht möglich.")
    paras.append(("Prüfungsanmeldung und Anmeldezeitraum", a))
    z = "Zur Prüfung wird nur zugelassen, wer eingeschrieben ist, den Prüfungsanspruch in diesem Studiengang nicht verloren hat und die in der Modulbeschreibung genannten Prüfungsvorleistungen erbracht hat."
    if f["max_pz"]:
        z += f" In einem Prüfungszeitraum können höchstens {num(f['max_pz'])} Modulprüfungen abgelegt werden."
    if f["auto"]:
        z += " Wer eine Prüfung nicht bestanden hat, gilt für die Wiederholungsprüfung im folgenden Prüfungszeitraum als angemeldet."
    else:
        z += " Zu einer Wiederholungsprüfung ist eine erneute Prüfungsanmeldung erforderlich."
    paras.append(("Zulassung zur Prüfung", z))
    day = "Tag" if f["rt"] == 1 else "Tage"
    rt = pick(r,
              f"Ein Rücktritt von einer schriftlichen Prüfung ist ohne Angabe von Gründen bis {num(f['rt'])} {day} vor dem Prüfungstermin möglich.",
              f"Die Abmeldung von einer Klausur ist ohne Angabe von Gründen bis spätestens {num(f['rt'])} {day} vor dem Prüfungstag zulässig.",
              f"Bis {num(f['rt'])} {day} vor dem Termin kann der Prüfling ohne Angabe von Gründen von der Prüfung zurücktreten.")
    rt += " Für mündliche Prüfungen und Präsentationen gilt eine Frist von " + ("einem Tag." if f["oral"] == 1 else f"{num(f['oral'])} Tagen.")
    rt += " " + pick(r, "Der Rücktritt ist über NordCampus oder schriftlich gegenüber dem Prüfungsamt zu erklären.",
                     "Der Rücktritt wird mit der Erklärung im Prüfungsportal wirksam und wird nicht als Prüfungsversuch gezählt.")
    paras.append(("Rücktritt ohne Angabe von Gründen", rt))
    k = f"Nach Ablauf dieser Frist ist ein Rücktritt nur aus triftigem Grund möglich. Bei Krankheit ist die Prüfungsunfähigkeit unverzüglich, spätestens innerhalb von {num(f['att'])} Werktagen nach dem Prüfungstermin, durch ein ärztliches Attest nachzuweisen."
    k += " " + pick(r, "Das Attest muss die Symptome und die daraus folgende Beeinträchtigung beschreiben; eine bloße Arbeitsunfähigkeitsbescheinigung genügt nicht.",
                    "Das Attest soll die gesundheitliche Beeinträchtigung so beschreiben, dass der Prüfungsausschuss die Prüfungsunfähigkeit beurteilen kann.",
                    "Eine Arbeitsunfähigkeitsbescheinigung reicht aus, wenn sie am Prüfungstag ausgestellt wurde.")
    if f["amt"]:
        k += f" Ab dem {'zweiten' if f['amt'] == 2 else 'dritten'} krankheitsbedingten Rücktritt von derselben Prüfung kann der Prüfungsausschuss ein amtsärztliches Attest verlangen."
    k += " Die Erkrankung eines Kindes, für das der Prüfling sorgt, oder einer nahen angehörigen Person, die betreut werden muss, steht der eigenen Krankheit gleich."
    paras.append(("Rücktritt aus triftigem Grund, Prüfungsunfähigkeit", k))
    v = pick(r,
             "Erscheint ein Prüfling ohne triftigen Grund nicht zum Prüfungstermin oder tritt er nach Beginn der Prüfung zurück, gilt die Prüfung als mit „nicht ausreichend“ (5,0) bewertet.",
             "Wer einen Prüfungstermin ohne triftigen Grund versäumt, erhält die Note „nicht ausreichend“ (5,0); der Versuch wird gezählt.")
    v += " " + pick(r, "Werden die Gründe anerkannt, wird ein neuer Termin angesetzt und bereits vorliegende Prüfungsergebnisse werden angerechnet.",
                    "Erkennt der Prüfungsausschuss die Gründe an, gilt der Versuch als nicht unternommen.")
    paras.append(("Versäumnis", v))
    n = f"Studierende, die wegen einer Behinderung oder chronischen Erkrankung eine Prüfung nicht in der vorgesehenen Form ablegen können, erhalten auf Antrag einen Nachteilsausgleich, etwa eine Verlängerung der Bearbeitungszeit oder eine andere Prüfungsform. Der Antrag ist spätestens {num(f['nta'])} Wochen vor dem Prüfungstermin beim Prüfungsausschuss zu stellen."
    if r.random() < 0.6:
        n += " Eine Stellungnahme der Beauftragten für Studierende mit Behinderung kann beigefügt werden."
    paras.append(("Nachteilsausgleich", n))
    if r.random() < 0.5:
        paras.insert(2, ("Bekanntgabe der Prüfungstermine", pick(r,
            "Die Prüfungstermine werden spätestens zwei Wochen vor dem Ende des Anmeldezeitraums in NordCampus bekannt gegeben. Eine Bestätigung der Anmeldung erhält der Prüfling elektronisch; er ist verpflichtet, sie zu prüfen.",
            "Termine und Räume der Prüfungen werden durch Aushang und in NordCampus bekannt gemacht. Fehlerhafte Anmeldungen sind innerhalb einer Woche nach Ende des Anmeldezeitraums beim Prüfungsamt zu melden.")))
    if p["key"] in EXTRA["anmeldung"]:
        paras.append(("Prüfungszeiträume", pick(r,
            "Je Semester gibt es zwei Prüfungszeiträume: den ersten in den beiden Wochen nach dem Ende der Vorlesungszeit und den zweiten in den beiden Wochen vor Beginn der folgenden Vorlesungszeit. Die Anmeldung gilt für den ersten Prüfungszeitraum; für den zweiten ist eine gesonderte Prüfungsanmeldung nötig.",
            "Die Prüfungen eines Semesters finden in einem Prüfungszeitraum von drei Wochen im Anschluss an die Vorlesungszeit statt. Mündliche Prüfungen und Präsentationen können auch während der Vorlesungszeit angesetzt werden; ihre Anmeldung erfolgt bei der prüfenden Person.",
            "Prüfungen, die als Hausarbeit oder Portfolio abgelegt werden, sind ebenfalls im Anmeldezeitraum anzumelden. Der Abgabetermin wird mit der Bekanntgabe der Aufgabe festgelegt; ein Rücktritt ist bis zur Ausgabe der Aufgabe möglich.")))
    return paras


def s_wiederholung(p, r, f):
    paras = []
    w = pick(r,
             f"Eine nicht bestandene Modulprüfung kann {num(f['rep'])}mal wiederholt werden.",
             f"Nicht bestandene Prüfungen dürfen höchstens {num(f['rep'])}mal wiederholt werden; zusammen mit dem Erstversuch stehen damit {num(f['rep'] + 1)} Prüfungsversuche zur Verfügung.",
             f"Für jede nicht bestandene Modulprüfung stehen {num(f['rep'])} Wiederholungsversuche zur Verfügung.")
    if f["rep"] == 1:
        w = w.replace("einenmal", "einmal").replace("einen Wiederholungsversuche", "ein Wiederholungsversuch").replace("stehen ein", "steht ein")
    w += " Die Wiederholung einer bestandenen Prüfung ist unzulässig, soweit nicht ein Freiversuch nach dieser Ordnung in Anspruch genommen wurde."
    paras.append(("Wiederholungsversuch", w))
    fr = f"Der Wiederholungsversuch ist {f['frist']} abzulegen."
    fr += " " + pick(r, "Wird die Frist versäumt, gilt der Versuch als nicht bestanden, es sei denn, der Prüfling hat das Versäumnis nicht zu vertreten.",
                     "Nach Ablauf der Frist erlischt der Anspruch auf diesen Versuch, sofern kein triftiger Grund vorliegt.",
                     "Bei Versäumnis der Frist wird der Versuch mit „nicht ausreichend“ (5,0) bewertet; Zeiten einer Beurlaubung werden nicht angerechnet.")
    paras.append(("Frist für die Wiederholung", fr))
    if f["fv"]:
        fv = pick(r,
                  f"Wird eine Modulprüfung innerhalb der Regelstudienzeit zum frühestmöglichen Termin erstmals abgelegt und nicht bestanden, gilt sie als nicht unternommen (Freiversuch). Der Freiversuch kann für höchstens {num(f['fv'])} Modulprüfungen in Anspruch genommen werden.",
                  f"Eine im Freiversuch bestandene Prüfung kann zur Notenverbesserung einmal wiederholt werden; es zählt die bessere Note. Als Freiversuch gilt die erste Prüfung eines Moduls, die zum vorgesehenen Termin der Regelstudienzeit abgelegt wird; dies ist für höchstens {num(f['fv'])} Module möglich.")
        fv += " Für die Abschlussarbeit und für Prüfungen, die wegen Täuschung als nicht bestanden gelten, gibt es keinen Freiversuch."
    else:
        fv = pick(r, "Ein Freiversuch ist in diesem Studiengang nicht vorgesehen. Eine Wiederholung bestandener Prüfungen zur Notenverbesserung ist ausgeschlossen.",
                  "Diese Ordnung sieht keinen Freiversuch vor; auch eine Notenverbesserung durch Wiederholung einer bestandenen Prüfung ist nicht möglich.")
    paras.append(("Freiversuch", fv))
    times, mins = f["erg"]
    e = pick(r,
             f"Ist der letzte Wiederholungsversuch einer schriftlichen Prüfung mit „nicht ausreichend“ bewertet, kann der Prüfling vor der Entscheidung über das endgültige Nichtbestehen eine mündliche Ergänzungsprüfung von etwa {mins} Minuten ablegen.",
             f"Vor dem endgültigen Nichtbestehen einer Klausur im letzten Versuch wird auf Antrag eine mündliche Ergänzungsprüfung durchgeführt; sie dauert {mins} Minuten und wird von zwei Prüfenden abgenommen.")
    e += " Aufgrund der Ergänzungsprüfung wird nur die Note „ausreichend“ (4,0) oder „nicht ausreichend“ (5,0) festgesetzt."
    e += f" Die mündliche Ergänzungsprüfung kann im gesamten Studium höchstens {num(times)}mal in Anspruch genommen werden." if times > 1 else " Die mündliche Ergänzungsprüfung kann im gesamten Studium nur einmal in Anspruch genommen werden."
    paras.append(("Mündliche Ergänzungsprüfung", e))
    paras.append(("Wiederholung der Abschlussarbeit", pick(r,
        "Eine mit „nicht ausreichend“ bewertete Abschlussarbeit kann einmal mit neuem Thema wiederholt werden. Eine Rückgabe des Themas ist bei der Wiederholung nur zulässig, wenn sie beim ersten Versuch nicht in Anspruch genommen wurde.",
        "Die Abschlussarbeit und das Kolloquium können bei „nicht ausreichend“ je einmal wiederholt werden; das neue Thema ist innerhalb von drei Monaten auszugeben.")))
    nb = f"Eine Modulprüfung ist endgültig nicht bestanden, wenn der letzte Wiederholungsversuch, gegebenenfalls einschließlich der mündlichen Ergänzungsprüfung, nicht bestanden ist oder als nicht bestanden gilt."
    nb += " " + pick(r, "Ist eine Pflichtprüfung endgültig nicht bestanden, ist die Bachelor- oder Masterprüfung insgesamt endgültig nicht bestanden und der Prüfungsanspruch erlischt; die Exmatrikulation folgt.",
                     "Mit dem endgültigen Nichtbestehen einer Pflichtprüfung geht der Prüfungsanspruch in diesem und in verwandten Studiengängen verloren. Über das endgültige Nichtbestehen ergeht ein schriftlicher Bescheid mit Rechtsbehelfsbelehrung.")
    if f["wahl"]:
        nb += f" Ein nicht bestandenes Wahlpflichtmodul kann bis zu {num(f['wahl'])}mal durch ein anderes Wahlpflichtmodul ersetzt werden; die Fehlversuche werden dann nicht angerechnet." if f["wahl"] > 1 else " Ein nicht bestandenes Wahlpflichtmodul kann einmal durch ein anderes Wahlpflichtmodul ersetzt werden; die Fehlversuche werden dann nicht angerechnet."
    paras.append(("Endgültig nicht bestanden", nb))
    if f["haerte"]:
        paras.append(("Härtefall", pick(r,
            "In besonderen Härtefällen kann der Prüfungsausschuss auf Antrag einen weiteren Prüfungsversuch zulassen. Der Antrag ist innerhalb eines Monats nach Bekanntgabe des Ergebnisses zu stellen und zu begründen.",
            "Ein zusätzlicher Prüfungsversuch kann auf begründeten Antrag gewährt werden, wenn das Nichtbestehen auf außergewöhnliche Umstände zurückgeht, die der Prüfling nicht zu vertreten hat. Die Frist für den Antrag beträgt vier Wochen.")))
    if p["key"] in EXTRA["wiederholung"]:
        paras.insert(2, pick(r,
            ("Form der Wiederholungsprüfung", "Die Wiederholungsprüfung kann in einer anderen Prüfungsform als der Erstversuch abgelegt werden, wenn die Teilnehmerzahl gering ist; die Prüfungsform wird spätestens mit dem Beginn des Anmeldezeitraums bekannt gegeben."),
            ("Form der Wiederholungsprüfung", "Wiederholungsprüfungen werden in der Regel in derselben Prüfungsform wie der Erstversuch abgenommen. Die zweite Wiederholung einer Klausur wird von zwei Prüfenden bewertet."),
            ("Anrechnung von Fehlversuchen", "Fehlversuche aus demselben oder einem vergleichbaren Studiengang an einer anderen Hochschule werden auf die Zahl der Wiederholungsversuche angerechnet.")))
    return paras


def s_abschlussarbeit(p, r, f):
    paras = []
    arb = "Bachelorarbeit" if p["level"] == "Bachelor" else "Masterarbeit"
    z = pick(r,
             f"Zur {arb} wird zugelassen, wer mindestens {f['zul']} Leistungspunkte erworben hat.",
             f"Die Zulassung zur {arb} setzt den Nachweis von wenigstens {f['zul']} Leistungspunkten voraus.",
             f"Voraussetzung für die Zulassung zur {arb} sind mindestens {f['zul']} ECTS-Leistungspunkte.")
    if p["level"] == "Bachelor":
        z += " " + pick(r, "Außerdem muss das Praxissemester oder die vorgesehene Praxisphase erfolgreich abgeschlossen sein.",
                        "Die Pflichtmodule der ersten vier Semester müssen bestanden sein.",
                        "Alle Pflichtmodule des ersten Studienabschnitts müssen bestanden sein.")
    z += " Der Antrag auf Zulassung ist beim Prüfungsamt mit dem Themenvorschlag und der Zustimmung der betreuenden Person einzureichen."
    paras.append(("Zulassung", z))
    t = "Das Thema wird von der erstprüfenden Person nach Anhörung des Prüflings festgelegt und über den Prüfungsausschuss ausgegeben; der Tag der Ausgabe ist aktenkundig zu machen."
    t += f" Das Thema kann einmal innerhalb der ersten {num(f['rueck'])} Wochen der Bearbeitungszeit ohne Angabe von Gründen zurückgegeben werden."
    if f["gruppe"]:
        t += " Die Arbeit kann als Gruppenarbeit von höchstens zwei Studierenden angefertigt werden, wenn der Beitrag jeder Person abgrenzbar und einzeln bewertbar ist."
    else:
        t += " Eine Gruppenarbeit ist nicht zulässig."
    paras.append(("Thema und Betreuung", t))
    b = pick(r,
             f"Die Bearbeitungszeit beträgt {f['wochen']} Wochen; der Arbeitsaufwand entspricht {f['cp']} Leistungspunkten.",
             f"Für die {arb} stehen {f['wochen']} Wochen zur Verfügung. Sie wird mit {f['cp']} Leistungspunkten bewertet.",
             f"Die {arb} ist innerhalb von {f['wochen']} Wochen nach Ausgabe des Themas abzugeben; sie umfasst {f['cp']} ECTS-Leistungspunkte.")
    b += f" Auf begründeten Antrag, insbesondere bei Krankheit, kann der Prüfungsausschuss die Bearbeitungszeit um bis zu {num(f['verl'])} Wochen verlängern." 
    b += " " + pick(r, "Der Antrag auf Verlängerung ist vor Ablauf der Bearbeitungszeit zu stellen.",
                    "Bei längerer Krankheit ruht die Bearbeitungszeit; eine Verlängerung darüber hinaus ist ausgeschlossen.")
    paras.append(("Bearbeitungszeit und Verlängerung", b))
    lo, hi = f["seiten"]
    u = pick(r,
             f"Der Umfang der Arbeit soll {lo} bis {hi} Seiten Text betragen, ohne Verzeichnisse und Anhang.",
             f"Die Arbeit soll einen Umfang von {lo} bis {hi} Seiten (ohne Anhang) haben; Abweichungen sind mit der betreuenden Person abzustimmen.",
             f"Als Umfang werden {lo} bis {hi} Seiten Text erwartet; Literaturverzeichnis und Anhang zählen nicht mit.")
    u += " Die Arbeit ist in deutscher oder, mit Zustimmung der Prüfenden, in englischer Sprache abzufassen."
    paras.append(("Umfang und Sprache", u))
    a = "Die Abgabe erfolgt fristgerecht beim Prüfungsamt als PDF-Datei"
    a += "." if f["druck"] == 0 else f" und in {num(f['druck'])} gebundenen Exemplaren." if f["druck"] > 1 else " und in einem gebundenen Exemplar."
    a += " " + pick(r, "Der Zeitpunkt der Abgabe ist aktenkundig zu machen. Mit der Arbeit ist eine Erklärung über die selbstständige Anfertigung und die verwendeten Hilfsmittel, einschließlich generativer KI-Werkzeuge, abzugeben.",
                    "Der Arbeit ist eine Versicherung beizufügen, dass sie selbstständig verfasst wurde und keine anderen als die angegebenen Quellen und Hilfsmittel benutzt wurden. Wird die Frist nicht eingehalten, gilt die Arbeit als mit „nicht ausreichend“ bewertet.")
    paras.append(("Abgabe", a))
    g = f"Die Arbeit wird von zwei Prüfenden bewertet, von denen mindestens eine Person der Hochschule angehört. Die Bewertung soll innerhalb von {num(f['bew'])} Wochen nach der Abgabe vorliegen."
    g += " Weichen die Noten um mehr als 2,0 voneinander ab, bestimmt der Prüfungsausschuss eine dritte prüfende Person."
    paras.append(("Bewertung", g))
    if f["kol"]:
        k = f"Die Arbeit wird in einem Kolloquium von etwa {f['kol']} Minuten verteidigt, zu dem zugelassen wird, wer die Arbeit mindestens mit „ausreichend“ bestanden hat."
        k += f" Das Kolloquium wird mit {num(f['kolcp'])} Leistungspunkten gesondert bewertet." if f["kolcp"] else " Das Ergebnis des Kolloquiums geht mit einem Viertel in die Note der Arbeit ein."
        paras.append(("Kolloquium", k))
    if p["key"] in EXTRA["abschlussarbeit"]:
        paras.insert(2, ("Abschlussarbeit in einer Einrichtung außerhalb der Hochschule", pick(r,
            "Die Arbeit kann in einem Unternehmen oder einer anderen Einrichtung außerhalb der Hochschule angefertigt werden, wenn die Betreuung durch eine prüfende Person der Hochschule gesichert ist. Ein Sperrvermerk zum Schutz vertraulicher Daten ist mit Zustimmung des Prüfungsausschusses für höchstens fünf Jahre zulässig.",
            "Wird die Arbeit in einer externen Einrichtung geschrieben, soll dort eine fachlich qualifizierte Person die Zweitbegutachtung übernehmen. Die Einrichtung darf keinen Einfluss auf die Bewertung nehmen.")))
    return paras


def s_praktikum(p, r, f):
    paras = []
    form = f["form"]
    if form == "Praxissemester":
        d = f"Das Studium umfasst ein Praxissemester als Pflichtpraktikum. Es liegt {f['sem']} und dauert {f['dauer']}."
    elif form == "Pflichtpraktikum":
        d = f"Ein Praxissemester ist nicht vorgesehen; das Studium umfasst ein Pflichtpraktikum. Es wird {f['sem']} abgeleistet und dauert {f['dauer']}."
    elif form == "Praxiseinsätze":
        d = f"An die Stelle von Praxissemester und Pflichtpraktikum treten Praxiseinsätze. Sie finden {f['sem']} statt und umfassen {f['dauer']}."
    else:
        d = f"Ein Praxissemester ist nicht vorgesehen. Pflichtpraktikum ist das {form}; es wird {f['sem']} abgeleistet und dauert {f['dauer']}."
    d += f" Für die erfolgreich abgeschlossene Praxisphase werden {f['cp']} Leistungspunkte vergeben."
    paras.append(("Art und Dauer der Praxisphase", d))
    if f["vor"]:
        paras.append(("Vorpraktikum", f"Zusätzlich ist ein Vorpraktikum von {num(f['vor'])} Wochen nachzuweisen, spätestens bis zur Rückmeldung zum vierten Semester. Eine einschlägige Berufsausbildung wird als Vorpraktikum anerkannt."))
    z = (f"Zur Praxisphase wird zugelassen, wer mindestens {f['zul']} Leistungspunkte erworben hat." if f["zul"] else
         "Eine besondere Zulassung ist nicht erforderlich; die Praxisphase kann begonnen werden, sobald die vorgesehenen Module der vorangehenden Semester belegt sind.")
    z += " Über die Zulassung entscheidet die oder der Praxisbeauftragte."
    paras.append(("Zulassung", z))
    s = f"Die Praxisphase wird in {f['ort']}{',' if f['ort'].endswith(' hat') else ''} abgeleistet."
    s += " " + pick(r, "Die Studierenden suchen die Praktikumsstelle selbst; die Hochschule unterstützt bei der Suche und prüft die Eignung der Stelle.",
                    "Die Praktikumsstelle ist vor Beginn von der oder dem Praxisbeauftragten zu genehmigen; die Hochschule hält eine Liste geeigneter Stellen bereit.",
                    "Die Praktikumsstelle wird von den Studierenden vorgeschlagen und von der Hochschule anerkannt, wenn eine fachlich qualifizierte Betreuung vor Ort gesichert ist.")
    s += " Zwischen Studierenden und Praktikumsstelle wird ein Praktikumsvertrag nach dem Muster der Hochschule geschlossen."
    paras.append(("Praktikumsstelle und Praktikumsvertrag", s))
    b = f"Die Betreuung umfasst {f['begleit']}."
    b += " " + pick(r, "Die Studierenden bleiben während der Praxisphase eingeschrieben und zahlen den Semesterbeitrag.",
                    "Während der Praxisphase bleiben die Studierenden Mitglieder der Hochschule; Lehrveranstaltungen sollen in dieser Zeit nicht belegt werden.")
    paras.append(("Betreuung", b))
    n = f"Über die Praxisphase ist ein Praktikumsbericht anzufertigen ({f['bericht']})." if not form.endswith("ätze") else f"Über die Praxiseinsätze ist {f['bericht']} anzufertigen."
    n += f" Fehlzeiten von mehr als {num(f['fehl'])} {'Tagen' if form != 'Praxiseinsätze' else 'Prozent der Einsatzzeit'} sind nachzuholen." if form != "Praxiseinsätze" else f" Fehlzeiten von mehr als {num(f['fehl'])} Prozent der Stunden eines Einsatzes sind nachzuholen."
    n += " Die Praxisphase ist bestanden, wenn die Bescheinigung der Praktikumsstelle vorliegt und der Bericht als „bestanden“ bewertet wurde."
    paras.append(("Praktikumsbericht und Bestehen", n))
    if f["ausland"]:
        a = pick(r, "Die Praxisphase kann ganz oder teilweise im Ausland abgeleistet werden, wenn die Betreuung gesichert ist.",
                 "Ein Praktikum im Ausland ist möglich und wird empfohlen; es ist vorab mit der oder dem Praxisbeauftragten abzustimmen.")
    else:
        a = "Einsätze im Ausland sind nur im Rahmen der weiteren Einsätze und mit Genehmigung der Hochschule möglich."
    a += " " + pick(r, "Eine einschlägige berufliche Tätigkeit vor oder während des Studiums kann auf Antrag ganz oder teilweise als Praxisphase anerkannt werden.",
                    "Auf Antrag können gleichwertige praktische Tätigkeiten, etwa aus einer Berufsausbildung, auf die Praxisphase angerechnet werden.")
    paras.append(("Ausland und Anerkennung praktischer Tätigkeiten", a))
    if p["key"] in EXTRA["praktikum"]:
        paras.insert(3, pick(r,
            ("Arbeitszeit und Vergütung", "Die tägliche Arbeitszeit richtet sich nach den Regeln der Praktikumsstelle und soll der regelmäßigen Arbeitszeit einer Vollzeitkraft entsprechen. Eine Vergütung ist nicht vorgeschrieben; sie wird empfohlen und im Praktikumsvertrag geregelt."),
            ("Urlaub und Vergütung", "Während der Praxisphase besteht Anspruch auf die in der Praktikumsstelle üblichen Urlaubstage nur, soweit die Mindestdauer nicht unterschritten wird. Ob eine Vergütung gezahlt wird, vereinbaren Studierende und Praktikumsstelle."),
            ("Praxisphase in Teilzeit", "Die Praxisphase kann auf Antrag in Teilzeit mit mindestens 20 Wochenstunden abgeleistet werden; ihre Dauer verlängert sich entsprechend.")))
    return paras


def s_anerkennung(p, r, f):
    paras = []
    g = pick(r,
             "Studien- und Prüfungsleistungen, die an anderen Hochschulen im In- oder Ausland erbracht wurden, werden auf Antrag anerkannt, sofern kein wesentlicher Unterschied hinsichtlich der erworbenen Kompetenzen besteht.",
             "Leistungen aus anderen Studiengängen oder von anderen Hochschulen werden anerkannt, wenn hinsichtlich der erworbenen Kompetenzen kein wesentlicher Unterschied zu den Leistungen besteht, die sie ersetzen sollen.")
    g += " " + pick(r, "Es ist kein schematischer Vergleich, sondern eine Gesamtbetrachtung vorzunehmen.",
                    "Die Beweislast für einen wesentlichen Unterschied liegt bei der Hochschule.",
                    "Gleichwertigkeit ist nicht Gleichheit; maßgeblich sind Inhalt, Umfang und Anforderungen.")
    paras.append(("Grundsatz", g))
    a = f"Der Antrag auf Anerkennung ist {f['frist']} beim Prüfungsausschuss zu stellen."
    a += " " + pick(r, "Beizufügen sind Leistungsnachweise mit Noten und Leistungspunkten sowie die Modulbeschreibungen.",
                    "Dem Antrag sind ein Notenspiegel oder Transcript of Records und die Modulbeschreibungen der anzuerkennenden Leistungen beizufügen.")
    a += f" Über den Antrag wird in der Regel innerhalb von {num(f['woche'])} Wochen nach Eingang der vollständigen Unterlagen entschieden."
    a += " Eine Ablehnung ist schriftlich zu begründen und mit einer Rechtsbehelfsbelehrung zu versehen."
    paras.append(("Antrag und Verfahren", a))
    n = pick(r,
             "Werden Leistungen anerkannt, werden die Noten übernommen, soweit die Notensysteme vergleichbar sind. Bei nicht vergleichbaren Notensystemen werden sie nach der modifizierten bayerischen Formel umgerechnet.",
             "Die Noten anerkannter Leistungen werden übernommen und in die Gesamtnote einbezogen; Noten aus anderen Notensystemen werden nach der modifizierten bayerischen Formel umgerechnet.")
    n += " Ist eine Umrechnung nicht möglich, wird der Vermerk „bestanden“ aufgenommen; die Leistung geht dann nicht in die Gesamtnote ein."
    paras.append(("Noten", n))
    au = f"Für einen Studienaufenthalt im Ausland soll vor Beginn ein Learning Agreement abgeschlossen werden; die darin vereinbarten Leistungen werden nach Rückkehr ohne erneute Prüfung anerkannt."
    au += f" Je Auslandssemester sollen mindestens {f['ausland']} Leistungspunkte erbracht werden."
    if r.random() < 0.6:
        au += " Änderungen des Learning Agreements sind innerhalb von vier Wochen nach Beginn der Lehrveranstaltungen an der Gasthochschule mitzuteilen."
    paras.append(("Leistungen aus dem Ausland", au))
    ah = f"Außerhalb des Hochschulwesens erworbene Kenntnisse und Fähigkeiten werden auf Antrag angerechnet, wenn sie den zu ersetzenden Leistungen nach Inhalt und Niveau gleichwertig sind. Insgesamt können höchstens {f['ausser']} Leistungspunkte auf diese Weise ersetzt werden."
    ah += " " + pick(r, "Für die Gleichwertigkeit können eine Einstufungsprüfung oder ein Fachgespräch verlangt werden.",
                     "Angerechnete Leistungen werden mit „bestanden“ ohne Note ausgewiesen.")
    paras.append(("Anrechnung außerhochschulischer Kompetenzen", ah))
    e = f"Je {f['sem']} anerkannte Leistungspunkte wird ein Fachsemester angerechnet."
    e += " " + pick(r, "Die Abschlussarbeit und das Kolloquium sind von der Anerkennung ausgeschlossen.",
                    "Die Abschlussarbeit kann nicht anerkannt werden.",
                    "Nicht anerkannt werden können die Abschlussarbeit und Prüfungen, die in einem anderen Studiengang endgültig nicht bestanden sind.")
    e += " Fehlversuche in vergleichbaren Modulen eines anderen Studiengangs werden angerechnet."
    paras.append(("Einstufung und Ausschluss", e))
    if p["key"] in EXTRA["anerkennung"]:
        paras.append(("Überprüfung der Entscheidung", pick(r,
            "Gegen die Entscheidung über die Anerkennung kann innerhalb eines Monats nach Bekanntgabe Widerspruch beim Prüfungsausschuss eingelegt werden. Auf Antrag wird die Entscheidung vom Präsidium überprüft.",
            "Wird die Anerkennung ganz oder teilweise abgelehnt, kann der Antrag einmal mit ergänzenden Unterlagen erneut gestellt werden. Einmal anerkannte Leistungen können nicht zurückgenommen werden, um sie durch eine neue Prüfung zu ersetzen.")))
    return paras


BUILD = {"anmeldung": s_anmeldung, "wiederholung": s_wiederholung, "abschlussarbeit": s_abschlussarbeit,
         "praktikum": s_praktikum, "anerkennung": s_anerkennung}
TABLE = {"anmeldung": ANM, "wiederholung": WDH, "abschlussarbeit": ABS, "praktikum": PRA, "anerkennung": ANE}


def subject_title(pslug, sslug):
    if sslug == "abschlussarbeit":
        return "Bachelorarbeit" if P[pslug]["level"] == "Bachelor" else "Masterarbeit"
    if sslug == "praktikum":
        return {"Praxissemester": "Praxissemester", "Pflichtpraktikum": "Pflichtpraktikum",
                "Praxiseinsätze": "Praxiseinsätze", "Industrieprojekt": "Industrieprojekt (Praxisphase)",
                "Berufsfeldpraktikum": "Berufsfeldpraktikum"}[PRA[pslug]["form"]]
    return SUBJECTS[sslug][0]


WHAT = {"anmeldung": "die Prüfungsanmeldung, den Rücktritt von Prüfungen und die Folgen der Versäumnis",
        "wiederholung": "die Wiederholung nicht bestandener Prüfungen, den Freiversuch und das endgültige Nichtbestehen",
        "abschlussarbeit": "Zulassung, Bearbeitung, Abgabe und Bewertung der Abschlussarbeit",
        "praktikum": "die Praxisphase des Studiums",
        "anerkennung": "die Anerkennung und Anrechnung von Studien- und Prüfungsleistungen sowie außerhochschulisch erworbener Kompetenzen"}


def document(pslug, sslug):
    p = dict(P[pslug], key=pslug)
    key = f"po://{pslug}/{sslug}"
    r = rng_for(key)
    st = subject_title(pslug, sslug)
    title = pick(r, f"Studien- und Prüfungsordnung {p['name']} ({p['degree']}): {st}",
                 f"Prüfungsordnung für den {p['kind']} {p['name']} ({p['degree']}) – {st}",
                 f"{p['name']} ({p['degree']}) – Prüfungsordnung, Abschnitt {st}")
    paras = BUILD[sslug](p, r, TABLE[sslug][pslug])
    # neighbouring middle paragraphs swapped in some documents (not the first rule)
    if len(paras) > 4 and r.random() < 0.5:
        i = r.randrange(2, len(paras) - 1)
        paras[i], paras[i + 1] = paras[i + 1], paras[i]
    rp = rng_for(f"po://{pslug}")
    parts = [preamble(p, rp, SUBJECTS[sslug][0]), f"§ 1 Geltungsbereich\n{geltung(p, r, WHAT[sslug])}"]
    n = 1
    for head, text in paras:
        n += 1
        parts.append(f"§ {n} {head}\n{text}")
    n += 1
    parts.append(f"§ {n} Inkrafttreten\n{inkraft(p, rp)}")
    body = "\n\n".join(parts)
    thema = SUBJECTS[sslug][0]
    return {"uri": key, "title": title,
            "metadata": {"studiengang": p["name"], "thema": thema, "programme_slug": pslug, "subject_slug": sslug,
                         "abschluss": p["degree"], "hochschule": "Hochschule Nordstadt"},
            "body": body}


def main():
    with open(OUT, "w", encoding="utf-8") as out:
        for pslug in ORDER:
            for sslug in SUBJECTS:
                out.write(json.dumps(document(pslug, sslug), ensure_ascii=False) + "\n")


if __name__ == "__main__":
    main()
