import { z } from 'zod';
import { connectionList, isoTimestamp } from '../../routes/common-schemas.js';

export const DEFAULT_GITLAB_URL = 'https://gitlab.com';

/** An instance's web address: http(s), no credentials, query or fragment; kept without trailing slashes. */
const baseUrlSchema = z
  .url({ protocol: /^https?$/, error: 'must be an http(s) URL' })
  .max(2048, 'must be at most 2048 characters')
  // zod runs every check: a value the URL check refused is its issue, not this one's to parse.
  .refine((value) => {
    if (!URL.canParse(value)) return true;
    const url = new URL(value);
    return url.username === '' && url.password === '' && url.search === '' && url.hash === '';
  }, 'must not carry credentials, a query or a fragment')
  .transform((value) => {
    const url = new URL(value);
    return `${url.origin}${url.pathname}`.replace(/\/+$/, '');
  });

/** GitLab's project path characters: letters, digits, `_`, `-`, `.`, groups separated by `/`. */
const PROJECT_PATH = /^[\w.-]+(\/[\w.-]+)+$/;

const projectSchema = z.union([
  z.number().int('must be a whole number').positive('must be positive').transform(String),
  z
    .string()
    .trim()
    .max(1024, 'must be at most 1024 characters')
    // Pasted forms of a path: with slashes around it, or the clone URL's `.git`.
    .transform((value) => value.replace(/^\/+|\/+$/g, '').replace(/\.git$/, ''))
    .refine((value) => /^\d+$/.test(value) || PROJECT_PATH.test(value), 'must be a project path (group/project) or a numeric project id'),
]);

export const connectBody = z.object({
  baseUrl: baseUrlSchema.default(DEFAULT_GITLAB_URL),
  project: projectSchema,
  token: z
    .string()
    .trim()
    .min(1, 'must not be empty')
    .max(1024, 'must be at most 1024 characters')
    .regex(/^[\x21-\x7e]+$/, 'must be printable ASCII without spaces'),
  /** decisions.md §15: connected straight into an organization the caller is an admin or owner of. */
  orgId: z.string().max(64).nullable().optional(),
});
export type ConnectInput = z.output<typeof connectBody>;


const projectResponse = z.object({ id: z.number().int(), pathWithNamespace: z.string(), webUrl: z.string() });

export const connectionResponse = z.object({
  id: z.uuid(),
  baseUrl: z.string(),
  project: projectResponse,
  hookId: z.number().int(),
  /** The organization it belongs to (decisions.md §15); null in its owner's personal space. */
  orgId: z.string().nullable(),
  createdAt: isoTimestamp,
});


export const connectionListResponse = connectionList(connectionResponse, 'GitLab');
