import { z } from 'zod';

/**
 * A token limit the provider may or may not send. A missing or odd value (null, a string, zero)
 * becomes null rather than failing the probe: the list is what matters, the limit is a bonus.
 */
export const optionalTokenLimit = z.number().int().positive().nullish().catch(null);

export const tokenLimitOrNull = (...candidates: Array<number | null | undefined>): number | null =>
  candidates.find((value): value is number => typeof value === 'number') ?? null;

/** The display name when there is a usable one, else the id. */
export const nameOrId = (name: string | null | undefined, id: string): string => (name?.trim() ? name.trim() : id);
