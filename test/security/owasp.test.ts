import assert from 'node:assert/strict';
import request from 'supertest';
import { expressPath, type EndpointSpec } from '../../api/endpoints/endpoint.js';
import { testContext } from '../support/context.js';
import { internalHostSpellings } from '../support/internal-hosts.js';
import { publishedSchema } from '../support/published-schema.js';
import { randomIp, registerAgent } from '../support/http.js';
import { readingEventStreams } from '../support/event-stream.js';
import {
  ACCEPTED,
  ID_NAMES,
  OPERATOR_ONLY_PATH,
  ROUTES,
  URL_FIELD_USES,
  bodyProperties,
  idUses,
  queryParams,
  urlFields,
  type Principal,
} from './support/route-table.js';
import { concretePath, isWrite, mountedRoutes, type MountedRoute } from './support/app-routes.js';
import { sampleOf } from './support/sample-values.js';
import {
  PUBLIC_EXPOSURE,
  UNREACHED,
  VISIBLE_TO_VICTIM,
  attackerCredential,
  attackersOf,
  passOrder,
  variantsOf,
  victimValue,
  type Variant,
} from './support/cross-user.js';
import {
  PUBLIC_RECORDS,
  TENANT_RECORDS,
  fingerprintsIn,
  tenantFingerprints,
  tenantRecords,
  type Fingerprint,
} from './support/fingerprints.js';
import { createWorld, forgedCredentials, type Party, type World } from './support/world.js';

/**
 * The standing attack suite (issue 16), OWASP API Security Top 10 (2023) cases generated from the
 * endpoint table: a new route is attacked with no new test. The normal `npm test` run takes the
 * short form (each route once per category); `npm run test:security` (SECURITY_FULL=1) tries every
 * credential kind, forged token, privileged field and SSRF payload. The cross-user pass (API1) is
 * the same in both forms: every other-tenant credential on every route, against a victim with a
 * record of every kind (support/victim.ts).
 */
const FULL = process.env.SECURITY_FULL === '1';

interface Sent {
  method: string;
  template: string;
  route: string;
  label: string;
  status: number;
  headers: Record<string, string>;
  text: string;
  body: unknown;
}

interface AttackCase {
  category: string;
  route: string;
  label: string;
  run: (world: World) => Promise<string | undefined>;
}

const sent: Sent[] = [];
const cases: AttackCase[] = [];
const add = (c: AttackCase) => cases.push(c);

interface CallOptions {
  credential?: string;
  /** HTTP Basic with the token as password instead of Bearer: what a browser keeps and resends. */
  basic?: boolean;
  ip?: string;
  headers?: Record<string, string>;
  params?: Record<string, string>;
  query?: Record<string, string>;
  body?: unknown;
  /** A body sent as this exact JSON text (one that JSON.stringify could not produce). */
  rawJson?: string;
}

/** The case being run, recorded with every answer so that the cross-cutting checks can name it. */
let current = { route: '', label: '' };

async function call(world: World, name: string, spec: EndpointSpec, opts: CallOptions): Promise<Sent> {
  const path = expressPath(spec.path).replace(/:([A-Za-z_]+)/g, (_, p: string) =>
    encodeURIComponent(opts.params?.[p] ?? 'missing'),
  );
  let req = readingEventStreams(request(world.app)[spec.method](path), spec)
    .set('X-Forwarded-For', opts.ip ?? randomIp())
    .set(opts.headers ?? {});
  if (opts.credential && opts.basic) req = req.auth('operator', opts.credential);
  else if (opts.credential) req = req.set('Authorization', `Bearer ${opts.credential}`);
  if (opts.query) req = req.query(opts.query);
  const res =
    opts.rawJson !== undefined
      ? await req.set('Content-Type', 'application/json').send(opts.rawJson)
      : opts.body !== undefined
        ? await req.send(opts.body as object)
        : await req;
  const answer: Sent = {
    method: spec.method,
    template: spec.path,
    route: current.route || name,
    label: current.label,
    status: res.status,
    headers: res.headers as Record<string, string>,
    text: res.text ?? '',
    body: res.body,
  };
  sent.push(answer);
  if (process.env.SECURITY_DEBUG && current.label.includes(process.env.SECURITY_DEBUG))
    console.log(`${answer.status} ${current.label} -> ${answer.text.slice(0, 200)}`);
  return answer;
}

/** Path values for the caller's own resources (or public ones), so that only the attacked part differs. */
function ownParams(world: World, spec: EndpointSpec, party: Party = world.a): Record<string, string> {
  const values: Record<string, string> = {
    agent_id: party.agent.agent_id,
    market_id: world.marketId,
    claim_code: world.c.claim_code,
    venue: 'polymarket',
    slug: 'no-such-skill',
    user_id: party.userId,
    address: `0x${'2'.repeat(40)}`,
    wallet_address: `0x${'2'.repeat(40)}`,
    webhook_id: 'no-such-webhook',
    alert_id: 'no-such-alert',
    order_id: 'no-such-order',
  };
  return Object.fromEntries(Object.keys(spec.params?.shape ?? {}).map((k) => [k, values[k] ?? 'sample']));
}

/** Body values by field name, where a shape alone gives nothing the handler would accept. */
const knownBodyValues = (world: World): Record<string, unknown> => ({
  market_id: world.marketId,
  side: 'yes',
  amount: 1,
  venue: 'sim',
  threshold: 0.5,
  claim_code: world.spare.claim_code,
  polymarket_url: 'https://polymarket.com/event/security-suite-sample',
  kalshi_url: 'https://kalshi.com/markets/kxhighny/kxhighny-26feb19',
  event_ticker: 'KXHIGHNY-26FEB19',
  error_text: 'insufficient balance',
  method: 'eth_getBalance',
  slug: 'security-suite-sample',
  registry_url: 'https://clawhub.ai/skills/security-suite-sample',
  ...Object.fromEntries(
    // `target`: a deposit-wallet batch call's contract.
    ['address', 'poly_address', 'wallet_address', 'deposit_wallet_address', 'target'].map((k) => [
      k,
      `0x${'2'.repeat(40)}`,
    ]),
  ),
});

