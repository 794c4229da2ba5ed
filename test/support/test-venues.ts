/**
 * Venues the test harness registers past the built-in ones (createDeps `extraVenues`), one
 * re-export per venue: `export { myVenue } from '../my-venue/index.js';`. Every export here is an
 * `ExtraVenue`; hooks.ts registers them all.
 */
export {};
export { fixtureVenue } from '../fixture-venue/index.js';
