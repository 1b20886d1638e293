import { randomBytes } from 'node:crypto';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * Whether a value can name a record: every id the platform issues is a UUID. Services check it
 * before any lookup, so a malformed id is answered like an unknown one (404) or refused (400)
 * without reaching the database, where a cast to uuid would fail.
 */
export const isUuid = (value: unknown): value is string => typeof value === 'string' && UUID.test(value);

/**
 * `count` new UUIDs (version 7, RFC 9562) that sort in the order given, as uuid values and as
 * lowercase strings: the time `at` in the first 48 bits, then a random 74-bit number counted up
 * by one per id. For rows written together with one timestamp, where the id breaks ties and
 * should keep the order they were given in (a bulk write's items).
 */
export function orderedUuids(count: number, at: number = Date.now()): string[] {
  const random = BigInt(`0x${randomBytes(10).toString('hex')}`) >> 7n; // 73 bits: room to count up
  const time = BigInt(Math.max(0, Math.floor(at))) & 0xffff_ffff_ffffn;
  const ids: string[] = [];
  for (let i = 0; i < count; i++) {
    const tail = random + BigInt(i); // < 2^74
    const randA = tail >> 62n; // 12 bits
    const randB = tail & ((1n << 62n) - 1n); // 62 bits
    const value = (time << 80n) | (0x7n << 76n) | (randA << 64n) | (0x2n << 62n) | randB;
    const hex = value.toString(16).padStart(32, '0');
    ids.push(`${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`);
  }
  return ids;
}
