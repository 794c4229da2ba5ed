import compression from 'compression';
import express, { type Express, type Request, type RequestHandler, type Response } from 'express';
import helmet from 'helmet';
import swaggerUi from 'swagger-ui-express';
import type { Deps } from '../shared/composition/deps.js';
import { ownerKeyOf } from '../shared/domains/users/settings-owner.js';
import { operatorLockout } from '../shared/infra/operator-lockout.js';
import { tapeUploads } from './http/tape-uploads.js';
import { errorHandler, notFoundHandler } from './http/error-handler.js';
import { httpMetrics, requestLogging } from './http/observability.js';
import { operatorConsole, sendFavicon } from './console/router.js';
import { rateLimit } from './http/rate-limit.js';
import type { RateLimitName } from './endpoints/endpoint.js';
import { registerEndpoints } from './routes.js';
import { publicDashboard } from './web/dashboard.js';
import { ReactorStreamHub, reactorStreamHubFor } from '../shared/domains/reactor/reactor-stream-hub.js';

declare module 'express-serve-static-core' {
  interface Locals {
    /** This process's open Reactor event streams (GET /api/sdk/reactor/stream). */
    reactorStreams: ReactorStreamHub;
  }
}

/** Bodies below this many bytes are sent as they are (a compressed small body saves nothing). */
export const COMPRESSION_MIN_BYTES = 1024;

/** The largest dataset file an operator may upload to import (larger: import on the machine). */
const TAPE_UPLOAD_MAX_BYTES = 2 * 1024 ** 3;

function trustProxySetting(value: string): boolean | number | string {
  if (value === 'true' || value === 'false') return value === 'true';
  return /^\d+$/.test(value) ? Number(value) : value;
}

/**
 * Swagger UI's scripts are its own files (swagger-ui-init.js included); its page has an inline
 * <style> and style attributes, and its icons are data: SVGs. "Try it out" calls this origin only.
 */
const DOCS_CSP =
  "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; " +
  "font-src 'self' data:; connect-src 'self'; object-src 'none'; frame-ancestors 'none'; base-uri 'self'; " +
  "form-action 'self'";

const docsHeaders: RequestHandler = (_req, res, next) => {
  res.setHeader('Content-Security-Policy', DOCS_CSP);
  next();
};

/** An event stream is written event by event as they come: compressing it would hold them back. */
const isEventStream = (res: Response) =>
  String(res.getHeader('Content-Type') ?? '').startsWith('text/event-stream');

/**
 * The Express app without listen(): the API role serves it, tests drive it with supertest.
 * `reactorStreams`: the API role's hub, which it closes on stop; without one the app makes its own,
 * which holds nothing (no Redis connection, no timer) while no stream is open.
 */
