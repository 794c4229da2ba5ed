import assert from 'node:assert/strict';
import { boardStanding, forgetBoardCopy, RANKS_MAX_AGE_MS } from '../../shared/domains/reads/board-ranks.js';
import { testContext } from '../support/context.js';
import { registerAgent } from '../support/http.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('sim board ranks from the process copy #integration', () => {
  it('when the copy is older than its age, then it still answers at once while one read replaces it, and the next answers come from the new copy', async function () {
    this.timeout(30_000);
    const { models } = testContext().deps;
    const [me, other] = await Promise.all([registerAgent(), registerAgent()]);
    const place = (id: string, pnl: number) =>
      models.Agent.updateOne({ _id: id }, { $set: { simTradesCount: 1, leaderboardPnlMicro: pnl } });
    // Ranked by the P&L this agent has; another agent below it, then moved above it.
    await Promise.all([place(me.agent_id, 0), place(other.agent_id, -1e15)]);
    const mine = { simTradesCount: 1, leaderboardPnlMicro: 0 };
    const rank = async () => (await boardStanding(models, mine)).rank!;
    forgetBoardCopy(models);
    const before = await rank();

    await place(other.agent_id, 1e15);
    assert.equal(await rank(), before, 'a fresh copy answers, without reading the board');

    await sleep(RANKS_MAX_AGE_MS + 100);
    assert.equal(await rank(), before, 'an old copy answers at once, not after a read of the board');
    let now = before;
    for (let i = 0; i < 100 && now === before; i++) {
      await sleep(20);
      now = await rank();
    }
    assert.equal(now, before + 1, 'the read it started in the background replaced the copy');

    // A re-mark in this process drops the copy: the next answer reads the board.
    await place(other.agent_id, -1e15);
    forgetBoardCopy(models);
    assert.equal(await rank(), before);
  });
});
