import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import {
  chmodSync,
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const repo = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');

/**
 * A scratch project holding the real set-up script, with a fake `npm` first on the PATH that logs
 * how it was called (and a failing `python3`, so no venv is made). Redis and MongoDB URLs are set,
 * so only the node-modules step does anything.
 */
function scratchProject() {
  const dir = mkdtempSync(join(tmpdir(), 'setup-stamp-'));
  mkdirSync(join(dir, 'scripts'));
  copyFileSync(join(repo, 'scripts', 'setup.mjs'), join(dir, 'scripts', 'setup.mjs'));
  mkdirSync(join(dir, 'test', 'emulators', 'kalshi'), { recursive: true });
  writeFileSync(join(dir, 'test', 'emulators', 'kalshi', 'requirements.txt'), 'solders==0.0.0\n');
  mkdirSync(join(dir, 'test', 'backtest'), { recursive: true });
  writeFileSync(join(dir, 'test', 'backtest', 'requirements.txt'), 'simmer-sdk==0.0.0\n');
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'scratch', version: '1.0.0' }));
  writeFileSync(join(dir, 'package-lock.json'), JSON.stringify({ lockfileVersion: 3 }));
  const bin = join(dir, 'fake-bin');
  mkdirSync(bin);
  const log = join(dir, 'npm-calls.log');
  writeFileSync(
    join(bin, 'npm'),
    `#!/bin/sh\necho "NODE_ENV=$NODE_ENV $*" >> '${log}'\nmkdir -p node_modules\nexit 0\n`,
  );
  writeFileSync(join(bin, 'python3'), '#!/bin/sh\nexit 1\n');
  chmodSync(join(bin, 'npm'), 0o755);
  chmodSync(join(bin, 'python3'), 0o755);

  const setup = (args: string[], env: Record<string, string> = {}) => {
    const r = spawnSync(process.execPath, [join(dir, 'scripts', 'setup.mjs'), '--quiet', ...args], {
      cwd: dir,
      encoding: 'utf8',
      env: {
        PATH: `${bin}:${process.env.PATH}`,
        HOME: dir,
        REDIS_URL: 'redis://127.0.0.1:1',
        TEST_REDIS_URL: 'redis://127.0.0.1:1',
        MONGODB_URI: 'mongodb://127.0.0.1:1/x',
        TEST_MONGODB_URI: 'mongodb://127.0.0.1:1/x',
        CHROMIUM_PATH: '/bin/true',
        ...env,
      },
    });
    assert.equal(r.status, 0, `${r.stdout}\n${r.stderr}`);
  };
  const npmCalls = () => (existsSync(log) ? readFileSync(log, 'utf8').trim().split('\n') : []);
  return { dir, setup, npmCalls, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

describe('set-up stamp of node_modules #unit', () => {
  it('when production installed without dev dependencies, then `npm test`’s set-up installs again with them', () => {
    const p = scratchProject();
    try {
      p.setup([], { NODE_ENV: 'production' });
      assert.equal(p.npmCalls().length, 1, 'the first start installs');
      p.setup(['--for-tests']);
      const calls = p.npmCalls();
      assert.equal(calls.length, 2, `the test set-up installs again: ${calls.join(' | ')}`);
      assert.match(calls[1]!, /--include=dev/);
    } finally {
      p.cleanup();
    }
  });

  it('when NODE_ENV=production is set for `npm test` too, then dev dependencies are still installed', () => {
    const p = scratchProject();
    try {
      p.setup(['--for-tests'], { NODE_ENV: 'production' });
      assert.match(p.npmCalls()[0]!, /--include=dev/);
    } finally {
      p.cleanup();
    }
  });

  it('when everything was installed (dev included), then neither a production start nor a test run installs again', () => {
    const p = scratchProject();
    try {
      p.setup(['--for-tests']);
      p.setup([], { NODE_ENV: 'production' });
      p.setup(['--for-tests']);
      p.setup([]);
      assert.equal(p.npmCalls().length, 1, p.npmCalls().join(' | '));
    } finally {
      p.cleanup();
    }
  });

  it('when a production start finds nothing installed, then it installs without dev dependencies', () => {
    const p = scratchProject();
    try {
      p.setup([], { NODE_ENV: 'production' });
      assert.match(p.npmCalls()[0]!, /--omit=dev/);
      p.setup([], { NODE_ENV: 'production' });
      assert.equal(p.npmCalls().length, 1, 'a second production start is a no-op');
    } finally {
      p.cleanup();
    }
  });

  it('when the lock file changes, then it installs again', () => {
    const p = scratchProject();
    try {
      p.setup([]);
      writeFileSync(join(p.dir, 'package-lock.json'), JSON.stringify({ lockfileVersion: 3, changed: true }));
      p.setup([]);
      assert.equal(p.npmCalls().length, 2);
    } finally {
      p.cleanup();
    }
  });
});
