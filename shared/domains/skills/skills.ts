import { AppError, notFound } from '../../infra/errors.js';
import { LocalCache } from '../../infra/local-cache.js';
import type { AgentRecord } from '../agents/agent.model.js';
import type { Models } from '../models.js';
import { isDuplicateKey } from '../refusal.js';
import type { SkillRecord, SkillStatus } from './skill.model.js';
import { SKILL_VERSION, type SkillSubmission } from './skills.schemas.js';
import { compareVersions } from '../system/version-check.js';

/** New skills an agent may have waiting for review at once. */
export const MAX_PENDING_PER_AGENT = 5;

/** How an agent installs a listed skill (the ClawHub CLI). */
const installCommand = (slug: string) => `clawhub install ${slug}`;

export function skillView(s: SkillRecord) {
  return {
    id: s._id,
    name: s.name,
    description: s.description,
    category: s.category,
    tags: s.tags,
    difficulty: s.difficulty,
    install: installCommand(s._id),
    clawhub_url: s.registryUrl,
    registry_url: s.registryUrl,
    requires: s.requires,
    best_when: s.bestWhen,
    version: s.version ?? null,
    content_hash: null,
    status: s.status,
    revision: s.revision ?? 1,
    created_at: (s.createdAt ?? new Date(0)).toISOString(),
  };
}

/**
 * `POST /api/sdk/skills`: records the skill as `pending` review. The submitter may resubmit its own
 * pending or rejected skill (the new text replaces the old, as a new revision, pending again); a
 * slug taken by anyone else, or already approved, is a 409.
 */
export async function submitSkill(models: Models, agentId: string, input: SkillSubmission) {
  const fields = {
    name: input.name,
    description: input.description,
    registryUrl: (input.registry_url ?? input.clawhub_url)!,
    category: input.category,
    tags: input.tags,
    difficulty: input.difficulty,
    requires: input.requires,
    bestWhen: input.best_when ?? null,
    version: input.version ?? null,
  };
  const taken = () =>
    new AppError(
      409,
      'skill_exists',
      `The slug "${input.slug}" is taken`,
      'Choose another slug for your skill.',
    );
  const resubmitted = await models.Skill.findOneAndUpdate(
    { _id: input.slug, submittedBy: agentId, status: { $in: ['pending', 'rejected'] } },
    { $set: { ...fields, status: 'pending', reviewNote: null, reviewedAt: null }, $inc: { revision: 1 } },
    { returnDocument: 'after' },
  ).lean();
  if (resubmitted) return { success: true as const, skill: skillView(resubmitted) };
  // Slugs are first come, first served: one agent may not hold many of them unreviewed.
  const waiting = await models.Skill.countDocuments({ submittedBy: agentId, status: 'pending' });
  if (waiting >= MAX_PENDING_PER_AGENT)
    throw new AppError(
      429,
      'too_many_pending_skills',
      `You have ${waiting} skills waiting for review (at most ${MAX_PENDING_PER_AGENT})`,
      'Wait for the review of the ones you sent (GET /api/sdk/skills/mine), or resubmit one of them instead.',
    );
  try {
    const created = await models.Skill.create({
      _id: input.slug,
      ...fields,
      submittedBy: agentId,
      status: 'pending',
    });
    return { success: true as const, skill: skillView(created.toObject()) };
  } catch (err) {
    if (isDuplicateKey(err)) throw taken();
    throw err;
  }
}

/**
 * `GET /api/sdk/skills` (approved, newest first, optionally one category) and the operator's queue
 * (one review status, oldest first).
 */
export async function listSkills(
  models: Models,
  q: { status: SkillStatus; category?: string; oldestFirst?: boolean },
) {
  const filter: Record<string, unknown> = { status: q.status };
  if (q.category) filter.category = q.category;
  const skills = await models.Skill.find(filter)
    .sort({ createdAt: q.oldestFirst ? 1 : -1 })
    .limit(500)
    .lean();
  return { skills: skills.map(skillView), total: skills.length };
}

