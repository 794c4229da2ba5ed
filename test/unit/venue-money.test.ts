import assert from 'node:assert/strict';
import { checkStanding, type TradeGuard } from '../../shared/domains/limits/trade-guard.js';
import { DEFAULT_TRADING_SETTINGS } from '../../shared/domains/limits/trading-settings.model.js';
import type { MarketRecord } from '../../shared/domains/markets/market.model.js';
import { positionView } from '../../shared/domains/positions/position-views.js';
import type { PositionRecord } from '../../shared/domains/positions/position.model.js';
import { boardCurrency } from '../../shared/domains/reads/venue-boards.js';
import { TradingVenues, type VenueTrading } from '../../shared/domains/trading/venue-trading.js';
import type { VenueAdapter } from '../../shared/domains/venues/venue-adapter.js';
import { isPaperMoney, venueMoney } from '../../shared/domains/venues/venue-conventions.js';
import { POOL_VENUE, registerVenueId, type VenueId } from '../../shared/domains/venues/venue-id.js';
import { VenueRegistry } from '../../shared/domains/venues/venue-registry.js';

/**
 * A play-money venue that is not our pool (Manifold's mana, say): only its id and its money matter
 * here, so the adapter and the trading are the members these decisions read.
 */
const PAPER = registerVenueId('unit-paper-venue');
const MANA = { money: 'paper', currency: 'Mana', unit: 'M$' } as const;
new VenueRegistry([{ id: PAPER, money: MANA } as unknown as VenueAdapter]);

/** An unclaimed agent's standing: its own settings owner, real trading off (it has no human). */
const unclaimed: TradeGuard = {
  released: false,
  owner: { key: 'agent:a1', kind: 'agent', id: 'a1', tier: 'free' },
  settings: DEFAULT_TRADING_SETTINGS,
  automaton: null,
};
const buy = (venue: VenueId) => ({
  venue,
  marketId: 'm1',
  side: 'yes' as const,
  action: 'buy' as const,
  amountMicro: 5e6,
});

const position = (venue: VenueId) =>
  ({
    _id: `a1:m1:${venue}`,
    agentId: 'a1',
    marketId: 'm1',
    venue,
    status: 'open',
    sharesYesMicro: 10e6,
    sharesNoMicro: 0,
    reservedYesMicro: 0,
    reservedNoMicro: 0,
    costYesMicro: 4e6,
    costNoMicro: 0,
    realizedPnlMicro: 0,
    payoutMicro: 0,
    sources: [],
  }) as unknown as PositionRecord;
const market = {
  _id: 'm1',
  question: 'Will it?',
  status: 'active',
  currentPrice: 0.4,
  externalPriceYes: 0.5,
  outcome: null,
  venueRef: null,
} as unknown as MarketRecord;

describe('money is a venue capability, not its name #unit', () => {
  it('when a registered venue declares play money, then it is paper, in its own currency, and not our pool', () => {
    assert.equal(isPaperMoney(PAPER), true);
    assert.deepEqual(venueMoney(PAPER), MANA);
    assert.notEqual(PAPER, POOL_VENUE);
    assert.equal(isPaperMoney('polymarket'), false);
  });

  it('when an unclaimed agent buys on a paper venue other than sim, then its standing admits it, as on sim, and a real venue refuses it', () => {
    assert.equal(checkStanding(unclaimed, buy(PAPER)), null);
    assert.equal(checkStanding(unclaimed, buy(POOL_VENUE)), null);
    assert.equal(checkStanding(unclaimed, buy('polymarket'))?.errorCode, 'real_trading_disabled');
  });

  it('when a position is on a paper venue other than sim, then it is labelled in that venue’s unit, marked at the venue’s price and shows no $SIM balance', () => {
    const view = positionView(position(PAPER), market, 9_000e6);
    assert.equal(view.currency, 'M$');
    assert.equal(view.current_value, 5, 'at the venue’s price (0.5), not the pool’s (0.4)');
    assert.equal(view.sim_balance, null);
    assert.equal(positionView(position(POOL_VENUE), market, 9_000e6).currency, '$SIM');
    assert.equal(positionView(position('polymarket'), market, 0).currency, 'USDC');
  });

  it('when a paper venue’s board is shown, then its P&L is in the venue’s currency', () => {
    assert.equal(boardCurrency(PAPER), 'Mana');
    assert.equal(boardCurrency(POOL_VENUE), '$SIM');
    assert.equal(boardCurrency('polymarket'), 'pUSD');
  });

  it('when a venue’s trading declares other money than its adapter, then the trading venues refuse it', () => {
    const trading = { venue: PAPER, capabilities: { money: 'real' } } as unknown as VenueTrading;
    assert.throws(
      () => new TradingVenues([trading]),
      /unit-paper-venue: its trading is real money, its adapter paper/,
    );
  });
});
