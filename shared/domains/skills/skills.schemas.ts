import { z } from 'zod';
import { SKILL_STATUSES } from './skill.model.js';

const text = (max: number) => z.string().trim().min(1).max(max);
const registryPage = z
  .url({ protocol: /^https$/ })
  .max(500)
  .meta({ description: 'An https page that ends in /<slug>.' });
/** A skill version: dotted numbers (1.4 or 0.3.12), compared part by part. */
export const SKILL_VERSION = z
  .string()
  .trim()
  .regex(/^\d{1,6}(\.\d{1,6}){0,3}$/, 'dotted numbers, e.g. 1.2.0');

const lastSegment = (url: string) => new URL(url).pathname.replace(/\/+$/, '').split('/').at(-1);

/**
 * Spec §2.5's skill submission. The registry link is `registry_url` in the spec and `clawhub_url` in
 * the published client; either is accepted (one is required).
 */
export const SkillSubmissionSchema = z
  .strictObject({
    slug: z
      .string()
      .regex(/^[a-z0-9]+(-[a-z0-9]+)*$/, 'lowercase letters, digits and single dashes, e.g. momentum-scalper')
      .max(64),
    name: text(100),
    description: text(2000),
    registry_url: registryPage.optional(),
    clawhub_url: registryPage.optional(),
    category: text(40)
      .nullish()
      .transform((v) => v ?? 'trading'),
    tags: z
      .array(text(40))
      .max(20)
      .nullish()
      .transform((v) => v ?? []),
    difficulty: text(40)
      .nullish()
      .transform((v) => v ?? 'intermediate'),
    requires: z
      .array(text(80))
      .max(20)
      .nullish()
      .transform((v) => v ?? []),
    best_when: z.string().trim().max(500).nullish(),
    version: SKILL_VERSION.nullish().meta({
      description:
        'The skill’s version (dotted numbers, as in its SKILL.md). Agents that report an older one in the briefing’s `skill_versions` get a `skill_updates` entry.',
    }),
  })
  .refine((b) => Boolean(b.registry_url ?? b.clawhub_url), {
    message: 'give the skill’s registry page as registry_url (or clawhub_url)',
    path: ['registry_url'],
  })
  // The page reviewed must be the package installed: `install` is `clawhub install <slug>`.
  .refine(
    (b) => {
      const page = b.registry_url ?? b.clawhub_url;
      // A page that is not a URL is already reported on its own field (the refinements still run).
      return !page || !URL.canParse(page) || lastSegment(page) === b.slug;
    },
    {
      message: 'the registry page must be the page of this slug (its URL ends in /<slug>)',
      path: ['registry_url'],
    },
  )
  .meta({ id: 'SkillSubmission' });
export type SkillSubmission = z.output<typeof SkillSubmissionSchema>;

/** A listed skill as clients read it (client-contract §3.4: id, …, install, clawhub_url, requires). */
export const SkillItemSchema = z
  .object({
    id: z.string(),
    name: z.string(),
    description: z.string(),
    category: z.string(),
    tags: z.array(z.string()),
    difficulty: z.string(),
    install: z.string(),
    clawhub_url: z.string(),
    registry_url: z.string(),
    requires: z.array(z.string()),
    best_when: z.string().nullable(),
    version: z.string().nullable().meta({ description: 'The version submitted (null: none given).' }),
    content_hash: z
      .null()
      .meta({ description: 'Not mirrored from the registry: clients skip the integrity check.' }),
    status: z.enum(SKILL_STATUSES),
    revision: z.number().int(),
    created_at: z.string(),
  })
  .meta({ id: 'Skill' });

export const SkillReviewSchema = z
  .strictObject({
    status: z.enum(['approved', 'rejected']),
    revision: z.number().int().min(1).meta({
      description: 'The revision you reviewed (from the queue): a skill resubmitted since answers 409.',
    }),
    note: z.string().trim().max(1000).optional(),
  })
  .meta({ id: 'SkillReview' });
