import type { User } from '../db/schema/index.js';
import type { SecretBox } from '../lib/crypto/secret-box.js';

/** decisions.md §6: the author's own GitHub token when linked, else GITHUB_TOKEN, else anonymous. */
export function githubTokenFor(owner: User | undefined, secretBox: SecretBox, fallback: string | undefined): string | undefined {
  if (owner?.codehostToken) return secretBox.decrypt(owner.codehostToken);
  return fallback;
}
