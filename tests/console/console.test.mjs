// The web console in a real browser: Debian's Chromium, headless, driven by playwright-core
// (never a downloaded browser). Started by tests/console/run.sh, which sets up the database,
// the mock LLM and the bridge and passes:
//   CONSOLE_URL     http://127.0.0.1:PORT (the bridge)
//   TOKEN_<ROLE>    a JWT per role (alice, bob, admin, auditor, approver)
//   PSQL            a command line that runs one SQL statement (-c) against the suite's database
//   SHOTS           where the screenshots go (docs/console when refreshing the README's)
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
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

/** Until `check()` is true (polled every 100 ms; gives up after `ms`, which only bounds a hang). */
async function until(check, what, ms = 60000) {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error(`gave up waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** A psql session holding advisory lock 4242 (the live scenario's tool waits for it) until released. */
async function lockHolder() {
  const [cmd, ...args] = JSON.parse(process.env.PSQL);
  const p = spawn(cmd, [...args, '-At'], { stdio: ['pipe', 'ignore', 'inherit'] });
  p.stdin.write('SELECT pg_advisory_lock(4242);\n');
  await until(() => psql("SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND objid = 4242 AND granted") === '1', 'the lock');
  let released = false;
  return {
    release() {
      if (released) return;
      released = true;
      p.stdin.end('SELECT pg_advisory_unlock(4242);\n');
    },
  };
}
const lockWaiters = () => psql("SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND objid = 4242 AND NOT granted");

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
async function signedIn(role, viewport = { width: 1200, height: 900 }, options = {}) {
  const ctx = await browser.newContext({ viewport, ...options });
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

/** No script ran and no script element made it into the page (but the chat page's own). */
async function noScript(page) {
  assert.equal(await page.evaluate(() => window.__pwned), undefined, 'a hostile script ran');
  assert.equal(await page.locator('script:not([src="/console/static/chat.js"])').count(), 0, 'a script element is in the page');
  assert.equal(await page.locator('img').count(), 0, 'an injected image is in the page');
}

test('signing in: a bad token is refused, the cookie is HttpOnly and SameSite=Strict, the headers are strict', async () => {
  const ctx = await browser.newContext();
  const page = await ctx.newPage();
  const r = await page.goto(`${B}/console/runs`);
  assert.match(page.url(), /\/console\/login$/);
  const csp = r.headers()['content-security-policy'];
  assert.match(csp, /default-src 'none'/);
  // one script, the console's own file: nothing inline, no eval
  assert.match(csp, /script-src 'self';/);
  assert.doesNotMatch(csp, /unsafe/);
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
  // the registry's forms too: an interface's page with its tools, a plan step's form
  for (const path of ['/console/registry/interface/console', '/console/registry/plan_step/hours_by_region/1', '/console/chat']) {
    await phone.goto(`${B}${path}`);
    const wider = await phone.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    assert.ok(wider <= 0, `${path} is ${wider}px wider than the phone`);
  }
  // every field of a form has its label (the help text is its description)
  await phone.goto(`${B}/console/registry/tool/hoursOf`);
  const unlabelled = await phone.evaluate(() => [...document.querySelectorAll('#edit input:not([type=hidden]), #edit select, #edit textarea')]
    .filter((el) => !(el.labels && el.labels.length)).map((el) => el.name));
  assert.deepEqual(unlabelled, []);
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
  // with JavaScript the run went through mcp.chat_submit: the answer is the run's result page
  const runId = page.url().match(/\/console\/chat\/result\/([0-9a-f-]{36})$/)[1];
  assert.equal(psql(`SELECT status FROM mcp.async_run WHERE run_id = '${runId}'`), 'done');
  // the form continues the same session
  const session = psql(`SELECT session_id FROM mcp.run WHERE run_id = '${runId}'`);
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

test('a chat shows its progress while the model works: the run\'s rows as they are written, then the answer with its tool calls', async () => {
  const hold = await lockHolder();
  try {
    const page = await signedIn('alice');
    await page.goto(`${B}/console/chat`);
    await page.selectOption('#interface', 'live');
    await page.fill('#question', 'Wie lange arbeitet man in Bayern, bitte langsam?');
    await page.click('form.stack button[type=submit]');
    // the middle of the run: its first tool call is written, its second waits for the lock
    await page.waitForSelector('#progress-events li.ev-tool:has-text("hoursOf")', { timeout: 60000 });
    await until(() => lockWaiters() === '1', 'the tool waiting for the lock');
    const runId = psql("SELECT run_id FROM mcp.async_run WHERE role_name = 'con_alice' AND interface = 'live'");
    assert.equal(psql(`SELECT status FROM mcp.async_run WHERE run_id = '${runId}'`), 'running');
    assert.match(await page.textContent('#progress-status'), /running/);
    assert.match(await page.textContent('#progress-events'), /Tool call hoursOf · ok/);
    assert.doesNotMatch(await page.textContent('#progress-events'), /waitForRelease/);
    assert.equal(await page.locator('#answer').count(), 0);
    assert.match(page.url(), /\/console\/chat$/);
    // alice may not read mcp.llm_request: the progress says so in PostgreSQL's words
    assert.match(await page.textContent('#progress'), /LLM requests not shown: permission denied for table llm_request/);
    await noScript(page);
    await shot(page, 'chat-progress');
    // an auditor opening the run's page meanwhile sees the same run in progress, with its LLM
    // requests (what the role may read decides what the page shows)
    const auditor = await signedIn('auditor');
    await auditor.goto(`${B}/console/chat/result/${runId}`);
    assert.match(await auditor.textContent('#progress-events'), /LLM request 1 \(chat\) · HTTP 200[\s\S]*Tool call hoursOf/);
    // alice's own result page, while it runs: the progress, reloading itself (no script needed)
    const alice2 = await signedIn('alice', undefined, { javaScriptEnabled: false });
    await alice2.goto(`${B}/console/chat/result/${runId}`);
    assert.equal(await alice2.getAttribute('meta[http-equiv=refresh]', 'content'), '2');
    assert.match(await alice2.textContent('#progress-events'), /Tool call hoursOf/);
    hold.release();
    await page.waitForURL(new RegExp(`/console/chat/result/${runId}$`), { timeout: 60000 });
    const answer = await page.textContent('#answer');
    assert.match(answer, /In Bayern: 35 Stunden/);
    assert.match(answer, /<script>window.__pwned = 'live'<\/script>/);
    const calls = await page.textContent('#calls');
    assert.match(calls, /hoursOf[\s\S]*waitForRelease/);
    assert.match(calls, /released/);
    await noScript(page);
  } finally {
    hold.release();
  }
});

test('the stop button of a running chat: mcp.chat_cancel as the role, the run ends cancelled without its answer', async () => {
  const hold = await lockHolder();
  let runId;
  try {
    const page = await signedIn('alice');
    await page.goto(`${B}/console/chat`);
    await page.selectOption('#interface', 'live');
    await page.fill('#question', 'Bitte gleich wieder anhalten');
    await page.click('form.stack button[type=submit]');
    await page.waitForSelector('#progress-events li.ev-tool:has-text("hoursOf")', { timeout: 60000 });
    await until(() => lockWaiters() === '1', 'the tool waiting for the lock');
    runId = psql("SELECT run_id FROM mcp.async_run WHERE question = 'Bitte gleich wieder anhalten'");
    // another role may not stop it: the database's refusal (the run does not exist for bob)
    await signedIn('bob');
    const bobPage = contexts.bob.pages()[0];
    await bobPage.goto(`${B}/console/runs`);
    const csrf = await bobPage.inputValue('input[name=csrf]');
    const r = await contexts.bob.request.post(`${B}/console/chat/cancel/${runId}`, { form: { csrf }, headers: { Origin: B } });
    assert.equal(r.status(), 422);
    assert.match(await r.text(), /does not exist/);
    assert.equal(psql(`SELECT cancel_requested FROM mcp.async_run WHERE run_id = '${runId}'`), 'f');
    await page.click('#cancel-form button');
    await page.waitForURL(new RegExp(`/console/chat/result/${runId}$`));
    assert.equal(psql(`SELECT cancel_requested FROM mcp.async_run WHERE run_id = '${runId}'`), 't');
    assert.match(await page.textContent('#progress-status'), /asked to stop/);
    hold.release();
    // the page reloads itself until the run has ended
    await page.waitForSelector('#answer-h .badge', { timeout: 60000 });
    assert.equal(psql(`SELECT status || ' ' || (result ->> 'status') FROM mcp.async_run WHERE run_id = '${runId}'`), 'done cancelled');
    assert.equal(await page.textContent('#answer-h .badge'), 'cancelled');
    assert.doesNotMatch(await page.textContent('main'), /In Bayern: 35 Stunden/);
  } finally {
    hold.release();
  }
});

test('without JavaScript the chat answers synchronously; a browser that leaves a running chat cancels its query', async () => {
  const page = await signedIn('alice', undefined, { javaScriptEnabled: false });
  await page.goto(`${B}/console/chat`);
  await page.selectOption('#interface', 'console');
  await page.fill('#question', 'Und ohne JavaScript, Bayern?');
  await page.click('form.stack button[type=submit]');
  await page.waitForSelector('#answer');
  assert.match(page.url(), /\/console\/chat$/);
  assert.match(await page.textContent('#answer'), /35-Stunden-Woche/);
  assert.match(await page.textContent('#calls'), /hoursOf/);
  assert.equal(psql("SELECT count(*) FROM mcp.async_run WHERE question = 'Und ohne JavaScript, Bayern?'"), '0');
  // a synchronous chat whose tool waits; then the browser goes away
  const hold = await lockHolder();
  try {
    await page.goto(`${B}/console/chat`);
    await page.selectOption('#interface', 'live');
    await page.fill('#question', 'Ich gehe gleich wieder');
    await page.click('form.stack button[type=submit]', { noWaitAfter: true });
    await until(() => lockWaiters() === '1', 'the synchronous chat\'s tool waiting for the lock');
    // the backend of the console's synchronous chat, its tool waiting for the lock
    const pid = psql("SELECT pid FROM pg_locks WHERE locktype = 'advisory' AND objid = 4242 AND NOT granted");
    assert.match(pid, /^\d+$/);
    assert.match(psql(`SELECT query FROM pg_stat_activity WHERE pid = ${pid}`), /mcp\.chat\(/);
    await contexts.alice.close();
    // the bridge cancels the backend's statement: the tool stops waiting while the lock is still held
    await until(() => lockWaiters() === '0', 'the cancel of the abandoned chat');
    await until(() => psql(`SELECT count(*) FROM pg_stat_activity WHERE pid = ${pid} AND state = 'active'`) === '0', 'the backend to be idle');
    await until(() => psql("SELECT status FROM mcp.run WHERE question = 'Ich gehe gleich wieder'") !== 'running', 'the run to end');
    assert.equal(psql("SELECT status FROM mcp.run WHERE question = 'Ich gehe gleich wieder'"), 'cancelled');
    assert.equal(psql("SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND objid = 4242 AND granted"), '1');
  } finally {
    hold.release();
  }
  // the bridge's connection came back to the pool usable: another page works
  const again = await signedIn('alice');
  await again.goto(`${B}/console/runs`);
  assert.match(await again.textContent('#runs'), /Ich gehe gleich wieder/);
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

test('an admin creates, edits and deletes a tool: a missing function and invalid JSON are refused with the database\'s words', async () => {
  const page = await signedIn('admin');
  await page.goto(`${B}/console/registry`);
  await page.click('#new-tool');
  await page.fill('#name', 'regionList');
  await page.fill('#description', 'Lists the regions');
  await page.fill('#function', 'public.no_such_function(text)');
  await page.fill('#parameters', '{"type": "object", "properties": {"region": {"type": "string"}}}');
  await page.click('form.stack button[type=submit]');
  let refusal = await page.textContent('.refusal');
  assert.match(refusal, /function public.no_such_function\(text\) does not exist/);
  assert.match(refusal, /SQLSTATE 23514/);
  assert.match(await page.textContent('.refusal .hint'), /Give the signature of an existing function/);
  assert.equal(psql("SELECT count(*) FROM mcp.tool WHERE name = 'regionList'"), '0');
  // what was typed stays; not JSON at all is refused by jsonb's input function
  assert.equal(await page.inputValue('#function'), 'public.no_such_function(text)');
  await page.fill('#function', 'public.hours_of(text)');
  await page.fill('#parameters', '{"type": "object", "properties": ');
  await page.click('form.stack button[type=submit]');
  refusal = await page.textContent('.refusal');
  assert.match(refusal, /invalid input syntax for type json/);
  assert.match(refusal, /SQLSTATE 22P02/);
  // a schema that does not fit the function: its argument has no default, so it must be required
  await page.fill('#parameters', '{"type": "object", "properties": {"region": {"type": "string"}}}');
  await page.click('form.stack button[type=submit]');
  assert.match(await page.textContent('.refusal'), /argument 'region' of public.hours_of\(text\) has no default, so 'region' must be a required property of parameters/);
  await page.fill('#parameters', '{"type": "object", "properties": {"region": {"type": "string"}}, "required": ["region"]}');
  await page.click('form.stack button[type=submit]');
  await page.waitForURL(/\/console\/registry\/tool\/regionList\?done=created$/);
  assert.match(await page.textContent('.ok'), /Created/);
  assert.equal(psql("SELECT function || ' ' || read_only FROM mcp.tool WHERE name = 'regionList'"), 'public.hours_of(text) true');
  // an unticked checkbox is sent as false
  await page.uncheck('#read_only');
  await page.click('form.stack button[type=submit]');
  assert.match(await page.textContent('.ok'), /Saved/);
  assert.equal(psql("SELECT read_only FROM mcp.tool WHERE name = 'regionList'"), 'f');
  // deleting needs the box ticked (the browser asks for it; the server checks it too)
  await page.check('#delete input[name=confirm]');
  await page.click('#delete button');
  await page.waitForURL(/\/console\/registry\?done=deleted$/);
  assert.equal(psql("SELECT count(*) FROM mcp.tool WHERE name = 'regionList'"), '0');
});

test('an admin makes an interface and maps a tool: a check constraint refuses inline, a <script> in the description is text', async () => {
  const page = await signedIn('admin');
  await page.goto(`${B}/console/registry`);
  await page.click('#new-interface');
  await page.fill('#name', 'hr');
  await page.fill('#description', 'People <script>window.__pwned = \'interface\'</script>');
  await page.fill('#max_iterations', '99');
  await page.fill('#access_role', 'public');
  await page.click('form.stack button[type=submit]');
  const refusal = await page.textContent('.refusal');
  assert.match(refusal, /interface_max_iterations_range/);
  assert.match(refusal, /SQLSTATE 23514/);
  assert.equal(await page.inputValue('#max_iterations'), '99');
  assert.equal(psql("SELECT count(*) FROM mcp.interface WHERE name = 'hr'"), '0');
  await shot(page, 'interface-refused');
  await page.fill('#max_iterations', '5');
  await page.click('form.stack button[type=submit]');
  await page.waitForURL(/\/console\/registry\/interface\/hr\?done=created$/);
  assert.equal(await page.inputValue('#description'), 'People <script>window.__pwned = \'interface\'</script>');
  await noScript(page);
  // offer a tool, then stop offering it
  await page.selectOption('#map-tool-name', 'hoursOf');
  await page.click('#map-tool button');
  await page.waitForURL(/done=mapped$/);
  assert.match(await page.textContent('#mapped'), /hoursOf/);
  assert.equal(psql("SELECT count(*) FROM mcp.interface_tool WHERE interface = 'hr' AND tool = 'hoursOf'"), '1');
  await shot(page, 'interface');
  await page.click('#mapped button[aria-label="Stop offering hoursOf"]');
  await page.waitForURL(/done=unmapped$/);
  assert.equal(psql("SELECT count(*) FROM mcp.interface_tool WHERE interface = 'hr'"), '0');
  // the list shows the new interface's description as text too
  await page.goto(`${B}/console/registry`);
  assert.match(await page.textContent('#interfaces'), /People <script>window.__pwned = 'interface'<\/script>/);
  await noScript(page);
});

test('plans and their steps: the step trigger refuses a tool the interface does not offer; a valid step is added', async () => {
  const page = await signedIn('admin');
  await page.goto(`${B}/console/registry/plan/hours_by_region`);
  assert.match(await page.textContent('#steps'), /tool\s+hoursOf/);
  await page.click('#new-step');
  assert.equal(await page.inputValue('#position'), '2');
  await page.selectOption('#kind', 'tool');
  await page.fill('#tool', 'createTicket');
  await page.click('form.stack button[type=submit]');
  const refusal = await page.textContent('.refusal');
  assert.match(refusal, /plan hours_by_region step 2 \(tool\): tool createTicket is not a tool of interface planner/);
  assert.match(refusal, /SQLSTATE 23514/);
  await shot(page, 'plan-step-refused');
  // an ask step instead: it names a kind of the plan
  await page.selectOption('#kind', 'ask');
  await page.fill('#tool', '');
  await page.fill('#ask_kind', 'region');
  await page.fill('#question', 'Für welche Region?');
  await page.click('form.stack button[type=submit]');
  await page.waitForURL(/\/plan_step\/hours_by_region\/2\?done=created$/);
  assert.equal(psql("SELECT kind || ' ' || ask_kind || ' ' || question FROM mcp.plan_step WHERE plan = 'hours_by_region' AND position = 2"), 'ask region Für welche Region?');
  // the plan itself: a bad entity kind is refused by its trigger
  await page.goto(`${B}/console/registry/plan/hours_by_region`);
  await page.fill('#required_kinds', 'region, Not A Kind');
  await page.click('form.stack button[type=submit]');
  assert.match(await page.textContent('.refusal'), /plan hours_by_region: invalid entity kind\(s\) Not A Kind/);
  assert.equal(psql("SELECT array_to_string(required_kinds, ',') FROM mcp.plan WHERE name = 'hours_by_region'"), 'region');
  await shot(page, 'plan');
  // the step goes again
  await page.goto(`${B}/console/registry/plan_step/hours_by_region/2`);
  await page.check('#delete input[name=confirm]');
  await page.click('#delete button');
  await page.waitForURL(/\/registry\/plan\/hours_by_region\?done=deleted$/);
  assert.equal(psql("SELECT count(*) FROM mcp.plan_step WHERE plan = 'hours_by_region'"), '1');
});

test('prompt versions: a new version starts from the latest, two active versions are refused, activation switches', async () => {
  const page = await signedIn('admin');
  await page.goto(`${B}/console/registry`);
  await page.click('#new-prompt');
  await page.fill('#name', 'greeting');
  await page.fill('#template', 'Hallo {{name}}');
  await page.fill('#variables', 'name');
  await page.click('form.stack button[type=submit]');
  await page.waitForURL(/\/prompt\/greeting\/1\?done=created$/);
  await page.click('#new-version');
  assert.equal(await page.inputValue('#version'), '2');
  assert.equal(await page.inputValue('#template'), 'Hallo {{name}}');
  assert.equal(await page.isChecked('#active'), false);
  await page.fill('#template', 'Guten Tag {{name}}');
  // two active versions of one name: the unique index refuses
  await page.check('#active');
  await page.click('form.stack button[type=submit]');
  assert.match(await page.textContent('.refusal'), /prompt_one_active_version/);
  await page.uncheck('#active');
  await page.click('form.stack button[type=submit]');
  await page.waitForURL(/\/prompt\/greeting\/2\?done=created$/);
  await page.click('#activate button');
  await page.waitForURL(/done=activated$/);
  assert.equal(psql("SELECT string_agg(version || ':' || active, ' ' ORDER BY version) FROM mcp.prompt WHERE name = 'greeting'"), '1:false 2:true');
  assert.match(await page.textContent('#versions'), /version 2[\s\S]*active/);
  await shot(page, 'prompt');
});

test('a role without privileges cannot change the registry through the console', async () => {
  const page = await signedIn('bob');
  await page.goto(`${B}/console/registry/tool/hoursOf`);
  assert.match(await page.textContent('main'), /your role has no UPDATE on mcp.tool/);
  await page.fill('#description', 'changed by bob');
  await page.click('form.stack button[type=submit]');
  assert.match(await page.textContent('.refusal'), /permission denied for table tool/);
  assert.match(await page.textContent('.refusal'), /SQLSTATE 42501/);
  assert.doesNotMatch(psql("SELECT description FROM mcp.tool WHERE name = 'hoursOf'"), /bob/);
  // nor delete it
  await page.check('#delete input[name=confirm]');
  await page.click('#delete button');
  assert.match(await page.textContent('.refusal'), /permission denied for table tool/);
  assert.equal(psql("SELECT count(*) FROM mcp.tool WHERE name = 'hoursOf'"), '1');
  // nor change an interface, nor its tools, nor add a plan
  const before = psql("SELECT md5(i::text) FROM mcp.interface i WHERE name = 'console'");
  await page.goto(`${B}/console/registry/interface/console`);
  await page.fill('#description', 'bob was here');
  await page.uncheck('#enabled');
  await page.click('form.stack button[type=submit]');
  assert.match(await page.textContent('.refusal'), /permission denied for table interface/);
  assert.equal(await page.inputValue('#description'), 'bob was here');
  await page.click('#mapped button[aria-label="Stop offering hoursOf"]');
  assert.match(await page.textContent('.refusal'), /permission denied for table interface_tool/);
  assert.equal(psql("SELECT md5(i::text) FROM mcp.interface i WHERE name = 'console'"), before);
  assert.equal(psql("SELECT count(*) FROM mcp.interface_tool WHERE interface = 'console'"), '1');
  await shot(page, 'registry-refused');
  await page.goto(`${B}/console/registry/plan/new?interface=planner`);
  await page.fill('#name', 'bobs_plan');
  await page.fill('#description', 'Bob plans');
  await page.click('form.stack button[type=submit]');
  assert.match(await page.textContent('.refusal'), /permission denied for table plan/);
  assert.equal(psql("SELECT count(*) FROM mcp.plan WHERE name = 'bobs_plan'"), '0');
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
