import type { HostKind } from '../domain/host-kinds.js';
import { bitbucketIntake } from './bitbucket/bitbucket-intake.js';
import { githubIntake } from './github/github-intake.js';
import { gitlabIntake } from './gitlab/gitlab-intake.js';
import type { HostIntakeRules } from './host-intake.js';

/**
 * The code hosts the service speaks, one entry per host: the one file that knows which hosts exist
 * (`domain/host-kinds.ts` names them). A new host is a folder under `src/code-hosts/<host>/` and
 * its line in each list here.
 */
export const HOST_INTAKES: Record<HostKind, HostIntakeRules> = {
  github: githubIntake,
  gitlab: gitlabIntake,
  bitbucket: bitbucketIntake,
};
