import { randomUUID } from 'node:crypto';
import type { Models } from '../models.js';

/** Who acted: the console session's operator name, or `api` for a Bearer/Basic caller. */
export type OperatorActor = string;

export const API_ACTOR: OperatorActor = 'api';

export interface OperatorActionView {
  at: string;
  actor: string;
  action: string;
  target: string;
  detail: string | null;
}

/** What an entry says while its action runs, and ever after if the process died before the result. */
export const ACTION_STARTED = 'started; no result recorded';

/**
 * Appends one entry to the operator audit trail and answers its id; an action in progress is
 * written with `ACTION_STARTED` first and its result later (`recordActionResult`).
 */
export async function recordOperatorAction(
  models: Models,
  entry: { at: Date; actor: OperatorActor; action: string; target: string; detail?: string | null },
): Promise<string> {
  const _id = randomUUID();
  await models.OperatorAction.create({ _id, detail: null, ...entry });
  return _id;
}

/** Writes the result of an action its entry said was started. */
export async function recordActionResult(models: Models, id: string, detail: string | null): Promise<void> {
  await models.OperatorAction.updateOne({ _id: id, detail: ACTION_STARTED }, { $set: { detail } });
}

/** The latest entries, newest first; `actionPrefix` narrows to one kind (e.g. `schedule.`). */
export async function recentOperatorActions(
  models: Models,
  opts: { limit: number; actionPrefix?: string },
): Promise<OperatorActionView[]> {
  const filter = opts.actionPrefix
    ? { action: { $regex: `^${opts.actionPrefix.replace(/\./g, '\\.')}` } }
    : {};
  const rows = await models.OperatorAction.find(filter).sort({ at: -1 }).limit(opts.limit).lean();
  return rows.map((r) => ({
    at: r.at.toISOString(),
    actor: r.actor,
    action: r.action,
    target: r.target,
    detail: r.detail,
  }));
}
