import assert from 'node:assert/strict';
import type { WalletPosition } from '../../shared/domains/venues/venue-adapter.js';
import { autoTopN, whaleConsensus } from '../../shared/domains/copytrading/whale-consensus.js';
import { planCopyTrades, type CopyTarget } from '../../shared/domains/copytrading/copy-plan.js';

const row = (
  conditionId: string,
  tokenId: string,
  size: number,
  price: number,
  extra: Partial<WalletPosition> = {},
) =>
  ({
    conditionId,
    tokenId,
    title: `Market ${conditionId}`,
    slug: null,
    outcome: null,
    size,
    curPrice: price,
    currentValue: size * price,
    redeemable: false,
    ...extra,
  }) satisfies WalletPosition;

describe('Copytrading consensus and plan (pure)', () => {
  it('when wallets hold dust, redeemable or near-certain positions, then those are not copied, and only dust and redeemable ones count as gone', () => {
    const c = whaleConsensus(
      new Map([
        [
          'w1',
          [
            row('dust', 'd-yes', 1, 0.5), // $0.50
            row('done', 'x-yes', 100, 1, { redeemable: true }),
            row('sure', 's-yes', 100, 0.95),
            row('open', 'o-yes', 100, 0.5),
          ],
        ],
      ]),
    );
    assert.equal(c.positionsFound, 2);
    assert.equal(c.stale, 1);
    assert.deepEqual(
      c.markets.map((m) => m.externalId),
      ['open'],
    );
    assert.deepEqual([...c.held].sort(), ['open', 'sure']);
  });

  it('when a wallet holds both outcomes of a market, then it counts for the side it holds more of, by the difference', () => {
    const c = whaleConsensus(
      new Map([
        ['w1', [row('m', 'yes', 100, 0.5), row('m', 'no', 40, 0.5)]],
        ['w2', [row('m', 'yes', 20, 0.5)]],
      ]),
    );
    assert.equal(c.conflicts, 0);
    assert.equal(c.markets.length, 1);
    assert.equal(c.markets[0]!.whaleUsd, 30 + 10);
    assert.deepEqual(c.markets[0]!.holders, ['w1', 'w2']);
    assert.equal(c.markets[0]!.tier, 1);
  });

  it('when a wallet is hedged and another holds one side, then it is no conflict: the hedged wallet holds no direction', () => {
    const c = whaleConsensus(
      new Map([
        ['w1', [row('m', 'yes', 100, 0.5), row('m', 'no', 100, 0.5)]],
        ['w2', [row('m', 'no', 20, 0.5)]],
      ]),
    );
    assert.equal(c.conflicts, 0);
    assert.deepEqual(c.markets[0]!.holders, ['w2']);
    assert.equal(c.markets[0]!.tokenId, 'no');
  });

  it('when the balance is small, then fewer markets are copied (the skill’s tiers)', () => {
    assert.deepEqual(
      [0, 49.99, 50, 199, 200, 499, 500, 10_000].map(autoTopN),
      [5, 5, 10, 10, 25, 25, 50, 50],
    );
  });

  it('when a buy would exceed the venue’s largest buy, then it is capped at it, and gaps under $1 are left alone', () => {
    const c = whaleConsensus(
      new Map([['w1', [row('big', 'b-yes', 10_000, 0.5), row('small', 's-yes', 2.2, 0.5)]]]),
    );
    const targets: CopyTarget[] = c.markets.map((m) => ({
      marketId: m.externalId,
      title: m.externalId,
      side: 'yes',
      consensus: m,
    }));
    const trades = planCopyTrades(targets, new Map(), [], 5001.1, {
      maxUsdPerPosition: 2000,
      buyOnly: true,
      maxBuyMicro: 500_000_000,
    });
    // big: 2000 × 0.5 = $1000, capped at $500; small: $1000 × 1.1/5000 = $0.22, under $1.
    assert.deepEqual(
      trades.map((t) => [t.marketId, t.amountMicro]),
      [['big', 500_000_000]],
    );
  });
});
