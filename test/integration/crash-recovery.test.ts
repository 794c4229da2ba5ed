import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { resolve } from 'node:path';
import { resolveMarket } from '../../shared/domains/markets/resolve-market.js';
import { freePort } from '../../shared/infra/embedded/child-process.js';
import { QueueClient } from '../../shared/infra/queue/queue-client.js';
import { testContext } from '../support/context.js';
import { makeMarket, trade } from '../support/factories.js';
import { registerAgent } from '../support/http.js';
import { assertAgentConserved, assertBookMatchesFills } from '../support/invariants.js';

const root = resolve(import.meta.dirname, '../..');

/** Runs `npm run start:workers`' program on this run's Redis/MongoDB, killing itself after `killAfterWrites` writes. */
async function runWorkerProcess(
  prefix: string,
  killAfterWrites: number | null,
  until: () => Promise<boolean>,
  queue: 'trades' | 'settlement' = 'trades',
): Promise<'killed' | 'done'> {
  const ctx = testContext();
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? '',
    HOME: process.env.HOME ?? '/tmp',
    NODE_ENV: 'test',
    REDIS_URL: ctx.redisUrl,
    MONGODB_URI: ctx.mongoUri,
    MONGODB_DB: ctx.env.MONGODB_DB,
    QUEUE_PREFIX: prefix,
    WORKER_QUEUES: queue,
    WORKER_LOCK_DURATION_MS: '1000',
    WORKER_MAX_STALLED_COUNT: '100',
    PORT: String(await freePort()),
    HOST: '127.0.0.1',
    LOG_LEVEL: 'silent',
    DATA_DIR: ctx.env.DATA_DIR,
  };
  if (killAfterWrites !== null) env.FAULT_KILL_AFTER_WRITES = String(killAfterWrites);
  const child = spawn(process.execPath, ['--import', 'tsx', 'workers/main.ts'], {
    cwd: root,
    env,
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr!.on('data', (c) => (stderr += c));
  const exited = new Promise<NodeJS.Signals | number | null>((r) =>
    child.once('exit', (code, signal) => r(signal ?? code)),
  );
  const deadline = Date.now() + 30_000;
  for (;;) {
    const result = await Promise.race([
      exited.then((s) => ({ s })),
      new Promise<null>((r) => setTimeout(() => r(null), 100)),
    ]);
    if (result) {
      assert.equal(result.s, 'SIGKILL', `worker exited by itself (${String(result.s)}): ${stderr}`);
      return 'killed';
    }
    if (await until()) {
      child.kill('SIGTERM');
      await exited;
      return 'done';
    }
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`worker made no progress: ${stderr}`);
    }
  }
}

/**
 * Kills a worker right after every single write of one trade: each restarted worker resumes the job,
 * performs exactly one more write and dies, until the trade is finished.
 */
async function crashThroughTrade(body: {
  agentId: string;
  marketId: string;
  action: 'buy' | 'sell';
  side: 'yes' | 'no';
  amountMicro: number;
  sharesMicro: number;
}) {
  const ctx = testContext();
  const prefix = `${ctx.env.QUEUE_PREFIX}-crash-${randomUUID().slice(0, 8)}`;
  const queues = new QueueClient(ctx.deps.redis, prefix, ctx.deps.infra.redisUrl);
  const tradeId = randomUUID();
  await ctx.deps.models.Trade.create({ _id: tradeId, venue: 'sim', status: 'pending', ...body });
  await queues.enqueue('execute-trade', { tradeId });
  const finished = async () => {
    const t = await ctx.deps.models.Trade.findById(tradeId, { status: 1 }).lean();
    const job = await queues.queues.trades.getJob(`execute-trade-${tradeId}`);
    return t?.status === 'filled' && (await job?.getState()) === 'completed';
  };
  let crashes = 0;
  try {
    for (let i = 0; i < 40 && (await runWorkerProcess(prefix, 1, finished)) === 'killed'; i++) crashes++;
    if (!(await finished())) await runWorkerProcess(prefix, null, finished);
  } finally {
    await Promise.all(Object.values(queues.queues).map((q) => q.obliterate({ force: true })));
    await queues.close();
  }
  return { tradeId, crashes };
}

