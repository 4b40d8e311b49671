// pg_mcp_bridge as an OAuth 2.1 resource server, against a real authorization server
// (oidc-provider, provider.mjs) and the official MCP TypeScript SDK's OAuth client. Started by
// tests/oauth/run.sh, which passes the bridge binary and the database in the environment; this
// file starts the authorization server and the bridge itself (the key rotation restarts the
// authorization server with a new key).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, execFileSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { SignJWT, importJWK } from 'jose';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ClientCredentialsProvider } from '@modelcontextprotocol/sdk/client/auth-extensions.js';
import { UnauthorizedError } from '@modelcontextprotocol/sdk/client/auth.js';

const env = process.env;
// Node's fetch keeps connections alive in a pool; now and then a pooled socket that the server
// is closing as idle is picked for the next request ("other side closed" before any answer),
// most often right after the Python client's run left the pool idle for seconds. Such a request
// got no answer at all, so the test helpers send it once more on a fresh connection; any other
// failure, and every answer, is the test's.
async function send(url, init) {
  for (let attempt = 0; ; attempt++) {
    try {
      return await fetch(url, init);
    } catch (e) {
      if (attempt === 0 && e.cause?.code === 'UND_ERR_SOCKET') {
        console.log(`# ${init?.method ?? 'GET'} ${url}: ${e.cause.message} on a pooled connection; sent again`);
        continue;
      }
      e.message += ` (${init?.method ?? 'GET'} ${url})`;
      throw e;
    }
  }
}
const HERE = path.dirname(fileURLToPath(import.meta.url));
const work = fs.mkdtempSync(path.join(os.tmpdir(), 'pg_mcp_oauth_'));
const CLIENT = { id: 'mcp-agent', secret: 'mcp-agent-secret-0123456789abcdef' };
// the bridge reads the issuer's keys again on an unknown kid at most once per this many seconds
const MIN_INTERVAL = 3;

function freePort() {
  return new Promise((resolve) => {
    const s = net.createServer().listen(0, '127.0.0.1', () => { const p = s.address().port; s.close(() => resolve(p)); });
  });
}

function newKey(kid) {
  const jwk = crypto.generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ format: 'jwk' });
  return { ...jwk, kid, use: 'sig', alg: 'RS256' };
}

/** Start a process; resolves once its output matches `ready` (its log is kept in `out`). */
function start(cmd, args, ready, extraEnv = {}) {
  return new Promise((resolve, reject) => {
    const p = spawn(cmd, args, { env: { ...env, ...extraEnv }, stdio: ['ignore', 'pipe', 'pipe'] });
    p.out = '';
    const timer = setTimeout(() => reject(new Error(`${cmd} did not start:\n${p.out}`)), 15000);
    const onData = (d) => {
      p.out += d;
      if (ready.test(p.out)) { clearTimeout(timer); resolve(p); }
    };
    p.stdout.on('data', onData);
    p.stderr.on('data', onData);
    p.on('exit', (code) => { clearTimeout(timer); if (!ready.test(p.out)) reject(new Error(`${cmd} exited ${code}:\n${p.out}`)); });
  });
}

function stop(p) {
  return new Promise((resolve) => {
    if (!p || p.exitCode !== null) return resolve();
    p.on('exit', () => resolve());
    p.kill('SIGTERM');
  });
}

let asPort, issuer, keyA, keyB, as, bridge, mcpUrl;

async function startAs(keys) {
  fs.writeFileSync(path.join(work, 'keys.json'), JSON.stringify(keys));
  as = await start(process.execPath, [path.join(HERE, 'provider.mjs'), String(asPort), path.join(work, 'keys.json')], /listening on/);
}

before(async () => {
  asPort = await freePort();
  issuer = `http://127.0.0.1:${asPort}`;
  keyA = newKey('key-a');
  keyB = newKey('key-b');
  await startAs([keyA]);
  const bport = await freePort();
  mcpUrl = `http://127.0.0.1:${bport}/mcp`;
  // no --oauth-jwks-url: the bridge finds jwks_uri in the issuer's metadata
  bridge = await start(env.BRIDGE, ['http', '--listen', `127.0.0.1:${bport}`, '--interface', 'oauth_test',
    '--oauth-issuer', issuer, '--oauth-jwks-min-interval', String(MIN_INTERVAL)], /Streamable HTTP on/,
  { PGUSER: 'mcp_oa_auth' });
});

after(async () => {
  await stop(bridge);
  await stop(as);
  if (process.exitCode && bridge) console.log(`bridge log:\n${bridge.out}`);
  fs.rmSync(work, { recursive: true, force: true });
});

