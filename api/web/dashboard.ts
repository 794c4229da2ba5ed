import express, { type ErrorRequestHandler, type Request, type Router } from 'express';
import helmet from 'helmet';
import type { Deps } from '../../shared/composition/deps.js';
import { getMarket, listPublicMarkets } from '../../shared/domains/markets/read-markets.js';
import { PublicMarketsQuerySchema } from '../../shared/domains/markets/market-query.schemas.js';
import { publicBaseUrl } from '../../shared/infra/config/env.js';
import { AppError } from '../../shared/infra/errors.js';
import { sdkAgentsPage, venuePage } from '../handlers/leaderboard.handlers.js';
import { publicChartHistory } from '../handlers/markets.handlers.js';
import { sharedRead } from '../http/shared-read.js';
import { assetRoutes } from './assets.js';
import { html } from '../html/template.js';
import { layout } from './layout.js';
import { BOARD_TABS, leaderboardPage } from './pages/leaderboard.page.js';
import { CHART_WINDOW, marketPage } from './pages/market.page.js';
import { marketsPage } from './pages/markets.page.js';
import { DEFAULT_VENUE } from '../../shared/domains/venues/venue-id.js';

/** Rows on the markets page and the leaderboard (one page each; the JSON routes page further). */
const MARKETS_SHOWN = 100;
const BOARD_SHOWN = 100;

/**
 * The dashboard's own policy (the JSON API needs none): scripts, styles and data from this origin
 * only, no inline script, no framing. uPlot positions its elements through the CSSOM, which
 * `style-src 'self'` allows.
 */
export const dashboardCsp = helmet.contentSecurityPolicy({
  useDefaults: false,
  directives: {
    defaultSrc: ["'self'"],
    scriptSrc: ["'self'"],
    styleSrc: ["'self'"],
    imgSrc: ["'self'", 'data:'],
    connectSrc: ["'self'"],
    objectSrc: ["'none'"],
    baseUri: ["'self'"],
    formAction: ["'self'"],
    frameAncestors: ["'none'"],
  },
});

/**
 * The markets page's filters, read the way `GET /api/markets` reads them (same schema, so the same
 * read-cache entry): a value the API would refuse is dropped with a notice instead of an error page.
 */
function marketFilters(req: Request) {
  const raw: Record<string, unknown> = { limit: MARKETS_SHOWN };
  for (const key of ['q', 'source', 'status'] as const) {
    const value = req.query[key];
    if (typeof value === 'string' && value.trim()) raw[key] = value;
  }
  const notices: string[] = [];
  for (;;) {
    const parsed = PublicMarketsQuerySchema.safeParse(raw);
    if (parsed.success) return { query: parsed.data, notices };
    for (const issue of parsed.error.issues) {
      const key = String(issue.path[0]);
      notices.push(`Ignored ${key}: ${key === 'q' ? 'search needs 2 to 200 characters' : issue.message}.`);
      delete raw[key];
    }
  }
}

/** Dashboard pages answer their errors (an unknown market) as a page, not as JSON. */
const errorPage: ErrorRequestHandler = (err, _req, res, next) => {
  if (!(err instanceof AppError) || err.status >= 500) return next(err);
  res
    .status(err.status)
    .type('html')
    .send(
      layout({
        title: err.message,
        section: null,
        body: html`<h1>${err.message}</h1>
          <p>${err.fix}</p>
          <p><a href="/">Back to the markets</a></p>`,
      }),
    );
};

/**
 * The public web dashboard: server-rendered pages over the same reads as the public JSON routes,
 * shared through the read cache. Read-only and without login; the claim page itself is an endpoint
 * of the table (`/claim/{claim_code}`, with its rate limit), which gets this CSP here.
 */
export function publicDashboard(deps: Deps): Router {
  const router = express.Router();
  for (const [path, files] of assetRoutes()) router.use(path, files);
  router.use('/claim', dashboardCsp);

  router.get('/', dashboardCsp, async (req, res) => {
    const { query, notices } = marketFilters(req);
    const list = await sharedRead(deps, 'public-markets', query, () =>
      listPublicMarkets(deps.models, query, publicBaseUrl(deps.env), deps.clock()),
    );
    res.type('html').send(marketsPage(list.markets, query, notices, deps.clock()));
  });

  router.get('/markets/:market_id', dashboardCsp, async (req, res) => {
    const id = String(req.params.market_id);
    const market = await getMarket(deps.models, id, publicBaseUrl(deps.env), deps.clock());
    const history = await publicChartHistory(deps, id, CHART_WINDOW);
    res.type('html').send(marketPage(market, history, deps.clock()));
  });

  router.get('/leaderboard', dashboardCsp, async (req, res) => {
    const venue = BOARD_TABS.find((t) => t.venue === req.query.venue)?.venue ?? DEFAULT_VENUE;
    // The default venue's board ranks every agent (the sdk-agents board); the others are venue boards.
    if (venue === DEFAULT_VENUE) {
      const board = await sdkAgentsPage(deps, BOARD_SHOWN, 0);
      res.type('html').send(
        leaderboardPage({
          venue,
          entries: board.entries,
          total: board.total_agents,
          markedAt: board.marked_at,
        }),
      );
      return;
    }
    const board = await venuePage(deps, venue, 'all', BOARD_SHOWN, 0);
    res.type('html').send(
      leaderboardPage({
        venue,
        entries: board.entries,
        total: board.total_count,
        markedAt: board.marked_at,
      }),
    );
  });

  router.use(errorPage);
  return router;
}
