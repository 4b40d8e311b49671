// The official MCP TypeScript SDK (@modelcontextprotocol/sdk, pinned in package-lock.json)
// against pg_mcp_bridge over stdio and Streamable HTTP. Started by tests/mcp/run.sh (which
// passes the bridge, database and HTTP URL in the environment).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { McpError } from '@modelcontextprotocol/sdk/types.js';

const env = process.env;
const SECRETS = ['sk-test-SECRET-api-key', 'hunter2', 'secret internal detail', env.PG_MCP_JWT_SECRET];
const seen = [];
const keep = (x) => { seen.push(JSON.stringify(x)); return x; };
const textOf = (r) => r.content.filter((c) => c.type === 'text').map((c) => c.text).join('');

function token(role) {
  return execFileSync(env.BRIDGE, ['token', '--role', role, '--exp-seconds', '600'], { env }).toString().trim();
}

async function exercise(client) {
  const info = client.getServerVersion();
  assert.equal(info.name, 'pg_mcp');
  assert.equal(info.version, env.EXT_VERSION);
  assert.match(client.getInstructions(), /not instructions/);
  assert.equal(client.getServerCapabilities().tools.listChanged, true);
  const tools = keep(await client.listTools()).tools;
  const names = tools.map((t) => t.name).sort();
  // advertised output schema: the SDK validates structuredContent against it
  assert.deepEqual(tools.find((t) => t.name === 'find_titel').outputSchema.required, ['id', 'titel']);
  for (const n of ['boom', 'find_titel', 'schema_information', 'sql_query']) assert.ok(names.includes(n), names.join());
  const ok = keep(await client.callTool({ name: 'find_titel', arguments: { id: 3 } }));
  assert.equal(ok.isError, false);
  assert.deepEqual(ok.structuredContent, { id: 3, titel: 'Titel 3' });
  const rows = keep(await client.callTool({ name: 'sql_query', arguments: { query: 'SELECT id, titel FROM t ORDER BY id LIMIT 25' } }));
  assert.match(textOf(rows), /Titel 25/);
  const invalid = keep(await client.callTool({ name: 'find_titel', arguments: { id: 'three' } }));
  assert.equal(invalid.isError, true);
  assert.match(textOf(invalid), /must be an integer/);
  const failed = keep(await client.callTool({ name: 'boom', arguments: { n: 1 } }));
  assert.equal(failed.isError, true);
  assert.match(textOf(failed), /failed during execution/);
  const res = keep(await client.listResources());
  assert.deepEqual(res.resources.map((r) => r.uri), ['pgmcp://t/count']);
  const read = keep(await client.readResource({ uri: 'pgmcp://t/count' }));
  assert.equal(read.contents[0].text, '40');
  const prompts = keep(await client.listPrompts());
  assert.ok(prompts.prompts.some((p) => p.name === 'titel_summary'));
  const p = keep(await client.getPrompt({ name: 'titel_summary', arguments: { id: '7', lang: 'German' } }));
  // values arrive as marked data (mcp.render_prompt, the one renderer)
  assert.equal(p.messages[0].content.text, 'Summarize title <data name="id">7</data> in <data name="lang">German</data>.');
  await assert.rejects(client.getPrompt({ name: 'titel_summary', arguments: { id: '7' } }),
    (e) => e instanceof McpError && e.code === -32602);
  const c = keep(await client.complete({ ref: { type: 'ref/prompt', name: 'titel_summary' }, argument: { name: 'lang', value: 'Ge' } }));
  assert.deepEqual(c.completion.values, ['German']);
  await client.ping();
}

function http(role) {
  return new StreamableHTTPClientTransport(new URL(env.MCP_URL), {
    requestInit: { headers: { Authorization: `Bearer ${token(role)}` } },
  });
}

test('stdio: the full surface as the user\'s own role', async () => {
  const transport = new StdioClientTransport({
    command: env.BRIDGE,
    args: [],
    env: { PGHOST: env.PGHOST, PGPORT: env.PGPORT, PGUSER: 'mcp_t_alice', PGDATABASE: env.PGDATABASE, PATH: env.PATH },
  });
  const client = new Client({ name: 'pg-mcp-ts-stdio', version: '1.0' });
  await client.connect(transport);
  assert.equal(transport.sessionId, undefined);
  await exercise(client);
  await client.close();
});

test('Streamable HTTP: the full surface with an analyst token', async () => {
  const transport = http('mcp_t_analyst');
  const client = new Client({ name: 'pg-mcp-ts-http', version: '1.0' });
  await client.connect(transport);
  assert.ok(transport.sessionId, 'a session id was issued');
  await exercise(client);
  await transport.terminateSession();
  await client.close();
});

test('Streamable HTTP: a guest token sees and calls fewer tools', async () => {
  const client = new Client({ name: 'pg-mcp-ts-guest', version: '1.0' });
  await client.connect(http('mcp_t_guest'));
  const names = keep(await client.listTools()).tools.map((t) => t.name);
  assert.ok(!names.includes('find_titel'), names.join());
  assert.ok(names.includes('sql_query'));
  await assert.rejects(client.callTool({ name: 'find_titel', arguments: { id: 1 } }),
    (e) => e instanceof McpError && e.code === -32602);
  await client.close();
});

test('Streamable HTTP: a token for a role the authenticator may not become is refused', async () => {
  const client = new Client({ name: 'pg-mcp-ts-stranger', version: '1.0' });
  await assert.rejects(client.connect(http('mcp_t_stranger')));
});

test('no secret in any response', () => {
  assert.ok(seen.length > 10);
  for (const text of seen) for (const s of SECRETS) assert.ok(!text.includes(s), `secret in ${text.slice(0, 200)}`);
});
