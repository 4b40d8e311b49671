-- Domain G (tests/quality/SPEC.md): the tenant services (Mieterservice) of the
-- Wohnungsgenossenschaft Am Auenpark eG. The interface mieterservice, its system prompt, one
-- prompt per plan and the six plans with their steps, as the deployment's admin registers them.
-- Load the thesaurus first (SELECT mcp.load_thesaurus('<genossenschaft/thesaurus.json>'::jsonb)),
-- then \i this file.
-- One transaction; re-runnable: a second run leaves the same rows (prompts, interface and plans
-- are upserted, the tool mappings are inserted once, the plans' steps are rewritten).
\set ON_ERROR_STOP on

BEGIN;

------------------------------------------------------------------------------------------------
-- Prompts (version 1 of each, active)
------------------------------------------------------------------------------------------------
INSERT INTO mcp.prompt AS p (name, version, role, template, variables, description, active) VALUES
('mieterservice_system', 1, 'system',
'Du bist der digitale Mieterservice der Wohnungsgenossenschaft Am Auenpark eG. Du beantwortest Fragen von Mitgliedern, Mieterinnen und Mietern sowie Wohnungssuchenden zu Schäden und Reparaturen in Wohnung und Haus, zur Betriebskostenabrechnung, zu Bewerbung, Wohnungstausch, Kündigung und Übergabe, zur Mitgliedschaft und zu den Geschäftsanteilen, zur Hausordnung der Wohnanlagen und zu Bescheinigungen.
Die Wohnanlagen der Genossenschaft: Wohnanlage Lindenhof, Wohnanlage Auenpark, Hochhäuser am Flussufer, Wohnanlage Parkstraße, Siedlung Mühlenweg, Wohnanlage Am Schlossberg, Gartenstadt Nord, Wohnanlage Bahnhofsviertel.
Regeln:
1. Antworte auf Deutsch (auf Englisch, wenn auf Englisch gefragt wird), freundlich, knapp und in der Anrede, die die Person verwendet.
2. Stütze dich nur auf die Angaben in diesen Anweisungen und auf die Ergebnisse der Werkzeuge. Erfinde keine Beträge, Fristen, Uhrzeiten oder Telefonnummern. Wenn du etwas nicht weißt, nenne die zuständige Stelle der Geschäftsstelle.
3. Die Hausordnung und die Nutzungsbedingungen gelten jeweils nur für die Wohnanlage, für die sie erlassen sind; die Regeln unterscheiden sich zwischen den Wohnanlagen. Nenne Wohnanlage und Paragrafen.
4. Fehlt eine Angabe, ohne die du nicht antworten kannst (zum Beispiel die Wohnanlage oder die gewünschte Bescheinigung), rufe getDialog auf, statt zu raten.
5. Du kannst keine Verträge abschließen oder kündigen, keine Reparaturaufträge auslösen, keine Bescheinigungen ausstellen und kein Mietkonto einsehen: erkläre den Weg (Mieterportal, E-Mail, Telefon, Geschäftsstelle).
6. Bei Gasgeruch, Wasserrohrbruch, Stromausfall in der ganzen Wohnung oder eingeschlossenen Personen im Aufzug nenne immer zuerst, was sofort zu tun ist, und den Notdienst.
7. Keine Rechtsberatung: Zu Streitigkeiten mit Dritten (Nachbarn als Privatpersonen, Versicherungen, Ämter, Arbeitgeber) verweist du auf Mieterverein, Verbraucherberatung oder eine Anwältin oder einen Anwalt.
8. Zu Fragen außerhalb des Mieterservice der Genossenschaft (Wetter, Sport, Nahverkehr, Einrichtungs- und Renovierungstipps, Rezepte, Hausaufgaben, Programmierung) sagst du freundlich, dass du dafür nicht zuständig bist.
Kontakt: Geschäftsstelle Marktstraße 12, 39990 Weidenbrück, Telefon 0391 55540-0, service@wg-auenpark.example; Sprechzeiten Mo 9-12 Uhr, Di 9-12 und 14-18 Uhr, Do 9-12 und 14-16 Uhr, Fr 9-12 Uhr; Mieterportal und App „Auenpark Mieterportal“.',
 '{}', 'System prompt of the interface mieterservice (Wohnungsgenossenschaft Am Auenpark eG).', true),

('ms_schaden_melden', 1, 'system',
'Thema: Schaden oder Mangel in der Wohnung oder im Haus melden. Angaben der Genossenschaft:
- Meldewege: im Mieterportal oder in der App (Menü „Schaden melden“, mit Fotos); telefonisch bei der Reparaturannahme 0391 55540-40 (Mo-Do 7:30-16 Uhr, Fr 7:30-13 Uhr); per E-Mail an reparatur@wg-auenpark.example; persönlich beim Hausmeister der Wohnanlage (Sprechzeiten im Schaukasten im Treppenhaus). Bitte angeben: Name, Adresse mit Hausnummer und Lage der Wohnung (Geschoss, links/rechts/Mitte), Telefonnummer, was genau defekt ist, seit wann, und wann Handwerker in die Wohnung können.
- Dringlichkeit: Notfall (Gefahr für Personen oder Gebäude: Wasserrohrbruch, Gasgeruch, Stromausfall in der ganzen Wohnung, Heizungsausfall bei Frost, Personen im Aufzug eingeschlossen, Haustür schließt nicht): sofort, der Notdienst ist in der Regel innerhalb von 2 Stunden vor Ort. Dringend (Heizung oder Warmwasser fällt aus, Toilette verstopft, Aufzug außer Betrieb, Wohnungstür lässt sich nicht schließen): Beginn der Arbeiten innerhalb eines Werktags. Normal (tropfender Wasserhahn, Rollladengurt, Fenstergriff, Steckdose, Schimmelflecken): Termin innerhalb von 10 Werktagen.
- Wer kommt: ein Vertragshandwerker der Genossenschaft; er meldet sich zur Terminabsprache direkt bei der Mieterin oder dem Mieter. Bitte keine eigenen Handwerker beauftragen; Kosten eigenmächtig beauftragter Firmen werden nicht erstattet, außer im Notfall, wenn der Notdienst nicht erreichbar war.
- Notdienst außerhalb der Geschäftszeiten, nachts, am Wochenende und an Feiertagen: 0391 55540-99 (rund um die Uhr). Nur für Notfälle; andere Schäden bitte am nächsten Werktag melden.
- Gasgeruch: keine Schalter betätigen, kein offenes Feuer, Fenster öffnen, Haupthahn schließen, Haus verlassen, von draußen den Entstörungsdienst des Gasnetzbetreibers (Nummer am Aushang im Treppenhaus) oder 112 anrufen, danach den Notdienst der Genossenschaft.
- Wasserrohrbruch: Hauptabsperrventil der Wohnung schließen, Strom in betroffenen Räumen abschalten, Notdienst anrufen; Schäden an der eigenen Einrichtung der Hausratversicherung melden.
- Aufzug: Bei eingeschlossenen Personen den Notrufknopf in der Kabine drücken (Notrufzentrale rund um die Uhr). Eine Störung ohne eingeschlossene Personen der Reparaturannahme oder dem Notdienst melden.
- Schimmel: Fotos machen, Möbel etwa 5 cm von Außenwänden abrücken, mehrmals täglich stoßlüften; ein Techniker der Genossenschaft sieht sich den Befall innerhalb von 5 Werktagen an und misst die Feuchtigkeit.
- Ungeziefer (Schaben, Bettwanzen, Mäuse, Ratten): sofort melden; die Genossenschaft beauftragt einen Schädlingsbekämpfer, der auch die Nachbarwohnungen prüft. Wespennester an Balkon oder Fassade werden von einer Fachfirma entfernt.
- Rauchwarnmelder: werden einmal jährlich von der Wartungsfirma geprüft; nicht abnehmen und nicht abkleben. Piept ein Melder dauerhaft oder fehlt er, bitte der Reparaturannahme melden, der Austausch ist kostenlos.
- Schlüsselverlust oder ausgesperrt: außerhalb der Geschäftszeiten selbst einen Schlüsseldienst rufen (Kosten trägt der Haushalt); Ersatzschlüssel und neue Schließzylinder bestellt die Geschäftsstelle gegen Kostenerstattung, bei Schließanlagen nur mit schriftlichem Antrag.
- Kosten: Reparaturen trägt die Genossenschaft. Kleinreparaturen an Teilen, die dem häufigen Zugriff unterliegen (Wasserhähne, Lichtschalter, Steckdosen, Fenster- und Türgriffe, Rollladengurte), trägt nach § 9 des Nutzungsvertrags der Haushalt bis 100 Euro im Einzelfall und höchstens 6 Prozent der Jahresnettokaltmiete im Jahr. Schäden, die der Haushalt verursacht hat, trägt er selbst (private Haftpflichtversicherung).',
 '{}', 'Facts for the plan schaden_melden.', true),

('ms_nebenkosten_erklaeren', 1, 'system',
'Thema: Betriebskostenabrechnung (Nebenkostenabrechnung) erklären. Angaben der Genossenschaft:
- Abrechnungszeitraum ist das Kalenderjahr. Die Abrechnung wird in der Regel bis Ende Juni des Folgejahres verschickt, spätestens innerhalb von 12 Monaten nach Ende des Abrechnungszeitraums.
- Aufbau: Kostenarten nach der Betriebskostenverordnung (Grundsteuer, Wasser und Abwasser, Heizung und Warmwasser, Aufzug, Straßenreinigung und Müllbeseitigung, Gebäudereinigung, Gartenpflege, Allgemeinstrom, Schornsteinfeger, Versicherungen, Hausmeister, Kabelanschluss, Winterdienst), die Gesamtkosten der Wirtschaftseinheit, der Verteilerschlüssel, der Anteil der Wohnung, die geleisteten Vorauszahlungen und das Ergebnis (Nachzahlung oder Guthaben).
- Verteilerschlüssel: in der Regel nach Wohnfläche; Kaltwasser und Abwasser nach Verbrauch laut Wohnungswasserzähler; Kabelanschluss und Rauchwarnmelderwartung je Wohnung; Aufzug nur für die Häuser mit Aufzug (Erdgeschosswohnungen sind nicht ausgenommen). Heiz- und Warmwasserkosten nach der Heizkostenverordnung zu 70 Prozent nach Verbrauch und zu 30 Prozent nach Wohnfläche; die Verbrauchswerte liefert der Messdienst (Funkablesung). Bei Gasheizungen werden die CO2-Kosten nach dem CO2-Kostenaufteilungsgesetz zwischen Genossenschaft und Haushalt aufgeteilt; der Anteil steht auf der Heizkostenabrechnung.
- Nachzahlung: fällig 30 Tage nach Zugang der Abrechnung; liegt ein SEPA-Lastschriftmandat vor, wird sie zu diesem Termin eingezogen. Ratenzahlung ist auf Antrag möglich (Mietenbuchhaltung 0391 55540-60).
- Guthaben: wird innerhalb von 4 Wochen auf das Konto des Haushalts überwiesen oder, wenn Mietrückstände bestehen, mit diesen verrechnet.
- Einwendungen: innerhalb von 12 Monaten nach Zugang der Abrechnung, in Textform (Brief oder E-Mail) mit Begründung an die Betriebskostenabteilung. Der Einwand hält die Fälligkeit einer Nachzahlung nicht auf, es sei denn, die Abrechnung ist offensichtlich fehlerhaft.
- Belegeinsicht: nach Terminvereinbarung in der Geschäftsstelle (Betriebskostenabteilung 0391 55540-50, betriebskosten@wg-auenpark.example); Kopien einzelner Belege gegen 0,30 Euro je Seite.
- Vorauszahlungen: Nach jeder Abrechnung werden die monatlichen Vorauszahlungen auf ein Zwölftel der abgerechneten Kosten angepasst, gegebenenfalls mit einem Zuschlag für angekündigte Preissteigerungen. Die neue Höhe gilt ab dem übernächsten Monat nach Zugang. Eine Senkung oder freiwillige Erhöhung kann der Haushalt formlos beantragen.
- Die Bescheinigung über haushaltsnahe Dienstleistungen (§ 35a EStG) liegt der Abrechnung bei.
- Bei Auszug während des Jahres wird zeitanteilig abgerechnet; die Abrechnung kommt mit der nächsten regulären Abrechnung an die neue Adresse.',
 '{}', 'Facts for the plan nebenkosten_erklaeren.', true),

('ms_wohnung_wechseln', 1, 'system',
'Thema: Einzug, Wohnungswechsel innerhalb der Genossenschaft und Auszug. Angaben der Genossenschaft:
- Bewerbung: Wohnungen werden nur an Mitglieder vergeben; wer noch nicht Mitglied ist, wird es mit dem Abschluss des Nutzungsvertrags (Beitrittserklärung und Geschäftsanteile). Bewerbung mit dem Bewerbungsbogen im Mieterportal oder in der Geschäftsstelle (Vermietung 0391 55540-30, vermietung@wg-auenpark.example), mit Haushaltsgröße, gewünschter Wohnungsgröße und Wohnanlage, Einkommensnachweis; für öffentlich geförderte Wohnungen ein gültiger Wohnberechtigungsschein (WBS).
- Warteliste: Die Bewerbung gilt 12 Monate und muss danach im Portal verlängert werden, sonst wird sie gelöscht. Feste Wartezeiten gibt es nicht; vergeben wird nach Haushaltsgröße, Dringlichkeit und Dauer der Bewerbung. Angebote kommen per E-Mail mit Besichtigungstermin; wer drei Angebote ohne Grund ablehnt, wird von der Warteliste genommen.
- Wohnungstausch: Mitglieder können innerhalb der Genossenschaft tauschen (Tauschantrag im Portal, Tauschbörse). Beide Haushalte müssen zustimmen, die Genossenschaft prüft die Belegung. Wer in eine kleinere Wohnung zieht, erhält eine Umzugshilfe von 500 Euro; die Pflichtanteile werden an die neue Wohnungsgröße angepasst.
- Kündigung: schriftlich mit Unterschrift aller Vertragspartner (E-Mail oder Fax genügen nicht). Kündigungsfrist 3 Monate: Geht die Kündigung bis zum dritten Werktag eines Monats ein, endet der Vertrag mit Ablauf des übernächsten Monats. Ein früherer Auszug ist durch Aufhebungsvereinbarung möglich, wenn die Wohnung neu vermietet werden kann. Beim Tod des Mieters haben Angehörige ein Sonderkündigungsrecht.
- Die Kündigungsbestätigung kommt innerhalb von 2 Wochen, mit dem Termin der Vorabnahme. Die Kündigung der Wohnung beendet die Mitgliedschaft nicht; diese muss gesondert gekündigt werden.
- Vorabnahme: etwa 4 bis 6 Wochen vor dem Auszug mit dem Wohnungsverwalter; dabei wird festgelegt, was bis zur Übergabe zu tun ist (Einbauten entfernen, Schäden beseitigen, Schönheitsreparaturen nach dem Nutzungsvertrag).
- Übergabetermin (Endabnahme): am letzten Werktag vor Vertragsende, Termin mit dem Wohnungsverwalter. Die Wohnung wird geräumt und besenrein übergeben, alle Schlüssel werden zurückgegeben, die Zählerstände werden im Übergabeprotokoll festgehalten. Auch beim Einzug wird ein Übergabeprotokoll erstellt.
- Wohnungsgeberbestätigung: Für die Anmeldung bei der Meldebehörde (innerhalb von 2 Wochen nach dem Einzug) stellt die Genossenschaft die Wohnungsgeberbestätigung aus; sie wird bei der Schlüsselübergabe ausgehändigt oder auf Anfrage innerhalb von 3 Werktagen zugeschickt. Beim Auszug ins Ausland gilt dasselbe für die Abmeldung.
- Untervermietung einzelner Räume nur mit schriftlicher Erlaubnis der Genossenschaft.',
 '{}', 'Facts for the plan wohnung_wechseln.', true),

('ms_mitgliedschaft_anteile', 1, 'system',
'Thema: Mitgliedschaft in der Genossenschaft und Geschäftsanteile. Angaben der Genossenschaft (Satzung in der Fassung vom 14. Juni 2023):
- Beitritt mit der Beitrittserklärung; Eintrittsgeld 50 Euro. Ein Geschäftsanteil beträgt 200 Euro. Jedes Mitglied zeichnet einen Mitgliedschaftsanteil; wer eine Wohnung nutzt, zusätzlich wohnungsbezogene Pflichtanteile: 1-Raum-Wohnung 2 Anteile, 2-Raum-Wohnung 4 Anteile, 3-Raum-Wohnung 6 Anteile, ab 4 Räumen 8 Anteile. Die Pflichtanteile sind vor Vertragsbeginn einzuzahlen; auf Antrag 25 Prozent vorab und der Rest in höchstens 24 Monatsraten. Bis zu 30 freiwillige weitere Anteile sind möglich.
- Dividende: Über die Dividende auf das Geschäftsguthaben beschließt die Vertreterversammlung mit dem Jahresabschluss; für das Geschäftsjahr 2025 wurden 3 Prozent beschlossen. Sie wird im Juli ausgezahlt, abzüglich Kapitalertragsteuer und Solidaritätszuschlag, sofern kein Freistellungsauftrag oder keine Nichtveranlagungsbescheinigung vorliegt. Die Steuerbescheinigung kommt mit der Auszahlung.
- Kündigung der Mitgliedschaft: schriftlich mit einer Frist von 3 Monaten zum Ende des Geschäftsjahres (Geschäftsjahr ist das Kalenderjahr; die Kündigung muss also bis zum 30. September eingehen). Solange ein Nutzungsvertrag besteht, kann die Mitgliedschaft nicht gekündigt werden. Freiwillige Anteile können einzeln mit derselben Frist gekündigt werden.
- Auszahlung: Das Auseinandersetzungsguthaben wird nach dem Ausscheiden ausgezahlt, sobald die Vertreterversammlung den Jahresabschluss des Jahres festgestellt hat, zu dessen Ende das Mitglied ausscheidet, spätestens 6 Monate nach diesem Jahresende (in der Regel im Juli). Offene Forderungen (Mietrückstände, Kosten der Wohnungsübergabe) werden verrechnet. Bitte die Bankverbindung rechtzeitig mitteilen.
- Übertragung: Das Geschäftsguthaben kann durch schriftliche Übertragungsvereinbarung auf ein anderes Mitglied oder eine Person, die Mitglied wird, übertragen werden (zum Beispiel auf Kinder oder Lebenspartner); der Vorstand muss zustimmen. Das übertragende Mitglied scheidet dann ohne Kündigungsfrist aus.
- Tod eines Mitglieds: Die Mitgliedschaft geht auf die Erben über und endet mit dem Schluss des Geschäftsjahres. Ehe- oder Lebenspartner, die in der Wohnung bleiben, können die Mitgliedschaft fortsetzen.
- Vertreterversammlung: Die Genossenschaft hat über 1.500 Mitglieder; ihre Rechte üben gewählte Vertreterinnen und Vertreter aus (je 50 Mitglieder eine Vertreterin oder ein Vertreter, Amtszeit 5 Jahre, nächste Wahl im Frühjahr 2027). Jedes volljährige Mitglied kann kandidieren; Kandidaturen beim Wahlvorstand in der Geschäftsstelle. Die ordentliche Vertreterversammlung findet im Juni statt; der Geschäftsbericht steht danach im Mieterportal. Organe: Vorstand, Aufsichtsrat, Vertreterversammlung.
- Mitgliederwesen: 0391 55540-20, mitglieder@wg-auenpark.example (auch für Adress- und Bankdatenänderungen, Freistellungsaufträge).',
 '{}', 'Facts for the plan mitgliedschaft_anteile.', true),

('ms_hausordnung_auskunft', 1, 'system',
'Thema: Hausordnung und Nutzungsbedingungen der Wohnanlage {{wohnanlage}}.
- Die Genossenschaft hat für jede Wohnanlage eine eigene Hausordnung mit Nutzungsbedingungen, in Abschnitten: Ruhezeiten und Lärmschutz; Tierhaltung; Abfall, Reinigung und Winterdienst; Balkone, Terrassen und Grillen; Stellplätze, Garagen und Fahrräder. Zeiten, Beträge, Fristen und Ausnahmen unterscheiden sich zwischen den Wohnanlagen.
- Antworte nur aus den Abschnitten der Wohnanlage {{wohnanlage}}, die das Werkzeug context_retrieve liefert. Nenne die Wohnanlage und den Paragrafen. Regeln anderer Wohnanlagen gelten dort nicht; verwende sie nicht.
- Passt kein gelieferter Abschnitt zur Frage, suche noch einmal mit context_retrieve, mit dem Namen der Wohnanlage und dem Thema. Findest du nichts, sage das und verweise an den Hausmeister der Wohnanlage oder an die Geschäftsstelle (0391 55540-0).
- Ist eine Zustimmung der Genossenschaft nötig (zum Beispiel für Hund, Katze, Markise oder Wallbox), nenne den Weg: schriftlicher Antrag an die Geschäftsstelle oder über das Mieterportal.',
 '{wohnanlage}', 'Instructions for the plan hausordnung_auskunft (the estate is asked for first).', true),

('ms_bescheinigung_anfordern', 1, 'system',
'Thema: Bescheinigungen und Unterlagen anfordern. Angaben der Genossenschaft:
- Anforderung: im Mieterportal (Menü „Bescheinigungen“), per E-Mail an service@wg-auenpark.example, per Brief oder in der Geschäftsstelle. Ausgestellt wird nur für Vertragspartner und Mitglieder selbst oder für Bevollmächtigte mit schriftlicher Vollmacht. Zugestellt wird per Post an die Wohnanschrift oder in das Postfach des Mieterportals; an Dritte (Jobcenter, Wohngeldstelle, neuer Vermieter) nur auf ausdrücklichen Wunsch.
- Bearbeitungszeit: in der Regel 5 Werktage; Wohnungsgeberbestätigung innerhalb von 3 Werktagen.
- Mietbescheinigung (für Jobcenter, Sozialamt oder Wohngeldstelle): Bitte das Formular des Amtes mitschicken oder hochladen; die Genossenschaft füllt es aus (Nettokaltmiete, Betriebs- und Heizkostenvorauszahlungen, Wohnfläche, Zahl der Räume, Beginn des Nutzungsvertrags). Ohne Formular wird die allgemeine Mietbescheinigung der Genossenschaft ausgestellt. Kostenlos.
- Mietschuldenfreiheitsbescheinigung (für einen neuen Vermieter): bestätigt, dass aus dem Nutzungsvertrag keine Rückstände bestehen; wird nur ausgestellt, wenn das Mietkonto ausgeglichen ist. Kostenlos.
- Wohnungsgeberbestätigung (für die Meldebehörde bei Einzug oder Auszug): kostenlos.
- Kopie des Nutzungsvertrags (Zweitschrift): die erste Kopie kostenlos, jede weitere 10 Euro.
- Geschäftsanteilsbestätigung: Bestätigung über die gezeichneten Geschäftsanteile und das Geschäftsguthaben zum letzten Jahresabschluss oder zu einem gewünschten Stichtag (zum Beispiel für Jobcenter, Bank oder Nachlass), vom Mitgliederwesen (0391 55540-20). Kostenlos.
- Zweitschrift der Betriebskosten- oder Heizkostenabrechnung, Bescheinigung über haushaltsnahe Dienstleistungen (§ 35a EStG), Mietkontoauszug: über die Betriebskostenabteilung beziehungsweise die Mietenbuchhaltung, kostenlos für die letzten drei Jahre.
- Steuerbescheinigung über die Dividende: kommt automatisch im Juli; eine Zweitschrift stellt das Mitgliederwesen aus.
- Welche Bescheinigung gemeint ist, muss klar sein; ist es unklar, frage mit getDialog nach.',
 '{}', 'Facts for the plan bescheinigung_anfordern.', true)
ON CONFLICT (name, version) DO UPDATE
   SET role = EXCLUDED.role, template = EXCLUDED.template, variables = EXCLUDED.variables,
       description = EXCLUDED.description, active = EXCLUDED.active
 WHERE (p.role, p.template, p.variables, p.description, p.active)
       IS DISTINCT FROM (EXCLUDED.role, EXCLUDED.template, EXCLUDED.variables, EXCLUDED.description, EXCLUDED.active);

------------------------------------------------------------------------------------------------
-- Interface: provider and embedding model from the interface chatbot when it exists (kept when
-- already set, so an evaluation script may set them before or after this file runs)
------------------------------------------------------------------------------------------------
INSERT INTO mcp.interface AS i (name, description, provider, system_prompt, access_role, max_iterations, embedding_model)
SELECT 'mieterservice',
       'Mieterservice der Wohnungsgenossenschaft Am Auenpark eG: Schäden, Betriebskosten, Wohnungswechsel, Mitgliedschaft, Hausordnung, Bescheinigungen.',
       c.provider, 'mieterservice_system', 'public', 6, c.embedding_model
  FROM (VALUES (1)) AS v(x) LEFT JOIN mcp.interface c ON c.name = 'chatbot'
ON CONFLICT (name) DO UPDATE
   SET description = EXCLUDED.description, system_prompt = EXCLUDED.system_prompt,
       access_role = EXCLUDED.access_role, max_iterations = EXCLUDED.max_iterations,
       provider = COALESCE(i.provider, EXCLUDED.provider),
       embedding_model = COALESCE(i.embedding_model, EXCLUDED.embedding_model)
 WHERE (i.description, i.system_prompt, i.access_role, i.max_iterations)
       IS DISTINCT FROM (EXCLUDED.description, EXCLUDED.system_prompt, EXCLUDED.access_role, EXCLUDED.max_iterations)
    OR (i.provider IS NULL AND EXCLUDED.provider IS NOT NULL)
    OR (i.embedding_model IS NULL AND EXCLUDED.embedding_model IS NOT NULL);

INSERT INTO mcp.interface_tool (interface, tool) VALUES
    ('mieterservice', 'getDialog'),
    ('mieterservice', 'context_retrieve'),
    ('mieterservice', 'thesaurus_expand')
ON CONFLICT DO NOTHING;

------------------------------------------------------------------------------------------------
-- Plans (upserted; their steps are deleted first and rewritten below)
------------------------------------------------------------------------------------------------
DELETE FROM mcp.plan_step
 WHERE plan IN ('schaden_melden', 'nebenkosten_erklaeren', 'wohnung_wechseln',
                'mitgliedschaft_anteile', 'hausordnung_auskunft', 'bescheinigung_anfordern');

INSERT INTO mcp.plan AS pl (name, interface, description, examples, required_kinds, optional_kinds) VALUES
('schaden_melden', 'mieterservice',
 'Einen Schaden oder Mangel in der Wohnung oder im Haus melden: Heizung oder Warmwasser fällt aus, Wasserschaden oder Rohrbruch, Schimmel, Aufzug defekt, Türschloss oder Haustür kaputt, Fenster, Rollladen, Elektrik, Rauchwarnmelder, Ungeziefer wie Schaben oder Mäuse. Wie dringend die Reparatur ist, wer kommt und wann, wer die Kosten trägt, und der Notdienst nachts, am Wochenende und an Feiertagen.',
 ARRAY['Bei mir ist seit gestern die Heizung kalt, wen muss ich anrufen?',
       'In der Küche tropft Wasser von der Decke, was soll ich jetzt tun?',
       'Im Schlafzimmer bildet sich Schimmel an der Außenwand. Kommt da jemand vorbei?',
       'Der Aufzug steht schon wieder seit drei Tagen still.',
       'Wer hilft mir am Wochenende, wenn nachts ein Rohr platzt?',
       'Wir haben Kakerlaken in der Küche entdeckt.',
       'Das Schloss an meiner Wohnungstür klemmt, wann kann ein Handwerker kommen?'],
 '{}', '{mangel,wohnanlage}'),

('nebenkosten_erklaeren', 'mieterservice',
 'Die Betriebskostenabrechnung (Nebenkostenabrechnung) und die Heizkostenabrechnung erklären: warum eine Nachzahlung oder ein Guthaben entsteht, die einzelnen Kostenarten und der Verteilerschlüssel, wann eine Nachzahlung fällig ist und wann ein Guthaben kommt, Einspruch oder Widerspruch gegen die Abrechnung, Einsicht in die Belege, die Höhe und Anpassung der monatlichen Vorauszahlungen.',
 ARRAY['Warum muss ich laut Betriebskostenabrechnung über 300 Euro nachzahlen?',
       'Wann wird mir das Guthaben aus der Nebenkostenabrechnung überwiesen?',
       'Nach welchem Schlüssel werden die Heizkosten auf die Wohnungen verteilt?',
       'Ich möchte die Belege zur Abrechnung einsehen. Wie geht das?',
       'Bis wann kann ich gegen die Nebenkostenabrechnung Einspruch einlegen?',
       'Kann ich meine monatlichen Vorauszahlungen senken lassen?',
       'Warum zahle ich im Erdgeschoss für den Aufzug mit?'],
 '{}', '{dokument,wohnanlage}'),

('wohnung_wechseln', 'mieterservice',
 'Einzug, Umzug innerhalb der Genossenschaft und Auszug: sich für eine Wohnung bewerben, Warteliste und Wohnungsangebote, Wohnungstausch, Kündigung der Wohnung und Kündigungsfrist, Vorabnahme und Übergabetermin mit Übergabeprotokoll, die Wohnungsgeberbestätigung für die Anmeldung bei der Meldebehörde.',
 ARRAY['Wie kann ich mich bei der Genossenschaft für eine Wohnung bewerben?',
       'Wie lange muss man auf eine Dreiraumwohnung warten?',
       'Wir möchten unsere große Wohnung gegen eine kleinere tauschen.',
       'Welche Kündigungsfrist habe ich, wenn ich ausziehen will?',
       'Wann ist der Übergabetermin, wenn ich Ende März ausziehe?',
       'Bekomme ich beim Einzug die Wohnungsgeberbestätigung für das Bürgeramt?',
       'Wir suchen eine Wohnung im Lindenhof, gibt es eine Warteliste?'],
 '{}', '{wohnanlage,dokument}'),

('mitgliedschaft_anteile', 'mieterservice',
 'Mitgliedschaft in der Genossenschaft: Geschäftsanteile und Pflichtanteile, ihre Höhe und Einzahlung, Auszahlung des Geschäftsguthabens nach dem Austritt oder der Kündigung der Mitgliedschaft, die Dividende, Vertreterversammlung und Vertreterwahl, Übertragung der Mitgliedschaft oder des Guthabens, Mitgliedschaft im Todesfall.',
 ARRAY['Wie viele Geschäftsanteile muss ich für eine Zweiraumwohnung zeichnen?',
       'Wann bekomme ich meine Genossenschaftsanteile nach dem Auszug zurück?',
       'Wie hoch ist in diesem Jahr die Dividende?',
       'Wie kann ich mich als Vertreter für die Vertreterversammlung aufstellen lassen?',
       'Kann ich meine Mitgliedschaft auf meine Tochter übertragen?',
       'Wie kündige ich meine Mitgliedschaft in der Genossenschaft?'],
 '{}', '{dokument}'),

('hausordnung_auskunft', 'mieterservice',
 'Was die Hausordnung und die Nutzungsbedingungen einer Wohnanlage zu einem Thema sagen: Ruhezeiten, Nachtruhe und Lärm, Tierhaltung wie Hund oder Katze, Mülltrennung, Treppenhausreinigung und Winterdienst, Balkone, Terrassen und Grillen, Stellplätze, Garagen, Tiefgarage und Fahrräder. Die Regeln gelten je Wohnanlage; fehlt die Wohnanlage, wird nach ihr gefragt.',
 ARRAY['Darf ich im Lindenhof auf dem Balkon grillen?',
       'Ab wann gilt in der Parkstraße die Nachtruhe?',
       'Darf ich in den Hochhäusern am Fluss einen Hund halten?',
       'Wer muss in der Siedlung Mühlenweg im Winter Schnee räumen?',
       'Wo darf ich in der Gartenstadt Nord mein Fahrrad abstellen?',
       'Was kostet ein Tiefgaragenstellplatz am Schlossberg?',
       'Darf ich samstags in der Wohnung bohren?'],
 '{wohnanlage}', '{dokument}'),

('bescheinigung_anfordern', 'mieterservice',
 'Eine Bescheinigung oder Unterlage ausstellen oder zuschicken lassen: Mietbescheinigung für Jobcenter oder Wohngeldstelle, Mietschuldenfreiheitsbescheinigung für den neuen Vermieter, Kopie des Nutzungsvertrags, Bestätigung der Geschäftsanteile, Zweitschrift einer Abrechnung, Mietkontoauszug; wie man sie anfordert und wie lange es dauert.',
 ARRAY['Ich brauche eine Mietbescheinigung für das Jobcenter.',
       'Können Sie mir eine Mietschuldenfreiheitsbescheinigung ausstellen?',
       'Bitte schicken Sie mir eine Kopie meines Nutzungsvertrags.',
       'Die Wohngeldstelle will vom Vermieter eine Bestätigung über die Miethöhe.',
       'Ich benötige für die Bank eine Bestätigung über meine Geschäftsanteile.',
       'Wie lange dauert es, bis ich eine Bescheinigung bekomme?'],
 '{}', '{dokument}')
ON CONFLICT (name) DO UPDATE
   SET interface = EXCLUDED.interface, description = EXCLUDED.description, examples = EXCLUDED.examples,
       required_kinds = EXCLUDED.required_kinds, optional_kinds = EXCLUDED.optional_kinds,
       priority = EXCLUDED.priority, enabled = EXCLUDED.enabled
 WHERE (pl.interface, pl.description, pl.examples, pl.required_kinds, pl.optional_kinds, pl.priority, pl.enabled)
       IS DISTINCT FROM (EXCLUDED.interface, EXCLUDED.description, EXCLUDED.examples,
                         EXCLUDED.required_kinds, EXCLUDED.optional_kinds, EXCLUDED.priority, EXCLUDED.enabled);

------------------------------------------------------------------------------------------------
-- Steps
------------------------------------------------------------------------------------------------
INSERT INTO mcp.plan_step (plan, position, kind, prompt, prompt_mode, tool, arguments, tools, tool_choice, ask_kind, question) VALUES
-- schaden_melden: facts, then the model (may ask for a missing detail, may look up a defect's synonyms)
('schaden_melden', 1, 'prompt', 'ms_schaden_melden', 'extend', NULL, '{}', NULL, NULL, NULL, NULL),
('schaden_melden', 2, 'llm', NULL, 'extend', NULL, '{}', '{getDialog,thesaurus_expand}', 'auto', NULL, NULL),

-- nebenkosten_erklaeren
('nebenkosten_erklaeren', 1, 'prompt', 'ms_nebenkosten_erklaeren', 'extend', NULL, '{}', NULL, NULL, NULL, NULL),
('nebenkosten_erklaeren', 2, 'llm', NULL, 'extend', NULL, '{}', '{getDialog}', 'auto', NULL, NULL),

-- wohnung_wechseln
('wohnung_wechseln', 1, 'prompt', 'ms_wohnung_wechseln', 'extend', NULL, '{}', NULL, NULL, NULL, NULL),
('wohnung_wechseln', 2, 'llm', NULL, 'extend', NULL, '{}', '{getDialog}', 'auto', NULL, NULL),

-- mitgliedschaft_anteile
('mitgliedschaft_anteile', 1, 'prompt', 'ms_mitgliedschaft_anteile', 'extend', NULL, '{}', NULL, NULL, NULL, NULL),
('mitgliedschaft_anteile', 2, 'llm', NULL, 'extend', NULL, '{}', '{getDialog}', 'auto', NULL, NULL),

-- hausordnung_auskunft: the estate first, then its house rules from the corpus
('hausordnung_auskunft', 1, 'ask', NULL, 'extend', NULL, '{}', NULL, NULL, 'wohnanlage',
 'Für welche Wohnanlage möchten Sie es wissen? Die Hausordnungen gelten je Wohnanlage: Lindenhof, Auenpark, Hochhäuser am Flussufer, Parkstraße, Siedlung Mühlenweg, Am Schlossberg, Gartenstadt Nord oder Bahnhofsviertel.'),
('hausordnung_auskunft', 2, 'prompt', 'ms_hausordnung_auskunft', 'extend', NULL, '{}', NULL, NULL, NULL, NULL),
('hausordnung_auskunft', 3, 'retrieve', NULL, 'extend', 'context_retrieve', '{"query": "{{question}}"}', NULL, NULL, NULL, NULL),
('hausordnung_auskunft', 4, 'llm', NULL, 'extend', NULL, '{}', '{context_retrieve,getDialog}', 'auto', NULL, NULL),

-- bescheinigung_anfordern
('bescheinigung_anfordern', 1, 'prompt', 'ms_bescheinigung_anfordern', 'extend', NULL, '{}', NULL, NULL, NULL, NULL),
('bescheinigung_anfordern', 2, 'llm', NULL, 'extend', NULL, '{}', '{getDialog}', 'auto', NULL, NULL);

COMMIT;
