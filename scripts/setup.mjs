#!/usr/bin/env node
// Idempotent set-up, run at the start of `npm start` and `npm test` (and on its own as `npm run setup`).
// Plain Node with no dependencies, because it runs before node_modules exists. It reads process.env
// itself: it decides what to install, before the service's config module can be loaded.
//   1. node modules: `npm install` when node_modules is missing, older than package-lock.json, or
//      lacks the dev dependencies a non-production run needs (the stamp records both)
//   2. Redis: Debian's redis-server when there is none and no Redis URL is configured
//   3. MongoDB-wire server: when no MongoDB URI is configured and no `mongod` is on the PATH,
//      resolve mongo-java-server with Maven and record the launcher's classpath
//   4. with --for-tests: the Python client's Solana library (solders) in .cache/solders-venv
//   5. with --for-tests: the official Python client with its backtest engine (simmer-sdk[backtest])
//      and what the vendored Reactor clients import (httpx-sse, packaging) in .cache/simmer-sdk-venv
//      and the client the published skills were written for (simmer-sdk 0.24.x) in .cache/simmer-sdk-0.24-venv
//   6. with --for-tests: Debian's chromium for the browser tests (playwright-core drives it)
//   7. with --for-fuzz: schemathesis (contract fuzzing, `npm run fuzz`) in .cache/fuzz-venv
import { createHash } from 'node:crypto';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const forTests = process.argv.includes('--for-tests');
const forFuzz = process.argv.includes('--for-fuzz');
const redisUrl = forTests ? process.env.TEST_REDIS_URL : process.env.REDIS_URL;
const mongoUri = forTests ? process.env.TEST_MONGODB_URI : process.env.MONGODB_URI;
const quiet = process.argv.includes('--quiet');

const say = (msg) => quiet || console.log(`[setup] ${msg}`);
function fail(what, options) {
  console.error(
    `\n[setup] ${what}\n[setup] To go on, do one of:\n${options.map((o) => `  - ${o}`).join('\n')}\n`,
  );
  process.exit(1);
}
const sha256 = (file) => createHash('sha256').update(readFileSync(file)).digest('hex');
const onPath = (bin) => spawnSync('sh', ['-c', `command -v ${bin}`], { encoding: 'utf8' }).status === 0;
function run(cmd, args, opts = {}) {
  const r = spawnSync(cmd, args, { cwd: root, stdio: quiet ? 'pipe' : 'inherit', encoding: 'utf8', ...opts });
  return r.status === 0;
}

// 1. Node modules ----------------------------------------------------------------------------------
// Dev dependencies (mocha, the venues' official clients, autocannon, …) are needed by everything but a
// production start: `NODE_ENV=production npm start` installs without them, and a later `npm test`
// must then install again rather than trust the stamp.
const needDevDependencies = forTests || forFuzz || process.env.NODE_ENV !== 'production';

/** The stamp: the lock file's hash and whether dev dependencies were installed; null when unreadable. */
function readStamp(file) {
  try {
    const stamp = JSON.parse(readFileSync(file, 'utf8'));
    return stamp && typeof stamp === 'object' ? stamp : null;
  } catch {
    return null;
  }
}

function ensureNodeModules() {
  const lock = join(root, 'package-lock.json');
  const stampFile = join(root, 'node_modules', '.setup-stamp');
  const lockHash = sha256(existsSync(lock) ? lock : join(root, 'package.json'));
  const stamp = readStamp(stampFile);
  if (stamp?.lock === lockHash && (stamp.dev === true || !needDevDependencies)) return;
  say(`installing node modules${needDevDependencies ? '' : ' (without dev dependencies)'}…`);
  // `npm install` rather than `npm ci`: it installs the locked versions just the same, but tolerates a
  // registry mirror that lacks other platforms' optional binaries (npm ci refuses the lock file then).
  // The dev flag is explicit: NODE_ENV=production alone would make npm omit them, even for the tests.
  const devFlag = needDevDependencies ? '--include=dev' : '--omit=dev';
  if (!run('npm', ['install', '--no-audit', '--no-fund', devFlag])) {
    fail('npm could not install the node modules.', [
      'check the npm registry is reachable, then run `npm run setup` again',
    ]);
  }
  writeFileSync(stampFile, JSON.stringify({ lock: lockHash, dev: needDevDependencies }));
}

