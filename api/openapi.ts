import { OpenAPIRegistry, OpenApiGeneratorV31 } from '@asteasolutions/zod-to-openapi';
import { z } from 'zod';
import { publicBaseUrl, type Env } from '../shared/infra/config/env.js';
import { ErrorBodySchema, ValidationErrorBodySchema, type EndpointSpec } from './endpoints/endpoint.js';
import { ENDPOINTS } from './endpoints/index.js';
import { tapeUploadRoute } from './endpoints/tapes.endpoints.js';
import { JSON_BODY_MAX_DEPTH } from './http/json-body.js';
import { releasedAgentMayCall } from './http/released-agent.js';
import { skipsPathWords } from './http/path-words.js';
import { listRegisteredVenues } from '../shared/domains/venues/venue-schemas.js';

/** The interface version of spec §9 (the service's own package version is separate). */
export const API_VERSION = '1.0.0';

/** Routes that are mounted sub-applications (HTML UIs) rather than rows of the endpoint table. */
export const UI_MOUNTS = [
  { path: '/docs', auth: 'none', summary: 'Readable API documentation (Swagger UI over /openapi.json)' },
  {
    path: '/admin/queues',
    auth: 'operator',
    summary: 'Queue dashboard (bull-board): waiting, active, failed jobs; retry or remove them',
  },
] as const;

const STATUS_TEXT: Record<number, string> = {
  400: 'Malformed request: JSON body (or one nested too deeply), body encoding or path percent-encoding',
  401: 'Missing or invalid credentials',
  403: 'Refused for this caller (e.g. the key of an agent its human released)',
  404: 'Not found',
  409: 'Conflict',
  413: 'Request body too large',
  415: 'Unsupported media type: send JSON (application/json, UTF-8; gzip, deflate or br allowed)',
  429: 'Rate limit exceeded (see Retry-After)',
  503: 'Temporarily unavailable; retry',
};

const security = (auth: EndpointSpec['auth']): Record<string, string[]>[] =>
  auth === 'agent'
    ? [{ agentKey: [] }]
    : auth === 'user'
      ? [{ userToken: [] }]
      : auth === 'agent-or-user'
        ? [{ agentKey: [] }, { userToken: [] }]
        : auth === 'agent-optional'
          ? [{}, { agentKey: [] }]
          : auth === 'operator'
            ? [{ operatorToken: [] }, { operatorBasic: [] }]
            : auth === 'operator-optional'
              ? [{}, { operatorToken: [] }, { operatorBasic: [] }]
              : [];

function errorResponses(e: EndpointSpec) {
  const statuses = new Set<number>(e.errors ?? []);
  if (e.body) statuses.add(400).add(413).add(415);
  if (e.params) statuses.add(400);
  if (e.auth !== 'none') statuses.add(401);
  // A named limit answers 429 with Retry-After (api/http/rate-limit.ts); so does the operator lockout
  // (shared/infra/operator-lockout.ts) at an address that sent too many wrong operator tokens.
  if (e.rateLimit || e.auth.startsWith('operator')) statuses.add(429);
  // A request an operator's browser was made to send from another site (api/http/cross-origin.ts).
  if (e.auth === 'operator') statuses.add(403);
  // A plain word as the market id is a mistyped path: 404 before the handler (api/http/path-words.ts).
  if (skipsPathWords(e)) statuses.add(404);
  if (e.auth.startsWith('agent') && !releasedAgentMayCall(e)) statuses.add(403);
  const responses: Record<
    string,
    {
      description: string;
      content: Record<string, { schema: z.ZodType }>;
    }
  > = {};
  for (const status of [...statuses].sort()) {
    responses[String(status)] = {
      description: STATUS_TEXT[status] ?? 'Error',
      content: { 'application/json': { schema: ErrorBodySchema } },
    };
  }
  if (e.body || e.query || e.params) {
    responses['422'] = {
      description: 'Validation error (spec §2.5)',
      content: {
        'application/json': {
          schema:
            e.refuses422 === 'error-body'
              ? z.union([ValidationErrorBodySchema, ErrorBodySchema])
              : ValidationErrorBodySchema,
        },
      },
    };
  }
  return responses;
}

const SECURITY_SCHEMES = {
  agentKey: {
    type: 'http',
    scheme: 'bearer',
    description: 'Agent API key `sk_live_…` from POST /api/sdk/agents/register.',
  },
  userToken: {
    type: 'http',
    scheme: 'bearer',
    bearerFormat: 'JWT',
    description: "The human's JWT (HS256 with JWT_SECRET, or RS256/ES256 with JWT_PUBLIC_KEY).",
  },
  operatorToken: { type: 'http', scheme: 'bearer', description: 'OPERATOR_TOKEN.' },
  operatorBasic: {
    type: 'http',
    scheme: 'basic',
    description: 'Any user name; OPERATOR_TOKEN as the password.',
  },
} as const;

