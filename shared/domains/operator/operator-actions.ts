import type { InfraDeps } from '../../infra/infra-deps.js';
import type { Models } from '../models.js';
import { AppError } from '../../infra/errors.js';
import { runScheduleNow, setSchedulePaused } from '../schedules/schedule-admin.js';
import type { ScheduleDefinition } from '../schedules/schedule-tick.js';
import { decided, VOID_RESOLUTION } from '../markets/resolution.js';
import { resolveAndSettle, type SettlementState } from '../settlement/resolve-and-settle.js';
import { reviewSkill } from '../skills/skills.js';
import { importUpload } from '../tapes/import-tape.js';
import { writeUploadFile } from '../tapes/tape-uploads.js';
import { setUserTier } from '../users/user-tier.js';
import type { Tier } from '../users/user.model.js';
import {
  ACTION_STARTED,
  recordActionResult,
  recordOperatorAction,
  type OperatorActor,
} from './record-action.js';

/** What this module's functions use of the process (the composition root's Deps has all of it). */
export type OperatorActionsDeps = Pick<InfraDeps, 'env' | 'log' | 'queues' | 'invalidation' | 'clock'> & {
  models: Models;
};

/**
 * Opens an operator action's audit entry before the action runs, so that an action is never taken
 * unrecorded (no entry, no action: a database that refuses the entry refuses the action too);
 * `finish` writes its result. If that second write fails the entry keeps saying it started, and the
 * caller still gives the action's own answer: it happened. For actions another component carries
 * out (bull-board's writes), the caller finishes once that component has answered.
 */
export async function startOperatorAction(
  deps: OperatorActionsDeps,
  entry: { actor: OperatorActor; action: string; target: string },
): Promise<{ finish: (detail: string | null) => Promise<void> }> {
  const id = await recordOperatorAction(deps.models, { at: deps.clock(), ...entry, detail: ACTION_STARTED });
  return {
    finish: (detail) =>
      recordActionResult(deps.models, id, detail).catch((err: Error) =>
        deps.log.error({ err: err.message, auditEntry: id, ...entry }, 'operator action result not recorded'),
      ),
  };
}

/**
 * Runs one operator action and records it in the audit trail, whichever door it came through (a
 * console form, /api/admin/*): the outcome's line when it went through, `refused:` or `failed:`
 * with the reason when it did not (the error is thrown on to the caller).
 */
export async function audited<T>(
  deps: OperatorActionsDeps,
  entry: { actor: OperatorActor; action: string; target: string },
  run: () => Promise<T>,
  outcome: (result: T) => string | null,
): Promise<T> {
  const action = await startOperatorAction(deps, entry);
  let result: T;
  try {
    result = await run();
  } catch (err) {
    await action.finish(
      err instanceof AppError ? `refused: ${err.message}` : `failed: ${(err as Error).message}`,
    );
    throw err;
  }
  await action.finish(outcome(result));
  return result;
}

/** A resolve's settlement in one line, as the audit trail and the console say it. */
export const settlementLine = (s: SettlementState) =>
  s.state === 'completed' ? `settled: ${s.positions} positions paid ${s.payout} $SIM` : 'settlement queued';

/** How long an operator's resolve waits for settlement before answering "queued". */
export const SETTLEMENT_WAIT_MS = 10_000;

/**
 * Every operator write, each audited under its actor (the console session's name, or `api` for
 * Bearer/Basic callers). Both doors call these, never the domain functions underneath, so that no
 * operator change escapes the trail.
 */
export const operatorActions = {
  /** `outcome`: YES (true) or NO (false) wins, or `void`: a 50-50 resolution paying 0.5 a share. */
  resolveMarket: (
    deps: OperatorActionsDeps,
    actor: OperatorActor,
    marketId: string,
    outcome: boolean | 'void',
  ) =>
    audited(
      deps,
      { actor, action: 'market.resolve', target: marketId },
      () =>
        resolveAndSettle(deps, marketId, outcome === 'void' ? VOID_RESOLUTION : decided(outcome), {
          waitMs: SETTLEMENT_WAIT_MS,
        }),
      (r) => `${outcome === 'void' ? 'void' : outcome ? 'yes' : 'no'}; ${settlementLine(r.settlement)}`,
    ),

  setUserTier: (deps: OperatorActionsDeps, actor: OperatorActor, userId: string, tier: Tier) =>
    audited(
      deps,
      { actor, action: 'user.tier', target: userId },
      () => setUserTier(deps.models, deps.invalidation, userId, tier),
      (r) => r.tier,
    ),

  reviewSkill: (
    deps: OperatorActionsDeps,
    actor: OperatorActor,
    slug: string,
    review: Parameters<typeof reviewSkill>[2],
  ) =>
    audited(
      deps,
      { actor, action: 'skill.review', target: slug },
      () => reviewSkill(deps.models, slug, review, deps.clock()),
      () => `${review.status} revision ${review.revision}`,
    ),

  // The schedule table is the caller's (jobs/ owns it): the domain does not reach up into an entry point.
  setSchedulePaused: (
    deps: OperatorActionsDeps,
    actor: OperatorActor,
    specs: readonly ScheduleDefinition[],
    name: string,
    paused: boolean,
  ) =>
    audited(
      deps,
      { actor, action: paused ? 'schedule.pause' : 'schedule.resume', target: name },
      () => setSchedulePaused(deps, specs, name, paused, actor),
      () => null,
    ),

  runSchedule: (
    deps: OperatorActionsDeps,
    actor: OperatorActor,
    specs: readonly ScheduleDefinition[],
    name: string,
  ) =>
    audited(
      deps,
      { actor, action: 'schedule.run', target: name },
      () => runScheduleNow(deps, specs, name),
      (run) => (run.error ? `failed: ${run.error}` : 'enqueued'),
    ).then((run) => run.view),

  uploadTapeFile: (
    deps: OperatorActionsDeps,
    actor: OperatorActor,
    upload: Parameters<typeof writeUploadFile>[1],
  ) =>
    audited(
      deps,
      { actor, action: 'tape.upload', target: `${upload.id}/${upload.file}` },
      () => writeUploadFile(deps.env.DATA_DIR, upload, deps.clock()),
      (r) => `${r.bytes} bytes`,
    ),

  importTape: (deps: OperatorActionsDeps, actor: OperatorActor, uploadId: string, source: string) =>
    audited(
      deps,
      { actor, action: 'tape.import', target: source },
      () => importUpload(deps.env.DATA_DIR, uploadId, source),
      (r) =>
        r.already_imported
          ? 'already imported: nothing written'
          : `${r.markets} markets, ${r.prints} prints, ${r.first_day ?? '-'} to ${r.last_day ?? '-'}`,
    ),
};
