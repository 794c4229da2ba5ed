import assert from 'node:assert/strict';
import { checkStanding, guardedTrade, loadGuard } from '../../shared/domains/limits/trade-guard.js';
import { submitTrade } from '../../shared/domains/trading/submit-trade.js';
import type { TradeRequest, TradeResult } from '../../shared/domains/trading/trade.schemas.js';
import {
  TradingVenues,
  type VenueTrade,
  type VenueTrading,
  type VenueTradingDeps,
} from '../../shared/domains/trading/venue-trading.js';
import type { VenueAdapter } from '../../shared/domains/venues/venue-adapter.js';
import type { VenueMoney } from '../../shared/domains/venues/venue-conventions.js';
import { registerVenueId, type VenueId } from '../../shared/domains/venues/venue-id.js';
import { VenueRegistry } from '../../shared/domains/venues/venue-registry.js';
import { testContext } from '../support/context.js';
import { registerAgent } from '../support/http.js';

/**
 * Two venues that differ only in their money, each a stub whose trading answers what the account's
 * safeguards say of the trade (a real venue's trading loads and checks them the same way): whether
 * an agent is admitted is then the service's decision from the venue's capabilities alone.
 */
function stubVenue(id: VenueId, money: VenueMoney) {
  const adapter = { id, money } as unknown as VenueAdapter;
  const trading = {
    venue: id,
    capabilities: { money: money.money, maxBuyMicro: null },
    warnings: () => [],
    async submit({ deps, agent, shape }: VenueTrade): Promise<TradeResult> {
      const standing = checkStanding(await loadGuard(deps, agent), guardedTrade(shape, id));
      return { success: !standing, error_code: standing?.errorCode ?? null } as unknown as TradeResult;
    },
  } as unknown as VenueTrading;
  return { adapter, trading };
}

const PAPER = stubVenue(registerVenueId('paper-money-venue'), {
  money: 'paper',
  currency: 'Mana',
  unit: 'M$',
});
const REAL = stubVenue(registerVenueId('real-money-venue'), { money: 'real', currency: 'USD', unit: 'USDC' });

/** The test process's deps with the two venues registered past the harness's. */
function withStubVenues(): VenueTradingDeps {
  const { deps } = testContext();
  return {
    ...deps,
    venues: new VenueRegistry([...deps.venues.all(), PAPER.adapter, REAL.adapter]),
    trading: new TradingVenues([...deps.trading.all(), PAPER.trading, REAL.trading]),
  };
}

const buyOn = (venue: VenueId): TradeRequest => ({
  market_id: '00000000-0000-4000-8000-000000000000',
  side: 'yes' as const,
  action: 'buy' as const,
  amount: 5,
  shares: 0,
  venue,
  dry_run: false,
});

describe('a play-money venue other than sim #integration', () => {
  it('when an unclaimed agent buys on it, then the trade reaches the venue and the account safeguards admit it', async () => {
    const deps = withStubVenues();
    const registered = await registerAgent();
    const agent = (await deps.models.Agent.findById(registered.agent_id).lean())!;
    const result = (await submitTrade(deps, agent, buyOn(PAPER.trading.venue))) as TradeResult;
    assert.deepEqual(result, { success: true, error_code: null });
  });

  it('when the same agent buys on a real-money venue, then it is refused with 403 agent_not_claimed and a claim_url', async () => {
    const deps = withStubVenues();
    const registered = await registerAgent();
    const agent = (await deps.models.Agent.findById(registered.agent_id).lean())!;
    await assert.rejects(
      submitTrade(deps, agent, buyOn(REAL.trading.venue)),
      (err: Record<string, unknown>) => {
        assert.equal(err.status, 403);
        assert.equal(err.code, 'agent_not_claimed');
        const body = (err.options as { body?: { claim_url?: string } }).body;
        assert.match(String(body?.claim_url), new RegExp(registered.claim_code));
        return true;
      },
    );
  });
});
