import assert from 'node:assert/strict';
import { loadEnv } from '../../shared/infra/config/env.js';
import { compareVersions, versionCheck } from '../../shared/domains/system/version-check.js';

describe('SDK version check #unit', () => {
  it('compares dotted versions part by part', () => {
    assert.equal(compareVersions('0.24.10', '0.24.9'), 1);
    assert.equal(compareVersions('0.24', '0.24.0'), 0);
    assert.equal(compareVersions('1.0.0', '0.99.99'), 1);
    assert.equal(compareVersions('0.9.1', '0.10.0'), -1);
  });

  it('below the minimum is blocked, below the latest deprecated, else ok; unreadable versions are ok', () => {
    const env = loadEnv({ NODE_ENV: 'test', SDK_MINIMUM_VERSION: '0.20.0', SDK_LATEST_VERSION: '0.25.0' });
    assert.equal(versionCheck(env, '0.19.9').status, 'blocked');
    assert.match(versionCheck(env, '0.19.9').message, /upgrade to 0\.25\.0/);
    assert.equal(versionCheck(env, '0.24.5').status, 'deprecated');
    assert.equal(versionCheck(env, '0.25.0').status, 'ok');
    assert.equal(versionCheck(env, 'v0.26.1').status, 'ok');
    assert.equal(versionCheck(env, 'banana').status, 'ok');
    assert.equal(versionCheck(env, '0.19.0rc1').status, 'blocked', 'a pre-release compares by its x.y.z');
    assert.equal(versionCheck(env, '0.24.5.post1').status, 'deprecated');
    assert.equal(versionCheck(env, undefined).status, 'ok');
    assert.equal(versionCheck(loadEnv({ NODE_ENV: 'test' }), '0.0.1').status, 'ok');
    assert.throws(() => loadEnv({ NODE_ENV: 'test', SDK_MINIMUM_VERSION: 'latest' }));
  });
});
