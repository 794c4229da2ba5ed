import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { SHORT_PLAN, SPLIT_PLAN, describeReport, runChaos } from '../chaos/run-chaos.js';

/** Where a run leaves the service's output and its report, for a failure to be looked into (git-ignored). */
const ARTIFACTS = join('test', 'artifacts', 'chaos');

/**
 * The short chaos run (`npm run chaos -- --short`) on every `npm test`: the service as `npm start`
 * runs it, randomized concurrent trades from many agents, SIGKILLs of trade workers, the embedded
 * Redis and the embedded database, then nothing acknowledged lost or doubled and a clean audit.
 * The long run's figures are in docs/reliability.md.
 */
describe('chaos: trading while workers, Redis and the database are SIGKILLed #integration #chaos', function () {
  this.timeout(600_000);

  it('when trade workers (3), the embedded Redis (1) and database (1) are killed during 300 random trades, then no trade answered filled is lost or doubled, every resend answers as the first and the audit is clean', async () => {
    const lines: string[] = [];
    mkdirSync(ARTIFACTS, { recursive: true });
    const report = await runChaos(SHORT_PLAN, (line) => lines.push(line), join(ARTIFACTS, 'service.log'));
    writeFileSync(join(ARTIFACTS, 'report.json'), JSON.stringify(report, null, 2));
    const figures = describeReport(report);
    assert.deepEqual(
      report.failures,
      [],
      `${figures}\n${lines.join('\n')}\n(service output and report in ${ARTIFACTS})`,
    );
    assert.ok(report.verification.acknowledgedFilled > 0, figures);
    assert.equal(report.verification.audit.ok, true, figures);
  });

  it('when the roles are split (2 API processes taking trades and resends in turn, 2 trade worker processes, 2 schedulers) and trade workers (2), Redis (1) and the database (1) are killed during 240 random trades, then no trade answered filled is lost or doubled, every resend answers as the first and the audit is clean', async () => {
    const lines: string[] = [];
    const dir = join(ARTIFACTS, 'split');
    mkdirSync(dir, { recursive: true });
    const report = await runChaos(SPLIT_PLAN, (line) => lines.push(line), join(dir, 'service.log'));
    writeFileSync(join(dir, 'report.json'), JSON.stringify(report, null, 2));
    const figures = describeReport(report);
    assert.deepEqual(
      report.failures,
      [],
      `${figures}\n${lines.join('\n')}\n(service output and report in ${dir})`,
    );
    assert.ok(report.verification.acknowledgedFilled > 0, figures);
    assert.equal(report.verification.audit.ok, true, figures);
    assert.equal(report.client.replays > 0 || report.verification.replayed > 0, true, figures);
  });
});
