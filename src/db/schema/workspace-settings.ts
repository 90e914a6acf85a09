import { pgTable, text, uniqueIndex, varchar } from 'drizzle-orm/pg-core';
import { createdAt, primaryUuid, updatedAt } from './columns.js';
import { oneOwner, ownerColumns } from './owner-columns.js';

export const workspaceSettings = pgTable(
  'workspace_settings',
  {
    id: primaryUuid(),
    ...ownerColumns(),
    quickModeModel: varchar('quick_mode_model', { length: 256 }),
    focusedModeModel: varchar('focused_mode_model', { length: 256 }),
    deepModeModel: varchar('deep_mode_model', { length: 256 }),
    systemPrompt: text('system_prompt'),
    quickModePrompt: text('quick_mode_prompt'),
    /** Spelled as the API document spells it. */
    foucsedModePrompt: text('foucsed_mode_prompt'),
    deepModePrompt: text('deep_mode_prompt'),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (table) => [
    uniqueIndex('workspace_settings_user_id_key').on(table.userId),
    uniqueIndex('workspace_settings_org_id_key').on(table.orgId),
    oneOwner('workspace_settings', table),
  ],
);

export type WorkspaceSettings = typeof workspaceSettings.$inferSelect;
