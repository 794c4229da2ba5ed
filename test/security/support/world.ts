import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import jwt from 'jsonwebtoken';
import request from 'supertest';
import type { Express } from 'express';
import { Wallet } from 'ethers';
import { buildApp } from '../../../api/app.js';
import { jwtSecret } from '../../../shared/infra/jwt.js';
import { FAILED_SIGN_INS_PER_WINDOW } from '../../../shared/infra/operator-lockout.js';
import { testContext } from '../../support/context.js';
import { makeMarket } from '../../support/factories.js';
import { randomIp, registerAgent, type RegisteredAgent } from '../../support/http.js';
import { linkExternalWallet } from '../../support/polymarket-traders.js';
import { asUser, claim, tokenFor } from '../../support/users.js';
import type { Principal } from './route-table.js';
import { seedVictim, type VictimValues } from './victim.js';
import { refreshCopyLeaders } from '../../../shared/domains/copytrading/copy-leaders/refresh-copy-leaders.js';

/** A human with one claimed agent: the attacker (A) or the victim (B). */
export interface Party {
  userId: string;
  userToken: string;
  agent: RegisteredAgent;
}

/**
 * The cast of the attack suite: attacker A and victim B (each a human with a claimed agent), an
 * unclaimed agent C of nobody's, B's records of every kind a tenant owns (victim.ts), an agent B
 * released (its key is another tenant's now), a sim market, and a canary HTTP server on loopback
 * that counts every request an SSRF payload makes the service send.
 */
export interface World {
  app: Express;
  a: Party;
  b: Party;
  /** A third human with a claimed agent, for calls that may change or release their own caller. */
  d: Party;
  c: RegisteredAgent;
  /** An unclaimed agent that the claim route's cases may claim (C stays a victim). */
  spare: RegisteredAgent;
  marketId: string;
  /** B's owned ids by parameter name (webhook_id, alert_id, order_id, quote_id, agent_id). */
  victimIds: Record<string, string>;
  /** B's ids, the public values that aim at its data (markets, addresses, skill), and planted values. */
  victim: VictimValues;
  /** An agent B claimed, traded with and released: its key must read nothing of B's any more. */
  released: RegisteredAgent;
  canary: { port: number; hits: () => number; close: () => Promise<void> };
  /** A client address locked out by wrong tokens on the console's sign-in form. */
  lockedOutIp: string;
  credential: (who: Principal, party?: Party) => string | undefined;
}

async function party(tag: string): Promise<Party> {
  const userId = `sec-${tag}-${randomBytes(4).toString('hex')}`;
  const userToken = tokenFor(userId);
  const agent = await registerAgent({ name: `security-${tag}-${randomBytes(3).toString('hex')}` });
  const res = await claim(userToken, agent.claim_code);
  if (res.status !== 200) throw new Error(`claim failed: ${res.status} ${JSON.stringify(res.body)}`);
  return { userId, userToken, agent };
}

async function startCanary(): Promise<World['canary']> {
  let hits = 0;
  const server: Server = createServer((req, res) => {
    hits += 1;
    res.end('canary');
  });
  // '::' takes IPv6 and IPv4-mapped connections alike, so every loopback spelling lands here.
  await new Promise<void>((r) => server.listen(0, '::', r));
  return {
    port: (server.address() as AddressInfo).port,
    hits: () => hits,
    close: () => new Promise((r) => server.close(() => r())),
  };
}

