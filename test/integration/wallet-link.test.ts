import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { Wallet, verifyMessage, type HDNodeWallet } from 'ethers';
import request from 'supertest';
import { buildApp } from '../../api/app.js';
import { depositWalletAddress } from '../../shared/domains/venues/polymarket/onchain/deposit-wallet/deposit-wallet-address.js';
import { polyProxyAddress, polySafeAddress } from '../../shared/domains/wallets/funder-address.js';
import { managedSigner, walletOf } from '../../shared/domains/wallets/managed-wallet.js';
import { testContext } from '../support/context.js';
import { api, registerAgent, type RegisteredAgent } from '../support/http.js';
import { asUser, claim, tokenFor } from '../support/users.js';

type Auth = Record<string, string>;
type Signer = Wallet | HDNodeWallet;

const asAgent = (a: RegisteredAgent): Auth => ({ Authorization: `Bearer ${a.api_key}` });
const newSigner = () => Wallet.createRandom();

/** A human who has never claimed an agent: no wallet of any kind yet. */
function freshUser() {
  const sub = `u-${randomUUID()}`;
  const token = tokenFor(sub);
  return { sub, token, auth: asUser(token) };
}

/** A human with a claimed agent (the claim gives them a managed wallet). */
async function claimedAgent() {
  const { sub, token, auth } = freshUser();
  const agent = await registerAgent({ name: 'wallet-owner' });
  assert.equal((await claim(token, agent.claim_code)).status, 200);
  return { sub, token, auth, agent };
}

const challenge = (auth: Auth, address: string, app = testContext().app) =>
  request(app).get('/api/sdk/wallet/link/challenge').query({ address }).set(auth);

const postLink = (auth: Auth, body: Record<string, unknown>, app = testContext().app) =>
  request(app).post('/api/sdk/wallet/link').set(auth).send(body);

/** Challenge, sign, link: the client's link_wallet flow (client-contract §8.1). */
async function link(auth: Auth, signer: Signer, extra: Record<string, unknown> = {}) {
  const c = await challenge(auth, signer.address);
  assert.equal(c.status, 200, JSON.stringify(c.body));
  const signature = await signer.signMessage(c.body.message);
  return postLink(auth, {
    address: signer.address,
    signature,
    nonce: c.body.nonce,
    signature_type: 0,
    ...extra,
  });
}

const settings = (auth: Auth) => api().get('/api/sdk/settings').set(auth);

function assertRefusal(res: request.Response, status: number, code: string) {
  assert.equal(res.status, status, JSON.stringify(res.body));
  assert.equal(res.body.error_code, code, JSON.stringify(res.body));
  assert.equal(typeof res.body.detail, 'string');
  assert.equal(res.body.error, res.body.detail);
  assert.ok(res.body.fix?.length > 10, 'a fix');
}

