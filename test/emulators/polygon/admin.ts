import express, { Router, type Request } from 'express';
import { formatEther, formatUnits, isAddress, parseUnits } from 'ethers';
import { HttpError, jsonRoute } from '../polymarket/routes/json-route.js';
import type { PolymarketState } from '../polymarket/state.js';
import {
  MAX_REORG_DEPTH,
  MINING_MODES,
  type MiningMode,
  type PolygonChain,
  type TxRecord,
} from './chain-state.js';
import { isSettlement } from './exchange-settlement.js';

// Control plane of the chain stand-in, under `<base>/__admin/polygon` (JSON; POL in whole units,
// fees in gwei): fund POL for gas, choose how blocks are produced, mine on demand, set fees, and
// inspect the transactions the node received. Token balances and approvals are the Polymarket
// admin's `/wallets/...` endpoints: the ledger is the same.

const body = (req: Request): Record<string, unknown> =>
  typeof req.body === 'object' && req.body !== null && !Array.isArray(req.body)
    ? (req.body as Record<string, unknown>)
    : {};

/** A non-negative decimal amount (number or string) in `decimals` units. */
function amount(v: unknown, name: string, decimals: number): bigint {
  const text = typeof v === 'number' && Number.isFinite(v) ? v.toFixed(decimals).replace(/\.?0+$/, '') : v;
  if (typeof text !== 'string' || !/^\d+(\.\d+)?$/.test(text))
    throw new HttpError(400, `"${name}" must be a non-negative number`);
  try {
    return parseUnits(text, decimals);
  } catch {
    throw new HttpError(400, `"${name}" has too many decimals`);
  }
}

export function txView(r: TxRecord) {
  return {
    hash: r.hash,
    from: r.from,
    to: r.tx.to?.toLowerCase() ?? null,
    nonce: r.nonce,
    type: r.tx.type,
    selector: r.tx.data.length >= 10 ? r.tx.data.slice(0, 10) : null,
    data: r.tx.data,
    value: r.tx.value.toString(),
    status: r.status,
    block_number: r.blockNumber ?? null,
    receipt_status: r.receipt ? r.receipt.status : null,
    revert_reason: r.receipt?.revertReason ?? null,
    gas_used: r.receipt ? r.receipt.gasUsed.toString() : null,
    raw: r.raw,
  };
}

