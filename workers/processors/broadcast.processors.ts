import { followReceipt, sendBroadcast } from '../../shared/domains/onchain/broadcast-worker.js';
import type { Processor } from '../../shared/composition/processor.js';

export const broadcastTxProcessor: Processor<'broadcast-tx'> = async (data, { deps }) =>
  sendBroadcast(deps, data.hash);

export const followTxReceiptProcessor: Processor<'follow-tx-receipt'> = async (data, { deps }) =>
  followReceipt(deps, data.hash, data.poll);
