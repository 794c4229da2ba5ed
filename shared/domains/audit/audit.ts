import { setTimeout as sleep } from 'node:timers/promises';
import { agentAuditor } from './audit-agents.js';
import { marketAuditor } from './audit-markets.js';
import { noDust } from './audit-findings.js';
import type { AuditDifference, AuditModels, Auditor, BatchAudit, HouseDust } from './audit-findings.js';

/**
 * The ledger audit: every agent's money and positions recomputed from its ledger, every market's book
 * from its event log, compared with the documents (projections of those logs). A projection that has
 * not applied its last entries yet is "behind" (the next read rolls it forward), not a difference: it
 * is compared with its log up to the last entry it applied.
 */

export interface AuditReport {
  ok: boolean;
  checked: { agents: number; positions: number; markets: number };
  behind: { agents: number; markets: number };
  /**
   * The house's rounding over the sim fills: each fill checked to pay out no more than the LMSR
   * value and to round by less than one unit; `dustMicro` is what that kept (micro-units, to 1e-3).
   */
  house: HouseDust;
  differences: AuditDifference[];
  /** Every difference found; `differences` holds the first `maxDifferences` of them. */
  differenceCount: number;
  truncated: boolean;
  tookMs: number;
}

export interface AuditOptions {
  maxDifferences?: number;
  batchSize?: number;
}

/**
 * An agent or market with a difference is read and audited again a few times before the difference is
 * reported: a trade in flight between two reads of a batch (its trade record and the market log are
 * two documents) must not show as a difference. A real one stays.
 */
const RECHECKS = 3;
const RECHECK_DELAY_MS = 50;

/**
 * Walks the collection with one cursor in `_id` order, auditing `batchSize` documents at a time; an
 * agent or market with differences is read and audited again before they count.
 */
async function scan<D extends { _id: string }>(
  models: AuditModels,
  auditor: Auditor<D>,
  batchSize: number,
  onBatch: (checked: number, batch: BatchAudit, differences: AuditDifference[]) => void,
): Promise<void> {
  const flush = async (docs: D[]) => {
    const batch = await auditor.audit(models, docs);
    let found = batch.findings.byOwner;
    for (let round = 0; round < RECHECKS && found.size > 0; round++) {
      await sleep(RECHECK_DELAY_MS);
      const again = await auditor.read(models, { _id: { $in: [...found.keys()] } });
      found = again.length > 0 ? (await auditor.audit(models, again)).findings.byOwner : new Map();
    }
    onBatch(docs.length, batch, [...found.values()].flat());
  };
  let docs: D[] = [];
  for await (const doc of auditor.read(models, {}).cursor({ batchSize })) {
    docs.push(doc);
    if (docs.length < batchSize) continue;
    await flush(docs);
    docs = [];
  }
  if (docs.length > 0) await flush(docs);
}

/**
 * Audits every agent, then every market, `batchSize` at a time: a few queries per batch, each reading
 * the batch's logs by `_id` range, so the whole audit reads every log entry about once.
 */
export async function auditLedger(models: AuditModels, options: AuditOptions = {}): Promise<AuditReport> {
  const { maxDifferences = 100, batchSize = 1000 } = options;
  const started = performance.now();
  const report: AuditReport = {
    ok: true,
    checked: { agents: 0, positions: 0, markets: 0 },
    behind: { agents: 0, markets: 0 },
    house: noDust(),
    differences: [],
    differenceCount: 0,
    truncated: false,
    tookMs: 0,
  };
  const keep = (differences: AuditDifference[]) => {
    report.differenceCount += differences.length;
    report.differences.push(...differences.slice(0, maxDifferences - report.differences.length));
  };
  await scan(models, agentAuditor, batchSize, (checked, batch, differences) => {
    report.checked.agents += checked;
    report.checked.positions += batch.positions;
    report.behind.agents += batch.behind;
    keep(differences);
  });
  await scan(models, marketAuditor, batchSize, (checked, batch, differences) => {
    report.checked.markets += checked;
    report.behind.markets += batch.behind;
    report.house.fills += batch.house?.fills ?? 0;
    report.house.dustMicro += batch.house?.dustMicro ?? 0;
    keep(differences);
  });
  report.house.dustMicro = Math.round(report.house.dustMicro * 1000) / 1000;
  report.ok = report.differenceCount === 0;
  report.truncated = report.differenceCount > report.differences.length;
  report.tookMs = Math.round(performance.now() - started);
  return report;
}