export async function listMySkills(models: Models, agentId: string) {
  const skills = await models.Skill.find({ submittedBy: agentId }).sort({ createdAt: -1 }).limit(500).lean();
  return {
    skills: skills.map((s) => ({ ...skillView(s), review_note: s.reviewNote })),
    total: skills.length,
  };
}

/**
 * The operator's review of the revision they read: approve (listed from now on) or reject (with a
 * note the submitter sees). A skill resubmitted since, or already reviewed, answers 409.
 */
export async function reviewSkill(
  models: Models,
  slug: string,
  review: { status: Exclude<SkillStatus, 'pending'>; revision: number; note?: string },
  now: Date,
) {
  const skill = await models.Skill.findOneAndUpdate(
    { _id: slug, status: 'pending', revision: review.revision },
    { $set: { status: review.status, reviewNote: review.note ?? null, reviewedAt: now } },
    { returnDocument: 'after' },
  ).lean();
  if (skill) {
    forgetCatalogue(models);
    return { success: true as const, skill: skillView(skill) };
  }
  const current = await models.Skill.findById(slug, { status: 1, revision: 1 }).lean();
  if (!current) throw notFound('Skill', 'Use a slug from the pending submissions (GET /api/admin/skills).');
  throw new AppError(
    409,
    'skill_changed',
    `Skill "${slug}" is ${current.status} at revision ${current.revision}, not pending at revision ${review.revision}`,
    'Read it again from GET /api/admin/skills and review the current revision.',
  );
}

/** How many skills the briefing recommends. */
const RECOMMENDED = 3;
/** The newest approved skills a process keeps for recommendations; an agent that used most of them reads past. */
const CATALOGUE_SIZE = 100;
/**
 * How long a process recommends from the same copy of the catalogue. Approvals are rare and a
 * recommendation is advice: a review in this process drops its copy at once, another process's
 * copy lags it by at most this long.
 */
export const CATALOGUE_MAX_AGE_MS = 30_000;

type CatalogueEntry = Pick<SkillRecord, '_id' | 'name' | 'bestWhen'>;

/** Per database (tests hold several), this process's copy of the newest approved skills. */
const catalogues = new WeakMap<Models, LocalCache<CatalogueEntry[]>>();

function catalogueOf(models: Models): LocalCache<CatalogueEntry[]> {
  let cache = catalogues.get(models);
  if (!cache) catalogues.set(models, (cache = new LocalCache(1, () => CATALOGUE_MAX_AGE_MS)));
  return cache;
}

const newestApproved = (models: Models, notIn: string[], limit: number) =>
  models.Skill.find({ status: 'approved', ...(notIn.length ? { _id: { $nin: notIn } } : {}) })
    .sort({ createdAt: -1 })
    .limit(limit)
    .lean() as Promise<CatalogueEntry[]>;

/**
 * The skills an agent has traded with: kept on the agent (`skillSlugs`, added as its trades name
 * them), so a briefing reads none of its trades. An agent from before the field has them counted
 * from its trades once, here or at its next trade with a skill (noteSkillUsed), whichever comes first.
 */
async function usedSkillSlugs(models: Models, agent: Pick<AgentRecord, '_id' | 'skillSlugs'>) {
  return agent.skillSlugs ?? (await backfillSkillSlugs(models, agent._id, []));
}

/**
 * Counts an agent's skills from its trades and adds them (and `also`) to its `skillSlugs`. A union:
 * two of these at once, or one beside noteSkillUsed, each add what they saw, so none is lost.
 */
async function backfillSkillSlugs(models: Models, agentId: string, also: string[]): Promise<string[]> {
  const traded = (await models.Trade.distinct('skillSlug', {
    agentId,
    skillSlug: { $ne: null },
  })) as string[];
  const slugs = [...new Set([...traded, ...also])];
  await models.Agent.updateOne({ _id: agentId }, { $addToSet: { skillSlugs: { $each: slugs } } });
  return slugs;
}

