import { promises as dns } from 'node:dns';

export interface LookupAddress {
  address: string;
  family: 4 | 6;
}

/** Resolves a host name to every address it has. Injectable so tests never touch real DNS. */
export type LookupFn = (hostname: string) => Promise<LookupAddress[]>;

/** The operating system resolver (getaddrinfo through `dns.lookup`), every address, in resolver order. */
export const systemLookup: LookupFn = async (hostname) => {
  const found = await dns.lookup(hostname, { all: true, verbatim: true });
  return found.map(({ address, family }) => ({ address, family: family === 6 ? 6 : 4 }));
};
