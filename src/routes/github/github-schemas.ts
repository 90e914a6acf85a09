import { z } from 'zod';

export const installationItem = z.object({
  id: z.number(),
  account: z.object({ login: z.string(), type: z.string() }),
  repositorySelection: z.enum(['all', 'selected']),
  repositories: z.array(z.string()).describe('Full names (owner/name) of the repositories the installation covers; with `all`, those GitHub listed'),
  suspended: z.boolean(),
  /** The organization it belongs to (decisions.md §15); null in its owner's personal space. */
  orgId: z.string().nullable(),
  createdAt: z.string(),
});

export const installationsResponse = z.array(installationItem);

/** Any id is looked up: one the caller cannot see is a 404, as another user's is. */
export const installationParams = z.object({ installationId: z.string().min(1).max(64) });

