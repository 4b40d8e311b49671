-- Interface it_support (internal IT helpdesk) and its six execution plans, written by the admin
-- for the outside evaluation sets (tests/quality/SPEC.md, Domain B). Load the thesaurus first:
--
--   SELECT mcp.load_thesaurus(pg_read_file('.../tests/quality/itsupport/thesaurus.json')::jsonb);
--   psql -d <db> -f tests/quality/itsupport/plans.sql
--
-- The interface takes the chatbot interface's provider and embedding model when that exists
-- (NULL otherwise). Idempotent: interface and prompts are upserted, the six plans are deleted
-- and written again. There is no ticket system behind this interface: the plans collect what
-- the helpdesk needs and have the model write the ticket text; the thesaurus tools resolve
-- synonyms and product names.
\set ON_ERROR_STOP on
BEGIN;

INSERT INTO mcp.prompt (name, version, role, template, variables, description) VALUES
('it_support_system', 1, 'system',
 'Du bist der interne IT-Helpdesk des Unternehmens (Standorte Berlin, München, Hamburg, Köln und Homeoffice) und antwortest auf Deutsch, knapp und freundlich.
Vorgehen:
1. Kläre, worum es geht: Passwort/Konto, Störung, Hardware, Software, Berechtigung oder ein bestehendes Ticket.
2. Fehlen Angaben, die der Helpdesk braucht (System oder Gerät, Standort, Fehlermeldung, seit wann, Ticketnummer), frage gezielt nach statt zu raten.
3. Nenne, was der Nutzer selbst tun kann (Self-Service-Portal, Neustart, Kabel prüfen), und fasse am Ende das Anliegen als Ticket-Text zusammen: Kategorie, System/Gerät, Standort, Beschreibung, Dringlichkeit.
4. Frage nie nach Passwörtern und gib keine Passwörter aus.
5. Bei Fragen außerhalb der IT-Unterstützung sage, dass der Helpdesk dafür nicht zuständig ist.',
 '{}', 'System prompt of the interface it_support (evaluation admin, tests/quality)'),
('it_passwort', 1, 'system',
 'Anliegen: gesperrtes Konto oder vergessenes bzw. abgelaufenes Passwort für {{system}}. Erkläre den Weg über das Self-Service-Passwortportal (Identität per Authenticator-App oder SMS bestätigen), die Regeln für ein neues Passwort (mindestens 12 Zeichen, nicht eines der letzten 10) und dass eine Kontosperre nach 30 Minuten von selbst endet. Klappt der Self-Service nicht, fasse das Anliegen als Ticket zusammen; eine Identitätsprüfung erfolgt per Rückruf. Frage niemals nach dem alten oder neuen Passwort.',
 '{system}', 'Extended system prompt of the plan passwort_reset'),
('it_stoerung', 1, 'system',
 'Anliegen: Meldung einer Störung oder Fehlfunktion. Kläre, welches System oder Gerät betroffen ist, an welchem Standort (oder im Homeoffice), seit wann, ob Kolleginnen und Kollegen dasselbe Problem haben und wie die Fehlermeldung genau lautet. Schlage ein, zwei naheliegende Selbsthilfeschritte vor und fasse die Meldung dann als Ticket zusammen (Dringlichkeit hoch, wenn viele betroffen sind oder nicht gearbeitet werden kann). Die Meldung: {{question}}',
 '{question}', 'Extended system prompt of the plan stoerung_melden'),
('it_hardware', 1, 'system',
 'Anliegen: Bestellung, Austausch oder Ausleihe von Hardware ({{geraet}}). Standardgeräte (Laptop, Monitor, Dockingstation, Headset, Tastatur, Maus, Smartphone) bestellt die Führungskraft im IT-Serviceportal; Zubehör unter 100 Euro geht ohne Freigabe. Leihgeräte gibt es für höchstens vier Wochen an jedem Standort. Ein defektes Gerät wird getauscht, wenn es älter als die Garantie ist oder der Schaden nicht selbst verschuldet ist. Kläre Gerät, Zweck, Lieferort und gewünschten Termin und fasse die Bestellung als Ticket zusammen.',
 '{geraet}', 'Extended system prompt of the plan hardware_bestellen'),
