import { z } from 'zod';
import { changesSomething, emailSchema, isoTimestamp, nameSchema } from '../common-schemas.js';

export const updateUserBody = changesSomething(z.object({ name: nameSchema, email: emailSchema, emailNotification: z.boolean() }).partial());

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
