import { z } from 'zod';
import { externalVenueIds, venueIds, venueNames, type ExternalVenueId, type VenueId } from './venue-id.js';

/**
 * Marks a venue field in the OpenAPI document: the document builder replaces it with the `enum` of
 * the venues registered in this process (see `listRegisteredVenues`), since the schemas are built
 * when their modules load, before the composition root registers anything.
 */
export const VENUE_ENUM_MARK = 'x-registered-venues';
/** The venues' ids, every accepted spelling of them, or the external venues' ids (every one but our pool's). */
type VenueSet = 'ids' | 'names' | 'external';

const VENUE_SETS: Record<VenueSet, () => string[]> = {
  ids: venueIds,
  names: venueNames,
  external: externalVenueIds,
};

/** The values a venue field takes: the venues of `set` in this process, plus fixed extras. */
const allowedValues = (set: VenueSet, extra: readonly string[]): string[] => [...extra, ...VENUE_SETS[set]()];

/**
 * A request field naming a venue, checked against the venues of this process at each parse. It
 * answers an unknown name exactly as `z.enum` would (same issue code, values and message), so
 * clients see the same 422 as when the list was fixed.
 */
export function venueEnum<E extends string = never>(
  set: 'ids',
  extra?: readonly E[],
): z.ZodType<VenueId | E, VenueId | E>;
export function venueEnum<E extends string = never>(
  set: 'external',
  extra?: readonly E[],
): z.ZodType<ExternalVenueId | E, ExternalVenueId | E>;
export function venueEnum<E extends string = never>(
  set: 'names',
  extra?: readonly E[],
): z.ZodType<string, string>;
export function venueEnum(set: VenueSet, extra: readonly string[] = []): z.ZodType<string, string> {
  // A check before the string schema: a number answers `invalid_value` as `z.enum` does, not `invalid_type`.
  const schema = z.preprocess((value, ctx) => {
    const values = allowedValues(set, extra);
    if (typeof value === 'string' && values.includes(value)) return value;
    ctx.issues.push({ code: 'invalid_value', values, input: value });
    return z.NEVER;
  }, z.string());
  return schema.meta({ [VENUE_ENUM_MARK]: { set, extra } }) as unknown as z.ZodType<string, string>;
}

/**
 * Rewrites the marked venue fields of a generated OpenAPI document into the string enum `z.enum`
 * would have given, listing the venues registered now.
 */
export function listRegisteredVenues<T>(node: T): T {
  if (Array.isArray(node)) return node.map(listRegisteredVenues) as T;
  if (!node || typeof node !== 'object') return node;
  const { [VENUE_ENUM_MARK]: mark, ...rest } = node as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  if (mark) {
    const { set, extra } = mark as { set: VenueSet; extra: string[] };
    Object.assign(out, { type: 'string', enum: allowedValues(set, extra) });
  }
  for (const [key, value] of Object.entries(rest)) out[key] = listRegisteredVenues(value);
  return out as T;
}
