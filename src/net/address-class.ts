import net from 'node:net';

/**
 * What an IP address reaches, for outbound requests the service makes on a user's behalf (link checks,
 * link downloads). Everything but `public` stays inside the host, its network or its cloud provider.
 */
export type AddressClass =
  | 'public'
  | 'metadata'
  | 'unspecified'
  | 'loopback'
  | 'private'
  | 'cgnat'
  | 'link-local'
  | 'unique-local'
  | 'multicast'
  | 'documentation'
  | 'reserved'
  | 'invalid';

/** Cloud instance metadata services (AWS, GCP, Azure, OpenStack; ECS tasks; Alibaba; AWS over IPv6). */
const METADATA = new Set(['169.254.169.254', '169.254.170.2', '100.100.100.200', 'fd00:ec2:0:0:0:0:0:254']);

type Range4 = [base: number, bits: number, cls: AddressClass];

const ipv4Ranges: Range4[] = [
  ['0.0.0.0', 8, 'unspecified'], // "this network": 0.0.0.0 reaches the local host on Linux
  ['10.0.0.0', 8, 'private'],
  ['100.64.0.0', 10, 'cgnat'],
  ['127.0.0.0', 8, 'loopback'],
  ['169.254.0.0', 16, 'link-local'],
  ['172.16.0.0', 12, 'private'],
  ['192.0.0.0', 24, 'reserved'],
  ['192.0.2.0', 24, 'documentation'],
  ['192.88.99.0', 24, 'reserved'],
  ['192.168.0.0', 16, 'private'],
  ['198.18.0.0', 15, 'reserved'],
  ['198.51.100.0', 24, 'documentation'],
  ['203.0.113.0', 24, 'documentation'],
  ['224.0.0.0', 4, 'multicast'],
  ['240.0.0.0', 4, 'reserved'], // includes the broadcast address
].map(([base, bits, cls]) => [parseIPv4(base as string)!, bits as number, cls as AddressClass]);

/** Dotted-quad IPv4 as an unsigned 32-bit number; undefined unless exactly four decimal octets. */
function parseIPv4(text: string): number | undefined {
  const parts = text.split('.');
  if (parts.length !== 4 || !parts.every((p) => /^\d{1,3}$/.test(p) && Number(p) <= 255)) return undefined;
  return parts.reduce((n, p) => n * 256 + Number(p), 0);
}

function inRange4(ip: number, base: number, bits: number) {
  if (bits === 0) return true;
  const shift = 32 - bits;
  return Math.floor(ip / 2 ** shift) === Math.floor(base / 2 ** shift);
}

function classifyIPv4(ip: number): AddressClass {
  const text = [24, 16, 8, 0].map((s) => Math.floor(ip / 2 ** s) % 256).join('.');
  if (METADATA.has(text)) return 'metadata';
  for (const [base, bits, cls] of ipv4Ranges) if (inRange4(ip, base, bits)) return cls;
  return 'public';
}

/** The eight 16-bit groups of an IPv6 address (zone and brackets dropped), or undefined if it is not one. */
function parseIPv6(text: string): number[] | undefined {
  let s = text.toLowerCase();
  if (s.startsWith('[') && s.endsWith(']')) s = s.slice(1, -1);
  const zone = s.indexOf('%');
  if (zone >= 0) s = s.slice(0, zone);
  if (!net.isIPv6(s)) return undefined;
  let tail: number[] = [];
  const lastColon = s.lastIndexOf(':');
  const last = s.slice(lastColon + 1);
  if (last.includes('.')) {
    const v4 = parseIPv4(last);
    if (v4 === undefined) return undefined;
    tail = [Math.floor(v4 / 65536), v4 % 65536];
    s = `${s.slice(0, lastColon + 1)}0:0`;
  }
  const groupsOf = (h: string) => (h === '' ? [] : h.split(':').map((g) => parseInt(g, 16)));
  const halves = s.split('::');
  let groups: number[];
  if (halves.length === 2) {
    const head = groupsOf(halves[0]);
    const rest = groupsOf(halves[1]);
    groups = [...head, ...new Array(8 - head.length - rest.length).fill(0), ...rest];
  } else {
    groups = groupsOf(s);
  }
  if (groups.length !== 8 || groups.some((g) => !(g >= 0 && g <= 0xffff))) return undefined;
  if (tail.length) groups.splice(6, 2, ...tail);
  return groups;
}

