import {
  BroadcastListQuerySchema,
  BroadcastListResponseSchema,
  BroadcastRequestSchema,
  BroadcastResponseSchema,
} from '../../shared/domains/onchain/broadcast.schemas.js';
import { endpoint } from './endpoint.js';

export const broadcastEndpoints = {
  broadcastTx: endpoint({
    method: 'post',
    path: '/api/sdk/wallet/broadcast-tx',
    auth: 'agent',
    tag: 'Wallet',
    summary: 'Relay a transaction signed by your linked wallet to Polygon (approvals and redemptions only)',
    description:
      'Only Polymarket approvals (pUSD/CTF to the V2 exchanges and adapters, USDC to the onramp) and redemptions, signed for chain 137 by the linked external wallet of the agent’s human, are relayed; anything else is refused (400, or 403 `sender_mismatch` for another signer) with the allow-list’s `error_code` and a `fix`, and is never sent. `status`: `sent` (in the pool), `mined`, `failed` (`error` holds the node’s text, e.g. `replacement transaction underpriced`, or `reverted`), or `submitted` (queued, not yet sent). Sending the same bytes again is one record; the node’s `already known` / `nonce too low` count as success. An unclaimed agent gets 403 `agent_not_claimed` with `claim_url`.',
    body: BroadcastRequestSchema,
    response: BroadcastResponseSchema,
    errors: [400, 403, 409],
  }),
  listBroadcasts: endpoint({
    method: 'get',
    path: '/api/sdk/wallet/broadcasts',
    auth: 'agent',
    tag: 'Wallet',
    summary: 'The transactions relayed for the agent’s human, newest first, with their receipt status',
    query: BroadcastListQuerySchema,
    response: BroadcastListResponseSchema,
  }),
};
