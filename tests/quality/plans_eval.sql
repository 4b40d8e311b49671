-- Plan accuracy of mcp.analyze on one labelled question file (run by tests/quality/plans_eval.sh).
-- Variables: iface (the interface), the questions on stdin (TSV: question, then the expected plan in column
-- :col; '-' = no plan), col, min_score and min_score_emb (the chat's thresholds, src/plans.rs
-- PLAN_MIN_SCORE and PLAN_MIN_SCORE_EMBEDDING), label (the name printed). The chosen plan is what
-- mcp.chat would take: the first plan of analyze's ranking when it scores at least the threshold
-- (min_score_emb when its score includes the embedding signal, why.embedding a number), else none.
\set QUIET on
CREATE TEMP TABLE IF NOT EXISTS qline (line text);
TRUNCATE qline;
\copy qline FROM pstdin WITH (FORMAT text, DELIMITER E'\x01')
CREATE TEMP TABLE IF NOT EXISTS result (domain text, question text, expected text, got text, score numeric,
                                        second text, second_score numeric);
DELETE FROM result WHERE domain = :'label';
INSERT INTO result
SELECT :'label', q.question, q.expected,
       CASE WHEN (a -> 'plans' -> 0 ->> 'score')::numeric
                 >= CASE WHEN jsonb_typeof(a -> 'plans' -> 0 -> 'why' -> 'embedding') = 'number' THEN :min_score_emb ELSE :min_score END
            THEN a -> 'plans' -> 0 ->> 'name' ELSE '-' END,
       (a -> 'plans' -> 0 ->> 'score')::numeric,
       a -> 'plans' -> 1 ->> 'name', (a -> 'plans' -> 1 ->> 'score')::numeric
  FROM (SELECT split_part(line, E'\t', 1) AS question, btrim(split_part(line, E'\t', :col)) AS expected
          FROM qline WHERE line NOT LIKE '#%' AND btrim(line) <> '') q,
       LATERAL mcp.analyze(q.question, :'iface') a;
\set QUIET off
\pset footer off
\echo
\echo === :label (interface :iface, threshold :min_score, with an embedding model :min_score_emb)
SELECT expected, count(*) AS questions, sum((got = expected)::int) AS right,
       round(avg((got = expected)::int), 3) AS accuracy
  FROM result WHERE domain = :'label' GROUP BY ROLLUP (expected) ORDER BY expected NULLS LAST;
SELECT got AS chosen, expected, count(*) AS n FROM result WHERE domain = :'label' AND got <> expected
 GROUP BY 1, 2 ORDER BY 3 DESC, 1, 2;
\if :show_misses
SELECT left(question, 70) AS question, expected, got, score, second, second_score
  FROM result WHERE domain = :'label' AND got <> expected ORDER BY expected, question;
\endif
