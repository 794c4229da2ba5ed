import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser, Page } from 'playwright-core';
import { testContext } from '../support/context.js';
import { browserOrSkip, closeBrowser, screenshot, watchedPage } from '../support/browser.js';
import { makeMarket } from '../support/factories.js';
import { api, registerAgent } from '../support/http.js';

/** Raw i18n keys bull-board shows when its locale file never loaded (`MENU.QUEUES`, `QUEUE.STATUS.ALL`). */
const RAW_I18N_KEY = /\b[A-Z][A-Z_]+(?:\.[A-Z][A-Z_]+)+\b/g;
const OPERATOR_NAME = 'Ada on call';

describe('operator console in a browser #browser', function () {
  this.timeout(60_000);
  let server: Server;
  let base: string;

  before(async () => {
    server = testContext().app.listen(0, '127.0.0.1');
    await new Promise((r) => server.once('listening', r));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(async () => {
    await closeBrowser();
    await new Promise((r) => server.close(r));
  });

  /** A page signed in through /admin/login (the operator token pasted, a name for the audit trail). */
  async function signedIn(browser: Browser) {
    const watched = await watchedPage(browser);
    const { page } = watched;
    await page.goto(`${base}/admin/login`);
    await page.getByLabel('Operator token').fill(testContext().operatorToken);
    await page.getByLabel('Your name').fill(OPERATOR_NAME);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL(`${base}/admin`);
    return watched;
  }

  const apiSchedule = async (name: string) => {
    const res = await fetch(`${base}/api/admin/schedules`, {
      headers: { Authorization: `Bearer ${testContext().operatorToken}` },
    });
    const body = (await res.json()) as {
      schedules: { name: string; paused: boolean; paused_by: string | null; runs: number }[];
    };
    return body.schedules.find((s) => s.name === name)!;
  };

  const rowOf = (page: Page, schedule: string) =>
    page.getByRole('row').filter({ has: page.getByRole('rowheader', { name: schedule, exact: true }) });

  it('when there is no session, then HTML pages redirect to the login page and JSON answers 401', async function () {
    const browser = await browserOrSkip(this);
    const { page, problems, close } = await watchedPage(browser);
    try {
      for (const path of ['/admin', '/admin/schedules', '/admin/queues']) {
        await page.goto(`${base}${path}`);
        assert.equal(new URL(page.url()).pathname, '/admin/login', path);
      }
      await screenshot(page, 'admin-login');
      assert.deepEqual(problems, []);
      for (const path of ['/api/admin/schedules', '/admin/queues/api/queues']) {
        const res = await fetch(`${base}${path}`, { headers: { Accept: 'application/json' } });
        assert.equal(res.status, 401, path);
        assert.equal(typeof ((await res.json()) as { fix: string }).fix, 'string');
      }
      // A wrong token does not sign in.
      await page.getByLabel('Operator token').fill('not-the-token');
      await page.getByLabel('Your name').fill(OPERATOR_NAME);
      const [answer] = await Promise.all([
        page.waitForResponse((r) => r.url().endsWith('/admin/login') && r.request().method() === 'POST'),
        page.getByRole('button', { name: 'Sign in' }).click(),
      ]);
      assert.equal(answer.status(), 401);
      assert.match(await page.locator('body').innerText(), /token is not the operator token/i);
    } finally {
      await close();
    }
  });

  it('when an operator signs in, then the session cookie is HttpOnly and SameSite=Strict, holds no token, and a form post without its CSRF token is refused', async function () {
    const browser = await browserOrSkip(this);
    const { page, close } = await signedIn(browser);
    try {
      const cookies = await page.context().cookies();
      const session = cookies.find((c) => c.name === 'operator_session');
      assert.ok(session, 'session cookie set');
      assert.equal(session.httpOnly, true);
      assert.equal(session.sameSite, 'Strict');
      assert.ok(!session.value.includes(testContext().operatorToken), 'the cookie is not the raw token');
      const forged = await page.request.post(`${base}/admin/schedules/heartbeat/pause`, {
        form: { csrf: 'forged' },
      });
      assert.equal(forged.status(), 403);
      assert.equal((await apiSchedule('heartbeat')).paused, false);
    } finally {
      await close();
    }
  });

  it('when a signed-in operator opens every console page, then each loads with no console errors and no failed requests', async function () {
    const browser = await browserOrSkip(this);
    const { page, problems, close } = await signedIn(browser);
    try {
      await screenshot(page, 'admin-home');
      for (const [path, name, heading] of [
        ['/admin/schedules', 'admin-schedules', 'Schedules'],
        ['/admin/venues', 'admin-venues', 'Venues'],
        ['/admin/audit', 'admin-audit', 'Ledger audit'],
        ['/admin/markets', 'admin-markets', 'Resolve a sim market'],
        ['/admin/skills', 'admin-skills', 'Skill review'],
        ['/admin/users', 'admin-users', 'User tiers'],
      ] as const) {
        await page.goto(`${base}${path}`);
        await page.getByRole('heading', { level: 1, name: heading }).waitFor();
        await screenshot(page, name);
      }
      await page.goto(`${base}/admin/audit`);
      await page.getByRole('button', { name: 'Run the audit' }).click();
      await page.getByText(/agents checked: \d+/i).waitFor();
      await screenshot(page, 'admin-audit-result');
      assert.deepEqual(problems, []);
    } finally {
      await close();
    }
  });

  it('when a signed-in operator opens /admin/queues, then bull-board shows labels, not raw i18n keys, and says what runs in each queue', async function () {
    const browser = await browserOrSkip(this);
    const { page, problems, close } = await signedIn(browser);
    try {
      await page
        .getByRole('link', { name: /queues/i })
        .first()
        .click();
      await page.waitForURL(/\/admin\/queues/);
      await page
        .getByText(/price snapshots/i)
        .first()
        .waitFor();
      await page.waitForLoadState('networkidle');
      await screenshot(page, 'admin-queues');
      const text = await page.locator('body').innerText();
      assert.deepEqual(text.match(RAW_I18N_KEY) ?? [], [], 'no raw i18n keys in the rendered text');
      // A write as the board's own script sends it (same origin, with the session cookie) still runs.
      const cleaned = await page.evaluate(async () => {
        const res = await fetch('/admin/queues/api/queues/webhooks/clean/completed', { method: 'PUT' });
        return res.status;
      });
      assert.equal(cleaned, 200);
      assert.deepEqual(problems, []);
    } finally {
      await close();
    }
  });

  it('when an operator pauses, resumes and runs a schedule from the page, then the API shows it and the audit names the operator', async function () {
    const browser = await browserOrSkip(this);
    const { page, problems, close } = await signedIn(browser);
    const name = 'snapshot-prices';
    try {
      await page.goto(`${base}/admin/schedules`);
      await rowOf(page, name).getByRole('button', { name: 'Pause' }).click();
      await rowOf(page, name).getByText('Paused', { exact: false }).first().waitFor();
      const paused = await apiSchedule(name);
      assert.equal(paused.paused, true);
      assert.equal(paused.paused_by, OPERATOR_NAME);
      await screenshot(page, 'admin-schedules-paused');

      await rowOf(page, name).getByRole('button', { name: 'Resume' }).click();
      await rowOf(page, name).getByRole('button', { name: 'Pause' }).waitFor();
      assert.equal((await apiSchedule(name)).paused, false);

      const runsBefore = (await apiSchedule(name)).runs;
      await rowOf(page, name).getByRole('button', { name: 'Run now' }).click();
      await page.getByText(`Ran ${name}`).waitFor();
      assert.equal((await apiSchedule(name)).runs, runsBefore + 1);

      const audit = page.getByRole('table', { name: 'Schedule actions' });
      const latest = await audit.getByRole('row').nth(1).innerText();
      assert.match(latest, new RegExp(`${OPERATOR_NAME}.*schedule\\.run.*${name}`, 's'));
      assert.match(await audit.innerText(), /schedule\.pause/);
      await screenshot(page, 'admin-schedules-after-run');
      assert.deepEqual(problems, []);
    } finally {
      await close();
    }
  });

  it('when an operator resolves a sim market with the form, then the market is resolved and the result shown', async function () {
    const browser = await browserOrSkip(this);
    const { page, problems, close } = await signedIn(browser);
    const market = await makeMarket();
    try {
      await page.goto(`${base}/admin/markets`);
      await page.getByLabel('Market id').fill(market._id);
      await page.getByLabel('Outcome').selectOption('yes');
      await page.getByRole('button', { name: 'Resolve' }).click();
      await page.getByText(/resolved yes/i).waitFor();
      await screenshot(page, 'admin-markets-resolved');
      const stored = await testContext().deps.models.Market.findById(market._id).lean();
      assert.equal(stored?.status, 'resolved');
      assert.deepEqual(problems, []);
    } finally {
      await close();
    }
  });

  it('when an operator approves a submitted skill and sets a user tier with the forms, then both are stored and audited', async function () {
    const browser = await browserOrSkip(this);
    const { page, problems, close } = await signedIn(browser);
    const agent = await registerAgent();
    const slug = `console-skill-${Date.now().toString(36)}`;
    const submitted = await api()
      .post('/api/sdk/skills')
      .set('Authorization', `Bearer ${agent.api_key}`)
      .send({
        slug,
        name: 'Console review skill',
        description: 'Submitted by the console test.',
        clawhub_url: `https://clawhub.ai/skills/${slug}`,
      });
    assert.equal(submitted.status, 200, JSON.stringify(submitted.body));
    const userId = `console-user-${Date.now().toString(36)}`;
    try {
      await page.goto(`${base}/admin/skills`);
      const review = page.getByRole('form', { name: 'Review Console review skill' });
      await review.getByLabel('Note to the submitter (optional)').fill('Looks good.');
      await review.getByRole('button', { name: 'Approve' }).click();
      await page.getByText(`Skill ${slug} approved.`).waitFor();
      await screenshot(page, 'admin-skills-reviewed');
      const skill = await testContext().deps.models.Skill.findById(slug).lean();
      assert.equal(skill?.status, 'approved');

      await page.goto(`${base}/admin/users`);
      await page.getByLabel('User id').fill(userId);
      await page.getByLabel('Tier').selectOption('pro');
      await page.getByRole('button', { name: 'Set tier' }).click();
      await page.getByText(`User ${userId} is now pro`).waitFor();
      await screenshot(page, 'admin-users-tier-set');
      assert.equal((await testContext().deps.models.User.findById(userId).lean())?.tier, 'pro');

      const actions = await testContext()
        .deps.models.OperatorAction.find({ target: { $in: [slug, userId] } })
        .lean();
      assert.deepEqual(actions.map((a) => [a.action, a.actor]).sort(), [
        ['skill.review', OPERATOR_NAME],
        ['user.tier', OPERATOR_NAME],
      ]);
      assert.deepEqual(problems, []);
    } finally {
      await close();
    }
  });

  it('when the operator signs out, then the console asks for the token again', async function () {
    const browser = await browserOrSkip(this);
    const { page, problems, close } = await signedIn(browser);
    try {
      const cookieBefore = (await page.context().cookies()).find((c) => c.name === 'operator_session')!;
      await page.getByRole('button', { name: 'Sign out' }).click();
      await page.waitForURL(`${base}/admin/login`);
      await page.goto(`${base}/admin`);
      assert.equal(new URL(page.url()).pathname, '/admin/login');
      // The old cookie replayed does not come back to life.
      await page.context().addCookies([cookieBefore]);
      await page.goto(`${base}/admin`);
      assert.equal(new URL(page.url()).pathname, '/admin/login');
      assert.deepEqual(problems, []);
    } finally {
      await close();
    }
  });

  it('when a browser holding the operator’s Basic credentials opens another site’s auto-submitting forms for /admin/users/tier and /admin/markets/resolve, then both are refused (403) and nothing changes', async function () {
    const browser = await browserOrSkip(this);
    const userId = `csrf-victim-${Date.now().toString(36)}`;
    const market = await makeMarket();
    const forms: Record<string, Record<string, string>> = {
      '/admin/users/tier': { user_id: userId, tier: 'elite' },
      '/admin/markets/resolve': { market_id: market._id, outcome: 'yes' },
    };
    // Another site: `localhost` is not the service's `127.0.0.1` (cross-site for the browser).
    const attacker = createServer((req, res) => {
      const target = new URL(req.url ?? '/', 'http://localhost').searchParams.get('target') ?? '';
      const inputs = Object.entries(forms[target] ?? {})
        .map(([k, v]) => `<input type="hidden" name="${k}" value="${v}">`)
        .join('');
      res.setHeader('Content-Type', 'text/html');
      res.end(
        `<form method="post" action="${base}${target}">${inputs}</form><script>document.forms[0].submit()</script>`,
      );
    });
    await new Promise<void>((r) => attacker.listen(0, '127.0.0.1', r));
    const attackerBase = `http://localhost:${(attacker.address() as AddressInfo).port}`;
    const context = await browser.newContext({
      httpCredentials: { username: 'ops', password: testContext().operatorToken },
    });
    try {
      const page = await context.newPage();
      // The operator once opened /metrics and typed the token: the browser now holds it for the host.
      const metrics = await page.goto(`${base}/metrics`);
      assert.equal(metrics?.status(), 200);
      for (const target of Object.keys(forms)) {
        const [answer] = await Promise.all([
          page.waitForResponse((r) => r.url() === `${base}${target}`),
          page.goto(`${attackerBase}/?target=${encodeURIComponent(target)}`),
        ]);
        assert.equal(answer.status(), 403, target);
      }
      const { models } = testContext().deps;
      assert.equal(await models.User.findById(userId).lean(), null);
      assert.equal((await models.Market.findById(market._id).lean())?.status, 'active');
      assert.equal(await models.OperatorAction.exists({ target: { $in: [userId, market._id] } }), null);
    } finally {
      await context.close();
      await new Promise((r) => attacker.close(r));
    }
  });

  it('when the API docs are opened, then the page works under its Content-Security-Policy (no console errors)', async function () {
    const browser = await browserOrSkip(this);
    const { page, problems, close } = await watchedPage(browser);
    try {
      const res = await page.goto(`${base}/docs/`);
      assert.match(res?.headers()['content-security-policy'] ?? '', /script-src 'self'/);
      await page.getByText('/api/sdk/agents/register').first().waitFor();
      await screenshot(page, 'docs');
      assert.deepEqual(problems, []);
    } finally {
      await close();
    }
  });
});
