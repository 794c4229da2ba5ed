import { z } from 'zod';
import { freeFormObject } from '../../util/free-form-object.js';
import { BEST_DIRECTIONS, EXPERIMENT_STATUSES } from './experiment.model.js';

const skillSlug = z.string().trim().min(1, 'skill_slug is the slug of the skill under research').max(200);

export const ResearchStateQuerySchema = z.object({ skill_slug: skillSlug });

export const ResearchStateSchema = z
  .object({
    last_experiment_number: z.number().int(),
    current_segment: z.number().int(),
    best_metric: z.number().nullable(),
    best_direction: z.enum(BEST_DIRECTIONS).nullable(),
    metric_name: z.string().nullable(),
    metric_unit: z.string().nullable(),
    skill_slug: z.string(),
  })
  .meta({ id: 'ResearchState' });

export const ExperimentRequestSchema = z.object({
  skill_slug: skillSlug,
  experiment_number: z.number().int().min(0).max(1e9),
  segment: z.number().int().min(0).max(1e9),
  status: z.enum(EXPERIMENT_STATUSES),
  metric_name: z.string().trim().min(1).max(100),
  metric_value: z.number(),
  metric_unit: z.string().trim().max(40),
  best_direction: z.enum(BEST_DIRECTIONS),
  secondary_metrics: freeFormObject().nullish(),
  description: z.string().max(4000).nullish(),
  commit_hash: z.string().trim().max(100).nullish(),
});
export type ExperimentRequest = z.output<typeof ExperimentRequestSchema>;

export const ExperimentAnswerSchema = z
  .object({
    id: z.string(),
    experiment_number: z.number().int(),
    is_new_best: z.boolean(),
    status_mismatch: z.boolean(),
    zero_metric_keep: z.boolean(),
    prior_best_value: z.number().nullable(),
  })
  .meta({ id: 'ResearchExperiment' });