export function buildApp(
  deps: Deps,
  opts: { operatorToken: string; reactorStreams?: ReactorStreamHub },
): Express {
  const app = express();
  app.locals.reactorStreams = opts.reactorStreams ?? reactorStreamHubFor(deps);
  app.disable('x-powered-by');
  app.set('trust proxy', trustProxySetting(deps.env.TRUST_PROXY));
  app.set('query parser', 'simple');
  // CSP is left to the two HTML UIs' own needs (bull-board uses inline bootstrapping); JSON needs none.
  app.use(helmet({ contentSecurityPolicy: false }));
  // gzip/deflate/brotli as the client's Accept-Encoding asks, with `Vary: Accept-Encoding`: only
  // compressible types (JSON, HTML, JS, CSS, SVG; not PNG or other compressed images) of at least
  // COMPRESSION_MIN_BYTES (tiny bodies cost more to compress than they save). A client that sends
  // no Accept-Encoding, or `x-no-compression`, gets the plain body; so does an event stream.
  app.use(
    compression({
      threshold: COMPRESSION_MIN_BYTES,
      filter: (req, res) => !isEventStream(res) && compression.filter(req, res),
    }),
  );
  app.use(requestLogging(deps.log));
  app.use(httpMetrics(deps.metrics));
  app.use(publicDashboard(deps));

  // Spec §8: per-minute limits, per client IP or per agent.
  const byIp = (req: Request) => req.ip ?? 'unknown';
  const perMinute = (name: RateLimitName, points: number, describe: string, key: (req: Request) => string) =>
    rateLimit(deps.redis, deps.env.QUEUE_PREFIX, { name, points, durationSeconds: 60, describe, key });
  // The account a wallet call acts for: the human an agent's key acts for (settings-owner.ts), or the user's token.
  const byAccount = (req: Request) =>
    req.user ? `user:${req.user._id}` : req.agent ? ownerKeyOf(req.agent) : `ip:${byIp(req)}`;
  // One lockout behind every door that checks the operator token (api/http/operator-auth.ts).
  const lockout = operatorLockout(deps.redis, deps.env.QUEUE_PREFIX, opts.operatorToken);
  registerEndpoints(app, deps, {
    lockout,
    rateLimits: {
      register: perMinute(
        'register',
        deps.env.REGISTER_RATE_LIMIT_PER_MINUTE,
        'registrations per minute per IP',
        byIp,
      ),
      claim: perMinute('claim', 10, 'claims per minute per IP', byIp),
      // Both claim-code lookups (API and page) share one bucket: a code cannot be guessed by volume.
      'claim-lookup': perMinute('claim-lookup', 30, 'claim code lookups per minute per IP', byIp),
      'wallet-positions': perMinute(
        'wallet-positions',
        60,
        'wallet position reads per minute per agent',
        (req) => req.agent?._id ?? byIp(req),
      ),
      import: perMinute('import', 10, 'imports per minute per agent', (req) => req.agent?._id ?? byIp(req)),
      // Each plan reads up to 20 wallets from the venue (cached) and may import and trade: the skill plans every few minutes.
      copytrading: perMinute(
        'copytrading',
        10,
        'copytrading plans per minute per agent',
        (req) => req.agent?._id ?? byIp(req),
      ),
      // Spec §8: wallet link challenges 5 per hour, link attempts 3 per day, per account.
      'wallet-challenge': rateLimit(deps.redis, deps.env.QUEUE_PREFIX, {
        name: 'wallet-challenge',
        points: 5,
        durationSeconds: 3600,
        describe: 'wallet link challenges per hour per account',
        key: byAccount,
      }),
      'wallet-link': rateLimit(deps.redis, deps.env.QUEUE_PREFIX, {
        name: 'wallet-link',
        points: 3,
        durationSeconds: 24 * 3600,
        describe: 'wallet link attempts per day per account',
        key: byAccount,
      }),
      // Every proxied call costs a call to the Polygon node; the client's receipt polling is 30/min.
      'polygon-rpc': perMinute(
        'polygon-rpc',
        120,
        'Polygon RPC proxy calls per minute per agent',
        (req) => req.agent?._id ?? byIp(req),
      ),
      // A skill asks for its window every cycle; each answer is a few indexed reads.
      candles: perMinute(
        'candles',
        120,
        'candle requests per minute per agent',
        (req) => req.agent?._id ?? byIp(req),
      ),
      context: perMinute(
        'context',
        300,
        'context requests per minute per agent',
        (req) => req.agent?._id ?? byIp(req),
      ),
      // A client whose stream drops reconnects (the MCP client every 5 s): a loop of them is refused.
      'reactor-stream': perMinute(
        'reactor-stream',
        60,
        'Reactor stream connections per minute per agent',
        (req) => req.agent?._id ?? byIp(req),
      ),
    },
  });

  app.use(tapeUploads(deps, lockout, TAPE_UPLOAD_MAX_BYTES));

  const docsOptions = { swaggerOptions: { url: '/openapi.json' }, customSiteTitle: 'Agent trading API' };
  app.use(
    '/docs',
    docsHeaders,
    swaggerUi.serveFiles(undefined, docsOptions),
    swaggerUi.setup(undefined, docsOptions),
  );

  // The operator console (pages, login, bull-board at /admin/queues): api/console/.
  app.use('/admin', operatorConsole(deps, { operatorToken: opts.operatorToken, lockout }));
  // A static asset (not an API route): browsers ask for it on every site whatever the page links,
  // and a 404 there is a failed request in the browser tests.
  app.use('/favicon.ico', sendFavicon);

  app.use(notFoundHandler);
  app.use(errorHandler);
  return app;
}
