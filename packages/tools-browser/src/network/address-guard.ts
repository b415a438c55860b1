import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { isIP } from 'node:net';

/** Node's lookup signature, as `net.connect` and `http.request` take it. */
export type LookupFunction = (
  hostname: string,
  options: { family?: number | string; all?: boolean },
  callback: (error: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void,
) => void;

/** A permitted name resolved to an address of the host itself. */
export class HostInternalAddressError extends Error {
  readonly code = 'EADDRNOTAVAIL';
}

/** Loopback, unspecified and link-local addresses (cloud metadata lives at 169.254.169.254). */
export function isHostInternalAddress(address: string): boolean {
  const unmapped = address.toLowerCase().replace(/^::ffff:/, '');
  if (isIP(unmapped) === 4) {
    const [first, second] = unmapped.split('.').map(Number);
    return first === 127 || first === 0 || (first === 169 && second === 254);
  }
  return unmapped === '::1' || unmapped === '::' || /^fe[89ab]/.test(unmapped);
}

/** True when a host is named as loopback on purpose: an IP literal or `localhost` (RFC 6761). */
export function namesLoopbackOnPurpose(hostname: string): boolean {
  const bare = hostname.replace(/^\[|\]$/g, '').toLowerCase();
  return isIP(bare) !== 0 || bare === 'localhost' || bare.endsWith('.localhost');
}

/**
 * A lookup for permitted host names that refuses answers pointing at the host itself (loopback,
 * link-local): a permitted `docs.example.com` whose DNS answers 127.0.0.1 (rebinding) must not
 * become a way to the host's own services. Names that say loopback (`localhost`, IP literals)
 * are looked up normally, since the host permitted them as such.
 */
export function hostInternalRefusingLookup(
  base: LookupFunction = dnsLookup as LookupFunction,
): LookupFunction {
  return (hostname, options, callback) => {
    base(hostname, { ...options, all: true }, (error, addresses) => {
      if (error !== null) {
        callback(error, '');
        return;
      }
      const list = addresses as LookupAddress[];
      const internal = list.find((entry) => isHostInternalAddress(entry.address));
      if (internal !== undefined) {
        callback(
          new HostInternalAddressError(
            `${hostname} resolves to ${internal.address}, an address of the host itself; refused.`,
          ),
          '',
        );
        return;
      }
      if (options.all === true) callback(null, list);
      else callback(null, list[0]!.address, list[0]!.family);
    });
  };
}
