-- Execution plans of Domain A (Tarifverträge) for the interface chatbot, written by the admin
-- for the outside evaluation sets (tests/quality/SPEC.md).
--
-- Loads on a database that already has the demo's chatbot interface, its tool getTarifVertrag
-- and the demo thesaurus (kinds tarifgebiet, fachbereich, thema). Idempotent: the four plans
-- are deleted and written again (this replaces the demo's tarif_lookup and begriffe, plan names
-- are unique over all interfaces); the prompts and the report tool are upserted under names of
-- their own, tool mappings are added when missing.
--
--   psql -d <db> -f tests/quality/tarif_plans.sql
\set ON_ERROR_STOP on
BEGIN;

------------------------------------------------------------------------------------------------
-- Report tool: counts over the registered agreements (the corpus tests/quality/corpus, keys
-- tv://<branch>/<region>, metadata branche / region / branch_slug / region_slug). Runs as the
-- calling role, so it counts the agreements that role may read.
------------------------------------------------------------------------------------------------
INSERT INTO mcp.tool (name, description, parameters, kind, body, read_only) VALUES
('tarif_statistik_report',
 'Überblick über die hinterlegten Tarifverträge insgesamt: Anzahl der Verträge je Branche (gruppierung = "branche"), je Tarifgebiet (gruppierung = "region") oder für alle zusammen (gruppierung = "gesamt"), jeweils mit der Zahl der Branchen und Tarifgebiete und der Liste, was dazugehört. Für Fragen wie "Wie viele Tarifverträge gibt es?", "Für welche Branchen gibt es Verträge in Hessen?" oder "Welche Tarifgebiete sind abgedeckt?". Inhalte einzelner Verträge (Urlaubstage, Stunden, Euro-Beträge) liefert dieses Tool nicht: dafür context_retrieve oder getTarifVertrag.',
 '{"type": "object",
   "properties": {
     "gruppierung": {"type": "string", "enum": ["branche", "region", "gesamt"],
                     "description": "branche = je Branche zählen, region = je Tarifgebiet zählen, gesamt = eine Zeile für alle Verträge."}},
   "required": ["gruppierung"],
   "additionalProperties": false}',
 'report',
 $body$
SELECT CASE $1 WHEN 'branche' THEN d.metadata ->> 'branche'
               WHEN 'region' THEN d.metadata ->> 'region'
               ELSE 'alle Tarifverträge' END                     AS gruppe,
       count(*)                                                  AS tarifvertraege,
       count(DISTINCT d.metadata ->> 'branch_slug')              AS branchen,
       count(DISTINCT d.metadata ->> 'region_slug')              AS tarifgebiete,
       string_agg(DISTINCT CASE $1 WHEN 'branche' THEN d.metadata ->> 'region'
                                   ELSE d.metadata ->> 'branche' END, ', '
                  ORDER BY CASE $1 WHEN 'branche' THEN d.metadata ->> 'region'
                                   ELSE d.metadata ->> 'branche' END) AS umfasst
  FROM mcp.document d
 WHERE d.uri LIKE 'tv://%'
   AND d.metadata ? 'branch_slug' AND d.metadata ? 'region_slug'
 GROUP BY 1
 ORDER BY 2 DESC, 1
$body$,
 true)
ON CONFLICT (name) DO UPDATE
   SET description = EXCLUDED.description, parameters = EXCLUDED.parameters, kind = EXCLUDED.kind,
       body = EXCLUDED.body, read_only = EXCLUDED.read_only, enabled = true;

