import assert from 'node:assert/strict';
import { sharesBoughtMicro } from '../../shared/domains/markets/fill-rounding.js';
import { bookState } from '../../shared/domains/markets/sim-book.js';
import type { Outcome } from '../../shared/domains/markets/lmsr.js';
import { testContext } from '../support/context.js';
import { makeMarket, trade } from '../support/factories.js';
import { api, registerAgent } from '../support/http.js';
import { exactBuyCostMicro, exactSaleProceedsMicro, type StoredBook } from '../support/exact-lmsr.js';

/**
 * Trades through `POST /api/sdk/trade` on books of the test's own, each answer checked to the
 * micro-unit against the LMSR computed exactly (test/support/exact-lmsr.ts): the house keeps the
 * rounding dust (README, "The sim venue"). Sizes are picked where rounding to nearest would differ
 * from rounding down, so an answer rounded to nearest is caught.
 */
const STEP = 10;
const micro = (units: number) => Math.round(units * 1e6);

const BOOKS: { p0: number; b: number; side: Outcome }[] = [
  { p0: 0.13, b: 400, side: 'yes' },
  { p0: 0.5, b: 2241, side: 'no' },
  { p0: 0.87, b: 5000, side: 'yes' },
  { p0: 0.333, b: 10_000, side: 'no' },
];

/** A buy amount in cents whose exact share count lies past half a share step (nearest ≠ floor). */
function amountPastHalfStep(book: StoredBook, side: Outcome): number {
  for (let cents = 1234; cents < 50_000; cents += 97) {
    const amountMicro = cents * 10_000;
    const shares = sharesBoughtMicro(bookState({ book: { ...book, version: 0 } }), side, amountMicro);
    if (exactBuyCostMicro(book, side, shares + STEP / 2).ceil <= amountMicro) return cents / 100;
  }
  throw new Error('no amount past half a share step');
}

/** Sale sizes (5 decimals) out of `heldMicro` whose exact proceeds have a fraction ≥ 0.5, and one below. */
function saleSizes(book: StoredBook, side: Outcome, heldMicro: number): number[] {
  const upper: number[] = [];
  const lower: number[] = [];
  for (let k = 1; k < 40 && (upper.length < 1 || lower.length < 1); k++) {
    const sharesMicro = Math.floor((heldMicro * k) / 97 / STEP) * STEP;
    const { fraction } = exactSaleProceedsMicro(book, side, sharesMicro);
    if (fraction >= 0.5 && fraction < 0.99) upper.push(sharesMicro);
    if (fraction > 0.01 && fraction < 0.5) lower.push(sharesMicro);
  }
  assert.ok(upper.length && lower.length, 'sale sizes on both sides of half a unit');
  return [upper[0]!, lower[0]!];
}

describe('sim fills through the API round in the house’s favour, to the micro-unit #integration', function () {
  this.timeout(120_000);

  it('when agents buy and sell on books at several states, then each answer is the exact LMSR figure rounded for the house, the balance moves by exactly it, and the audit agrees', async () => {
    const agent = await registerAgent();
    const marketIds: string[] = [];
    let balance = micro(10_000);
    let fills = 0;
    for (const { p0, b, side } of BOOKS) {
      const market = await makeMarket({ p0, b });
      marketIds.push(market._id);
      const book: StoredBook = { ...market.book };
      const held = side === 'yes' ? 'yesMicro' : 'noMicro';

      const amount = amountPastHalfStep(book, side);
      const bought = await trade(agent, { market_id: market._id, side, amount });
      assert.equal(bought.body.success, true, JSON.stringify(bought.body));
      const sharesMicro = micro(bought.body.shares_bought);
      const cost = exactBuyCostMicro(book, side, sharesMicro);
      const oneMore = exactBuyCostMicro(book, side, sharesMicro + STEP);
      const why = `${side} buy of ${amount} on ${JSON.stringify(book)}: ${sharesMicro} micro-shares, exact cost ${cost.floor} + ${cost.fraction}, one more step ${oneMore.floor} + ${oneMore.fraction}`;
      assert.equal(micro(bought.body.cost), micro(amount), `the buy costs its amount; ${why}`);
      assert.ok(cost.ceil <= micro(amount), `the shares cost more than was paid; ${why}`);
      assert.ok(oneMore.ceil > micro(amount), `the amount paid for one more share step; ${why}`);
      balance -= micro(amount);
      assert.equal(micro(bought.body.balance), balance, 'the balance moved by exactly the amount');
      book[held] += sharesMicro;
      fills++;

      for (const sold of saleSizes(book, side, sharesMicro)) {
        const exact = exactSaleProceedsMicro(book, side, sold);
        const res = await trade(agent, { market_id: market._id, side, action: 'sell', shares: sold / 1e6 });
        assert.equal(res.body.success, true, JSON.stringify(res.body));
        assert.equal(micro(res.body.shares_sold), sold);
        assert.equal(
          micro(res.body.cost),
          exact.floor,
          `proceeds of ${sold} micro-shares of ${side} on ${JSON.stringify(book)}: exact ${exact.floor} + ${exact.fraction}`,
        );
        balance += exact.floor;
        assert.equal(micro(res.body.balance), balance, 'the balance moved by exactly the proceeds');
        book[held] -= sold;
        fills++;
      }
    }
    const stored = await testContext().deps.models.Agent.findById(agent.agent_id).lean();
    assert.equal(stored?.balanceMicro, balance);

    const audit = await api()
      .get('/api/admin/audit')
      .set('Authorization', `Bearer ${testContext().operatorToken}`);
    assert.equal(audit.status, 200, JSON.stringify(audit.body));
    const ours = (audit.body.differences as { id: string }[]).filter(
      (d) => d.id.includes(agent.agent_id) || marketIds.some((id) => d.id.includes(id)),
    );
    assert.deepEqual(ours, []);
    assert.ok(audit.body.house.fills >= fills, JSON.stringify(audit.body.house));
    assert.ok(audit.body.house.dust_micro > 0, JSON.stringify(audit.body.house));
  });
});
