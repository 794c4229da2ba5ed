import { z } from 'zod';

const turn = z.union([
  z.string().max(2000),
  z.looseObject({ role: z.string().max(20).optional(), content: z.string().max(2000) }),
]);

/** Spec §2.5: at least one of error_text or message; message ≤ 2,000 characters, conversation ≤ 10 entries. */
export const TroubleshootRequestSchema = z
  .object({
    // Clients post whole error bodies (a proxy's HTML page, a long 422): any length is taken (the
    // request body limit bounds it) and the first 5,000 characters are matched.
    error_text: z
      .string()
      .transform((t) => t.slice(0, 5000))
      .optional(),
    message: z.string().max(2000).optional(),
    conversation: z.array(turn).max(10).optional(),
  })
  .refine((b) => Boolean(b.error_text || b.message), {
    message: 'send error_text (the error you got), message (a question), or both',
    path: ['error_text'],
  })
  .meta({ id: 'TroubleshootRequest' });
export type TroubleshootRequest = z.output<typeof TroubleshootRequestSchema>;

export const TroubleshootResponseSchema = z
  .object({
    mode: z.enum(['pattern', 'assisted']),
    matched: z.boolean(),
    error_code: z.string().nullable(),
    explanation: z.string().nullable(),
    fix: z.string(),
    source: z.string().nullable(),
    diagnostics: z.array(z.string()).optional(),
    answer: z.string().optional(),
    remaining_today: z.number().int().optional(),
  })
  .meta({ id: 'TroubleshootResponse' });
