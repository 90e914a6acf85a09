import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ConfigError } from './config-error.js';

const KEY_FILE = 'encryption.key';

/** Accepts 32 bytes written as 64 hex characters or as base64. */
export function parseEncryptionKey(value: string): Buffer {
  const key = /^[0-9a-fA-F]{64}$/.test(value) ? Buffer.from(value, 'hex') : Buffer.from(value, 'base64');
  if (key.length !== 32) {
    throw new ConfigError('ENCRYPTION_KEY', 'must be 32 bytes, written as 64 hex characters or base64');
  }
  return key;
}

/**
 * The key comes from ENCRYPTION_KEY, or (outside production) from DATA_DIR, where it is generated on
 * first start with mode 0600 so that a restart can still decrypt what the previous run stored.
 */
export function resolveEncryptionKey(value: string | undefined, dataDir: string, production: boolean): Buffer {
  if (value !== undefined) return parseEncryptionKey(value);
  if (production) throw new ConfigError('ENCRYPTION_KEY', 'is required when NODE_ENV=production');
  const file = join(dataDir, KEY_FILE);
  try {
    return parseEncryptionKey(readFileSync(file, 'utf8').trim());
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  mkdirSync(dataDir, { recursive: true });
  const key = randomBytes(32);
  // 'wx' fails if another process created the file in the meantime; then read theirs.
  try {
    writeFileSync(file, key.toString('hex'), { mode: 0o600, flag: 'wx' });
    return key;
  } catch {
    return parseEncryptionKey(readFileSync(file, 'utf8').trim());
  }
}
