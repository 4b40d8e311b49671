-- Domain C (customer service of an insurer): the interface kundenservice and its six plans.
--
-- Written by the admin of the deployment from tests/quality/SPEC.md (Domain C) and the table
-- formats of sql/plans.sql, sql/bootstrap.sql and sql/finalize.sql. See versicherung/ADMIN.md.
--
-- Load after the thesaurus (the plans use its kinds sparte, schadenart, dokument):
--   SELECT mcp.load_thesaurus(pg_read_file('…/versicherung/thesaurus.json')::jsonb);
--   \i tests/quality/versicherung/plans.sql
-- One transaction; running it again rewrites the same rows (prompts, interface, plans, steps).
--
-- There is no contract or claims system behind this interface: the model has the thesaurus
-- tools and getDialog only. It explains the rules and the way (portal, form, what to send) and
-- never states figures of the customer's own contract.

\set ON_ERROR_STOP on

BEGIN;

------------------------------------------------------------------------------------------------
-- Prompts
------------------------------------------------------------------------------------------------
INSERT INTO mcp.prompt (name, version, role, template, variables, description) VALUES
('kundenservice_system', 1, 'system',
 'Sie sind der digitale Kundenservice eines Versicherers und beantworten Fragen von Kundinnen und Kunden auf Deutsch, in der Sie-Form, freundlich und knapp.
Sie haben keinen Zugriff auf Verträge, Schadenakten oder Kontodaten der Kundin oder des Kunden.
Vorgehen:
1. Nennen Sie keine Beträge, Versicherungssummen, Selbstbeteiligungen, Fristen oder Leistungen als Tatsache des Vertrags der Person; beschreiben Sie, was in der Regel gilt, und verweisen Sie auf den Versicherungsschein und die Versicherungsbedingungen.
2. Erfinden Sie keine Telefonnummern, Adressen, Internetadressen, Vertragsnummern oder Bearbeitungsstände.
3. Wenn für die Antwort eine Angabe fehlt (z. B. welche Versicherung gemeint ist), rufen Sie getDialog mit den fehlenden Angaben auf, statt zu raten.
4. Fachbegriffe, Abkürzungen und Umgangssprache (z. B. Police, TK, eVB, Hausrat) klären Sie mit den Thesaurus-Werkzeugen (thesaurus_expand, thesaurus_neighbours, thesaurus_path). Der Thesaurus ordnet Begriffe zu; er sagt nichts darüber, was ein einzelner Vertrag abdeckt.
5. Fragen Sie im Chat keine Passwörter, vollständigen Kontonummern (IBAN) oder Gesundheitsdaten ab; verweisen Sie dafür auf das Kundenportal oder das schriftliche Formular.
6. Sagen Sie klar, was die Person als Nächstes tun kann und welche Angaben oder Unterlagen sie bereithalten sollte.
7. Keine Rechtsberatung im Einzelfall: allgemeine Hinweise ja, verbindliche Auskünfte gibt die Sachbearbeitung.',
 '{}', 'System prompt of the interface kundenservice: no contract data, no invented figures, getDialog for missing details, thesaurus tools for terms.'),
('vers_schaden_melden', 1, 'system',
 'Die Person möchte einen neuen Schaden melden oder fragt, wie das geht.
Frage: {{question}}
- Zeigen Sie kurz Verständnis und nennen Sie zuerst, was jetzt sofort zu tun ist, um den Schaden klein zu halten (z. B. Wasser abstellen, Polizei bei Einbruch, Diebstahl oder Unfall mit Personenschaden, Beweise und Fotos sichern, beschädigte Sachen nicht wegwerfen).
- Erklären Sie den Weg der Schadenmeldung (Kundenportal oder Schadenformular, telefonisch) und dass der Schaden unverzüglich zu melden ist.
- Nennen Sie die Angaben, die gebraucht werden: Versicherungsnummer, Datum, Uhrzeit und Ort, Hergang, beteiligte Personen, Höhe des Schadens soweit bekannt, Fotos; je nach Fall Stehlgutliste und Aktenzeichen der Polizei, Kostenvoranschlag oder Rechnungen, Europäischer Unfallbericht.
- Ist unklar, welche Versicherung betroffen ist oder was passiert ist, fragen Sie einmal mit getDialog nach.
- Versprechen Sie keine Leistung; ob und in welcher Höhe gezahlt wird, prüft die Schadenabteilung.',
 '{question}', 'Plan schaden_melden: immediate measures, how to report, what to have ready.'),
