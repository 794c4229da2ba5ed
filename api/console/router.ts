import { readFileSync } from 'node:fs';
import express, { type Request, type RequestHandler, type Response, type Router } from 'express';
import { z } from 'zod';
import { SCHEDULES } from '../../jobs/schedules.js';
import type { Deps } from '../../shared/composition/deps.js';
import { auditLedger } from '../../shared/domains/audit/audit.js';
import { recentOperatorActions, recordOperatorAction } from '../../shared/domains/operator/record-action.js';
import {
  listSchedules,
  runScheduleNow,
  setSchedulePaused,
} from '../../shared/domains/schedules/schedule-admin.js';
import { resolveAndSettle } from '../../shared/domains/settlement/resolve-and-settle.js';
import { SkillReviewSchema } from '../../shared/domains/skills/skills.schemas.js';
import { listSkills, reviewSkill } from '../../shared/domains/skills/skills.js';
import { setUserTier } from '../../shared/domains/users/manage-agents.js';
import { TIERS } from '../../shared/domains/users/user.model.js';
import { venueHealth } from '../../shared/domains/venues/venue-health.js';
import { AppError } from '../../shared/infra/errors.js';
import { SETTLEMENT_WAIT_MS } from '../handlers/admin.handlers.js';
import { html, type HtmlValue } from './html.js';
import { notice, page } from './layout.js';
import { auditPage } from './pages/audit.js';
import { marketsPage, skillsPage, usersPage } from './pages/forms.js';
import { homePage, loginPage } from './pages/home.js';
import { signInLimit } from './sign-in-limit.js';
import { schedulesPage } from './pages/schedules.js';
import { venuesPage } from './pages/venues.js';
import { queueBoard } from './queue-board.js';
import { consoleSessions } from './session.js';

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
export function operatorConsole(deps: Deps, opts: { operatorToken: string }): Router {
  const router = express.Router();
  const sessions = consoleSessions(deps, opts.operatorToken);
  const guard = sessions.guard();
  const signIns = signInLimit(deps.redis, deps.env.QUEUE_PREFIX);
  const form = [express.urlencoded({ extended: false, limit: '16kb' }), guard, sessions.csrf()];
  const send = (req: Request, res: Response, title: string, current: string, body: HtmlValue) =>
    res.type('html').send(page({ title, current, operator: req.consoleOperator, body }));
  const who = (req: Request) => req.consoleOperator!.name;
  const csrf = (req: Request) => req.consoleOperator?.csrf ?? null;
  /** Every console action goes into the operator audit trail under the session's name. */
  const audit = (req: Request, action: string, target: string, detail: string) =>
    recordOperatorAction(deps.models, { at: deps.clock(), actor: who(req), action, target, detail });
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

  router.get('/console.css', (_req, res) => {
    res.type('text/css').setHeader('Cache-Control', 'public, max-age=300').send(STYLESHEET);
  });
  router.get('/favicon.svg', sendFavicon);
  router.use('/queues', guard, ...queueBoard(deps, '/admin/queues'));
  router.use(consoleHeaders);

  router.get('/login', (req, res) => {
    res.type('html').send(page({ title: 'Sign in', body: loginPage(safeNext(req.query.next)) }));
  });
  router.post('/login', express.urlencoded({ extended: false, limit: '4kb' }), async (req, res) => {
    const parsed = LoginForm.safeParse(req.body);
    const next = safeNext(parsed.data?.next);
    const lockedFor = await signIns.attempt(req);
    if (lockedFor > 0) {
      const error = `Too many wrong tokens from this address: try again in ${Math.ceil(lockedFor / 60)} minute(s).`;
      res
        .status(429)
        .setHeader('Retry-After', String(lockedFor))
        .type('html')
        .send(page({ title: 'Sign in', body: loginPage(next, error) }));
      return;
    }
    if (!parsed.success || !sessions.isToken(parsed.data.token)) {
      const error = parsed.success
        ? 'That token is not the operator token.'
        : parsed.error.issues.map((i) => i.message).join('; ');
      res
        .status(parsed.success ? 401 : 422)
        .type('html')
        .send(page({ title: 'Sign in', body: loginPage(next, error) }));
      return;
    }
    await signIns.succeeded(req);
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
      await setSchedulePaused(deps, SCHEDULES, name, verb === 'pause', who(req));
    else if (verb === 'run') await runScheduleNow(deps, SCHEDULES, name, who(req));
    else
      throw new AppError(404, 'not_found', `Not found: POST ${req.originalUrl}`, 'Use pause, resume or run.');
    res.redirect(303, `/admin/schedules?done=${verb}&schedule=${encodeURIComponent(name)}`);
  });

  router.get('/venues', guard, (req, res) => {
    send(req, res, 'Venues', '/admin/venues', venuesPage(venueHealth(deps)));
  });

  router.get('/audit', guard, async (req, res) => {
    const report = req.query.run ? await auditLedger(deps.models, { maxDifferences: 100 }) : null;
    send(req, res, 'Ledger audit', '/admin/audit', auditPage(report));
  });

  const openSimMarkets = () =>
    deps.models.Market.find({ importSource: 'sim', status: 'active' }, { question: 1, resolvesAt: 1 })
      .sort({ resolvesAt: 1 })
      .limit(20)
      .lean();
  router.get('/markets', guard, async (req, res) => {
    send(req, res, 'Markets', '/admin/markets', marketsPage(csrf(req), await openSimMarkets()));
  });
  router.post('/markets/resolve', ...form, async (req, res) => {
    const input = z
      .object({ market_id: z.string().trim().min(1).max(200), outcome: z.enum(['yes', 'no']) })
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
      const resolved = await resolveAndSettle(deps, market_id, outcome === 'yes', {
        waitMs: SETTLEMENT_WAIT_MS,
      });
      const s = resolved.settlement;
      const detail =
        s.state === 'completed'
          ? `settled: ${s.positions} positions paid ${s.payout} $SIM`
          : 'settlement queued';
      await audit(req, 'market.resolve', market_id, `${outcome}; ${detail}`);
      return `Market ${market_id} resolved ${outcome.toUpperCase()}; ${detail}.`;
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
    const body = req.body as Record<string, string>;
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
      await reviewSkill(deps.models, slug, review.data, deps.clock());
      await audit(req, 'skill.review', slug, `${review.data.status} revision ${review.data.revision}`);
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
      const set = await setUserTier(deps.models, deps.invalidation, input.data.user_id, input.data.tier);
      await audit(req, 'user.tier', set.user_id, set.tier);
      return `User ${set.user_id} is now ${set.tier} (${set.active_agents} active agents).`;
    });
    send(req, res, 'Users', '/admin/users', usersPage(csrf(req), result));
  });

  return router;
}
