import { BlockList, isIPv4, isIPv6 } from "node:net";

/**
 * Address ranges a tenant's URL must never reach (docs/design.md §9, §12): this host, private
 * networks, link-local (cloud metadata lives at 169.254.169.254), CGNAT, and the reserved,
 * documentation and multicast ranges that no public web server answers from.
 */
const NON_PUBLIC_IPV4: [string, number][] = [
  ["0.0.0.0", 8], // "this network"
  ["10.0.0.0", 8],
  ["100.64.0.0", 10], // carrier-grade NAT
  ["127.0.0.0", 8],
  ["169.254.0.0", 16], // link-local, cloud metadata
  ["172.16.0.0", 12],
  ["192.0.0.0", 24], // IETF protocol assignments
  ["192.0.2.0", 24], // documentation
  ["192.88.99.0", 24], // 6to4 relay anycast
  ["192.168.0.0", 16],
  ["198.18.0.0", 15], // benchmarking
  ["198.51.100.0", 24],
  ["203.0.113.0", 24],
  ["224.0.0.0", 4], // multicast
  ["240.0.0.0", 4], // reserved, and the broadcast address
];

const NON_PUBLIC_IPV6: [string, number][] = [
  ["::", 96], // unspecified, loopback and the deprecated IPv4-compatible form
  ["64:ff9b:1::", 48], // local-use NAT64 (RFC 8215): translates to whatever the local network routes
  ["100::", 64], // discard
  ["2001::", 23], // IETF protocol assignments (Teredo, ORCHID…)
  ["2001:db8::", 32], // documentation
  ["fc00::", 7], // unique local, including AWS's metadata address fd00:ec2::254
  ["fe80::", 10], // link-local
  ["fec0::", 10], // the old site-local
  ["ff00::", 8], // multicast
];

const blocked = new BlockList();
for (const [network, prefix] of NON_PUBLIC_IPV4) blocked.addSubnet(network, prefix, "ipv4");
for (const [network, prefix] of NON_PUBLIC_IPV6) blocked.addSubnet(network, prefix, "ipv6");

/**
 * True when an IP address (v4 or v6, as text) belongs to the public internet; false for loopback,
 * private, link-local, CGNAT, metadata, reserved and multicast addresses, for an IPv6 address
 * that carries one of those as an embedded IPv4 address, and for anything that is not an address.
 */
export function isPublicAddress(address: string): boolean {
  const bare = address.replace(/^\[|\]$/g, "").replace(/%.*$/, "");
  if (isIPv4(bare)) return !blocked.check(bare, "ipv4");
  if (!isIPv6(bare)) return false;
  if (isMappedOrTranslated(bare)) return false;
  const embedded = embeddedIPv4(bare);
  if (embedded !== null && !isPublicAddress(embedded)) return false;
  return !blocked.check(bare, "ipv6");
}

/**
 * The IPv4 address inside an IPv4-mapped (::ffff:a.b.c.d), NAT64 (64:ff9b::/96) or 6to4
 * (2002:AABB:CCDD::/48) IPv6 address, which the network may route to that IPv4 address.
 */
function embeddedIPv4(address: string): string | null {
  const groups = expandIPv6(address);
  if (groups === null) return null;
  const isMapped = groups.slice(0, 5).every((group) => group === 0) && groups[5] === 0xffff;
  const isNat64 = groups[0] === 0x64 && groups[1] === 0xff9b && groups.slice(2, 6).every((group) => group === 0);
  if (isMapped || isNat64) return ipv4From(groups[6]!, groups[7]!);
  if (groups[0] === 0x2002) return ipv4From(groups[1]!, groups[2]!);
  return null;
}

/**
 * IPv4-mapped (::ffff:0:0/96) and IPv4-translated (::ffff:0:0:0/96) addresses are refused whatever
 * they carry: no public server is reached through them, and a socket given one talks IPv4 to
 * whatever it embeds. (Node's BlockList matches every IPv4 address against an IPv6 rule for
 * ::ffff:0:0/96, so these are recognised here instead.)
 */
function isMappedOrTranslated(address: string): boolean {
  const groups = expandIPv6(address);
  if (groups === null) return false;
  const mapped = groups.slice(0, 5).every((group) => group === 0) && groups[5] === 0xffff;
  const translated = groups.slice(0, 4).every((group) => group === 0) && groups[4] === 0xffff && groups[5] === 0;
  return mapped || translated;
}

/** The eight 16-bit groups of a valid IPv6 address, a trailing dotted IPv4 part included. */
function expandIPv6(address: string): number[] | null {
  let text = address.toLowerCase();
  const dotted = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (dotted) {
    const [a, b, c, d] = dotted[1]!.split(".").map(Number) as [number, number, number, number];
    text = `${text.slice(0, -dotted[1]!.length)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head, tail] = text.split("::") as [string, string | undefined];
  const headGroups = head === "" ? [] : head.split(":");
  const tailGroups = tail === undefined || tail === "" ? [] : tail.split(":");
  const missing = 8 - headGroups.length - tailGroups.length;
  if (missing < 0 || (tail === undefined && missing !== 0)) return null;
  return [...headGroups, ...Array<string>(missing).fill("0"), ...tailGroups].map((group) => parseInt(group, 16));
}

function ipv4From(high: number, low: number): string {
  return [high >> 8, high & 0xff, low >> 8, low & 0xff].join(".");
}
