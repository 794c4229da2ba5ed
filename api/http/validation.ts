import type { z } from 'zod';
import { RequestValidationError, type ValidationItem } from '../../shared/infra/errors.js';

export { RequestValidationError };

export type RequestPart = 'body' | 'query' | 'path';

const CTX_EXCLUDED = new Set(['code', 'path', 'message', 'input', 'inst', 'continue']);

/** Fields whose value a 422 never echoes back (error bodies end up in agents' logs and transcripts). */
const SECRET_FIELDS = new Set(['api_secret', 'api_passphrase', 'secret', 'passphrase', 'private_key']);

function redactSecrets(loc: string[], input: unknown): unknown {
  if (loc.some((part) => SECRET_FIELDS.has(part))) return '[redacted]';
  if (!input || typeof input !== 'object' || Array.isArray(input)) return input;
  return Object.fromEntries(
    Object.entries(input).map(([k, v]) => [k, SECRET_FIELDS.has(k) ? '[redacted]' : v]),
  );
}

function issueType(issue: z.core.$ZodIssue & { input?: unknown }): string {
  if (issue.code === 'invalid_type' && issue.input === undefined) return 'missing';
  if (issue.code === 'unrecognized_keys') return 'extra_forbidden';
  return issue.code;
}

export function toValidationItems(issues: z.core.$ZodIssue[], part: RequestPart): ValidationItem[] {
  const items: ValidationItem[] = [];
  for (const issue of issues as (z.core.$ZodIssue & { input?: unknown })[]) {
    const ctx = Object.fromEntries(Object.entries(issue).filter(([k]) => !CTX_EXCLUDED.has(k)));
    const loc = [part, ...issue.path.map(String)];
    if (issue.code === 'unrecognized_keys') {
      // One entry per unknown field, pointing at the field, as FastAPI does for extra="forbid".
      const given = (issue.input ?? {}) as Record<string, unknown>;
      for (const key of issue.keys) {
        items.push({
          loc: [...loc, key],
          msg: `Unknown field "${key}" is not allowed`,
          type: 'extra_forbidden',
          input: redactSecrets([...loc, key], given[key] ?? null),
          ctx: {},
        });
      }
      continue;
    }
    const msg = issueType(issue) === 'missing' ? 'Field required' : issue.message;
    items.push({ loc, msg, type: issueType(issue), input: redactSecrets(loc, issue.input ?? null), ctx });
  }
  return items;
}

/** Parses one part of the request or throws a 422 listing every problem. */
export function parseRequestPart<S extends z.ZodType>(
  schema: S,
  value: unknown,
  part: RequestPart,
): z.output<S> {
  const result = schema.safeParse(value, { reportInput: true });
  if (result.success) return result.data;
  const items = toValidationItems(result.error.issues, part);
  const fields = 'shape' in schema ? Object.keys((schema as unknown as z.ZodObject).shape) : [];
  const unknown = items.filter((i) => i.type === 'extra_forbidden').map((i) => i.loc.at(-1));
  throw new RequestValidationError(
    items,
    unknown.length && fields.length
      ? `Remove ${unknown.map((k) => `"${k}"`).join(', ')}: the fields that can be set here are ${fields.join(', ')}.`
      : undefined,
  );
}
