-- Retrieval quality on the demo corpus (demo/retrieval.sql must be loaded): 30 questions written
-- for it, each with the one document that answers it. Per mode: recall@7, MRR@10, nDCG@10 over
-- documents (a document's rank is the rank of its best chunk). Run:
--   psql -h 127.0.0.1 -p 55432 -U postgres pg_mcp_demo -f benches/retrieval/quality.sql
\set ON_ERROR_STOP on
\pset format aligned
CREATE TEMP TABLE q (id int, question text, relevant text);
INSERT INTO q VALUES
 (1,  'Wie viele Urlaubstage haben Beschäftigte der Metallindustrie in Bayern?', 'tv://metall-bayern/mtv'),
 (2,  'Wie hoch ist der Nachtzuschlag in der bayerischen Metallindustrie?', 'tv://metall-bayern/mtv'),
 (3,  'Welcher Zuschlag gilt für Sonntagsarbeit im Metall-Tarif Bayern?', 'tv://metall-bayern/mtv'),
 (4,  'Wöchentliche Arbeitszeit Metall Bayern 35 Stunden', 'tv://metall-bayern/mtv'),
 (5,  'Um wie viel Prozent steigen die Entgelte in der Metallindustrie NRW?', 'tv://metall-nrw/etv'),
 (6,  'Inflationsausgleichsprämie Metall Nordrhein-Westfalen', 'tv://metall-nrw/etv'),
 (7,  'Ausbildungsvergütung im ersten Jahr in der Metall- und Elektroindustrie NRW', 'tv://metall-nrw/etv'),
 (8,  'Wie lang ist die Arbeitswoche in der chemischen Industrie?', 'tv://chemie-nrw/mtv'),
 (9,  'Freischichten für Wechselschicht in der Chemie', 'tv://chemie-nrw/mtv'),
 (10, 'Wie hoch ist das Urlaubsgeld je Urlaubstag in der Chemie NRW?', 'tv://chemie-nrw/mtv'),
 (11, 'Was ist der Demografiefonds in der Chemie?', 'tv://chemie-bund/demografie'),
 (12, 'Wie viel zahlen Arbeitgeber jährlich in den Demografiefonds?', 'tv://chemie-bund/demografie'),
 (13, 'Altersteilzeit und Langzeitkonten finanzieren', 'tv://chemie-bund/demografie'),
 (14, 'Berufsunfähigkeitsversicherung aus dem Demografiebetrag', 'tv://chemie-bund/demografie'),
 (15, 'Spätöffnungszuschlag im Einzelhandel Baden-Württemberg', 'tv://handel-bw/mtv'),
 (16, 'Zuschlag für Arbeit nach 20 Uhr im Einzelhandel', 'tv://handel-bw/mtv'),
 (17, 'Kündigungsfrist in den ersten sechs Monaten im Einzelhandel', 'tv://handel-bw/mtv'),
 (18, 'Was verdient eine Verkäuferin in Bayern nach sechs Berufsjahren?', 'tv://handel-bayern/etv'),
 (19, 'Entgeltgruppe III Verkäufer Einzelhandel Bayern', 'tv://handel-bayern/etv'),
 (20, 'Ausbildungsvergütung im dritten Ausbildungsjahr im bayerischen Einzelhandel', 'tv://handel-bayern/etv'),
 (21, 'Erschwerniszuschlag für Arbeiten in Schächten oder bei Hitze', 'tv://bau-bund/brtv'),
 (22, 'Wegezeitentschädigung auf entfernten Baustellen', 'tv://bau-bund/brtv'),
 (23, 'Auslösung für Übernachtung im Baugewerbe', 'tv://bau-bund/brtv'),
 (24, 'Wann wird die Jahressonderzahlung im öffentlichen Dienst gezahlt?', 'tv://oed-bund/tvoed'),
 (25, 'Stufenaufstieg in der Entgelttabelle TVöD', 'tv://oed-bund/tvoed'),
 (26, 'Kündigungsfrist nach mehr als fünf Jahren Beschäftigungszeit im öffentlichen Dienst', 'tv://oed-bund/tvoed'),
 (27, 'Wie viele Wochenstunden arbeiten Bankangestellte?', 'tv://banken/mtv'),
 (28, 'Gibt es ein 13. Monatsgehalt im Bankgewerbe?', 'tv://banken/mtv'),
 (29, 'Recht auf mobiles Arbeiten in der Metallindustrie Baden-Württemberg', 'tv://metall-bw/mobiles-arbeiten'),
 (30, 'Muss ich außerhalb der Erreichbarkeitszeiten E-Mails beantworten?', 'tv://metall-bw/mobiles-arbeiten');

CREATE TEMP TABLE ranked AS
SELECT q.id, m.mode, d.uri, row_number() OVER (PARTITION BY q.id, m.mode ORDER BY d.best) AS rank, q.relevant
  FROM q CROSS JOIN (VALUES ('vector'), ('text'), ('hybrid')) AS m(mode)
  CROSS JOIN LATERAL (
    SELECT s.uri, min(s.ord) AS best
      FROM mcp.search('tarif', q.question, 30, m.mode) WITH ORDINALITY AS s(chunk_id, document_id, title, uri, score, text, metadata, ord)
     GROUP BY s.uri) AS d;

SELECT m.mode,
       round(avg(CASE WHEN EXISTS (SELECT 1 FROM ranked r WHERE r.id = q.id AND r.mode = m.mode AND r.uri = q.relevant AND r.rank <= 7) THEN 1 ELSE 0 END), 3) AS "recall@7",
       round(avg(COALESCE((SELECT 1.0 / r.rank FROM ranked r WHERE r.id = q.id AND r.mode = m.mode AND r.uri = q.relevant AND r.rank <= 10), 0)), 3) AS "MRR@10",
       -- one relevant document per question: nDCG@10 = 1 / log2(rank + 1)
       round(avg(COALESCE((SELECT 1.0 / log(2, r.rank + 1) FROM ranked r WHERE r.id = q.id AND r.mode = m.mode AND r.uri = q.relevant AND r.rank <= 10), 0)), 3) AS "nDCG@10"
  FROM q CROSS JOIN (VALUES ('vector'), ('text'), ('hybrid')) AS m(mode)
 GROUP BY m.mode ORDER BY m.mode;
