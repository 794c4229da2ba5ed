import { AppError } from '../../infra/errors.js';
import type { VenueAdapter } from './venue-adapter.js';
import { declareExternalIdCase, declareVenueMoney } from './venue-conventions.js';
import { isExternalVenue, registerVenueId, type ExternalVenueId, type VenueId } from './venue-id.js';

/** An external venue's adapter. */
export type ExternalVenueAdapter = VenueAdapter & { readonly id: ExternalVenueId };

/** Whether the adapter is an external venue's (every venue but our pool's). */
export const isExternalAdapter = (a: VenueAdapter): a is ExternalVenueAdapter => isExternalVenue(a.id);

/**
 * The adapters of this process, one per venue it can reach; built once in the composition root.
 * Every adapter given becomes a venue of the process (registerVenueId): requests may name it and
 * documents may store it; what it declares of its money and of its ids' case is recorded
 * (declareVenueMoney, declareExternalIdCase).
 */
export class VenueRegistry {
  private readonly byId = new Map<VenueId, VenueAdapter>();

  constructor(adapters: VenueAdapter[]) {
    for (const a of adapters) {
      const id = registerVenueId(a.id);
      if (a.money && isExternalVenue(id)) declareVenueMoney(id, a.money);
      if (a.externalIdCase && isExternalVenue(id)) declareExternalIdCase(id, a.externalIdCase);
      this.byId.set(id, a);
    }
  }

  has(id: VenueId): boolean {
    return this.byId.has(id);
  }

  /** The adapter of `id`, or a 503 `venue_unavailable` when this service has none for it. */
  get(id: VenueId): VenueAdapter {
    const adapter = this.byId.get(id);
    if (!adapter) throw unavailable(`Venue ${id}`);
    return adapter;
  }

  /** The venue whose wallets' holdings are public (`publicWallets`), or a 503 `venue_unavailable`. */
  withPublicWallets(): ExternalVenueAdapter {
    const adapter = this.all().find(
      (a): a is ExternalVenueAdapter => isExternalAdapter(a) && a.publicWallets === true,
    );
    if (!adapter) throw unavailable('A venue with public wallet positions');
    return adapter;
  }

  all(): VenueAdapter[] {
    return [...this.byId.values()];
  }
}

const unavailable = (what: string) =>
  new AppError(
    503,
    'venue_unavailable',
    `${what} is not available on this service yet`,
    'Trade on venue "sim", or ask the operator which venues this deployment connects to (GET /api/admin/venues).',
  );
