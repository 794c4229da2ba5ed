import assert from 'node:assert/strict';
import { randomBytes, randomUUID } from 'node:crypto';
import { testContext } from '../support/context.js';
import { makeMarket } from '../support/factories.js';
import { randomIp } from '../support/http.js';
import { assertAgentConserved, assertBookMatchesFills } from '../support/invariants.js';
import {
  deploymentEnv,
  startSplitDeployment,
  stopRoleProcess,
  type RoleProcess,
} from '../support/role-processes.js';
import { tokenFor } from '../support/users.js';

interface Registered {
  agent_id: string;
  api_key: string;
  claim_code: string;
}
type Body = Record<string, unknown> & {
  success?: boolean;
  trade_id?: string;
  error_code?: string;
  retryable?: boolean;
};

async function call(
  base: string,
  method: string,
  path: string,
  bearer: string | null,
  body?: unknown,
): Promise<{ status: number; body: Body }> {
  const res = await fetch(`${base}${path}`, {
    method,
    headers: {
      'content-type': 'application/json',
      'x-forwarded-for': randomIp(),
      ...(bearer ? { authorization: `Bearer ${bearer}` } : {}),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as Body };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Issue 27, item 5: the compose topology as separate OS processes on one Redis and one database:
 * two API processes, two worker processes (every queue, as compose's `workers` service with its two
 * replicas) and two jobs processes (a second scheduler, see scheduler-replicas.test.ts). The trade
 * tests' core flows go through both APIs and must hold the same invariants as on one process.
 * The processes have a QUEUE_PREFIX of their own, so the test run's in-process workers take none of
 * their jobs: every trade here is executed by the worker processes.
 */
describe('roles split across processes (2 APIs, 2 workers, 2 jobs) #integration', function () {
  this.timeout(240_000);
  let apis: string[] = [];
  let procs: RoleProcess[] = [];
  const agents: Registered[] = [];
  const marketIds = new Set<string>();

  before(async function () {
    this.timeout(180_000);
    const prefix = `${testContext().env.QUEUE_PREFIX}-split-${randomBytes(2).toString('hex')}`;
    // A long local cache: a stale copy would show; only the invalidation message can drop it.
    const env = deploymentEnv(prefix, { LOCAL_CACHE_SECONDS: '60' });
    const deployment = await startSplitDeployment({ apis: 2, workers: 2, jobs: 2 }, env);
    procs = deployment.all;
    apis = deployment.apis.map((p) => p.url);
  });

  after(async function () {
    this.timeout(60_000);
    const codes = await Promise.all(procs.map((p) => stopRoleProcess(p)));
    // Every process stops gracefully on SIGTERM (exit 0), as compose's `stop` expects.
    assert.deepEqual(
      codes,
      procs.map(() => 0),
      procs.map((p) => `${p.role}: ${p.output().slice(-500)}`).join('\n'),
    );
    for (const a of agents) await assertAgentConserved(a.agent_id);
    for (const m of marketIds) await assertBookMatchesFills(m);
  });

  const register = async (base = apis[0]!) => {
    const res = await call(base, 'POST', '/api/sdk/agents/register', null, {
      name: `split-${agents.length}`,
    });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    const agent = res.body as unknown as Registered;
    agents.push(agent);
    return agent;
  };
  const market = async () => {
    const m = await makeMarket();
    marketIds.add(m._id);
    return m._id;
  };
  const trade = (base: string, agent: Registered, body: Record<string, unknown>) =>
    call(base, 'POST', '/api/sdk/trade', agent.api_key, body);

  it('when an agent buys on one API process and sells on the other, then both fill through the worker processes and the books and balances conserve', async () => {
    const [a, b] = apis as [string, string];
    const agent = await register(a);
    const m = await market();
    const buy = await trade(a, agent, { market_id: m, side: 'yes', amount: 25 });
    assert.equal(buy.body.success, true, JSON.stringify(buy.body));
    assert.equal(buy.body.fill_status, 'filled');
    const sell = await trade(b, agent, {
      market_id: m,
      side: 'yes',
      action: 'sell',
      shares: buy.body.shares_bought,
    });
    assert.equal(sell.body.success, true, JSON.stringify(sell.body));
    assert.equal(sell.body.shares_sold, buy.body.shares_bought);
    const me = await call(a, 'GET', '/api/sdk/agents/me', agent.api_key);
    assert.equal(me.status, 200);
    await assertAgentConserved(agent.agent_id);
    await assertBookMatchesFills(m);
  });

  it('when an atomic batch goes to the second API process, then every leg fills once', async () => {
    const agent = await register(apis[1]);
    const ms = await Promise.all(Array.from({ length: 8 }, () => market()));
    const res = await call(apis[1]!, 'POST', '/api/sdk/trades/batch', agent.api_key, {
      trades: ms.map((m, i) => ({ market_id: m, side: i % 2 ? 'no' : 'yes', amount: 5 })),
      atomic: true,
    });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    const results = res.body.results as { success: boolean; trade_id: string }[];
    assert.equal(results.length, 8);
    assert.ok(
      results.every((r) => r.success),
      JSON.stringify(results.find((r) => !r.success)),
    );
    const { models } = testContext().deps;
    const stored = await models.Trade.find({ agentId: agent.agent_id }).lean();
    assert.equal(stored.length, 8);
    assert.ok(stored.every((t) => t.status === 'filled'));
    await assertAgentConserved(agent.agent_id);
  });

  it('when a trade is resent with its idempotency key to the other API process (in turn and at once), then it answers as the first and one trade is placed', async () => {
    const [a, b] = apis as [string, string];
    const agent = await register(a);
    const m = await market();
    const body = { market_id: m, side: 'no', amount: 7, idempotency_key: `split-${randomUUID()}` };
    const first = await trade(a, agent, body);
    assert.equal(first.body.success, true, JSON.stringify(first.body));
    const replay = await trade(b, agent, body);
    assert.deepEqual(replay.body, first.body, 'the other API replays the first answer');

    // The same key to both APIs at the same moment: one places the trade, the other answers it
    // (or 503 retryable while it is in flight, and the answer on a retry).
    const key = `split-race-${randomUUID()}`;
    const race = { market_id: m, side: 'yes', amount: 3, idempotency_key: key };
    const answers = await Promise.all([trade(a, agent, race), trade(b, agent, race)]);
    const settled = await Promise.all(
      answers.map(async (ans, i) => {
        let r = ans;
        for (let tries = 0; r.status === 503 && tries < 50; tries++) {
          await sleep(200);
          r = await trade(apis[i]!, agent, race);
        }
        return r;
      }),
    );
    assert.ok(
      settled.every((r) => r.status === 200 && r.body.success === true),
      JSON.stringify(settled),
    );
    assert.equal(settled[0]!.body.trade_id, settled[1]!.body.trade_id, 'one trade behind both answers');
    const { models } = testContext().deps;
    assert.equal(await models.Trade.countDocuments({ agentId: agent.agent_id, marketId: m }), 2);
  });

  it('when many agents trade at random through both APIs at once, then every answered fill is stored once and every book and balance conserves', async () => {
    const traders = await Promise.all(Array.from({ length: 6 }, (_, i) => register(apis[i % 2])));
    const ms = await Promise.all(Array.from({ length: 4 }, () => market()));
    const filled: string[] = [];
    let n = 0;
    await Promise.all(
      traders.map(async (agent, i) => {
        for (let k = 0; k < 8; k++) {
          const base = apis[(i + k) % 2]!;
          const m = ms[(i + k) % ms.length]!;
          const res = await trade(base, agent, { market_id: m, side: k % 2 ? 'yes' : 'no', amount: 2 + k });
          n++;
          if (res.body.success) filled.push(res.body.trade_id!);
          else assert.equal(res.status, 200, JSON.stringify(res.body));
        }
      }),
    );
    assert.equal(n, 48);
    assert.equal(new Set(filled).size, filled.length);
    assert.ok(filled.length >= 40, `filled ${filled.length} of 48`);
    const { models } = testContext().deps;
    const stored = await models.Trade.find({ _id: { $in: filled } }).lean();
    assert.equal(stored.length, filled.length);
    assert.ok(stored.every((t) => t.status === 'filled'));
    for (const a of traders) await assertAgentConserved(a.agent_id);
    for (const m of ms) await assertBookMatchesFills(m);
  });

  it('when an owner pauses trading on one API process, then the other refuses the agent’s next trade at once (the invalidation reached it; its cache lives 60 s)', async () => {
    const [a, b] = apis as [string, string];
    const agent = await register(a);
    const user = tokenFor(`u-${randomUUID()}`);
    const claimed = await call(a, 'POST', '/api/sdk/agents/claim', user, { claim_code: agent.claim_code });
    assert.equal(claimed.status, 200, JSON.stringify(claimed.body));
    const m = await market();
    const warm = await trade(b, agent, { market_id: m, side: 'yes', amount: 1 });
    assert.equal(warm.body.success, true, 'warms the agent and its owner’s settings on B');

    const paused = await call(a, 'PATCH', '/api/sdk/user/settings', user, { trading_paused: true });
    assert.equal(paused.status, 200, JSON.stringify(paused.body));
    // Pub/sub delivers in milliseconds; a second is generous, 60 s is the cache's own lifetime.
    const deadline = Date.now() + 1000;
    let refused: Body | undefined;
    while (Date.now() < deadline) {
      const res = await call(b, 'POST', '/api/sdk/trade', agent.api_key, {
        market_id: m,
        side: 'yes',
        amount: 1,
      });
      if (res.body.error_code === 'trading_paused') {
        refused = res.body;
        break;
      }
      await sleep(50);
    }
    assert.ok(refused, 'B refused the paused agent within a second');

    await call(a, 'PATCH', '/api/sdk/user/settings', user, { trading_paused: false });
    const deadline2 = Date.now() + 1000;
    let resumed = false;
    while (!resumed && Date.now() < deadline2) {
      resumed = (await trade(b, agent, { market_id: m, side: 'yes', amount: 1 })).body.success === true;
      if (!resumed) await sleep(50);
    }
    assert.ok(resumed, 'B trades again once resumed');
  });
});
