import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { inspect } from 'node:util';
import { loadEnv } from '../../shared/infra/config/env.js';
import { SecretBox, SecretsError, type SealedSecret } from '../../shared/infra/secrets/envelope.js';
import { MASTER_KEY_FILE, resolveMasterKey, secretBox } from '../../shared/infra/secrets/master-key.js';

const PLAINTEXT = 'passphrase-9f8e7d6c5b4a';
const flip = (b64: string, at = 0) => {
  const bytes = Buffer.from(b64, 'base64');
  bytes[at] = bytes[at]! ^ 0x01;
  return bytes.toString('base64');
};

describe('secrets at rest: envelope encryption #unit', () => {
  const key = randomBytes(32);
  const box = new SecretBox(key);

  it('when a secret is sealed and opened with the same context, then the plaintext comes back', () => {
    const sealed = box.seal(PLAINTEXT, 'ctx:a');
    assert.equal(box.openString(sealed, 'ctx:a'), PLAINTEXT);
    assert.equal(box.open(box.seal(Buffer.from([0, 1, 2, 255]), 'b'), 'b').toString('hex'), '000102ff');
  });

  it('when a secret is sealed, then the stored object is JSON with version, key id, sealed data key, iv, tag, ciphertext and no plaintext', () => {
    const sealed = box.seal(PLAINTEXT, 'ctx:a');
    assert.deepEqual(Object.keys(sealed).sort(), ['ct', 'dk', 'iv', 'kid', 'tag', 'v']);
    assert.equal(sealed.v, 1);
    assert.equal(sealed.kid, box.keyId);
    assert.match(sealed.kid, /^[0-9a-f]{16}$/);
    assert.equal(Buffer.from(sealed.dk, 'base64').length, 12 + 16 + 32);
    assert.equal(Buffer.from(sealed.iv, 'base64').length, 12);
    assert.equal(Buffer.from(sealed.tag, 'base64').length, 16);
    const json = JSON.stringify(sealed);
    assert.ok(!json.includes(PLAINTEXT));
    assert.ok(!json.includes(key.toString('hex')) && !json.includes(key.toString('base64')));
    assert.equal(box.openString(JSON.parse(json) as SealedSecret, 'ctx:a'), PLAINTEXT);
  });

  it('when the same secret is sealed twice, then data keys, ivs and ciphertexts all differ', () => {
    const a = box.seal(PLAINTEXT, 'ctx');
    const b = box.seal(PLAINTEXT, 'ctx');
    assert.notEqual(a.dk, b.dk);
    assert.notEqual(a.iv, b.iv);
    assert.notEqual(a.ct, b.ct);
  });

  it('when any part of a sealed value is altered, then opening it fails authentication', () => {
    const sealed = box.seal(PLAINTEXT, 'ctx');
    for (const part of ['dk', 'iv', 'tag', 'ct'] as const) {
      const altered = { ...sealed, [part]: flip(sealed[part]) };
      assert.throws(() => box.open(altered, 'ctx'), SecretsError, `altered ${part}`);
    }
    // The data key's own iv and tag, inside dk, are covered too.
    assert.throws(() => box.open({ ...sealed, dk: flip(sealed.dk, 13) }, 'ctx'), SecretsError);
  });

  it('when a sealed value is opened for another record (context), then it is refused', () => {
    const sealed = box.seal(PLAINTEXT, 'clob-credentials:user-1:0xabc');
    assert.throws(
      () => box.open(sealed, 'clob-credentials:user-2:0xabc'),
      /failed authentication \(altered, or opened for another record\)/,
    );
  });

  it('when another master key tries to open it, then the error names both key ids and never a key', () => {
    const sealed = box.seal(PLAINTEXT, 'ctx');
    const other = new SecretBox(randomBytes(32));
    assert.throws(
      () => other.open(sealed, 'ctx'),
      (err: Error) => {
        assert.ok(err instanceof SecretsError);
        assert.match(err.message, new RegExp(`key id ${box.keyId}, configured ${other.keyId}`));
        assert.ok(!err.message.includes(key.toString('hex')));
        return true;
      },
    );
    // Same key id forged onto another key's value: the GCM tag still refuses it.
    assert.throws(() => other.open({ ...sealed, kid: other.keyId }, 'ctx'), SecretsError);
  });

  it('when a box is logged, inspected or serialised, then its master key does not show', () => {
    const shown = [inspect(box, { showHidden: true, depth: 5 }), JSON.stringify(box), String(box)].join('\n');
    assert.ok(!shown.includes(key.toString('hex')));
    assert.ok(!shown.includes(key.toString('base64')));
    assert.deepEqual(JSON.parse(JSON.stringify(box)), { keyId: box.keyId });
  });

  it('when the master key is not 32 bytes, then the box refuses it', () => {
    assert.throws(() => new SecretBox(randomBytes(16)), /32 bytes/);
  });

  describe('master key source', () => {
    let dir: string;
    beforeEach(() => {
      dir = mkdtempSync(join(tmpdir(), 'secrets-test-'));
    });
    afterEach(() => rmSync(dir, { recursive: true, force: true }));

    it('when SECRETS_MASTER_KEY is unset, then a key is generated once into DATA_DIR (mode 600) and reused', () => {
      const first = resolveMasterKey({ DATA_DIR: dir, SECRETS_MASTER_KEY: undefined });
      assert.equal(first.generated, true);
      assert.equal(first.file, join(dir, MASTER_KEY_FILE));
      assert.equal(statSync(first.file).mode & 0o777, 0o600);
      assert.match(readFileSync(first.file, 'utf8'), /^[0-9a-f]{64}\n$/);
      const second = resolveMasterKey({ DATA_DIR: dir, SECRETS_MASTER_KEY: undefined });
      assert.equal(second.generated, false);
      assert.ok(second.key.equals(first.key));
      // A box from the generated key opens across "restarts" (a new box over the same file).
      const sealed = new SecretBox(first.key).seal(PLAINTEXT, 'c');
      assert.equal(new SecretBox(second.key).openString(sealed, 'c'), PLAINTEXT);
    });

    it('when SECRETS_MASTER_KEY is set, then it wins and nothing is written', () => {
      const hex = randomBytes(32).toString('hex');
      const source = resolveMasterKey({ DATA_DIR: dir, SECRETS_MASTER_KEY: hex });
      assert.equal(source.key.toString('hex'), hex);
      assert.equal(source.file, undefined);
      assert.equal(
        secretBox({ DATA_DIR: dir, SECRETS_MASTER_KEY: hex }).keyId,
        new SecretBox(source.key).keyId,
      );
    });

    it('when the key file is damaged, then resolving refuses instead of generating a new key', () => {
      writeFileSync(join(dir, MASTER_KEY_FILE), 'not a key\n');
      assert.throws(
        () => resolveMasterKey({ DATA_DIR: dir, SECRETS_MASTER_KEY: undefined }),
        /does not hold a master key/,
      );
    });
  });

  describe('configuration', () => {
    const required = { OPERATOR_TOKEN: 'x'.repeat(32), JWT_SECRET: 's'.repeat(32) };

    it('when NODE_ENV is production without SECRETS_MASTER_KEY, then start-up fails naming it', () => {
      assert.throws(
        () => loadEnv({ NODE_ENV: 'production', ...required }),
        /SECRETS_MASTER_KEY: required when NODE_ENV=production/,
      );
      const hex = randomBytes(32).toString('hex');
      assert.equal(
        loadEnv({ NODE_ENV: 'production', ...required, SECRETS_MASTER_KEY: hex }).SECRETS_MASTER_KEY,
        hex,
      );
    });

    it('when SECRETS_MASTER_KEY is malformed, then the error names it without echoing the value', () => {
      const bad = 'ab'.repeat(31);
      assert.throws(
        () => loadEnv({ SECRETS_MASTER_KEY: bad }),
        (err: Error) => {
          assert.match(err.message, /SECRETS_MASTER_KEY: must be 32 bytes as 64 hex characters/);
          assert.ok(!err.message.includes(bad));
          return true;
        },
      );
    });
  });
});
