-- Demo execution plans (issue 12) for the chatbot interface of demo/demo.sql. The thesaurus
-- (demo/thesaurus.json) is loaded by scripts/demo.sh with mcp.load_thesaurus.
\set ON_ERROR_STOP on

INSERT INTO mcp.interface_tool (interface, tool) VALUES
 ('chatbot', 'thesaurus_expand'), ('chatbot', 'thesaurus_neighbours'), ('chatbot', 'thesaurus_path');

INSERT INTO mcp.prompt (name, version, role, template, variables, description) VALUES
 ('tarif_context', 1, 'system',
  'Die Frage betrifft das Tarifgebiet {{tarifgebiet}} und den Fachbereich {{fachbereich}}. Die passenden Tarifverträge stehen bereits als Tool-Ergebnis im Gespräch; antworte nur aus ihnen und nenne die Titel der Verträge.',
  '{tarifgebiet,fachbereich}', 'Extended system prompt of the plan tarif_lookup'),
 ('begriffe_context', 1, 'system',
  'Erkläre Begriffe des Tarifwesens mit den Thesaurus-Tools (Synonyme, Ober- und Unterbegriffe). Die Frage: {{question}}',
  '{question}', 'Extended system prompt of the plan begriffe');

INSERT INTO mcp.plan (name, interface, description, examples, required_kinds, optional_kinds, priority) VALUES
 ('tarif_lookup', 'chatbot',
  'Tarifverträge eines Tarifgebiets und Fachbereichs nachschlagen: welche Tarifverträge gelten, was regeln sie zu Entgelt, Urlaub, Arbeitszeit, Zuschlägen, Sonderzahlungen oder Kündigung.',
  ARRAY['Welche Tarifverträge gelten für die Metallindustrie in Bayern?',
        'Wie viel Urlaub gibt es im Einzelhandel in Hessen?',
        'Wie lang ist die Wochenarbeitszeit in der Chemischen Industrie in NRW?',
        'Was regelt der Tarifvertrag zu Zuschlägen?'],
  '{tarifgebiet,fachbereich}', '{thema}', 10),
 ('begriffe', 'chatbot',
  'Begriffe erklären: Synonyme, Abkürzungen, Oberbegriffe und Unterbegriffe, welche Branchen oder Bundesländer zu einem Begriff gehören, wie zwei Begriffe zusammenhängen.',
  ARRAY['Was bedeutet die Abkürzung M+E?',
        'Welche Bundesländer gehören zum Tarifgebiet Ost?',
        'Was ist ein Synonym für Sonderzahlung?',
        'Wie hängen Banken und Versicherungen zusammen?'],
  '{}', '{fachbereich,tarifgebiet,thema}', 0);

INSERT INTO mcp.plan_step (plan, position, kind, ask_kind, question) VALUES
 ('tarif_lookup', 1, 'ask', 'tarifgebiet', 'Für welches Tarifgebiet (Bundesland) möchten Sie das wissen?'),
 ('tarif_lookup', 2, 'ask', 'fachbereich', 'Für welche Branche (Fachbereich) möchten Sie das wissen?');
INSERT INTO mcp.plan_step (plan, position, kind, prompt) VALUES
 ('tarif_lookup', 3, 'prompt', 'tarif_context');
INSERT INTO mcp.plan_step (plan, position, kind, tool, arguments) VALUES
 ('tarif_lookup', 4, 'retrieve', 'getTarifVertrag', '{"tarifgebiet": "{{tarifgebiet}}", "fachbereich": "{{fachbereich}}"}');
INSERT INTO mcp.plan_step (plan, position, kind, tools, tool_choice) VALUES
 ('tarif_lookup', 5, 'llm', '{getTarifVertrag}', 'auto');
INSERT INTO mcp.plan_step (plan, position, kind, prompt) VALUES
 ('begriffe', 1, 'prompt', 'begriffe_context');
INSERT INTO mcp.plan_step (plan, position, kind, tools, tool_choice) VALUES
 ('begriffe', 2, 'llm', '{thesaurus_expand,thesaurus_neighbours,thesaurus_path}', 'required');
