import { z } from 'zod';
import { ORG_ROLES } from '../../db/schema/index.js';
import { AUDIT_ACTIONS } from '../../db/schema/index.js';
import { changesSomething, emailSchema, isoTimestamp, nameSchema } from '../common-schemas.js';

/** Any id is looked up: one that is not an organization of the caller's is a 404, as another's is (decisions.md §15). */
const idParam = z.string().min(1).max(64);

export const orgParams = z.object({ orgId: idParam });
export const memberParams = z.object({ orgId: idParam, userId: idParam });
export const invitationParams = z.object({ orgId: idParam, id: idParam });

export const roleSchema = z.enum(ORG_ROLES);

export const createOrgBody = z.object({ name: nameSchema });

export const spendLimitSchema = z
  .number()
  .min(0, 'must not be negative')
  .max(1_000_000_000, 'must be at most 1000000000')
  .nullable()
  .meta({ description: 'USD per UTC month; null: no limit' });

export const updateOrgBody = changesSomething(z.object({ name: nameSchema, monthlySpendLimitUsd: spendLimitSchema }).partial());

export const organizationResponse = z.object({
  id: z.uuid(),
  name: z.string(),
  slug: z.string(),
  role: roleSchema.meta({ description: "The caller's role" }),
  monthlySpendLimitUsd: z.number().nullable(),
  createdAt: isoTimestamp,
});

export const memberResponse = z.object({ userId: z.uuid(), name: z.string(), email: z.string(), role: roleSchema, joinedAt: isoTimestamp });

export const changeRoleBody = z.object({ role: roleSchema });

export const inviteBody = z.object({ email: emailSchema, role: roleSchema });

export const invitationResponse = z.object({ id: z.uuid(), email: z.string(), role: roleSchema, expiresAt: isoTimestamp });

export const auditQuery = z.object({ cursor: z.string().trim().max(32).optional() });

export const auditResponse = z.object({
  items: z.array(
    z.object({
      at: isoTimestamp,
      actor: z.object({ userId: z.uuid().nullable().meta({ description: 'null once the account is deleted' }), name: z.string() }),
      action: z.enum(AUDIT_ACTIONS),
      target: z.string(),
      details: z.record(z.string(), z.unknown()),
    }),
  ),
  nextCursor: z.string().nullable(),
});
