import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { ENDPOINTS } from '../../api/endpoints/index.js';
import type { EndpointSpec } from '../../api/endpoints/endpoint.js';
import { releasedAgentMayCall } from '../../api/http/released-agent.js';
import { testContext } from '../support/context.js';
import { refreshCopyLeaders } from '../../shared/domains/copytrading/copy-leaders/refresh-copy-leaders.js';
import {
  approvalTransactions,
  REQUIRED_APPROVALS,
} from '../../shared/domains/venues/polymarket/onchain/approval-transactions.js';
import { externalVenueIds } from '../../shared/domains/venues/venue-id.js';
import { makeMarket, trade } from '../support/factories.js';
import { api, registerAgent, type RegisteredAgent } from '../support/http.js';
import { relayTx, signAsClient } from '../support/polygon-client.js';
import {
  asAgent,
  claimedAgent,
  externalTrader,
  importedMarket,
  managedTrader,
  ownerIdOf,
  polymarketTrade,
} from '../support/polymarket-traders.js';
import { asUser, claim } from '../support/users.js';
import { readingEventStreams } from '../support/event-stream.js';
import { polymarketAdmin } from '../support/venue-emulators.js';

/** An agent its human claimed, traded with, then released. */
async function releasedAgent() {
  const { agent, token } = await claimedAgent();
  const market = await makeMarket();
  const bought = await trade(agent, { market_id: market._id, side: 'yes', amount: 5 });
  assert.equal(bought.body.success, true, JSON.stringify(bought.body));
  await api().post(`/api/sdk/agents/${agent.agent_id}/release`).set(asUser(token)).expect(200);
  return { agent, token, market };
}

/** A concrete path for a template: ids are well-formed but belong to nobody. */
const concretePath = (template: string) =>
  template.replace(/\{([^}]+)\}/g, (_m, name: string) =>
    name === 'wallet_address' || name === 'address' ? `0x${'ab'.repeat(20)}` : randomUUID(),
  );

const refusedAsReleased = (res: { status: number; body: { error_code?: string } }) =>
  res.status === 403 && res.body.error_code === 'agent_suspended';

describe('a released agent’s key #integration', () => {
  it('when a released agent renames itself, then 403 agent_suspended and the name stays', async () => {
    const { agent } = await releasedAgent();
    const res = await api()
      .patch('/api/sdk/agents/me/settings')
      .set(asAgent(agent))
      .send({ name: 'renamed' });
    assert.equal(res.status, 403, JSON.stringify(res.body));
    assert.equal(res.body.error_code, 'agent_suspended');
    assert.match(res.body.fix, /reactivate/);
    const stored = await testContext().deps.models.Agent.findById(agent.agent_id).lean();
    assert.notEqual(stored!.name, 'renamed');
  });

  for (const path of ['/api/sdk/settings', '/api/sdk/user/settings']) {
    it(`when a released agent reads its former owner’s settings (GET ${path}), then 403 agent_suspended`, async () => {
      const { agent } = await releasedAgent();
      const res = await api().get(path).set(asAgent(agent));
      assert.equal(res.status, 403, JSON.stringify(res.body));
      assert.equal(res.body.error_code, 'agent_suspended');
      assert.equal(res.body.max_trades_per_day, undefined);
    });
  }

  it('when a released agent reads its own data, then it is answered (agents/me, trades, positions, portfolio, briefing, cooldowns)', async () => {
    const { agent } = await releasedAgent();
    for (const path of [
      '/api/sdk/agents/me',
      '/api/sdk/trades',
      '/api/sdk/positions',
      '/api/sdk/portfolio',
      '/api/sdk/briefing',
      `/api/sdk/agents/${agent.agent_id}/cooldowns`,
    ]) {
      const res = await api().get(path).set(asAgent(agent));
      assert.equal(res.status, 200, `${path}: ${JSON.stringify(res.body)}`);
    }
    const me = await api().get('/api/sdk/agents/me').set(asAgent(agent)).expect(200);
    assert.equal(me.body.status, 'suspended');
  });

  it('when a released agent trades, then the refusal is the business answer (200, success false)', async () => {
    const { agent, market } = await releasedAgent();
    const res = await trade(agent, { market_id: market._id, side: 'yes', amount: 1 });
    assert.equal(res.status, 200);
    assert.equal(res.body.success, false);
    assert.equal(res.body.error_code, 'agent_suspended');
  });

  it('when its human reactivates it, then the key may change its own settings again', async () => {
    const { agent, token } = await releasedAgent();
    await api().post(`/api/sdk/agents/${agent.agent_id}/reactivate`).set(asUser(token)).expect(200);
    await api().patch('/api/sdk/agents/me/settings').set(asAgent(agent)).send({ name: 'back' }).expect(200);
    await api().get('/api/sdk/settings').set(asAgent(agent)).expect(200);
  });

  describe('every route that takes an agent key (generated from the endpoint table)', () => {
    let agent: RegisteredAgent;
    before(async () => {
      ({ agent } = await releasedAgent());
    });

    const agentRoutes = (Object.entries(ENDPOINTS) as [string, EndpointSpec][]).filter(([, spec]) =>
      ['agent', 'agent-optional', 'agent-or-user'].includes(spec.auth),
    );
    for (const [name, spec] of agentRoutes) {
      const refused = !releasedAgentMayCall(spec);
      it(`${spec.method.toUpperCase()} ${spec.path} (${name}): ${refused ? 'refused with 403 agent_suspended' : 'not refused for being released'}`, async () => {
        const res = await readingEventStreams(api()[spec.method](concretePath(spec.path)), spec)
          .set(asAgent(agent))
          .send({});
        assert.equal(
          refusedAsReleased(res),
          refused,
          `${res.status} ${JSON.stringify(res.body).slice(0, 300)}`,
        );
      });
    }

    it('the routes a released key may still call are reads or answer for themselves', () => {
      for (const [name, spec] of agentRoutes) {
        if (!releasedAgentMayCall(spec)) continue;
        assert.ok(
          (spec.method === 'get' && spec.auth !== 'agent-or-user') || spec.releasedAgent === 'answers-itself',
          name,
        );
      }
    });
  });
});

