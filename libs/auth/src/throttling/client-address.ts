import { isIPv4, isIPv6 } from 'node:net';

/**
 * The key a client address is throttled under. IPv4 (also IPv4-mapped IPv6) counts per address;
 * IPv6 per /64, the smallest block a single client is usually given, so rotating through one's
 * own addresses does not reset the limit.
 */
export function clientAddressKey(address: string): string {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped) return mapped[1];
  if (isIPv4(address) || !isIPv6(address)) return address;
  const [head, tail = ''] = address.split('%')[0].split('::');
  const headParts = head ? head.split(':') : [];
  const tailParts = address.includes('::') && tail ? tail.split(':') : [];
  const groups = address.includes('::')
    ? [...headParts, ...Array<string>(8 - headParts.length - tailParts.length).fill('0'), ...tailParts]
    : headParts;
  return `${groups
    .slice(0, 4)
    .map((group) => Number.parseInt(group, 16).toString(16))
    .join(':')}::/64`;
}
