import type { Processor } from '../../shared/composition/processor.js';
import { runImport } from '../../shared/domains/imports/run-import.js';
import { checkResolutions } from '../../shared/domains/venue-sync/check-resolutions.js';
import { expireSimMarkets } from '../../shared/domains/venue-sync/expire-sim-markets.js';
import { importFastMarkets } from '../../shared/domains/venue-sync/import-fast-markets.js';
import { syncExternalPrices } from '../../shared/domains/venue-sync/sync-external-prices.js';
import { syncVenueOrders } from '../../shared/domains/trading/venue-orders.js';

export const importMarketsProcessor: Processor<'import-markets'> = async (data, { deps }) =>
  runImport(deps, data.importId);

export const syncExternalPricesProcessor: Processor<'sync-external-prices'> = async (data, { deps }) =>
  syncExternalPrices(deps, `${data.every}-${data.bucket}`);

export const checkResolutionsProcessor: Processor<'check-resolutions'> = async (_data, { deps }) =>
  checkResolutions(deps);

export const importFastMarketsProcessor: Processor<'import-fast-markets'> = async (_data, { deps }) =>
  importFastMarkets(deps);

export const expireSimMarketsProcessor: Processor<'expire-sim-markets'> = async (_data, { deps }) =>
  expireSimMarkets(deps);

export const syncVenueOrdersProcessor: Processor<'sync-venue-orders'> = async (_data, { deps }) =>
  syncVenueOrders(deps);
