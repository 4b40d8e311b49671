-- Domain D (tests/quality/SPEC.md): the citizen services of a town hall (Bürgerservice) for
-- the eight towns Bad Kreuznach, Bamberg, Cottbus, Flensburg, Göttingen, Heilbronn, Paderborn
-- and Trier. Written by the deployment's admin from the SPEC's plan descriptions.
--
-- Load after the extension (CREATE EXTENSION pg_mcp CASCADE) and, when it is there, after the
-- demo's interface chatbot (its provider and embedding model are taken over):
--   SELECT mcp.load_thesaurus(pg_read_file('.../buergerservice/thesaurus.json')::jsonb);  -- or psql \set + :'thes'::jsonb
--   \i tests/quality/buergerservice/plans.sql
-- The bylaws (tests/quality/corpus/buerger_corpus.jsonl) are ingested with mcp.ingest, one call
-- per line (uri, title, body, metadata), into a collection of purpose 'rag' whose model is the
-- interface's embedding_model, for context_retrieve.
--
-- One transaction; running it again gives the same rows (prompts and the interface are
-- upserted, the tool mappings added when missing, the six plans deleted and rewritten).
\set ON_ERROR_STOP on

BEGIN;

------------------------------------------------------------------------------------------------
-- Prompts
------------------------------------------------------------------------------------------------
INSERT INTO mcp.prompt (name, version, role, template, variables, description) VALUES
('buergerservice_system', 1, 'system',
 'Sie sind der digitale Bürgerservice der Städte Bad Kreuznach, Bamberg, Cottbus, Flensburg, Göttingen, Heilbronn, Paderborn und Trier. Sie beantworten Fragen von Bürgerinnen und Bürgern zu Leistungen der Stadtverwaltung (Ausweise und Pässe, Meldewesen, Standesamt, Gewerbe, Bauen, Kinderbetreuung, Parken, Abfall, Fundsachen …) und zum Ortsrecht der Städte (Satzungen und Verordnungen).
Vorgehen:
1. Wenn ein Werkzeug die Fakten liefern kann, rufen Sie es auf; erfinden Sie keine Beträge, Fristen, Uhrzeiten, Adressen oder Bearbeitungsstände.
2. Fehlt eine Angabe, ohne die Sie nicht sinnvoll antworten können (zum Beispiel die Stadt oder die Leistung), rufen Sie getDialog mit den fehlenden Angaben auf, statt zu raten.
3. Zitieren Sie bei Auskünften aus dem Ortsrecht die Satzung (Titel) und den Paragraphen.
4. Sie geben keine Rechtsberatung im Einzelfall; verweisen Sie dafür an die zuständige Stelle oder an eine Anwältin oder einen Anwalt.
5. Antworten Sie knapp, freundlich und in der Sprache der Frage.',
 '{}', 'System prompt of the interface buergerservice.'),
('buerger_termin', 1, 'system',
 'Die Frage betrifft einen Termin in einer Dienststelle (buchen, verschieben oder absagen). Sie können selbst keine Termine im Terminsystem anlegen oder ändern. Klären Sie, für welche Leistung und in welcher Stadt der Termin gebraucht wird (fehlt beides und ist es nicht aus dem Gespräch ersichtlich, fragen Sie mit getDialog nach), und erklären Sie den Weg: Online-Terminvergabe der Stadt, telefonische Terminvereinbarung oder Vorsprache ohne Termin, wo das üblich ist. Zum Verschieben oder Absagen braucht die Bürgerin oder der Bürger die Buchungsnummer aus der Terminbestätigung; der Link zum Absagen steht in der Bestätigungs-E-Mail. Weisen Sie darauf hin, welche Unterlagen zum Termin mitzubringen sind, wenn die Leistung genannt ist.',
 '{}', 'Plan termin_buchen: appointments (book, move, cancel).'),