function sampleBody(world: World, spec: EndpointSpec): unknown {
  return spec.body ? sampleOf(spec.body, knownBodyValues(world)) : undefined;
}

/** The principal that legitimately calls a route (the attacker's own credential of that kind). */
const legitimate = (spec: EndpointSpec): Principal[] => ACCEPTED[spec.auth].filter((p) => p !== 'none');

const refused = (status: number) => status === 401 || status === 403;

// ---------------------------------------------------------------------------------------------
// API1 Broken Object Level Authorization, the cross-user pass: every route a tenant can call is
// called by other tenants (another user's agent key and user token, an agent the victim released,
// nobody) with the victim's ids and values wherever it takes them. No answer may carry anything of
// the victim's records (its fingerprints, support/fingerprints.ts), no change naming the victim's
// ids may be accepted, and a route no call reached is named (support/cross-user.ts UNREACHED).
// ---------------------------------------------------------------------------------------------
/** B's and C's fingerprints, read once the world is seeded. */
let victimPrints: Fingerprint[] = [];
/** Per route, what each call of the pass was answered, and whether one reached the handler. */
const reach = new Map<string, { reached: boolean; answers: string[] }>();

interface AimedRequest {
  params: Record<string, string>;
  query?: Record<string, string>;
  body: unknown;
  /** The victim's owned ids the request names. */
  owned: Set<string>;
  /** Every string the request sent (lower case): an answer may echo them. */
  sentValues: Set<string>;
}

/** The attacker's own request for the route, with the victim's value in every place that takes one. */
function aimedRequest(world: World, spec: EndpointSpec, variant: Variant): AimedRequest {
  const owned = new Set<string>();
  const take = (name: string) => {
    const v = victimValue(world, name, variant);
    if (v?.owned) owned.add(v.value);
    return v?.value;
  };
  const params = ownParams(world, spec);
  // A claim code is shown to its human on purpose: the attacker holds none of the victim's.
  if ('claim_code' in params) params.claim_code = world.spare.claim_code;
  for (const name of Object.keys(params)) params[name] = take(name) ?? params[name]!;
  // The query's required parameters sampled as a body's are, so that the call reaches the handler.
  let query = spec.query
    ? (Object.fromEntries(
        Object.entries(sampleOf(spec.query) as object).map(([k, v]) => [k, String(v)]),
      ) as Record<string, string>)
    : undefined;
  for (const name of Object.keys(spec.query?.shape ?? {})) {
    const value = take(name);
    if (value !== undefined) (query ??= {})[name] = value;
  }
  let body = sampleBody(world, spec);
  if (body && typeof body === 'object' && !Array.isArray(body))
    for (const name of bodyProperties(spec.body)) {
      const value = take(name);
      if (value !== undefined) body = { ...(body as object), [name]: value };
    }
  const sentValues = new Set<string>();
  walkStrings([params, query, body], (s) => sentValues.add(s.toLowerCase()));
  return { params, query, body, owned, sentValues };
}

function walkStrings(value: unknown, visit: (s: string) => void): void {
  if (typeof value === 'string') visit(value);
  else if (Array.isArray(value)) value.forEach((v) => walkStrings(v, visit));
  else if (value && typeof value === 'object') Object.values(value).forEach((v) => walkStrings(v, visit));
}

/** Every value other than the victim's ids that the attackers have sent in the pass (lower case). */
const attackerSent = new Set<string>();
/** The victim's ids and values a request can name (lower case), read once the world is seeded. */
let victimValues = new Set<string>();

/**
 * Whether a call reached the handler with the victim's value: it answered (2xx), or refused what
 * the request named of the victim's (403/404). Other answers came before the handler could read
 * anything (validation, a signature or state the attacker lacks, a rate limit).
 */
const reachedHandler = (res: Sent, req: AimedRequest) =>
  res.status < 300 ||
  ((res.status === 403 || res.status === 404) && [...req.sentValues].some((v) => victimValues.has(v)));

for (const [name, spec] of passOrder(ROUTES)) {
  // The operator sees every tenant by design; the BFLA cases keep everybody else out of its routes.
  if (spec.auth === 'operator') continue;
  for (const attacker of attackersOf(spec)) {
    for (const variant of variantsOf(spec)) {
      add({
        category: 'API1 BOLA',
        route: name,
        label: `${spec.method.toUpperCase()} ${spec.path} as ${attacker} with ${variant.label}`,
        run: async (world) => {
          const req = aimedRequest(world, spec, variant);
          const res = await call(world, name, spec, {
            credential: attackerCredential(world, attacker),
            params: req.params,
            query: req.query,
            body: req.body,
          });
          const seen = reach.get(name) ?? { reached: false, answers: [] };
          seen.reached ||= reachedHandler(res, req);
          seen.answers.push(`${attacker} with ${variant.label}: ${res.status} ${refusalOf(res.body)}`);
          reach.set(name, seen);
          // An answer may show what the attacker sent, now or before (a victim's address it set as its
          // own, a market it named), but not the victim's ids in a success.
          const owned = new Set([...req.owned].map((o) => o.toLowerCase()));
          for (const v of req.sentValues) if (!owned.has(v)) attackerSent.add(v);
          const ignored = new Set(res.status >= 300 ? [...attackerSent, ...req.sentValues] : attackerSent);
          const allowed = new Set(PUBLIC_EXPOSURE[name] ?? []);
          const leaked = fingerprintsIn(
            {
              text: res.text,
              body: res.body,
              json: /application\/json/.test(res.headers['content-type'] ?? ''),
            },
            victimPrints,
            ignored,
          ).filter((f) => !allowed.has(f.label));
          if (leaked.length)
            return `${res.status} answer carries the victim's ${leaked
              .slice(0, 6)
              .map((f) => `${f.label} (${f.value})`)
              .join(', ')}: ${res.text.slice(0, 300)}`;
          // A request naming the victim's id is refused (404/403, or a trade's 200 `success: false`):
          // a success, even one answering with the attacker's own data, treats the id as the attacker's.
          const businessRefusal = (res.body as { success?: unknown })?.success === false;
          if (req.owned.size && res.status < 300 && !businessRefusal)
            return `${res.status}: the attacker's ${spec.method.toUpperCase()} naming the victim's ${[...req.owned].join(', ')} was answered, not refused: ${res.text.slice(0, 200)}`;
          return undefined;
        },
      });
    }
  }
}

