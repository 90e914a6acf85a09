import { z } from 'zod';
import { connectionList, emailSchema, isoTimestamp } from '../../routes/common-schemas.js';

/** A workspace or repository slug as Bitbucket writes them: letters, digits, `-`, `_`, `.`. */
const slug = (what: string) =>
  z
    .string()
    .trim()
    .min(1, 'must not be empty')
    .max(255, 'must be at most 255 characters')
    .regex(/^[\w.-]+$/, `must be a ${what} slug (letters, digits, -, _ and .)`);

/** The API's `POST /bitbucket/connections` (decisions.md §16); `email` makes `token` an Atlassian API token. */
export const connectBody = z.object({
  workspace: slug('workspace'),
  repoSlug: slug('repository'),
  token: z
    .string()
    .trim()
    .min(1, 'must not be empty')
    .max(2048, 'must be at most 2048 characters')
    .regex(/^[\x21-\x7e]+$/, 'must be printable ASCII without spaces'),
  email: emailSchema.optional(),
  /** decisions.md §15: connected straight into an organization the caller is an admin or owner of. */
  orgId: z.string().max(64).nullable().optional(),
});
export type ConnectInput = z.output<typeof connectBody>;


export const connectionResponse = z.object({
  id: z.uuid(),
  workspace: z.string(),
  repoSlug: z.string(),
  repository: z.object({ uuid: z.string(), fullName: z.string(), htmlUrl: z.string() }),
  hookUuid: z.string(),
  /** Whether commands work: only a token that may read the repository's permissions (an admin's API token) lets the service check who wrote them. */
  commands: z.boolean(),
  /** The organization it belongs to (decisions.md §15); null in its owner's personal space. */
  orgId: z.string().nullable(),
  createdAt: isoTimestamp,
});


export const connectionListResponse = connectionList(connectionResponse, 'Bitbucket');