('buerger_unterlagen', 1, 'system',
 'Die Frage betrifft die Voraussetzungen einer Leistung: benötigte Unterlagen, Gebühren, Gültigkeitsdauer, Bearbeitungszeit und wer den Antrag stellen darf (persönlich, mit Vollmacht, für Kinder mit Zustimmung beider Sorgeberechtigter). Bundesweit einheitlich gilt (Stand 2025): Personalausweis 37,00 EUR ab 24 Jahren (gültig 10 Jahre), 22,80 EUR unter 24 Jahren (gültig 6 Jahre); Reisepass 70,00 EUR ab 24 Jahren (10 Jahre), 37,50 EUR unter 24 Jahren (6 Jahre), Expresszuschlag 32,00 EUR; Kinderreisepässe werden seit dem 1. Januar 2024 nicht mehr ausgestellt, Kinder erhalten einen Personalausweis oder Reisepass; Führungszeugnis 13,00 EUR; das Passfoto wird seit Mai 2025 digital übermittelt. Gebühren, die die Städte selbst festlegen (Meldebescheinigung, Bewohnerparkausweis, Sperrmüll, Hundemarke, Friedhof), entnehmen Sie dem Ortsrecht über context_retrieve; steht dort nichts, sagen Sie, dass die Stadt die Gebühr festlegt, statt einen Betrag zu schätzen.',
 '{}', 'Plan unterlagen_gebuehren: documents, fees, validity, who may apply.'),
('buerger_antrag_status', 1, 'system',
 'Die Frage betrifft den Bearbeitungsstand eines bereits gestellten Antrags (Ausweis, Pass, Baugenehmigung, Gewerbe, Urkunde …). Sie haben keinen Zugriff auf die Fachverfahren der Ämter und können keinen Bearbeitungsstand nennen. Fragen Sie, wenn sie fehlt, mit getDialog nach der Vorgangsnummer oder dem Aktenzeichen und der Stadt, und erklären Sie, wie der Stand zu erfahren ist: Ausweise und Pässe liegen in der Regel drei bis vier Wochen nach dem Antrag zur Abholung bereit (Benachrichtigung per Brief, E-Mail oder Online-Statusabfrage mit der Seriennummer); bei Bauanträgen gibt die Bauaufsicht unter Angabe des Aktenzeichens Auskunft. Nennen Sie keine Daten, die Ihnen nicht vorliegen.',
 '{}', 'Plan antrag_status: the state of an application already made.'),
('buerger_satzung', 1, 'system',
 'Die Frage betrifft das Ortsrecht einer Stadt (Satzung oder Verordnung): Steuersätze, Gebühren, Regeln, Zeiten und Ausnahmen. Antworten Sie ausschließlich aus den abgerufenen Satzungstexten der genannten Stadt: Jede Satzung nennt ihre Stadt im Titel und in § 1; verwenden Sie keine Zahlen aus der Satzung einer anderen Stadt. Reicht der abgerufene Text nicht, rufen Sie context_retrieve mit einer knappen Anfrage aus Stadt und Thema auf (zum Beispiel "Hundesteuer Bamberg Zweithund"). Nennen Sie den Titel der Satzung und den Paragraphen. Findet sich zur Stadt keine Satzung zum Thema, sagen Sie das.',
 '{}', 'Plan satzung_auskunft: what a town''s bylaw says, from the corpus.'),
('buerger_maengel', 1, 'system',
 'Die Frage meldet einen Mangel oder eine Störung im öffentlichen Raum (Schlagloch, defekte Straßenlaterne, illegal abgelagerter Müll, beschädigter Spielplatz, Graffiti, verstopfter Gully …). Sie können die Meldung nicht selbst ins System der Stadt eintragen. Nehmen Sie sie auf und fassen Sie sie so zusammen, dass sie über den Mängelmelder der Stadt oder an das Ordnungsamt bzw. den Bauhof weitergegeben werden kann: Stadt, genauer Ort (Straße, Hausnummer oder markanter Punkt), Art des Mangels, seit wann, Gefahr für Personen ja/nein, freiwillig Kontaktdaten für Rückfragen. Fehlen Stadt oder Ort, fragen Sie mit getDialog nach. Bei akuter Gefahr (zum Beispiel offene Baugrube, umgestürzter Baum auf der Fahrbahn) verweisen Sie sofort an Polizei (110) oder Feuerwehr (112).',
 '{}', 'Plan maengel_melden: defects and nuisances in public space.'),
