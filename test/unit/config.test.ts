import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { ConfigError, EnvSchema, loadEnv } from '../../shared/infra/config/env.js';
import { withEnvTable } from '../../shared/infra/config/env-table.js';

describe('configuration #unit', () => {
  it('when nothing is set, then every variable has its documented default', () => {
    const env = loadEnv({});
    assert.equal(env.PORT, 8080);
    assert.equal(env.DATA_DIR, './data');
    assert.equal(env.REDIS_URL, undefined);
    assert.equal(env.MONGODB_URI, undefined);
    assert.equal(env.NODE_ENV, 'development');
  });

  it('when several variables are bad, then one error names every one of them', () => {
    assert.throws(
      () =>
        loadEnv({
          PORT: 'eighty',
          REDIS_URL: 'http://localhost',
          MONGODB_URI: 'postgres://x',
          LOG_LEVEL: 'loud',
          WORKER_CONCURRENCY: '0',
        }),
      (err: unknown) => {
        assert.ok(err instanceof ConfigError);
        const names = err.problems.map((p) => p.split(':')[0]);
        assert.deepEqual(names.sort(), [
          'LOG_LEVEL',
          'MONGODB_URI',
          'PORT',
          'REDIS_URL',
          'WORKER_CONCURRENCY',
        ]);
        assert.match(err.message, /^Invalid configuration:\n {2}- /);
        assert.match(err.message, /PORT: .*\(got "eighty"\)/);
        return true;
      },
    );
  });

  it('when NODE_ENV is production without OPERATOR_TOKEN, then start-up fails naming it', () => {
    const jwt = { JWT_SECRET: 's'.repeat(32) };
    assert.throws(
      () => loadEnv({ NODE_ENV: 'production', ...jwt }),
      /OPERATOR_TOKEN: required when NODE_ENV=production/,
    );
    assert.throws(
      () => loadEnv({ NODE_ENV: 'production', OPERATOR_TOKEN: 'x'.repeat(32) }),
      /JWT_SECRET or JWT_PUBLIC_KEY: one is required/,
    );
    const secrets = { SECRETS_MASTER_KEY: 'a'.repeat(64) };
    assert.equal(
      loadEnv({ NODE_ENV: 'production', OPERATOR_TOKEN: 'x'.repeat(32), ...jwt, ...secrets }).OPERATOR_TOKEN,
      'x'.repeat(32),
    );
  });

  it('when NODE_ENV is production and TRUST_PROXY is true, then start-up fails: every client could pick its own address', () => {
    const prod = {
      NODE_ENV: 'production',
      OPERATOR_TOKEN: 'x'.repeat(32),
      JWT_SECRET: 's'.repeat(32),
      SECRETS_MASTER_KEY: 'a'.repeat(64),
    };
    assert.throws(() => loadEnv({ ...prod, TRUST_PROXY: 'true' }), /TRUST_PROXY: `true` trusts every/);
    assert.equal(loadEnv({ ...prod, TRUST_PROXY: '1' }).TRUST_PROXY, '1');
    assert.equal(loadEnv({ TRUST_PROXY: 'true' }).TRUST_PROXY, 'true');
  });

  it('when a variable is set to the empty string, then it counts as unset', () => {
    assert.equal(loadEnv({ REDIS_URL: '', PORT: '' }).PORT, 8080);
  });

  it('when lists are given, then they are split and trimmed', () => {
    assert.deepEqual(loadEnv({ WORKER_QUEUES: 'system, trades ,' }).WORKER_QUEUES, ['system', 'trades']);
  });

  it('every variable has a description', () => {
    for (const [name, schema] of Object.entries(EnvSchema.shape))
      assert.ok(schema.description, `${name} has no .describe()`);
  });

  it("the README's configuration table matches the schema (run `npm run docs:config` after changing it)", () => {
    const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
    assert.equal(readme, withEnvTable(readme));
  });
});
