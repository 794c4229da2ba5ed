import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { remarkLeaderboard, sdkAgentsBoard } from '../../shared/domains/reads/leaderboard.js';
import { remarkVenueBoards, venueBoard } from '../../shared/domains/reads/venue-boards.js';
import { testContext } from '../support/context.js';
import { makeMarket, trade } from '../support/factories.js';
import { api, randomIp, type RegisteredAgent } from '../support/http.js';
import { asUser, claim, tokenFor } from '../support/users.js';

interface Entry {
  id: string;
  total_pnl: number;
}

const registerFrom = async (ip: string, name: string): Promise<RegisteredAgent> => {
  const res = await api().post('/api/sdk/agents/register').set('X-Forwarded-For', ip).send({ name });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return res.body as RegisteredAgent;
};

/** The agent's entry on a board, paging through it whole (a full run has many traders). */
async function entryOn(
  board: (limit: number, offset: number) => Promise<{ entries: Entry[] }>,
  agentId: string,
): Promise<Entry | undefined> {
  for (let offset = 0; ; offset += 500) {
    const { entries } = await board(500, offset);
    const hit = entries.find((e) => e.id === agentId);
    if (hit || entries.length < 500) return hit;
  }
}

async function boards(agentId: string) {
  const { models } = testContext().deps;
  await remarkLeaderboard(models, new Date());
  await remarkVenueBoards(models, new Date());
  return {
    main: await entryOn((l, o) => sdkAgentsBoard(models, l, o), agentId),
    sim: await entryOn((l, o) => venueBoard(models, 'sim', 'all', l, o), agentId),
  };
}

/**
 * The farm of issue 16, finding 9: the seller buys, a second agent of the same hand pushes the
 * price up, the seller sells into it and books the pusher's money as its own profit.
 */
async function farm(seller: RegisteredAgent, pusher: RegisteredAgent) {
  const market = await makeMarket({ p0: 0.5, b: 300 });
  const bought = await trade(seller, { market_id: market._id, side: 'yes', amount: 100 });
  assert.equal(bought.body.success, true, JSON.stringify(bought.body));
  for (let i = 0; i < 2; i++) {
    const push = await trade(pusher, { market_id: market._id, side: 'yes', amount: 200 });
    assert.equal(push.body.success, true, JSON.stringify(push.body));
  }
  const sold = await trade(seller, {
    market_id: market._id,
    side: 'yes',
    action: 'sell',
    shares: bought.body.shares_bought,
  });
  assert.equal(sold.body.success, true, JSON.stringify(sold.body));
  return market;
}

describe('leaderboard farming: linked agents trading one market do not rank on it #integration', () => {
  it('when two agents registered from one address farm a market, then the seller’s profit there is not on the public boards', async () => {
    const ip = randomIp();
    const [seller, pusher] = [await registerFrom(ip, 'farm-seller'), await registerFrom(ip, 'farm-pusher')];
    await farm(seller, pusher);
    const realized = (await testContext().deps.models.Agent.findById(seller.agent_id).lean())!
      .realizedPnlMicro;
    assert.ok(realized > 10_000_000, `the farm worked: +${realized / 1e6} $SIM realised`);
    const { main, sim } = await boards(seller.agent_id);
    assert.ok(main, 'the seller is still listed (it traded)');
    assert.equal(main.total_pnl, 0, 'the main board leaves the farmed market out');
    assert.equal(sim?.total_pnl ?? 0, 0, 'so does the sim venue board');
    assert.ok((main as Entry & { unranked_pnl: number }).unranked_pnl > 10, 'and shows what it left out');
    const pusherMain = (await boards(pusher.agent_id)).main;
    assert.equal(pusherMain?.total_pnl, 0, 'and the pusher’s side of it');
  });

  it('when two agents of one owner farm a market from different addresses, then the profit is not on the public boards, and the owner still sees it', async () => {
    const [seller, pusher] = [
      await registerFrom(randomIp(), 'own-seller'),
      await registerFrom(randomIp(), 'own-pusher'),
    ];
    const user = tokenFor(`u-${randomUUID()}`);
    for (const a of [seller, pusher]) assert.equal((await claim(user, a.claim_code)).status, 200);
    await farm(seller, pusher);
    const { main } = await boards(seller.agent_id);
    assert.equal(main?.total_pnl, 0);
    const mine = await api().get('/api/sdk/agents').set(asUser(user)).expect(200);
    const listed = mine.body.agents.find((a: { agent_id: string }) => a.agent_id === seller.agent_id);
    assert.ok(listed.total_pnl > 10, `the owner's own list shows the whole P&L: ${listed.total_pnl}`);
  });

  it('when unrelated agents trade the same market, or linked agents trade it days apart, then every profit ranks', async () => {
    const [seller, pusher] = [
      await registerFrom(randomIp(), 'free-seller'),
      await registerFrom(randomIp(), 'free-pusher'),
    ];
    await farm(seller, pusher);
    assert.ok((await boards(seller.agent_id)).main!.total_pnl > 10, 'unrelated agents: ranked');

    const ip = randomIp();
    const [early, late] = [await registerFrom(ip, 'early'), await registerFrom(ip, 'late')];
    const market = await farm(early, late);
    const { models, env } = testContext().deps;
    const before = new Date(Date.now() - (env.LEADERBOARD_LINK_WINDOW_HOURS + 24) * 3600_000);
    await models.Position.collection.updateMany({ agentId: late.agent_id, marketId: market._id } as never, {
      $set: { openedAt: before, lastTradeAt: before },
    });
    assert.ok((await boards(early.agent_id)).main!.total_pnl > 10, 'outside the window: ranked');

    // Loopback is every local client of `npm start` (or a proxy without TRUST_PROXY): it links nobody.
    const local = async (name: string) =>
      (await api().post('/api/sdk/agents/register').send({ name }).expect(200)).body as RegisteredAgent;
    const [localSeller, localPusher] = [await local('local-seller'), await local('local-pusher')];
    await farm(localSeller, localPusher);
    assert.ok((await boards(localSeller.agent_id)).main!.total_pnl > 10, 'loopback: ranked');
  });
});