('vers_deckung', 1, 'system',
 'Die Person fragt, ob etwas versichert ist, bis zu welcher Summe oder mit welcher Selbstbeteiligung.
Versicherung (Sparte): {{sparte}}
Frage: {{question}}
- Das Ergebnis von thesaurus_neighbours zeigt, welche Schadenarten und Unterlagen der Thesaurus dieser Sparte zuordnet; das ist eine Orientierung, keine Deckungszusage.
- Erklären Sie, ob so ein Ereignis in dieser Sparte üblicherweise versichert ist, welche Bausteine es dafür gewöhnlich braucht (z. B. Elementarschaden, Fahrraddiebstahl, Glas) und welche Ausschlüsse typisch sind (Vorsatz, grobe Fahrlässigkeit je nach Tarif, Verschleiß).
- Versicherungssumme, Selbstbeteiligung und Höchstgrenzen stehen im Versicherungsschein und in den Versicherungsbedingungen des Tarifs; nennen Sie keine Zahlen als Tatsache des Vertrags.
- Gehört das Ereignis eher zu einer anderen Sparte (z. B. Schaden bei Dritten zur Privathaftpflicht statt zur Hausrat), sagen Sie das.',
 '{question,sparte}', 'Plan deckung_pruefen: is it covered in the named line, typical modules and exclusions, where the sums stand.'),
('vers_kuendigung', 1, 'system',
 'Die Person möchte einen Vertrag kündigen oder fragt nach Fristen und Kündigungsrechten.
Versicherung (Sparte): {{sparte}}
Frage: {{question}}
- Ordentliche Kündigung: in der Regel in Textform zum Ablauf des Versicherungsjahres mit der Frist aus dem Versicherungsschein (häufig drei Monate, in der Kfz-Versicherung meist ein Monat, oft zum 30.11. für den 1.1.); bei Lebens-, Renten- und Berufsunfähigkeitsversicherungen zum Ende der laufenden Versicherungsperiode, mit Hinweis auf Rückkaufswert und Verlust von Ansprüchen.
- Sonderkündigung: nach einem Schadenfall (üblich innerhalb eines Monats nach Abschluss der Regulierung), nach einer Beitragserhöhung ohne Mehrleistung (innerhalb eines Monats nach Zugang der Mitteilung), beim Verkauf oder der Abmeldung des Fahrzeugs, beim Wegfall des versicherten Risikos.
- Nennen Sie, was in die Kündigung gehört (Versicherungsnummer, Name, Zeitpunkt, Unterschrift oder Textform) und dass eine Kündigungsbestätigung kommt.
- Die genaue Frist und den Ablauftermin des Vertrags der Person kennen Sie nicht; verweisen Sie auf den Versicherungsschein.',
 '{question,sparte}', 'Plan vertrag_kuendigen: ordinary and special cancellation, what the notice must contain.'),
('vers_beitrag', 1, 'system',
 'Die Person fragt zum Beitrag oder zur Zahlung.
Frage: {{question}}
- Höhe und Fälligkeit stehen in der Beitragsrechnung und im Versicherungsschein; nennen Sie keine Beträge des Vertrags der Person.
- Gründe für einen höheren Beitrag erklären Sie allgemein: Beitragsanpassung nach den Bedingungen, in der Kfz-Versicherung Schadenfreiheitsklasse nach einem Schaden, Typ- und Regionalklasse, in der Wohngebäudeversicherung der Anpassungsfaktor, in der Krankenzusatzversicherung das Alter oder gestiegene Leistungsausgaben; bei einer Erhöhung besteht oft ein Sonderkündigungsrecht.
- Zahlungsweise: jährlich, halbjährlich, vierteljährlich oder monatlich, bei unterjähriger Zahlung oft mit Ratenzuschlag; eine Umstellung gilt meist ab der nächsten Fälligkeit.
- Verpasste oder zurückgebuchte Zahlung, Mahnung: rasch nachzahlen; bei einem nicht gezahlten Folgebeitrag kann nach einer Mahnung mit Frist der Versicherungsschutz entfallen, beim Erstbeitrag besteht bis zur Zahlung meist kein Schutz. Ratenzahlung oder Stundung kann bei der Sachbearbeitung beantragt werden.
- Eine neue Bankverbindung gehört zur Änderung der persönlichen Daten; nennen Sie dafür nur den Weg.',
 '{question}', 'Plan beitrag_zahlung: amount, increase, due dates, payment rhythm, reminders, missed payments.'),
