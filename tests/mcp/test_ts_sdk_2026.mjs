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

function psql(sql) {
  return execFileSync(env.PSQL, ['-X', '-qAt', '-h', env.PGHOST, '-p', env.PGPORT, '-U', 'postgres', '-d', env.PGDATABASE, '-c', sql])
    .toString().trim();
}

test('TS SDK 2.4, 2026-07-28: a tool that needs approval asks through a URL-mode input request; only a person\'s approval runs it', async () => {
  psql("UPDATE mcp.interface SET allow_acting_tools = true WHERE name = 'chatbot'; INSERT INTO mcp.interface_tool VALUES ('chatbot', 'open_ticket') ON CONFLICT DO NOTHING");
  const urls = [];
  const client = new Client(
    { name: 'pg-mcp-ts2', version: '1.0' },
    { versionNegotiation: { mode: { pin: '2026-07-28' } }, capabilities: { elicitation: { form: {}, url: {} } } },
  );
  client.setRequestHandler('elicitation/create', async (request) => {
    assert.equal(request.params.mode, 'url');
    urls.push(request.params.url);
    // the client's first accept is only its word; then a person approves (in SQL)
    if (urls.length === 2) psql(`SET ROLE mcp_t_approver; SELECT mcp.approve('${request.params.url.split('#')[1]}')`);
    return { action: 'accept' };
  });
  await client.connect(new StreamableHTTPClientTransport(new URL(env.MCP_URL), {
    requestInit: { headers: { Authorization: `Bearer ${token('mcp_t_analyst')}` } },
  }));
  try {
    assert.equal(client.getNegotiatedProtocolVersion(), '2026-07-28');
    const r = await client.callTool({ name: 'open_ticket', arguments: { title: 'TS 2026', prio: 5 } });
    assert.equal(r.isError, false, textOf(r));
    assert.equal(r.structuredContent.by, 'mcp_t_analyst');
    assert.equal(urls.length, 2);
    assert.equal(urls[0], urls[1]);
    assert.ok(urls[0].startsWith(env.MCP_URL.replace(/\/mcp$/, '/console/approvals#')), urls[0]);
    const id = urls[0].split('#')[1];
    assert.equal(psql(`SELECT status || ' ' || decided_by FROM mcp.approval WHERE approval_id = '${id}'`), 'approved mcp_t_approver');
    assert.equal(psql(`SELECT status FROM mcp.tool_call WHERE tool_call_id = '${id}'`), 'ok');
  } finally {
    await client.close();
    psql("DELETE FROM mcp.interface_tool WHERE tool = 'open_ticket'; UPDATE mcp.interface SET allow_acting_tools = false WHERE name = 'chatbot'");
  }
});
