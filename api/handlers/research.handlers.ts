import { fleetSummary } from '../../shared/domains/reads/fleet.js';
import { backtestSkill } from '../../shared/domains/reads/skill-backtest.js';
import { recordExperiment, researchState } from '../../shared/domains/research/experiments.js';
import type { HandlersFor } from '../endpoints/endpoint.js';
import type { researchEndpoints } from '../endpoints/research.endpoints.js';

export const researchHandlers: HandlersFor<typeof researchEndpoints> = {
  researchState: async ({ deps, agent, query }) => researchState(deps.models, agent._id, query.skill_slug),
  recordExperiment: async ({ deps, agent, body }) => recordExperiment(deps.models, agent._id, body),
  backtestSkill: async ({ deps, agent, body }) => backtestSkill(deps.models, agent._id, body, deps.clock()),
  fleetSummary: async ({ deps, agent }) => fleetSummary(deps.models, agent, deps.clock()),
};
