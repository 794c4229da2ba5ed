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
import {
  DwRedeemSubmitRequestSchema,
  DwRedeemSubmitResponseSchema,
} from '../../shared/domains/wallets/deposit-wallet.schemas.js';
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
      "Proven by the chain before anything is settled: the transaction must be mined with status 1 and its receipt must show this market's condition redeemed from a wallet holding your positions (the `PayoutRedemption` of a legacy CTF or NegRiskAdapter redemption naming it, or, through a collateral adapter, the pUSD `Wrapped` to it), with none of the market's paying shares left in it; the positions held there are settled for no more than the receipt paid, and stop showing as redeemable. Idempotent on `tx_hash` for the account that reported it: a hash reported before is a no-op (`recorded: false`), and so is one relayed through `POST /api/sdk/wallet/broadcast-tx` that already settled from its receipt. Refused, with nothing settled: a hash recorded or relayed for another account (409 `redemption_of_another_account`), unknown to the chain (404 `transaction_not_found`), not mined yet (409 `redemption_not_mined`), reverted (409 `redemption_reverted`), or whose receipt proves no complete redemption of this market by your wallet (409 `redemption_not_proven`, `reason`: `other_wallet`, `other_condition`, `no_redemption` or `partial`); a wallet holding none of your unsettled positions there is 409 `nothing_to_redeem`.",
    body: RedeemReportSchema,
    response: RedeemReportResponseSchema,
    errors: [400, 403, 404, 409],
  }),
  prepareDepositWalletRedeem: endpoint({
    method: 'post',
    path: '/api/sdk/dw-redeem/prepare',
    auth: 'agent',
    tag: 'Wallet',
    summary:
      'The redemption batch of a resolved market’s shares held by your deposit wallet, for its owner to sign',
    description:
      'For accounts trading through a deposit wallet (`wallet_uses_deposit_wallet`). Routing answers (200): before resolution `not_redeemable: true` with `reason: market_not_settled`; `eoa_fallback: true` when the account has no deposit wallet or the shares are in the EOA, not the deposit wallet (redeem with `POST /api/sdk/redeem`); `already_redeemed: true` when redeemed before or the deposit wallet holds none. Otherwise `typed_data` (EIP-712 `Batch` of the deposit wallet), `nonce`, `deadline`, `calls` — CTF `setApprovalForAll(<collateral adapter>, true)` when the adapter is not an operator yet, then the collateral adapter’s `redeemPositions(pUSD, 0, conditionId, [1,2])` (neg-risk markets: the neg-risk adapter), which pays the winning shares in pUSD into the deposit wallet — with `deposit_wallet_address`, `condition_id`, `outcome` (the winner), `negative_risk`, `is_cancelled`, `expected_payout_pusd`. Sign `typed_data` with the owner EOA and send it to `POST /api/sdk/dw-redeem/submit`.',
    body: RedeemRequestSchema,
    response: DwRedeemPrepareResponseSchema,
    errors: [403, 404, 409, 502, 503],
  }),
  submitDepositWalletRedeem: endpoint({
    method: 'post',
    path: '/api/sdk/dw-redeem/submit',
    auth: 'agent',
    tag: 'Wallet',
    summary:
      'Relay the deposit wallet’s redemption batch its owner signed; the positions settle once it executed',
    description:
      'Send `market_id`, `side`, `signature` and the `nonce`, `deadline` and `calls` of `POST /api/sdk/dw-redeem/prepare` unchanged. The batch must be the one prepared for your deposit wallet and market (else 409 `batch_not_prepared`), signed by its owner (400 `signature_mismatch`), before its deadline (409 `batch_expired`). Once the relayer executed it (`status: executed`, `tx_hash`), the market’s positions held by the wallet are settled (`payout_pusd`) and the market stops showing as redeemable; after 20 s without an outcome `submitted` (send the same body again). Refused or reverted: 409 `batch_refused` / `batch_failed`, nothing changed, prepare again. Idempotent.',
    body: DwRedeemSubmitRequestSchema,
    response: DwRedeemSubmitResponseSchema,
    errors: [400, 403, 404, 409, 502, 503],
  }),
};