-- tools of the chatbot the plans use (getTarifVertrag and the thesaurus tools are mapped by the
-- demo already; context_retrieve is built in and needs the interface's embedding_model)
INSERT INTO mcp.interface_tool (interface, tool) VALUES
 ('chatbot', 'getTarifVertrag'),
 ('chatbot', 'context_retrieve'),
 ('chatbot', 'tarif_statistik_report'),
 ('chatbot', 'thesaurus_expand'),
 ('chatbot', 'thesaurus_neighbours'),
 ('chatbot', 'thesaurus_path')
ON CONFLICT DO NOTHING;

------------------------------------------------------------------------------------------------
-- Prompts (extended system prompts of the plans). Only question and required kinds are used as
-- variables: an optional kind may be missing from a question.
------------------------------------------------------------------------------------------------
INSERT INTO mcp.prompt (name, version, role, template, variables, description) VALUES
('tarif_auskunft', 1, 'system',
 'Du beantwortest Fragen zu Tarifverträgen. Gefragt ist nach dem Tarifgebiet {{tarifgebiet}} und der Branche {{fachbereich}}. Die passenden Tarifverträge stehen bereits als Tool-Ergebnis im Gespräch; suche bei Bedarf mit context_retrieve nach dem einschlägigen Paragraphen (Arbeitszeit, Mehrarbeit und Zuschläge, Urlaub, Probezeit, Kündigungsfristen, Jahressonderzahlung, Entgelt). Antworte nur aus diesen Texten, nenne Zahlen genau so, wie sie im Vertrag stehen, und gib Titel und Paragraph an. Steht etwas nicht im Vertrag, sag das.',
 '{tarifgebiet,fachbereich}', 'Extended system prompt of the plan tarif_lookup (evaluation admin, tests/quality)'),
('tarif_begriffe', 1, 'system',
 'Erkläre Begriffe des Tarifwesens: Abkürzungen, Synonyme, Ober- und Unterbegriffe, welche Bundesländer zu einem Tarifgebiet gehören und wie zwei Begriffe zusammenhängen. Stütze dich auf die Thesaurus-Tools (thesaurus_expand für Synonyme und Unterbegriffe, thesaurus_neighbours für verwandte Begriffe, thesaurus_path für den Zusammenhang zweier Begriffe) und erkläre das Ergebnis in ein, zwei Sätzen. Die Frage: {{question}}',
 '{question}', 'Extended system prompt of the plan begriffe (evaluation admin, tests/quality)'),
('tarif_statistik', 1, 'system',
 'Die Frage verlangt einen Überblick über die hinterlegten Tarifverträge insgesamt (Anzahl, Listen, Rangfolgen), nicht den Inhalt eines einzelnen Vertrags. Die Gesamtzahl steht schon als Tool-Ergebnis im Gespräch; rufe tarif_statistik_report mit gruppierung "branche" oder "region" auf, wenn nach Branchen oder Tarifgebieten gefragt ist. Für Rangfolgen nach Inhalten (z. B. die meisten Urlaubstage) suche mit context_retrieve und sage dazu, auf wie vielen Verträgen die Antwort beruht. Die Frage: {{question}}',
 '{question}', 'Extended system prompt of the plan tarif_statistik (evaluation admin, tests/quality)'),
('tarif_vergleich', 1, 'system',
 'Vergleiche das Thema {{thema}} zwischen den beiden Tarifgebieten oder Branchen, die in der Frage genannt sind. Hole für jede Seite den einschlägigen Paragraphen (context_retrieve, bei Bedarf getTarifVertrag je Seite), stelle die Regelungen nebeneinander (gern als kurze Tabelle), nenne den Unterschied in Zahlen und die Quelle (Titel, Paragraph) jeder Seite. Fehlt eine Seite in den Texten, sag das, statt zu schätzen. Die Frage: {{question}}',
 '{thema,question}', 'Extended system prompt of the plan tarif_vergleich (evaluation admin, tests/quality)')
ON CONFLICT (name, version) DO UPDATE
   SET role = EXCLUDED.role, template = EXCLUDED.template, variables = EXCLUDED.variables,
       description = EXCLUDED.description, active = true;

------------------------------------------------------------------------------------------------
-- Plans
------------------------------------------------------------------------------------------------
DELETE FROM mcp.plan WHERE name IN ('tarif_lookup', 'begriffe', 'tarif_statistik', 'tarif_vergleich');

INSERT INTO mcp.plan (name, interface, description, examples, required_kinds, optional_kinds, priority) VALUES
('tarif_lookup', 'chatbot',
 'Auskunft aus dem Tarifvertrag einer Branche in einem Tarifgebiet (Bundesland): welcher Tarifvertrag für ein Arbeitsverhältnis gilt und was er regelt, etwa zu Wochenarbeitszeit, Überstunden und Zuschlägen, Urlaubstagen und Urlaubsgeld, Probezeit, Kündigungsfristen, Weihnachtsgeld bzw. Jahressonderzahlung, Gehalt, Lohn oder Ausbildungsvergütung. Fehlen Branche oder Bundesland, wird danach gefragt.',
 ARRAY['Wie viele Urlaubstage habe ich als Angestellte bei einer privaten Bank in Hamburg?',
       'Was steht im Manteltarifvertrag der Druckindustrie in Niedersachsen zur Probezeit?',
       'Welcher Tarifvertrag gilt für mich als Kfz-Mechatroniker in Sachsen?',
       'Wie hoch ist das Weihnachtsgeld in der Energieversorgung in Berlin?',
       'Welche Kündigungsfrist habe ich im Gastgewerbe in Baden-Württemberg?'],
 '{tarifgebiet,fachbereich}', '{thema}', 10),
('begriffe', 'chatbot',
 'Begriffe des Tarifwesens erklären: was eine Abkürzung bedeutet, Synonyme und gleichbedeutende Bezeichnungen, Ober- und Unterbegriffe, welche Bundesländer zu einem Tarifgebiet wie Ost oder West gehören, welche Branchen zu einem Oberbegriff gehören und wie zwei Begriffe zusammenhängen. Keine Auskunft über den Inhalt eines bestimmten Tarifvertrags.',
 ARRAY['Was versteht man unter einem Manteltarifvertrag?',
       'Ist Weihnachtsgeld dasselbe wie eine Jahressonderzahlung?',
       'Welche Bundesländer zählen zum Tarifgebiet West?',
       'Wofür steht die Abkürzung MTV?',
       'Was haben Gebäudereinigung und Einzelhandel miteinander zu tun?'],
 '{}', '{fachbereich,tarifgebiet,thema}', 0),
('tarif_statistik', 'chatbot',
 'Statistik und Überblick über alle hinterlegten Tarifverträge zusammen: wie viele Tarifverträge es gibt, für welche Branchen oder Bundesländer Verträge vorliegen, Listen und Aufzählungen, Rangfolgen und Häufigkeiten (welche Branche die meisten oder wenigsten Urlaubstage hat, in wie vielen Verträgen eine Regelung vorkommt). Keine Auskunft zu einem einzelnen Vertrag.',
 ARRAY['Wie viele Tarifverträge sind insgesamt hinterlegt?',
       'Für welche Branchen gibt es Tarifverträge in Hessen?',
       'Welche Branche hat die meisten Urlaubstage?',
       'Liste alle Tarifgebiete auf, für die Verträge vorliegen.',
       'In wie vielen Tarifverträgen ist eine Rufbereitschaft geregelt?'],
 '{}', '{thema,fachbereich,tarifgebiet}', 5),
('tarif_vergleich', 'chatbot',
 'Vergleich eines Themas (z. B. Urlaub, Arbeitszeit, Entgelt, Zuschläge, Kündigungsfristen, Sonderzahlung) zwischen zwei Tarifgebieten oder zwei Branchen: Unterschiede und Gemeinsamkeiten, wo es mehr oder weniger gibt, was besser oder höher ist, gegenübergestellt.',
 ARRAY['Wie unterscheidet sich der Urlaub in der Chemischen Industrie zwischen Bayern und Sachsen?',
       'Ist die Wochenarbeitszeit im Einzelhandel in Berlin länger als in Hamburg?',
       'Vergleiche die Zuschläge für Nachtarbeit bei Banken und Versicherungen in Hessen.',
       'Wo verdient man im Bauhauptgewerbe mehr, in Niedersachsen oder in Nordrhein-Westfalen?'],
 '{thema}', '{tarifgebiet,fachbereich}', 8);

-- tarif_lookup: ask for the region and the branch, then fetch the agreement(s) and let the
-- model answer from them (passage search for the clause when needed)
INSERT INTO mcp.plan_step (plan, position, kind, ask_kind, question) VALUES
 ('tarif_lookup', 1, 'ask', 'tarifgebiet', 'In welchem Bundesland (Tarifgebiet) arbeiten Sie?'),
 ('tarif_lookup', 2, 'ask', 'fachbereich', 'In welcher Branche arbeiten Sie, z. B. Metall- und Elektroindustrie, Einzelhandel oder Bauhauptgewerbe?');
INSERT INTO mcp.plan_step (plan, position, kind, prompt) VALUES
 ('tarif_lookup', 3, 'prompt', 'tarif_auskunft');
INSERT INTO mcp.plan_step (plan, position, kind, tool, arguments) VALUES
 ('tarif_lookup', 4, 'retrieve', 'getTarifVertrag', '{"tarifgebiet": "{{tarifgebiet}}", "fachbereich": "{{fachbereich}}"}');
INSERT INTO mcp.plan_step (plan, position, kind, tools, tool_choice) VALUES
 ('tarif_lookup', 5, 'llm', '{context_retrieve,getTarifVertrag}', 'auto');

-- begriffe: thesaurus tools only
INSERT INTO mcp.plan_step (plan, position, kind, prompt) VALUES
 ('begriffe', 1, 'prompt', 'tarif_begriffe');
INSERT INTO mcp.plan_step (plan, position, kind, tools, tool_choice) VALUES
 ('begriffe', 2, 'llm', '{thesaurus_expand,thesaurus_neighbours,thesaurus_path}', 'required');

-- tarif_statistik: the overall count up front, then the report and passage search
INSERT INTO mcp.plan_step (plan, position, kind, prompt) VALUES
 ('tarif_statistik', 1, 'prompt', 'tarif_statistik');
INSERT INTO mcp.plan_step (plan, position, kind, tool, arguments) VALUES
 ('tarif_statistik', 2, 'tool', 'tarif_statistik_report', '{"gruppierung": "gesamt"}');
INSERT INTO mcp.plan_step (plan, position, kind, tools, tool_choice) VALUES
 ('tarif_statistik', 3, 'llm', '{tarif_statistik_report,context_retrieve,thesaurus_expand}', 'auto');

-- tarif_vergleich: ask for the topic, search the passages of both sides, let the model compare
INSERT INTO mcp.plan_step (plan, position, kind, ask_kind, question) VALUES
 ('tarif_vergleich', 1, 'ask', 'thema', 'Welches Thema möchten Sie vergleichen, z. B. Urlaub, Arbeitszeit, Entgelt, Zuschläge oder Kündigungsfristen?');
INSERT INTO mcp.plan_step (plan, position, kind, prompt) VALUES
 ('tarif_vergleich', 2, 'prompt', 'tarif_vergleich');
INSERT INTO mcp.plan_step (plan, position, kind, tool, arguments) VALUES
 ('tarif_vergleich', 3, 'retrieve', 'context_retrieve', '{"query": "{{question}}"}');
INSERT INTO mcp.plan_step (plan, position, kind, tools, tool_choice) VALUES
 ('tarif_vergleich', 4, 'llm', '{context_retrieve,getTarifVertrag}', 'auto');

COMMIT;
