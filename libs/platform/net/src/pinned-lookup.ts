import { promises as dns } from 'node:dns';
import type { LookupFunction } from 'node:net';

export interface ResolvedAddress {
  address: string;
  family: 4 | 6;
}

/** Every address a name resolves to (a stand-in resolver in tests). */
export type LookupAll = (hostname: string) => Promise<ResolvedAddress[]>;

export const defaultLookupAll: LookupAll = async (hostname) => {
  const results = await dns.lookup(hostname, { all: true, verbatim: true });
  return results.map((r) => ({ address: r.address, family: r.family === 6 ? 6 : 4 }));
};

/**
 * A lookup for a connection that answers with the checked addresses only, whatever DNS says
 * now: a name cannot pass the address check and then resolve elsewhere (DNS rebinding). Node
 * asks for all of them (autoSelectFamily, on by default) and tries the next when one fails.
 */
export function pinnedLookup(addresses: readonly ResolvedAddress[]): LookupFunction {
  return (_hostname, options, callback) => {
    const candidates =
      options.family === 4 || options.family === 6 ? addresses.filter((a) => a.family === options.family) : addresses;
    if (candidates.length === 0) {
      const err: NodeJS.ErrnoException = new Error('no checked address of the requested family');
      err.code = 'ENOTFOUND';
      callback(err, '', 0);
    } else if (options.all) {
      (callback as unknown as (err: null, all: readonly ResolvedAddress[]) => void)(null, candidates);
    } else {
      callback(null, candidates[0].address, candidates[0].family);
    }
  };
}
