import { z } from 'zod';
import {
  AutomatonInitSchema,
  AutomatonSkillSchema,
  AutomatonStateSchema,
  BanditStateSchema,
  CycleRecordSchema,
  CycleUpdateSchema,
  CycleViewSchema,
  SkillConfigSchema,
  SkillOutcomeSchema,
} from '../../shared/domains/automaton/automaton.schemas.js';
import { MAX_CYCLES } from '../../shared/domains/automaton/automaton-cycles.js';
import { endpoint } from './endpoint.js';

const TAG = 'Automaton';
const Done = z.object({ success: z.literal(true) });
const Halted = Done.extend({ halted: z.boolean() });
const SkillParams = z.object({ slug: z.string().min(1).max(64) });
const SkillEnabled = Done.extend({ skill: z.string(), enabled: z.boolean() });
const isoTime = z.iso.datetime({ offset: true });

/**
 * The server side of the `simmer-automaton` plugin: it runs an agent's skills on a budget, choosing
 * them with a bandit; the state, the skills' preferences, the cycles and the bandit's arms live here.
 */
export const automatonEndpoints = {
  automatonState: endpoint({
    method: 'get',
    path: '/api/sdk/automaton/state',
    auth: 'agent',
    tag: TAG,
    summary: "Your automaton's budget, spending and status",
    description:
      '`spent_usd` is what your filled buys on the automaton venue cost since `started_at`; `tier` is the one ' +
      'the plugin last recorded. Not initialized: `initialized: false` and zeros.',
    response: AutomatonStateSchema,
  }),
  automatonInit: endpoint({
    method: 'post',
    path: '/api/sdk/automaton/init',
    auth: 'agent',
    tag: TAG,
    summary: 'Start (or restart) your automaton with a budget and horizon',
    description:
      'A restart sets a new `started_at`, resumes it and forgets the bandit; skill preferences are kept. ' +
      'The budget is enforced on trades: a buy on the automaton venue that the remaining budget (budget − filled buys since ' +
      '`started_at` − buys still queued) does not cover is refused (200, `success: false`, `error_code` ' +
      '`automaton_budget_exceeded`, or `automaton_budget_spent` once nothing is left); sells always pass. A new init is a new budget.',
    body: AutomatonInitSchema,
    response: Done.extend({ state: AutomatonStateSchema }),
  }),
  automatonHalt: endpoint({
    method: 'post',
    path: '/api/sdk/automaton/halt',
    auth: 'agent',
    tag: TAG,
    summary: 'Halt your automaton (the plugin runs no skill while halted)',
    description:
      'While halted every trade of the agent, buy or sell on any venue, is refused (200, `success: false`, ' +
      '`error_code: "automaton_halted"`, `hint`: resume with POST /api/sdk/automaton/resume).',
    response: Halted,
    errors: [409],
  }),
  automatonResume: endpoint({
    method: 'post',
    path: '/api/sdk/automaton/resume',
    auth: 'agent',
    tag: TAG,
    summary: 'Resume a halted automaton',
    response: Halted,
    errors: [409],
  }),
  automatonSkills: endpoint({
    method: 'get',
    path: '/api/sdk/automaton/skills',
    auth: 'agent',
    tag: TAG,
    summary: 'Approved skills with your automaton preferences (enabled, config, pins)',
    description:
      'No `entrypoint` or `tunables`: this registry lists skills, it does not host their code, so the ' +
      'plugin selects and records skills and your agent runs them (trades carrying `skill_slug`).',
    response: z.object({ skills: z.array(AutomatonSkillSchema), total: z.number() }),
  }),
  automatonEnableSkill: endpoint({
    method: 'post',
    path: '/api/sdk/automaton/skills/{slug}/enable',
    auth: 'agent',
    tag: TAG,
    summary: 'Let the bandit select this skill again',
    params: SkillParams,
    response: SkillEnabled,
    errors: [404, 409],
  }),
  automatonDisableSkill: endpoint({
    method: 'post',
    path: '/api/sdk/automaton/skills/{slug}/disable',
    auth: 'agent',
    tag: TAG,
    summary: 'Keep the bandit from selecting this skill',
    params: SkillParams,
    response: SkillEnabled,
    errors: [404, 409],
  }),
  automatonSkillConfig: endpoint({
    method: 'post',
    path: '/api/sdk/automaton/skills/{slug}/config',
    auth: 'agent',
    tag: TAG,
    summary: "Set a skill's tunables (the whole config); `_pinned` lists the ones tuning must not change",
    description: '`{"_pinned": []}` alone resets the skill to its defaults.',
    params: SkillParams,
    body: SkillConfigSchema,
    response: Done.extend({
      skill: z.string(),
      config: z.record(z.string(), z.unknown()),
      pinned: z.array(z.string()),
    }),
    errors: [404, 409],
  }),
  automatonRecordCycle: endpoint({
    method: 'post',
    path: '/api/sdk/automaton/cycles',
    auth: 'agent',
    tag: TAG,
    summary: "Record one cycle in your automaton's history",
    body: CycleRecordSchema,
    response: z.object({ id: z.number(), cycle_num: z.number(), created_at: z.string() }),
    errors: [409],
  }),
  automatonCycles: endpoint({
    method: 'get',
    path: '/api/sdk/automaton/cycles',
    auth: 'agent',
    tag: TAG,
    summary: 'Recorded cycles, newest first, each with its selected skills’ outcomes',
    description:
      "A cycle's `outcomes` are each selected skill's filled trades, buy cost and P&L (the attribution " +
      'rule of `GET /api/sdk/outcomes`) from the cycle until the next one (the latest: until now).',
    query: z.object({
      limit: z.coerce.number().int().min(1).max(MAX_CYCLES).default(20),
      since: isoTime.optional(),
    }),
    response: z.object({ cycles: z.array(CycleViewSchema), total: z.number() }),
  }),
  automatonCycle: endpoint({
    method: 'post',
    path: '/api/sdk/automaton/cycle',
    auth: 'agent',
    tag: TAG,
    summary: "Save this cycle's selected skills, tuning changes and bandit arms (one write)",
    description: 'A tuning change to a pinned tunable is not applied.',
    body: CycleUpdateSchema,
    response: z.object({ ok: z.literal(true), active_skills: z.array(z.string()), cycle_number: z.number() }),
    errors: [409],
  }),
  automatonOutcomes: endpoint({
    method: 'get',
    path: '/api/sdk/automaton/outcomes',
    auth: 'agent',
    tag: TAG,
    summary: 'Per skill since a time: filled trades, buy cost and P&L (the bandit’s reward)',
    description:
      'One row per skill you traded with since `since`, labelled with the automaton venue; P&L follows the ' +
      'attribution rule of `GET /api/sdk/outcomes` over every venue.',
    query: z.object({ since: isoTime }),
    response: z.object({ outcomes: z.array(SkillOutcomeSchema), since: z.string() }),
    errors: [409],
  }),
  automatonBanditState: endpoint({
    method: 'get',
    path: '/api/sdk/automaton/bandit-state',
    auth: 'agent',
    tag: TAG,
    summary: "The bandit's arms as the plugin last saved them (none: a fresh bandit)",
    response: BanditStateSchema,
    errors: [409],
  }),
  automatonResetBandit: endpoint({
    method: 'delete',
    path: '/api/sdk/automaton/bandit-state',
    auth: 'agent',
    tag: TAG,
    summary: "Forget the bandit's arms (the plugin does so after a re-init)",
    response: Done,
    errors: [409],
  }),
};
