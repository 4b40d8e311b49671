-- Shared fixtures of the crash/hang corpus (run once as postgres before the cases).
SET client_min_messages = warning;
DO $$ BEGIN
  IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'attacker') THEN
    CREATE ROLE attacker LOGIN;
  END IF;
END $$;
CREATE TABLE public.attack_data (id int PRIMARY KEY, secret text);
INSERT INTO public.attack_data VALUES (1, 'owner only');
REVOKE ALL ON public.attack_data FROM PUBLIC;
-- open to every role, so the cases reach the tools as 'attacker'
INSERT INTO mcp.interface (name, access_role) VALUES ('chatbot', 'public');
INSERT INTO mcp.interface_tool VALUES ('chatbot', 'sql_query'), ('chatbot', 'schema_information');