const INIT = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'oauth-test', version: '1' } } };

function post(token, body = INIT, headers = {}) {
  return send(mcpUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream',
      ...(token ? { authorization: `Bearer ${token}` } : {}), ...headers },
    body: JSON.stringify(body),
  });
}

/** An access token from the authorization server's token endpoint (client credentials). */
async function asToken(scope, resource) {
  const r = await send(`${issuer}/token`, {
    method: 'POST',
    headers: { authorization: `Basic ${Buffer.from(`${CLIENT.id}:${CLIENT.secret}`).toString('base64')}`,
      'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ grant_type: 'client_credentials', scope, resource }),
  });
  const j = await r.json();
  assert.equal(r.status, 200, JSON.stringify(j));
  return j.access_token;
}

/** A token signed with one of the authorization server's own keys, with claims of our choice. */
async function forged(key, claims) {
  const now = Math.floor(Date.now() / 1000);
  return new SignJWT({ scope: 'mcp:read', client_id: CLIENT.id, ...claims })
    .setProtectedHeader({ alg: 'RS256', typ: 'at+jwt', kid: claims.kid ?? key.kid })
    .setIssuedAt(now).setSubject(CLIENT.id)
    .sign(await importJWK(key, 'RS256'));
}

const challenge = (r) => r.headers.get('www-authenticate') ?? '';
const metadataUrl = () => `${new URL(mcpUrl).origin}/.well-known/oauth-protected-resource/mcp`;

/** The SDK's OAuth client (client credentials) connecting to the bridge; the URLs it fetched. */
async function sdkClient(scope = 'mcp:read') {
  const fetched = [];
  const recording = (url, init) => { fetched.push(`${init?.method ?? 'GET'} ${String(url)}`); return fetch(url, init); };
  const authProvider = new ClientCredentialsProvider({ clientId: CLIENT.id, clientSecret: CLIENT.secret, expectedIssuer: issuer, scope });
  const client = new Client({ name: 'oauth-sdk-test', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(mcpUrl), { authProvider, fetch: recording }));
  return { client, fetched, authProvider };
}

test('a request without a token gets 401 with resource_metadata; the metadata names the issuer and the mapped scopes', async () => {
  const r = await post(null);
  assert.equal(r.status, 401);
  assert.equal(challenge(r), `Bearer resource_metadata="${metadataUrl()}"`);
  for (const url of [metadataUrl(), `${new URL(mcpUrl).origin}/.well-known/oauth-protected-resource`]) {
    const m = await fetch(url);
    assert.equal(m.status, 200, url);
    const j = await m.json();
    assert.equal(j.resource, mcpUrl);
    assert.deepEqual(j.authorization_servers, [issuer]);
    assert.deepEqual(j.scopes_supported, ['mcp:read', 'mcp:write']);
    assert.deepEqual(j.bearer_methods_supported, ['header']);
  }
});

test("the official SDK's OAuth client: resource metadata, authorization-server metadata, token, tools/list, as the scope's role", async () => {
  const { client, fetched, authProvider } = await sdkClient();
  const tools = (await client.listTools()).tools.map((t) => t.name);
  assert.ok(tools.includes('sql_query'), tools.join());
  const who = await client.callTool({ name: 'sql_query', arguments: { query: 'SELECT current_user AS u' } });
  assert.equal(who.isError, false);
  assert.match(who.content[0].text, /mcp_oa_reader/);
  // the whole discovery happened, in this order
  const order = [
    (u) => u === `POST ${mcpUrl}`,
    (u) => u.startsWith(`GET ${metadataUrl()}`),
    (u) => u.includes(`${issuer}/.well-known/`),
    (u) => u === `POST ${issuer}/token`,
    (u) => u === `POST ${mcpUrl}`,
  ];
  let i = 0;
  for (const u of fetched) if (i < order.length && order[i](u)) i += 1;
  assert.equal(i, order.length, fetched.join('\n'));
  // the token the SDK got is bound to this resource (RFC 8707) and names its issuer and scope
  const claims = JSON.parse(Buffer.from(authProvider.tokens().access_token.split('.')[1], 'base64url'));
  assert.equal(claims.aud, mcpUrl);
  assert.equal(claims.iss, issuer);
  assert.equal(claims.scope, 'mcp:read');
  await client.close();
});

/** An OAuthClientProvider of a client that sends its user to a browser: it keeps the URL. */
class UserAgentProvider {
  constructor(redirectUrl) { this.redirectUrl = redirectUrl; }
  get clientMetadata() {
    return { client_name: 'pg_mcp oauth suite', redirect_uris: [this.redirectUrl], grant_types: ['authorization_code'],
      response_types: ['code'], token_endpoint_auth_method: 'none' };
  }
  clientInformation() { return this.client; }
  saveClientInformation(c) { this.client = c; }
  tokens() { return this.saved; }
  saveTokens(t) { this.saved = t; }
  redirectToAuthorization(url) { this.authorizationUrl = url; }
  saveCodeVerifier(v) { this.verifier = v; }
  codeVerifier() { return this.verifier; }
}

/** A person in a browser: follows the redirects, signs in and consents on the authorization
 *  server's pages; the authorization code its last redirect carries to `redirectUrl`. */
async function signInAndConsent(url, redirectUrl) {
  const jar = new Map();
  let next = url; let body;
  for (let step = 0; step < 20; step++) {
    const r = await fetch(next, { method: body ? 'POST' : 'GET', body, redirect: 'manual',
      headers: { cookie: [...jar].map(([k, v]) => `${k}=${v}`).join('; '),
        ...(body ? { 'content-type': 'application/x-www-form-urlencoded' } : {}) } });
    for (const c of r.headers.getSetCookie()) {
      const kv = c.split(';')[0]; const i = kv.indexOf('=');
      jar.set(kv.slice(0, i), kv.slice(i + 1));
    }
    const location = r.headers.get('location');
    if (location) {
      const u = new URL(location, next);
      if (u.href.startsWith(redirectUrl)) {
        assert.equal(u.searchParams.get('error'), null, u.href);
        return u.searchParams.get('code');
      }
      next = u.href; body = undefined;
      continue;
    }
    const html = await r.text();
    const action = html.match(/<form[^>]*action="([^"]+)"/);
    assert.ok(action, `no form at ${next} (${r.status}):\n${html.slice(0, 400)}`);
    next = new URL(action[1], next).href;
    body = html.includes('value="consent"') ? 'prompt=consent' : 'prompt=login&login=alice&password=any';
  }
  throw new Error('too many redirects');
}

