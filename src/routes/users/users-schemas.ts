import { z } from 'zod';
import { emailSchema, isoTimestamp, nameSchema } from '../common-schemas.js';

export const updateUserBody = z
  .object({ name: nameSchema, email: emailSchema, emailNotification: z.boolean() })
  .partial()
  .refine((body) => Object.values(body).some((value) => value !== undefined), { message: 'send at least one of name, email, emailNotification' });

export const userResponse = z.object({ id: z.uuid(), name: z.string(), email: z.string(), emailNotification: z.boolean() });

export const profileResponse = z.object({
  id: z.uuid(),
  name: z.string(),
  email: z.string(),
  emailNotification: z.boolean(),
  loginMethod: z.enum(['codehost', 'email']),
  codehostUsername: z.string().nullable(),
  createdAt: isoTimestamp,
});