export async function createWorld(): Promise<World> {
  const ctx = testContext();
  // The suite's own app: like production, webhooks to loopback are refused (the shared test app
  // allows them for its webhook receivers); everything else is the shared deps.
  const app = buildApp(
    { ...ctx.deps, env: { ...ctx.env, WEBHOOK_ALLOW_LOOPBACK: false } },
    { operatorToken: ctx.operatorToken },
  );
  const [a, b, d, c, spare, market] = await Promise.all([
    party('a'),
    party('b'),
    party('d'),
    registerAgent({ name: `security-c-${randomBytes(3).toString('hex')}` }),
    registerAgent(),
    makeMarket(),
  ]);
  // The attacker has a linked wallet too, so that the wallet routes answer it instead of asking for one.
  await linkExternalWallet(a.agent, Wallet.createRandom() as unknown as Wallet);
  // Released before B's records are seeded, so that nothing of its own was made under B's settings.
  const released = await releasedAgentOf(b, market._id);
  const victim = await seedVictim(b, market._id);
  // The copy leaders were computed once (before that their routes answer 503 not ready).
  await refreshCopyLeaders(ctx.deps);
  const canary = await startCanary();
  const operatorToken = ctx.operatorToken;
  const lockedOutIp = randomIp();
  for (let i = 0; i < FAILED_SIGN_INS_PER_WINDOW; i++)
    await request(app)
      .post('/admin/login')
      .set('X-Forwarded-For', lockedOutIp)
      .type('form')
      .send({ token: `wrong-${i}`, name: 'attacker' });
  return {
    app,
    a,
    b,
    d,
    c,
    spare,
    marketId: market._id,
    victimIds: victim.owned,
    victim,
    released,
    canary,
    lockedOutIp,
    credential: (who, p = a) =>
      who === 'agent'
        ? p.agent.api_key
        : who === 'user'
          ? p.userToken
          : who === 'operator'
            ? operatorToken
            : undefined,
  };
}

/** An agent `owner` claimed, traded with on `marketId` and released again. */
async function releasedAgentOf(owner: Party, marketId: string): Promise<RegisteredAgent> {
  const agent = await registerAgent({ name: `security-r-${randomBytes(3).toString('hex')}` });
  const claimed = await claim(owner.userToken, agent.claim_code);
  if (claimed.status !== 200)
    throw new Error(`claim failed: ${claimed.status} ${JSON.stringify(claimed.body)}`);
  const ctx = testContext();
  const bought = await request(ctx.app)
    .post('/api/sdk/trade')
    .set('Authorization', `Bearer ${agent.api_key}`)
    .send({ market_id: marketId, side: 'no', amount: 3 });
  if (bought.body.success !== true)
    throw new Error(`released agent's buy failed: ${JSON.stringify(bought.body)}`);
  const res = await request(ctx.app)
    .post(`/api/sdk/agents/${agent.agent_id}/release`)
    .set(asUser(owner.userToken))
    .set('X-Forwarded-For', randomIp());
  if (res.status !== 200) throw new Error(`release failed: ${res.status} ${JSON.stringify(res.body)}`);
  return agent;
}

/** Tokens that must never authenticate anybody (full form of the broken-authentication cases). */
export function forgedCredentials(world: World): Record<string, string> {
  const secret = jwtSecret(testContext().env);
  const sub = world.a.userId;
  const header = Buffer.from(JSON.stringify({ alg: 'none', typ: 'JWT' })).toString('base64url');
  const payload = Buffer.from(JSON.stringify({ sub, exp: Math.floor(Date.now() / 1000) + 600 })).toString(
    'base64url',
  );
  return {
    'unknown agent key': `sk_live_${randomBytes(24).toString('base64url')}`,
    'agent key with a changed character':
      world.a.agent.api_key.slice(0, -1) + (world.a.agent.api_key.endsWith('A') ? 'B' : 'A'),
    'JWT signed with another secret': jwt.sign({ sub }, 'not-the-secret', {
      algorithm: 'HS256',
      expiresIn: 600,
    }),
    'JWT with alg none': `${header}.${payload}.`,
    'expired JWT': jwt.sign({ sub, exp: Math.floor(Date.now() / 1000) - 60 }, secret, { algorithm: 'HS256' }),
    'wrong operator token': randomBytes(24).toString('base64url'),
  };
}

export { asUser };