/** A refusal's code and the start of its detail, for the list of unreached routes. */
const refusalOf = (body: unknown) => {
  const b = body as { error_code?: unknown; code?: unknown; detail?: unknown } | undefined;
  const detail = typeof b?.detail === 'string' ? b.detail : JSON.stringify(b?.detail ?? '');
  return `${String(b?.error_code ?? b?.code ?? '')} ${detail.slice(0, 100)}`.trim();
};

// ---------------------------------------------------------------------------------------------
// API2 Broken Authentication / API5 Broken Function Level Authorization.
// ---------------------------------------------------------------------------------------------
for (const [name, spec] of ROUTES) {
  if (spec.auth === 'none') continue;
  const accepted = ACCEPTED[spec.auth];
  const attempts: { label: string; credential: (w: World) => string | undefined }[] = [];
  if (!accepted.includes('none')) attempts.push({ label: 'no credential', credential: () => undefined });
  const wrongKinds = (['agent', 'user', 'operator'] as const).filter((p) => !accepted.includes(p));
  for (const kind of FULL ? wrongKinds : wrongKinds.slice(0, 1))
    attempts.push({ label: `a valid ${kind} credential`, credential: (w) => w.credential(kind) });
  const forged = ['unknown agent key', 'JWT signed with another secret', 'JWT with alg none', 'expired JWT'];
  if (spec.auth === 'operator') forged.push('wrong operator token');
  for (const f of FULL ? forged : forged.slice(0, 1))
    attempts.push({ label: f, credential: (w) => forgedCredentials(w)[f] });
  for (const attempt of attempts) {
    add({
      category: spec.auth === 'operator' ? 'API5 BFLA' : 'API2 Broken authentication',
      route: name,
      label: `${spec.method.toUpperCase()} ${spec.path} (${spec.auth}) with ${attempt.label}`,
      run: async (world) => {
        const res = await call(world, name, spec, {
          credential: attempt.credential(world),
          params: ownParams(world, spec),
          body: sampleBody(world, spec),
        });
        return refused(res.status) ? undefined : `answered ${res.status}, expected 401/403`;
      },
    });
  }
}

// API5: a route on an operator path must be an operator route, whatever its table row says.
for (const [name, spec] of ROUTES) {
  if (!OPERATOR_ONLY_PATH.test(spec.path)) continue;
  add({
    category: 'API5 BFLA',
    route: name,
    label: `${spec.method.toUpperCase()} ${spec.path} is on an operator path: no credential must be refused`,
    run: async (world) => {
      const res = await call(world, name, spec, { params: ownParams(world, spec) });
      return spec.auth === 'operator' && refused(res.status)
        ? undefined
        : `auth '${spec.auth}', answered ${res.status} without credentials`;
    },
  });
}

// API2: the operator lockout (shared/infra/operator-lockout.ts) stands in front of every door that
// takes the operator token, so an address locked out of the sign-in form cannot guess through another.
for (const [name, spec] of ROUTES) {
  if (!spec.auth.startsWith('operator')) continue;
  add({
    category: 'API2 Operator lockout',
    route: name,
    label: `${spec.method.toUpperCase()} ${spec.path} with the right operator token from a locked-out address`,
    run: async (world) => {
      const res = await call(world, name, spec, {
        credential: world.credential('operator'),
        ip: world.lockedOutIp,
        params: ownParams(world, spec),
        body: sampleBody(world, spec),
      });
      return lockedOutProblem(res);
    },
  });
}

/** What is wrong with an answer to a locked-out address: anything but 429 with Retry-After and the error body. */
function lockedOutProblem(res: { status: number; headers: Record<string, string>; body: unknown }) {
  const body = res.body as { detail?: unknown; error?: unknown; fix?: unknown };
  if (res.status !== 429) return `answered ${res.status}, expected 429`;
  if (!(Number(res.headers['retry-after']) > 0)) return `429 without Retry-After`;
  if (typeof body?.detail !== 'string' || typeof body.error !== 'string' || typeof body.fix !== 'string')
    return `429 body is not {detail, error, fix}: ${JSON.stringify(body)}`;
  return undefined;
}

/** What another site's page makes a browser send: its Fetch Metadata and Origin say where it came from. */
const CROSS_SITE = { Origin: 'https://attacker.example', 'Sec-Fetch-Site': 'cross-site' };

// API2 / CSRF: a browser that once typed the operator token for /metrics or /api/admin sends it as
// HTTP Basic with whatever another site makes it send, so no operator change may come from there.
for (const [name, spec] of ROUTES) {
  if (spec.auth !== 'operator' || spec.method === 'get') continue;
  add({
    category: 'API2 CSRF with ambient credentials',
    route: name,
    label: `${spec.method.toUpperCase()} ${spec.path} sent from another site with the operator's Basic credentials`,
    run: async (world) => {
      const res = await call(world, name, spec, {
        credential: world.credential('operator'),
        basic: true,
        headers: CROSS_SITE,
        params: ownParams(world, spec),
        body: sampleBody(world, spec),
      });
      return res.status === 403 ? undefined : `answered ${res.status}, expected 403`;
    },
  });
}

