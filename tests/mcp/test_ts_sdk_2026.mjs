// The official MCP TypeScript SDK v2 (@modelcontextprotocol/client, pinned in package-lock.json)
// against pg_mcp_bridge in the stateless 2026-07-28 revision over Streamable HTTP, beside the
// v1 SDK's 2025-11-25 test (test_ts_sdk.mjs). Started by tests/mcp/run.sh.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';

const env = process.env;
const textOf = (r) => r.content.filter((c) => c.type === 'text').map((c) => c.text).join('');

function token(role) {
  return execFileSync(env.BRIDGE, ['token', '--role', role, '--exp-seconds', '600'], { env }).toString().trim();
}

async function connect(mode, onElicit) {
  const client = new Client(
    { name: 'pg-mcp-ts2', version: '1.0' },
    { versionNegotiation: { mode }, capabilities: onElicit ? { elicitation: {} } : {} },
  );
  if (onElicit) client.setRequestHandler('elicitation/create', onElicit);
  const transport = new StreamableHTTPClientTransport(new URL(env.MCP_URL), {
    requestInit: { headers: { Authorization: `Bearer ${token('mcp_t_analyst')}` } },
  });
  await client.connect(transport);
  return client;
}

test('TS SDK 2.4 in 2026-07-28 mode: discover, lists, calls, errors', async () => {
  const client = await connect({ pin: '2026-07-28' });
  try {
    assert.equal(client.getNegotiatedProtocolVersion(), '2026-07-28');
    assert.equal(client.getServerVersion().name, 'pg_mcp');
    assert.equal(client.getServerVersion().version, env.EXT_VERSION);
    assert.ok(client.getDiscoverResult().supportedVersions.includes('2025-11-25'));
    const tools = (await client.listTools()).tools;
    const names = tools.map((t) => t.name);
    // byte order of the names, the same on every call
    assert.deepEqual(names, [...names].sort((a, b) => (Buffer.from(a) < Buffer.from(b) ? -1 : 1)));
    for (const n of ['boom', 'find_titel', 'sql_query']) assert.ok(names.includes(n), names.join());
    const ok = await client.callTool({ name: 'find_titel', arguments: { id: 3 } });
    assert.equal(ok.isError, false);
    assert.deepEqual(ok.structuredContent, { id: 3, titel: 'Titel 3' });
    const failed = await client.callTool({ name: 'boom', arguments: { n: 1 } });
    assert.equal(failed.isError, true);
    assert.doesNotMatch(textOf(failed), /hunter2|secret internal/);
    const rr = await client.readResource({ uri: 'pgmcp://t/count' });
    assert.equal(rr.contents[0].text, '40');
    await assert.rejects(client.readResource({ uri: 'pgmcp://t/nothing' }), (e) => e.code === -32602);
    const p = await client.getPrompt({ name: 'titel_summary', arguments: { id: '7', lang: 'German' } });
    assert.match(p.messages[0].content.text, /Summarize title/);
  } finally {
    await client.close();
  }
});

test('TS SDK 2.4 in auto mode stays in 2026-07-28 and answers input requests', async () => {
  const asked = [];
  const client = await connect('auto', async (request) => {
    asked.push(request.params);
    return { action: 'accept', content: { reason: 'ts' } };
  });
  try {
    assert.equal(client.getNegotiatedProtocolVersion(), '2026-07-28');
    const r = await client.callTool({ name: 'confirm_titel', arguments: { id: 9 } });
    assert.equal(r.isError, false);
    assert.deepEqual(r.structuredContent, { id: 9, titel: 'Titel 9', reason: 'ts' });
    assert.equal(asked.length, 1);
    assert.equal(asked[0].message, 'Show title 9?');
  } finally {
    await client.close();
  }
});