('buerger_oeffnungszeiten', 1, 'system',
 'Die Frage betrifft Öffnungszeiten, Anschrift, Telefonnummer oder die Erreichbarkeit einer Dienststelle (Bürgerbüro, Standesamt, Fundbüro, Zulassungsstelle, Ausländerbehörde, Bauaufsicht …). Ihnen liegt kein Verzeichnis der Dienststellen mit Öffnungszeiten vor: Nennen Sie keine Uhrzeiten, Adressen oder Telefonnummern, die Sie nicht aus einem Werkzeug haben. Klären Sie Stadt und Dienststelle (fehlt die Stadt, fragen Sie mit getDialog nach) und verweisen Sie auf die Internetseite der Stadt, die Behördennummer 115 und darauf, dass viele Leistungen nur mit Termin angeboten werden.',
 '{}', 'Plan oeffnungszeiten: opening hours, address, phone, how to get there.')
ON CONFLICT (name, version) DO UPDATE
   SET role = EXCLUDED.role, template = EXCLUDED.template, variables = EXCLUDED.variables,
       description = EXCLUDED.description, active = true;

------------------------------------------------------------------------------------------------
-- The interface (provider and embedding model as the demo's chatbot has them, when it exists)
------------------------------------------------------------------------------------------------
INSERT INTO mcp.interface (name, description, provider, system_prompt, access_role, embedding_model)
SELECT 'buergerservice',
       'Bürgerservice der Städte Bad Kreuznach, Bamberg, Cottbus, Flensburg, Göttingen, Heilbronn, Paderborn und Trier: Termine, Unterlagen und Gebühren, Antragsstatus, Ortsrecht (Satzungen), Mängelmeldungen, Öffnungszeiten.',
       c.provider, 'buergerservice_system', 'public', c.embedding_model
  FROM (SELECT 1) AS one
  LEFT JOIN mcp.interface c ON c.name = 'chatbot'
ON CONFLICT (name) DO UPDATE
   SET description = EXCLUDED.description,
       system_prompt = EXCLUDED.system_prompt,
       access_role = EXCLUDED.access_role,
       provider = COALESCE(mcp.interface.provider, EXCLUDED.provider),
       embedding_model = COALESCE(mcp.interface.embedding_model, EXCLUDED.embedding_model);

-- Built-in tools only: the ask-back tool, retrieval over the bylaws, the thesaurus graph.
INSERT INTO mcp.interface_tool (interface, tool)
SELECT 'buergerservice', t
  FROM pg_catalog.unnest(ARRAY['getDialog', 'context_retrieve', 'thesaurus_expand', 'thesaurus_neighbours', 'thesaurus_path']) AS t
ON CONFLICT DO NOTHING;

------------------------------------------------------------------------------------------------
-- Plans
------------------------------------------------------------------------------------------------
DELETE FROM mcp.plan
 WHERE name IN ('termin_buchen', 'unterlagen_gebuehren', 'antrag_status', 'satzung_auskunft',
                'maengel_melden', 'oeffnungszeiten');

INSERT INTO mcp.plan (name, interface, description, examples, required_kinds, optional_kinds) VALUES
('termin_buchen', 'buergerservice',
 'Einen Termin in einer Dienststelle der Stadtverwaltung für eine Leistung buchen, verschieben oder absagen (Bürgerbüro, Standesamt, Zulassungsstelle, Ausländerbehörde), optional in einer bestimmten Stadt.',
 ARRAY['Ich möchte einen Termin für einen neuen Personalausweis buchen.',
       'Kann ich meinen Termin im Bürgerbüro auf nächste Woche verschieben?',
       'Wie sage ich meinen Termin beim Standesamt ab?',
       'Gibt es in Paderborn noch freie Termine zum Ummelden?',
       'Ich brauche einen Termin für die Anmeldung meiner Wohnung in Cottbus.'],
 '{}', ARRAY['leistung', 'stadt']),
('unterlagen_gebuehren', 'buergerservice',
 'Welche Unterlagen und Nachweise für eine Leistung der Stadtverwaltung nötig sind, was sie kostet (Gebühren), wie lange ein Dokument gültig ist, wie lange die Bearbeitung dauert und wer den Antrag stellen darf.',
 ARRAY['Was brauche ich für einen Reisepass?',
       'Was kostet ein Führungszeugnis?',
       'Welche Unterlagen muss ich zur Anmeldung der Eheschließung mitbringen?',
       'Wie lange ist ein Personalausweis gültig?',
       'Darf meine Frau den Bewohnerparkausweis für mich beantragen?'],
 ARRAY['leistung'], ARRAY['stadt']),
('antrag_status', 'buergerservice',
 'Der Bearbeitungsstand eines bereits gestellten Antrags: ob ein Ausweis oder Pass abholbereit ist, wann ein Bescheid oder eine Genehmigung kommt, meist mit Vorgangsnummer oder Aktenzeichen.',
 ARRAY['Ist mein Personalausweis schon fertig?',
       'Wann bekomme ich die Baugenehmigung für unseren Anbau?',
       'Wie ist der Stand meines Antrags mit dem Aktenzeichen 2026-BA-0415?',
       'Ich habe vor drei Wochen einen Reisepass beantragt und noch nichts gehört.',
       'Wurde meine Gewerbeanmeldung schon bearbeitet?'],
 '{}', ARRAY['leistung', 'stadt']),
('satzung_auskunft', 'buergerservice',
 'Was die Satzung oder Verordnung einer Stadt zu einem Thema regelt: Steuersätze, Gebühren, Regeln, Zeiten und Ausnahmen (Hundesteuer, Abfallgebühren, Parkgebühren und Bewohnerparken, Friedhofs- und Bestattungsgebühren, Lärm und Ruhezeiten, Straßenreinigung und Winterdienst). Fehlt die Stadt, wird nachgefragt.',
 ARRAY['Wie hoch ist die Hundesteuer in Bamberg?',
       'Wann darf ich in Trier Rasen mähen?',
       'Was kostet eine Urnenbeisetzung auf dem Friedhof in Flensburg?',
       'Bis wann muss ich in Heilbronn morgens den Gehweg vom Schnee räumen?',
       'Wie teuer ist die Biotonne in Göttingen?',
       'Was kostet eine Stunde Parken in der Innenstadt von Cottbus?'],
 ARRAY['stadt', 'thema'], '{}'),
('maengel_melden', 'buergerservice',
 'Einen Mangel oder eine Störung im öffentlichen Raum melden: Schlagloch, defekte Straßenbeleuchtung, illegal abgelagerter Müll, beschädigter Spielplatz, Graffiti, verschmutzte oder beschädigte Wege.',
 ARRAY['Vor meinem Haus ist ein tiefes Schlagloch in der Straße.',
       'Die Straßenlaterne in der Goethestraße ist seit Tagen kaputt.',
       'Am Waldweg hat jemand Müll abgeladen.',
       'Auf dem Spielplatz im Stadtpark ist die Schaukel kaputt.',
       'Wo kann ich Graffiti an der Brücke melden?'],
 '{}', ARRAY['stadt']),
('oeffnungszeiten', 'buergerservice',
 'Öffnungszeiten, Anschrift, Telefonnummer oder Erreichbarkeit einer Dienststelle der Stadtverwaltung (Bürgerbüro, Standesamt, Fundbüro, Zulassungsstelle, Rathaus).',
 ARRAY['Wann hat das Bürgerbüro geöffnet?',
       'Wie ist die Adresse des Standesamts in Trier?',
       'Unter welcher Telefonnummer erreiche ich das Fundbüro?',
       'Hat das Rathaus am Samstag offen?',
       'Wie komme ich mit dem Bus zur Zulassungsstelle?'],
 '{}', ARRAY['stadt', 'leistung']);

INSERT INTO mcp.plan_step (plan, position, kind, prompt, prompt_mode, tool, arguments, tools, tool_choice, ask_kind, question) VALUES
-- termin_buchen: nothing is required (moving or cancelling needs the booking, not the service)
('termin_buchen', 1, 'prompt', 'buerger_termin', 'extend', NULL, '{}', NULL, NULL, NULL, NULL),
('termin_buchen', 2, 'llm', NULL, 'extend', NULL, '{}', ARRAY['getDialog', 'thesaurus_expand'], 'auto', NULL, NULL),
-- unterlagen_gebuehren: the service is needed; town-specific fees come from the bylaws
('unterlagen_gebuehren', 1, 'ask', NULL, 'extend', NULL, '{}', NULL, NULL, 'leistung',
 'Für welche Leistung möchten Sie wissen, welche Unterlagen nötig sind oder was sie kostet (zum Beispiel Personalausweis, Reisepass, Meldebescheinigung, Führungszeugnis)?'),
('unterlagen_gebuehren', 2, 'prompt', 'buerger_unterlagen', 'extend', NULL, '{}', NULL, NULL, NULL, NULL),
('unterlagen_gebuehren', 3, 'llm', NULL, 'extend', NULL, '{}', ARRAY['getDialog', 'context_retrieve', 'thesaurus_expand'], 'auto', NULL, NULL),
-- antrag_status: usually a reference number, rarely a town; no status system is connected
('antrag_status', 1, 'prompt', 'buerger_antrag_status', 'extend', NULL, '{}', NULL, NULL, NULL, NULL),
('antrag_status', 2, 'llm', NULL, 'extend', NULL, '{}', ARRAY['getDialog'], 'auto', NULL, NULL),
-- satzung_auskunft: asks for a missing town, retrieves from the bylaws with the question
('satzung_auskunft', 1, 'ask', NULL, 'extend', NULL, '{}', NULL, NULL, 'stadt',
 'Für welche Stadt möchten Sie die Auskunft: Bad Kreuznach, Bamberg, Cottbus, Flensburg, Göttingen, Heilbronn, Paderborn oder Trier?'),
('satzung_auskunft', 2, 'prompt', 'buerger_satzung', 'extend', NULL, '{}', NULL, NULL, NULL, NULL),
('satzung_auskunft', 3, 'retrieve', NULL, 'extend', 'context_retrieve', '{"query": "{{question}}"}', NULL, NULL, NULL, NULL),
('satzung_auskunft', 4, 'llm', NULL, 'extend', NULL, '{}', ARRAY['context_retrieve', 'getDialog'], 'auto', NULL, NULL),
-- maengel_melden
('maengel_melden', 1, 'prompt', 'buerger_maengel', 'extend', NULL, '{}', NULL, NULL, NULL, NULL),
('maengel_melden', 2, 'llm', NULL, 'extend', NULL, '{}', ARRAY['getDialog'], 'auto', NULL, NULL),
-- oeffnungszeiten
('oeffnungszeiten', 1, 'prompt', 'buerger_oeffnungszeiten', 'extend', NULL, '{}', NULL, NULL, NULL, NULL),
('oeffnungszeiten', 2, 'llm', NULL, 'extend', NULL, '{}', ARRAY['getDialog'], 'auto', NULL, NULL);

COMMIT;
