import { textColumn, type LegacyVenueColumns } from '../../markets/venue-ref-migration.js';

/** Where markets kept their Kalshi ticker before `venueRef` (the start-up migration moves it). */
export const kalshiLegacyColumns: LegacyVenueColumns = {
  columns: ['kalshiTicker'],
  indexes: ['kalshiTicker_1'],
  refOf(m) {
    const externalId = textColumn(m.kalshiTicker);
    return !externalId
      ? null
      : { venue: 'kalshi', externalId, yesTokenId: null, noTokenId: null, negRisk: null };
  },
};
