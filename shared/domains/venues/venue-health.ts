import type { Deps } from '../../composition/deps.js';

/** Every venue's hosts with their circuit state and last success/error (GET /api/admin/venues, the console). */
export function venueHealth(deps: Pick<Deps, 'venues' | 'env'>) {
  return {
    venues: deps.venues.all().map((v) => ({
      venue: v.id,
      hosts: v.health().map(({ venue: _venue, ...host }) => host),
    })),
    mode: deps.env.VENUES,
  };
}
