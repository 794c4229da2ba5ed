import assert from 'node:assert/strict';
import { bookState } from '../../shared/domains/markets/market-log.js';
import { STARTING_BALANCE_MICRO } from '../../shared/domains/money.js';
import { price } from '../../shared/domains/markets/lmsr.js';
import { testContext } from './context.js';

/**
 * Money conservation for one agent, from the trade records alone: balance = 10,000 − spent on filled
 * buys + received from filled sells + settlement payouts, to the micro-unit, with nothing reserved.
 */
export async function assertAgentConserved(agentId: string): Promise<void> {
  const { models } = testContext().deps;
  const agent = (await models.Agent.findById(agentId).lean())!;
  const trades = await models.Trade.find({ agentId, status: 'filled' }).lean();
  const spent = trades.filter((t) => t.action === 'buy').reduce((s, t) => s + t.fill!.amountMicro, 0);
  const received = trades.filter((t) => t.action === 'sell').reduce((s, t) => s + t.fill!.amountMicro, 0);
  const positions = await models.Position.find({ agentId }).lean();
  // Sim payouts only: a venue redemption pays pUSD into the wallet.
  const payouts = positions.filter((p) => p.venue === 'sim').reduce((s, p) => s + p.payoutMicro, 0);
  assert.equal(agent.reservedMicro, 0, 'nothing left reserved');
  assert.ok(agent.balanceMicro >= 0);
  assert.equal(
    agent.balanceMicro,
    STARTING_BALANCE_MICRO - spent + received + payouts,
    `agent ${agentId} balance`,
  );
  for (const p of positions) {
    assert.equal(p.reservedYesMicro + p.reservedNoMicro, 0, 'no shares left reserved');
    if (p.status === 'settled') continue;
    const mine = trades.filter((t) => t.marketId === p.marketId);
    const net = (side: 'yes' | 'no') =>
      mine
        .filter((t) => t.side === side)
        .reduce((s, t) => s + (t.action === 'buy' ? 1 : -1) * t.fill!.sharesMicro, 0);
    assert.equal(p.sharesYesMicro, net('yes'), `position ${p._id} YES shares`);
    assert.equal(p.sharesNoMicro, net('no'), `position ${p._id} NO shares`);
  }
}

/** A market's book equals the sum of its fills: from the trade records and from its event log. */
export async function assertBookMatchesFills(marketId: string): Promise<void> {
  const { models } = testContext().deps;
  const market = (await models.Market.findById(marketId).lean())!;
  const trades = await models.Trade.find({ marketId, status: 'filled' }).lean();
  const net = (side: 'yes' | 'no') =>
    trades
      .filter((t) => t.side === side)
      .reduce((s, t) => s + (t.action === 'buy' ? 1 : -1) * t.fill!.sharesMicro, 0);
  assert.equal(market.book.yesMicro, net('yes'), 'book YES = sum of YES fills');
  assert.equal(market.book.noMicro, net('no'), 'book NO = sum of NO fills');
  const events = await models.MarketEvent.find({ marketId }).sort({ seq: 1 }).lean();
  assert.equal(market.book.version, events.length, 'every logged event applied');
  assert.deepEqual(
    events.map((e) => e.seq),
    events.map((_, i) => i + 1),
    'sequence has no gaps',
  );
  assert.equal(events.filter((e) => e.kind === 'fill').length, trades.length, 'one fill per filled trade');
  // The anchor only moves by logged anchor events; the price shown is the book's own.
  const lastAnchor = events.filter((e) => e.kind === 'anchor').at(-1);
  if (lastAnchor) assert.equal(market.book.q0Yes, lastAnchor.q0Yes, 'anchor = last anchor event');
  if (market.status !== 'resolved')
    assert.ok(
      Math.abs(market.currentPrice - price(bookState(market), 'yes')) < 1e-9,
      'price = LMSR price of the book',
    );
}
