import { createHmac } from 'node:crypto';
import { ConfigError } from '../config/config-error.js';
import type { ServiceSettingsRepository } from '../repositories/service-settings-repository.js';

const FINGERPRINT_SETTING = 'encryption_key_fingerprint';
const FINGERPRINT_LABEL = 'review-service encryption key fingerprint v1';

/** Identifies a key without revealing it: an HMAC of a fixed label under the key. */
export const keyFingerprint = (key: Buffer) => createHmac('sha256', key).update(FINGERPRINT_LABEL).digest('hex');

/**
 * One encryption key per database. The first process to start records its key's fingerprint; a
 * process with another key refuses to start, because what it stored could not be read by the
 * others (and the other way round): e.g. an API and a worker that each generated a key of their
 * own in their DATA_DIR.
 */
export async function ensureOneEncryptionKey(settings: ServiceSettingsRepository, key: Buffer): Promise<void> {
  const fingerprint = keyFingerprint(key);
  const recorded = await settings.claim(FINGERPRINT_SETTING, fingerprint);
  if (recorded !== fingerprint) {
    throw new ConfigError(
      'ENCRYPTION_KEY',
      `is not the key this database was set up with (its fingerprint ${fingerprint.slice(0, 12)}… differs from the recorded ${recorded.slice(0, 12)}…). ` +
        'Every process on one database needs the same key: set ENCRYPTION_KEY in each to the key of the process that started first ' +
        '(without ENCRYPTION_KEY, a process generates one into DATA_DIR/encryption.key). See README, "Encryption key".',
    );
  }
}
