import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { testContext } from '../support/context.js';
import { makeMarket } from '../support/factories.js';
import { api, randomIp } from '../support/http.js';
import { until } from '../support/until.js';
import { FAILED_SIGN_INS_PER_WINDOW } from '../../shared/infra/operator-lockout.js';

const OPERATOR = 'Grace from ops';

/** Signs in through the login form; answers the session cookie and a CSRF token read off a page. */
async function signIn(next?: string) {
  const res = await api()
    .post('/admin/login')
    .type('form')
    .send({ token: testContext().operatorToken, name: OPERATOR, ...(next ? { next } : {}) });
  assert.equal(res.status, 303, res.text);
  const setCookie = ([] as string[]).concat(res.headers['set-cookie'] ?? []);
  const cookie = setCookie.find((c) => c.startsWith('operator_session='))!;
  const page = await api().get('/admin/schedules').set('Cookie', cookie.split(';')[0]!);
  const csrf = /name="csrf" value="([^"]+)"/.exec(page.text)?.[1];
  return { res, cookie, pair: cookie.split(';')[0]!, csrf: csrf! };
}

describe('operator console sessions #integration', () => {
  it('when a browser opens a console page without a session, then it is sent to the login page; a script gets 401 JSON', async () => {
    const html = await api()
      .get('/admin/schedules')
      .set('Accept', 'text/html,application/xhtml+xml,*/*;q=0.8');
    assert.equal(html.status, 303);
    assert.equal(html.headers.location, '/admin/login?next=%2Fadmin%2Fschedules');
    const json = await api().get('/admin/schedules');
    assert.equal(json.status, 401);
    assert.equal(json.body.detail, 'Operator authentication required');
    const login = await api().get('/admin/login');
    assert.equal(login.status, 200);
    assert.match(login.headers['content-security-policy'] ?? '', /default-src 'none'/);
  });

  it('when the operator signs in, then the cookie is HttpOnly, SameSite=Strict, scoped to /admin and is not the token', async () => {
    const { res, cookie } = await signIn();
    assert.equal(res.headers.location, '/admin');
    assert.match(cookie, /HttpOnly/);
    assert.match(cookie, /SameSite=Strict/);
    assert.match(cookie, /Path=\/admin/);
    assert.doesNotMatch(cookie, /Secure/, 'Secure only in production (tests run over http)');
    assert.ok(!cookie.includes(testContext().operatorToken));
  });

  it('when one address sends wrong tokens past the limit, then sign-in is refused there (429, Retry-After) even with the right token, and elsewhere still works', async () => {
    const from = `203.0.113.${Math.floor(Math.random() * 250) + 1}`;
    const attempt = (token: string, ip = from) =>
      api().post('/admin/login').set('X-Forwarded-For', ip).type('form').send({ token, name: OPERATOR });
    for (let i = 0; i < FAILED_SIGN_INS_PER_WINDOW; i++)
      assert.equal((await attempt(`wrong-${i}`)).status, 401);
    const locked = await attempt(testContext().operatorToken);
    assert.equal(locked.status, 429);
    assert.ok(Number(locked.headers['retry-after']) > 0);
    assert.match(locked.text, /Too many wrong operator tokens/);
    assert.equal(locked.headers['set-cookie'], undefined);
    assert.equal((await attempt(testContext().operatorToken, '198.51.100.7')).status, 303);
  });

  it('when 25 wrong tokens arrive from one address at once, then at most the limit of them are checked', async () => {
    const from = `192.0.2.${Math.floor(Math.random() * 250) + 1}`;
    const answers = await Promise.all(
      Array.from({ length: 25 }, (_, i) =>
        api()
          .post('/admin/login')
          .set('X-Forwarded-For', from)
          .type('form')
          .send({ token: `parallel-${i}`, name: OPERATOR }),
      ),
    );
    const checked = answers.filter((a) => a.status === 401).length;
    assert.equal(checked, FAILED_SIGN_INS_PER_WINDOW);
    assert.equal(answers.filter((a) => a.status === 429).length, 25 - FAILED_SIGN_INS_PER_WINDOW);
  });

  it('when the token is wrong or the name missing, then no session is made', async () => {
    const wrong = await api().post('/admin/login').type('form').send({ token: 'nope', name: OPERATOR });
    assert.equal(wrong.status, 401);
    assert.equal(wrong.headers['set-cookie'], undefined);
    const nameless = await api()
      .post('/admin/login')
      .type('form')
      .send({ token: testContext().operatorToken, name: ' ' });
    assert.equal(nameless.status, 422);
    assert.equal(nameless.headers['set-cookie'], undefined);
  });

  it('when next points off the console, then sign-in lands on /admin instead (no open redirect)', async () => {
    for (const next of ['//evil.example/admin', 'https://evil.example/', '/administrator', '/admin/queues']) {
      const { res } = await signIn(next);
      assert.equal(res.headers.location, next === '/admin/queues' ? '/admin/queues' : '/admin', next);
    }
  });

  it('when a cookie is tampered with, then it is not a session', async () => {
    const { pair } = await signIn();
    const [body, sig] = pair.slice('operator_session='.length).split('.');
    const claims = JSON.parse(Buffer.from(body!, 'base64url').toString('utf8'));
    const forged = Buffer.from(JSON.stringify({ ...claims, name: 'mallory' })).toString('base64url');
    const res = await api()
      .get('/admin')
      .set('Cookie', `operator_session=${forged}.${sig}`)
      .set('Accept', 'text/html');
    assert.equal(res.status, 303);
  });

  it('when a form is posted without the session CSRF token, then 403; with it, the action runs under the operator name', async () => {
    const { deps } = testContext();
    const { pair, csrf } = await signIn();
    assert.ok(csrf, 'pages carry the CSRF token');
    const refused = await api()
      .post('/admin/schedules/reconcile-trades/pause')
      .set('Cookie', pair)
      .type('form')
      .send({});
    assert.equal(refused.status, 403);
    assert.equal(refused.body.error_code, 'csrf_token_invalid');
    const paused = await api()
      .post('/admin/schedules/reconcile-trades/pause')
      .set('Cookie', pair)
      .type('form')
      .send({ csrf });
    assert.equal(paused.status, 303);
    try {
      const run = await deps.models.ScheduleRun.findById('reconcile-trades').lean();
      assert.equal(run?.paused, true);
      assert.equal(run?.pausedBy, OPERATOR);
    } finally {
      const resumed = await api()
        .post('/admin/schedules/reconcile-trades/resume')
        .set('Cookie', pair)
        .type('form')
        .send({ csrf });
      assert.equal(resumed.status, 303);
    }
    assert.equal((await deps.models.ScheduleRun.findById('reconcile-trades').lean())?.paused, false);
  });

  it('when the operator signs out, then the same cookie no longer opens the console', async () => {
    const { pair, csrf } = await signIn();
    const out = await api().post('/admin/logout').set('Cookie', pair).type('form').send({ csrf });
    assert.equal(out.status, 303);
    const replay = await api().get('/admin').set('Cookie', pair).set('Accept', 'text/html');
    assert.equal(replay.status, 303);
    assert.match(replay.headers.location ?? '', /^\/admin\/login/);
  });

  it('when a script sends the Bearer token, then console pages answer without a session (audited as api)', async () => {
    const res = await api()
      .get('/admin/venues')
      .set('Authorization', `Bearer ${testContext().operatorToken}`);
    assert.equal(res.status, 200);
    assert.match(res.text, /<h1>Venues<\/h1>/);
    assert.match(res.text, /Sign in to use the forms/, 'header callers read; forms need a session');
  });

  it('when a browser holding the operator’s Basic credentials posts the tier or resolve form without a session, then 403 and nothing changes', async () => {
    const { deps, operatorToken } = testContext();
    const userId = `csrf-basic-${randomIp()}`;
    const market = await makeMarket();
    const tier = await api()
      .post('/admin/users/tier')
      .auth('operator', operatorToken)
      .type('form')
      .send({ user_id: userId, tier: 'elite' });
    assert.equal(tier.status, 403, tier.text.slice(0, 200));
    assert.equal(tier.body.error_code, 'csrf_token_invalid');
    const resolve = await api()
      .post('/admin/markets/resolve')
      .auth('operator', operatorToken)
      .type('form')
      .send({ market_id: market._id, outcome: 'yes' });
    assert.equal(resolve.status, 403, resolve.text.slice(0, 200));
    assert.equal(await deps.models.User.findById(userId).lean(), null);
    assert.equal((await deps.models.Market.findById(market._id).lean())?.status, 'active');
  });

  it('when another site’s page posts a form with the session cookie and its CSRF token, then 403 (Fetch Metadata says cross-site)', async () => {
    const { pair, csrf } = await signIn();
    const res = await api()
      .post('/admin/schedules/reconcile-trades/pause')
      .set('Cookie', pair)
      .set('Origin', 'https://attacker.example')
      .set('Sec-Fetch-Site', 'cross-site')
      .type('form')
      .send({ csrf });
    assert.equal(res.status, 403);
    assert.equal(res.body.error_code, 'cross_origin_request');
    assert.equal(
      (await testContext().deps.models.ScheduleRun.findById('reconcile-trades').lean())?.paused ?? false,
      false,
    );
  });

  it('when another site makes the browser GET an operator API read that acts (the ledger audit) with Basic, then 403 before it runs; a script’s GET runs it', async () => {
    const { operatorToken } = testContext();
    const crossSite = await api()
      .get('/api/admin/audit')
      .auth('operator', operatorToken)
      .set('Origin', 'https://attacker.example')
      .set('Sec-Fetch-Site', 'cross-site');
    assert.equal(crossSite.status, 403, crossSite.text.slice(0, 200));
    assert.equal(crossSite.body.error_code, 'cross_origin_request');
    assert.ok(crossSite.body.fix);
    assert.equal(crossSite.body.ok, undefined);
    const script = await api().get('/api/admin/audit').auth('operator', operatorToken);
    assert.equal(script.status, 200, script.text.slice(0, 200));
    assert.equal(typeof script.body.ok, 'boolean');
  });

  it('when an address is locked out of the sign-in form, then Bearer on /api/admin and Basic on /admin answer 429 with Retry-After, even with the right token', async () => {
    const { operatorToken } = testContext();
    const from = randomIp();
    for (let i = 0; i < FAILED_SIGN_INS_PER_WINDOW; i++)
      await api()
        .post('/admin/login')
        .set('X-Forwarded-For', from)
        .type('form')
        .send({ token: `wrong-${i}`, name: OPERATOR });
    const answers = [
      await api().get('/api/admin/audit').set('X-Forwarded-For', from).set('Authorization', 'Bearer wrong'),
      await api()
        .get('/api/admin/audit')
        .set('X-Forwarded-For', from)
        .set('Authorization', `Bearer ${operatorToken}`),
      await api().get('/admin/').set('X-Forwarded-For', from).auth('ops', 'wrong'),
      await api().get('/admin/').set('X-Forwarded-For', from).auth('ops', operatorToken),
      await api().get('/metrics').set('X-Forwarded-For', from).auth('ops', operatorToken),
    ];
    for (const res of answers) {
      assert.equal(res.status, 429, res.text.slice(0, 120));
      assert.ok(Number(res.headers['retry-after']) > 0);
      assert.equal(typeof res.body.fix, 'string');
      assert.equal(res.body.detail, res.body.error);
    }
  });

  it('when wrong Bearer and Basic tokens on the operator API reach the limit, then the sign-in form is locked out too (one counter for every door)', async () => {
    const from = randomIp();
    for (let i = 0; i < FAILED_SIGN_INS_PER_WINDOW; i++) {
      const res =
        i % 2
          ? await api()
              .get('/api/admin/venues')
              .set('X-Forwarded-For', from)
              .set('Authorization', `Bearer wrong-${i}`)
          : await api()
              .get('/admin/queues/api/queues')
              .set('X-Forwarded-For', from)
              .auth('ops', `wrong-${i}`);
      assert.equal(res.status, 401);
    }
    const login = await api()
      .post('/admin/login')
      .set('X-Forwarded-For', from)
      .type('form')
      .send({ token: testContext().operatorToken, name: OPERATOR });
    assert.equal(login.status, 429);
  });

  it('when wrong tokens come from many addresses of one IPv6 /64, then they count together and the whole /64 is locked out', async () => {
    const prefix = `2001:4860:${randomBytes(2).toString('hex')}:${randomBytes(2).toString('hex')}`;
    const fromHost = (i: number) => `${prefix}:${i.toString(16)}::1`;
    for (let i = 1; i <= FAILED_SIGN_INS_PER_WINDOW; i++) {
      const res = await api()
        .get('/api/admin/venues')
        .set('X-Forwarded-For', fromHost(i))
        .set('Authorization', 'Bearer wrong-token-wrong-token');
      assert.equal(res.status, 401, `guess ${i}`);
    }
    const next = await api()
      .get('/api/admin/venues')
      .set('X-Forwarded-For', fromHost(0xffff))
      .set('Authorization', `Bearer ${testContext().operatorToken}`);
    assert.equal(next.status, 429);
    assert.ok(Number(next.headers['retry-after']) > 0);
  });

  it('when the right token is sent more often than the limit, then it is never locked out (only failures count)', async () => {
    const from = randomIp();
    for (let i = 0; i < FAILED_SIGN_INS_PER_WINDOW + 5; i++) {
      const res = await api()
        .get('/api/admin/venues')
        .set('X-Forwarded-For', from)
        .set('Authorization', `Bearer ${testContext().operatorToken}`);
      assert.equal(res.status, 200);
    }
  });

  it('when another site makes the browser send a bull-board PUT with the session cookie, then 403; from the board itself it runs', async () => {
    const { pair } = await signIn();
    const clean = () => api().put('/admin/queues/api/queues/webhooks/clean/completed').set('Cookie', pair);
    const crossSite = await clean()
      .set('Origin', 'https://attacker.example')
      .set('Sec-Fetch-Site', 'cross-site');
    assert.equal(crossSite.status, 403);
    const noFetchMetadata = await clean().set('Origin', 'https://attacker.example');
    assert.equal(noFetchMetadata.status, 403);
    const sameOrigin = await clean().set('Sec-Fetch-Site', 'same-origin');
    assert.equal(sameOrigin.status, 200, sameOrigin.text.slice(0, 200));
  });

  it('when an operator changes a queue through bull-board, then the write is in the audit trail under that operator with the status it answered', async () => {
    const { pair } = await signIn();
    const path = '/api/queues/webhooks/clean/completed';
    const before = await testContext().deps.models.OperatorAction.countDocuments({ target: path });
    const res = await api()
      .put(`/admin/queues${path}`)
      .set('Cookie', pair)
      .set('Sec-Fetch-Site', 'same-origin');
    assert.equal(res.status, 200, res.text.slice(0, 200));
    const entries = await until(
      () => testContext().deps.models.OperatorAction.find({ target: path }).sort({ at: 1 }).lean(),
      (rows) => rows.length === before + 1 && rows.at(-1)!.detail === 'HTTP 200',
    );
    const entry = entries.at(-1)!;
    assert.equal(entry.action, 'queues.put');
    assert.equal(entry.actor, OPERATOR);
  });

  describe('the ledger audit page', () => {
    /**
     * The collections read whole (an empty filter) while `during` runs, as the shared connection sent
     * them: the audit's signature is a full scan of the agents and the markets.
     */
    async function fullScansDuring(during: () => Promise<unknown>): Promise<string[]> {
      const scanned: string[] = [];
      const conn = testContext().deps.mongo;
      conn.set('debug', (collection: string, method: string, filter?: unknown) => {
        const whole = filter && typeof filter === 'object' && Object.keys(filter).length === 0;
        if (whole && (method === 'find' || method === 'aggregate')) scanned.push(collection);
      });
      try {
        await during();
      } finally {
        conn.set('debug', false);
      }
      return scanned;
    }
    const auditScans = (scanned: string[]) => {
      const { Agent, Market } = testContext().deps.models;
      const audited = [Agent.collection.collectionName, Market.collection.collectionName];
      return scanned.filter((c) => audited.includes(c));
    };

    it('when another site makes the operator’s browser GET /admin/audit?run=1 with its Basic credentials, then no audit runs and the page only shows the last result', async () => {
      let res: { status: number; text: string } | undefined;
      const scanned = await fullScansDuring(async () => {
        res = await api()
          .get('/admin/audit?run=1')
          .auth('operator', testContext().operatorToken)
          .set('Accept', 'text/html')
          .set('Origin', 'https://attacker.example')
          .set('Sec-Fetch-Site', 'cross-site');
      });
      assert.equal(res!.status, 200, res!.text.slice(0, 200));
      assert.deepEqual(auditScans(scanned), [], 'the GET read no agent or market for an audit');
      assert.match(res!.text, /<h1>Ledger audit<\/h1>/);
      assert.match(res!.text, /<form method="post" action="\/admin\/audit">/);
    });

    it('when a browser holding the Basic credentials posts the audit form without a session’s CSRF token, then 403 and no audit runs', async () => {
      let res: { status: number; text: string; body: { error_code?: string } } | undefined;
      const scanned = await fullScansDuring(async () => {
        res = await api()
          .post('/admin/audit')
          .auth('operator', testContext().operatorToken)
          .type('form')
          .send({});
      });
      assert.equal(res!.status, 403, res!.text.slice(0, 200));
      assert.equal(res!.body.error_code, 'csrf_token_invalid');
      assert.deepEqual(auditScans(scanned), []);
    });

    it('when a signed-in operator posts the audit form with its CSRF token, then the audit runs and the page shows its result, when and by whom', async () => {
      const { pair, csrf } = await signIn();
      let res: { status: number; headers: Record<string, string> } | undefined;
      const scanned = await fullScansDuring(async () => {
        res = await api()
          .post('/admin/audit')
          .set('Cookie', pair)
          .set('Sec-Fetch-Site', 'same-origin')
          .type('form')
          .send({ csrf });
      });
      assert.equal(res!.status, 303);
      assert.equal(res!.headers.location, '/admin/audit');
      assert.ok(
        auditScans(scanned).length >= 2,
        `the audit read the agents and markets: ${scanned.join(', ')}`,
      );
      const shown = await api().get('/admin/audit').set('Cookie', pair);
      assert.match(shown.text, /Agents checked: \d+/);
      assert.match(shown.text, new RegExp(`by <strong>${OPERATOR}</strong>`));
    });
  });

  it('when /docs is served, then it carries a Content-Security-Policy that allows only its own scripts', async () => {
    const res = await api().get('/docs/');
    assert.equal(res.status, 200);
    const csp = res.headers['content-security-policy'] ?? '';
    assert.match(csp, /script-src 'self'(;|$)/);
    assert.match(csp, /frame-ancestors 'none'/);
  });
});
