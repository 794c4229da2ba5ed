import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { z } from 'zod';
import type { Env } from '../infra/config/env.js';
import type { Logger } from '../infra/logger.js';
import type { Metrics } from '../infra/metrics.js';
import type { VenueHttpClient } from '../infra/http/venue-http-client.js';
import { registerVenueId, type VenueId } from '../domains/venues/venue-id.js';
import { upstreamClient, type ExtraVenue } from './venues.js';

/** Module paths in `VENUE_MODULES` are read from here, whatever the process's working directory. */
const PROJECT_ROOT = resolve(import.meta.dirname, '../..');

/** What the composition root hands a venue module's factory. */
export interface VenueModuleContext<Settings> {
  /** The module's id, registered as a venue of this process before the factory runs. */
  id: VenueId;
  /** The module's settings, validated by its own schema. */
  settings: Settings;
  logger: Logger;
  metrics: Metrics;
  /** A client of one upstream host with the service's timeouts, retries, breaker and venue metrics. */
  http: (baseUrl: string) => VenueHttpClient;
}

/**
 * A venue beside the built-in ones, as a module listed in `VENUE_MODULES` exports it (named
 * `venueModule`): its id, the schema of its settings (read from the environment) and the factory
 * that builds its adapter and trading once the process's logger and metrics exist.
 */
export interface VenueModule<Settings = unknown> {
  id: string;
  settings: z.ZodType<Settings>;
  create(ctx: VenueModuleContext<Settings>): ExtraVenue;
}

/** Declares a venue module, typing its factory's settings from its schema. */
export const defineVenueModule = <Settings>(module: VenueModule<Settings>): VenueModule<Settings> => module;

const isVenueModule = (v: unknown): v is VenueModule =>
  typeof v === 'object' &&
  v !== null &&
  typeof (v as VenueModule).id === 'string' &&
  typeof (v as VenueModule).create === 'function' &&
  typeof (v as VenueModule).settings?.safeParse === 'function';

/** Reads one `VENUE_MODULES` entry: the module at `path` (from the project root) and its `venueModule`. */
export async function importVenueModule(path: string): Promise<VenueModule> {
  const exported: unknown = (await import(pathToFileURL(resolve(PROJECT_ROOT, path)).href)).venueModule;
  if (!isVenueModule(exported))
    throw new Error(
      `VENUE_MODULES: ${path} exports no venueModule (an object with id, settings and create; see docs/adding-a-venue.md)`,
    );
  return exported;
}

/**
 * Builds the venue of one module: registers its id, validates its settings against `source` and
 * calls its factory. A setting that does not pass stops the process, naming the module.
 */
export function createModuleVenue(
  module: VenueModule,
  { env, source, log, metrics }: { env: Env; source: Record<string, unknown>; log: Logger; metrics: Metrics },
): ExtraVenue {
  const id = registerVenueId(module.id);
  const parsed = module.settings.safeParse(source);
  if (!parsed.success)
    throw new Error(
      `VENUE_MODULES: venue ${id} has bad settings: ${parsed.error.issues
        .map((i) => `${i.path.join('.')}: ${i.message}`)
        .join('; ')}`,
    );
  const venue = module.create({
    id,
    settings: parsed.data,
    logger: log.child({ component: 'venue', venue: id }),
    metrics,
    http: (baseUrl) => upstreamClient(env, metrics, log, id, baseUrl),
  });
  if (venue.adapter.id !== id)
    throw new Error(`VENUE_MODULES: venue ${id} built an adapter registered as ${venue.adapter.id}`);
  return venue;
}

/** The venues of every module `VENUE_MODULES` lists, in its order. */
export async function loadVenueModules(
  env: Env,
  deps: { source: Record<string, unknown>; log: Logger; metrics: Metrics },
): Promise<ExtraVenue[]> {
  const venues: ExtraVenue[] = [];
  for (const path of env.VENUE_MODULES ?? [])
    venues.push(createModuleVenue(await importVenueModule(path), { env, ...deps }));
  return venues;
}