const embeddedIPv4 = (hi: number, lo: number) => hi * 65536 + lo;

function classifyIPv6(g: number[]): AddressClass {
  if (METADATA.has(g.map((x) => x.toString(16)).join(':'))) return 'metadata';
  const zerosBefore = (n: number) => g.slice(0, n).every((x) => x === 0);
  if (zerosBefore(8)) return 'unspecified';
  if (zerosBefore(7) && g[7] === 1) return 'loopback';
  // Forms that carry an IPv4 address reach that address: judge it instead.
  if (zerosBefore(5) && g[5] === 0xffff) return classifyIPv4(embeddedIPv4(g[6], g[7])); // ::ffff:a.b.c.d (mapped)
  if (zerosBefore(4) && g[4] === 0xffff && g[5] === 0) return classifyIPv4(embeddedIPv4(g[6], g[7])); // ::ffff:0:a.b.c.d (translated)
  if (zerosBefore(6)) return classifyIPv4(embeddedIPv4(g[6], g[7])); // ::a.b.c.d (compatible, deprecated)
  if (g[0] === 0x64 && g[1] === 0xff9b && g.slice(2, 6).every((x) => x === 0)) return classifyIPv4(embeddedIPv4(g[6], g[7])); // NAT64
  if (g[0] === 0x2002) return classifyIPv4(embeddedIPv4(g[1], g[2])); // 6to4
  if ((g[0] & 0xfe00) === 0xfc00) return 'unique-local';
  if ((g[0] & 0xffc0) === 0xfe80) return 'link-local';
  if ((g[0] & 0xff00) === 0xff00) return 'multicast';
  if (g[0] === 0x2001 && g[1] === 0x0db8) return 'documentation';
  if (g[0] === 0x3fff && g[1] < 0x1000) return 'documentation'; // 3fff::/20
  // Teredo (2001::/32) hides its IPv4 end; the rest of 2001::/23 is protocol assignments. Anything
  // outside 2000::/3 is not global unicast (site-local fec0::/10, discard 100::/64, local NAT64, ...).
  if (g[0] === 0x2001 && g[1] < 0x0200) return 'reserved';
  if ((g[0] & 0xe000) !== 0x2000) return 'reserved';
  return 'public';
}

/** Classifies an IPv4 or IPv6 address (IPv6 with or without brackets or a zone). */
export function classifyAddress(address: string): AddressClass {
  const v4 = parseIPv4(address);
  if (v4 !== undefined) return classifyIPv4(v4);
  const v6 = parseIPv6(address);
  return v6 ? classifyIPv6(v6) : 'invalid';
}

/**
 * Whether the service may connect to this address. With `allowPrivateNetworks` (tests, closed networks)
 * only metadata services stay refused: they hand out the host's cloud credentials.
 */
export function isAllowedAddress(address: string, { allowPrivateNetworks = false } = {}): boolean {
  const cls = classifyAddress(address);
  if (cls === 'public') return true;
  return allowPrivateNetworks && cls !== 'metadata' && cls !== 'invalid';
}

const DESCRIPTIONS: Record<Exclude<AddressClass, 'public'>, string> = {
  metadata: 'a cloud metadata address',
  unspecified: 'an unspecified address',
  loopback: 'a loopback address',
  private: 'a private network address',
  cgnat: 'a carrier-grade NAT address',
  'link-local': 'a link-local address',
  'unique-local': 'a unique-local IPv6 address',
  multicast: 'a multicast address',
  documentation: 'a documentation address',
  reserved: 'a reserved address',
  invalid: 'not an IP address',
};

/** "a loopback address", for error messages. */
export const describeAddressClass = (cls: Exclude<AddressClass, 'public'>) => DESCRIPTIONS[cls];
