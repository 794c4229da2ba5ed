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
 * A scratch project holding the real set-up script, with a fake `npm` and a fake `python3` first on the
 * PATH. The fake python's `-m venv <dir>` makes a venv whose `pip` logs its arguments and installs
 * (touches `bin/python` and `bin/simmer`), or fails for the backtest requirements when FAIL_BACKTEST is
 * set. Redis, MongoDB and Chromium are configured, so only the venv steps do anything.
 */
function scratchProject() {
  const dir = mkdtempSync(join(tmpdir(), 'setup-simmer-sdk-'));
  mkdirSync(join(dir, 'scripts'));
  copyFileSync(join(repo, 'scripts', 'setup.mjs'), join(dir, 'scripts', 'setup.mjs'));
  for (const [folder, pin] of [
    ['test/emulators/kalshi', 'solders==0.0.0'],
    ['test/backtest', 'simmer-sdk[backtest]==0.0.0'],
  ] as const) {
    mkdirSync(join(dir, folder), { recursive: true });
    writeFileSync(join(dir, folder, 'requirements.txt'), `${pin}\n`);
  }
  // The client at the version the vendored skills were written for has its pin beside them.
  mkdirSync(join(dir, 'test', 'fixtures', 'clients'), { recursive: true });
  writeFileSync(join(dir, 'test', 'fixtures', 'clients', 'requirements-0.24.txt'), 'simmer-sdk==0.0.0\n');
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'scratch', version: '1.0.0' }));
  writeFileSync(join(dir, 'package-lock.json'), JSON.stringify({ lockfileVersion: 3 }));
  const bin = join(dir, 'fake-bin');
  mkdirSync(bin);
  const log = join(dir, 'calls.log');
  writeFileSync(join(bin, 'npm'), '#!/bin/sh\nmkdir -p node_modules\nexit 0\n');
  writeFileSync(
    join(bin, 'python3'),
    [
      '#!/bin/sh',
      `echo "python3 $*" >> '${log}'`,
      '[ "$1" = "-m" ] && [ "$2" = "venv" ] || exit 1',
      'mkdir -p "$3/bin"',
      `cat > "$3/bin/pip" <<EOF`,
      '#!/bin/sh',
      `echo "pip \\$*" >> '${log}'`,
      'case "\\$*" in *test/backtest/*) [ -n "\\$FAIL_BACKTEST" ] && exit 1;; esac',
      'touch "$3/bin/python" "$3/bin/simmer"',
      'EOF',
      'chmod +x "$3/bin/pip"',
    ].join('\n') + '\n',
  );
  chmodSync(join(bin, 'npm'), 0o755);
  chmodSync(join(bin, 'python3'), 0o755);

  const setup = (env: Record<string, string> = {}) =>
    spawnSync(process.execPath, [join(dir, 'scripts', 'setup.mjs'), '--for-tests'], {
      cwd: dir,
      encoding: 'utf8',
      env: {
        PATH: `${bin}:${process.env.PATH}`,
        HOME: dir,
        TEST_REDIS_URL: 'redis://127.0.0.1:1',
        TEST_MONGODB_URI: 'mongodb://127.0.0.1:1/x',
        CHROMIUM_PATH: '/bin/true',
        ...env,
      },
    });
  /** The pip installs of the backtest requirements so far. */
  const clientInstalls = () =>
    (existsSync(log) ? readFileSync(log, 'utf8').trim().split('\n') : []).filter(
      (l) => l.startsWith('pip ') && l.includes('test/backtest/requirements.txt'),
    );
  return { dir, setup, clientInstalls, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

describe("set-up of the official Python client's venv (simmer-sdk[backtest]) #unit", () => {
  it('when set up for the tests, then the pinned client is installed into .cache/simmer-sdk-venv once, and again when the pin changes', () => {
    const p = scratchProject();
    try {
      for (let i = 0; i < 2; i++) assert.equal(p.setup().status, 0);
      assert.equal(p.clientInstalls().length, 1, 'a second set-up is a no-op');
      assert.ok(existsSync(join(p.dir, '.cache', 'simmer-sdk-venv', 'bin', 'simmer')));
      assert.ok(existsSync(join(p.dir, '.cache', 'simmer-sdk-venv.stamp')));
      assert.ok(
        existsSync(join(p.dir, '.cache', 'simmer-sdk-0.24-venv.stamp')),
        'the skills’ 0.24 client too',
      );
      writeFileSync(join(p.dir, 'test', 'backtest', 'requirements.txt'), 'simmer-sdk[backtest]==0.0.1\n');
      assert.equal(p.setup().status, 0);
      assert.equal(p.clientInstalls().length, 2);
    } finally {
      p.cleanup();
    }
  });

  it('when SIMMER_SDK_VENV names a venv, then no venv of its own is made', () => {
    const p = scratchProject();
    try {
      assert.equal(p.setup({ SIMMER_SDK_VENV: join(p.dir, 'elsewhere') }).status, 0);
      assert.equal(p.clientInstalls().length, 0);
      assert.equal(existsSync(join(p.dir, '.cache', 'simmer-sdk-venv')), false);
    } finally {
      p.cleanup();
    }
  });

  it('when the client cannot be installed, then CI fails loudly and a local run goes on without it', () => {
    const p = scratchProject();
    try {
      const ci = p.setup({ CI: 'true', FAIL_BACKTEST: '1' });
      assert.equal(ci.status, 1, ci.stdout + ci.stderr);
      assert.match(ci.stderr, /simmer-sdk\[backtest\] could not be installed/);
      assert.match(ci.stderr, /SIMMER_SDK_VENV/);
      const local = p.setup({ FAIL_BACKTEST: '1' });
      assert.equal(local.status, 0, local.stdout + local.stderr);
      assert.match(local.stdout, /backtest test will be skipped/);
      assert.equal(existsSync(join(p.dir, '.cache', 'simmer-sdk-venv.stamp')), false, 'not stamped');
    } finally {
      p.cleanup();
    }
  });
});
