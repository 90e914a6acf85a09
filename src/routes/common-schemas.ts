import { z } from 'zod';

export const emailSchema = z
  .string()
  .trim()
  .max(264, 'must be at most 264 characters')
  .toLowerCase()
  .pipe(z.email({ error: 'must be a valid email address' }));

export const passwordSchema = z.string().min(8, 'must be at least 8 characters').max(128, 'must be at most 128 characters');

export const nameSchema = z.string().trim().min(1, 'must not be empty').max(56, 'must be at most 56 characters');

export const messageSchema = z.object({ message: z.string() });

export const errorSchema = z
  .object({
    statusCode: z.number().int(),
    error: z.string(),
    message: z.string(),
    details: z.array(z.object({ path: z.string(), message: z.string() })).optional(),
  })
  .meta({ id: 'Error' });

/** The error answers a route documents, all with the one error body. */
export const errorResponses = (...statuses: number[]) => Object.fromEntries(statuses.map((status) => [status, errorSchema]));

export const isoTimestamp = z.string().meta({ format: 'date-time', example: '2026-01-31T12:00:00.000Z' });

export const noContent = z.null().meta({ description: 'No content' });

/** A cursor: ISO 8601 or epoch milliseconds, compared at millisecond precision. */
export const cursorSchema = z
  .string()
  .trim()
  .min(1)
  .transform((value, context) => {
    const date = /^\d+$/.test(value) ? new Date(Number(value)) : new Date(value);
    if (Number.isNaN(date.getTime())) {
      context.addIssue({ code: 'custom', message: 'must be an ISO 8601 timestamp or epoch milliseconds' });
      return z.NEVER;
    }
    return date;
  })
  .meta({ example: '2026-01-31T12:00:00.000Z' });

/**
 * decisions.md §7: a `PATCH` body that would change nothing (`{}`, or only unknown fields, which
 * objects strip) is a 400, never a silent no-op or a database error.
 */
export const changesSomething = <Shape extends z.ZodRawShape>(schema: z.ZodObject<Shape>, changing: string[] = Object.keys(schema.shape)) =>
  schema.refine((body: Record<string, unknown>) => changing.some((key) => body[key] !== undefined), { message: `send at least one of ${changing.join(', ')}` });

/** decisions.md §15: an installation or a connection moves into an organization (its id), or out of one into the caller's personal space (null). */
export const moveBody = z.object({ orgId: z.string().max(64).nullable() });

/** A host connection's id in a path. Any id is looked up: one the caller does not manage is a 404, as another user's is. */
export const connectionParams = z.object({ id: z.string().min(1).max(64) });

/** A host's connections as listed: each with whether the host still takes its token, and the host's reason when it stopped. */
export const connectionList = <Shape extends z.ZodRawShape>(item: z.ZodObject<Shape>, host: string) =>
  z.array(item.extend({ status: z.enum(['active', 'broken']), reason: z.string().nullable().meta({ description: `What ${host} said when it refused the token; null while active` }) }));
