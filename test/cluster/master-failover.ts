import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { Cluster } from 'ioredis';
import { reconcileTrades } from '../../shared/domains/trading/reconcile-trades.js';
import { bullPrefix, connectRedis, type RedisClient } from '../../shared/infra/redis.js';
import { testContext } from '../support/context.js';
import { makeMarket, trade } from '../support/factories.js';
import { registerAgent, type RegisteredAgent } from '../support/http.js';
import { assertAgentConserved, assertBookMatchesFills } from '../support/invariants.js';
import { until } from '../support/until.js';

/**
 * The failover pass of `npm run test:cluster` (not part of `npm test`: the file name does not end
 * in .test.ts, and it needs the cluster the script starts, whose pids TEST_REDIS_CLUSTER_PIDS names).
 * Trades run from several agents at once while the master holding the queues' slot is SIGKILLed;
 * the cluster promotes its replica. Replication is asynchronous, so the last writes of the killed
 * master may be gone (jobs, idempotency answers, limit counts): what must hold is the database's
 * side, which every acknowledgement stands on.
 */
const AGENTS = 6;
const MARKETS = 3;
const BEFORE_KILL_MS = 2000;
const AFTER_FAILOVER_MS = 3000;

type Sent = {
  agent: RegisteredAgent;
  body: Record<string, unknown>;
  status: number;
  answer: Record<string, unknown>;
};

/** The port of the master serving `slot`, as a node that is still up sees it. */
async function masterOf(probe: RedisClient, slot: number): Promise<number | null> {
  const slots = await probe.cluster('SLOTS');
  const range = slots.find(([from, to]) => slot >= from && slot <= to);
  return range?.[2]?.[1] ?? null;
}

