// The web console in a real browser: Debian's Chromium, headless, driven by playwright-core
// (never a downloaded browser). Started by tests/console/run.sh, which sets up the database,
// the mock LLM and the bridge and passes:
//   CONSOLE_URL     http://127.0.0.1:PORT (the bridge)
//   TOKEN_<ROLE>    a JWT per role (alice, bob, admin, auditor, approver)
//   PSQL            a command line that runs one SQL statement (-c) against the suite's database
//   SHOTS           where the screenshots go (docs/console when refreshing the README's)
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { chromium } from 'playwright-core';

const B = process.env.CONSOLE_URL;
const SHOTS = process.env.SHOTS;
const token = (r) => process.env[`TOKEN_${r.toUpperCase()}`];
const psql = (sql) => {
  const [cmd, ...args] = JSON.parse(process.env.PSQL);
  return execFileSync(cmd, [...args, '-At', '-c', sql], { encoding: 'utf8' }).trim();
};
mkdirSync(SHOTS, { recursive: true });

let browser;
const contexts = {};

before(async () => {
  browser = await chromium.launch({
    executablePath: '/usr/bin/chromium',
    headless: true,
    // what Chromium needs on this machine (no sandbox as root, no network beyond loopback)
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
           '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
});
after(async () => { await browser?.close(); });

/** A page of a fresh browser context (its own cookies) signed in as `role`. */
async function signedIn(role, viewport = { width: 1200, height: 900 }) {
  const ctx = await browser.newContext({ viewport });
  const page = await ctx.newPage();
  page.on('dialog', (d) => { throw new Error(`a dialog opened: ${d.message()}`); });
  await page.goto(`${B}/console/login`);
  await page.fill('#token', token(role));
  await page.click('button[type=submit]');
  await page.waitForURL(/\/console\/runs$/);
  assert.equal(await page.textContent('#role'), `con_${role}`);
  contexts[role] = ctx;
  return page;
}

async function shot(page, name) {
  await page.screenshot({ path: `${SHOTS}/${name}.png`, fullPage: true });
}

/** No script ran and no script element made it into the page. */
async function noScript(page) {
  assert.equal(await page.evaluate(() => window.__pwned), undefined, 'a hostile script ran');
  assert.equal(await page.locator('script').count(), 0, 'a script element is in the page');
  assert.equal(await page.locator('img').count(), 0, 'an injected image is in the page');
}

test('signing in: a bad token is refused, the cookie is HttpOnly and SameSite=Strict, the headers are strict', async () => {
  const ctx = await browser.newContext();
  const page = await ctx.newPage();
  const r = await page.goto(`${B}/console/runs`);
  assert.match(page.url(), /\/console\/login$/);
  const csp = r.headers()['content-security-policy'];
  assert.match(csp, /default-src 'none'/);
  assert.doesNotMatch(csp, /script-src/);
  assert.equal(r.headers()['x-frame-options'], 'DENY');
  await page.fill('#token', 'not-a-token');
  await page.click('button[type=submit]');
  assert.match(await page.textContent('.refusal'), /Unauthorized/);
  await shot(page, 'login');
  await page.fill('#token', token('alice'));
  await page.click('button[type=submit]');
  await page.waitForURL(/\/console\/runs$/);
  const [c] = await ctx.cookies();
  assert.equal(c.name, 'pg_mcp_console');
  assert.equal(c.httpOnly, true);
  assert.equal(c.sameSite, 'Strict');
  assert.equal(c.path, '/console');
  await ctx.close();
});

test('sign-in with a database user and password: PostgreSQL checks the password and the login right', async () => {
  const ctx = await browser.newContext();
  const page = await ctx.newPage();
  const signIn = async (user, password) => {
    await page.goto(`${B}/console/login`);
    await page.fill('#user', user);
    await page.fill('#password', password);
    await page.click('#password-login button[type=submit]');
  };
  await signIn('con_carol', 'wrong');
  assert.match(await page.textContent('.refusal'), /password authentication failed for user "con_carol"/);
  await signIn('con_bob', 'anything');
  assert.match(await page.textContent('.refusal'), /role "con_bob" is not permitted to log in/);
  await signIn('con_carol', 'carol-secret');
  await page.waitForURL(/\/console\/runs$/);
  assert.equal(await page.textContent('#role'), 'con_carol');
  // her pages run as con_carol: none of the other roles' runs
  assert.doesNotMatch(await page.textContent('#runs'), /con_alice|con_bob/);
  await ctx.close();
});

test('two roles each see only their own runs; an auditor sees both', async () => {
  const alice = await signedIn('alice');
  const bob = await signedIn('bob');
  const aliceRuns = await alice.textContent('#runs');
  const bobRuns = await bob.textContent('#runs');
  assert.match(aliceRuns, /con_alice question 1/);
  assert.doesNotMatch(aliceRuns, /con_bob/);
  // a question holding a script is text in the list and on its run's page (with its answer)
  assert.match(aliceRuns, /Hostile <script>window.__pwned = 'question'<\/script> question/);
  await noScript(alice);
  await alice.click('#runs tr:has-text("Hostile") a');
  await alice.waitForSelector('#question');
  assert.match(await alice.textContent('#answer'), /<img src=x onerror=/);
  await noScript(alice);
  assert.match(bobRuns, /con_bob question 1/);
  assert.doesNotMatch(bobRuns, /con_alice/);
  const auditor = await signedIn('auditor');
  const all = await auditor.textContent('#runs');
  assert.match(all, /con_alice question 1/);
  assert.match(all, /con_bob question 1/);
  // the filters: status and role
  await auditor.goto(`${B}/console/runs?role=con_bob&status=completed`);
  const filtered = await auditor.textContent('#runs');
  assert.match(filtered, /con_bob question/);
  assert.doesNotMatch(filtered, /con_alice/);
  await auditor.goto(`${B}/console/runs`);
  await shot(auditor, 'runs');
  // a run that is still running reloads itself (its rows as they are written)
  const running = psql("INSERT INTO mcp.run (run_id, interface, role_name, question, status) VALUES (gen_random_uuid(), 'console', 'con_bob', 'still thinking', 'running') RETURNING run_id");
  await bob.goto(`${B}/console/runs/${running}`);
  assert.equal(await bob.getAttribute('meta[http-equiv=refresh]', 'content'), '3');
  psql(`UPDATE mcp.run SET status = 'completed', finished_at = now() WHERE run_id = '${running}'`);
  // another role's run by its id: not found (row-level security), not a leak
  const bobRun = psql("SELECT run_id FROM mcp.run WHERE role_name = 'con_bob' LIMIT 1");
  const r = await alice.goto(`${B}/console/runs/${bobRun}`);
  assert.equal(r.status(), 404);
  assert.doesNotMatch(await alice.content(), /con_bob question/);
});

test('keyboard: the skip link comes first and leads to the content; a phone shows the runs without sideways scrolling', async () => {
  const page = await signedIn('alice');
  await page.keyboard.press('Tab');
  assert.equal(await page.evaluate(() => document.activeElement.textContent), 'Skip to content');
  await page.keyboard.press('Tab');
  assert.equal(await page.evaluate(() => document.activeElement.getAttribute('href')), '/console/runs');
  const phone = await signedIn('auditor', { width: 390, height: 844 });
  const overflow = await phone.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  assert.ok(overflow <= 0, `the page is ${overflow}px wider than the phone`);
  await shot(phone, 'runs-phone');
});

test('a chat against the mock completes; its answer is text, its timeline shows the tool call', async () => {
  const page = await signedIn('alice');
  await page.goto(`${B}/console/chat`);
  await page.selectOption('#interface', 'console');
  await page.fill('#question', 'Wie viele Stunden arbeitet man in Bayern?');
  await page.click('form.stack button[type=submit]');
  await page.waitForSelector('#answer');
  const answer = await page.textContent('#answer');
  assert.match(answer, /35-Stunden-Woche/);
  // the model's <script> is shown as text, never run
  assert.match(answer, /<script>window.__pwned = 'answer'<\/script>/);
  await noScript(page);
  assert.match(await page.textContent('#calls'), /hoursOf/);
  // the form continues the same session
  const session = psql("SELECT session_id FROM mcp.run WHERE role_name = 'con_alice' AND interface = 'console' AND iterations > 0");
  assert.equal(await page.inputValue('input[name=session]'), session);
  await shot(page, 'chat');
  await page.click('#timeline-link');
  await page.waitForSelector('#timeline');
  const tl = await page.textContent('#timeline');
  assert.match(tl, /Tool call\s+hoursOf/);
  assert.match(await page.textContent('#timeline .ev.tool .args'), /"region": "Bayern"/);
  assert.match(tl, /ok/);
  // alice may not read mcp.llm_request: the database says so on the page
  assert.match(await page.content(), /permission denied for table llm_request/);
  await noScript(page);
  // an auditor sees the LLM requests of the same run, with their tokens and duration
  const auditor = await signedIn('auditor');
  await auditor.goto(page.url());
  const atl = await auditor.textContent('#timeline');
  assert.match(atl, /LLM request/);
  assert.match(atl, /\d+ \+ \d+ tokens/);
  await noScript(auditor);
  await shot(auditor, 'timeline');
});

test('analyze highlights the entities in the question and ranks the plans', async () => {
  const page = await signedIn('alice');
  await page.goto(`${B}/console/analyze`);
  await page.selectOption('#interface', 'planner');
  await page.fill('#q', 'Wie lange arbeitet man im bayerischen Einzelhandel?');
  await page.click('form.stack button[type=submit]');
  await page.waitForSelector('#highlighted');
  const marks = await page.locator('#highlighted mark').allTextContents();
  assert.deepEqual(marks.map((m) => m.replace(/ \(.*\)$/, '')), ['bayerischen', 'Einzelhandel']);
  assert.equal(await page.textContent('#highlighted'),
    'Wie lange arbeitet man im bayerischen (region) Einzelhandel (branche)?');
  assert.match(await page.textContent('#plans'), /hours_by_region|branch_overview/);
  await shot(page, 'analyze');
});

test('an approver approves a pending call: its arguments and digest are shown, the database records the decision', async () => {
  const pending = psql("SELECT run_id || ' ' || digest FROM mcp.approval WHERE status = 'pending'");
  const [runId, digest] = pending.split(' ');
  assert.ok(runId, 'the setup made a pending approval');
  // alice (the requester, no mcp_approver): sees her own pending call, and may not decide it
  const alice = await signedIn('alice');
  await alice.goto(`${B}/console/approvals`);
  assert.match(await alice.textContent('#pending'), /createTicket/);
  await alice.click('#pending button[value=approve]');
  assert.match(await alice.textContent('.refusal'), /permission denied for function approve/);
  assert.equal(psql(`SELECT status FROM mcp.approval WHERE run_id = '${runId}'`), 'pending');
  const page = await signedIn('approver');
  await page.goto(`${B}/console/approvals`);
  const card = await page.textContent('#pending');
  assert.match(card, /createTicket/);
  assert.match(card, new RegExp(digest));
  assert.match(card, /Drucker defekt <b>sofort<\/b>/);
  await noScript(page);
  await shot(page, 'approvals');
  // through the bridge the session user is the authenticator (NOINHERIT, a member of the
  // requester's role too): the role in use decides, so the approver's decision is not a
  // self-approval, and the interface keeps allow_self_approval = false
  assert.equal(psql("SELECT allow_self_approval FROM mcp.interface WHERE name = 'helpdesk'"), 'f');
  await page.click('#pending button[value=approve]');
  await page.waitForSelector('.ok, .refusal');
  assert.equal(await page.locator('.refusal').count(), 0, await page.textContent('main'));
  assert.equal(psql(`SELECT status || ' ' || decided_by FROM mcp.approval WHERE run_id = '${runId}'`), 'approved con_approver');
  assert.match(await page.textContent('#decided'), /approved/);
});

test('an admin edits a tool: the database refuses a bad schema inline, a good edit is saved', async () => {
  const page = await signedIn('admin');
  await page.goto(`${B}/console/registry`);
  // the tool's hostile description is text
  assert.match(await page.textContent('#tools'), /<script>window.__pwned = 'tool'<\/script>/);
  await noScript(page);
  await shot(page, 'registry');
  await page.click('#tools a:text("hoursOf")');
  await page.fill('#parameters', '{"type": "string"}');
  await page.click('form.stack button[type=submit]');
  const refusal = await page.textContent('.refusal');
  assert.match(refusal, /refused/);
  assert.match(refusal, /SQLSTATE/);
  // what was typed stays in the form; the database kept the old schema
  assert.equal(await page.inputValue('#parameters'), '{"type": "string"}');
  assert.equal(psql("SELECT parameters ->> 'type' FROM mcp.tool WHERE name = 'hoursOf'"), 'object');
  await shot(page, 'tool-refused');
  await page.fill('#parameters', '{"type": "object", "properties": {"region": {"type": "string"}}, "required": ["region"]}');
  await page.fill('#description', 'Weekly working hours of a German region <script>window.__pwned = \'tool\'</script>');
  await page.click('form.stack button[type=submit]');
  assert.match(await page.textContent('.ok'), /Saved/);
  assert.match(psql("SELECT description FROM mcp.tool WHERE name = 'hoursOf'"), /German region/);
  await noScript(page);
});

test('a role without privileges cannot change the registry through the console', async () => {
  const page = await signedIn('bob');
  await page.goto(`${B}/console/registry/tool/hoursOf`);
  await page.fill('#description', 'changed by bob');
  await page.click('form.stack button[type=submit]');
  assert.match(await page.textContent('.refusal'), /permission denied for table tool/);
  assert.doesNotMatch(psql("SELECT description FROM mcp.tool WHERE name = 'hoursOf'"), /bob/);
});

test('a POST without the CSRF token, or from another origin, is refused', async () => {
  await signedIn('admin');
  const req = contexts.admin.request;
  const form = { description: 'csrf', enabled: '1',
    parameters: '{"type": "object", "properties": {"region": {"type": "string"}}, "required": ["region"]}' };
  let r = await req.post(`${B}/console/registry/tool/hoursOf`, { form, headers: { Origin: B } });
  assert.equal(r.status(), 403);
  assert.match(await r.text(), /CSRF/);
  // the right token from the page, but another origin
  const page = contexts.admin.pages()[0];
  await page.goto(`${B}/console/registry/tool/hoursOf`);
  const csrf = await page.inputValue('input[name=csrf]');
  r = await req.post(`${B}/console/registry/tool/hoursOf`, { form: { ...form, csrf }, headers: { Origin: 'http://evil.example' } });
  assert.equal(r.status(), 403);
  // and no Origin at all
  r = await req.post(`${B}/console/registry/tool/hoursOf`, { form: { ...form, csrf }, headers: { Origin: '' } });
  assert.equal(r.status(), 403);
  assert.doesNotMatch(psql("SELECT description FROM mcp.tool WHERE name = 'hoursOf'"), /^csrf$/);
  // the same request with the token and the origin goes through: the refusals above were the checks
  r = await req.post(`${B}/console/registry/tool/hoursOf`, { form: { ...form, csrf }, headers: { Origin: B } });
  assert.equal(r.status(), 200);
  assert.equal(psql("SELECT description FROM mcp.tool WHERE name = 'hoursOf'"), 'csrf');
});

test('retrieval: collections with counts, search in three modes, a document\'s <script> is text', async () => {
  const page = await signedIn('admin');
  await page.goto(`${B}/console/retrieval`);
  const coll = await page.textContent('#collections');
  assert.match(coll, /handbook/);
  assert.match(coll, /Staff handbook\s*minilm\s*2\s*2/);
  for (const mode of ['text', 'vector', 'hybrid']) {
    await page.goto(`${B}/console/retrieval?collection=handbook&q=weekly+working+time&mode=${mode}`);
    const hits = await page.textContent('#hits');
    assert.match(hits, /35 hours/, mode);
    assert.match(hits, /<script>window.__pwned = 'document'<\/script>/, mode);
    await noScript(page);
  }
  await shot(page, 'retrieval');
});

test('charts render as SVG from the runs the role may read', async () => {
  const page = await signedIn('auditor');
  await page.goto(`${B}/console/charts`);
  assert.ok(await page.locator('svg.chart rect').count() > 0);
  assert.match(await page.textContent('main'), /completed/);
  await noScript(page);
  await shot(page, 'charts');
  // a role that may not read mcp.tool_error_rates sees the database's refusal in its place
  const bob = await signedIn('bob');
  await bob.goto(`${B}/console/charts`);
  assert.match(await bob.textContent('main'), /permission denied for view tool_error_rates/);
});
