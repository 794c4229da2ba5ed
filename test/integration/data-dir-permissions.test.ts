import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadEnv } from '../../shared/infra/config/env.js';
import { startInfrastructure } from '../../shared/infra/embedded/infrastructure.js';
import { createLogger } from '../../shared/infra/logger.js';
import { resolveGeneratedSecret } from '../../shared/infra/operator-token.js';
import { resolveMasterKey } from '../../shared/infra/secrets/master-key.js';
import { testContext } from '../support/context.js';

const modeOf = (path: string) => (statSync(path).mode & 0o777).toString(8);

/** Every entry under `dir` (itself included) with its permission bits. */
function modesUnder(dir: string): Record<string, string> {
  const modes: Record<string, string> = { '.': modeOf(dir) };
  for (const entry of readdirSync(dir, { recursive: true, withFileTypes: true }))
    modes[join(entry.parentPath, entry.name).slice(dir.length + 1)] = modeOf(
      join(entry.parentPath, entry.name),
    );
  return modes;
}

describe('data directory permissions #integration', function () {
  this.timeout(60_000);
  let root: string;
  before(() => {
    root = mkdtempSync(join(tmpdir(), 'data-dir-modes-'));
  });
  after(() => rmSync(root, { recursive: true, force: true }));

  it('when the service creates its data directory (embedded Redis, lock file, generated secrets), then directories are 0700 and files 0600', async () => {
    const dataDir = join(root, 'data');
    const env = loadEnv({
      NODE_ENV: 'test',
      DATA_DIR: dataDir,
      // The embedded Redis (persistent, as `npm start` runs it) and the lock file; the database
      // is the test run's own, a JVM more would only slow this down.
      MONGODB_URI: testContext().mongoUri,
    });
    const handle = await startInfrastructure(env, createLogger('silent', 'data-dir-test'));
    try {
      resolveGeneratedSecret(dataDir, 'operator-token', undefined);
      resolveMasterKey(env);
      const modes = modesUnder(dataDir);
      assert.ok(
        Object.keys(modes).some((p) => p.startsWith('redis/')),
        JSON.stringify(modes),
      );
      const wrong = Object.entries(modes).filter(([path, mode]) => {
        const isDir = statSync(join(dataDir, path)).isDirectory();
        return mode !== (isDir ? '700' : '600');
      });
      assert.deepEqual(wrong, []);
    } finally {
      await handle.stop();
    }
  });
});