// ---------------------------------------------------------------------------------------------
// API3 Broken Object Property Level Authorization: mass assignment of privileged fields.
// ---------------------------------------------------------------------------------------------
const SENTINEL_NUMBER = 987654321;
const SENTINEL_TEXT = 'pwned-by-mass-assignment';
const PRIVILEGED_FIELDS: Record<string, (w: World) => unknown> = {
  balance: () => SENTINEL_NUMBER,
  balance_micro: () => SENTINEL_NUMBER,
  starting_balance: () => SENTINEL_NUMBER,
  tier: () => SENTINEL_TEXT,
  role: () => SENTINEL_TEXT,
  is_admin: () => true,
  isAdmin: () => true,
  claimed: () => true,
  claimed_by: () => SENTINEL_TEXT,
  status: () => SENTINEL_TEXT,
  owner_id: (w) => w.b.userId,
  user_id: (w) => w.b.userId,
  api_key_hash: () => SENTINEL_TEXT,
  real_trading_enabled: () => true,
  _id: () => SENTINEL_TEXT,
  __proto__: () => ({ is_admin: true }),
};

for (const [name, spec] of ROUTES) {
  if (!spec.body) continue;
  const own = new Set(bodyProperties(spec.body));
  const fields = Object.keys(PRIVILEGED_FIELDS).filter((f) => !own.has(f));
  const principals = legitimate(spec);
  for (const principal of FULL ? principals : principals.slice(0, 1)) {
    const groups = FULL ? fields.map((f) => [f]) : [fields];
    for (const group of groups) {
      add({
        category: 'API3 Mass assignment',
        route: name,
        label: `${spec.method.toUpperCase()} ${spec.path} as ${principal} with ${group.join(', ')}`,
        run: async (world) => {
          const base = sampleBody(world, spec) as Record<string, unknown>;
          const extra: Record<string, unknown> = {};
          for (const f of group)
            Object.defineProperty(extra, f, { value: PRIVILEGED_FIELDS[f]!(world), enumerable: true });
          const body = { ...base, ...extra };
          const res = await call(world, name, spec, {
            credential: world.credential(principal),
            params: ownParams(world, spec),
            body,
          });
          if (res.status >= 500) return `answered ${res.status}`;
          return privilegeChanged(world);
        },
      });
    }
  }
}

/** What a mass assignment would have changed: the attacker's own agent and user records. */
async function privilegeChanged(world: World): Promise<string | undefined> {
  const { Agent, User } = testContext().deps.models;
  const [agent, user] = await Promise.all([
    Agent.findById(world.a.agent.agent_id).lean(),
    User.findById(world.a.userId).lean(),
  ]);
  const text = JSON.stringify({ agent, user });
  if (text.includes(SENTINEL_TEXT) || text.includes(String(SENTINEL_NUMBER)))
    return `a privileged field was stored: ${text.slice(0, 300)}`;
  if (agent?.claimedBy !== world.a.userId) return `the agent's owner changed to ${agent?.claimedBy}`;
  if (/"(is_admin|isAdmin|role)"/.test(text)) return 'an admin flag was stored';
  if (user?.tier !== 'free') return `the user's tier changed to ${user?.tier}`;
  return undefined;
}