/**
 * Called once a trade naming `slug` is recorded: the agent's `skillSlugs` gains it. Nothing is written
 * when the agent as read already lists it; an agent from before the field is counted from its trades.
 */
export async function noteSkillUsed(
  models: Models,
  agent: Pick<AgentRecord, '_id' | 'skillSlugs'>,
  slug: string,
): Promise<void> {
  if (agent.skillSlugs?.includes(slug)) return;
  if (!agent.skillSlugs) await backfillSkillSlugs(models, agent._id, [slug]);
  else await models.Agent.updateOne({ _id: agent._id }, { $addToSet: { skillSlugs: slug } });
}

/**
 * The briefing's `recommended_skills`: up to three approved skills the agent has not traded with
 * yet, newest first, from this process's copy of the catalogue.
 */
export async function recommendSkills(models: Models, agent: Pick<AgentRecord, '_id' | 'skillSlugs'>) {
  const [used, catalogue] = await Promise.all([
    usedSkillSlugs(models, agent),
    catalogueOf(models).getOrLoad('approved', () => newestApproved(models, [], CATALOGUE_SIZE)),
  ]);
  const usedSet = new Set(used);
  let skills = catalogue.filter((s) => !usedSet.has(s._id)).slice(0, RECOMMENDED);
  // The agent used nearly every skill of the copy: older ones may still be new to it.
  if (skills.length < RECOMMENDED && catalogue.length === CATALOGUE_SIZE)
    skills = await newestApproved(models, used, RECOMMENDED);
  return skills.map((s) => ({
    id: s._id,
    name: s.name,
    install: installCommand(s._id),
    best_when: s.bestWhen,
  }));
}

/** Drops this process's copy of the catalogue (a review changed what is approved). */
function forgetCatalogue(models: Models): void {
  catalogues.get(models)?.clear();
}

/** One entry of the briefing's `skill_updates` (client-contract §6.5: all three keys are read). */
export interface SkillUpdate {
  slug: string;
  current: string;
  latest: string;
  install: string;
}

/**
 * The briefing's `skill_updates`: of the skills the agent reports running (`installed`: slug →
 * version, the client's `skill_versions`), those whose approved catalogue entry carries a later
 * version. A version that is not dotted numbers, a skill not listed or listed without a version, give none.
 */
export async function skillUpdates(
  models: Models,
  installed: Record<string, string>,
): Promise<SkillUpdate[]> {
  const dotted = (v: unknown): v is string => typeof v === 'string' && SKILL_VERSION.safeParse(v).success;
  const slugs = Object.keys(installed).filter((slug) => dotted(installed[slug]));
  if (!slugs.length) return [];
  const listed = await models.Skill.find(
    { _id: { $in: slugs.slice(0, 50) }, status: 'approved', version: { $ne: null } },
    { version: 1 },
  ).lean();
  return listed
    .filter((s) => dotted(s.version) && compareVersions(installed[s._id]!.trim(), s.version.trim()) < 0)
    .map((s) => ({
      slug: s._id,
      current: installed[s._id]!,
      latest: s.version!,
      install: installCommand(s._id),
    }))
    .sort((a, b) => a.slug.localeCompare(b.slug));
}

/**
 * The briefing's `skill_versions` query (a JSON-encoded `{slug: version}` string from the Python
 * client) as slug → version; anything else reads as none (the parameter is advisory).
 */
export function installedSkills(raw: string | undefined): Record<string, string> {
  if (!raw) return {};
  try {
    const parsed: unknown = JSON.parse(raw);
    if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) return {};
    return Object.fromEntries(
      Object.entries(parsed).filter((e): e is [string, string] => typeof e[1] === 'string'),
    );
  } catch {
    return {};
  }
}
