import { lookup as dnsLookup, type LookupAddress, type LookupOptions } from "node:dns";
import { isPublicAddress } from "./is-public-address.js";

/** The shape of `dns.lookup` that `net.connect` calls (with or without `all`). */
export type LookupFunction = (
  hostname: string,
  options: LookupOptions,
  callback: (error: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void,
) => void;

/** Thrown (and passed to `net.connect`) when a host resolves to an address that is not public. */
export class NonPublicAddressError extends Error {
  constructor(
    readonly host: string,
    readonly address: string,
  ) {
    // The setting that allows it is named, so whoever runs the server knows the way out.
    const refusal = host === address ? `${address} is not a public address` : `${host} resolves to ${address}, which is not a public address`;
    super(`${refusal} (PARLEY_ALLOW_PRIVATE_URLS=true allows it)`);
    this.name = "NonPublicAddressError";
  }
}

/**
 * Wraps a DNS lookup so that a connection can only be opened to public addresses: the check
 * runs on the addresses the socket will actually use, after DNS, so a public name pointing at
 * 127.0.0.1 (or re-pointed there between two lookups) is refused too. A name with any
 * non-public address is refused whole, rather than trusting the order addresses are tried in.
 */
export function createPublicLookup(lookup: LookupFunction = dnsLookup as LookupFunction, isPublic: (address: string) => boolean = isPublicAddress): LookupFunction {
  return (hostname, options, callback) => {
    lookup(hostname, { ...options, all: true }, (error, addresses) => {
      if (error) return callback(error, options.all ? [] : "");
      const found = (addresses as LookupAddress[]).filter(Boolean);
      const refused = found.find((entry) => !isPublic(entry.address));
      if (refused) return callback(Object.assign(new NonPublicAddressError(hostname, refused.address), { code: "ENONPUBLIC" }), options.all ? [] : "");
      if (found.length === 0) return callback(Object.assign(new Error(`${hostname} has no address`), { code: "ENOTFOUND" }), options.all ? [] : "");
      if (options.all) return callback(null, found);
      callback(null, found[0]!.address, found[0]!.family);
    });
  };
}