function buildDocument(env: Env) {
  const registry = new OpenAPIRegistry();
  for (const [name, scheme] of Object.entries(SECURITY_SCHEMES))
    registry.registerComponent('securitySchemes', name, scheme);
  for (const e of Object.values(ENDPOINTS) as EndpointSpec[]) {
    registry.registerPath({
      method: e.method,
      path: e.path,
      summary: e.summary,
      description: e.description,
      tags: [e.tag],
      security: security(e.auth),
      request: {
        params: e.params,
        query: e.query,
        body: e.body ? { required: true, content: { 'application/json': { schema: e.body } } } : undefined,
      },
      responses: {
        [e.status ?? 200]: {
          description: e.status === 201 ? 'Created' : 'OK',
          content: { [e.produces ?? 'application/json']: { schema: e.response } },
        },
        ...errorResponses(e),
      },
    });
  }
  registerTapeUpload(registry);
  for (const ui of UI_MOUNTS) {
    registry.registerPath({
      method: 'get',
      path: ui.path,
      summary: ui.summary,
      tags: ['UI'],
      security: security(ui.auth),
      responses: {
        200: { description: 'HTML page', content: { 'text/html': { schema: { type: 'string' } } } },
      },
    });
  }
  const document = new OpenApiGeneratorV31(registry.definitions).generateDocument({
    openapi: '3.1.0',
    info: {
      title: 'Prediction-market agent trading service',
      version: API_VERSION,
      description:
        'HTTP/JSON interface for automated trading agents. Errors carry `detail`, `error` (same text) and `fix`; 422 carries the validation body of spec §2.5. ' +
        `Every JSON body is checked before its fields: nested deeper than ${JSON_BODY_MAX_DEPTH} levels is a 400 \`body_too_deep\`; an object key the database cannot store (one containing NUL, or starting with \`$\` or \`.\`) anywhere in it is a 422 \`body_key_invalid\` whose \`loc\` names the key.`,
    },
    servers: [{ url: publicBaseUrl(env) }],
  });
  return listRegisteredVenues(nullableRefsAsAnyOf(document));
}

/** The raw-body upload route (api/http/tape-uploads.ts), with what the table would imply for an operator route. */
function registerTapeUpload(registry: OpenAPIRegistry) {
  const r = tapeUploadRoute;
  const error = (description: string) => ({
    description,
    content: { 'application/json': { schema: ErrorBodySchema } },
  });
  registry.registerPath({
    method: r.method,
    path: r.path,
    summary: r.summary,
    description: r.description,
    tags: ['Operator'],
    security: security('operator'),
    request: {
      params: r.params,
      headers: r.headers,
      body: { required: true, content: { 'application/octet-stream': { schema: r.body } } },
    },
    responses: {
      201: { description: 'Created', content: { 'application/json': { schema: r.response } } },
      ...Object.fromEntries(Object.entries(r.errors).map(([status, text]) => [status, error(text)])),
      401: error(STATUS_TEXT[401]!),
      403: error('A request from another site (the operator’s browser sent it)'),
      429: error(STATUS_TEXT[429]!),
    },
  });
}

type JsonNode = Record<string, unknown>;

/**
 * zod-to-openapi (9.x, OpenAPI 3.1) writes a nullable named schema as
 * `allOf: [{$ref}, {type: [T, 'null']}]`, which no `null` can satisfy (the `$ref` half refuses it):
 * generated clients then reject every answer where the field is null. Rewritten here as
 * `anyOf: [{$ref}, {type: 'null'}]`, keeping the annotations (description, …) of the second half.
 */
export function nullableRefsAsAnyOf<T>(node: T): T {
  if (Array.isArray(node)) return node.map(nullableRefsAsAnyOf) as T;
  if (!node || typeof node !== 'object') return node;
  const out: JsonNode = {};
  for (const [key, value] of Object.entries(node as JsonNode)) out[key] = nullableRefsAsAnyOf(value);
  const allOf = out.allOf as JsonNode[] | undefined;
  const [ref, nullable, ...more] = allOf ?? [];
  const types = nullable?.type;
  if (!ref?.$ref || more.length || !Array.isArray(types) || !types.includes('null')) return out as T;
  const { type: _type, ...annotations } = nullable!;
  const { allOf: _allOf, ...rest } = out;
  return { ...rest, ...annotations, anyOf: [ref, { type: 'null' }] } as T;
}

let cached: { key: string; doc: ReturnType<typeof buildDocument> } | undefined;

/** Built once per base URL: the document is a pure function of the endpoint table. */
export function getOpenApiDocument(env: Env) {
  const key = publicBaseUrl(env);
  if (cached?.key !== key) cached = { key, doc: buildDocument(env) };
  return cached.doc;
}
