-- mcp.analyze latency with :n synthetic thesaurus terms on top of the demo thesaurus.
-- Run by benches/analyze/run.sh (psql -v n=… -v thesaurus=…).
\set QUIET on
SET client_min_messages = warning;
SELECT mcp.load_thesaurus(:'thesaurus', replace => true) IS NOT NULL AS demo_loaded \gset
-- synthetic terms: pseudo-German compound words of random syllables, 2 alternative labels each
SELECT setseed(0.42);
INSERT INTO mcp.thesaurus_term (id, kind, label, alt_labels)
SELECT 'syn' || i, (ARRAY['tarifgebiet', 'fachbereich', 'thema', 'beruf'])[1 + i % 4],
       initcap(w1 || w2 || w3), ARRAY[initcap(w2 || w1), upper(left(w1, 2) || left(w3, 1)) || i]
  FROM (SELECT i,
               (ARRAY['ber','gar','lin','mont','stahl','werk','haus','bau','land','feld','kraft','zeit','lohn','dienst','tarif','stadt','wald','berg','bach','hof'])[1 + (random() * 19)::int] AS w1,
               (ARRAY['a','e','i','o','u','en','er','an','el','ur'])[1 + (random() * 9)::int] || (ARRAY['mark','burg','heim','dorf','rode','stedt','hagen','feld','wang','ried'])[1 + (random() * 9)::int] AS w2,
               (ARRAY['','ung','ler','erei','schaft','heit','tum','ling','nis','werk'])[1 + (random() * 9)::int] || i::text AS w3
          FROM generate_series(1, :n) i) s;
ANALYZE mcp.thesaurus_label;
ANALYZE mcp.thesaurus_term;
ANALYZE mcp.thesaurus_variant;
CREATE TEMP TABLE bench_q (question text);
INSERT INTO bench_q VALUES
 ('Welche Tarifverträge gelten im bayerischen Einzelhandel?'),
 ('Was verdient man in der Metallindustrie in NRW?'),
 ('Urlaub im oeffentlicher dienst in Bayern und Hessen'),
 ('Wie hoch sind die Zuschläge im Einzelhandle in Bayern?'),
 ('Kündigungsfristen im ÖD in Berlin'),
 ('Arbeitszeit in der Metall- und Elektroindustrie in Nordrhein-Westfalen'),
 ('Gibt es Weihnachtsgeld im Bauhauptgewerbe in Thüringen?'),
 ('Wie wird das Wetter morgen in Berlin?');
CREATE TEMP TABLE bench_t (mode text, ms float8);
-- mode 'no plans': the interface has no plan (entity extraction only, the baseline of earlier runs);
-- 'plans': the demo's two plans, ranked by coverage and keyword; 'plans + embedding': the same
-- interface with the local all-MiniLM-L6-v2 model (the question is embedded at every call, the
-- plans' example vectors are stored; skipped when the model files are not installed)
-- 'plans (before)': the same plans ranked by the analyze of an earlier revision (run.sh loads it
-- as pg_temp.analyze_before), side by side in the same run
\if :has_before
\i :before
\endif
CREATE FUNCTION pg_temp.bench(mode text, iface text, before boolean DEFAULT false) RETURNS void LANGUAGE plpgsql AS $$
DECLARE t0 timestamptz; q text; r int;
BEGIN
  FOR r IN 1 .. 3 LOOP
    IF before THEN PERFORM pg_temp.analyze_before(question, iface) FROM bench_q;
    ELSE PERFORM mcp.analyze(question, iface) FROM bench_q; END IF;   -- warm up
  END LOOP;
  FOR r IN 1 .. 40 LOOP
    FOR q IN SELECT question FROM bench_q LOOP
      t0 := clock_timestamp();
      IF before THEN PERFORM pg_temp.analyze_before(q, iface); ELSE PERFORM mcp.analyze(q, iface); END IF;
      INSERT INTO bench_t VALUES (mode, extract(epoch FROM clock_timestamp() - t0) * 1000);
    END LOOP;
  END LOOP;
END $$;
INSERT INTO mcp.interface (name) VALUES ('bench_none'), ('bench_plans');
SELECT pg_temp.bench('no plans', 'bench_none');
INSERT INTO mcp.plan (name, interface, description, examples, required_kinds, optional_kinds, priority) VALUES
 ('tarif_lookup', 'bench_plans',
  'Tarifverträge eines Tarifgebiets und Fachbereichs nachschlagen: welche Tarifverträge gelten, was regeln sie zu Entgelt, Urlaub, Arbeitszeit, Zuschlägen, Sonderzahlungen oder Kündigung.',
  ARRAY['Welche Tarifverträge gelten für die Metallindustrie in Bayern?', 'Wie viel Urlaub gibt es im Einzelhandel in Hessen?',
        'Wie lang ist die Wochenarbeitszeit in der Chemischen Industrie in NRW?', 'Was regelt der Tarifvertrag zu Zuschlägen?'],
  '{tarifgebiet,fachbereich}', '{thema}', 10),
 ('begriffe', 'bench_plans',
  'Begriffe erklären: Synonyme, Abkürzungen, Oberbegriffe und Unterbegriffe, welche Branchen oder Bundesländer zu einem Begriff gehören, wie zwei Begriffe zusammenhängen.',
  ARRAY['Was bedeutet die Abkürzung M+E?', 'Welche Bundesländer gehören zum Tarifgebiet Ost?',
        'Was ist ein Synonym für Sonderzahlung?', 'Wie hängen Banken und Versicherungen zusammen?'],
  '{}', '{fachbereich,tarifgebiet,thema}', 0);
\if :has_before
SELECT pg_temp.bench('plans (before)', 'bench_plans', true);
\endif
SELECT pg_temp.bench('plans', 'bench_plans');
SELECT (pg_catalog.pg_stat_file('/usr/local/share/pg_mcp/models/all-MiniLM-L6-v2/model.safetensors', true)).size IS NOT NULL AS has_model \gset
\if :has_model
INSERT INTO mcp.embedding_model (name, kind, dimension, path)
  VALUES ('minilm', 'local', 384, '/usr/local/share/pg_mcp/models/all-MiniLM-L6-v2');
UPDATE mcp.interface SET embedding_model = 'minilm' WHERE name = 'bench_plans';
SELECT pg_temp.bench('plans + embedding', 'bench_plans');
\endif
\set QUIET off
SELECT :n AS synthetic_terms, (SELECT count(*) FROM mcp.thesaurus_label) AS labels, mode, count(*) AS calls,
       round(percentile_cont(0.5) WITHIN GROUP (ORDER BY ms)::numeric, 3) AS p50_ms,
       round(percentile_cont(0.95) WITHIN GROUP (ORDER BY ms)::numeric, 3) AS p95_ms,
       round(max(ms)::numeric, 3) AS max_ms
  FROM bench_t GROUP BY mode ORDER BY min(ctid);
