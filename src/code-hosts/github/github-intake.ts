import type { HostIntakeRules } from '../host-intake.js';

/**
 * GitHub's deliveries (decisions.md §8): the pull request's owner is the delivery's own (a session's
 * user), else the user linked to the author's GitHub id, else (through the App) the owner of the
 * installation it came through while that installation is live. GitHub's id is the key.
 * One that came through an organization's installation belongs to that organization (§15).
 */
export const githubIntake: HostIntakeRules = {
  kind: 'github',
  joins: [
    { table: 'users', alias: 'github_author', on: 'github_author.codehost_user_id = i.author_id' },
    { table: 'github_installations', alias: 'github_installation', on: 'github_installation.id = i.installation_id and github_installation.deleted_at is null and not github_installation.suspended' },
  ],
  ownership: 'coalesce(i.owner_id, github_author.id, github_installation.user_id)',
  organization: 'github_installation.org_id',
  unowned: 'unknown-author',
  linksRepository: true,
};