describe('Redis Cluster: a master SIGKILLed while trades run #cluster', function () {
  this.timeout(180_000);

  before(function () {
    if (!process.env.TEST_REDIS_CLUSTER_NODES || !process.env.TEST_REDIS_CLUSTER_PIDS) this.skip();
  });

  it('when the master of the queues’ slot is SIGKILLed and its replica promoted, then every acknowledged trade is in the database, resends answer as the first, and money is conserved', async () => {
    const ctx = testContext();
    const pids = JSON.parse(readFileSync(process.env.TEST_REDIS_CLUSTER_PIDS!, 'utf8')) as Record<
      string,
      number
    >;
    const slot = Number(
      await ctx.deps.redis.cluster('KEYSLOT', bullPrefix(ctx.env.QUEUE_PREFIX, ctx.deps.infra)),
    );
    const victim = (await masterOf(ctx.deps.redis, slot))!;
    const survivorPort = Number(Object.keys(pids).find((p) => Number(p) !== victim));
    const probe = await connectRedis({ redisUrl: `redis://127.0.0.1:${survivorPort}` }, 'fail-fast', 'probe');
    probe.on('error', () => undefined);

    const agents = await Promise.all(Array.from({ length: AGENTS }, () => registerAgent()));
    const markets = await Promise.all(Array.from({ length: MARKETS }, () => makeMarket()));
    const sent: Sent[] = [];
    let stop = false;
    const loop = async (agent: RegisteredAgent, i: number) => {
      for (let n = 0; !stop; n++) {
        const body = {
          market_id: markets[(i + n) % MARKETS]!._id,
          side: n % 2 ? 'yes' : 'no',
          amount: 1 + (n % 4),
          idempotency_key: randomUUID(),
        };
        const res = await trade(agent, body).catch(() => null);
        sent.push({
          agent,
          body,
          status: res?.status ?? 0,
          answer: (res?.body ?? {}) as Record<string, unknown>,
        });
        await new Promise((r) => setTimeout(r, 30));
      }
    };
    const loops = agents.map(loop);

    await new Promise((r) => setTimeout(r, BEFORE_KILL_MS));
    const killedAt = Date.now();
    process.kill(pids[victim]!, 'SIGKILL');
    await until(
      async () => {
        const info = (await probe.cluster('INFO').catch(() => '')) as string;
        const master = await masterOf(probe, slot).catch(() => null);
        return /cluster_state:ok/.test(info) && master !== null && master !== victim;
      },
      Boolean,
      60_000,
    );
    const failoverMs = Date.now() - killedAt;
    const promoted = await masterOf(probe, slot);
    await new Promise((r) => setTimeout(r, AFTER_FAILOVER_MS));
    stop = true;
    await Promise.all(loops);

    const agentIds = agents.map((a) => a.agent_id);
    const { Trade } = ctx.deps.models;
    const unsettled = () =>
      Trade.countDocuments({ agentId: { $in: agentIds }, status: { $in: ['pending', 'executing'] } });
    // Jobs the killed master took with it: the reconcile job's pass, as if its staleness had passed.
    await until(unsettled, (n) => n === 0, 20_000);
    for (let i = 0; i < 5 && (await unsettled()) > 0; i++) {
      await reconcileTrades(ctx.deps, new Date(Date.now() + 20 * 60_000));
      await until(unsettled, (n) => n === 0, 10_000);
    }
    assert.equal(await unsettled(), 0, 'every trade settled');

    const acknowledged = sent.filter((s) => s.status === 200 && typeof s.answer.trade_id === 'string');
    const refused503 = sent.filter((s) => s.status === 503).length;
    const filled = acknowledged.filter((s) => s.answer.fill_status === 'filled');
    for (const s of acknowledged) {
      const stored = await Trade.findById(s.answer.trade_id).lean();
      assert.ok(stored, `acknowledged trade ${String(s.answer.trade_id)} is in the database`);
      if (s.answer.fill_status === 'filled')
        assert.equal(stored.status, 'filled', `trade ${stored._id} stays filled`);
    }
    let resendsSame = 0;
    for (const s of filled) {
      const again = await trade(s.agent, s.body);
      assert.equal(again.status, 200, JSON.stringify(again.body));
      assert.equal(again.body.trade_id, s.answer.trade_id, 'a resend answers as the first');
      resendsSame++;
    }
    // Every queue's workers took up work again, not only the busy trades queue.
    const ping = await ctx.deps.queues.enqueueAndWait(
      'ping',
      { nonce: randomUUID().replace(/-/g, '') },
      15_000,
    );
    assert.equal(ping.state, 'completed', 'the system queue is consumed after the failover');
    for (const id of agentIds) await assertAgentConserved(id);
    for (const m of markets) await assertBookMatchesFills(m._id);

    const figures = {
      sent: sent.length,
      acknowledged: acknowledged.length,
      filled: filled.length,
      refused503,
      otherStatuses: sent.length - acknowledged.length - refused503,
      killedMaster: victim,
      promotedMaster: promoted,
      failoverMs,
      resendsSame,
    };
    console.log(`      failover figures: ${JSON.stringify(figures)}`);
    probe.disconnect();
    assert.ok(filled.length > 0, 'trades filled');
  });

  it('when every master forgot the scripts (a promoted replica starts without them), then admissions and idempotency keys still work: each node is given the script it lacks', async () => {
    const ctx = testContext();
    const cluster = ctx.deps.redis as Cluster;
    await Promise.all(cluster.nodes('master').map((node) => node.script('FLUSH')));
    const agents = await Promise.all(Array.from({ length: 4 }, () => registerAgent()));
    const market = await makeMarket();
    for (const agent of agents) {
      const body = { market_id: market._id, side: 'yes', amount: 2, idempotency_key: randomUUID() };
      const first = await trade(agent, body);
      assert.equal(first.body.fill_status, 'filled', JSON.stringify(first.body));
      assert.equal((await trade(agent, body)).body.trade_id, first.body.trade_id);
      await assertAgentConserved(agent.agent_id);
    }
    await assertBookMatchesFills(market._id);
  });
});