/**
 * Everything of the owner's account a released key must not see: the human's id, their wallets'
 * addresses (the external one in use and the managed one it replaced), their other agent (id, name,
 * key prefix) and the transaction their agent relayed.
 */
interface OwnerData {
  userId: string;
  strings: string[];
}

/** A human with a funded external wallet, a relayed transaction and a second agent, whose first agent they then release. */
async function releasedFromRichOwner() {
  const owner = await externalTrader();
  const { agent, token, wallet } = owner;
  await polymarketAdmin('POST', `/polygon/accounts/${wallet.address}/fund`, { pol: 1 });
  const approval = REQUIRED_APPROVALS.find((a) => a.token === 'pusd')!;
  const [unsigned] = approvalTransactions(wallet.address, [approval.key]);
  const relayed = await relayTx(asAgent(agent), await signAsClient(asAgent(agent), wallet, unsigned!)).expect(
    200,
  );
  assert.equal(relayed.body.success, true, JSON.stringify(relayed.body));
  const second = await registerAgent({ name: `second-${randomUUID().slice(0, 8)}` });
  await claim(token, second.claim_code).expect(200);

  const { models } = testContext().deps;
  const userId = await ownerIdOf(agent);
  const stored = await models.Wallet.findById(userId).lean();
  const secondRecord = await models.Agent.findById(second.agent_id).lean();
  const ownerData: OwnerData = {
    userId,
    strings: [
      userId,
      wallet.address,
      stored!.managed!.address,
      second.agent_id,
      secondRecord!.name,
      secondRecord!.keyPrefix,
      relayed.body.tx_hash as string,
    ],
  };
  // The owner's own view has all of it (so its absence below is not an accident of the setup).
  const fleet = await api().get('/api/sdk/fleet/summary').set(asAgent(agent)).expect(200);
  assert.deepEqual(
    fleet.body.agents.map((a: { agent_id: string }) => a.agent_id).sort(),
    [agent.agent_id, second.agent_id].sort(),
  );
  const broadcasts = await api().get('/api/sdk/wallet/broadcasts').set(asAgent(agent)).expect(200);
  assert.equal(broadcasts.body.broadcasts[0].tx_hash, relayed.body.tx_hash);

  await api().post(`/api/sdk/agents/${agent.agent_id}/release`).set(asUser(token)).expect(200);
  return { agent, ownerData };
}

/** The owner's data found in an answer (case-insensitive: addresses are spelled either way). */
const leaked = (body: unknown, owner: OwnerData) => {
  const text = (typeof body === 'string' ? body : JSON.stringify(body)).toLowerCase();
  return owner.strings.filter((s) => text.includes(s.toLowerCase()));
};

