import assert from 'node:assert/strict';
import { linkedAgents, unrankedPositionIds } from '../../shared/domains/reads/linked-agents.js';
import type { VenueId } from '../../shared/domains/venues/venue-id.js';

const HOUR = 3600_000;
const at = (hours: number) => new Date(Date.UTC(2026, 0, 1) + hours * HOUR);
const position = (agentId: string, marketId: string, from: number, to = from, venue: VenueId = 'sim') => ({
  _id: `${agentId}:${marketId}:${venue}`,
  agentId,
  marketId,
  venue,
  openedAt: at(from),
  lastTradeAt: at(to),
});

describe('leaderboard farming rule (linked agents) #unit', () => {
  const agents = [
    { _id: 'a', claimedBy: null, registeredFrom: 'ip-1' },
    { _id: 'b', claimedBy: null, registeredFrom: 'ip-1' },
    { _id: 'c', claimedBy: 'u-1', registeredFrom: 'ip-2' },
    { _id: 'd', claimedBy: 'u-1', registeredFrom: 'ip-3' },
    { _id: 'e', claimedBy: null, registeredFrom: 'ip-4' },
    { _id: 'f', claimedBy: null, registeredFrom: null },
  ];

  it('when agents share an address or an owner, then they are linked; a lone agent or one without either is not', () => {
    const linked = linkedAgents(agents);
    assert.deepEqual([...linked.keys()].sort(), ['a', 'b', 'c', 'd']);
    assert.deepEqual(linked.get('c'), ['owner:u-1']);
  });

  it('when linked agents trade one market within the window, then both positions are unranked; apart, on other markets or venues, or unlinked, they rank', () => {
    const linked = linkedAgents(agents);
    const unranked = unrankedPositionIds(
      [
        position('a', 'm1', 0, 2),
        position('b', 'm1', 20), // 18 h after a's last trade: within 24 h
        position('c', 'm2', 0),
        position('d', 'm2', 30), // 30 h after: outside
        position('a', 'm3', 0),
        position('b', 'm3', 0, 0, 'polymarket'), // another venue
        position('e', 'm1', 1), // not linked to anyone
        position('c', 'm4', 0),
        position('a', 'm4', 0), // on one market, but linked to c by nothing
      ],
      linked,
      24 * HOUR,
    );
    assert.deepEqual([...unranked].sort(), ['a:m1:sim', 'b:m1:sim']);
  });
});
