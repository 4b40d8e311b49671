-- pg_mcp web console (the bridge's /console pages): the index of the runs list's keyset
-- pagination. The list reads mcp.run newest first as the signed-in role (row-level security),
-- one page at a time after the last (started_at, run_id) it showed. A role reading its own runs
-- (role_name = current_user, the run_own policy) is served by this index, the tie between equal
-- start times broken by run_id; an auditor reading every run is served by run_started_idx
-- (views.sql), whose order the same page query follows.

CREATE INDEX run_role_keyset_idx ON mcp.run (role_name, started_at DESC, run_id DESC);
COMMENT ON INDEX mcp.run_role_keyset_idx IS
  'Keyset pagination of a role''s own runs, newest first (the console''s runs list under the run_own policy).';
