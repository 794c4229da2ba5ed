import { z } from 'zod';
import { BROADCAST_STATUSES } from './broadcast.model.js';

export const BroadcastRequestSchema = z
  .object({
    signed_tx: z
      .string()
      .min(10)
      .meta({ description: 'The signed transaction, hex, with or without 0x (legacy EIP-155 or EIP-1559).' }),
  })
  .meta({ id: 'BroadcastRequest' });

/** `submitted`: accepted and queued, not yet handed to the node when the answer was due. */
const ANSWER_STATUSES = [...BROADCAST_STATUSES, 'submitted'] as const;

export const BroadcastResponseSchema = z
  .object({
    success: z.boolean().meta({ description: 'False only when the node refused it or it reverted.' }),
    tx_hash: z.string(),
    status: z.enum(ANSWER_STATUSES),
    kind: z
      .string()
      .meta({ description: 'What the allow-list classified it as (an approval or a redemption).' }),
    error: z.string().nullable().meta({
      description:
        'The node’s own text when it refused (e.g. `replacement transaction underpriced`), or `reverted`.',
    }),
  })
  .meta({ id: 'BroadcastResponse' });

export const BroadcastListQuerySchema = z.object({
  limit: z.coerce.number().int().min(1).max(100).default(20),
});

export const BroadcastListResponseSchema = z
  .object({
    broadcasts: z.array(
      z.object({
        tx_hash: z.string(),
        sender: z.string(),
        to: z.string(),
        kind: z.string(),
        nonce: z.number().int(),
        status: z.enum(BROADCAST_STATUSES),
        error: z.string().nullable(),
        receipt_status: z.number().int().nullable(),
        block_number: z.number().int().nullable(),
        created_at: z.string(),
        updated_at: z.string(),
      }),
    ),
  })
  .meta({ id: 'BroadcastList' });