// 2. Redis -------------------------------------------------------------------------------------------
function ensureRedis() {
  if (redisUrl || onPath('redis-server')) return;
  say('redis-server not found; installing Debian package redis-server…');
  const isRoot = typeof process.getuid === 'function' && process.getuid() === 0;
  const apt = onPath('apt-get');
  if (
    isRoot &&
    apt &&
    run('apt-get', ['update', '-qq']) &&
    run('apt-get', ['install', '-y', '-qq', 'redis-server'], {
      env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
    }) &&
    onPath('redis-server')
  ) {
    return;
  }
  fail('Redis is needed and redis-server could not be installed here.', [
    'install Redis 7 (Debian/Ubuntu: `sudo apt-get install redis-server`; macOS: `brew install redis`)',
    `set ${forTests ? 'TEST_REDIS_URL' : 'REDIS_URL'}=redis://host:6379 to use a running Redis`,
    'run the production stack with `docker compose up`',
  ]);
}

// 3. MongoDB-wire server -------------------------------------------------------------------------------
export const MONGO_JAVA_DIR = join(root, 'scripts', 'mongo-java-server');
export const CLASSPATH_FILE = join(root, '.cache', 'mongo-java-server', 'classpath.txt');

function classpathIsCurrent() {
  const stampFile = `${CLASSPATH_FILE}.stamp`;
  if (!existsSync(CLASSPATH_FILE) || !existsSync(stampFile)) return false;
  if (readFileSync(stampFile, 'utf8') !== sha256(join(MONGO_JAVA_DIR, 'pom.xml'))) return false;
  // The jars live in Maven's local repository, which can be cleaned independently of this folder.
  return readFileSync(CLASSPATH_FILE, 'utf8')
    .trim()
    .split(':')
    .every((jar) => existsSync(jar));
}