// ---------------------------------------------------------------------------------------------
// API4 Unrestricted Resource Consumption: hostile page sizes, numbers and search strings.
// ---------------------------------------------------------------------------------------------
const HOSTILE_NUMBERS = ['1000000000', '-1', '1e308', '99999999999999999999'];
const HOSTILE_STRINGS = ['(a+)+$', '[', '.*'.repeat(50), '%00', 'x'.repeat(5000)];
const escapeRegex = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * The `$regex` sources of every database command sent while `during` runs (the shared deps' connection,
 * which the suite's app uses). A hostile string must reach them only escaped, as literal text: a
 * pattern of the caller's making is what makes a search backtrack without end.
 */
async function regexesSentDuring(during: () => Promise<unknown>): Promise<string[]> {
  const sources: string[] = [];
  const walk = (v: unknown): void => {
    if (Array.isArray(v)) v.forEach(walk);
    else if (v && typeof v === 'object' && !(v instanceof Date))
      for (const [k, inner] of Object.entries(v)) {
        if (k === '$regex') sources.push(inner instanceof RegExp ? inner.source : String(inner));
        else walk(inner);
      }
  };
  const conn = testContext().deps.mongo;
  conn.set('debug', (_collection: string, _method: string, ...args: unknown[]) => walk(args));
  try {
    await during();
  } finally {
    conn.set('debug', false);
  }
  return sources;
}
for (const [name, spec] of ROUTES) {
  const principal = legitimate(spec)[0] ?? 'none';
  for (const param of queryParams(spec)) {
    const numeric = param.type === 'integer' || param.type === 'number';
    if (numeric && /^(limit|offset|page|per_page|max_.*)$/.test(param.name)) {
      add({
        category: 'API4 Resource consumption',
        route: name,
        label: `${spec.path} declares a maximum for ${param.name}`,
        run: async () => (param.maximum === undefined ? `${param.name} has no declared maximum` : undefined),
      });
    }
    const values = numeric ? HOSTILE_NUMBERS : param.type === 'string' ? HOSTILE_STRINGS : [];
    for (const value of FULL ? values : values.slice(0, 1)) {
      add({
        category: 'API4 Resource consumption',
        route: name,
        label: `${spec.method.toUpperCase()} ${spec.path}?${param.name}=${value.slice(0, 20)}`,
        run: async (world) => {
          let res!: Sent;
          const regexes = await regexesSentDuring(async () => {
            res = await call(world, name, spec, {
              credential: world.credential(principal),
              params: ownParams(world, spec),
              query: { [param.name]: value },
              body: sampleBody(world, spec),
            });
          });
          if (res.status >= 500) return `answered ${res.status}`;
          const unescaped = regexes.find((r) => r.includes(value) && !r.includes(escapeRegex(value)));
          if (unescaped !== undefined)
            return `the string reached the database as a pattern: ${unescaped.slice(0, 80)}`;
          return oversizeArray(res.body, param.maximum);
        },
      });
    }
  }
}

function oversizeArray(body: unknown, maximum: number | undefined): string | undefined {
  if (maximum === undefined || !body || typeof body !== 'object') return undefined;
  for (const [key, value] of Object.entries(body))
    if (Array.isArray(value) && value.length > maximum)
      return `${key} holds ${value.length} items (max ${maximum})`;
  return undefined;
}

// API4: nesting deep enough to overflow a recursive walk (JSON.stringify, a validator, a driver),
// in every body field and as the whole body (issue 23: `params` 20,000 levels deep answered 500).
const DEEP_LEVELS = 20_000;
const deepJson = (open: '[' | '{"a":', close: ']' | '}') =>
  `${open.repeat(DEEP_LEVELS)}1${close.repeat(DEEP_LEVELS)}`;
const DEEP_VALUES = { array: deepJson('[', ']'), object: deepJson('{"a":', '}') };
for (const [name, spec] of ROUTES) {
  if (!spec.body) continue;
  const principal = legitimate(spec)[0] ?? 'none';
  const targets = [...bodyProperties(spec.body), '(the whole body)'];
  for (const target of targets) {
    for (const [shape, deep] of Object.entries(FULL ? DEEP_VALUES : { array: DEEP_VALUES.array })) {
      add({
        category: 'API4 Deep nesting',
        route: name,
        label: `${spec.method.toUpperCase()} ${spec.path} with ${target} a ${shape} nested ${DEEP_LEVELS} levels`,
        run: async (world) => {
          const placeholder = '"__deep__"';
          const text =
            target === '(the whole body)'
              ? deep
              : JSON.stringify({ ...(sampleBody(world, spec) as object), [target]: '__deep__' }).replace(
                  placeholder,
                  deep,
                );
          const res = await call(world, name, spec, {
            credential: world.credential(principal),
            params: ownParams(world, spec),
            rawJson: text,
          });
          const json = /application\/json/.test(res.headers['content-type'] ?? '');
          return res.status >= 500 || !json ? `answered ${res.status}: ${res.text.slice(0, 80)}` : undefined;
        },
      });
    }
  }
}

// API8 Security misconfiguration: Object.prototype names wherever a free string is looked up.
for (const [name, spec] of ROUTES) {
  const principal = legitimate(spec)[0] ?? 'none';
  for (const param of queryParams(spec)) {
    if (param.type !== 'string') continue;
    for (const value of FULL ? ['constructor', '__proto__', 'toString', 'hasOwnProperty'] : ['constructor']) {
      add({
        category: 'API8 Prototype keys',
        route: name,
        label: `${spec.method.toUpperCase()} ${spec.path}?${param.name}=${value}`,
        run: async (world) => {
          const res = await call(world, name, spec, {
            credential: world.credential(principal),
            params: ownParams(world, spec),
            query: { [param.name]: value },
          });
          return res.status >= 500 ? `answered ${res.status}` : undefined;
        },
      });
    }
  }
}

// ---------------------------------------------------------------------------------------------
// API7 Server Side Request Forgery: every field that takes a URL, aimed at a loopback canary.
// ---------------------------------------------------------------------------------------------
const SSRF_PAYLOADS: ((port: number) => string)[] = [
  (p) => `http://127.0.0.1:${p}/ssrf`,
  (p) => `http://[::1]:${p}/ssrf`,
  () => 'http://169.254.169.254/latest/meta-data/iam/security-credentials/',
  (p) => `http://localhost:${p}/ssrf`,
  (p) => `http://2130706433:${p}/ssrf`,
  (p) => `http://0x7f000001:${p}/ssrf`,
  (p) => `http://127.1:${p}/ssrf`,
  (p) => `http://0.0.0.0:${p}/ssrf`,
  (p) => `http://user:pass@127.0.0.1:${p}/ssrf`,
  (p) => `https://polymarket.com@127.0.0.1:${p}/event/x`,
  (p) => `http://[::ffff:127.0.0.1]:${p}/ssrf`,
  () => 'http://10.0.0.1/internal',
  () => 'http://192.168.1.1/admin',
  () => 'file:///etc/passwd',
  (p) => `gopher://127.0.0.1:${p}/_ssrf`,
  // IPv6 forms carrying loopback, documentation ranges, this host's own address and gateway (issue 23).
  ...internalHostSpellings().map((host) => (p: number) => `https://${host}:${p}/ssrf`),
];

for (const [name, spec] of ROUTES) {
  for (const field of urlFields(spec)) {
    const principal = legitimate(spec)[0] ?? 'none';
    for (const [i, payload] of (FULL ? SSRF_PAYLOADS : SSRF_PAYLOADS.slice(0, 3)).entries()) {
      add({
        category: 'API7 SSRF',
        route: name,
        label: `${spec.method.toUpperCase()} ${spec.path} ${field.name}=payload#${i}`,
        run: async (world) => {
          const url = payload(world.canary.port);
          const before = world.canary.hits();
          // A fresh agent per case: the per-agent import limit must not mask a fetch.
          const caller =
            principal === 'agent' ? (await registerAgent()).api_key : world.credential(principal);
          const body =
            field.where === 'body'
              ? { ...(sampleBody(world, spec) as object), [field.name]: url }
              : sampleBody(world, spec);
          const res = await call(world, name, spec, {
            credential: caller,
            params: ownParams(world, spec),
            query: field.where === 'query' ? { [field.name]: url } : undefined,
            body,
          });
          if (res.status >= 500) return `${url}: answered ${res.status}`;
          // Whatever a delivering field stored, an attacker would next make the service send to it.
          if (res.status < 300 && URL_FIELD_USES[`${name}.${field.name}`] === 'delivers')
            return `${url}: accepted (${res.status}) as an address the service delivers to`;
          const hits = world.canary.hits() - before;
          return hits ? `${url}: the service sent ${hits} request(s) to the loopback canary` : undefined;
        },
      });
    }
  }
}

// Baseline: every route once with its own credential (a third party's, as it may release itself),
// so that the cross-cutting checks below see every route's ordinary answer too.
for (const [name, spec] of ROUTES) {
  const principal = legitimate(spec)[0] ?? 'none';
  add({
    category: 'Baseline',
    route: name,
    label: `${spec.method.toUpperCase()} ${spec.path} as its own ${principal}`,
    run: async (world) => {
      const res = await call(world, name, spec, {
        credential: world.credential(principal, world.d),
        params: ownParams(world, spec, world.d),
        body: sampleBody(world, spec),
      });
      return res.status >= 500 ? `answered ${res.status}` : undefined;
    },
  });
}

// API9 Improper inventory: a plain word where a market id belongs is a mistyped path, answered 404
// "Not found" before the handler (api/http/path-words.ts); the conformance check below then needs
// /openapi.json to publish that 404 (a CI fuzz found DELETE /api/sdk/markets/c/orders unpublished).
for (const [name, spec] of ROUTES) {
  if (!spec.params || !('market_id' in spec.params.shape)) continue;
  const principal = legitimate(spec)[0] ?? 'none';
  add({
    category: 'API9 Mistyped paths',
    route: name,
    label: `${spec.method.toUpperCase()} ${spec.path} with the word "c" as market id`,
    run: async (world) => {
      const res = await call(world, name, spec, {
        credential: world.credential(principal),
        params: { ...ownParams(world, spec), market_id: 'c' },
        query: spec.query && 'side' in spec.query.shape ? { side: 'no' } : undefined,
        body: sampleBody(world, spec),
      });
      return res.status === 404 ? undefined : `answered ${res.status}, not 404`;
    },
  });
}

// API10:2019 Insufficient logging: every operator change, accepted or refused by its handler, leaves
// an entry in the operator audit trail (shared/domains/operator/operator-actions.ts).
for (const [name, spec] of ROUTES) {
  if (spec.auth !== 'operator' || spec.method === 'get') continue;
  add({
    category: 'API10 Operator audit trail',
    route: name,
    label: `${spec.method.toUpperCase()} ${spec.path} as the operator is recorded in the audit trail`,
    run: async (world) => {
      const { OperatorAction } = testContext().deps.models;
      const before = await OperatorAction.countDocuments({ actor: 'api' });
      const res = await call(world, name, spec, {
        credential: world.credential('operator'),
        params: ownParams(world, spec),
        body: sampleBody(world, spec),
      });
      if (res.status === 422) return `answered 422: the sample never reached the handler`;
      const recorded = (await OperatorAction.countDocuments({ actor: 'api' })) - before;
      return recorded === 1
        ? undefined
        : `answered ${res.status} and left ${recorded} audit entries, expected 1`;
    },
  });
}

// ---------------------------------------------------------------------------------------------
describe('OWASP API Top 10 attack suite, generated from the endpoint table #security', function () {
  this.timeout(FULL ? 30 * 60_000 : 120_000);
  let world: World;

  let victimRecords: Record<string, number>;
  let victimBefore: Record<string, string[]>;
  before(async () => {
    world = await createWorld();
    const { models } = testContext().deps;
    const b = await tenantFingerprints(models, { userId: world.b.userId, agentId: world.b.agent.agent_id });
    const c = await tenantFingerprints(models, { userId: '(none)', agentId: world.c.agent_id });
    victimPrints = [
      ...b.fingerprints,
      ...world.victim.planted,
      ...c.fingerprints.map((f) => ({ ...f, label: `unclaimed ${f.label}` })),
      { label: 'unclaimed agent api key', value: world.c.api_key },
      { label: 'Agent api key', value: world.b.agent.api_key },
      { label: 'User token', value: world.b.userToken },
    ];
    victimRecords = b.counts;
    victimBefore = await tenantRecords(models, { userId: world.b.userId, agentId: world.b.agent.agent_id });
    victimValues = new Set(
      [...Object.values(world.victim.owned), ...Object.values(world.victim.aimed), world.c.agent_id].map(
        (v) => v.toLowerCase(),
      ),
    );
  });
  after(async () => {
    await world?.canary.close();
    const byCategory: Record<string, number> = {};
    for (const c of cases) byCategory[c.category] = (byCategory[c.category] ?? 0) + 1;
    // The figures docs/reliability.md quotes.
    if (FULL || process.env.SECURITY_REPORT)
      console.log(
        `      OWASP cases generated: ${cases.length} (${Object.entries(byCategory)
          .map(([k, v]) => `${k}: ${v}`)
          .join(', ')}); requests sent: ${sent.length}`,
      );
  });

  it('when a route takes an identifier, then its name is classified as owned or public', () => {
    const unclassified = ROUTES.flatMap(([name, spec]) =>
      idUses(spec)
        .filter((u) => !ID_NAMES[u.name])
        .map((u) => `${name}: ${u.where} ${u.name}`),
    );
    assert.deepEqual(unclassified, [], 'classify these in test/security/support/route-table.ts ID_NAMES');
  });

  it('when a mongoose model is added, then it is classified as a tenant’s records or public', () => {
    const unclassified = Object.keys(testContext().deps.models).filter(
      (m) => !(m in TENANT_RECORDS) && !(m in PUBLIC_RECORDS),
    );
    assert.deepEqual(unclassified, [], 'classify these in test/security/support/fingerprints.ts');
  });

  it('when the victim world is seeded, then the victim holds records of every kind a tenant owns (each leak could be seen)', () => {
    const missing = Object.entries(victimRecords)
      .filter(([, n]) => n === 0)
      .map(([kind]) => kind);
    assert.deepEqual(missing, [], `kinds the victim has none of: ${JSON.stringify(victimRecords)}`);
  });

  it('when a route takes a URL, then the field is classified as delivered to or inert', () => {
    const unclassified = ROUTES.flatMap(([name, spec]) =>
      urlFields(spec)
        .map((f) => `${name}.${f.name}`)
        .filter((key) => !URL_FIELD_USES[key]),
    );
    assert.deepEqual(
      unclassified,
      [],
      'classify these in test/security/support/route-table.ts URL_FIELD_USES',
    );
  });

  it('when a request reaches the SSRF canary by any loopback spelling, then it is counted (the SSRF cases are not vacuous)', async () => {
    const before = world.canary.hits();
    for (const host of ['127.0.0.1', '[::1]', 'localhost'])
      await fetch(`http://${host}:${world.canary.port}/self-check`);
    assert.equal(world.canary.hits() - before, 3);
  });

  it('when request bodies are sampled from the table, then every one passes its own schema (the attacks reach handlers)', () => {
    const bodies = ROUTES.filter(([, s]) => s.body);
    const rejected = bodies
      .map(([n, s]) => [n, s.body!.safeParse(sampleBody(world, s))] as const)
      .filter(([, r]) => !r.success)
      .map(([n, r]) => `${n}: ${r.error?.issues.map((i) => `${i.path.join('.')} ${i.message}`).join('; ')}`);
    if (process.env.SECURITY_DEBUG) console.log(rejected.join('\n'));
    assert.ok(bodies.length > 0, 'the table has routes with a body');
    assert.deepEqual(
      rejected,
      [],
      'samples refused by their own schema (fix test/security/support/sample-values.ts)',
    );
  });

  const categories = [...new Set(cases.map((c) => c.category))];
  for (const category of categories) {
    const mine = cases.filter((c) => c.category === category);
    it(`${category}: ${mine.length} generated cases hold`, async () => {
      const failures: string[] = [];
      for (const c of mine) {
        current = { route: c.route, label: c.label };
        const problem = await c.run(world).catch((err: Error) => `threw ${err.message}`);
        if (problem) failures.push(`${c.label}: ${problem}`);
      }
      assert.deepEqual(failures, [], `${failures.length} of ${mine.length} cases failed`);
    });
  }

  it('when the cross-user pass has run, then the routes it could not reach are the checked-in list (support/cross-user.ts UNREACHED)', () => {
    const unreached = [...reach].filter(([, r]) => !r.reached);
    const names = unreached.map(([name]) => name).sort();
    const expected = Object.keys(UNREACHED).sort();
    // Printed by name with every answer, so that a route newly out of reach says why.
    if (process.env.SECURITY_DEBUG || names.join() !== expected.join())
      for (const [name, r] of unreached) console.log(`      unreached: ${name}: ${r.answers.join('; ')}`);
    assert.ok(reach.size > 0, 'the pass ran');
    assert.deepEqual(names, expected);
  });

  it('when the victim reads its own routes, then they show its records of every kind the pass looks for (the pass is not vacuous)', async () => {
    const seen = new Set<string>();
    for (const [name, spec] of ROUTES) {
      if (spec.method !== 'get' || spec.auth === 'operator') continue;
      for (const who of (['agent', 'user'] as const).filter((p) => ACCEPTED[spec.auth].includes(p)))
        for (const variant of variantsOf(spec).filter((v) => v.victim === 'B')) {
          const req = aimedRequest(world, spec, variant);
          current = { route: name, label: `GET ${spec.path} as the victim's own ${who}` };
          const res = await call(world, name, spec, {
            credential: who === 'agent' ? world.b.agent.api_key : world.b.userToken,
            params: req.params,
            query: req.query,
          });
          const json = /application\/json/.test(res.headers['content-type'] ?? '');
          for (const f of fingerprintsIn({ text: res.text, body: res.body, json }, victimPrints, new Set()))
            seen.add(f.label.split('.')[0]!);
        }
    }
    if (process.env.SECURITY_DEBUG) console.log(`      the victim sees: ${[...seen].sort().join(', ')}`);
    assert.deepEqual(
      VISIBLE_TO_VICTIM.filter((kind) => !seen.has(kind)),
      [],
      `the victim's own reads show only ${[...seen].sort().join(', ')}`,
    );
  });

  // The console's forms and bull-board's API are read off the app's routers, not the endpoint table:
  // a new console route gets these cases with no new test.
  const consoleRoutes = () => mountedRoutes(world.app, '/admin');
  const consoleCall = (route: MountedRoute, ip = randomIp()) =>
    request(world.app)
      [route.method as 'post'](concretePath(route))
      .set('X-Forwarded-For', ip)
      .auth('operator', world.credential('operator')!);
  /** The sign-in form itself takes no credential; bull-board's API is JSON sent by its own script, not a form. */
  const isConsoleForm = (r: MountedRoute) =>
    r.path !== '/admin/login' && !r.path.startsWith('/admin/queues/');

  it('when another site makes a browser holding the operator’s Basic credentials send a change to any console route, then 403', async () => {
    const writes = consoleRoutes().filter(isWrite);
    assert.ok(
      writes.some((r) => r.path.startsWith('/admin/queues/')),
      'bull-board routes were found',
    );
    const accepted: string[] = [];
    for (const route of writes) {
      const res = await consoleCall(route)
        .set(CROSS_SITE)
        .type('form')
        .send({ outcome: 'yes', tier: 'elite' });
      if (res.status !== 403) accepted.push(`${route.method.toUpperCase()} ${route.path}: ${res.status}`);
    }
    assert.deepEqual(accepted, []);
  });

  it('when a console form is posted with the operator’s Basic credentials and no session CSRF token, then 403', async () => {
    const forms = consoleRoutes().filter((r) => isWrite(r) && isConsoleForm(r));
    assert.ok(
      forms.some((r) => r.path === '/admin/users/tier'),
      'console forms were found',
    );
    const accepted: string[] = [];
    for (const route of forms) {
      const res = await consoleCall(route).type('form').send({ user_id: world.a.userId, tier: 'elite' });
      if (res.status !== 403) accepted.push(`${route.method.toUpperCase()} ${route.path}: ${res.status}`);
    }
    assert.deepEqual(accepted, []);
    assert.equal((await testContext().deps.models.User.findById(world.a.userId).lean())?.tier, 'free');
  });

  it('when a locked-out address sends the right operator token to any console route that needs one, then 429 with Retry-After and the error body', async () => {
    const problems: string[] = [];
    for (const route of consoleRoutes()) {
      const anonymous = await request(world.app)
        [route.method as 'get'](concretePath(route))
        .set('X-Forwarded-For', randomIp());
      if (anonymous.status !== 401 && anonymous.status !== 303) continue;
      const problem = lockedOutProblem(await consoleCall(route, world.lockedOutIp));
      if (problem) problems.push(`${route.method.toUpperCase()} ${route.path}: ${problem}`);
    }
    assert.deepEqual(problems, []);
  });

  it('when any generated request was answered, then no answer is a 5xx, and every error is JSON with detail, error and fix', () => {
    const bad = sent
      .filter((r) => {
        if (r.status < 400) return false;
        const body = r.body as { detail?: unknown; error?: unknown; fix?: unknown };
        return (
          r.status >= 500 ||
          !/application\/json/.test(r.headers['content-type'] ?? '') ||
          typeof body?.fix !== 'string' ||
          typeof body?.error !== 'string' ||
          body.detail === undefined
        );
      })
      .map((r) => `${r.route} (${r.label}) ${r.status}: ${r.text.slice(0, 160)}`);
    assert.deepEqual([...new Set(bad)], []);
  });

  it('when any generated request was answered, then its status and body are the ones /openapi.json publishes', async () => {
    const schema = publishedSchema((await request(world.app).get('/openapi.json')).body);
    const departures = new Set<string>();
    for (const r of sent) {
      if (!/application\/json/.test(r.headers['content-type'] ?? '')) continue;
      const where = `${r.method.toUpperCase()} ${r.template} ${r.status}`;
      try {
        const errors = schema.conformanceErrors(r.method, r.template, r.status, r.body);
        if (errors.length) departures.add(`${where}: ${errors.slice(0, 3).join('; ')}`);
      } catch (err) {
        departures.add(`${where}: ${(err as Error).message}`);
      }
    }
    assert.deepEqual([...departures], []);
  });

  it('when a route is rate-limited or cooled down, then /openapi.json publishes its 429 (API4: clients must expect it)', async () => {
    const doc = (await request(world.app).get('/openapi.json')).body as {
      paths: Record<string, Record<string, { responses: Record<string, unknown> }>>;
    };
    // Named limits, plus the trade guard's cooldowns (shared/domains/limits/trade-guard.ts).
    const TRADE_GUARDED = ['trade', 'batchTrades'];
    const unpublished = ROUTES.filter(([name, spec]) => spec.rateLimit || TRADE_GUARDED.includes(name))
      .filter(([, spec]) => !doc.paths[spec.path]?.[spec.method]?.responses['429'])
      .map(
        ([name, spec]) =>
          `${name}: ${spec.method.toUpperCase()} ${spec.path} (${spec.rateLimit ?? 'trade guard'})`,
      );
    assert.deepEqual(unpublished, []);
  });

  it('when any generated request was answered, then no body carries a stack trace or a source path', () => {
    const STACK = /\n\s+at\s|\bat [^\s]+ \([^)]*:\d+:\d+\)|node_modules\/|\/[\w/.-]+\.(ts|js):\d+/;
    const leaks = sent
      .filter((r) => STACK.test(r.text))
      .map((r) => `${r.route} ${r.status}: ${r.text.slice(0, 200)}`);
    assert.deepEqual(leaks, []);
  });

  it('when any generated request was answered, then the security headers (helmet) are set and x-powered-by is not', () => {
    const missing = sent
      .filter(
        (r) =>
          r.headers['x-content-type-options'] !== 'nosniff' ||
          !r.headers['x-frame-options'] ||
          !r.headers['strict-transport-security'] ||
          !r.headers['referrer-policy'] ||
          r.headers['x-powered-by'] !== undefined,
      )
      .map((r) => `${r.route} ${r.status}`);
    assert.deepEqual([...new Set(missing)], []);
  });

  it('when the attacks are over, then the victims’ agents, webhooks, alerts and trades are unchanged', async () => {
    const { Agent, Webhook, PriceAlert, Trade } = testContext().deps.models;
    const ids = [world.b.agent.agent_id, world.c.agent_id];
    const agents = await Agent.find({ _id: { $in: ids } }).lean();
    for (const agent of agents) {
      const expected = agent._id === world.b.agent.agent_id ? world.b.userId : null;
      assert.equal(agent.claimedBy, expected, `agent ${agent._id} changed owner`);
      assert.notEqual(agent.status, 'released');
    }
    assert.ok(await Webhook.exists({ _id: world.victimIds.webhook_id }), "the victim's webhook is gone");
    assert.ok(await PriceAlert.exists({ _id: world.victimIds.alert_id }), "the victim's alert is gone");
    const trade = await Trade.findById(world.victimIds.order_id).lean();
    assert.equal(trade?.agentId, world.b.agent.agent_id);
    // Every record of B's of every kind still there, with its state, limits, addresses and thresholds.
    const after = await tenantRecords(testContext().deps.models, {
      userId: world.b.userId,
      agentId: world.b.agent.agent_id,
    });
    const changed = Object.entries(victimBefore).flatMap(([kind, records]) =>
      records.filter((r) => !after[kind]!.includes(r)).map((r) => `${kind} ${r}`),
    );
    assert.deepEqual(changed, [], 'records of the victim changed or gone');
  });
});
