import { z } from 'zod';
import { changesSomething, emailSchema, nameSchema } from '../common-schemas.js';

export const updateUserBody = changesSomething(z.object({ name: nameSchema, email: emailSchema, emailNotification: z.boolean() }).partial());

export const userResponse = z.object({ id: z.uuid(), name: z.string(), email: z.string(), emailNotification: z.boolean() });
