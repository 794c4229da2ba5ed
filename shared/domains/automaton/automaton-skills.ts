import { notFound } from '../../infra/errors.js';
import type { Models } from '../models.js';
import { listSkills } from '../skills/skills.js';
import type { AutomatonRecord } from './automaton.model.js';
import { requireAutomaton } from './automaton-state.js';

type SkillPref = AutomatonRecord['skills'][number];
const PIN_KEY = '_pinned';

/**
 * `GET /skills`: the approved skills with the agent's preferences (enabled unless disabled). Our
 * registry has no tunables or entrypoints: the plugin then selects and records skills but runs none
 * itself (it skips a skill without `entrypoint`), which leaves running them to the agent.
 */
export async function automatonSkills(models: Models, agentId: string) {
  const [automaton, { skills }] = await Promise.all([
    models.Automaton.findById(agentId, { skills: 1 }).lean(),
    listSkills(models, { status: 'approved' }),
  ]);
  const prefs = new Map((automaton?.skills ?? []).map((p) => [p.slug, p]));
  const list = skills.map((s) => {
    const pref = prefs.get(s.id);
    return {
      id: s.id,
      name: s.name,
      description: s.description,
      category: s.category,
      tags: s.tags,
      difficulty: s.difficulty,
      enabled: pref?.enabled ?? true,
      tunables: [],
      config: pref?.config ?? {},
      pinned: pref?.pinned ?? [],
    };
  });
  return { skills: list, total: list.length };
}

/** The agent's preference for an approved skill, read-modify-written whole. */
async function updatePref(
  models: Models,
  agentId: string,
  slug: string,
  change: (pref: SkillPref) => SkillPref,
) {
  const automaton = await requireAutomaton(models, agentId);
  const skill = await models.Skill.exists({ _id: slug, status: 'approved' });
  if (!skill) throw notFound(`Skill "${slug}"`, 'Use a skill id from GET /api/sdk/automaton/skills.');
  const current = automaton.skills.find((s) => s.slug === slug) ?? {
    slug,
    enabled: true,
    config: {},
    pinned: [],
  };
  const next = change(current);
  const skills = [...automaton.skills.filter((s) => s.slug !== slug), next];
  await models.Automaton.updateOne({ _id: agentId }, { $set: { skills } });
  return next;
}

/** `POST /skills/{slug}/enable|disable`: a disabled skill is never selected by the bandit. */
export async function setSkillEnabled(models: Models, agentId: string, slug: string, enabled: boolean) {
  await updatePref(models, agentId, slug, (p) => ({ ...p, enabled }));
  return { success: true as const, skill: slug, enabled };
}

/**
 * `POST /skills/{slug}/config`: the body is the skill's whole config (the plugin sends its current
 * one with the change); `_pinned` replaces the pins, and `{"_pinned": []}` alone resets to defaults.
 */
export async function setSkillConfig(
  models: Models,
  agentId: string,
  slug: string,
  body: Record<string, unknown>,
) {
  const { [PIN_KEY]: pins, ...config } = body;
  const pinned = Array.isArray(pins) ? pins.map(String) : undefined;
  const reset = pinned?.length === 0 && Object.keys(config).length === 0;
  const next = await updatePref(models, agentId, slug, (p) => ({
    ...p,
    config: reset ? {} : config,
    pinned: pinned ?? p.pinned,
  }));
  return { success: true as const, skill: slug, config: next.config, pinned: next.pinned };
}