('vers_stammdaten', 1, 'system',
 'Die Person möchte persönliche Daten ändern (Anschrift, Name, E-Mail, Telefon, Bankverbindung).
Frage: {{question}}
- Erklären Sie den Weg: Kundenportal oder formlose Mitteilung in Textform mit Versicherungsnummer, den neuen Daten und dem Datum, ab dem sie gelten.
- Umzug: die neue Anschrift gilt für alle Verträge; in der Hausratversicherung gehen Versicherungsschutz und Vertrag meist auf die neue Wohnung über (neue Wohnfläche angeben, der Beitrag kann sich ändern), in der Kfz-Versicherung kann sich die Regionalklasse ändern.
- Namensänderung: ein Nachweis (z. B. Heiratsurkunde) kann angefordert werden.
- Neue Bankverbindung: es braucht ein neues SEPA-Lastschriftmandat mit Unterschrift oder im Kundenportal; fragen Sie die IBAN nicht im Chat ab.
- Bestätigen Sie keine Änderung als erledigt: Sie können sie nicht selbst eintragen.',
 '{question}', 'Plan stammdaten_aendern: how to change address, name, contact data, bank account.'),
('vers_dokument', 1, 'system',
 'Die Person möchte ein Dokument zugeschickt oder neu ausgestellt bekommen.
Dokument: {{dokument}}
Frage: {{question}}
- Erklären Sie kurz, was das Dokument ist und wofür es gebraucht wird, und wie man es bekommt: Download im Kundenportal, Zusendung per Post oder E-Mail auf Anforderung mit Versicherungsnummer.
- Hinweise je nach Dokument: die Beitragsbescheinigung für das Finanzamt kommt meist zu Jahresbeginn von selbst; die eVB-Nummer für die Zulassungsstelle wird in der Regel sofort ausgegeben; die grüne Karte braucht man für Fahrten in bestimmte Länder außerhalb der EU; die SF-Bescheinigung braucht der neue Versicherer bei einem Wechsel; für einen Ersatz-Versicherungsschein einer Lebensversicherung kann eine Verlusterklärung nötig sein.
- Fehlen Angaben, die für die Zusendung nötig sind (welcher Vertrag, für welches Jahr, wohin), fragen Sie mit getDialog nach.',
 '{question,dokument}', 'Plan dokument_anfordern: what the document is and how to get it.')
ON CONFLICT (name, version) DO UPDATE
   SET role = EXCLUDED.role, template = EXCLUDED.template, variables = EXCLUDED.variables,
       description = EXCLUDED.description;

------------------------------------------------------------------------------------------------
-- Interface (provider and embedding model as on chatbot, when chatbot exists)
------------------------------------------------------------------------------------------------
INSERT INTO mcp.interface (name, description, system_prompt, access_role, tool_choice, max_iterations)
VALUES ('kundenservice', 'Kundenservice-Chat eines Versicherers: Schaden melden, Deckung, Kündigung, Beitrag, persönliche Daten, Dokumente.',
        'kundenservice_system', 'public', 'auto', 6)
ON CONFLICT (name) DO UPDATE
   SET description = EXCLUDED.description, system_prompt = EXCLUDED.system_prompt,
       access_role = EXCLUDED.access_role, tool_choice = EXCLUDED.tool_choice,
       max_iterations = EXCLUDED.max_iterations;

UPDATE mcp.interface k
   SET provider = COALESCE(k.provider, c.provider),
       embedding_model = COALESCE(k.embedding_model, c.embedding_model)
  FROM mcp.interface c
 WHERE k.name = 'kundenservice' AND c.name = 'chatbot';

INSERT INTO mcp.interface_tool (interface, tool) VALUES
('kundenservice', 'thesaurus_expand'),
('kundenservice', 'thesaurus_neighbours'),
('kundenservice', 'thesaurus_path'),
('kundenservice', 'getDialog')
ON CONFLICT DO NOTHING;

------------------------------------------------------------------------------------------------
-- Plans (deleting them also deletes their steps)
------------------------------------------------------------------------------------------------
DELETE FROM mcp.plan
 WHERE name IN ('schaden_melden', 'deckung_pruefen', 'vertrag_kuendigen', 'beitrag_zahlung',
                'stammdaten_aendern', 'dokument_anfordern');

