import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { boardStanding, forgetBoardCopy, RANKS_MAX_AGE_MS } from '../../shared/domains/reads/board-ranks.js';
import { createModels } from '../../shared/domains/models.js';
import { testContext } from '../support/context.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('sim board ranks from the process copy #integration', () => {
  it('when the copy is older than its age, then it still answers at once while one read replaces it, and the next answers come from the new copy', async function () {
    this.timeout(30_000);
    // A database of its own: ranked agents without trades would break the suite's reconciliations.
    const { env, deps } = testContext();
    const db = deps.mongo.useDb(`${env.MONGODB_DB}_ranks_${randomBytes(3).toString('hex')}`, {
      useCache: false,
    });
    const models = createModels(db);
    try {
      const place = (id: string, pnl: number) =>
        models.Agent.collection.updateOne(
          { _id: id as never },
          { $set: { simTradesCount: 1, leaderboardPnlMicro: pnl } },
          { upsert: true },
        );
      // Ranked by the P&L it has (0); another agent below it, then moved above it.
      await Promise.all([place('me', 0), place('other', -1e15)]);
      const rank = async () =>
        (await boardStanding(models, { simTradesCount: 1, leaderboardPnlMicro: 0 })).rank;
      forgetBoardCopy(models);
      assert.equal(await rank(), 1);

      await place('other', 1e15);
      assert.equal(await rank(), 1, 'a fresh copy answers, without reading the board');

      await sleep(RANKS_MAX_AGE_MS + 100);
      assert.equal(await rank(), 1, 'an old copy answers at once, not after a read of the board');
      let now = 1;
      for (let i = 0; i < 100 && now === 1; i++) {
        await sleep(20);
        now = (await rank())!;
      }
      assert.equal(now, 2, 'the read it started in the background replaced the copy');

      // A re-mark in this process drops the copy: the next answer reads the board.
      await place('other', -1e15);
      forgetBoardCopy(models);
      assert.equal(await rank(), 1);
    } finally {
      await db.dropDatabase();
    }
  });
});