function ensureMongoWire() {
  if (mongoUri || onPath('mongod')) return;
  if (classpathIsCurrent()) return;
  const options = [
    'install MongoDB 7 so that `mongod` is on the PATH',
    'install Java 17 and Maven (Debian: `sudo apt-get install openjdk-17-jdk-headless maven`) for the embedded mongo-java-server',
    `set ${forTests ? 'TEST_MONGODB_URI' : 'MONGODB_URI'}=mongodb://host:27017/db to use a running MongoDB`,
    'run the production stack with `docker compose up`',
  ];
  if (!onPath('java') || !onPath('mvn'))
    fail(
      'No MongoDB server is configured, `mongod` is not on the PATH, and Java 17 + Maven are missing.',
      options,
    );
  const javaVersion = spawnSync('java', ['-version'], { encoding: 'utf8' }).stderr ?? '';
  const major = Number((/version "(\d+)/.exec(javaVersion) ?? [])[1]);
  if (!(major >= 17))
    fail(
      `Java 17 or newer is needed for mongo-java-server (found: ${javaVersion.split('\n')[0] || 'unknown'}).`,
      options,
    );
  say('resolving mongo-java-server 1.47.0 with Maven…');
  mkdirSync(dirname(CLASSPATH_FILE), { recursive: true });
  const ok = run('mvn', [
    '-q',
    '-B',
    '-f',
    join(MONGO_JAVA_DIR, 'pom.xml'),
    'dependency:build-classpath',
    `-Dmdep.outputFile=${CLASSPATH_FILE}`,
  ]);
  if (!ok || !existsSync(CLASSPATH_FILE))
    fail('Maven could not resolve mongo-java-server (is Maven Central reachable?).', options);
  writeFileSync(`${CLASSPATH_FILE}.stamp`, sha256(join(MONGO_JAVA_DIR, 'pom.xml')));
}

/** A Python venv of the project's own is current while its pinned requirements file is unchanged. */
function venvIsCurrent(venv, requirements, bin) {
  const stamp = `${venv}.stamp`;
  return (
    existsSync(join(venv, 'bin', bin)) &&
    existsSync(stamp) &&
    readFileSync(stamp, 'utf8') === sha256(requirements)
  );
}

/** Creates the venv and installs the pinned requirements into it; stamps it when that worked. */
function installVenv(venv, requirements) {
  const ok =
    run('python3', ['-m', 'venv', venv]) &&
    run(join(venv, 'bin', 'pip'), ['install', '-q', '--disable-pip-version-check', '-r', requirements]);
  if (ok) writeFileSync(`${venv}.stamp`, sha256(requirements));
  return ok;
}

/**
 * For the tests only: the Python client's Solana library (`solders`) in a venv of the project's own,
 * so the Kalshi emulator test can check that what the Python client signs is accepted. Reinstalled
 * when its pinned requirements change. Without Python the test skips, except under CI.
 */
const SOLDERS_VENV = join(root, '.cache', 'solders-venv');
const SOLDERS_REQUIREMENTS = join(root, 'test', 'emulators', 'kalshi', 'requirements.txt');
function ensureSoldersVenv() {
  if (venvIsCurrent(SOLDERS_VENV, SOLDERS_REQUIREMENTS, 'python')) return;
  const options = [
    'install Python 3 with its venv module (Debian: `sudo apt-get install python3-venv`) and make PyPI reachable',
    'or set SOLDERS_PYTHON to a python that has solders installed',
  ];
  if (!onPath('python3')) {
    if (process.env.CI) fail('Python 3 is needed for the solders signing check.', options);
    say('python3 not found: the solders signing check of the Kalshi emulator test will be skipped.');
    return;
  }
  say("installing solders (the Python client's Solana library) into .cache/solders-venv…");
  if (!installVenv(SOLDERS_VENV, SOLDERS_REQUIREMENTS)) {
    if (process.env.CI) fail('solders could not be installed into .cache/solders-venv.', options);
    say('solders could not be installed: the solders signing check will be skipped.');
  }
}

/**
 * For the tests only: the official Python client, pinned with its backtest extra, in a venv of the
 * project's own, so the backtest test can run `simmer backtest` against the service (issue 25) and
 * the Reactor acceptance can run the vendored copytrading skill and reactor MCP client (issue 37).
 * Reinstalled when its pinned requirements change. SIMMER_SDK_VENV names another venv that has it
 * (nothing is installed then). Without Python the test skips, except under CI.
 */
const SIMMER_SDK_VENV = join(root, '.cache', 'simmer-sdk-venv');
const SIMMER_SDK_REQUIREMENTS = join(root, 'test', 'backtest', 'requirements.txt');
function ensureSimmerSdkVenv() {
  if (process.env.SIMMER_SDK_VENV) return;
  if (venvIsCurrent(SIMMER_SDK_VENV, SIMMER_SDK_REQUIREMENTS, 'simmer')) return;
  const options = [
    'install Python 3 with its venv module (Debian: `sudo apt-get install python3-venv`) and make PyPI reachable',
    'or set SIMMER_SDK_VENV to a venv that has `simmer-sdk[backtest]` installed (its bin/simmer is run)',
  ];
  if (!onPath('python3')) {
    if (process.env.CI) fail("Python 3 is needed for the official client's backtest test.", options);
    say("python3 not found: the official client's backtest test will be skipped.");
    return;
  }
  say('installing the official Python client (simmer-sdk[backtest]) into .cache/simmer-sdk-venv…');
  if (!installVenv(SIMMER_SDK_VENV, SIMMER_SDK_REQUIREMENTS)) {
    if (process.env.CI)
      fail('simmer-sdk[backtest] could not be installed into .cache/simmer-sdk-venv.', options);
    say("simmer-sdk[backtest] could not be installed: the official client's backtest test will be skipped.");
  }
}

/**
 * For the tests only: the official client at the version the published skills were written for
 * (test/fixtures/clients/requirements-0.24.txt), in a venv of its own beside the pinned 0.26.0 one,
 * so a skill that builds its client the 0.24.x way (`SimmerClient(venue="polymarket")` without
 * `live=`, which 0.26.0 refuses) runs unmodified. Reinstalled when the pin changes; without Python
 * the skill tests that need it skip, except under CI.
 */
const SIMMER_SDK_024_VENV = join(root, '.cache', 'simmer-sdk-0.24-venv');
const SIMMER_SDK_024_REQUIREMENTS = join(root, 'test', 'fixtures', 'clients', 'requirements-0.24.txt');
function ensureSimmerSdk024Venv() {
  if (venvIsCurrent(SIMMER_SDK_024_VENV, SIMMER_SDK_024_REQUIREMENTS, 'python')) return;
  const options = [
    'install Python 3 with its venv module (Debian: `sudo apt-get install python3-venv`) and make PyPI reachable',
  ];
  if (!onPath('python3')) {
    if (process.env.CI) fail('Python 3 is needed for the skills written for simmer-sdk 0.24.x.', options);
    say('python3 not found: the skill tests that need simmer-sdk 0.24.x will be skipped.');
    return;
  }
  say(
    'installing simmer-sdk 0.24.x (what the published skills were written for) into .cache/simmer-sdk-0.24-venv…',
  );
  if (!installVenv(SIMMER_SDK_024_VENV, SIMMER_SDK_024_REQUIREMENTS)) {
    if (process.env.CI)
      fail('simmer-sdk 0.24.x could not be installed into .cache/simmer-sdk-0.24-venv.', options);
    say('simmer-sdk 0.24.x could not be installed: the skill tests that need it will be skipped.');
  }
}

/**
 * For the tests only: a Chromium for the browser tests (playwright-core drives it; no browser download).
 * CHROMIUM_PATH, or `chromium` on the PATH, or Debian's package installed with apt-get. Without one the
 * browser tests are skipped with a printed reason; under CI a missing browser fails instead.
 */
function ensureChromium() {
  if (process.env.CHROMIUM_PATH || onPath('chromium') || onPath('chromium-browser')) return;
  const options = [
    'install Chromium (Debian: `sudo apt-get install chromium`)',
    'or set CHROMIUM_PATH to a Chromium or Chrome executable',
  ];
  if (onPath('apt-get') && process.getuid?.() === 0) {
    say("installing Debian's chromium for the browser tests…");
    const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
    const install = () =>
      run('apt-get', ['install', '-y', '-qq', '--no-install-recommends', 'chromium'], { env });
    if (install() || (run('apt-get', ['update', '-qq'], { env }) && install())) return;
  }
  if (process.env.CI) fail('Chromium is needed for the browser tests.', options);
  say('no Chromium: the browser tests will be skipped (install `chromium` or set CHROMIUM_PATH).');
}

/**
 * For `npm run fuzz` only: schemathesis, pinned in test/security/requirements.txt, in a venv of the
 * project's own; reinstalled when the pin changes. Nothing else needs it, so it is not installed
 * by `npm start` or `npm test`.
 */
const FUZZ_VENV = join(root, '.cache', 'fuzz-venv');
const FUZZ_REQUIREMENTS = join(root, 'test', 'security', 'requirements.txt');
function ensureFuzzVenv() {
  if (venvIsCurrent(FUZZ_VENV, FUZZ_REQUIREMENTS, 'st')) return;
  const options = [
    'install Python 3 with its venv module (Debian: `sudo apt-get install python3-venv`) and make PyPI reachable',
  ];
  if (!onPath('python3')) fail('Python 3 is needed for the contract fuzzing (schemathesis).', options);
  say('installing schemathesis into .cache/fuzz-venv…');
  if (!installVenv(FUZZ_VENV, FUZZ_REQUIREMENTS))
    fail('schemathesis could not be installed into .cache/fuzz-venv.', options);
}

ensureNodeModules();
ensureRedis();
ensureMongoWire();
if (forTests) ensureSoldersVenv();
if (forTests) ensureSimmerSdkVenv();
if (forTests) ensureSimmerSdk024Venv();
if (forTests) ensureChromium();
if (forFuzz) ensureFuzzVenv();
say('ready.');
