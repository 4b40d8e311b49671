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

test('Streamable HTTP: the chat tool as a 2025-11-25 task (the SDK\'s experimental tasks client)', async () => {
  const psql = (sql) => execFileSync(env.PSQL, ['-X', '-qAt', '-h', env.PGHOST, '-p', env.PGPORT, '-U', 'postgres',
    '-d', env.PGDATABASE, '-c', sql], { env }).toString().trim();
  const answer = JSON.stringify({ id: 'r1', object: 'chat.completion', model: 'recorded', choices: [
    { index: 0, finish_reason: 'stop', message: { role: 'assistant', content: 'Es gibt 40 Titel.' } }],
  usage: { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 } }).replaceAll("'", "''");
  psql(`INSERT INTO mcp.provider (name, kind, model, options) VALUES ('replay_ts', 'replay', 'recorded',
          jsonb_build_object('responses', jsonb_build_array('${answer}'::text))) ON CONFLICT DO NOTHING;
        UPDATE mcp.interface SET provider = 'replay_ts' WHERE name = 'chatbot';
        INSERT INTO mcp.interface_tool VALUES ('chatbot', 'chat') ON CONFLICT DO NOTHING`);
  const client = new Client({ name: 'pg-mcp-ts-tasks', version: '1.0' });
  try {
    await client.connect(http('mcp_t_analyst'));
    assert.deepEqual(client.getServerCapabilities().tasks.requests.tools.call, {});
    const chat = keep(await client.listTools()).tools.find((t) => t.name === 'chat');
    assert.equal(chat.execution.taskSupport, 'optional');
    const kinds = [];
    let created;
    let result;
    const stream = client.experimental.tasks.callToolStream(
      { name: 'chat', arguments: { question: 'Wie viele Titel gibt es?' } }, undefined, { task: { ttl: 60000 } });
    for await (const m of stream) {
      kinds.push(m.type);
      if (m.type === 'taskCreated') created = m.task;
      if (m.type === 'result') result = keep(m.result);
      if (m.type === 'error') {
        // what the server holds of the run, so that a failure says why
        const row = created ? psql(`SELECT status || ' ' || coalesce(result::text, '') FROM mcp.async_run
                                     WHERE run_id = '${created.taskId}'`) : '(no task created)';
        throw new Error(`${m.error.message}; stream: ${kinds.join()}; the run: ${row}`);
      }
    }
    assert.equal(kinds[0], 'taskCreated', kinds.join());
    assert.equal(kinds.at(-1), 'result', kinds.join());
    assert.equal(textOf(result), 'Es gibt 40 Titel.');
    assert.equal(result.isError, false);
    // a chat worker ran it as the token's role, under the task's id
    assert.equal(psql(`SELECT role_name FROM mcp.run WHERE run_id = '${created.taskId}'`), 'mcp_t_analyst',
      psql(`SELECT count(*) || ' run row(s); async_run: ' || string_agg(status, ',') FROM mcp.async_run WHERE run_id = '${created.taskId}'`));
    const task = keep(await client.experimental.tasks.getTask(created.taskId));
    assert.equal(task.status, 'completed');
    const listed = keep(await client.experimental.tasks.listTasks()).tasks.map((t) => t.taskId);
    assert.ok(listed.includes(created.taskId), listed.join());
    // without a task the chat answers in the request
    const now = keep(await client.callTool({ name: 'chat', arguments: { question: 'Sofort?' } }));
    assert.equal(textOf(now), 'Es gibt 40 Titel.');
  } finally {
    await client.close();
    psql(`DELETE FROM mcp.interface_tool WHERE tool = 'chat';
          UPDATE mcp.interface SET provider = 'p' WHERE name = 'chatbot'`);
  }
});

function psql(sql) {
  return execFileSync(env.PSQL, ['-X', '-qAt', '-h', env.PGHOST, '-p', env.PGPORT, '-U', 'postgres', '-d', env.PGDATABASE, '-c', sql])
    .toString().trim();
}

test('Streamable HTTP, 2025-11-25: a tool that needs approval answers URLElicitationRequiredError until a person approved', async () => {
  psql("UPDATE mcp.interface SET allow_acting_tools = true WHERE name = 'chatbot'; INSERT INTO mcp.interface_tool VALUES ('chatbot', 'open_ticket') ON CONFLICT DO NOTHING");
  const client = new Client({ name: 'pg-mcp-ts', version: '1.0' }, { capabilities: { elicitation: { form: {}, url: {} } } });
  await client.connect(new StreamableHTTPClientTransport(new URL(env.MCP_URL), {
    requestInit: { headers: { Authorization: `Bearer ${token('mcp_t_analyst')}` } },
  }));
  try {
    const args = { title: 'TS 2025', prio: 4 };
    const refused = async () => {
      try {
        await client.callTool({ name: 'open_ticket', arguments: args });
      } catch (e) {
        keep(e.data);
        assert.ok(e instanceof McpError, String(e));
        assert.equal(e.code, -32042);
        const [el] = e.data.elicitations;
        assert.equal(el.mode, 'url');
        assert.ok(el.url.endsWith(`/console/approvals#${el.elicitationId}`), el.url);
        return el.elicitationId;
      }
      throw new Error('the call ran without an approval');
    };
    const id = await refused();
    // asked again, with the same approval, while nobody decided
    assert.equal(await refused(), id);
    assert.equal(psql("SELECT count(*) FROM public.ticket WHERE title = 'TS 2025'"), '0');
    psql(`SET ROLE mcp_t_approver; SELECT mcp.approve('${id}')`);
    const r = keep(await client.callTool({ name: 'open_ticket', arguments: args }));
    assert.equal(r.isError, false, textOf(r));
    assert.equal(r.structuredContent.title, 'TS 2025');
    assert.equal(psql(`SELECT status FROM mcp.tool_call WHERE tool_call_id = '${id}'`), 'ok');
  } finally {
    await client.close();
    psql("DELETE FROM mcp.interface_tool WHERE tool = 'open_ticket'; UPDATE mcp.interface SET allow_acting_tools = false WHERE name = 'chatbot'");
  }
});

test('no secret in any response', () => {
  assert.ok(seen.length > 10);
  for (const text of seen) for (const s of SECRETS) assert.ok(!text.includes(s), `secret in ${text.slice(0, 200)}`);
});