describe('wallet link #integration', () => {
  describe('challenge', () => {
    it('when a challenge is requested, then it is a SIWE-style message for the address with a nonce valid 5 minutes', async () => {
      const { auth } = freshUser();
      const signer = newSigner();
      const res = await challenge(auth, signer.address.toLowerCase());
      assert.equal(res.status, 200);
      assert.equal(res.body.address, signer.address, 'checksummed');
      assert.match(res.body.nonce, /^[0-9a-f]{32}$/);
      assert.equal(Date.parse(res.body.expires_at) - Date.parse(res.body.issued_at), 300_000);
      assert.match(res.body.message, /^localhost:8080 wants you to sign in with your Ethereum account:\n0x/);
      assert.ok(res.body.message.includes(`\n${signer.address}\n`));
      assert.ok(res.body.message.includes(`Nonce: ${res.body.nonce}`));
      assert.ok(res.body.message.includes('Chain ID: 137'));
      assert.ok(res.body.message.includes(`Expiration Time: ${res.body.expires_at}`));
    });

    it('when the address is malformed or its checksum is wrong, then 422 names the field', async () => {
      const { auth } = freshUser();
      const bad = await challenge(auth, '0x1234');
      assert.equal(bad.status, 422);
      assert.deepEqual(bad.body.detail[0].loc, ['query', 'address']);
      // Flipping the case of one letter of a checksummed address breaks its EIP-55 checksum.
      const address = newSigner().address;
      const at = address.slice(2).search(/[a-fA-F]/) + 2;
      const flipped =
        address[at] === address[at]!.toUpperCase() ? address[at]!.toLowerCase() : address[at]!.toUpperCase();
      const res = await challenge(auth, address.slice(0, at) + flipped + address.slice(at + 1));
      assert.equal(res.status, 422);
      assert.match(res.body.detail[0].msg, /checksum/);
    });

    it('when a sixth challenge is asked within the hour, then 429 with Retry-After, shared by the account’s agent keys and token', async () => {
      const { auth, agent } = await claimedAgent();
      const signer = newSigner();
      for (let i = 0; i < 3; i++) assert.equal((await challenge(auth, signer.address)).status, 200);
      for (let i = 0; i < 2; i++) assert.equal((await challenge(asAgent(agent), signer.address)).status, 200);
      const res = await challenge(auth, signer.address);
      assertRefusal(res, 429, 'rate_limited');
      assert.match(res.body.error, /5 wallet link challenges per hour per account/);
      assert.ok(Number(res.headers['retry-after']) > 3000);
      // Another account is not affected.
      assert.equal((await challenge(freshUser().auth, signer.address)).status, 200);
    });
  });

  describe('link', () => {
    for (const signatureType of [0, 1, 2, 3] as const) {
      it(`when a wallet is linked with signature_type ${signatureType}, then it is the account’s external wallet everywhere`, async () => {
        const { sub, auth } = freshUser();
        const signer = newSigner();
        const depositWallet = signatureType === 3 ? depositWalletAddress(signer.address) : undefined;
        const c = await challenge(auth, signer.address);
        let signature = await signer.signMessage(c.body.message);
        // The Python client's HexBytes.hex() may drop the prefix (client-contract §10.22).
        if (signatureType % 2 === 1) signature = signature.slice(2);
        const res = await postLink(auth, {
          address: signer.address.toLowerCase(),
          signature,
          nonce: c.body.nonce,
          signature_type: signatureType,
          confirm_replace_managed: false,
          confirm_orphan_deposit_wallet: false,
          source: 'sdk-link',
          ...(depositWallet ? { deposit_wallet_address: depositWallet } : {}),
        });
        assert.equal(res.status, 200, JSON.stringify(res.body));
        assert.equal(res.body.success, true);
        assert.equal(res.body.wallet_address, signer.address);
        assert.equal(res.body.linked_wallet_address, signer.address);
        assert.equal(res.body.wallet_ownership, 'external');
        assert.equal(res.body.signature_type, signatureType);
        assert.equal(res.body.wallet_uses_deposit_wallet, signatureType === 3);
        assert.equal(res.body.deposit_wallet_address, depositWallet ?? null);
        assert.equal(res.body.has_credentials, false);
        assert.match(res.body.message, /linked/);

        const s = (await settings(auth)).body;
        assert.equal(s.linked_wallet_address, signer.address);
        assert.equal(s.wallet_address, signer.address);
        assert.equal(s.wallet_ownership, 'external');
        assert.equal(s.wallet_uses_deposit_wallet, signatureType === 3);
        assert.equal(s.deposit_wallet_address, depositWallet ?? null);

        const maker = [
          signer.address,
          polyProxyAddress(signer.address),
          polySafeAddress(signer.address),
          depositWallet,
        ][signatureType];
        assert.deepEqual(await walletOf(testContext().deps, { kind: 'user', id: sub }), {
          address: signer.address,
          ownership: 'external',
          signatureType,
          depositWallet: depositWallet ?? null,
          maker,
        });
      });
    }

    it('when signature_type 3 comes without a deposit wallet, or another type with one, then 422', async () => {
      const { auth } = freshUser();
      const signer = newSigner();
      const without = await link(auth, signer, { signature_type: 3 });
      assert.equal(without.status, 422);
      assert.deepEqual(without.body.detail[0].loc, ['body', 'deposit_wallet_address']);
      assert.ok(without.body.fix.includes(depositWalletAddress(signer.address)), without.body.fix);
      const extra = await link(auth, signer, {
        signature_type: 0,
        deposit_wallet_address: newSigner().address,
      });
      assert.equal(extra.status, 422);
    });

    it('when signature_type 3 names an address that is not the EOA’s derived deposit wallet, then 422 naming the right one, and nothing is linked', async () => {
      const { sub, auth } = freshUser();
      const signer = newSigner();
      const derived = depositWalletAddress(signer.address);
      // Two wrong addresses and the right one: an account has 3 link attempts a day.
      for (const wrong of [depositWalletAddress(newSigner().address), signer.address]) {
        const res = await link(auth, signer, { signature_type: 3, deposit_wallet_address: wrong });
        assert.equal(res.status, 422, JSON.stringify(res.body));
        assert.deepEqual(res.body.detail[0].loc, ['body', 'deposit_wallet_address']);
        assert.ok(res.body.fix.includes(derived), res.body.fix);
      }
      assert.equal(await walletOf(testContext().deps, { kind: 'user', id: sub }), null);
      const right = await link(auth, signer, {
        signature_type: 3,
        deposit_wallet_address: derived.toLowerCase(),
      });
      assert.equal(right.status, 200, JSON.stringify(right.body));
      assert.equal(right.body.deposit_wallet_address, derived);
    });

    it('when a claimed agent links with its key, then its human and their other agents see the wallet', async () => {
      const { token, auth, agent } = await claimedAgent();
      const second = await registerAgent({ name: 'second' });
      assert.equal((await claim(token, second.claim_code)).status, 200);
      const signer = newSigner();
      const res = await link(asAgent(agent), signer, { confirm_replace_managed: true });
      assert.equal(res.status, 200, JSON.stringify(res.body));
      for (const who of [auth, asAgent(agent), asAgent(second)])
        assert.equal((await settings(who)).body.linked_wallet_address, signer.address);
      const me = await api().get('/api/sdk/agents/me').set(asAgent(second));
      assert.equal(me.body.wallet_address, signer.address);
      assert.equal(me.body.linked_wallet_address, signer.address);
      assert.equal(me.body.wallet_ownership, 'external');
      assert.equal(me.body.wallet_uses_deposit_wallet, false);
      assert.equal(me.body.deposit_wallet_address, null);
    });

    it('when an unclaimed agent asks to link, then 403 with claim_url, and it reads no wallet', async () => {
      const agent = await registerAgent({ name: 'unclaimed' });
      const signer = newSigner();
      const c = await challenge(asAgent(agent), signer.address);
      assertRefusal(c, 403, 'agent_not_claimed');
      assert.equal(c.body.claim_url, agent.claim_url);
      const res = await postLink(asAgent(agent), {
        address: signer.address,
        signature: await signer.signMessage('anything'),
        nonce: 'a'.repeat(32),
      });
      assertRefusal(res, 403, 'agent_not_claimed');
      for (const path of ['/api/sdk/wallet/unlink', '/api/sdk/wallet/managed'])
        assertRefusal(await api().post(path).set(asAgent(agent)), 403, 'agent_not_claimed');
      const s = (await settings(asAgent(agent))).body;
      assert.equal(s.wallet_address, null);
      assert.equal(s.linked_wallet_address, null);
      assert.equal(s.wallet_ownership, null);
      const check = await api().get('/api/sdk/wallet/credentials/check').set(asAgent(agent));
      assert.deepEqual(check.body, { has_credentials: false, wallet_address: null });
    });

    it('when the challenge is answered after its 5 minutes, then it is refused as expired', async () => {
      const ctx = testContext();
      const { auth } = freshUser();
      const signer = newSigner();
      const c = await challenge(auth, signer.address);
      const later = buildApp(
        { ...ctx.deps, clock: () => new Date(Date.now() + 301_000) },
        { operatorToken: ctx.operatorToken },
      );
      const res = await postLink(
        auth,
        { address: signer.address, signature: await signer.signMessage(c.body.message), nonce: c.body.nonce },
        later,
      );
      assertRefusal(res, 400, 'challenge_expired');
      assert.match(res.body.fix, /wallet\/link\/challenge/);
      assert.equal((await settings(auth)).body.linked_wallet_address, null);
    });

    it('when a nonce is replayed, then the second link is refused', async () => {
      const { auth } = freshUser();
      const signer = newSigner();
      const c = await challenge(auth, signer.address);
      const body = {
        address: signer.address,
        signature: await signer.signMessage(c.body.message),
        nonce: c.body.nonce,
      };
      assert.equal((await postLink(auth, body)).status, 200);
      assertRefusal(await postLink(auth, body), 400, 'challenge_used');
    });

    it('when the nonce is unknown or was issued to another account, then it is refused', async () => {
      const signer = newSigner();
      const other = freshUser();
      const c = await challenge(other.auth, signer.address);
      const { auth } = freshUser();
      const stolen = {
        address: signer.address,
        signature: await signer.signMessage(c.body.message),
        nonce: c.body.nonce,
      };
      assertRefusal(await postLink(auth, stolen), 400, 'challenge_not_found');
      assertRefusal(await postLink(auth, { ...stolen, nonce: 'f'.repeat(32) }), 400, 'challenge_not_found');
    });

    it('when the signature is another key’s, or the challenge was for another address, then it is refused and nothing is linked', async () => {
      const { auth } = freshUser();
      const signer = newSigner();
      const impostor = newSigner();
      const c1 = await challenge(auth, signer.address);
      const wrongKey = await postLink(auth, {
        address: signer.address,
        signature: await impostor.signMessage(c1.body.message),
        nonce: c1.body.nonce,
      });
      assertRefusal(wrongKey, 400, 'signature_mismatch');
      assert.ok(wrongKey.body.error.includes(impostor.address));

      const c2 = await challenge(auth, impostor.address);
      const wrongAddress = await postLink(auth, {
        address: signer.address,
        signature: await impostor.signMessage(c2.body.message),
        nonce: c2.body.nonce,
      });
      assertRefusal(wrongAddress, 400, 'address_mismatch');
      assert.equal((await settings(auth)).body.linked_wallet_address, null);
    });

    it('when the signature is not a signature, then 422 or invalid_signature', async () => {
      const { auth } = freshUser();
      const signer = newSigner();
      const c = await challenge(auth, signer.address);
      const malformed = await postLink(auth, {
        address: signer.address,
        signature: '0x1234',
        nonce: c.body.nonce,
      });
      assert.equal(malformed.status, 422);
      assert.deepEqual(malformed.body.detail[0].loc, ['body', 'signature']);
      const garbage = await postLink(auth, {
        address: signer.address,
        signature: `0x${'00'.repeat(65)}`,
        nonce: c.body.nonce,
      });
      assertRefusal(garbage, 400, 'invalid_signature');
    });

    it('when a fourth link is attempted in a day, then 429, whatever became of the first three', async () => {
      const { auth } = freshUser();
      const signer = newSigner();
      assert.equal((await link(auth, signer)).status, 200);
      assertRefusal(
        await postLink(auth, {
          address: signer.address,
          signature: `0x${'11'.repeat(65)}`,
          nonce: 'b'.repeat(32),
        }),
        400,
        'challenge_not_found',
      );
      assert.equal((await link(auth, newSigner())).status, 200);
      const fourth = await link(auth, newSigner());
      assertRefusal(fourth, 429, 'rate_limited');
      assert.match(fourth.body.error, /3 wallet link attempts per day per account/);
      assert.ok(Number(fourth.headers['retry-after']) > 3600);
    });

    it('when the wallet is already another account’s, then 409', async () => {
      const signer = newSigner();
      assert.equal((await link(freshUser().auth, signer)).status, 200);
      assertRefusal(await link(freshUser().auth, signer), 409, 'wallet_linked_elsewhere');
    });

    it('when the deposit wallet named is another account’s wallet or deposit wallet, then it is refused and nothing is linked', async () => {
      const victim = await claimedAgent();
      const managed = (await settings(victim.auth)).body.wallet_address as string;
      assert.ok(managed);
      const other = freshUser();
      const theirSigner = newSigner();
      const theirDeposit = depositWalletAddress(theirSigner.address);
      const linked = await link(other.auth, theirSigner, {
        signature_type: 3,
        deposit_wallet_address: theirDeposit,
      });
      assert.equal(linked.status, 200, JSON.stringify(linked.body));
      // Neither is the attacker's derived deposit wallet: refused before anything else is looked at.
      for (const taken of [managed, theirDeposit.toLowerCase()]) {
        const attacker = freshUser();
        const res = await link(attacker.auth, newSigner(), {
          signature_type: 3,
          deposit_wallet_address: taken,
        });
        assert.equal(res.status, 422, JSON.stringify(res.body));
        assert.deepEqual(res.body.detail[0].loc, ['body', 'deposit_wallet_address']);
        assert.equal(await walletOf(testContext().deps, { kind: 'user', id: attacker.sub }), null);
      }
      // The owner's own EOA, linked from another account: the EOA is that account's.
      const attacker = freshUser();
      const res = await link(attacker.auth, theirSigner, {
        signature_type: 3,
        deposit_wallet_address: theirDeposit,
      });
      assertRefusal(res, 409, 'wallet_linked_elsewhere');
      assert.equal(await walletOf(testContext().deps, { kind: 'user', id: attacker.sub }), null);
    });
  });

  describe('confirm flags (spec §2.5)', () => {
    it('when an external wallet would replace the managed one, then confirm_replace_managed is required; unlinking switches back', async () => {
      const { sub, auth, agent } = await claimedAgent();
      const before = (await settings(auth)).body;
      assert.equal(before.wallet_ownership, 'native', 'the claim gave the human a managed wallet');
      assert.match(before.wallet_address, /^0x[0-9a-fA-F]{40}$/);
      assert.equal(before.linked_wallet_address, null);
      const managedAddress = before.wallet_address as string;

      const signer = newSigner();
      const c = await challenge(auth, signer.address);
      const body = {
        address: signer.address,
        signature: await signer.signMessage(c.body.message),
        nonce: c.body.nonce,
      };
      const refused = await postLink(auth, body);
      assertRefusal(refused, 409, 'confirm_replace_managed_required');
      assert.ok(refused.body.error.includes(managedAddress));
      assert.match(refused.body.fix, /"confirm_replace_managed": true/);
      assert.equal((await settings(auth)).body.wallet_address, managedAddress, 'nothing changed');

      // The refusal spent no nonce: the same signed challenge goes through with the flag.
      const linked = await postLink(auth, { ...body, confirm_replace_managed: true });
      assert.equal(linked.status, 200, JSON.stringify(linked.body));
      const me = (await api().get('/api/sdk/agents/me').set(asAgent(agent))).body;
      assert.equal(me.wallet_address, signer.address);
      assert.equal(me.wallet_ownership, 'external');

      const unlinked = await api().post('/api/sdk/wallet/unlink').set(asAgent(agent));
      assert.equal(unlinked.status, 200);
      assert.equal(unlinked.body.unlinked, true);
      assert.equal(unlinked.body.wallet_address, managedAddress);
      assert.equal(unlinked.body.wallet_ownership, 'native');
      assert.equal(unlinked.body.linked_wallet_address, null);
      const again = await api().post('/api/sdk/wallet/unlink').set(auth);
      assert.equal(again.body.unlinked, false, 'idempotent');
      assert.equal((await managedSigner(testContext().deps, sub))?.address, managedAddress);
    });

    it('when a deposit wallet is active and a different address is linked, then confirm_orphan_deposit_wallet is required', async () => {
      const { sub, auth } = freshUser();
      const first = newSigner();
      const depositWallet = depositWalletAddress(first.address);
      assert.equal(
        (await link(auth, first, { signature_type: 3, deposit_wallet_address: depositWallet })).status,
        200,
      );

      const second = newSigner();
      const c = await challenge(auth, second.address);
      const body = {
        address: second.address,
        signature: await second.signMessage(c.body.message),
        nonce: c.body.nonce,
      };
      const refused = await postLink(auth, body);
      assertRefusal(refused, 409, 'confirm_orphan_deposit_wallet_required');
      assert.equal(refused.body.deposit_wallet_address, depositWallet);
      assert.ok(refused.body.error.includes(depositWallet));
      assert.equal((await settings(auth)).body.deposit_wallet_address, depositWallet, 'nothing changed');

      const linked = await postLink(auth, { ...body, confirm_orphan_deposit_wallet: true });
      assert.equal(linked.status, 200, JSON.stringify(linked.body));
      assert.match(linked.body.message, new RegExp(`Deposit wallet ${depositWallet} is no longer used`));
      const s = (await settings(auth)).body;
      assert.equal(s.wallet_address, second.address);
      assert.equal(s.wallet_uses_deposit_wallet, false);
      assert.equal(s.deposit_wallet_address, null);
      assert.equal((await walletOf(testContext().deps, { kind: 'user', id: sub }))?.depositWallet, null);
    });
  });

  it('when funder wallets are derived from Hardhat key #0’s EOA, then they match the reference vectors (polymarket.md §9.2)', () => {
    const eoa = '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266';
    assert.equal(polyProxyAddress(eoa), '0x365f0CA36Ae1f641E02fE3B7743673da42A13A70');
    assert.equal(polySafeAddress(eoa), '0xd93B25cb943D14d0d34FBaF01Fc93a0f8b5F6E47');
  });

  describe('managed wallet', () => {
    it('when a human claims an agent without a wallet, then a managed wallet is created whose key opens only in memory', async () => {
      const { sub, auth } = await claimedAgent();
      const s = (await settings(auth)).body;
      const signer = await managedSigner(testContext().deps, sub);
      assert.ok(signer);
      assert.equal(signer.address, s.wallet_address);
      assert.equal(verifyMessage('hello', await signer.signMessage('hello')), signer.address);
      const stored = JSON.stringify(await testContext().deps.models.Wallet.findById(sub).lean());
      assert.ok(!stored.includes(signer.privateKey.slice(2)));
      assert.deepEqual(await walletOf(testContext().deps, { kind: 'user', id: sub }), {
        address: signer.address,
        ownership: 'managed',
        signatureType: 0,
        depositWallet: null,
        maker: signer.address,
      });
    });

    it('when a managed wallet is requested twice, then one key is created and reused; an external wallet stays in use', async () => {
      const { sub, auth } = freshUser();
      const external = newSigner();
      assert.equal((await link(auth, external)).status, 200);
      const [a, b] = await Promise.all([
        api().post('/api/sdk/wallet/managed').set(auth),
        api().post('/api/sdk/wallet/managed').set(auth),
      ]);
      assert.equal(a.status, 200, JSON.stringify(a.body));
      assert.equal(b.status, 200, JSON.stringify(b.body));
      assert.equal(a.body.managed_wallet_address, b.body.managed_wallet_address);
      assert.deepEqual([a.body.created, b.body.created].sort(), [false, true]);
      assert.equal(a.body.wallet_address, external.address);
      assert.equal(a.body.wallet_ownership, 'external');
      assert.equal((await managedSigner(testContext().deps, sub))?.address, a.body.managed_wallet_address);
      const unlinked = await api().post('/api/sdk/wallet/unlink').set(auth);
      assert.equal(unlinked.body.wallet_address, a.body.managed_wallet_address);
    });

    it('when a user has no managed wallet, then managedSigner and walletOf answer null', async () => {
      const { sub } = freshUser();
      assert.equal(await managedSigner(testContext().deps, sub), null);
      assert.equal(await walletOf(testContext().deps, { kind: 'user', id: sub }), null);
      assert.equal(await walletOf(testContext().deps, { kind: 'agent', id: sub }), null);
    });
  });
});
