import assert from 'node:assert/strict';
import { randomBytes, randomUUID } from 'node:crypto';
import { Wallet, type HDNodeWallet } from 'ethers';
import request from 'supertest';
import { buildApp } from '../../api/app.js';
import { signClobAuth, type L1Headers } from '../../shared/domains/venues/polymarket/clob-auth.js';
import {
  clobCredentialsFor,
  deriveManagedClobCredentials,
} from '../../shared/domains/venues/polymarket/clob-credentials.js';
import { managedSigner } from '../../shared/domains/wallets/managed-wallet.js';
import { capturingLogger } from '../support/capture.js';
import { testContext } from '../support/context.js';
import { randomIp, registerAgent } from '../support/http.js';
import { asUser, tokenFor } from '../support/users.js';

type Auth = Record<string, string>;
type App = ReturnType<typeof buildApp>;

const HARDHAT_KEY_0 = '0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80';

function freshUser() {
  const sub = `u-${randomUUID()}`;
  const token = tokenFor(sub);
  return { sub, token, auth: asUser(token) };
}

const owner = (sub: string) => ({ kind: 'user' as const, id: sub });
const creds = () => ({
  api_key: randomUUID(),
  api_secret: randomBytes(32).toString('base64'),
  api_passphrase: randomBytes(32).toString('hex'),
});

async function linkWallet(app: App, auth: Auth, signer: Wallet | HDNodeWallet, extra: object = {}) {
  const c = await request(app)
    .get('/api/sdk/wallet/link/challenge')
    .query({ address: signer.address })
    .set(auth);
  assert.equal(c.status, 200, JSON.stringify(c.body));
  const res = await request(app)
    .post('/api/sdk/wallet/link')
    .set(auth)
    .send({
      address: signer.address,
      signature: await signer.signMessage(c.body.message),
      nonce: c.body.nonce,
      ...extra,
    });
  assert.equal(res.status, 200, JSON.stringify(res.body));
}

const proxyBody = (h: L1Headers) => ({
  poly_address: h.address,
  poly_signature: h.signature,
  poly_timestamp: h.timestamp,
  poly_nonce: h.nonce,
});

/** What the emulator's CLOB answers for these L1 headers (derive, or create when none exists yet). */
async function emulatorCreds(h: L1Headers) {
  const headers = {
    POLY_ADDRESS: h.address,
    POLY_SIGNATURE: h.signature,
    POLY_TIMESTAMP: h.timestamp,
    POLY_NONCE: h.nonce,
  };
  const base = testContext().polymarket.clobUrl;
  const derived = await fetch(`${base}/auth/derive-api-key`, { headers });
  const res = derived.ok ? derived : await fetch(`${base}/auth/api-key`, { method: 'POST', headers });
  assert.equal(res.status, 200);
  return (await res.json()) as { apiKey: string; secret: string; passphrase: string };
}

/** Unix seconds on the emulator's clock (tests may move it). */
const emulatorNow = () => Math.floor(testContext().polymarket.state.now() / 1000);

