/**
 * The fill feed's record. Declared beside the venue seam (venues/venue-fill.ts) because a venue's
 * `fillFeed` produces it and the venue surface may not import this folder (the folders would
 * import one another); the fill feed and Reactor read it from here.
 */
export type { FillMarket, VenueFill } from '../venues/venue-fill.js';