describe('crash recovery: a worker SIGKILLed between any two writes #integration', function () {
  this.timeout(300_000);

  it('when a buy is interrupted after every write, then it is applied exactly once', async () => {
    const agent = await registerAgent();
    const market = await makeMarket({ p0: 0.42 });
    const { tradeId, crashes } = await crashThroughTrade({
      agentId: agent.agent_id,
      marketId: market._id,
      action: 'buy',
      side: 'yes',
      amountMicro: 25_000_000,
      sharesMicro: 0,
    });
    const { models } = testContext().deps;
    assert.equal(
      crashes,
      9,
      'a buy makes 9 writes: claim, reserve (entry, agent), fill (event, book), settle (entry, position, agent), finish',
    );
    const t = (await models.Trade.findById(tradeId).lean())!;
    assert.equal(t.status, 'filled');
    assert.deepEqual(
      (await models.LedgerEntry.find({ tradeId }).sort({ seq: 1 }).lean()).map((e) => e._id),
      [`${tradeId}-reserve`, `${tradeId}-fill`],
    );
    assert.equal(await models.MarketEvent.countDocuments({ _id: tradeId }), 1);
    const agentDoc = (await models.Agent.findById(agent.agent_id).lean())!;
    assert.equal(agentDoc.balanceMicro, 10_000_000_000 - 25_000_000);
    assert.equal(agentDoc.tradesCount, 1);
    await assertAgentConserved(agent.agent_id);
    await assertBookMatchesFills(market._id);
  });

  it('when a sell is interrupted after every write, then it is applied exactly once', async () => {
    const agent = await registerAgent();
    const market = await makeMarket({ p0: 0.63 });
    const buy = await trade(agent, { market_id: market._id, side: 'no', amount: 40 });
    const sharesMicro = Math.round(buy.body.shares_bought * 1e6);
    const { tradeId, crashes } = await crashThroughTrade({
      agentId: agent.agent_id,
      marketId: market._id,
      action: 'sell',
      side: 'no',
      amountMicro: 0,
      sharesMicro,
    });
    const { models } = testContext().deps;
    assert.equal(
      crashes,
      10,
      'a sell makes 10 writes: claim, reserve (entry, position, agent), fill (event, book), settle (entry, position, agent), finish',
    );
    const t = (await models.Trade.findById(tradeId).lean())!;
    assert.equal(t.status, 'filled');
    assert.equal(t.fill!.sharesMicro, sharesMicro);
    assert.equal(await models.LedgerEntry.countDocuments({ tradeId }), 2);
    const position = (await models.Position.findOne({ agentId: agent.agent_id }).lean())!;
    assert.equal(position.sharesNoMicro, 0);
    assert.equal(position.status, 'closed');
    const agentDoc = (await models.Agent.findById(agent.agent_id).lean())!;
    assert.equal(agentDoc.balanceMicro, 10_000_000_000 - 40_000_000 + t.fill!.amountMicro);
    await assertAgentConserved(agent.agent_id);
    await assertBookMatchesFills(market._id);
  });

  it('when a settlement is interrupted after every write, then each position is paid exactly once', async () => {
    const ctx = testContext();
    const { models } = ctx.deps;
    const market = await makeMarket({ p0: 0.5 });
    const [yes, no] = await Promise.all([registerAgent(), registerAgent()]);
    const buys = [
      await trade(yes, { market_id: market._id, side: 'yes', amount: 40 }),
      await trade(no, { market_id: market._id, side: 'no', amount: 30 }),
    ];
    for (const b of buys) assert.equal(b.body.success, true, JSON.stringify(b.body));
    await resolveMarket(models, market._id, true, ctx.deps.clock);

    const prefix = `${ctx.env.QUEUE_PREFIX}-crash-${randomUUID().slice(0, 8)}`;
    const queues = new QueueClient(ctx.deps.redis, prefix, ctx.deps.infra.redisUrl);
    await queues.enqueue('settle-market', { marketId: market._id });
    const finished = async () => {
      const m = await models.Market.findById(market._id, { settledAt: 1 }).lean();
      const job = await queues.queues.settlement.getJob(`settle-market-${market._id}`);
      return Boolean(m?.settledAt) && (await job?.getState()) === 'completed';
    };
    let crashes = 0;
    try {
      for (let i = 0; i < 40 && (await runWorkerProcess(prefix, 1, finished, 'settlement')) === 'killed'; i++)
        crashes++;
      if (!(await finished())) await runWorkerProcess(prefix, null, finished, 'settlement');
    } finally {
      await Promise.all(Object.values(queues.queues).map((q) => q.obliterate({ force: true })));
      await queues.close();
    }
    assert.ok(crashes >= 2, `settlement writes interrupted: ${crashes}`);
    for (const agent of [yes, no]) {
      assert.equal(await models.LedgerEntry.countDocuments({ agentId: agent.agent_id, kind: 'settle' }), 1);
      await assertAgentConserved(agent.agent_id);
    }
    const winner = (await models.Position.findOne({ agentId: yes.agent_id, marketId: market._id }).lean())!;
    assert.equal(winner.payoutMicro, Math.round(buys[0]!.body.shares_bought * 1e6));
    const loser = (await models.Position.findOne({ agentId: no.agent_id, marketId: market._id }).lean())!;
    assert.equal(loser.payoutMicro, 0);
  });
});
