import assert from 'node:assert/strict';
import type { VenueAdapter } from '../../shared/domains/venues/venue-adapter.js';
import { declareExternalIdCase, normalizeExternalId } from '../../shared/domains/venues/venue-conventions.js';
import type { ExternalVenueId } from '../../shared/domains/venues/venue-id.js';
import { VenueRegistry } from '../../shared/domains/venues/venue-registry.js';

/** A registered venue's adapter declaring only its id and its ids' case. */
const adapter = (id: string, externalIdCase: VenueAdapter['externalIdCase']) =>
  ({ id, externalIdCase }) as unknown as VenueAdapter;

describe('a registered venue declares the case of its market ids #unit', () => {
  // One id registered for the whole test process (as venue-money.test.ts does): the registry is
  // what reads an adapter's declaration.
  it('when its adapter declares preserve, then mixed-case ids (a Manifold-like venue) are stored and looked up as spelled', () => {
    new VenueRegistry([adapter('unit-mixed-case-venue', 'preserve')]);
    const venue = 'unit-mixed-case-venue' as ExternalVenueId;
    assert.equal(normalizeExternalId(venue, 'aB3xQ9Lm'), 'aB3xQ9Lm');
    assert.notEqual(normalizeExternalId(venue, 'aB3xQ9Lm'), normalizeExternalId(venue, 'ab3xq9lm'));
  });

  it('when a venue declares upper, then ids are upper case; when it declares nothing, lower case', () => {
    declareExternalIdCase('unit-upper-case-venue' as ExternalVenueId, 'upper');
    assert.equal(normalizeExternalId('unit-upper-case-venue' as ExternalVenueId, 'Kx-1'), 'KX-1');
    assert.equal(normalizeExternalId('unit-undeclared-venue' as ExternalVenueId, 'Kx-1'), 'kx-1');
  });

  it('when a built-in venue’s adapter declares a case, then the registry refuses it (theirs is fixed in venue-conventions.ts)', () => {
    assert.throws(
      () => new VenueRegistry([adapter('kalshi', 'preserve')]),
      /venue kalshi is built in: its id case is declared here/,
    );
  });
});
