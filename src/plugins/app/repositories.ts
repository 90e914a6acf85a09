import fp from 'fastify-plugin';
import { OtpRepository } from '../../repositories/otp-repository.js';
import { SessionRepository } from '../../repositories/session-repository.js';
import { UsageRepository } from '../../repositories/usage-repository.js';
import { UserRepository } from '../../repositories/user-repository.js';

export interface Repositories {
  users: UserRepository;
  sessions: SessionRepository;
  otpRecords: OtpRepository;
  usage: UsageRepository;
}

export default fp(
  async (app) => {
    const repositories: Repositories = {
      users: new UserRepository(app.db),
      sessions: new SessionRepository(app.db),
      otpRecords: new OtpRepository(app.db),
      usage: new UsageRepository(app.db),
    };
    app.decorate('repos', repositories);
  },
  { name: 'repositories', dependencies: ['infrastructure'] },
);
