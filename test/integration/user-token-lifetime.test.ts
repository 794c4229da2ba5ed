import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import jwt from 'jsonwebtoken';
import request from 'supertest';
import { buildApp } from '../../api/app.js';
import { loadEnv } from '../../shared/infra/config/env.js';
import { jwtSecret } from '../../shared/infra/jwt.js';
import { testContext } from '../support/context.js';
import { api } from '../support/http.js';
import { asUser } from '../support/users.js';

const DAY = 24 * 3600;
const now = () => Math.floor(Date.now() / 1000);
const signed = (claims: Record<string, unknown>) =>
  jwt.sign({ sub: `u-${randomUUID()}`, ...claims }, jwtSecret(testContext().env), { algorithm: 'HS256' });

describe('user token lifetime (JWT_MAX_LIFETIME) #integration', () => {
  it('when a user token lives 31 years, then 401 whose fix names the maximum lifetime', async () => {
    const token = signed({ iat: now(), exp: now() + 31 * 365 * DAY });
    const res = await api().get('/api/sdk/agents').set(asUser(token));
    assert.equal(res.status, 401, JSON.stringify(res.body));
    assert.equal(res.body.detail, 'Missing or invalid Authorization header');
    assert.match(res.body.fix, /30 days/);
    assert.match(res.body.fix, /JWT_MAX_LIFETIME/);
  });

  it('when a token has no iat but expires in 40 days, then it is refused too', async () => {
    const token = signed({ exp: now() + 40 * DAY });
    assert.equal((await api().get('/api/sdk/agents').set(asUser(token))).status, 401);
  });

  it('when a token claims a recent iat yet expires years ahead, then its remaining life counts (401)', async () => {
    const token = signed({ iat: now() + 10 * 365 * DAY, exp: now() + 10 * 365 * DAY + 60 });
    assert.equal((await api().get('/api/sdk/agents').set(asUser(token))).status, 401);
  });

  it('when a token lives 29 days, then it is accepted', async () => {
    const token = signed({ iat: now(), exp: now() + 29 * DAY });
    assert.equal((await api().get('/api/sdk/agents').set(asUser(token))).status, 200);
  });

  it('when JWT_MAX_LIFETIME is 1h, then a 2-hour token is refused and a 50-minute one accepted', async () => {
    const ctx = testContext();
    const env = { ...ctx.env, JWT_MAX_LIFETIME: loadEnv({ JWT_MAX_LIFETIME: '1h' }).JWT_MAX_LIFETIME };
    const app = buildApp({ ...ctx.deps, env }, { operatorToken: ctx.operatorToken });
    const long = await request(app)
      .get('/api/sdk/agents')
      .set(asUser(signed({ iat: now(), exp: now() + 7200 })));
    assert.equal(long.status, 401);
    assert.match(long.body.fix, /1 hour/);
    const short = await request(app)
      .get('/api/sdk/agents')
      .set(asUser(signed({ iat: now(), exp: now() + 3000 })));
    assert.equal(short.status, 200);
  });

  it('when JWT_MAX_LIFETIME is not a duration, then the configuration is refused', () => {
    assert.throws(() => loadEnv({ JWT_MAX_LIFETIME: 'forever' }), /JWT_MAX_LIFETIME/);
    assert.equal(loadEnv({}).JWT_MAX_LIFETIME, 30 * DAY);
    assert.equal(loadEnv({ JWT_MAX_LIFETIME: '900' }).JWT_MAX_LIFETIME, 900);
  });
});
