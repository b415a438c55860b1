import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { redactObject } from '@assistant-kit/kernel';
import { secretBrokerError } from './errors.js';
import { decodeKey } from './keys.js';
import { assertAccountId, assertFieldName } from './validation.js';

/** Every reference starts with this, so a reference is never mistaken for a new key value. */
export const REFERENCE_PREFIX = 'akref1.';

const REFERENCE_PATTERN = /^akref1\.([A-Za-z][A-Za-z0-9_-]{0,63})\.([A-Za-z0-9_-]{22})\.([A-Za-z0-9_-]{22})$/;

/** What a valid reference points at. */
export interface ParsedReference {
  readonly field: string;
  /** Storage entry id: `<field>.<random id>`. */
  readonly entryId: string;
}

/**
 * True when `value` has the shape of a secret reference (`akref1.<field>.<id>.<mac>`).
 * It says nothing about whose reference it is; use the broker to check that.
 */
export function isSecretReference(value: unknown): value is string {
  return typeof value === 'string' && value.startsWith(REFERENCE_PREFIX);
}

/**
 * Makes and checks references. A reference holds the field name, a random entry id and an
 * HMAC over account, field and id: it names no secret, and for any other account the MAC
 * fails, which gives a precise `REFERENCE_OTHER_ACCOUNT` error instead of a lookup miss.
 */
export class ReferenceCodec {
  readonly #key: Uint8Array;

  constructor(referenceKey: Uint8Array | string) {
    this.#key = decodeKey(referenceKey, 'Reference key');
    redactObject(this, 'ReferenceCodec');
  }

  create(accountId: string, field: string): { reference: string; entryId: string } {
    assertAccountId(accountId);
    assertFieldName(field);
    const id = randomBytes(16).toString('base64url');
    return {
      reference: `${REFERENCE_PREFIX}${field}.${id}.${this.#mac(accountId, field, id)}`,
      entryId: `${field}.${id}`,
    };
  }

  parse(accountId: string, reference: unknown): ParsedReference {
    assertAccountId(accountId);
    const match = typeof reference === 'string' ? REFERENCE_PATTERN.exec(reference) : null;
    if (!match) {
      throw secretBrokerError(
        'REFERENCE_MALFORMED',
        'The value is not a secret reference issued by this service.',
      );
    }
    const [, field, id, mac] = match as unknown as [string, string, string, string];
    const expected = Buffer.from(this.#mac(accountId, field, id), 'base64url');
    const given = Buffer.from(mac, 'base64url');
    if (expected.length !== given.length || !timingSafeEqual(expected, given)) {
      throw secretBrokerError(
        'REFERENCE_OTHER_ACCOUNT',
        `The reference for "${field}" was not issued to this account; enter the key again to set it.`,
      );
    }
    return { field, entryId: `${field}.${id}` };
  }

  #mac(accountId: string, field: string, id: string): string {
    return createHmac('sha256', this.#key)
      .update(`${REFERENCE_PREFIX}\u0000${accountId}\u0000${field}\u0000${id}`)
      .digest()
      .subarray(0, 16)
      .toString('base64url');
  }
}
