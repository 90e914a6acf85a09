import { createHash, createHmac, hkdfSync, randomBytes, randomInt, timingSafeEqual } from 'node:crypto';

export const randomHex = (bytes: number) => randomBytes(bytes).toString('hex');

export const sha256Hex = (value: string) => createHash('sha256').update(value).digest('hex');

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/** Characters from the CSPRNG, each uniform over [0-9A-Za-z] (randomInt has no modulo bias). */
export const randomBase62 = (length: number) => Array.from({ length }, () => BASE62[randomInt(0, BASE62.length)]).join('');

/** Six digits from the CSPRNG, leading zeros kept. */
export const generateOtp = () => randomInt(0, 1_000_000).toString().padStart(6, '0');

/** A key for one purpose, derived from the master key so purposes never share key material. */
export const deriveKey = (master: Buffer, purpose: string) => Buffer.from(hkdfSync('sha256', master, Buffer.alloc(0), purpose, 32));

export const hmacHex = (key: Buffer, value: string) => createHmac('sha256', key).update(value).digest('hex');

export function constantTimeEqual(a: string, b: string): boolean {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  return left.length === right.length && timingSafeEqual(left, right);
}
