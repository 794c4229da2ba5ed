import { readFileSync } from 'node:fs';
import express, { type Request, type RequestHandler, type Response, type Router } from 'express';
import { z } from 'zod';
import { SCHEDULES } from '../../shared/domains/schedules/schedule-table.js';
import type { Deps } from '../../shared/composition/deps.js';
import { operatorActions, settlementLine } from '../../shared/domains/operator/operator-actions.js';
import { recentOperatorActions } from '../../shared/domains/operator/record-action.js';
import { listSchedules } from '../../shared/domains/schedules/schedule-admin.js';
import { SkillReviewSchema } from '../../shared/domains/skills/skills.schemas.js';
import { listSkills } from '../../shared/domains/skills/skills.js';
import { TIERS } from '../../shared/domains/users/user.model.js';
import { outsideHostHealth } from '../../shared/composition/host-health.js';
import { AppError } from '../../shared/infra/errors.js';
import { isLockedOut, type OperatorLockout } from '../../shared/infra/operator-lockout.js';
import { refuseCrossOriginWrites } from '../http/cross-origin.js';
import { clientAddress } from '../http/operator-auth.js';
import { html, type HtmlValue } from './html.js';
import { consoleAudits } from './last-audit.js';
import { notice, page } from './layout.js';
import { auditPage } from './pages/audit.js';
import { marketsPage, skillsPage, usersPage } from './pages/forms.js';
import { homePage, loginPage } from './pages/home.js';
import { schedulesPage } from './pages/schedules.js';
import { venuesPage } from './pages/venues.js';
import { overdueSettlements } from '../../shared/domains/trading/venue-settlement.js';
import { tapesPage } from './pages/tapes.js';
import { tapeCoverage } from '../../shared/domains/tapes/tape-coverage.js';
import { fillFeedStatus } from '../../shared/domains/fill-feed/fill-feed-status.js';
import { queueBoard } from './queue-board.js';
import { onchain } from '../../shared/composition/onchain.js';
import { consoleSessions } from './session.js';
import { POOL_VENUE } from '../../shared/domains/venues/venue-id.js';

const STYLESHEET = readFileSync(new URL('./console.css', import.meta.url), 'utf8');

/** A plain mark for the console's tabs (and /favicon.ico, which browsers ask for regardless). */
const FAVICON =
  '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 16 16"><rect width="16" height="16" rx="3" fill="#1d2633"/><path d="M4 11l3-4 2 2 3-5" stroke="#fff" stroke-width="1.6" fill="none"/></svg>';

export const sendFavicon: RequestHandler = (_req, res) => {
  res.type('image/svg+xml').setHeader('Cache-Control', 'public, max-age=86400').send(FAVICON);
};

/** The console's pages use no script at all and only their own stylesheet. */
const CONSOLE_CSP =
  "default-src 'none'; style-src 'self'; img-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'";

const consoleHeaders: RequestHandler = (_req, res, next) => {
  res.setHeader('Content-Security-Policy', CONSOLE_CSP);
  res.setHeader('Cache-Control', 'no-store');
  next();
};

/** Only console paths are followed after signing in (never another site). */
const safeNext = (next: unknown) =>
  typeof next === 'string' && /^\/admin(?:[/?]|$)/.test(next) && !next.startsWith('//') ? next : '/admin';

const LoginForm = z.object({
  token: z.string().min(1),
  name: z.string().trim().min(1, 'Give your name for the audit trail').max(64),
  next: z.string().optional(),
});

/**
 * The operator console at /admin: server-rendered pages over the same domain calls as the
 * /api/admin endpoints, bull-board at /admin/queues, and the browser session that signs them in.
 */
