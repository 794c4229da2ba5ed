import net from 'node:net';

const LOOPBACK = /^(127\.\d+\.\d+\.\d+|::1|localhost|::ffff:127\.\d+\.\d+\.\d+)$/;

/** Outbound network other than loopback is an error in tests: a test must never reach a real venue. */
export function blockOutboundNetwork(): void {
  const original = net.Socket.prototype.connect;
  net.Socket.prototype.connect = function patched(this: net.Socket, ...args: unknown[]) {
    const first = args[0] as { host?: string; path?: string } | number | string;
    const host =
      typeof first === 'object' && first !== null
        ? first.host
        : typeof args[1] === 'string'
          ? args[1]
          : undefined;
    const isUnixSocket = typeof first === 'object' && first !== null && first.path !== undefined;
    if (!isUnixSocket && host && !LOOPBACK.test(host)) {
      throw new Error(`Outbound network in tests is not allowed (tried ${host}); use a loopback emulator.`);
    }
    return (original as (...a: unknown[]) => net.Socket).apply(this, args);
  } as typeof original;
}
