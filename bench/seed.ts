// Large catalogues and agent populations inserted straight into the database (the point of the
// benches that use them is the reads and trades on top, not the import path), in batches of 5,000.
import { randomUUID } from 'node:crypto';
import type { Models } from '../shared/domains/models.js';
import { STARTING_BALANCE_MICRO } from '../shared/domains/money.js';
import { stateAt } from '../shared/domains/markets/lmsr.js';

const BATCH = 5000;
const WORDS = [
  'bitcoin',
  'election',
  'inflation',
  'championship',
  'launch',
  'award',
  'rates',
  'storm',
  'merger',
  'summit',
];
const TAGS = ['politics', 'sports', 'crypto', 'economics', 'science', 'culture'];

/**
 * Bench markets number `from` to `to - 1`: one in 20 resolved, one in 3 marked as imported from
 * Polymarket, every one tradeable on the sim venue at 50 %. Returns the ids of the active ones that
 * came from the sim catalogue, in order.
 */
export async function seedMarkets(models: Models, from: number, to: number, now = Date.now()) {
  const s = stateAt(2241, 0.5);
  const simActive: string[] = [];
  for (let start = from; start < to; start += BATCH) {
    const docs = Array.from({ length: Math.min(BATCH, to - start) }, (_, k) => {
      const i = start + k;
      const status = i % 20 === 0 ? 'resolved' : 'active';
      const importSource = i % 3 === 0 ? 'polymarket' : 'sim';
      const _id = randomUUID();
      if (status === 'active' && importSource === 'sim') simActive.push(_id);
      return {
        _id,
        question: `Will the ${WORDS[i % WORDS.length]} market #${i} resolve YES?`,
        status,
        importSource,
        tags: [TAGS[i % TAGS.length]!, `group-${i % 100}`],
        currentPrice: 0.5,
        volume24hMicro: (i * 7919) % 1_000_000_000,
        resolvesAt: new Date(now + ((i % 2000) + 1) * 3600_000),
        createdAt: new Date(now - i * 1000),
        isOrderbookOpen: true,
        simTradeable: true,
        analyticsOnly: false,
        tickSize: 0.01,
        feeRateBps: 0,
        book: { b: 2241, q0Yes: s.qYes, q0No: s.qNo, yesMicro: 0, noMicro: 0, version: 0 },
      };
    });
    await models.Market.collection.insertMany(docs as never[], { ordered: false });
  }
  return simActive;
}

/** Bench agents number `from` to `to - 1`, each with some trading history and a spread of P&L. */
export async function seedAgents(models: Models, from: number, to: number, now = Date.now()): Promise<void> {
  for (let start = from; start < to; start += BATCH) {
    const docs = Array.from({ length: Math.min(BATCH, to - start) }, (_, k) => {
      const i = start + k;
      const pnl = ((i * 104729) % 2_000_000_000) - 1_000_000_000;
      return {
        _id: randomUUID(),
        name: `bench-agent-${i}`,
        apiKeyHash: randomUUID(),
        keyPrefix: 'sk_live_bench...',
        claimCode: `bench-${i}`,
        status: 'unclaimed',
        balanceMicro: STARTING_BALANCE_MICRO + pnl,
        startingBalanceMicro: STARTING_BALANCE_MICRO,
        reservedMicro: 0,
        realizedPnlMicro: pnl,
        leaderboardPnlMicro: pnl,
        ledgerSeq: 0,
        simTradesCount: 1 + (i % 50),
        realTradesCount: 0,
        tradesCount: 1 + (i % 50),
        winCount: i % 7,
        lossCount: i % 5,
        autoRedeemEnabled: true,
        createdAt: new Date(now - i * 1000),
      };
    });
    await models.Agent.collection.insertMany(docs as never[], { ordered: false });
  }
}