export function operatorConsole(
  deps: Deps,
  opts: { operatorToken: string; lockout: OperatorLockout },
): Router {
  const router = express.Router();
  const sessions = consoleSessions(deps, opts.operatorToken, opts.lockout);
  const guard = sessions.guard();
  const form = [express.urlencoded({ extended: false, limit: '16kb' }), guard, sessions.csrf()];
  const send = (req: Request, res: Response, title: string, current: string, body: HtmlValue) =>
    res.type('html').send(page({ title, current, operator: req.consoleOperator, body }));
  /** The session's operator name: operator-actions.ts audits every action under it. */
  const who = (req: Request) => req.consoleOperator!.name;
  const csrf = (req: Request) => req.consoleOperator?.csrf ?? null;
  /** An operator action's outcome: the error's own words (and status) when it was refused. */
  async function attempt(res: Response, action: () => Promise<HtmlValue>): Promise<HtmlValue> {
    try {
      return notice('success', await action());
    } catch (err) {
      if (!(err instanceof AppError)) throw err;
      res.status(err.status);
      return notice('error', html`${err.message}. ${err.fix}`);
    }
  }

  // Before everything, bull-board's own API included: no other site makes the console change a thing.
  router.use(refuseCrossOriginWrites);
  router.get('/console.css', (_req, res) => {
    res.type('text/css').setHeader('Cache-Control', 'public, max-age=300').send(STYLESHEET);
  });
  router.get('/favicon.svg', sendFavicon);
  router.use('/queues', guard, ...queueBoard(deps, '/admin/queues', who));
  router.use(consoleHeaders);

  router.get('/login', (req, res) => {
    res.type('html').send(page({ title: 'Sign in', body: loginPage(safeNext(req.query.next)) }));
  });
  router.post('/login', express.urlencoded({ extended: false, limit: '4kb' }), async (req, res) => {
    const parsed = LoginForm.safeParse(req.body);
    const next = safeNext(parsed.data?.next);
    const token = (req.body as Record<string, unknown> | undefined)?.token;
    const checked = await opts.lockout
      .check(clientAddress(req), typeof token === 'string' ? token : '')
      .catch((err: unknown) => {
        if (!isLockedOut(err)) throw err;
        res
          .status(429)
          .set(err.options.headers)
          .type('html')
          .send(page({ title: 'Sign in', body: loginPage(next, `${err.message}.`) }));
        return null;
      });
    if (checked === null) return;
    if (!parsed.success || checked !== 'right') {
      const error = parsed.success
        ? 'That token is not the operator token.'
        : parsed.error.issues.map((i) => i.message).join('; ');
      res
        .status(parsed.success ? 401 : 422)
        .type('html')
        .send(page({ title: 'Sign in', body: loginPage(next, error) }));
      return;
    }
    await sessions.start(res, parsed.data.name);
    res.redirect(303, next);
  });
  router.post('/logout', ...form, async (req, res) => {
    await sessions.end(req, res);
    res.redirect(303, '/admin/login');
  });

  router.get('/', guard, async (req, res) => {
    send(req, res, 'Home', '/admin', homePage(await recentOperatorActions(deps.models, { limit: 20 })));
  });

  router.get('/schedules', guard, async (req, res) => {
    const [schedules, actions] = await Promise.all([
      listSchedules(deps, SCHEDULES),
      recentOperatorActions(deps.models, { limit: 50, actionPrefix: 'schedule.' }),
    ]);
    const done =
      typeof req.query.done === 'string' && typeof req.query.schedule === 'string'
        ? { verb: req.query.done, name: req.query.schedule }
        : undefined;
    send(req, res, 'Schedules', '/admin/schedules', schedulesPage(schedules, actions, csrf(req), done));
  });
  router.post('/schedules/:name/:verb', ...form, async (req, res) => {
    const name = String(req.params.name);
    const verb = String(req.params.verb);
    if (verb === 'pause' || verb === 'resume')
      await operatorActions.setSchedulePaused(deps, who(req), SCHEDULES, name, verb === 'pause');
    else if (verb === 'run') await operatorActions.runSchedule(deps, who(req), SCHEDULES, name);
    else
      throw new AppError(404, 'not_found', `Not found: POST ${req.originalUrl}`, 'Use pause, resume or run.');
    res.redirect(303, `/admin/schedules?done=${verb}&schedule=${encodeURIComponent(name)}`);
  });

  router.get('/venues', guard, async (req, res) => {
    send(
      req,
      res,
      'Venues',
      '/admin/venues',
      venuesPage(
        outsideHostHealth(deps),
        await overdueSettlements(deps),
        await fillFeedStatus(deps),
        await onchain.managedApprovalRows(deps.models),
      ),
    );
  });

  router.get('/tapes', guard, async (req, res) => {
    send(
      req,
      res,
      'Backtest tapes',
      '/admin/tapes',
      tapesPage(await tapeCoverage(deps), deps.env.TAPE_RECORD_SECONDS),
    );
  });

  const audits = consoleAudits(deps);
  router.get('/audit', guard, async (req, res) => {
    send(req, res, 'Ledger audit', '/admin/audit', auditPage(csrf(req), await audits.last()));
  });
  router.post('/audit', ...form, async (req, res) => {
    await audits.run(who(req));
    res.redirect(303, '/admin/audit');
  });

  const openSimMarkets = () =>
    deps.models.Market.find({ importSource: POOL_VENUE, status: 'active' }, { question: 1, resolvesAt: 1 })
      .sort({ resolvesAt: 1 })
      .limit(20)
      .lean();
  router.get('/markets', guard, async (req, res) => {
    send(req, res, 'Markets', '/admin/markets', marketsPage(csrf(req), await openSimMarkets()));
  });
  router.post('/markets/resolve', ...form, async (req, res) => {
    const input = z
      .object({ market_id: z.string().trim().min(1).max(200), outcome: z.enum(['yes', 'no', 'void']) })
      .safeParse(req.body);
    const result = await attempt(res, async () => {
      if (!input.success)
        throw new AppError(
          422,
          'validation_error',
          'Give a market id and an outcome',
          'Fill in both fields.',
        );
      const { market_id, outcome } = input.data;
      const resolved = await operatorActions.resolveMarket(
        deps,
        who(req),
        market_id,
        outcome === 'void' ? 'void' : outcome === 'yes',
      );
      return `Market ${market_id} resolved ${outcome === 'void' ? 'void (50-50)' : outcome.toUpperCase()}; ${settlementLine(resolved.settlement)}.`;
    });
    send(req, res, 'Markets', '/admin/markets', marketsPage(csrf(req), await openSimMarkets(), result));
  });

  const pendingSkills = async () =>
    (await listSkills(deps.models, { status: 'pending', oldestFirst: true })).skills;
  router.get('/skills', guard, async (req, res) => {
    send(req, res, 'Skills', '/admin/skills', skillsPage(csrf(req), await pendingSkills()));
  });
  router.post('/skills/:slug/review', ...form, async (req, res) => {
    const slug = String(req.params.slug);
    const body = (req.body ?? {}) as Record<string, string>;
    const review = SkillReviewSchema.safeParse({
      status: body.status,
      revision: Number(body.revision),
      note: body.note || undefined,
    });
    const result = await attempt(res, async () => {
      if (!review.success)
        throw new AppError(
          422,
          'validation_error',
          'Approve or reject the revision shown',
          'Reload the page and try again.',
        );
      await operatorActions.reviewSkill(deps, who(req), slug, review.data);
      return `Skill ${slug} ${review.data.status}.`;
    });
    send(req, res, 'Skills', '/admin/skills', skillsPage(csrf(req), await pendingSkills(), result));
  });

  router.get('/users', guard, (req, res) => {
    send(req, res, 'Users', '/admin/users', usersPage(csrf(req)));
  });
  router.post('/users/tier', ...form, async (req, res) => {
    const input = z
      .object({ user_id: z.string().trim().min(1).max(200), tier: z.enum(TIERS) })
      .safeParse(req.body);
    const result = await attempt(res, async () => {
      if (!input.success)
        throw new AppError(422, 'validation_error', 'Give a user id and a tier', 'Fill in both fields.');
      const set = await operatorActions.setUserTier(deps, who(req), input.data.user_id, input.data.tier);
      return `User ${set.user_id} is now ${set.tier} (${set.active_agents} active agents).`;
    });
    send(req, res, 'Users', '/admin/users', usersPage(csrf(req), result));
  });

  return router;
}