('it_software', 1, 'system',
 'Anliegen: Installation, Aktualisierung oder Lizenz von {{software}}. Programme aus dem Softwarekatalog (Unternehmensportal bzw. Softwarecenter) können selbst installiert werden; andere Programme und kostenpflichtige Lizenzen beantragt die Führungskraft, die IT prüft Sicherheit und Lizenzbedingungen. Administratorrechte werden nicht vergeben. Kläre Programm, Version, Betriebssystem und Zweck und fasse den Antrag als Ticket zusammen.',
 '{software}', 'Extended system prompt of the plan software_installieren'),
('it_ticket', 1, 'system',
 'Anliegen: Nachfrage zu einem bestehenden Ticket oder Antrag (Stand, Bearbeiter, Eskalation). Einen Zugriff auf das Ticketsystem hast du nicht: bitte um die Ticketnummer (INC… für Störungen, REQ… für Anträge), erkläre, wo der Stand im IT-Serviceportal unter „Meine Tickets“ zu sehen ist, und nenne die Reaktionszeiten (Störung mit hoher Dringlichkeit 4 Stunden, sonst 2 Arbeitstage). Eine Eskalation ist möglich, wenn die Reaktionszeit überschritten ist oder nicht gearbeitet werden kann; fasse sie als Nachricht an den Service Desk zusammen. Die Nachfrage: {{question}}',
 '{question}', 'Extended system prompt of the plan ticket_status'),
('it_zugang', 1, 'system',
 'Anliegen: Zugriffsrechte auf {{system}} (Anwendung, Netzlaufwerk, Funktionspostfach, Verteiler oder Gruppe) für die fragende Person oder eine Kollegin bzw. einen Kollegen. Berechtigungen genehmigt die oder der Verantwortliche der Ressource und die Führungskraft der Person, die den Zugriff bekommen soll; für Personaldaten zusätzlich der Datenschutz. Kläre, für wen, welche Ressource, welche Rechte (lesen, schreiben, verwalten) und bis wann, und fasse den Antrag als Ticket zusammen.',
 '{system}', 'Extended system prompt of the plan zugang_beantragen')
ON CONFLICT (name, version) DO UPDATE
   SET role = EXCLUDED.role, template = EXCLUDED.template, variables = EXCLUDED.variables,
       description = EXCLUDED.description, active = true;

INSERT INTO mcp.interface (name, description, provider, system_prompt, max_iterations, access_role, embedding_model)
VALUES ('it_support',
        'Interner IT-Helpdesk: Passwörter und Konten, Störungen, Hardware, Software, Berechtigungen, Ticketstand (Evaluation Domain B, tests/quality).',
        (SELECT i.provider FROM mcp.interface i WHERE i.name = 'chatbot'),
        'it_support_system', 6, 'public',
        (SELECT i.embedding_model FROM mcp.interface i WHERE i.name = 'chatbot'))
ON CONFLICT (name) DO UPDATE
   SET description = EXCLUDED.description, system_prompt = EXCLUDED.system_prompt,
       max_iterations = EXCLUDED.max_iterations, access_role = EXCLUDED.access_role, enabled = true;

INSERT INTO mcp.interface_tool (interface, tool) VALUES
 ('it_support', 'thesaurus_expand'),
 ('it_support', 'thesaurus_neighbours')
ON CONFLICT DO NOTHING;

DELETE FROM mcp.plan WHERE name IN ('passwort_reset', 'stoerung_melden', 'hardware_bestellen',
                                    'software_installieren', 'ticket_status', 'zugang_beantragen');

INSERT INTO mcp.plan (name, interface, description, examples, required_kinds, optional_kinds, priority) VALUES
('passwort_reset', 'it_support',
 'Passwort vergessen, Passwort abgelaufen oder Konto gesperrt: Passwort zurücksetzen oder Konto entsperren lassen für die Windows-Anmeldung, SAP, VPN, E-Mail oder ein anderes System, auch PIN oder Authenticator-App (MFA) neu einrichten. Anmeldung nicht möglich wegen Kennwort.',
 ARRAY['Mein SAP-Passwort ist abgelaufen, wie setze ich es zurück?',
       'Ich habe mich dreimal falsch angemeldet und jetzt ist mein Windows-Konto gesperrt.',
       'Passwort für das VPN vergessen – was nun?',
       'Ich habe ein neues Handy und komme nicht mehr an meine Authenticator-App für die Anmeldung.'],
 '{system}', '{geraet,betriebssystem}', 6),