INSERT INTO mcp.plan (name, interface, description, examples, required_kinds, optional_kinds) VALUES
('schaden_melden', 'kundenservice',
 'Einen neuen Schaden melden: Es ist etwas passiert (Wasserrohrbruch, Einbruch, Diebstahl, Sturm, Brand, Unfall mit dem Auto) und die Kundin oder der Kunde möchte den Schaden melden oder anzeigen oder fragt, wie die Schadenmeldung abläuft, welche Angaben und Unterlagen nötig sind und was jetzt zu tun ist.',
 ARRAY['Bei uns ist heute Nacht ein Wasserrohr geplatzt, wie melde ich den Schaden?',
       'In unsere Wohnung wurde eingebrochen, was muss ich jetzt tun?',
       'Ich hatte einen Autounfall und möchte das meiner Versicherung melden.',
       'Der Sturm hat Ziegel vom Dach geweht, ich will einen Schaden anzeigen.',
       'Mein Fahrrad wurde vor dem Bahnhof gestohlen, wie läuft die Schadenmeldung?'],
 '{}', '{sparte,schadenart,dokument}'),
('deckung_pruefen', 'kundenservice',
 'Prüfen, ob etwas versichert ist: ob eine Versicherung (Hausrat, Kfz, Haftpflicht, Wohngebäude, Rechtsschutz, Unfall, Reise, Zahnzusatz) einen bestimmten Schaden oder ein Ereignis übernimmt und bezahlt, bis zu welcher Versicherungssumme, mit welcher Selbstbeteiligung, welche Leistungen und Ausschlüsse gelten, ob ich versichert bin, wenn etwas passiert.',
 ARRAY['Zahlt meine Hausratversicherung, wenn mein Fahrrad aus dem Keller gestohlen wird?',
       'Bin ich mit der Teilkasko versichert, wenn ich ein Reh anfahre?',
       'Übernimmt die Privathaftpflicht den Schaden, wenn mein Kind beim Nachbarn eine Scheibe einschlägt?',
       'Wie hoch ist die Selbstbeteiligung in der Vollkasko?',
       'Sind Überschwemmungen nach Starkregen in der Wohngebäudeversicherung mitversichert?'],
 '{sparte}', '{schadenart}'),
('vertrag_kuendigen', 'kundenservice',
 'Einen Versicherungsvertrag kündigen: wie und bis wann gekündigt werden kann, Kündigungsfrist und Vertragsablauf, Sonderkündigungsrecht nach einem Schadenfall, nach einer Beitragserhöhung oder beim Verkauf des Autos, Bestätigung der Kündigung.',
 ARRAY['Ich möchte meine Kfz-Versicherung zum Jahresende kündigen.',
       'Welche Kündigungsfrist hat meine Hausratversicherung?',
       'Mein Beitrag wurde erhöht, habe ich ein Sonderkündigungsrecht?',
       'Kann ich die Rechtsschutzversicherung nach einem Schadenfall kündigen?',
       'Wie kündige ich meine Lebensversicherung vorzeitig?'],
 '{sparte}', '{schadenart,dokument}'),
('beitrag_zahlung', 'kundenservice',
 'Fragen zum Beitrag und zur Zahlung: wie hoch der Beitrag ist, warum er gestiegen ist (Beitragsanpassung, Schadenfreiheitsklasse), wann er fällig ist und abgebucht wird, Zahlungsweise monatlich, vierteljährlich oder jährlich, Mahnung und Zahlungserinnerung, eine verpasste oder zurückgebuchte Zahlung, Ratenzahlung oder Stundung. Nicht die Änderung der Bankverbindung.',
 ARRAY['Warum ist mein Beitrag für die Autoversicherung gestiegen?',
       'Wann wird der Jahresbeitrag für die Hausrat abgebucht?',
       'Kann ich statt jährlich auch monatlich zahlen?',
       'Ich habe eine Mahnung bekommen, obwohl ich bezahlt habe.',
       'Die Abbuchung ist zurückgegangen, was passiert jetzt mit meinem Versicherungsschutz?'],
 '{}', '{sparte,dokument}'),
('stammdaten_aendern', 'kundenservice',
 'Persönliche Daten ändern: neue Anschrift nach einem Umzug, Namensänderung (zum Beispiel nach der Heirat), neue E-Mail-Adresse oder Telefonnummer, neue Bankverbindung, neues Konto oder IBAN für den Beitragseinzug.',
 ARRAY['Ich bin umgezogen, wie ändere ich meine Adresse?',
       'Ich habe geheiratet und heiße jetzt anders.',
       'Meine IBAN hat sich geändert, bitte buchen Sie ab sofort von meinem neuen Konto ab.',
       'Wie kann ich meine E-Mail-Adresse und Telefonnummer aktualisieren?',
       'Ab nächsten Monat wohnen wir in einer neuen Wohnung, was muss ich Ihnen mitteilen?'],
 '{}', '{sparte,dokument}'),
