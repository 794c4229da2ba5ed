import { randomUUID } from 'node:crypto';
import type { Models } from '../models.js';
import type { ExperimentRecord } from './experiment.model.js';
import type { ExperimentRequest } from './research.schemas.js';

type Direction = ExperimentRecord['bestDirection'];
type Experiment = Omit<ExperimentRecord, 'createdAt' | 'updatedAt'>;

const beats = (value: number, best: number, direction: Direction) =>
  direction === 'lower' ? value < best : value > best;

/**
 * The best value kept so far in one segment for one metric: the lowest or highest `keep` in the
 * given direction. A segment is a run with one baseline; a new segment starts its best afresh.
 */
async function bestKept(
  models: Models,
  agentId: string,
  at: Pick<ExperimentRecord, 'skillSlug' | 'segment' | 'metricName' | 'bestDirection'>,
): Promise<number | null> {
  const best = await models.ResearchExperiment.findOne(
    { agentId, skillSlug: at.skillSlug, segment: at.segment, metricName: at.metricName, status: 'keep' },
    { metricValue: 1 },
  )
    .sort({ metricValue: at.bestDirection === 'lower' ? 1 : -1 })
    .lean();
  return best ? best.metricValue : null;
}

const answerOf = (e: Experiment) => ({
  id: e._id,
  experiment_number: e.experimentNumber,
  is_new_best: e.isNewBest,
  status_mismatch: e.statusMismatch,
  zero_metric_keep: e.status === 'keep' && e.metricValue === 0,
  prior_best_value: e.priorBestValue,
});

const isDuplicateKey = (err: unknown) => (err as { code?: unknown }).code === 11000;

/**
 * `POST /api/sdk/autoresearch/experiments`. Verdicts are judged against the kept experiments of the
 * same skill, segment and metric recorded before this one (`prior_best_value`):
 * `is_new_best` — a `keep` that beats the prior best in `best_direction` (or the first `keep`);
 * `status_mismatch` — a `keep` that does not beat it, or a `discard` that does;
 * `zero_metric_keep` — a `keep` whose metric is exactly 0 (usually a measurement that failed).
 * Idempotent on (agent, skill, experiment number): a resend answers the first record unchanged.
 */
export async function recordExperiment(models: Models, agentId: string, body: ExperimentRequest) {
  const key = { agentId, skillSlug: body.skill_slug, experimentNumber: body.experiment_number };
  const recorded = await models.ResearchExperiment.findOne(key).lean();
  if (recorded) return answerOf(recorded);
  const fields = {
    ...key,
    segment: body.segment,
    status: body.status,
    metricName: body.metric_name,
    metricValue: body.metric_value,
    metricUnit: body.metric_unit,
    bestDirection: body.best_direction,
  };
  const prior = await bestKept(models, agentId, fields);
  const better =
    prior === null ? body.status === 'keep' : beats(body.metric_value, prior, body.best_direction);
  const record: Experiment = {
    _id: randomUUID(),
    ...fields,
    secondaryMetrics: body.secondary_metrics ?? null,
    description: body.description ?? null,
    commitHash: body.commit_hash ?? null,
    isNewBest: body.status === 'keep' && better,
    statusMismatch:
      (body.status === 'keep' && !better) || (body.status === 'discard' && prior !== null && better),
    priorBestValue: prior,
  };
  try {
    await models.ResearchExperiment.create(record);
  } catch (err) {
    // Two resends raced: the one that lost answers what the winner recorded.
    if (!isDuplicateKey(err)) throw err;
    return answerOf((await models.ResearchExperiment.findOne(key).lean())!);
  }
  return answerOf(record);
}

/**
 * `GET /api/sdk/autoresearch/state`: where the agent's research on a skill stands, from its last
 * experiment (highest number): its segment, metric and direction, and the best kept value there.
 * A skill without experiments (the MCP client's `__probe__` canary among them) answers 0s and nulls.
 */
export async function researchState(models: Models, agentId: string, skillSlug: string) {
  const last = await models.ResearchExperiment.findOne({ agentId, skillSlug })
    .sort({ experimentNumber: -1 })
    .lean();
  if (!last)
    return {
      last_experiment_number: 0,
      current_segment: 0,
      best_metric: null,
      best_direction: null,
      metric_name: null,
      metric_unit: null,
      skill_slug: skillSlug,
    };
  return {
    last_experiment_number: last.experimentNumber,
    current_segment: last.segment,
    best_metric: await bestKept(models, agentId, last),
    best_direction: last.bestDirection,
    metric_name: last.metricName,
    metric_unit: last.metricUnit,
    skill_slug: skillSlug,
  };
}
