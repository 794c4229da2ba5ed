import assert from 'node:assert/strict';
import { heldElsewhere, holderKey, holderView, isHolder } from '../../shared/domains/positions/holder.js';

const MANAGED = '0xAb72A81ADF6CF6a38A907fc96bE8c07E37C7BD35';
const AGENT = '0x53CBD368379EE8807a19B6aEa3Dd12943F03eB2f';
const SOLANA = 'CjWXMNTXPo81y8FKugmqtynkYnFoapiDrffDnKsW4rYU';

const position = (over: Partial<Parameters<typeof heldElsewhere>[0] & object> = {}) => ({
  venue: 'polymarket' as const,
  status: 'open' as const,
  holderAddress: holderKey('polymarket', MANAGED),
  sharesYesMicro: 19_600_000,
  sharesNoMicro: 0,
  reservedYesMicro: 0,
  reservedNoMicro: 0,
  ...over,
});

describe('position holders #unit', () => {
  it('when addresses are compared, then Polygon ones ignore case and Solana ones do not', () => {
    assert.equal(holderKey('polymarket', MANAGED), MANAGED.toLowerCase());
    assert.equal(holderKey('kalshi', SOLANA), SOLANA);
    assert.ok(isHolder(position(), MANAGED.toUpperCase().replace('0X', '0x')));
    assert.ok(!isHolder(position({ venue: 'kalshi', holderAddress: SOLANA }), SOLANA.toLowerCase()));
    assert.ok(!isHolder(position({ holderAddress: null }), MANAGED));
  });

  it('when an open position holds shares in one wallet, then only another wallet is told where it is', () => {
    assert.equal(heldElsewhere(position(), MANAGED), null);
    assert.equal(heldElsewhere(position(), AGENT), MANAGED.toLowerCase());
    // Shares set aside by a sale in flight are still in the wallet.
    assert.equal(
      heldElsewhere(position({ sharesYesMicro: 0, reservedYesMicro: 5_000_000 }), AGENT),
      MANAGED.toLowerCase(),
    );
  });

  it('when nothing is held, the position is closed or settled, or the holder is unknown, then any wallet may trade', () => {
    assert.equal(heldElsewhere(null, AGENT), null);
    assert.equal(heldElsewhere(position({ sharesYesMicro: 0 }), AGENT), null);
    assert.equal(heldElsewhere(position({ status: 'closed' }), AGENT), null);
    assert.equal(heldElsewhere(position({ status: 'settled' }), AGENT), null);
    assert.equal(heldElsewhere(position({ holderAddress: null }), AGENT), null);
  });

  it('when a holder is shown, then a Polygon address is checksummed and an unknown one is null', () => {
    assert.equal(holderView(position()), MANAGED);
    assert.equal(holderView({ venue: 'kalshi', holderAddress: SOLANA }), SOLANA);
    assert.equal(holderView({ venue: 'sim', holderAddress: null }), null);
  });
});
