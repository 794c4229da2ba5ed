import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadEnv } from '../../shared/infra/config/env.js';
import { isAlive } from '../../shared/infra/embedded/child-process.js';
import { startInfrastructure } from '../../shared/infra/embedded/infrastructure.js';
import { createLogger } from '../../shared/infra/logger.js';
import { testContext } from '../support/context.js';

/**
 * Found after full test runs: a mongo-java-server of the self-healing tests kept running with no
 * parent. A service whose graceful shutdown overruns exits by force, and its embedded children
 * outlived it; the forced exit now takes them down first.
 */
describe('embedded children on a forced exit #integration', function () {
  this.timeout(60_000);

  it('when the process must exit before its shutdown finished, then kill() ends every embedded child at once', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'embedded-kill-'));
    const env = loadEnv({ NODE_ENV: 'test', DATA_DIR: dataDir, MONGODB_URI: testContext().mongoUri });
    const handle = await startInfrastructure(env, createLogger('silent', 'embedded-kill-test'));
    try {
      const { children } = JSON.parse(readFileSync(join(dataDir, 'embedded.pid'), 'utf8')) as {
        children: number[];
      };
      assert.ok(children.length >= 1 && children.every(isAlive), JSON.stringify(children));
      handle.kill();
      for (let i = 0; i < 50 && children.some(isAlive); i++) await new Promise((r) => setTimeout(r, 100));
      assert.deepEqual(children.filter(isAlive), [], 'no embedded child outlives a forced exit');
    } finally {
      await handle.stop();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