('dokument_anfordern', 'kundenservice',
 'Ein Dokument anfordern: einen Versicherungsschein (Police) als Kopie oder Zweitschrift, eine Beitragsbescheinigung für das Finanzamt, eine Versicherungsbestätigung (eVB) für die Zulassungsstelle, die grüne Karte, eine SF-Bescheinigung, die Versicherungsbedingungen oder einen Versicherungsnachweis zusenden oder neu ausstellen lassen.',
 ARRAY['Können Sie mir eine Kopie meines Versicherungsscheins schicken?',
       'Ich brauche eine Beitragsbescheinigung für die Steuererklärung.',
       'Ich benötige eine eVB-Nummer für die Anmeldung meines neuen Autos.',
       'Wo bekomme ich die grüne Karte für den Urlaub mit dem Auto?',
       'Bitte senden Sie mir die Versicherungsbedingungen noch einmal zu.'],
 '{dokument}', '{sparte}');

------------------------------------------------------------------------------------------------
-- Steps: ask for every required kind first, then the plan's prompt, then one model phase
------------------------------------------------------------------------------------------------
INSERT INTO mcp.plan_step (plan, position, kind, prompt, prompt_mode, tool, arguments, tools, tool_choice, ask_kind, question) VALUES
('schaden_melden', 1, 'prompt', 'vers_schaden_melden', 'extend', NULL, '{}', NULL, NULL, NULL, NULL),
('schaden_melden', 2, 'llm', NULL, 'extend', NULL, '{}',
 ARRAY['thesaurus_expand', 'thesaurus_neighbours', 'getDialog'], 'auto', NULL, NULL),

('deckung_pruefen', 1, 'ask', NULL, 'extend', NULL, '{}', NULL, NULL, 'sparte',
 'Um welche Versicherung geht es (zum Beispiel Hausrat, Kfz, Privathaftpflicht, Wohngebäude, Rechtsschutz)?'),
('deckung_pruefen', 2, 'tool', NULL, 'extend', 'thesaurus_neighbours', '{"term": "{{sparte}}", "depth": 1}', NULL, NULL, NULL, NULL),
('deckung_pruefen', 3, 'prompt', 'vers_deckung', 'extend', NULL, '{}', NULL, NULL, NULL, NULL),
('deckung_pruefen', 4, 'llm', NULL, 'extend', NULL, '{}',
 ARRAY['thesaurus_expand', 'thesaurus_neighbours', 'thesaurus_path', 'getDialog'], 'auto', NULL, NULL),

('vertrag_kuendigen', 1, 'ask', NULL, 'extend', NULL, '{}', NULL, NULL, 'sparte',
 'Welchen Vertrag möchten Sie kündigen (zum Beispiel Kfz-, Hausrat-, Haftpflicht- oder Lebensversicherung)?'),
('vertrag_kuendigen', 2, 'prompt', 'vers_kuendigung', 'extend', NULL, '{}', NULL, NULL, NULL, NULL),
('vertrag_kuendigen', 3, 'llm', NULL, 'extend', NULL, '{}',
 ARRAY['thesaurus_expand', 'getDialog'], 'auto', NULL, NULL),

('beitrag_zahlung', 1, 'prompt', 'vers_beitrag', 'extend', NULL, '{}', NULL, NULL, NULL, NULL),
('beitrag_zahlung', 2, 'llm', NULL, 'extend', NULL, '{}',
 ARRAY['thesaurus_expand', 'getDialog'], 'auto', NULL, NULL),

('stammdaten_aendern', 1, 'prompt', 'vers_stammdaten', 'extend', NULL, '{}', NULL, NULL, NULL, NULL),
('stammdaten_aendern', 2, 'llm', NULL, 'extend', NULL, '{}',
 ARRAY['getDialog'], 'auto', NULL, NULL),

('dokument_anfordern', 1, 'ask', NULL, 'extend', NULL, '{}', NULL, NULL, 'dokument',
 'Welches Dokument benötigen Sie (zum Beispiel Versicherungsschein, Beitragsbescheinigung, Versicherungsbestätigung für die Zulassungsstelle)?'),
('dokument_anfordern', 2, 'prompt', 'vers_dokument', 'extend', NULL, '{}', NULL, NULL, NULL, NULL),
('dokument_anfordern', 3, 'llm', NULL, 'extend', NULL, '{}',
 ARRAY['thesaurus_expand', 'thesaurus_neighbours', 'getDialog'], 'auto', NULL, NULL);

COMMIT;
