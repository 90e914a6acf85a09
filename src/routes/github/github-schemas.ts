import { z } from 'zod';

export const installationItem = z.object({
  id: z.number(),
  account: z.object({ login: z.string(), type: z.string() }),
  repositorySelection: z.enum(['all', 'selected']),
  repositories: z.array(z.string()).describe('Full names (owner/name) of the repositories the installation covers; with `all`, those GitHub listed'),
  suspended: z.boolean(),
  createdAt: z.string(),
});

export const installationsResponse = z.array(installationItem);
