import type { Deps } from '../../shared/composition/deps.js';
import { auditLedger, type AuditReport } from '../../shared/domains/audit/audit.js';

/** The console's last ledger audit: when it ran, which operator ran it, and what it found. */
export interface LastAudit {
  at: string;
  by: string;
  report: AuditReport;
}

/**
 * The audit reads every agent's ledger and every market's log, so it runs only when an operator
 * posts the console's form (a GET, which another site can make an operator's browser send with its
 * Basic credentials, only shows the last result). The result is kept in Redis, where every API
 * process's console reads it, until the next run replaces it.
 */
export function consoleAudits(deps: Pick<Deps, 'env' | 'redis' | 'models' | 'clock'>) {
  const key = `${deps.env.QUEUE_PREFIX}:console-last-audit`;
  return {
    async run(by: string): Promise<void> {
      const report = await auditLedger(deps.models, { maxDifferences: 100 });
      const last: LastAudit = { at: deps.clock().toISOString(), by, report };
      await deps.redis.set(key, JSON.stringify(last));
    },
    async last(): Promise<LastAudit | null> {
      const stored = await deps.redis.get(key);
      return stored ? (JSON.parse(stored) as LastAudit) : null;
    },
  };
}
