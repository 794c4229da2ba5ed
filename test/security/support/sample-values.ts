import fc from 'fast-check';
import { z } from 'zod';

/** A JSON Schema node as zod's toJSONSchema writes it (only the keywords the sampler reads). */
interface JsonSchema {
  $ref?: string;
  $defs?: Record<string, JsonSchema>;
  type?: string | string[];
  const?: unknown;
  enum?: unknown[];
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
  allOf?: JsonSchema[];
  properties?: Record<string, JsonSchema>;
  required?: string[];
  items?: JsonSchema;
  minItems?: number;
  minLength?: number;
  maxLength?: number;
  minimum?: number;
  exclusiveMinimum?: number;
  maximum?: number;
  format?: string;
  pattern?: string;
  default?: unknown;
}

export const jsonSchemaOf = (schema: z.ZodType): JsonSchema =>
  z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }) as JsonSchema;

/**
 * The smallest request value a zod schema accepts, built from its JSON Schema: required fields
 * only, first enum member, bounds respected. `known` supplies values by property name where a
 * shape alone cannot (a real market id, a wallet address). Good enough to get a request past
 * validation so that an attack reaches the handler; `acceptsSample` says whether it did.
 */
export function sampleOf(schema: z.ZodType, known: Record<string, unknown> = {}): unknown {
  const root = jsonSchemaOf(schema);
  const resolve = (node: JsonSchema): JsonSchema =>
    node.$ref ? resolve(root.$defs?.[node.$ref.split('/').pop()!] ?? {}) : node;

  const sample = (raw: JsonSchema, name?: string): unknown => {
    const node = resolve(raw);
    if (name !== undefined && name in known) return known[name];
    if (node.const !== undefined) return node.const;
    if (node.enum?.length) return node.enum[0];
    const options = node.anyOf ?? node.oneOf;
    if (options?.length) {
      const nonNull = options.find((o) => resolve(o).type !== 'null') ?? options[0]!;
      return sample(nonNull, name);
    }
    if (node.allOf?.length) return sample(node.allOf[0]!, name);
    const type = Array.isArray(node.type) ? node.type.find((t) => t !== 'null') : node.type;
    switch (type) {
      case 'object': {
        const out: Record<string, unknown> = {};
        for (const key of node.required ?? []) out[key] = sample(node.properties?.[key] ?? {}, key);
        for (const key of Object.keys(node.properties ?? {}))
          if (!(key in out) && key in known) out[key] = known[key];
        return out;
      }
      case 'array':
        return Array.from({ length: node.minItems ?? 0 }, () => sample(node.items ?? {}, undefined));
      case 'integer':
      case 'number': {
        if (node.minimum !== undefined) return Math.max(node.minimum, type === 'integer' ? node.minimum : 1);
        if (node.exclusiveMinimum !== undefined) return node.exclusiveMinimum + 1;
        return Math.min(1, node.maximum ?? 1);
      }
      case 'boolean':
        return false;
      case 'string':
        return stringSample(node, name);
      default:
        return node.default ?? 'x';
    }
  };
  return sample(root);
}

/** Names of fields that hold a URL even where the schema says only "string". */
const URL_NAME = /(^|_)(url|uri|homepage|endpoint|callback)$/;

function stringSample(node: JsonSchema, name: string | undefined): string {
  if (node.format === 'uri' || node.format === 'url' || URL_NAME.test(name ?? ''))
    return 'https://example.com/sample';
  if (node.format === 'uuid') return '00000000-0000-4000-8000-000000000000';
  if (node.format === 'email') return 'sample@example.com';
  if (node.format === 'date-time') return new Date().toISOString();
  if (node.pattern) {
    // Strings the pattern accepts, the shortest one within the length bounds.
    const candidates = fc.sample(fc.stringMatching(new RegExp(node.pattern)), { numRuns: 50, seed: 16 });
    const fits = candidates
      .filter((c) => c.length >= (node.minLength ?? 0) && c.length <= (node.maxLength ?? Infinity))
      .sort((x, y) => x.length - y.length);
    if (fits[0] !== undefined) return fits[0];
  }
  const length = Math.max(node.minLength ?? 1, 8);
  return 'sample-value-'
    .padEnd(Math.min(length, node.maxLength ?? length), 'x')
    .slice(0, node.maxLength ?? 64);
}
