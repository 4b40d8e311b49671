SELECT mcp.chat('Hello', 'plain');
