import { z } from 'zod';
import { isoTimestamp } from '../common-schemas.js';

export const createTokenBody = z.object({
  name: z.string().trim().min(1, 'must not be empty').max(100, 'must be at most 100 characters'),
  expiresInDays: z.number().int('must be an integer').min(1, 'must be at least 1').max(365, 'must be at most 365').default(90),
});

export const tokenParams = z.object({ id: z.uuid() });

const tokenFields = {
  id: z.uuid(),
  name: z.string(),
  prefix: z.string().meta({ description: "The token's first 8 characters", example: 'prt_3kQ9' }),
  createdAt: isoTimestamp,
  expiresAt: isoTimestamp,
};

export const createdTokenResponse = z.object({
  ...tokenFields,
  token: z.string().meta({ description: 'The token, shown this once: it is stored only as a hash' }),
});

export const tokensResponse = z.array(z.object({ ...tokenFields, lastUsedAt: isoTimestamp.nullable().meta({ description: 'Moves at most once a minute' }) }));
