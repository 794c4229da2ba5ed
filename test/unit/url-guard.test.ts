import assert from 'node:assert/strict';
import type { LookupAddress } from 'node:dns';
import type { NetworkInterfaceInfo } from 'node:os';
import {
  assertPublicAddress,
  assertPublicHost,
  pinnedLookup,
  UnsafeWebhookUrl,
  type UrlGuard,
} from '../../shared/domains/webhooks/url-guard.js';
import { hostGateways, ipv4Gateways, ipv6Gateways } from '../../shared/domains/webhooks/host-gateways.js';

/** A host whose only non-loopback interface is 81.2.69.162/28 (gateway 81.2.69.161) and 2a02:c7f:1::5/64. */
const interfaces = (): NodeJS.Dict<NetworkInterfaceInfo[]> => ({
  lo: [
    {
      address: '127.0.0.1',
      netmask: '255.0.0.0',
      family: 'IPv4',
      mac: '',
      internal: true,
      cidr: '127.0.0.1/8',
    },
  ],
  eth0: [
    {
      address: '81.2.69.162',
      netmask: '255.255.255.240',
      family: 'IPv4',
      mac: '02:00:00:00:00:01',
      internal: false,
      cidr: '81.2.69.162/28',
    },
    {
      address: '2a02:c7f:1::5',
      netmask: 'ffff:ffff:ffff:ffff::',
      family: 'IPv6',
      mac: '02:00:00:00:00:01',
      internal: false,
      cidr: '2a02:c7f:1::5/64',
      scopeid: 0,
    },
  ],
});
const guard = (over: Partial<UrlGuard> = {}): UrlGuard => ({
  allowLoopback: false,
  httpsOnly: false,
  interfaces,
  ...over,
});
const refused = (address: string, g = guard()) =>
  assert.throws(() => assertPublicAddress(address, g), UnsafeWebhookUrl, `${address} must be refused`);
const allowed = (address: string, g = guard()) =>
  assert.doesNotThrow(() => assertPublicAddress(address, g), `${address} must be allowed`);

/** A resolver answering `answers` in turn (the last one from then on), as DNS re-pointed between calls. */
const resolverOf = (...answers: string[][]) => {
  let calls = 0;
  return async (): Promise<LookupAddress[]> => {
    const addresses = answers[Math.min(calls++, answers.length - 1)]!;
    return addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
  };
};
const lookupOnce = (g: UrlGuard, host: string, options: { all?: boolean; family?: number } = {}) =>
  new Promise<{ err: Error | null; address: unknown }>((resolve) =>
    pinnedLookup(g)(host, options, (err, address) => resolve({ err, address })),
  );

