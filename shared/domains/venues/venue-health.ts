import type { InfraDeps } from '../../infra/infra-deps.js';
import type { VenueRegistry } from './venue-registry.js';

/** What this module's functions use of the process (the composition root's Deps has all of it). */
export type VenueHealthDeps = Pick<InfraDeps, 'env'> & { venues: VenueRegistry };

/** Every venue's hosts with their circuit state and last success/error (GET /api/admin/venues, the console). */
export function venueHealth(deps: Pick<VenueHealthDeps, 'venues' | 'env'>) {
  return {
    venues: deps.venues.all().map((v) => ({
      venue: v.id,
      hosts: v.health().map(({ venue: _venue, ...host }) => host),
    })),
    mode: deps.env.VENUES,
  };
}
