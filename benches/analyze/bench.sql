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
CREATE TEMP TABLE bench_t (ms float8);
DO $$
DECLARE t0 timestamptz; q text; r int;
BEGIN
  FOR r IN 1 .. 3 LOOP PERFORM mcp.analyze(question) FROM bench_q; END LOOP;   -- warm up
  FOR r IN 1 .. 40 LOOP
    FOR q IN SELECT question FROM bench_q LOOP
      t0 := clock_timestamp();
      PERFORM mcp.analyze(q);
      INSERT INTO bench_t VALUES (extract(epoch FROM clock_timestamp() - t0) * 1000);
    END LOOP;
  END LOOP;
END $$;
\set QUIET off
SELECT :n AS synthetic_terms, (SELECT count(*) FROM mcp.thesaurus_label) AS labels, count(*) AS calls,
       round(percentile_cont(0.5) WITHIN GROUP (ORDER BY ms)::numeric, 3) AS p50_ms,
       round(percentile_cont(0.95) WITHIN GROUP (ORDER BY ms)::numeric, 3) AS p95_ms,
       round(max(ms)::numeric, 3) AS max_ms
  FROM bench_t;
