import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { hashPassword, verifyPassword } from '../../src/lib/crypto/passwords.js';
import { SecretBox } from '../../src/lib/crypto/secret-box.js';
import { constantTimeEqual, deriveKey, generateOtp, hmacHex, sha256Hex } from '../../src/lib/crypto/tokens.js';

describe('SecretBox (AES-256-GCM)', () => {
  const box = new SecretBox(randomBytes(32));

  it('round-trips, with a fresh IV each time and a version tag', () => {
    const sealed = box.encrypt('sk-live-secret ✓');
    expect(sealed).toMatch(/^v1\./);
    expect(sealed).not.toContain('sk-live');
    expect(box.encrypt('sk-live-secret ✓')).not.toBe(sealed);
    expect(box.decrypt(sealed)).toBe('sk-live-secret ✓');
  });

  it('refuses tampered ciphertext, another key and unknown versions', () => {
    const sealed = box.encrypt('secret');
    const parts = sealed.split('.');
    const tampered = [...parts.slice(0, 3), Buffer.from('xecret').toString('base64url')].join('.');
    expect(() => box.decrypt(tampered)).toThrow();
    expect(() => new SecretBox(randomBytes(32)).decrypt(sealed)).toThrow();
    expect(() => box.decrypt(sealed.replace(/^v1/, 'v9'))).toThrow(/Unsupported/);
  });
});

describe('tokens', () => {
  it('makes six-digit codes, leading zeros kept', () => {
    const codes = Array.from({ length: 2000 }, generateOtp);
    expect(codes.every((code) => /^\d{6}$/.test(code))).toBe(true);
    expect(new Set(codes).size).toBeGreaterThan(1990);
  });

  it('derives different keys per purpose', () => {
    const master = randomBytes(32);
    expect(deriveKey(master, 'a').equals(deriveKey(master, 'b'))).toBe(false);
    expect(hmacHex(deriveKey(master, 'a'), 'x')).toHaveLength(64);
    expect(sha256Hex('abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
  });

  it('compares in constant time, lengths included', () => {
    expect(constantTimeEqual('abc', 'abc')).toBe(true);
    expect(constantTimeEqual('abc', 'abd')).toBe(false);
    expect(constantTimeEqual('abc', 'abcd')).toBe(false);
  });
});

describe('passwords (argon2id)', () => {
  it('hashes with argon2id and verifies', async () => {
    const hash = await hashPassword('correct horse');
    expect(hash).toMatch(/^\$argon2id\$/);
    expect(await verifyPassword(hash, 'correct horse')).toBe(true);
    expect(await verifyPassword(hash, 'wrong horse')).toBe(false);
    expect(await verifyPassword(null, 'anything')).toBe(false);
    expect(await verifyPassword('not a hash', 'anything')).toBe(false);
  });
});
