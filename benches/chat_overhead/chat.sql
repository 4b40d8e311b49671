SELECT mcp.chat('What do we know about item 7?', 'one');
