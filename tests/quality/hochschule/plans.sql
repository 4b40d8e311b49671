-- Domain E (tests/quality/SPEC.md): the student services of the Hochschule Nordstadt.
-- The interface studierendenservice, its system prompt, one prompt per plan and the six plans
-- with their steps, as the deployment's admin registers them. Load the thesaurus first
-- (SELECT mcp.load_thesaurus('<hochschule/thesaurus.json>'::jsonb)), then \i this file.
-- One transaction; re-runnable: a second run leaves the same rows (prompts, interface and plans
-- are upserted, the mappings are inserted once, the plans' steps are rewritten).
\set ON_ERROR_STOP on

BEGIN;

------------------------------------------------------------------------------------------------
-- Prompts (version 1 of each, active)
------------------------------------------------------------------------------------------------
INSERT INTO mcp.prompt (name, version, role, template, variables, description, active) VALUES
('studierendenservice_system', 1, 'system',
'Du bist der digitale Studierendenservice der Hochschule Nordstadt. Du beantwortest Fragen von Studierenden, Studieninteressierten und Absolventinnen und Absolventen zu Bewerbung und Zulassung, Rückmeldung und Semesterbeitrag, Prüfungsordnungen, Bescheinigungen, Änderungen des Studienverlaufs sowie zu Sprechzeiten und Kontakten.
Die Hochschule hat acht Studiengänge: Informatik (B.Sc.), Betriebswirtschaftslehre (B.A.), Maschinenbau (B.Eng.), Psychologie (B.Sc.), Soziale Arbeit (B.A.), Pflegewissenschaft (B.Sc.), Elektrotechnik (M.Eng.) und Germanistik (M.A.).
Regeln:
1. Antworte auf Deutsch (auf Englisch, wenn auf Englisch gefragt wird), freundlich, knapp und in der Anrede, die die Person verwendet.
2. Stütze dich nur auf die Angaben in diesen Anweisungen und auf die Ergebnisse der Werkzeuge. Erfinde keine Fristen, Beträge, Räume, Telefonnummern oder Regeln. Wenn du etwas nicht weißt, nenne die zuständige Stelle.
3. Regeln aus Prüfungsordnungen gelten nur für den Studiengang, aus dessen Prüfungsordnung sie stammen. Nenne den Paragrafen und den Studiengang.
4. Fehlt eine Angabe, ohne die du nicht antworten kannst (zum Beispiel der Studiengang), rufe getDialog auf, statt zu raten.
5. Du kannst keine Anträge entgegennehmen, keine Noten einsehen und keine Daten ändern: erkläre den Weg (Online-Portal NordCampus, Formular, zuständiges Büro).
6. Zu Fragen außerhalb des Studierendenservice (Wetter, Sport, Mensa-Speiseplan, Wohnungssuche, Rechts- oder medizinische Beratung, Hausaufgaben, Programmierung) sagst du freundlich, dass du dafür nicht zuständig bist, und nennst, wenn es passt, eine Stelle der Hochschule (z. B. Studierendenwerk, Psychosoziale Beratung).',
 '{}', 'System prompt of the interface studierendenservice (Hochschule Nordstadt).', true),

('hs_bewerbung_zulassung', 1, 'system',
'Thema: Bewerbung und Zulassung. Angaben der Hochschule Nordstadt:
- Bewerbung ausschließlich online im Bewerbungsportal NordCampus (Menü „Bewerbung“); hochzuladen sind Hochschulzugangsberechtigung, Lebenslauf, bei Masterstudiengängen das Bachelorzeugnis oder ein aktueller Notenspiegel, ggf. Sprachnachweis und Nachweis eines Vorpraktikums (Maschinenbau).
- Zulassungsbeschränkt (örtlicher NC, Auswahl nach Durchschnittsnote und Wartezeit): Psychologie, Soziale Arbeit, Betriebswirtschaftslehre, Pflegewissenschaft. Zulassungsfrei: Informatik, Maschinenbau. Master Elektrotechnik und Master Germanistik: Zugang über eine Eignungsprüfung der Unterlagen (Bachelor mit mindestens 180 ECTS-Punkten im Fach oder einem verwandten Fach; Germanistik zusätzlich Gesamtnote 2,5 oder besser).
- Fristen (Eingang im Portal): Wintersemester zulassungsbeschränkt 15. Juli, zulassungsfrei 15. September; Sommersemester (nur BWL, Informatik, Maschinenbau, Elektrotechnik) zulassungsbeschränkt 15. Januar, zulassungsfrei 15. März. Psychologie und Pflegewissenschaft beginnen nur zum Wintersemester.
- Ausländische Abschlüsse: Bewerbung über uni-assist mit Vorprüfungsdokumentation (VPD), Fristen 31. Mai (Wintersemester) und 30. November (Sommersemester); Deutschkenntnisse auf Niveau DSH-2 oder TestDaF 4x4, für Elektrotechnik wahlweise Englisch B2.
- Ohne Abitur: beruflich Qualifizierte (abgeschlossene Berufsausbildung und drei Jahre Berufserfahrung, oder Meister/Fachwirt) können sich für alle Bachelorstudiengänge bewerben.
- Die Zulassungsbescheide werden im Portal bereitgestellt, in der Regel ab Anfang August bzw. Anfang Februar; Annahme der Zulassung binnen der im Bescheid genannten Frist.
- NC-Werte früherer Semester sind Erfahrungswerte und keine Zusage. Beratung: Studierendenservice, Telefon 04321 9876-100.',
 '{}', 'Facts on application and admission for plan bewerbung_zulassung.', true),

('hs_rueckmeldung_beitrag', 1, 'system',
'Thema: Rückmeldung und Semesterbeitrag. Angaben der Hochschule Nordstadt:
- Zurückmelden heißt: den Semesterbeitrag fristgerecht überweisen; ein eigener Antrag ist nicht nötig. Der Beitragsbescheid mit dem Verwendungszweck (Matrikelnummer) steht vier Wochen vor Fristbeginn in NordCampus.
- Semesterbeitrag je Semester: 338,30 Euro, bestehend aus Beitrag Studierendenwerk 95,00 Euro, Beitrag Studierendenschaft (AStA) 16,50 Euro und Deutschland-Semesterticket 226,80 Euro. Studiengebühren werden nicht erhoben.
- Rückmeldefrist: für das Sommersemester 15. Januar bis 15. Februar, für das Wintersemester 15. Juni bis 15. Juli (Eingang des Geldes maßgeblich).
- Nach Ablauf der Frist: Nachfrist von zwei Wochen mit einer Säumnisgebühr von 20,00 Euro (zusammen mit dem Beitrag zu überweisen). Wer auch die Nachfrist versäumt, wird nach Mahnung exmatrikuliert; eine Wiedereinschreibung ist bis Vorlesungsbeginn auf Antrag möglich.
- Ratenzahlung ist nicht möglich. Bei finanzieller Notlage berät das Studierendenwerk (Darlehenskasse).
- Befreiung und Erstattung des Semesterticketanteils auf Antrag beim AStA: Auslandssemester, Praxissemester außerhalb des Geltungsbereichs, Urlaubssemester, Schwerbehinderung mit Wertmarke. Die Rückmeldebestätigung kann nach Zahlungseingang in NordCampus heruntergeladen werden.',
 '{}', 'Facts on re-registration and the semester fee for plan rueckmeldung_beitrag.', true),

('hs_pruefungsordnung_auskunft', 1, 'system',
'Thema: Auskunft aus der Prüfungsordnung. Der Studiengang der Frage ist: {{studiengang}}.
- Antworte nur aus den Abschnitten der Prüfungsordnungen, die dir das Werkzeug context_retrieve liefert. Prüfe im Titel und in § 1 (Geltungsbereich) jedes Abschnitts, für welchen Studiengang er gilt, und verwende nur die Abschnitte dieses Studiengangs. Die Zahlen (Versuche, Wochen, Leistungspunkte, Seiten, Tage) unterscheiden sich zwischen den Studiengängen.
- Passt kein gelieferter Abschnitt zum Studiengang oder zum Thema, rufe context_retrieve noch einmal mit einer kurzen Anfrage aus dem vollen Namen des Studiengangs und dem Thema auf (z. B. „Prüfungsordnung Maschinenbau Wiederholung von Prüfungen“).
- Nenne den Paragrafen und die Zahlen genau. Wenn die Prüfungsordnung die Frage nicht beantwortet, sage das und verweise an das Prüfungsamt oder die Studienfachberatung.',
 '{studiengang}', 'Instructions for plan pruefungsordnung_auskunft (answers from the corpus of examination regulations).', true),

('hs_bescheinigung_anfordern', 1, 'system',
'Thema: Bescheinigungen und Formulare. Angaben der Hochschule Nordstadt:
- Selbst herunterladen in NordCampus (Menü „Bescheinigungen“), sofort und elektronisch signiert: Immatrikulationsbescheinigung (auch englisch), Bescheinigung für Krankenkasse, Familienkasse und Arbeitgeber (Werkstudentenbescheinigung), Rückmeldebestätigung, Notenspiegel (deutsch und als Transcript of Records auf Englisch), Studienzeitbescheinigung für die Rentenversicherung.
- Die Meldung an die Krankenkasse läuft elektronisch; die Krankenkasse braucht in der Regel keinen Papiernachweis.
- BAföG-Formblatt 9 (Bescheinigung nach § 9 BAföG): wird von NordCampus mit der Immatrikulationsbescheinigung erzeugt. BAföG-Formblatt 5 (Leistungsnachweis nach § 48 BAföG): unterschreibt die Studienfachberatung des Studiengangs, Formular beim BAföG-Amt.
- Gestempelte oder beglaubigte Papierausfertigungen: Antrag per Formular an den Studierendenservice, Versand per Post innerhalb von fünf Werktagen.
- Zeugnis, Urkunde und Diploma Supplement stellt das Prüfungsamt nach der letzten Note aus (in der Regel vier bis sechs Wochen); vorher gibt es auf Antrag eine vorläufige Abschlussbescheinigung. Ersatz für verlorene Zeugnisse gegen 15 Euro Gebühr.
- Exmatrikulationsbescheinigung: nach der Exmatrikulation in NordCampus, danach noch ein Jahr abrufbar, später beim Studierendenservice.
- Semesterticket: liegt als Deutschland-Semesterticket in der App des Verkehrsverbunds; bei Verlust des Handys neu in der App anmelden. Studierendenausweis (Campuscard) ersetzt der Studierendenservice gegen 10 Euro.',
 '{}', 'Facts on certificates and forms for plan bescheinigung_anfordern.', true),

('hs_studienverlauf_aendern', 1, 'system',
'Thema: Änderungen des Studienverlaufs. Angaben der Hochschule Nordstadt:
- Urlaubssemester (Beurlaubung): Antrag beim Studierendenservice bis zum Ende der Rückmeldefrist, aus wichtigem Grund (Krankheit, Auslandsaufenthalt, Praktikum außerhalb des Studienplans, Schwangerschaft und Kinderbetreuung, Pflege von Angehörigen, Wehr- oder Freiwilligendienst); in der Regel höchstens zwei Urlaubssemester, für Kinderbetreuung und Pflege mehr. Das erste Fachsemester kann nicht beurlaubt werden. Der Semesterbeitrag ist trotzdem zu zahlen (Erstattung des Semesterticketanteils auf Antrag beim AStA). Im Urlaubssemester ruht der BAföG-Anspruch; Wiederholungsprüfungen dürfen abgelegt werden.
- Studiengangwechsel: Neubewerbung in NordCampus innerhalb der Bewerbungsfristen; bisherige Leistungen werden auf Antrag beim Prüfungsausschuss des neuen Studiengangs anerkannt. Für BAföG ist ein Wechsel bis zum Beginn des vierten Fachsemesters aus wichtigem Grund unschädlich.
- Teilzeitstudium: in den Bachelorstudiengängen möglich, Antrag bis zum Ende der Rückmeldefrist für mindestens zwei Semester; zwei Teilzeitsemester zählen als ein Fachsemester.
- Exmatrikulation auf eigenen Antrag: Formular in NordCampus, jederzeit, Wirkung zum Ende des laufenden Semesters oder zu einem gewünschten früheren Tag; Erstattung des Semesterbeitrags nur bei Exmatrikulation vor Vorlesungsbeginn. Vorher Bibliotheksausweis zurückgeben. Die Exmatrikulationsbescheinigung kommt danach über NordCampus.
- Ein Studienabbruch kann vorher mit der Zentralen Studienberatung besprochen werden (Gebäude A, Raum A 0.20).',
 '{}', 'Facts on leave semesters, changes of programme, part-time study and leaving for plan studienverlauf_aendern.', true),

('hs_kontakt_sprechzeiten', 1, 'system',
'Thema: Kontakte und Sprechzeiten der Hochschule Nordstadt (Campus Nord, Nordring 1, 24100 Nordstadt):
- Studierendenservice (Studierendensekretariat): Gebäude A, Erdgeschoss, Raum A 0.12; offen Mo, Di, Do 9-12 Uhr, Do zusätzlich 13:30-16 Uhr, Fr 9-11:30 Uhr, Mi geschlossen; Telefon 04321 9876-100 (Mo-Fr 9-12 Uhr); studierendenservice@hs-nordstadt.example. In der vorlesungsfreien Zeit nur Mo, Di, Do 9-12 Uhr.
- Prüfungsamt: Gebäude B, 1. OG, Raum B 1.05; offen Mo und Do 9-11:30 Uhr, Di 14-15:30 Uhr; Telefon 04321 9876-200; pruefungsamt@hs-nordstadt.example.
- International Office: Gebäude C, Raum C 0.03; offen Mo-Do 10-12 Uhr, Di 14-16 Uhr; Telefon 04321 9876-300; international@hs-nordstadt.example.
- Zentrale Studienberatung: Gebäude A, Raum A 0.20; offene Sprechstunde Mi 10-13 Uhr, sonst nach Vereinbarung; Telefon 04321 9876-150; studienberatung@hs-nordstadt.example.
- Studienfachberatung der Studiengänge (Sprechstunde in der Vorlesungszeit, sonst nach Vereinbarung per E-Mail):
  Informatik: Raum D 2.14, Di 10-12 Uhr, fachberatung-informatik@hs-nordstadt.example;
  Betriebswirtschaftslehre: Raum E 1.08, Mi 13-15 Uhr, fachberatung-bwl@hs-nordstadt.example;
  Maschinenbau: Raum F 0.31, Do 10-12 Uhr, fachberatung-maschinenbau@hs-nordstadt.example;
  Psychologie: Raum G 2.02, Mo 14-16 Uhr, fachberatung-psychologie@hs-nordstadt.example;
  Soziale Arbeit: Raum G 1.17, Di 13-15 Uhr, fachberatung-sozialearbeit@hs-nordstadt.example;
  Pflegewissenschaft: Raum H 0.09, Mi 9-11 Uhr, fachberatung-pflege@hs-nordstadt.example;
  Elektrotechnik: Raum F 2.22, Do 14-16 Uhr, fachberatung-elektrotechnik@hs-nordstadt.example;
  Germanistik: Raum E 3.04, Fr 10-12 Uhr, fachberatung-germanistik@hs-nordstadt.example.
- An Feiertagen und zwischen Weihnachten und Neujahr sind alle Büros geschlossen. Nenne nur diese Angaben; für andere Stellen verweise auf die Telefonzentrale 04321 9876-0.',
 '{}', 'Directory of offices and office hours for plan kontakt_sprechzeiten.', true)
ON CONFLICT (name, version) DO UPDATE
   SET role = EXCLUDED.role, template = EXCLUDED.template, variables = EXCLUDED.variables,
       description = EXCLUDED.description, active = EXCLUDED.active
 WHERE (mcp.prompt.role, mcp.prompt.template, mcp.prompt.variables, mcp.prompt.description, mcp.prompt.active)
       IS DISTINCT FROM (EXCLUDED.role, EXCLUDED.template, EXCLUDED.variables, EXCLUDED.description, EXCLUDED.active);

------------------------------------------------------------------------------------------------
-- The interface: provider and embedding model as the demo's chatbot has them (when it exists)
------------------------------------------------------------------------------------------------
INSERT INTO mcp.interface (name, description, provider, embedding_model, system_prompt, access_role, max_iterations)
SELECT 'studierendenservice',
       'Studierendenservice der Hochschule Nordstadt: Bewerbung, Rückmeldung, Prüfungsordnungen, Bescheinigungen, Studienverlauf, Kontakte.',
       (SELECT i.provider FROM mcp.interface i WHERE i.name = 'chatbot'),
       (SELECT i.embedding_model FROM mcp.interface i WHERE i.name = 'chatbot'),
       'studierendenservice_system', 'public', 6
ON CONFLICT (name) DO UPDATE
   SET description = EXCLUDED.description,
       provider = COALESCE(mcp.interface.provider, EXCLUDED.provider),
       embedding_model = COALESCE(mcp.interface.embedding_model, EXCLUDED.embedding_model),
       system_prompt = EXCLUDED.system_prompt, access_role = EXCLUDED.access_role,
       max_iterations = EXCLUDED.max_iterations
 WHERE (mcp.interface.description, mcp.interface.provider, mcp.interface.embedding_model, mcp.interface.system_prompt,
        mcp.interface.access_role, mcp.interface.max_iterations)
       IS DISTINCT FROM (EXCLUDED.description, COALESCE(mcp.interface.provider, EXCLUDED.provider),
        COALESCE(mcp.interface.embedding_model, EXCLUDED.embedding_model), EXCLUDED.system_prompt,
        EXCLUDED.access_role, EXCLUDED.max_iterations);

INSERT INTO mcp.interface_tool (interface, tool) VALUES
    ('studierendenservice', 'getDialog'),
    ('studierendenservice', 'context_retrieve'),
    ('studierendenservice', 'thesaurus_expand')
ON CONFLICT DO NOTHING;

------------------------------------------------------------------------------------------------
-- The six plans (steps are rewritten below)
------------------------------------------------------------------------------------------------
DELETE FROM mcp.plan_step
 WHERE plan IN ('bewerbung_zulassung', 'rueckmeldung_beitrag', 'pruefungsordnung_auskunft',
                'bescheinigung_anfordern', 'studienverlauf_aendern', 'kontakt_sprechzeiten');

INSERT INTO mcp.plan AS p (name, interface, description, examples, required_kinds, optional_kinds, priority, enabled) VALUES
('bewerbung_zulassung', 'studierendenservice',
 'Bewerbung um einen Studienplatz und Zulassung: Zugangsvoraussetzungen, Numerus clausus (NC) und Auswahlverfahren, Bewerbungsfristen, das Bewerbungsportal und die hochzuladenden Unterlagen, Zulassung mit ausländischem Abschluss oder ohne Abitur, der Zulassungsbescheid; auf Wunsch für einen bestimmten Studiengang.',
 ARRAY['Bis wann muss ich mich für Psychologie zum Wintersemester bewerben?',
       'Wie hoch war der NC für Soziale Arbeit im letzten Jahr?',
       'Kann ich mich mit einem ausländischen Bachelorabschluss für den Master Elektrotechnik bewerben?',
       'Wo finde ich das Bewerbungsportal und welche Unterlagen muss ich hochladen?',
       'Kann man ohne Abitur mit abgeschlossener Ausbildung Pflegewissenschaft studieren?',
       'Ich habe noch keinen Zulassungsbescheid bekommen, wann werden die Zulassungen verschickt?'],
 '{}', '{studiengang,dokument}', 0, true),
('rueckmeldung_beitrag', 'studierendenservice',
 'Rückmeldung für das nächste Semester und der Semesterbeitrag: Höhe des Beitrags, Rückmeldefrist und Zahlungstermin, was der Beitrag enthält (Semesterticket, Studierendenwerk, Studierendenschaft), Überweisung, eine verpasste oder verspätete Zahlung, Säumnisgebühr und Mahnung, Erstattung.',
 ARRAY['Wie hoch ist der Semesterbeitrag im kommenden Sommersemester?',
       'Bis wann muss ich mich für das Wintersemester zurückmelden?',
       'Ich habe vergessen, den Semesterbeitrag zu überweisen – was passiert jetzt?',
       'Was ist im Semesterbeitrag alles enthalten?',
       'Wie hoch ist die Säumnisgebühr, wenn ich mich zu spät zurückmelde?',
       'Kann ich den Semesterbeitrag in Raten bezahlen?'],
 '{}', '{dokument}', 0, true),
('pruefungsordnung_auskunft', 'studierendenservice',
 'Was die Prüfungsordnung eines Studiengangs zu einem Thema regelt: Prüfungsanmeldung, Rücktritt und Krankheit, Anzahl der Prüfungsversuche, Wiederholung und Freiversuch, Fristen, Umfang und Bearbeitungszeit der Bachelor- oder Masterarbeit, Praxissemester und Pflichtpraktikum, Anerkennung und Anrechnung von Studien- und Prüfungsleistungen. Fehlt der Studiengang, wird nach ihm gefragt; die Antwort kommt aus den Prüfungsordnungen.',
 ARRAY['Wie oft darf ich in Informatik eine Prüfung wiederholen?',
       'Wie viele Seiten muss die Bachelorarbeit in Psychologie haben?',
       'Wie lange dauert das Praxissemester im Maschinenbau?',
       'Bis wann kann ich mich in BWL von einer Klausur abmelden?',
       'Werden Leistungen aus meinem Auslandssemester im Master Germanistik angerechnet?',
       'Wie viel Zeit habe ich für die Masterarbeit in Elektrotechnik?'],
 '{studiengang,thema}', '{}', 0, true),
('bescheinigung_anfordern', 'studierendenservice',
 'Eine Bescheinigung oder ein Formular ausstellen oder zuschicken lassen: Immatrikulationsbescheinigung, BAföG-Formblatt 9 oder 5, Bescheinigung für Krankenkasse, Rentenversicherung, Familienkasse oder Arbeitgeber, Notenspiegel oder Transcript of Records für eine Bewerbung im Ausland, Zeugnis und Urkunde, Exmatrikulationsbescheinigung, Semesterticket und Studierendenausweis.',
 ARRAY['Ich brauche eine Immatrikulationsbescheinigung für meine Krankenkasse.',
       'Wer füllt mir das Formblatt 9 für das BAföG-Amt aus?',
       'Können Sie mir einen Notenspiegel auf Englisch für meine Bewerbung im Ausland schicken?',
       'Mein Arbeitgeber will eine Werkstudentenbescheinigung, wo bekomme ich die?',
       'Wann bekomme ich mein Bachelorzeugnis und die Urkunde?',
       'Mein Studierendenausweis ist weg, wie bekomme ich einen neuen?'],
 '{dokument}', '{studiengang}', 0, true),
('studienverlauf_aendern', 'studierendenservice',
 'Den Studienverlauf ändern: ein Urlaubssemester (Beurlaubung) beantragen, den Studiengang wechseln, ins Teilzeitstudium wechseln, das Studium abbrechen oder sich exmatrikulieren; Anträge, Fristen und Folgen für BAföG, Prüfungen und Semesterbeitrag.',
 ARRAY['Wie beantrage ich ein Urlaubssemester wegen Krankheit?',
       'Ich möchte von BWL zu Informatik wechseln, wie geht das?',
       'Kann ich ab dem nächsten Semester in Teilzeit studieren?',
       'Ich will mein Studium abbrechen und mich exmatrikulieren.',
       'Bis wann muss der Antrag auf Beurlaubung für das Wintersemester gestellt sein?',
       'Ich bekomme im Sommer ein Kind, kann ich mich dafür beurlauben lassen?'],
 '{}', '{studiengang,dokument}', 0, true),
('kontakt_sprechzeiten', 'studierendenservice',
 'Öffnungszeiten, Sprechzeiten und Sprechstunden, Adresse, Gebäude und Raum, Telefonnummer oder E-Mail des Studierendensekretariats (Studierendenservice), des Prüfungsamts, des International Office, der Zentralen Studienberatung oder der Studienfachberatung eines Studiengangs; wie man sie erreicht.',
 ARRAY['Wann hat das Prüfungsamt geöffnet?',
       'Wie erreiche ich das International Office telefonisch?',
       'Wo ist das Studierendensekretariat, in welchem Raum?',
       'Wer macht die Studienfachberatung für Soziale Arbeit und wann ist Sprechstunde?',
       'Welche E-Mail-Adresse hat der Studierendenservice?',
       'Hat das Studierendensekretariat in den Semesterferien offen?'],
 '{}', '{studiengang}', 0, true)
ON CONFLICT (name) DO UPDATE
   SET interface = EXCLUDED.interface, description = EXCLUDED.description, examples = EXCLUDED.examples,
       required_kinds = EXCLUDED.required_kinds, optional_kinds = EXCLUDED.optional_kinds,
       priority = EXCLUDED.priority, enabled = EXCLUDED.enabled
 WHERE (p.interface, p.description, p.examples, p.required_kinds, p.optional_kinds, p.priority, p.enabled)
       IS DISTINCT FROM (EXCLUDED.interface, EXCLUDED.description, EXCLUDED.examples, EXCLUDED.required_kinds,
                         EXCLUDED.optional_kinds, EXCLUDED.priority, EXCLUDED.enabled);

INSERT INTO mcp.plan_step (plan, position, kind, prompt, prompt_mode, tool, arguments, tools, tool_choice, ask_kind, question) VALUES
-- bewerbung_zulassung
('bewerbung_zulassung', 1, 'prompt', 'hs_bewerbung_zulassung', 'extend', NULL, '{}', NULL, NULL, NULL, NULL),
('bewerbung_zulassung', 2, 'llm', NULL, 'extend', NULL, '{}', '{getDialog,thesaurus_expand}', 'auto', NULL, NULL),
-- rueckmeldung_beitrag
('rueckmeldung_beitrag', 1, 'prompt', 'hs_rueckmeldung_beitrag', 'extend', NULL, '{}', NULL, NULL, NULL, NULL),
('rueckmeldung_beitrag', 2, 'llm', NULL, 'extend', NULL, '{}', '{getDialog}', 'auto', NULL, NULL),
-- pruefungsordnung_auskunft: ask for the programme, then the regulations from the corpus
('pruefungsordnung_auskunft', 1, 'ask', NULL, 'extend', NULL, '{}', NULL, NULL, 'studiengang',
 'Für welchen Studiengang möchten Sie das wissen? Die Regeln stehen in der Prüfungsordnung des jeweiligen Studiengangs (Informatik, Betriebswirtschaftslehre, Maschinenbau, Psychologie, Soziale Arbeit, Pflegewissenschaft, Elektrotechnik oder Germanistik).'),
('pruefungsordnung_auskunft', 2, 'prompt', 'hs_pruefungsordnung_auskunft', 'extend', NULL, '{}', NULL, NULL, NULL, NULL),
('pruefungsordnung_auskunft', 3, 'retrieve', NULL, 'extend', 'context_retrieve', '{"query": "{{question}}"}', NULL, NULL, NULL, NULL),
('pruefungsordnung_auskunft', 4, 'llm', NULL, 'extend', NULL, '{}', '{context_retrieve,getDialog,thesaurus_expand}', 'auto', NULL, NULL),
-- bescheinigung_anfordern
('bescheinigung_anfordern', 1, 'ask', NULL, 'extend', NULL, '{}', NULL, NULL, 'dokument',
 'Welche Bescheinigung oder welches Formular brauchen Sie, und wofür (z. B. Immatrikulationsbescheinigung für die Krankenkasse, BAföG-Formblatt 9, Notenspiegel)?'),
('bescheinigung_anfordern', 2, 'prompt', 'hs_bescheinigung_anfordern', 'extend', NULL, '{}', NULL, NULL, NULL, NULL),
('bescheinigung_anfordern', 3, 'llm', NULL, 'extend', NULL, '{}', '{getDialog,thesaurus_expand}', 'auto', NULL, NULL),
-- studienverlauf_aendern
('studienverlauf_aendern', 1, 'prompt', 'hs_studienverlauf_aendern', 'extend', NULL, '{}', NULL, NULL, NULL, NULL),
('studienverlauf_aendern', 2, 'llm', NULL, 'extend', NULL, '{}', '{getDialog}', 'auto', NULL, NULL),
-- kontakt_sprechzeiten
('kontakt_sprechzeiten', 1, 'prompt', 'hs_kontakt_sprechzeiten', 'extend', NULL, '{}', NULL, NULL, NULL, NULL),
('kontakt_sprechzeiten', 2, 'llm', NULL, 'extend', NULL, '{}', '{getDialog}', 'auto', NULL, NULL);

COMMIT;