test("the SDK's OAuth client, authorization code with PKCE and dynamic client registration: a person signs in and consents", async () => {
  const redirectUrl = 'http://127.0.0.1:9/callback';
  const provider = new UserAgentProvider(redirectUrl);
  const fetched = [];
  const recording = (url, init) => { fetched.push(`${init?.method ?? 'GET'} ${String(url)}`); return fetch(url, init); };
  const transport = new StreamableHTTPClientTransport(new URL(mcpUrl), { authProvider: provider, fetch: recording });
  await assert.rejects(new Client({ name: 'oauth-code-test', version: '1' }).connect(transport), UnauthorizedError);
  // the SDK registered itself and sent the user to the authorization endpoint, for this resource
  assert.ok(fetched.includes(`POST ${issuer}/reg`), fetched.join('\n'));
  assert.ok(provider.client?.client_id);
  const authUrl = provider.authorizationUrl;
  assert.equal(authUrl.searchParams.get('resource'), mcpUrl);
  assert.equal(authUrl.searchParams.get('code_challenge_method'), 'S256');
  const code = await signInAndConsent(authUrl.href, redirectUrl);
  await transport.finishAuth(code);
  const claims = JSON.parse(Buffer.from(provider.tokens().access_token.split('.')[1], 'base64url'));
  assert.equal(claims.aud, mcpUrl);
  assert.equal(claims.sub, 'alice');
  const client = new Client({ name: 'oauth-code-test', version: '1' });
  await client.connect(new StreamableHTTPClientTransport(new URL(mcpUrl), { authProvider: provider }));
  assert.ok((await client.listTools()).tools.some((t) => t.name === 'sql_query'));
  const who = await client.callTool({ name: 'sql_query', arguments: { query: 'SELECT current_user AS u' } });
  assert.match(who.content[0].text, /mcp_oa_reader/);
  await client.close();
});

test("the official Python SDK's OAuth client (client credentials): the same discovery, token and tools/list", () => {
  const out = execFileSync(env.MCP_PY, [path.join(HERE, 'test_python_sdk.py')], {
    env: { ...env, MCP_URL: mcpUrl, ISSUER: issuer, CLIENT_ID: CLIENT.id, CLIENT_SECRET: CLIENT.secret },
  }).toString();
  const r = JSON.parse(out.trim().split('\n').pop());
  assert.equal(r.aud, mcpUrl);
  assert.ok(r.fetched.some((u) => u.startsWith(`GET ${metadataUrl()}`)), r.fetched.join('\n'));
  assert.ok(r.fetched.includes(`POST ${issuer}/token`), r.fetched.join('\n'));
});