describe('CLOB credentials #integration', () => {
  afterEach(async () => {
    await fetch(`${testContext().polymarket.adminUrl}/faults`, { method: 'DELETE' });
  });

  it('when L1 headers are signed with Hardhat key #0 at 1700000000, then they match the reference vector (polymarket.md §4.2)', async () => {
    const h = await signClobAuth(new Wallet(HARDHAT_KEY_0), 1700000000, 0);
    assert.deepEqual(h, {
      address: '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266',
      signature:
        '0x659ed4b28ae28e0f038fdf0023c00863c9559caacb9ebc83f44eea87059a099a36f1e1dee110e7faa1c4f65d17489b2da1333ebef78bbe2116d81207b975052d1c',
      timestamp: '1700000000',
      nonce: '0',
    });
  });

  it('when no wallet is linked, then storing credentials is refused with wallet_not_linked and a fix', async () => {
    const { auth } = freshUser();
    const res = await request(testContext().app).post('/api/sdk/wallet/credentials').set(auth).send(creds());
    assert.equal(res.status, 409);
    assert.equal(res.body.error_code, 'wallet_not_linked');
    assert.match(res.body.fix, /wallet\/link/);
    const check = await request(testContext().app).get('/api/sdk/wallet/credentials/check').set(auth);
    assert.deepEqual(check.body, { has_credentials: false, wallet_address: null });
  });

  it('when credentials are stored, then check is true, the database holds them sealed and clobCredentialsFor opens them', async () => {
    const { app, deps } = testContext();
    const { sub, auth } = freshUser();
    const signer = Wallet.createRandom();
    await linkWallet(app, auth, signer);
    const sent = creds();
    const res = await request(app).post('/api/sdk/wallet/credentials').set(auth).send(sent);
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.deepEqual(Object.keys(res.body).sort(), [
      'has_credentials',
      'message',
      'source',
      'success',
      'wallet_address',
    ]);
    assert.equal(res.body.wallet_address, signer.address);
    const answer = JSON.stringify(res.body);
    for (const v of Object.values(sent)) assert.ok(!answer.includes(v), 'never returned');

    const check = await request(app).get('/api/sdk/wallet/credentials/check').set(auth);
    assert.deepEqual(check.body, { has_credentials: true, wallet_address: signer.address });

    const doc = await deps.models.ClobCredential.findById(`${sub}:${signer.address}`).lean();
    assert.ok(doc);
    assert.equal(doc.source, 'client');
    assert.deepEqual(Object.keys(doc.sealed).sort(), ['ct', 'dk', 'iv', 'kid', 'tag', 'v']);
    const stored = JSON.stringify(doc);
    for (const v of Object.values(sent)) assert.ok(!stored.includes(v), 'sealed at rest');

    assert.deepEqual(await clobCredentialsFor(deps, owner(sub)), {
      apiKey: sent.api_key,
      secret: sent.api_secret,
      passphrase: sent.api_passphrase,
      address: signer.address,
    });

    // Unlinking the wallet forgets its credentials.
    await request(app).post('/api/sdk/wallet/unlink').set(auth).expect(200);
    assert.equal(await clobCredentialsFor(deps, owner(sub)), null);
    assert.equal(await deps.models.ClobCredential.exists({ _id: `${sub}:${signer.address}` }), null);
  });

  it('when an unclaimed agent sends credentials, then 403 with claim_url', async () => {
    const agent = await registerAgent({ name: 'unclaimed-creds' });
    const res = await request(testContext().app)
      .post('/api/sdk/wallet/credentials')
      .set('Authorization', `Bearer ${agent.api_key}`)
      .send(creds());
    assert.equal(res.status, 403);
    assert.equal(res.body.claim_url, agent.claim_url);
  });

  it('when a credentials body is invalid, then the 422 names the fields without echoing secrets', async () => {
    const { auth } = freshUser();
    const secret = `s3cr3t-${randomBytes(16).toString('hex')}`;
    const res = await request(testContext().app)
      .post('/api/sdk/wallet/credentials')
      .set(auth)
      .send({ api_key: '', api_secret: { nested: secret }, api_passphrase: 12345 });
    assert.equal(res.status, 422);
    assert.deepEqual(res.body.detail.map((d: { loc: string[] }) => d.loc.at(-1)).sort(), [
      'api_key',
      'api_passphrase',
      'api_secret',
    ]);
    assert.ok(!JSON.stringify(res.body).includes(secret));
    assert.ok(!JSON.stringify(res.body).includes('12345'));
  });

  it('when derive-via-proxy is signed by another address than the linked wallet, then 409 wallet_mismatch and nothing is called', async () => {
    const { app } = testContext();
    const { auth } = freshUser();
    await linkWallet(app, auth, Wallet.createRandom());
    const requestsBefore = testContext().polymarket.state.requests.length;
    const h = await signClobAuth(Wallet.createRandom(), emulatorNow());
    const res = await request(app)
      .post('/api/sdk/wallet/credentials/derive-via-proxy')
      .set(auth)
      .send(proxyBody(h));
    assert.equal(res.status, 409);
    assert.equal(res.body.error_code, 'wallet_mismatch');
    assert.equal(testContext().polymarket.state.requests.length, requestsBefore);
  });

  it('when the CLOB fails, then derive-via-proxy answers a retryable 503 and stores nothing', async () => {
    const { app, deps, polymarket } = testContext();
    const { sub, auth } = freshUser();
    const signer = Wallet.createRandom();
    await linkWallet(app, auth, signer);
    await fetch(`${polymarket.adminUrl}/faults`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ mode: '500', path_prefix: '/clob/auth', count: 10 }),
    });
    const h = await signClobAuth(signer, emulatorNow());
    const res = await request(app)
      .post('/api/sdk/wallet/credentials/derive-via-proxy')
      .set(auth)
      .send(proxyBody(h));
    assert.equal(res.status, 503, JSON.stringify(res.body));
    assert.equal(res.body.error_code, 'venue_unavailable');
    assert.equal(res.body.retryable, true);
    assert.equal(await clobCredentialsFor(deps, owner(sub)), null);
  });

  it(`when derive-via-proxy is signed by the linked wallet, then the CLOB’s credentials are stored`, async () => {
    const { app, deps } = testContext();
    const { sub, auth } = freshUser();
    const signer = Wallet.createRandom();
    await linkWallet(app, auth, signer);
    const h = await signClobAuth(signer, emulatorNow());
    const res = await request(app)
      .post('/api/sdk/wallet/credentials/derive-via-proxy')
      .set(auth)
      .send(proxyBody(h));
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.equal(res.body.has_credentials, true);
    assert.equal(res.body.source, 'derived');
    const expected = await emulatorCreds(h);
    assert.ok(!JSON.stringify(res.body).includes(expected.secret));
    assert.deepEqual(await clobCredentialsFor(deps, owner(sub)), { ...expected, address: signer.address });
    const check = await request(app).get('/api/sdk/wallet/credentials/check').set(auth);
    assert.equal(check.body.has_credentials, true);
  });

  it(`when the L1 signature is wrong, then 400 clob_auth_refused with a fix`, async () => {
    const { app } = testContext();
    const { auth } = freshUser();
    const signer = Wallet.createRandom();
    await linkWallet(app, auth, signer);
    const h = await signClobAuth(signer, emulatorNow());
    const forged = { ...proxyBody(h), poly_timestamp: String(Number(h.timestamp) - 1) };
    const res = await request(app)
      .post('/api/sdk/wallet/credentials/derive-via-proxy')
      .set(auth)
      .send(forged);
    assert.equal(res.status, 400, JSON.stringify(res.body));
    assert.equal(res.body.error_code, 'clob_auth_refused');
    assert.match(res.body.fix, /ClobAuth/);
  });

  it(`when a managed wallet's credentials are derived, then they are stored sealed for its address`, async () => {
    const { app, deps } = testContext();
    const { sub, auth } = freshUser();
    await request(app).post('/api/sdk/wallet/managed').set(auth).expect(200);
    const derived = await deriveManagedClobCredentials(
      { ...deps, clock: () => new Date(testContext().polymarket.state.now()) },
      sub,
    );
    assert.ok(derived);
    assert.equal(derived.address, (await managedSigner(deps, sub))!.address);
    assert.deepEqual(await clobCredentialsFor(deps, owner(sub)), derived);
  });

  describe('secret leak check', () => {
    it('when credentials are stored and a managed wallet exists, then no collection, log line or answer holds a key, secret or passphrase in clear', async () => {
      const ctx = testContext();
      const { log, lines } = capturingLogger('trace', 'leak-check');
      const deps = { ...ctx.deps, log };
      const app = buildApp(deps, { operatorToken: ctx.operatorToken });
      const answers: string[] = [];
      const call = async (r: request.Test) => {
        const res = await r;
        answers.push(JSON.stringify(res.body));
        return res;
      };

      // A human claims an agent: that creates their managed wallet.
      const { sub, token, auth } = freshUser();
      const agent = await registerAgent({ name: 'leak-check' });
      await call(
        request(app)
          .post('/api/sdk/agents/claim')
          .set(auth)
          .set('X-Forwarded-For', randomIp())
          .send({ claim_code: agent.claim_code }),
      );
      await call(request(app).post('/api/sdk/wallet/managed').set(auth));
      const managed = await managedSigner(deps, sub);
      assert.ok(managed);
      const needles = [managed.privateKey.slice(2).toLowerCase()];

      // External wallet with client credentials, through the agent's key.
      const agentAuth = { Authorization: `Bearer ${agent.api_key}` };
      const external = Wallet.createRandom();
      await linkWallet(app, agentAuth, external, { confirm_replace_managed: true });
      needles.push(external.privateKey.slice(2).toLowerCase());
      const sent = creds();
      needles.push(sent.api_secret, sent.api_passphrase);
      await call(request(app).post('/api/sdk/wallet/credentials').set(agentAuth).send(sent));
      // A refused body carrying a secret: neither echoed nor logged.
      const refused = `refused-${randomBytes(16).toString('hex')}`;
      needles.push(refused);
      await call(
        request(app)
          .post('/api/sdk/wallet/credentials')
          .set(agentAuth)
          .send({ api_secret: refused, api_passphrase: refused }),
      );

      // Derived through the proxy (the CLOB's answer carries a secret), and for the managed key.
      const h = await signClobAuth(external, emulatorNow());
      const res = await call(
        request(app).post('/api/sdk/wallet/credentials/derive-via-proxy').set(agentAuth).send(proxyBody(h)),
      );
      assert.equal(res.status, 200, JSON.stringify(res.body));
      const fromClob = await emulatorCreds(h);
      needles.push(fromClob.secret, fromClob.passphrase);
      const viaManaged = await deriveManagedClobCredentials(
        { ...deps, clock: () => new Date(ctx.polymarket.state.now()) },
        sub,
      );
      needles.push(viaManaged!.secret, viaManaged!.passphrase);
      // Failing CLOB calls log their errors.
      const bad = { ...proxyBody(h), poly_timestamp: String(Number(h.timestamp) - 1) };
      await call(request(app).post('/api/sdk/wallet/credentials/derive-via-proxy').set(agentAuth).send(bad));
      await fetch(`${ctx.polymarket.adminUrl}/faults`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ mode: '500', path_prefix: '/clob/auth', count: 10 }),
      });
      const h2 = await signClobAuth(external, emulatorNow());
      await call(
        request(app).post('/api/sdk/wallet/credentials/derive-via-proxy').set(agentAuth).send(proxyBody(h2)),
      );
      await call(request(app).get('/api/sdk/settings').set(agentAuth));
      await call(request(app).get('/api/sdk/agents/me').set(agentAuth));
      await call(request(app).get('/api/sdk/wallet/credentials/check').set(asUser(token)));

      // The stored credentials still open (the checks below are not vacuous).
      const opened = await clobCredentialsFor(deps, owner(sub));
      assert.ok(opened);
      assert.ok(needles.includes(opened.secret));

      const dump: string[] = [];
      const db = ctx.deps.mongo.db!;
      for (const { name } of await db.listCollections().toArray()) {
        const docs = await db.collection(name).find({}).toArray();
        dump.push(`${name}: ${JSON.stringify(docs)}`);
      }
      const database = dump.join('\n').toLowerCase();
      const logged = lines.join('').toLowerCase();
      const answered = answers.join('\n').toLowerCase();
      assert.ok(
        database.includes(sub.toLowerCase()) && database.includes('clob_credentials'),
        'the dump covers the wallet data',
      );
      assert.ok(lines.length >= 10, `the log captured the requests (${lines.length} lines)`);
      for (const needle of needles) {
        const n = needle.toLowerCase();
        assert.ok(!database.includes(n), `a secret is in the database in clear (${needle.slice(0, 6)}…)`);
        assert.ok(!logged.includes(n), `a secret is in the log in clear (${needle.slice(0, 6)}…)`);
        assert.ok(!answered.includes(n), `a secret is in an answer in clear (${needle.slice(0, 6)}…)`);
      }
    });
  });
});