describe('a released agent’s key reads none of its former owner’s account #integration', () => {
  let released: RegisteredAgent;
  let neverClaimed: RegisteredAgent;
  let ownerData: OwnerData;
  let market: { _id: string };
  before(async () => {
    ({ agent: released, ownerData } = await releasedFromRichOwner());
    neverClaimed = await registerAgent();
    market = await makeMarket();
    // The copy leaders answer 503 "not ready" until the daily refresh has run once: run it, so that
    // every route below answers what it would on a running service.
    await refreshCopyLeaders(testContext().deps);
  });

  const get = (agent: RegisteredAgent, path: string) => api().get(path).set(asAgent(agent));

  it('when it reads the fleet summary, then it sees itself alone, as a never-claimed agent does', async () => {
    const [mine, theirs] = await Promise.all([
      get(released, '/api/sdk/fleet/summary').expect(200),
      get(neverClaimed, '/api/sdk/fleet/summary').expect(200),
    ]);
    assert.deepEqual(leaked(mine.body, ownerData), []);
    assert.deepEqual(
      mine.body.agents.map((a: { agent_id: string }) => a.agent_id),
      [released.agent_id],
    );
    assert.equal(mine.body.owner_id, theirs.body.owner_id);
    assert.equal(mine.body.tier, theirs.body.tier);
  });

  it('when it lists relayed transactions, then it gets none, as a never-claimed agent does', async () => {
    const [mine, theirs] = await Promise.all([
      get(released, '/api/sdk/wallet/broadcasts').expect(200),
      get(neverClaimed, '/api/sdk/wallet/broadcasts').expect(200),
    ]);
    assert.deepEqual(mine.body, theirs.body);
    assert.deepEqual(mine.body.broadcasts, []);
  });

  it('when it reads the portfolio and the briefing, then no wallet and no pUSD of the owner, as a never-claimed agent', async () => {
    for (const path of ['/api/sdk/portfolio', '/api/sdk/portfolio?venue=polymarket', '/api/sdk/briefing']) {
      const [mine, theirs] = await Promise.all([
        get(released, path).expect(200),
        get(neverClaimed, path).expect(200),
      ]);
      assert.deepEqual(leaked(mine.body, ownerData), [], path);
      assert.equal(mine.body.balance_usdc, theirs.body.balance_usdc, path);
      const venues = (b: Record<string, unknown>) =>
        (b.venues ?? b) as Record<string, Record<string, unknown> | null>;
      for (const v of externalVenueIds()) {
        const [m, t] = [venues(mine.body)[v], venues(theirs.body)[v]];
        assert.deepEqual(
          m ? { wallet: m.wallet_address, balance: m.balance } : null,
          t ? { wallet: t.wallet_address, balance: t.balance } : null,
          `${path} ${v}`,
        );
      }
    }
  });

  it('when it reads agents/me, then the account fields are a never-claimed agent’s (no wallet, free tier, no owner id)', async () => {
    const [mine, theirs] = await Promise.all([
      get(released, '/api/sdk/agents/me?include=pnl').expect(200),
      get(neverClaimed, '/api/sdk/agents/me?include=pnl').expect(200),
    ]);
    assert.deepEqual(leaked(mine.body, ownerData), []);
    const account = (b: Record<string, unknown>) => ({
      claimed_by: b.claimed_by,
      wallet_address: b.wallet_address,
      deposit_wallet_address: b.deposit_wallet_address,
      wallet_ownership: b.wallet_ownership,
      real_trading_enabled: b.real_trading_enabled,
      rate_limits: b.rate_limits,
    });
    assert.deepEqual(account(mine.body), account(theirs.body));
    assert.equal(mine.body.status, 'suspended');
  });

  describe('every route its key may still read (generated from the endpoint table)', () => {
    const readable = (Object.entries(ENDPOINTS) as [string, EndpointSpec][]).filter(
      ([, spec]) =>
        spec.method === 'get' &&
        ['agent', 'agent-optional', 'agent-or-user'].includes(spec.auth) &&
        releasedAgentMayCall(spec),
    );
    for (const [name, spec] of readable) {
      it(`GET ${spec.path} (${name}) answers nothing of the former owner`, async () => {
        const path = spec.path.replace(/\{([^}]+)\}/g, (_m, param: string) =>
          param === 'agent_id'
            ? released.agent_id
            : param === 'market_id'
              ? market._id
              : param === 'wallet_address' || param === 'address'
                ? `0x${'ab'.repeat(20)}`
                : randomUUID(),
        );
        const res = await readingEventStreams(get(released, path), spec);
        assert.ok(res.status < 500, `${res.status} ${JSON.stringify(res.body).slice(0, 300)}`);
        assert.deepEqual(leaked(res.text, ownerData), [], res.text.slice(0, 500));
      });
    }
  });
});

describe('a released agent’s key on a real venue #integration', () => {
  it('when it buys on Polymarket, then the refusal is agent_suspended and no order leaves its former owner’s wallet', async () => {
    const { agent, token, address } = await managedTrader();
    const m = await importedMarket(agent);
    await api().post(`/api/sdk/agents/${agent.agent_id}/release`).set(asUser(token)).expect(200);
    const res = await polymarketTrade(agent, { market_id: m.marketId, side: 'yes', amount: 6 }).expect(200);
    assert.equal(res.body.success, false, JSON.stringify(res.body));
    assert.equal(res.body.error_code, 'agent_suspended', JSON.stringify(res.body));
    assert.deepEqual(await polymarketAdmin<unknown[]>('GET', `/clob/orders?owner=${address}`), []);
  });
});
