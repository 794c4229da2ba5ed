import { onchain } from '../../shared/composition/onchain.js';
import type { Processor } from '../../shared/composition/processor.js';

export const broadcastTxProcessor: Processor<'broadcast-tx'> = async (data, { deps }) =>
  onchain.sendBroadcast(deps, data.hash);

export const followTxReceiptProcessor: Processor<'follow-tx-receipt'> = async (data, { deps }) =>
  onchain.followReceipt(deps, data.hash, data.poll);
