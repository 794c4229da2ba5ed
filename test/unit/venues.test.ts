import assert from 'node:assert/strict';
import {
  CONDITION_ID,
  isServiceMarketId,
  KALSHI_TICKER,
  recogniseExternalId,
  SERVICE_MARKET_ID,
  TOKEN_ID,
} from '../../shared/domains/venues/external-ids.js';
import { rawPrice, sharesToMove, stateAt, withShares } from '../../shared/domains/markets/lmsr.js';
import { syntheticBook } from '../../shared/domains/markets/sim-book.js';
import {
  BUILT_IN_VENUE_IDS,
  externalVenueIds,
  isVenueId,
  normalizeVenue,
  registerVenueId,
  venueIds,
  venueNames,
} from '../../shared/domains/venues/venue-id.js';

const CONDITION = `0x${'ab12'.repeat(16)}`;
const UUID = '3f2b8c1e-9a4d-4e6f-8b2a-1c3d5e7f9a0b';

describe('venue ids and external ids #unit', () => {
  describe('normalizeVenue', () => {
    it('when a venue id is sent in any case or with spaces, then it is that venue without a warning', () => {
      for (const v of venueIds()) {
        assert.deepEqual(normalizeVenue(` ${v.toUpperCase()} `), { venue: v, warning: null });
      }
    });

    it('when a legacy sim alias is sent, then it is sim with a deprecation warning naming the alias', () => {
      for (const alias of ['simmer', 'SANDBOX']) {
        const n = normalizeVenue(alias);
        assert.equal(n?.venue, 'sim');
        assert.equal(n?.warning, `venue "${alias.toLowerCase()}" is deprecated; use "sim" (same venue).`);
      }
    });

    it('when an unknown name is sent, then there is no venue', () => {
      assert.equal(normalizeVenue('binance'), null);
      assert.equal(normalizeVenue(''), null);
    });

    it('when the name lists are read, then every id is a name and only external venues exclude sim', () => {
      for (const v of venueIds()) assert.ok(venueNames().includes(v));
      assert.deepEqual(venueIds().slice(0, 3), [...BUILT_IN_VENUE_IDS]);
      assert.deepEqual(externalVenueIds().slice(0, 2), ['polymarket', 'kalshi']);
      assert.ok(!externalVenueIds().map(String).includes('sim'));
      assert.ok(isVenueId('kalshi'));
      assert.ok(!isVenueId('simmer'));
      assert.ok(!isVenueId(42));
    });

    it('when a venue is registered, then it is a venue id, an external venue and a name', () => {
      const id = registerVenueId('unit-test-venue');
      assert.ok(isVenueId('unit-test-venue'));
      assert.deepEqual(normalizeVenue(' Unit-Test-Venue '), { venue: id, warning: null });
      assert.ok(externalVenueIds().map(String).includes(id));
      assert.ok(venueNames().includes(id));
    });

    it('when a legacy sim alias or a name that is no lower-case word is registered, then it is refused', () => {
      assert.throws(() => registerVenueId('simmer'), /legacy name of sim/);
      assert.throws(() => registerVenueId('Has Space'), /not a lower-case word/);
    });
  });

  describe('recogniseExternalId', () => {
    it('when a condition id is pasted, then it is a Polymarket condition id, stored lower case', () => {
      assert.deepEqual(recogniseExternalId(` ${CONDITION.toUpperCase().replace('0X', '0x')} `), {
        venue: 'polymarket',
        kind: 'condition_id',
        value: CONDITION,
      });
    });

    it('when a CLOB token id is pasted, then it is a Polymarket token id', () => {
      const token = '71321045679252212594626385532706912750332728571942532289631379312455583992563';
      assert.deepEqual(recogniseExternalId(token), { venue: 'polymarket', kind: 'token_id', value: token });
    });

    it('when a Kalshi ticker is pasted, then it is a Kalshi ticker', () => {
      assert.deepEqual(recogniseExternalId('KXBTCD-25DEC3117-T99999.99'), {
        venue: 'kalshi',
        kind: 'ticker',
        value: 'KXBTCD-25DEC3117-T99999.99',
      });
    });

    it('when a service market id or free text is given, then it is no external id', () => {
      assert.equal(recogniseExternalId(UUID), null);
      assert.equal(recogniseExternalId('will it rain'), null);
      assert.equal(recogniseExternalId('0x1234'), null);
    });

    it('when ids are tested against each pattern, then each matches only its own form', () => {
      assert.ok(SERVICE_MARKET_ID.test(UUID) && isServiceMarketId(UUID.toUpperCase()));
      assert.ok(!isServiceMarketId(`${UUID}0`) && !isServiceMarketId('-'.repeat(36)));
      assert.ok(CONDITION_ID.test(CONDITION) && !CONDITION_ID.test(CONDITION.slice(0, -1)));
      assert.ok(TOKEN_ID.test('1'.repeat(20)) && !TOKEN_ID.test('1'.repeat(19)));
      assert.ok(
        KALSHI_TICKER.test('KXCHECK-1') && !KALSHI_TICKER.test('KXCHECK') && !KALSHI_TICKER.test('kx-1'),
      );
    });
  });

  describe('the synthetic sim book', () => {
    it('when buying a level size after the levels before it, then the price moves to that level', () => {
      const s = stateAt(2241, 0.5);
      const { asks, bids } = syntheticBook(s, 'yes', 0.01);
      assert.deepEqual(
        asks.map((l) => l.price),
        [0.51, 0.52, 0.53, 0.54, 0.55],
      );
      assert.deepEqual(
        bids.map((l) => l.price),
        [0.49, 0.48, 0.47, 0.46, 0.45],
      );
      let cumulative = 0;
      for (const level of asks) {
        cumulative += level.size;
        assert.ok(Math.abs(rawPrice(withShares(s, 'yes', cumulative), 'yes') - level.price) < 1e-6);
      }
      assert.ok(Math.abs(sharesToMove(s, 'yes', 0.45) + bids.reduce((t, l) => t + l.size, 0)) < 1e-4);
    });

    it('when the NO side is asked for, then its ladder mirrors the YES price', () => {
      const { asks, bids } = syntheticBook(stateAt(2241, 0.7), 'no', 0.01);
      assert.equal(asks[0]!.price, 0.31);
      assert.equal(bids[0]!.price, 0.29);
    });
  });
});