('stoerung_melden', 'it_support',
 'Störung oder Fehlfunktion melden: ein System, ein Programm oder ein Gerät geht nicht, funktioniert nicht richtig, ist langsam, stürzt ab, bringt eine Fehlermeldung oder ist ausgefallen, auch an einem bestimmten Standort oder im Homeoffice (keine Verbindung, Ausfall, Fehler).',
 ARRAY['Outlook stürzt seit heute Morgen beim Start ab.',
       'Im Büro Köln funktioniert das WLAN nicht.',
       'Der Drucker im zweiten Stock zeigt Fehler 49 an.',
       'Teams ist extrem langsam, Besprechungen brechen ständig ab.',
       'Mein Laptop erkennt die Dockingstation nicht mehr.'],
 '{}', '{system,geraet,software,standort,betriebssystem}', 8),
('hardware_bestellen', 'it_support',
 'Hardware bestellen, austauschen oder ausleihen: neues oder zusätzliches Gerät (Laptop, Monitor, Dockingstation, Headset, Smartphone, Tastatur, Maus, Zubehör) anfordern, ein defektes oder altes Gerät ersetzen lassen oder ein Leihgerät für eine bestimmte Zeit bekommen, auch für neue Mitarbeitende.',
 ARRAY['Ich brauche einen zweiten Monitor für meinen Arbeitsplatz.',
       'Mein Headset ist kaputt, kann ich ein neues bekommen?',
       'Für eine Messe benötige ich für zwei Wochen einen Leihlaptop.',
       'Wie bestelle ich ein Diensthandy für einen neuen Kollegen?'],
 '{geraet}', '{standort,betriebssystem}', 5),
('software_installieren', 'it_support',
 'Software beantragen: ein Programm installieren lassen, auf eine neuere Version aktualisieren oder eine Lizenz anfordern bzw. verlängern (z. B. Adobe Acrobat, Visual Studio Code, Python, Zoom, 7-Zip, Office), auf dem Laptop oder Rechner unter Windows, macOS oder Linux.',
 ARRAY['Bitte installiert mir Visual Studio Code auf meinem Rechner.',
       'Ich brauche eine Lizenz für Adobe Acrobat Pro.',
       'Kann Python auf meinem Windows-11-Laptop auf die neueste Version aktualisiert werden?',
       'Darf ich 7-Zip selbst installieren oder muss das die IT machen?'],
 '{software}', '{betriebssystem,geraet}', 5),
('ticket_status', 'it_support',
 'Nachfrage zu einem bestehenden Ticket, einer Störungsmeldung oder einem Antrag: Stand und Status der Bearbeitung, wer es bearbeitet, wie lange es noch dauert, Rückmeldung fehlt, Ticket eskalieren, ergänzen oder schließen. Nennt meist kein System, oft eine Ticketnummer.',
 ARRAY['Wie ist der Stand meines Tickets INC0123456?',
       'Ich habe letzte Woche eine Anfrage gestellt und noch nichts gehört.',
       'Wer bearbeitet gerade meinen Antrag?',
       'Kann mein Ticket eskaliert werden? Es ist dringend.'],
 '{}', '{system,geraet,software}', 4),
('zugang_beantragen', 'it_support',
 'Zugriffsrechte beantragen: Zugang, Berechtigung, Lese- oder Schreibrechte auf ein System (SAP, Jira, Confluence, SharePoint), ein Netzlaufwerk oder einen freigegebenen Ordner, ein Funktionspostfach, einen Verteiler oder eine Gruppe bzw. ein Team, für sich selbst oder für eine Kollegin oder einen Kollegen, auch für neue Mitarbeitende.',
 ARRAY['Ich brauche Schreibrechte auf das Abteilungslaufwerk Controlling.',
       'Bitte gebt meiner neuen Kollegin Zugriff auf das Funktionspostfach Einkauf.',
       'Wie beantrage ich einen Zugang zu Jira für unser Projekt?',
       'Kann ich in den Teams-Kanal des Vertriebs aufgenommen werden?',
       'Mein Praktikant braucht Leserechte in SAP MM.'],
 '{system}', '{standort}', 6);

