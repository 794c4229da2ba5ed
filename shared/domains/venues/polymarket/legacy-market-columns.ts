import { textColumn, type LegacyVenueColumns } from '../../markets/venue-ref-migration.js';

/** Where markets kept their Polymarket reference before `venueRef` (the start-up migration moves it). */
export const polymarketLegacyColumns: LegacyVenueColumns = {
  columns: ['polymarketId', 'polymarketTokenId', 'polymarketNoTokenId', 'polymarketNegRisk'],
  indexes: ['polymarketId_1'],
  refOf(m) {
    const externalId = textColumn(m.polymarketId);
    if (!externalId) return null;
    return {
      venue: 'polymarket',
      externalId,
      yesTokenId: textColumn(m.polymarketTokenId),
      noTokenId: textColumn(m.polymarketNoTokenId),
      negRisk: typeof m.polymarketNegRisk === 'boolean' ? m.polymarketNegRisk : null,
    };
  },
};
