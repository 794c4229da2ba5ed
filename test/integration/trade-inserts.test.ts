import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import mongoose from 'mongoose';
import { recordPendingTrade } from '../../shared/domains/trading/trade-lifecycle.js';
import { createModels, type Models } from '../../shared/domains/models.js';
import { startMongoServer } from '../../shared/infra/embedded/mongo-server.js';
import { createLogger } from '../../shared/infra/logger.js';
import { testContext } from '../support/context.js';
import { makeMarket } from '../support/factories.js';
import { registerAgent } from '../support/http.js';

/** The Trade model with its insertMany calls counted (sizes, in order). */
function countedInserts(Trade: Models['Trade']) {
  const sizes: number[] = [];
  const counted = new Proxy(Trade, {
    get: (target, name, receiver) => {
      const real = Reflect.get(target, name, receiver) as unknown;
      if (name !== 'insertMany' || typeof real !== 'function') return real;
      return (docs: unknown[], ...rest: unknown[]) => {
        sizes.push(docs.length);
        return (real as (...a: unknown[]) => unknown).apply(target, [docs, ...rest]);
      };
    },
  });
  return { models: { Trade: counted }, sizes };
}

describe('trade records written together #integration', () => {
  it('when trades are recorded at once, then the first goes alone and the rest share one insert, and each is stored whole with its timestamps', async () => {
    const { deps } = testContext();
    const agent = await registerAgent();
    const market = await makeMarket();
    const { models, sizes } = countedInserts(deps.models.Trade);
    const trade = (i: number) => ({
      _id: `ins-${randomUUID()}`,
      agentId: agent.agent_id,
      marketId: market._id,
      venue: 'sim' as const,
      side: i % 2 ? ('yes' as const) : ('no' as const),
      action: 'buy' as const,
      amountMicro: 1_000_000 + i,
      sharesMicro: 0,
      orderType: 'market' as const,
    });
    const trades = Array.from({ length: 10 }, (_, i) => trade(i));
    await Promise.all(trades.map((t) => recordPendingTrade(models, t)));
    assert.deepEqual(sizes, [1, 9]);
    const stored = await deps.models.Trade.find({ _id: { $in: trades.map((t) => t._id) } }).lean();
    assert.equal(stored.length, 10);
    for (const t of trades) {
      const s = stored.find((x) => x._id === t._id)!;
      assert.equal(s.amountMicro, t.amountMicro);
      assert.equal(s.side, t.side);
      assert.ok(s.createdAt instanceof Date && s.updatedAt instanceof Date);
    }
  });

  it('when one record of a shared insert is refused (a duplicate id, an invalid field), then only its request fails, with the error a single insert gives, and the others are stored', async () => {
    const { deps } = testContext();
    const agent = await registerAgent();
    const market = await makeMarket();
    const { models, sizes } = countedInserts(deps.models.Trade);
    const base = {
      agentId: agent.agent_id,
      marketId: market._id,
      venue: 'sim' as const,
      side: 'yes' as const,
      action: 'buy' as const,
      amountMicro: 2_000_000,
      sharesMicro: 0,
      orderType: 'market' as const,
    };
    const taken = `ins-${randomUUID()}`;
    await recordPendingTrade(models, { ...base, _id: taken });
    sizes.length = 0;
    // A first record goes alone; the next four share the second insert.
    const first = recordPendingTrade(models, { ...base, _id: `ins-${randomUUID()}` });
    const ok = [`ins-${randomUUID()}`, `ins-${randomUUID()}`];
    const outcomes = await Promise.allSettled([
      first,
      recordPendingTrade(models, { ...base, _id: ok[0]! }),
      recordPendingTrade(models, { ...base, _id: taken }),
      recordPendingTrade(models, { ...base, _id: `ins-${randomUUID()}`, side: 'nonsense' as never }),
      recordPendingTrade(models, { ...base, _id: ok[1]! }),
    ]);
    assert.deepEqual(sizes, [1, 4]);
    assert.deepEqual(
      outcomes.map((o) => o.status),
      ['fulfilled', 'fulfilled', 'rejected', 'rejected', 'fulfilled'],
    );
    const duplicate = (outcomes[2] as PromiseRejectedResult).reason as { code?: number };
    assert.ok(duplicate instanceof mongoose.mongo.MongoServerError, String(duplicate));
    assert.equal(duplicate.code, 11000);
    assert.ok((outcomes[3] as PromiseRejectedResult).reason instanceof mongoose.Error.ValidationError);
    assert.equal(await deps.models.Trade.countDocuments({ _id: { $in: ok } }), 2);
    assert.equal((await deps.models.Trade.findById(taken).lean())?.amountMicro, 2_000_000);
  });

  it('when the insert command itself fails (the database is unreachable), then every request of the batch fails with that error and none counts as recorded', async () => {
    // Found by a chaos run: with the database killed, mongoose listed every record of the failed
    // insertMany beside a write error-less MongoBulkWriteError, and they were taken for written.
    const dir = mkdtempSync(join(tmpdir(), 'ats-inserts-'));
    const server = await startMongoServer({ dir, persistent: false, log: createLogger('silent', 'test') });
    const dead = await mongoose
      .createConnection(server.url, { dbName: 'inserts', serverSelectionTimeoutMS: 500 })
      .asPromise();
    dead.on('error', () => undefined);
    await server.child.stop();
    try {
      const { models, sizes } = countedInserts(createModels(dead).Trade);
      const record = (i: number) =>
        recordPendingTrade(models, {
          _id: `ins-${randomUUID()}`,
          agentId: 'agent-x',
          marketId: 'market-x',
          venue: 'sim' as const,
          side: 'yes' as const,
          action: 'buy' as const,
          amountMicro: 1_000_000 + i,
          sharesMicro: 0,
          orderType: 'market' as const,
        });
      const outcomes = await Promise.allSettled([0, 1, 2, 3].map(record));
      assert.deepEqual(sizes, [1, 3]);
      for (const o of outcomes) {
        assert.equal(o.status, 'rejected');
        assert.match(String((o as PromiseRejectedResult).reason), /ECONNREFUSED|Server selection|closed/i);
      }
    } finally {
      await dead.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