-- passwort_reset: which account, then the self-service explanation
INSERT INTO mcp.plan_step (plan, position, kind, ask_kind, question) VALUES
 ('passwort_reset', 1, 'ask', 'system', 'Für welches Konto oder System brauchen Sie ein neues Passwort, z. B. Windows-Anmeldung, SAP, VPN oder E-Mail?');
INSERT INTO mcp.plan_step (plan, position, kind, prompt) VALUES
 ('passwort_reset', 2, 'prompt', 'it_passwort');
INSERT INTO mcp.plan_step (plan, position, kind, tools, tool_choice) VALUES
 ('passwort_reset', 3, 'llm', '{thesaurus_expand}', 'auto');

-- stoerung_melden: no required kind (a system, a device or a program may be broken); the model
-- asks for what is missing
INSERT INTO mcp.plan_step (plan, position, kind, prompt) VALUES
 ('stoerung_melden', 1, 'prompt', 'it_stoerung');
INSERT INTO mcp.plan_step (plan, position, kind, tools, tool_choice) VALUES
 ('stoerung_melden', 2, 'llm', '{thesaurus_expand,thesaurus_neighbours}', 'auto');

-- hardware_bestellen: which device, where to deliver it
INSERT INTO mcp.plan_step (plan, position, kind, ask_kind, question) VALUES
 ('hardware_bestellen', 1, 'ask', 'geraet', 'Welches Gerät möchten Sie bestellen, austauschen oder ausleihen?'),
 ('hardware_bestellen', 2, 'ask', 'standort', 'An welchen Standort soll das Gerät geliefert werden: Berlin, München, Hamburg, Köln oder ins Homeoffice?');
INSERT INTO mcp.plan_step (plan, position, kind, prompt) VALUES
 ('hardware_bestellen', 3, 'prompt', 'it_hardware');
INSERT INTO mcp.plan_step (plan, position, kind, tools, tool_choice) VALUES
 ('hardware_bestellen', 4, 'llm', '{thesaurus_expand}', 'auto');

-- software_installieren: which program
INSERT INTO mcp.plan_step (plan, position, kind, ask_kind, question) VALUES
 ('software_installieren', 1, 'ask', 'software', 'Welches Programm möchten Sie installieren, aktualisieren oder lizenzieren lassen?');
INSERT INTO mcp.plan_step (plan, position, kind, prompt) VALUES
 ('software_installieren', 2, 'prompt', 'it_software');
INSERT INTO mcp.plan_step (plan, position, kind, tools, tool_choice) VALUES
 ('software_installieren', 3, 'llm', '{thesaurus_expand}', 'auto');

-- ticket_status: no tool behind it, the model explains where to look and how to escalate
INSERT INTO mcp.plan_step (plan, position, kind, prompt) VALUES
 ('ticket_status', 1, 'prompt', 'it_ticket');
INSERT INTO mcp.plan_step (plan, position, kind, tools, tool_choice) VALUES
 ('ticket_status', 2, 'llm', NULL, 'none');

-- zugang_beantragen: which system, folder, mailbox or group
INSERT INTO mcp.plan_step (plan, position, kind, ask_kind, question) VALUES
 ('zugang_beantragen', 1, 'ask', 'system', 'Auf welches System, Laufwerk, Postfach oder welche Gruppe wird der Zugriff benötigt?');
INSERT INTO mcp.plan_step (plan, position, kind, prompt) VALUES
 ('zugang_beantragen', 2, 'prompt', 'it_zugang');
INSERT INTO mcp.plan_step (plan, position, kind, tools, tool_choice) VALUES
 ('zugang_beantragen', 3, 'llm', '{thesaurus_expand}', 'auto');

COMMIT;
