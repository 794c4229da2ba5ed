import { readFileSync } from 'node:fs';

/**
 * This host's gateways (next hops of its routes), read from the kernel's routing tables. Most sit
 * inside an interface's own network, which the guard refuses already; some do not (cloud hosts with
 * a /32 address and a gateway outside it), and a webhook must not reach those either.
 * Linux only: elsewhere the tables are not there and the answer is empty.
 */
export function hostGateways(
  read: (file: string) => string = (file) => readFileSync(file, 'utf8'),
): string[] {
  const table = (file: string) => {
    try {
      return read(file);
    } catch {
      return '';
    }
  };
  return [
    ...new Set([...ipv4Gateways(table('/proc/net/route')), ...ipv6Gateways(table('/proc/net/ipv6_route'))]),
  ];
}

/** `/proc/net/route`: a header, then `Iface Destination Gateway …`, the gateway as little-endian hex. */
export function ipv4Gateways(table: string): string[] {
  return table
    .split('\n')
    .slice(1)
    .map((line) => line.trim().split(/\s+/)[2] ?? '')
    .filter((hex) => /^[0-9A-Fa-f]{8}$/.test(hex) && Number.parseInt(hex, 16) !== 0)
    .map((hex) => [3, 2, 1, 0].map((i) => Number.parseInt(hex.slice(i * 2, i * 2 + 2), 16)).join('.'));
}

/** `/proc/net/ipv6_route`: `dest plen src plen nexthop …`, addresses as 32 hex digits, no header. */
export function ipv6Gateways(table: string): string[] {
  return table
    .split('\n')
    .map((line) => line.trim().split(/\s+/)[4] ?? '')
    .filter((hex) => /^[0-9a-fA-F]{32}$/.test(hex) && !/^0+$/.test(hex))
    .map((hex) => hex.match(/.{4}/g)!.join(':'));
}
