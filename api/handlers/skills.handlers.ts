import { operatorActions } from '../../shared/domains/operator/operator-actions.js';
import { API_ACTOR } from '../../shared/domains/operator/record-action.js';
import { listMySkills, listSkills, submitSkill } from '../../shared/domains/skills/skills.js';
import type { HandlersFor } from '../endpoints/endpoint.js';
import type { skillEndpoints } from '../endpoints/skills.endpoints.js';

export const skillHandlers: HandlersFor<typeof skillEndpoints> = {
  submitSkill: async ({ deps, agent, body }) => submitSkill(deps.models, agent._id, body),
  listSkills: async ({ deps, query }) =>
    listSkills(deps.models, { status: 'approved', category: query.category }),
  mySkills: async ({ deps, agent }) => listMySkills(deps.models, agent._id),
  adminSkills: async ({ deps, query }) =>
    listSkills(deps.models, { status: query.status, oldestFirst: true }),
  reviewSkill: async ({ deps, params, body }) =>
    operatorActions.reviewSkill(deps, API_ACTOR, params.slug, body),
};
