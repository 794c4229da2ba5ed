import { z } from 'zod';
import { storableKey } from '../../util/storable-key.js';
import { SkillItemSchema } from '../skills/skills.schemas.js';
import { BUILT_IN_VENUE_IDS, DEFAULT_VENUE } from '../venues/venue-id.js';

/** The wire shapes of `simmer-automaton` 0.7.2 (read from its published `src/api.ts`). */

const slug = z.string().min(1).max(64);
const money = z.number().finite().min(0).max(1e9);
const tunableValue = z.union([z.number().finite(), z.string().max(500), z.boolean()]);
const selection = z.object({ slug, reason: z.string().max(200), score: z.number().finite().nullable() });
// `env` names a tunable: `POST /cycle` stores the change under it, as a key of the skill's config.
const configChange = z.looseObject({ slug, env: storableKey().max(100), reason: z.string().max(500) });

export const AutomatonInitSchema = z
  .strictObject({
    budget_usd: money.positive(),
    horizon_days: z.number().int().min(1).max(3650).default(30),
    // Not sent by the plugin (it follows the state's venue): sim unless the human asks for another.
    venue: z.enum(BUILT_IN_VENUE_IDS).default(DEFAULT_VENUE),
  })
  .meta({ id: 'AutomatonInit' });

export const AutomatonStateSchema = z
  .object({
    initialized: z.boolean(),
    budget_usd: z.number(),
    spent_usd: z.number(),
    remaining_usd: z.number(),
    halted: z.boolean(),
    tier: z.string(),
    horizon_days: z.number(),
    venue: z.string(),
    started_at: z.string().nullable(),
    active_skills: z.array(z.string()),
  })
  .meta({ id: 'AutomatonState' });

export const BanditArmSchema = z
  .looseObject({
    slug,
    enabled: z.boolean(),
    timesSelected: z.number().finite(),
    timesRewarded: z.number().finite(),
    totalPnl: z.number().finite(),
    consecutiveZeroSignals: z.number().finite(),
    signalsFoundTotal: z.number().finite(),
    tradesExecutedTotal: z.number().finite(),
    ewmRoc: z.number().finite(),
  })
  .meta({ id: 'BanditArm' });

export const BanditStateSchema = z
  .object({ epsilon: z.number(), cycle_count: z.number(), arms: z.array(BanditArmSchema) })
  .meta({ id: 'BanditState' });

/** `POST .../skills/{slug}/config`: tunables by env name; `_pinned` (optional) replaces the pins. */
export const SkillConfigSchema = z
  .record(z.string().max(100), z.union([tunableValue, z.array(z.string().max(100)).max(100)]))
  .refine((c) => Object.keys(c).length <= 100, 'at most 100 tunables')
  .meta({ id: 'AutomatonSkillConfig' });

/** A listed skill (its catalogue fields) with the automaton's view of it. */
export const AutomatonSkillSchema = SkillItemSchema.pick({
  id: true,
  name: true,
  description: true,
  category: true,
  tags: true,
  difficulty: true,
})
  .extend({
    enabled: z.boolean(),
    tunables: z.array(z.unknown()),
    config: z.record(z.string(), z.unknown()),
    pinned: z.array(z.string()),
  })
  .meta({ id: 'AutomatonSkill' });

/** `POST /cycle`: what the bandit selected now, the tuning it applied, and its arms to persist. */
export const CycleUpdateSchema = z
  .strictObject({
    active_skills: z.array(slug).max(50),
    cycle_number: z.number().int().min(0),
    selection_meta: z.array(selection).max(50).default([]),
    config_changes: z
      .array(configChange.extend({ old: z.unknown(), new: tunableValue }))
      .max(200)
      .default([]),
    epsilon: z.number().min(0).max(1).optional(),
    bandit_arms: z.array(BanditArmSchema).max(500).optional(),
  })
  .meta({ id: 'AutomatonCycleUpdate' });

/** `POST /cycles`: one cycle's record for the history. */
export const CycleRecordSchema = z
  .strictObject({
    cycle_num: z.number().int().min(0),
    tier: z.string().max(20),
    epsilon: z.number().min(0).max(1),
    selected_skills: z.array(selection).max(50),
    tuning_hints: z
      .array(z.looseObject({ skill: z.string().max(64), issue: z.string().max(500) }))
      .max(200)
      .default([]),
    budget_usd: money.nullish(),
    spent_usd: money.nullish(),
    config_changes: z.array(configChange).max(200).optional(),
  })
  .meta({ id: 'AutomatonCycleRecord' });
export type CycleRecordInput = z.output<typeof CycleRecordSchema>;
export type CycleUpdateInput = z.output<typeof CycleUpdateSchema>;

export const SkillOutcomeSchema = z
  .object({
    skill_slug: z.string(),
    venue: z.string(),
    trades: z.number(),
    total_cost: z.number(),
    period_pnl: z.number(),
  })
  .meta({ id: 'AutomatonSkillOutcome' });

export const CycleViewSchema = z
  .object({
    id: z.number(),
    cycle_num: z.number(),
    tier: z.string(),
    epsilon: z.number(),
    selected_skills: z.array(selection),
    tuning_hints: z.array(z.record(z.string(), z.unknown())),
    config_changes: z.array(z.record(z.string(), z.unknown())),
    budget_usd: z.number().nullable(),
    spent_usd: z.number().nullable(),
    created_at: z.string(),
    outcomes: z.array(SkillOutcomeSchema.omit({ venue: true })),
  })
  .meta({ id: 'AutomatonCycle' });
