import { randomUUID } from 'node:crypto';
import type { Express } from 'express';
import request from 'supertest';
import type { MarketRecord } from '../../shared/domains/markets/market.model.js';
import { SIM_MAX_TRADE, stateAt } from '../../shared/domains/markets/lmsr.js';
import { testContext } from './context.js';
import { api, registerAgent, type RegisteredAgent } from './http.js';

/** A fresh sim market of the test's own (so concurrent tests never share a book). */
export async function makeMarket(
  overrides: Partial<MarketRecord> & { p0?: number; b?: number } = {},
): Promise<MarketRecord> {
  const { p0 = 0.5, b = 2241, ...rest } = overrides;
  const s = stateAt(b, p0);
  const id = randomUUID();
  const doc = await testContext().deps.models.Market.create({
    _id: id,
    question: `Test market ${id.slice(0, 8)}?`,
    status: 'active',
    importSource: 'sim',
    category: 'test',
    tags: ['test'],
    resolvesAt: new Date(Date.now() + 7 * 24 * 3600_000),
    resolutionCriteria: 'Resolved by the test.',
    currentPrice: p0,
    book: { b, q0Yes: s.qYes, q0No: s.qNo, yesMicro: 0, noMicro: 0, version: 0 },
    ...rest,
  });
  return doc.toObject() as MarketRecord;
}

/** `POST /api/sdk/trade` as the agent, to the test run's app or to `app` (one built with other deps). */
export async function trade(agent: RegisteredAgent, body: Record<string, unknown>, app?: Express) {
  return (app ? request(app) : api())
    .post('/api/sdk/trade')
    .set('Authorization', `Bearer ${agent.api_key}`)
    .send(body);
}

/**
 * A sim buy recorded `pending` as the API records it before queueing, without a job: for tests that
 * hand it to a worker's code (or the reconcile job) themselves. `fields` add to or replace the
 * defaults (a 10 $SIM buy of YES; `_id` too). Its id.
 */
export async function recordPendingBuy(
  agentId: string,
  marketId: string,
  fields: Record<string, unknown> = {},
) {
  const id = (fields._id as string | undefined) ?? randomUUID();
  await testContext().deps.models.Trade.create({
    _id: id,
    agentId,
    marketId,
    venue: 'sim',
    side: 'yes',
    action: 'buy',
    amountMicro: 10_000_000,
    sharesMicro: 0,
    orderType: 'FAK',
    status: 'pending',
    ...fields,
  });
  return id;
}

export async function agentWithMarket(p0 = 0.5) {
  const [agent, market] = await Promise.all([registerAgent(), makeMarket({ p0 })]);
  return { agent, market };
}

/**
 * Spends `total` $SIM of the agent's balance in buys at the sim cap (500), each on a fresh market so
 * that no cooldown applies; for tests that need an agent with little cash left.
 */
export async function spend(agent: RegisteredAgent, total: number): Promise<void> {
  for (let left = total; left > 0; left -= SIM_MAX_TRADE) {
    const market = await makeMarket();
    const res = await trade(agent, {
      market_id: market._id,
      side: 'yes',
      amount: Math.min(SIM_MAX_TRADE, left),
    });
    if (res.body.success !== true) throw new Error(`spend failed: ${JSON.stringify(res.body)}`);
  }
}

/** A skill of the registry's, approved, that any agent's automaton can play (its slug). */
export async function approvedSkill(name: string): Promise<string> {
  const slug = `${name}-${randomUUID().slice(0, 8)}`;
  await testContext().deps.models.Skill.create({
    _id: slug,
    name,
    description: `${name} skill`,
    registryUrl: `https://clawhub.ai/skills/${slug}`,
    status: 'approved',
    submittedBy: 'test',
  });
  return slug;
}
