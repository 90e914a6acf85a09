import type { z } from 'zod';

/** A zod error as the `details` of a 400: `[{path, message}]`, paths like `body.pull_request.id`. */
export const zodDetails = (error: z.ZodError, root: string) =>
  error.issues.map((issue) => ({ path: [root, ...issue.path.map(String)].join('.'), message: issue.message }));
