import fp from 'fastify-plugin';
import { deriveKey } from '../../lib/crypto/tokens.js';
import { AuthService } from '../../routes/auth/auth-service.js';
import { OneTimeCodes } from '../../routes/auth/one-time-codes.js';
import { UsersService } from '../../routes/users/users-service.js';
import { SessionService } from '../../services/session-service.js';
import { UsageService } from '../../services/usage-service.js';

export interface Services {
  sessions: SessionService;
  auth: AuthService;
  users: UsersService;
  usage: UsageService;
}

/** The services hold the rules; routes and workers only call them. */
export default fp(
  async (app) => {
    const { repos, config } = app;
    const log = app.log.child({ component: 'services' });
    const sessions = new SessionService(repos.sessions, app.kv, log);
    const services: Services = {
      sessions,
      auth: new AuthService({
        db: app.db,
        users: repos.users,
        otpRecords: repos.otpRecords,
        codes: new OneTimeCodes(repos.otpRecords, deriveKey(config.encryptionKey, 'one-time-codes')),
        sessions,
        mailer: app.mailer,
        publicUrl: config.publicUrl,
        log,
      }),
      users: new UsersService({ db: app.db, users: repos.users, sessionRecords: repos.sessions, sessions, kv: app.kv }),
      usage: new UsageService(repos.usage, config.freeAllowanceUsd),
    };
    app.decorate('services', services);
  },
  { name: 'services', dependencies: ['repositories'] },
);
