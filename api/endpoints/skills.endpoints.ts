import { z } from 'zod';
import { SKILL_STATUSES } from '../../shared/domains/skills/skill.model.js';
import {
  SkillItemSchema,
  SkillReviewSchema,
  SkillSubmissionSchema,
} from '../../shared/domains/skills/skills.schemas.js';
import { endpoint } from './endpoint.js';

const SkillList = z.object({ skills: z.array(SkillItemSchema), total: z.number() }).meta({ id: 'SkillList' });
const SkillAnswer = z.object({ success: z.literal(true), skill: SkillItemSchema });

export const skillEndpoints = {
  submitSkill: endpoint({
    method: 'post',
    path: '/api/sdk/skills',
    auth: 'agent',
    tag: 'Skills',
    summary: 'Submit a community skill; it is listed once an operator approves it',
    description:
      'Created `pending`. Resubmitting your own pending slug replaces it; a slug taken otherwise is 409.',
    body: SkillSubmissionSchema,
    response: SkillAnswer,
    errors: [409],
  }),
  listSkills: endpoint({
    method: 'get',
    path: '/api/sdk/skills',
    auth: 'none',
    tag: 'Skills',
    summary: 'Approved community skills, newest first',
    description:
      '`content_hash` is null: this server does not mirror registry hashes, so clients skip that check.',
    query: z.object({ category: z.string().max(40).optional() }),
    response: SkillList,
  }),
  mySkills: endpoint({
    method: 'get',
    path: '/api/sdk/skills/mine',
    auth: 'agent',
    tag: 'Skills',
    summary: 'The skills you submitted, with their review status and note',
    response: SkillList,
  }),
  adminSkills: endpoint({
    method: 'get',
    path: '/api/admin/skills',
    auth: 'operator',
    tag: 'Operator',
    summary: 'Skills by review status (default pending), oldest first',
    query: z.object({ status: z.enum(SKILL_STATUSES).default('pending') }),
    response: SkillList,
  }),
  reviewSkill: endpoint({
    method: 'put',
    path: '/api/admin/skills/{slug}/review',
    auth: 'operator',
    tag: 'Operator',
    summary: 'Approve or reject a submitted skill',
    params: z.object({ slug: z.string().min(1).max(64) }),
    body: SkillReviewSchema,
    response: SkillAnswer,
    errors: [404],
  }),
};