export function polygonAdminRouter(state: PolymarketState, chain: PolygonChain): Router {
  const r = Router();
  r.use(express.json());
  // Admin reads see the blocks the emulator clock made due, like RPC calls do.
  r.use((_req, _res, next) => {
    state.sync();
    chain.sync();
    next();
  });

  const address = (req: Request): string => {
    const a = String(req.params.address);
    if (!isAddress(a)) throw new HttpError(400, 'not an address');
    return a.toLowerCase();
  };
  const account = (a: string) => ({
    address: a,
    pol: formatEther(chain.balance(a)),
    nonce: chain.nonce(a),
    pending_nonce: chain.pendingNonce(a),
  });
  const status = () => ({
    chain_id: 137,
    block_number: chain.head,
    mining: { mode: chain.mode, block_time_ms: chain.blockTimeMs },
    base_fee_gwei: formatUnits(chain.baseFee, 9),
    priority_fee_gwei: formatUnits(chain.priorityFee, 9),
    pending: chain.pending().map((t) => t.hash),
  });

  r.get('/', (_req, res) => void res.json(status()));

  r.get(
    '/accounts/:address',
    jsonRoute((req) => account(address(req))),
  );
  r.post(
    '/accounts/:address/fund',
    jsonRoute((req) => {
      const a = address(req);
      chain.fund(a, amount(body(req).pol, 'pol', 18));
      return account(a);
    }),
  );
  r.post(
    '/accounts/:address/balance',
    jsonRoute((req) => {
      const a = address(req);
      chain.balances.set(a, amount(body(req).pol, 'pol', 18));
      return account(a);
    }),
  );

  // {"mode": "interval" | "instant" | "manual", "block_time_ms"?: 2000}
  r.post(
    '/mining',
    jsonRoute((req) => {
      const b = body(req);
      const mode = (b.mode ?? chain.mode) as MiningMode;
      if (!MINING_MODES.includes(mode))
        throw new HttpError(400, `"mode" must be one of ${MINING_MODES.join(', ')}`);
      const bt = b.block_time_ms;
      if (bt !== undefined && (typeof bt !== 'number' || !Number.isInteger(bt) || bt < 1))
        throw new HttpError(400, '"block_time_ms" must be a positive integer');
      chain.setMode(mode, bt as number | undefined);
      return status();
    }),
  );

  // Mines now, whatever the mode: the first block takes every executable pending transaction.
  r.post(
    '/mine',
    jsonRoute((req) => {
      const blocks = body(req).blocks ?? 1;
      if (typeof blocks !== 'number' || !Number.isInteger(blocks) || blocks < 1 || blocks > 10_000)
        throw new HttpError(400, '"blocks" must be an integer in [1, 10000]');
      const mined = chain.mine(blocks);
      return { block_number: chain.head, mined };
    }),
  );

  // A reorg: the last `depth` blocks are replaced by blocks of the same heights holding the same
  // transactions but those in `drop` (new block hashes from the first replaced height on; the
  // dropped transactions' receipts and logs are gone). Only transactions that changed nothing can
  // be dropped: the exchange operator's fill settlements (the CLOB moved the balances off chain)
  // and reverted ones. {"depth": 1, "drop"?: ["0x…"]}
  r.post(
    '/reorg',
    jsonRoute((req) => {
      const b = body(req);
      const depth = b.depth ?? 1;
      if (typeof depth !== 'number' || !Number.isInteger(depth) || depth < 1 || depth > MAX_REORG_DEPTH)
        throw new HttpError(400, `"depth" must be an integer in [1, ${MAX_REORG_DEPTH}]`);
      const drop = b.drop ?? [];
      if (!Array.isArray(drop) || drop.some((h) => typeof h !== 'string'))
        throw new HttpError(400, '"drop" must be an array of transaction hashes');
      const fork = chain.head - depth + 1;
      const hashes = new Set(drop.map((h: string) => h.toLowerCase()));
      for (const h of hashes) {
        const t = chain.get(h);
        if (!t || t.status !== 'mined' || t.blockNumber! < fork)
          throw new HttpError(409, `${h} is not mined in the last ${depth} block(s)`);
        const settlement = isSettlement(state, {
          from: t.from,
          to: t.tx.to,
          data: t.tx.data,
          value: t.tx.value,
        });
        if (!settlement && t.receipt!.status !== 0)
          throw new HttpError(
            409,
            `${h} changed balances: only fill settlements and reverted transactions can be dropped`,
          );
      }
      const replaced = Array.from({ length: depth }, (_, i) => ({
        number: fork + i,
        old_hash: chain.blockHash(fork + i),
      }));
      chain.reorg(depth, hashes);
      return {
        block_number: chain.head,
        dropped: [...hashes],
        replaced: replaced.map((x) => ({ ...x, new_hash: chain.blockHash(x.number) })),
      };
    }),
  );

  r.post(
    '/fees',
    jsonRoute((req) => {
      const b = body(req);
      if (b.base_fee_gwei !== undefined) chain.baseFee = amount(b.base_fee_gwei, 'base_fee_gwei', 9);
      if (b.priority_fee_gwei !== undefined)
        chain.priorityFee = amount(b.priority_fee_gwei, 'priority_fee_gwei', 9);
      return status();
    }),
  );

  // Everything the node received, oldest first; `?from=0x…&status=pending|mined|replaced`.
  r.get(
    '/transactions',
    jsonRoute((req) => {
      const from = typeof req.query.from === 'string' ? req.query.from.toLowerCase() : undefined;
      const st = typeof req.query.status === 'string' ? req.query.status : undefined;
      return [...chain.txs.values()]
        .filter((t) => (!from || t.from === from) && (!st || t.status === st))
        .sort((a, b) => a.receivedMs - b.receivedMs)
        .map(txView);
    }),
  );
  r.get(
    '/transactions/:hash',
    jsonRoute((req) => {
      const t = chain.txs.get(String(req.params.hash).toLowerCase());
      if (!t) throw new HttpError(404, 'unknown transaction');
      return txView(t);
    }),
  );

  return r;
}
