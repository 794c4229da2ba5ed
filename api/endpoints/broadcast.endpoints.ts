import {
  BroadcastListQuerySchema,
  BroadcastListResponseSchema,
  BroadcastRequestSchema,
  BroadcastResponseSchema,
} from '../../shared/domains/wallets/broadcast.schemas.js';
import {
  DwRedeemPrepareResponseSchema,
  RedeemReportResponseSchema,
  RedeemReportSchema,
  RedeemRequestSchema,
  RedeemResponseSchema,
} from '../../shared/domains/wallets/redeem.schemas.js';
import { endpoint } from './endpoint.js';

export const broadcastEndpoints = {
  broadcastTx: endpoint({
    method: 'post',
    path: '/api/sdk/wallet/broadcast-tx',
    auth: 'agent',
    tag: 'Wallet',
    summary: 'Relay a transaction signed by your linked wallet to Polygon (approvals and redemptions only)',
    description:
      'Only Polymarket approvals (pUSD/CTF to the V2 exchanges and adapters, USDC to the onramp) and redemptions, signed for chain 137 by the linked external wallet of the agent’s human, are relayed; anything else is refused (400, or 403 `sender_mismatch` for another signer) with the allow-list’s `error_code` and a `fix`, and is never sent. `status`: `sent` (in the pool), `mined`, `failed` (`error` holds the node’s text, e.g. `replacement transaction underpriced`, or `reverted`), or `submitted` (queued, not yet sent). Sending the same bytes again is one record; the node’s `already known` / `nonce too low` count as success. A redemption is linked to its market by the condition id in its calldata and settles when mined, whether or not it is then reported with `POST /api/sdk/redeem/report`. An unclaimed agent gets 403 `agent_not_claimed` with `claim_url`.',
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
  redeem: endpoint({
    method: 'post',
    path: '/api/sdk/redeem',
    auth: 'agent',
    tag: 'Wallet',
    summary:
      'Redeem winning shares of a resolved Polymarket market (both sides at 0.5 after a 50-50 resolution)',
    description:
      'Managed wallet: the service signs the redemption (and the adapter approval it needs), sends it through the `redemptions` queue and answers once it is mined (`status: redeemed`, `payout` in pUSD) or in flight (`submitted`/`sent`). External wallet: `unsigned_tx` is the collateral-adapter redemption to sign and send with `POST /api/sdk/wallet/broadcast-tx`, then report with `POST /api/sdk/redeem/report` (the relayed transaction settles when mined even unreported). After a 50-50 (void) resolution (payout vector [1,1]) every share, YES or NO, redeems for 0.5 pUSD, rounded down to the micro-unit per side, and `payout` says so. A market redeemed before answers `already_redeemed: true`. 409 `market_not_resolved` before resolution, `nothing_to_redeem` without winning shares.',
    body: RedeemRequestSchema,
    response: RedeemResponseSchema,
    errors: [403, 404, 409],
  }),
  reportRedemption: endpoint({
    method: 'post',
    path: '/api/sdk/redeem/report',
    auth: 'agent',
    tag: 'Wallet',
    summary: 'Record a redemption your wallet signed and sent itself',
    description:
      'The position stops showing as redeemable. Idempotent on `tx_hash`: a hash reported before is a no-op (`recorded: false`), and so is one relayed through `POST /api/sdk/wallet/broadcast-tx` that already settled from its receipt. A hash the relay saw revert is refused (409 `redemption_reverted`).',
    body: RedeemReportSchema,
    response: RedeemReportResponseSchema,
    errors: [403, 404, 409],
  }),
  prepareDepositWalletRedeem: endpoint({
    method: 'post',
    path: '/api/sdk/dw-redeem/prepare',
    auth: 'agent',
    tag: 'Wallet',
    summary: 'Deposit-wallet redemption (not supported yet: answers eoa_fallback)',
    description:
      'Deposit wallets are not supported yet: a resolved market answers `eoa_fallback: true` (use `POST /api/sdk/redeem`), an unresolved one `not_redeemable: true` with `reason: market_not_settled`, a redeemed one `already_redeemed: true`.',
    body: RedeemRequestSchema,
    response: DwRedeemPrepareResponseSchema,
    errors: [403, 404],
  }),
};