test('a token for another resource (audience) is refused', async () => {
  const t = await asToken('mcp:read', 'http://127.0.0.1:1/other-mcp');
  const r = await post(t);
  assert.equal(r.status, 401);
  assert.match(challenge(r), /^Bearer error="invalid_token", error_description="token is not for this audience \(aud\)", resource_metadata="/);
});

test('an expired token is refused', async () => {
  const t = await forged(keyA, { iss: issuer, aud: mcpUrl, exp: Math.floor(Date.now() / 1000) - 120 });
  const r = await post(t);
  assert.equal(r.status, 401);
  assert.match(challenge(r), /error_description="token expired"/);
  // the same token unexpired is accepted: the refusal is the expiry alone
  const ok = await forged(keyA, { iss: issuer, aud: mcpUrl, exp: Math.floor(Date.now() / 1000) + 120 });
  assert.equal((await post(ok)).status, 200);
});

test('a token of another issuer is refused, even signed with a trusted key', async () => {
  const t = await forged(keyA, { iss: 'http://127.0.0.1:9/evil', aud: mcpUrl, exp: Math.floor(Date.now() / 1000) + 120 });
  const r = await post(t);
  assert.equal(r.status, 401);
  assert.match(challenge(r), /error_description="token is not from the expected issuer \(iss\)"/);
});

test('a scope that maps to no role gets 403 insufficient_scope naming the scopes that do', async () => {
  const t = await asToken('mcp:unmapped', mcpUrl);
  const r = await post(t);
  assert.equal(r.status, 403);
  assert.match(challenge(r), /^Bearer error="insufficient_scope", scope="mcp:read mcp:write", resource_metadata="/);
});

test('a scope mapped to a role the authenticator may not become is refused by PostgreSQL (403)', async () => {
  const t = await forged(keyA, { iss: issuer, aud: mcpUrl, scope: 'mcp:write', exp: Math.floor(Date.now() / 1000) + 120 });
  const r = await post(t);
  assert.equal(r.status, 403);
  assert.equal((await r.json()).error.message, "Forbidden: the token's role may not be used");
});

test('what the bridge did before stays: opaque tokens, role-claim JWTs, Origin checks', async () => {
  const opaque = execFileSync(env.PSQL, ['-XAt', '-U', 'postgres', '-c', "SELECT mcp.create_bridge_token('mcp_oa_reader', 'oauth suite')"], { env }).toString().trim();
  assert.equal((await post(opaque)).status, 200);
  assert.equal((await post('pgmcp_not_a_token')).status, 401);
  const hs = execFileSync(env.BRIDGE, ['token', '--role', 'mcp_oa_reader', '--exp-seconds', '60'], { env }).toString().trim();
  assert.equal((await post(hs)).status, 200);
  const t = await asToken('mcp:read', mcpUrl);
  assert.equal((await post(t, INIT, { origin: 'http://evil.example' })).status, 403);
});

test('an unknown kid after a key rotation: the bridge reads the issuer keys again, rate-limited', async () => {
  const hits = async () => (await (await fetch(`${issuer}/test/jwks-hits`)).json()).hits;
  // the authorization server rotates to key B (restarted with it: B only, A retired)
  await stop(as);
  await startAs([keyB]);
  await new Promise((r) => setTimeout(r, MIN_INTERVAL * 1000));
  assert.equal(await hits(), 0);
  const { client, authProvider } = await sdkClient();
  assert.equal(JSON.parse(Buffer.from(authProvider.tokens().access_token.split('.')[0], 'base64url')).kid, 'key-b');
  assert.ok((await client.listTools()).tools.length > 0);
  await client.close();
  assert.equal(await hits(), 1);
  // a burst of made-up kids right after: refused, and the issuer is not asked again
  for (let i = 0; i < 10; i++) {
    const t = await forged(keyB, { iss: issuer, aud: mcpUrl, kid: `bogus-${i}`, exp: Math.floor(Date.now() / 1000) + 120 });
    const r = await post(t);
    assert.equal(r.status, 401);
    assert.match(challenge(r), /unknown key id/);
  }
  assert.equal(await hits(), 1);
  // the retired key A no longer opens anything
  const old = await forged(keyA, { iss: issuer, aud: mcpUrl, exp: Math.floor(Date.now() / 1000) + 120 });
  assert.equal((await post(old)).status, 401);
});
