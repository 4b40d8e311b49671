------------------------------------------------------------------------------------------------
-- German text search with compound splitting: configuration mcp.german_compound
------------------------------------------------------------------------------------------------
-- German compounds are the norm (Urlaubsanspruch, Nachtzuschlag), and the Snowball stemmer of
-- the plain german configuration leaves them whole, so "Urlaub" never meets "Urlaubsanspruch".
-- mcp.german_compound reads words first with an ispell dictionary that splits compounds
-- (files german_compound.dict / .affix in the tsearch_data directory, written by
-- scripts/setup.sh from Debian's hunspell-de-de word list) and then with german_stem, for the
-- words that dictionary does not know. Without the files (a server set up without them), the
-- configuration is created all the same, as a plain copy of german, and a NOTICE says so: a
-- collection that names it keeps working, with german's results.
CREATE TEXT SEARCH CONFIGURATION mcp.german_compound (COPY = pg_catalog.german);
DO $$
BEGIN
    CREATE TEXT SEARCH DICTIONARY mcp.german_compound_ispell (
        TEMPLATE = pg_catalog.ispell, DictFile = german_compound, AffFile = german_compound,
        StopWords = german);
    COMMENT ON TEXT SEARCH DICTIONARY mcp.german_compound_ispell IS
      'German ispell dictionary with compound splitting (tsearch_data/german_compound.dict and .affix, written by scripts/setup.sh from Debian''s hunspell-de-de word list): nouns in lower case, usable inside compounds, with the suffixes -s, -n/-en, -e, -er. Loaded once per backend on first use.';
    ALTER TEXT SEARCH CONFIGURATION mcp.german_compound
        ALTER MAPPING FOR asciiword, word, hword, hword_part, asciihword, hword_asciipart
        WITH mcp.german_compound_ispell, pg_catalog.german_stem;
    COMMENT ON TEXT SEARCH CONFIGURATION mcp.german_compound IS
      'German with compound splitting: words go to the ispell dictionary mcp.german_compound_ispell first (compound parts, base forms of plurals), then to german_stem (Snowball), like german. Created as a plain copy of german when the dictionary files were missing at install time.';
EXCEPTION WHEN undefined_file OR invalid_parameter_value OR config_file_error OR data_exception THEN
    RAISE NOTICE 'pg_mcp: the German compound dictionary files (tsearch_data/german_compound.dict, .affix) could not be read (%): mcp.german_compound is plain german', SQLERRM;
    COMMENT ON TEXT SEARCH CONFIGURATION mcp.german_compound IS
      'German with compound splitting when the dictionary files were present at install time; here they were missing, so this is a plain copy of german (install them with scripts/setup.sh and re-create the extension).';
END
$$;
