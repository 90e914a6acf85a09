import type { UserToken } from '../adapters/github/github-client.js';
import type { User } from '../db/schema/index.js';
import type { SecretBox } from '../lib/crypto/secret-box.js';

/** A user's GitHub token as the users table keeps it: both tokens sealed, the expiry in the clear. */
export function sealUserToken(secretBox: SecretBox, token: UserToken): Pick<User, 'codehostToken' | 'codehostRefreshToken' | 'codehostTokenExpiresAt'> {
  return {
    codehostToken: secretBox.encrypt(token.accessToken),
    codehostRefreshToken: token.refreshToken === null ? null : secretBox.encrypt(token.refreshToken),
    codehostTokenExpiresAt: token.expiresAt,
  };
}
