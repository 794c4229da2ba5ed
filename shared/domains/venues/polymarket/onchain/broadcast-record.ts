import type { Models } from '../../../models.js';
import { isDuplicateKey } from '../../../refusal.js';

/** What this module's functions use of the process (the composition root's Deps has all of it). */
export type BroadcastRecordDeps = { models: Models };

export interface SignedTxFields {
  hash: string;
  userId: string;
  /** The agent whose key asked for it; null when the service signed it (managed wallet). */
  agentId: string | null;
  sender: string;
  to: string;
  kind: string;
  nonce: number;
  /** 0x-prefixed lowercase hex, as checked (tx-allowlist.ts) or signed by the service. */
  raw: string;
}

/**
 * Records a signed transaction under its hash before it is sent (status `queued`), counting one
 * more request. The same bytes recorded twice are one record; two first requests at once can both
 * try the insert, and the loser's retry is an update.
 */
export async function recordBroadcast(models: BroadcastRecordDeps['models'], f: SignedTxFields) {
  const record = () =>
    models.TxBroadcast.findOneAndUpdate(
      { _id: f.hash },
      {
        $setOnInsert: {
          userId: f.userId,
          agentId: f.agentId,
          sender: f.sender,
          to: f.to,
          kind: f.kind,
          nonce: f.nonce,
          status: 'queued',
        },
        // The hash fixes the bytes, so writing them again changes nothing, except for a record
        // made before the relay sent the bytes it checked: a resend of one stored without its 0x
        // (which the node refused) is sent as the checked bytes this time.
        $set: { raw: f.raw },
        $inc: { requests: 1 },
      },
      { upsert: true, returnDocument: 'after' },
    ).lean();
  const rec = await record().catch((err: unknown) => {
    if (isDuplicateKey(err)) return record();
    throw err;
  });
  return rec!;
}
