import { AppError } from '../../infra/errors.js';
import type { VenueAdapter } from './venue-adapter.js';
import { registerVenueId, type VenueId } from './venue-id.js';

/**
 * The adapters of this process, one per venue it can reach; built once in the composition root.
 * Every adapter given becomes a venue of the process (registerVenueId): requests may name it and
 * documents may store it.
 */
export class VenueRegistry {
  private readonly byId = new Map<VenueId, VenueAdapter>();

  constructor(adapters: VenueAdapter[]) {
    for (const a of adapters) this.byId.set(registerVenueId(a.id), a);
  }

  has(id: VenueId): boolean {
    return this.byId.has(id);
  }

  /** The adapter of `id`, or a 503 `venue_unavailable` when this service has none for it. */
  get(id: VenueId): VenueAdapter {
    const adapter = this.byId.get(id);
    if (!adapter)
      throw new AppError(
        503,
        'venue_unavailable',
        `Venue ${id} is not available on this service yet`,
        'Trade on venue "sim", or ask the operator which venues this deployment connects to (GET /api/admin/venues).',
      );
    return adapter;
  }

  all(): VenueAdapter[] {
    return [...this.byId.values()];
  }
}