describe('webhook URL guard #unit', () => {
  it('when an IPv6 address carries a loopback, private or metadata IPv4 (compatible, mapped, translated, NAT64, 6to4), then it is refused', () => {
    for (const address of [
      '::7f00:1', // [::127.0.0.1] as the URL parser stores it
      '::a00:1',
      '::ffff:7f00:1',
      '::ffff:0:7f00:1', // [::ffff:0:127.0.0.1], IPv4-translated
      '::ffff:0:a9fe:a9fe',
      '64:ff9b::7f00:1',
      '64:ff9b::a00:1',
      '64:ff9b:1::7f00:1', // local-use NAT64
      '2002:7f00:1::', // 6to4 of 127.0.0.1
      '2002:a9fe:a9fe::1',
      '2002:c0a8:101::1',
      '2001:0:4136:e378:8000:63bf:3fff:fdd2', // Teredo
    ])
      refused(address);
  });

  it('when loopback is allowed (tests), then only real loopback passes, not a loopback IPv4 carried by a NAT64 or 6to4 address', () => {
    const g = guard({ allowLoopback: true });
    for (const address of ['127.0.0.1', '::1', '::ffff:127.0.0.1']) allowed(address, g);
    for (const address of ['::7f00:1', '64:ff9b::7f00:1', '2002:7f00:1::', '::ffff:0:7f00:1'])
      refused(address, g);
  });

  it('when an address is in a documentation range, then it is refused', () => {
    for (const address of ['192.0.2.1', '198.51.100.7', '203.0.113.9', '2001:db8::1', '64:ff9b::c000:201'])
      refused(address);
  });

  it("when an address is the host's own or on one of the host's networks (its gateway), then it is refused", () => {
    for (const address of ['81.2.69.162', '81.2.69.161', '81.2.69.175', '2a02:c7f:1::5', '2a02:c7f:1::1'])
      refused(address);
    allowed('81.2.69.176');
    allowed('2a02:c7f:2::1');
  });

  it("when the host's gateway lies outside its own networks (a /32 address, as on some clouds), then the gateway is refused too", () => {
    const g = guard({ gateways: () => ['81.2.70.1', '2a02:c7f:2::1'] });
    refused('81.2.70.1', g);
    refused('2a02:c7f:2::1', g);
    allowed('81.2.70.2', g);
  });

  it("when the kernel's routing tables are read, then every gateway is found and routes without one are not", () => {
    const route = [
      'Iface\tDestination\tGateway \tFlags\tRefCnt\tUse\tMetric\tMask\t\tMTU\tWindow\tIRTT',
      'eth0\t00000000\t010200C0\t0003\t0\t0\t0\t00000000\t0\t0\t0',
      'eth0\t000200C0\t00000000\t0001\t0\t0\t0\t00FFFFFF\t0\t0\t0',
    ].join('\n');
    assert.deepEqual(ipv4Gateways(route), ['192.0.2.1']);
    const route6 = [
      '00000000000000000000000000000000 00 00000000000000000000000000000000 00 2a020c7f000200000000000000000001 00000400 00000001 00000000 00000003 eth0',
      'fe800000000000000000000000000000 40 00000000000000000000000000000000 00 00000000000000000000000000000000 00000100 00000001 00000000 00000001 eth0',
    ].join('\n');
    assert.deepEqual(ipv6Gateways(route6), ['2a02:0c7f:0002:0000:0000:0000:0000:0001']);
    refused(
      ipv6Gateways(route6)[0]!.replace(/:0000/g, ':0'),
      guard({ gateways: () => ipv6Gateways(route6) }),
    );
    assert.deepEqual(
      hostGateways((file) => (file.endsWith('ipv6_route') ? route6 : route)),
      ['192.0.2.1', '2a02:0c7f:0002:0000:0000:0000:0000:0001'],
    );
    assert.deepEqual(
      hostGateways(() => {
        throw new Error('ENOENT');
      }),
      [],
    );
  });

  it('when an IPv6 form carries a public IPv4, then it is judged as that IPv4 and allowed', () => {
    for (const address of [
      '8.8.8.8',
      '::ffff:8.8.8.8',
      '64:ff9b::808:808',
      '2002:808:808::1',
      '2606:4700::1111',
    ])
      allowed(address);
  });

  it('when a name resolves to public and internal addresses (A and AAAA), then the name is refused without naming the internal address', async () => {
    for (const internal of ['10.0.0.1', 'fd00::1', '::ffff:0:7f00:1', '192.0.2.1']) {
      const g = guard({ resolve: resolverOf(['8.8.8.8', '2606:4700::1111', internal]) });
      await assert.rejects(assertPublicHost('hooks.example.com', g), (err: Error) => {
        assert.ok(err instanceof UnsafeWebhookUrl, String(err));
        assert.ok(!err.message.includes(internal), `the refusal names ${internal}: ${err.message}`);
        return true;
      });
    }
    await assertPublicHost(
      'hooks.example.com',
      guard({ resolve: resolverOf(['8.8.8.8', '2606:4700::1111']) }),
    );
  });

  it('when a name that was public at the check resolves to loopback at connect time, then the connection is refused (DNS rebinding)', async () => {
    const g = guard({ resolve: resolverOf(['8.8.8.8'], ['127.0.0.1']) });
    await assertPublicHost('rebind.example.com', g);
    const { err } = await lookupOnce(g, 'rebind.example.com');
    assert.ok(err instanceof UnsafeWebhookUrl, `connect-time lookup answered ${String(err)}`);
  });

  it('when the connect-time lookup asks for one family, then every address of both families is still checked, and it answers only checked addresses', async () => {
    const g = guard({ resolve: resolverOf(['8.8.8.8', 'fd00::1']) });
    assert.ok((await lookupOnce(g, 'mixed.example.com', { family: 4 })).err instanceof UnsafeWebhookUrl);
    const ok = guard({ resolve: resolverOf(['8.8.8.8', '2606:4700::1111']) });
    assert.deepEqual(await lookupOnce(ok, 'public.example.com', { family: 4 }), {
      err: null,
      address: '8.8.8.8',
    });
    assert.deepEqual(await lookupOnce(ok, 'public.example.com', { all: true, family: 6 }), {
      err: null,
      address: [{ address: '2606:4700::1111', family: 6 }],
    });
  });
});
