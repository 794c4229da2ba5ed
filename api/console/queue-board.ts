import { createBullBoard } from '@bull-board/api';
import { BullMQAdapter } from '@bull-board/api/bullMQAdapter';
import { ExpressAdapter } from '@bull-board/express';
import type { Request, RequestHandler } from 'express';
import type { Deps } from '../../shared/composition/deps.js';
import { startOperatorAction } from '../../shared/domains/operator/operator-actions.js';
import { jobNamesOf } from '../../shared/infra/queue/jobs.js';
import type { QueueName } from '../../shared/infra/queue/queues.js';

/**
 * What runs in each queue, as bull-board shows it (its per-queue `displayName` and `description`
 * adapter options): the persisted queue names stay as they are (queues.ts WARNING). A queue without
 * a label here is shown under its own name, described by its job names.
 */
/** Every queue has a label: a new queue name fails the typecheck until it says what runs there. */
const QUEUE_LABELS: Record<QueueName, string> = {
  system: 'System: heartbeat, readiness pings, reconciliation',
  trades: 'Trades: execution and Kalshi order follow-up',
  'trade-effects': 'Trade effects: fill webhooks, default monitors, price-alert evaluation',
  settlement: 'Settlement: paying out resolved markets',
  'market-imports': 'Market imports from Polymarket and Kalshi',
  'venue-sync': 'Venue sync: external prices, resolutions, orders, fast markets',
  leaderboard: 'Read models: leaderboard re-marks, 24 h volumes, price snapshots',
  'tx-broadcasts': 'Polygon transaction relay and receipts',
  redemptions: 'Redemptions of resolved Polymarket positions',
  webhooks: 'Webhook deliveries and price-alert evaluation',
  'risk-monitors': 'Risk monitors: stop-loss / take-profit evaluation and exits',
  tapes: 'Backtest tapes: the recorder and the slices agents ask for',
  candles: 'Candles: recording Binance 1m candles for /api/replay-data/candles',
  reactor: 'Reactor: watched wallets’ fills into agents’ signals, and their withdrawal on a reorg',
};

export const queueLabel = (queue: QueueName) => QUEUE_LABELS[queue];

/**
 * bull-board's index page links Google Fonts; these machines (and many self-hosters) cannot reach
 * it, so the request fails and the console's CSP would refuse it anyway. Its own CSS falls back to
 * system fonts.
 */
const EXTERNAL_FONTS = /<link[^>]+href="https:\/\/fonts\.googleapis\.com[^>]*>/g;

const withoutExternalFonts: RequestHandler = (_req, res, next) => {
  const render = res.render.bind(res);
  res.render = ((view: string, options?: object) =>
    render(view, options ?? {}, (err: Error | null, page: string) =>
      err ? next(err) : res.send(page.replace(EXTERNAL_FONTS, '')),
    )) as typeof res.render;
  next();
};

/** Inline styles are bull-board's (its loader and theme); scripts and everything else are its own files. */
const BOARD_CSP =
  "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; " +
  "font-src 'self' data:; connect-src 'self'; frame-ancestors 'none'; base-uri 'self'; form-action 'self'";

const READS = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * bull-board's writes (retry, clean, promote, remove, pause, add a job: every method but a read) are
 * operator actions like the console's: each is in the audit trail under the operator who sent it,
 * as `queues.<method>` on its API path, with the status it answered. No entry, no action.
 */
function auditWrites(deps: Deps, actorOf: (req: Request) => string): RequestHandler {
  return async (req, res, next) => {
    if (READS.has(req.method)) return next();
    const entry = { actor: actorOf(req), action: `queues.${req.method.toLowerCase()}`, target: req.path };
    // Express 5 passes a rejection (the entry could not be written) to the error handler.
    const audit = await startOperatorAction(deps, entry);
    res.on('finish', () => {
      const status = res.statusCode;
      void audit.finish(status < 400 ? `HTTP ${status}` : `refused: HTTP ${status}`);
    });
    next();
  };
}

/**
 * bull-board with labelled queues, served at `<mount>/queues` (its locale and assets under static/);
 * `actorOf` names the signed-in operator for the audit trail.
 */
export function queueBoard(
  deps: Deps,
  basePath: string,
  actorOf: (req: Request) => string,
): RequestHandler[] {
  const board = new ExpressAdapter();
  board.setBasePath(basePath);
  createBullBoard({
    queues: Object.entries(deps.queues.queues).map(
      ([name, queue]) =>
        new BullMQAdapter(queue, {
          displayName: queueLabel(name as QueueName),
          description: `Jobs: ${jobNamesOf(name as QueueName).join(', ')}`,
        }),
    ),
    serverAdapter: board,
    options: {
      uiConfig: {
        boardTitle: 'Queues',
        // One of the locales bull-board ships, whatever the browser's language.
        locale: { lng: 'en-US' },
        miscLinks: [{ text: 'Operator console', url: '/admin' }],
      },
    },
  });
  const csp: RequestHandler = (_req, res, next) => {
    res.setHeader('Content-Security-Policy', BOARD_CSP);
    next();
  };
  return [csp, withoutExternalFonts, auditWrites(deps, actorOf), board.getRouter()];
}
