import {
  automatonOutcomes,
  listCycles,
  recordCycle,
} from '../../shared/domains/automaton/automaton-cycles.js';
import {
  automatonSkills,
  setSkillConfig,
  setSkillEnabled,
} from '../../shared/domains/automaton/automaton-skills.js';
import {
  automatonState,
  banditState,
  initAutomaton,
  resetBandit,
  setHalted,
  updateCycle,
} from '../../shared/domains/automaton/automaton-state.js';
import type { automatonEndpoints } from '../endpoints/automaton.endpoints.js';
import type { HandlersFor } from '../endpoints/endpoint.js';

export const automatonHandlers: HandlersFor<typeof automatonEndpoints> = {
  automatonState: async ({ deps, agent }) => automatonState(deps.models, agent._id),
  automatonInit: async ({ deps, agent, body }) => initAutomaton(deps, agent._id, body, deps.clock()),
  automatonHalt: async ({ deps, agent }) => setHalted(deps, agent._id, true),
  automatonResume: async ({ deps, agent }) => setHalted(deps, agent._id, false),
  automatonSkills: async ({ deps, agent }) => automatonSkills(deps.models, agent._id),
  automatonEnableSkill: async ({ deps, agent, params }) =>
    setSkillEnabled(deps.models, agent._id, params.slug, true),
  automatonDisableSkill: async ({ deps, agent, params }) =>
    setSkillEnabled(deps.models, agent._id, params.slug, false),
  automatonSkillConfig: async ({ deps, agent, params, body }) =>
    setSkillConfig(deps.models, agent._id, params.slug, body),
  automatonRecordCycle: async ({ deps, agent, body }) => recordCycle(deps.models, agent._id, body),
  automatonCycles: async ({ deps, agent, query }) =>
    listCycles(deps.models, agent._id, {
      limit: query.limit,
      since: query.since ? new Date(query.since) : undefined,
    }),
  automatonCycle: async ({ deps, agent, body }) => updateCycle(deps.models, agent._id, body),
  automatonOutcomes: async ({ deps, agent, query }) =>
    automatonOutcomes(deps.models, agent._id, new Date(query.since)),
  automatonBanditState: async ({ deps, agent }) => banditState(deps.models, agent._id),
  automatonResetBandit: async ({ deps, agent }) => resetBandit(deps.models, agent._id),
};
