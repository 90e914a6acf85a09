import type { z } from 'zod';
import type { Owner } from '../domain/owners.js';
import { AppError } from '../lib/app-error.js';
import type { WorkspaceFields, WorkspaceRepository } from '../repositories/workspace-repository.js';
import type { settingsResponse } from '../routes/workspace/workspace-schemas.js';
import type { Space, SpaceAudit } from './space-audit.js';

/** Per-mode review models and prompts: at most one record per user or organization. */
export class WorkspaceService {
  constructor(
    private readonly workspace: WorkspaceRepository,
    private readonly audit: SpaceAudit,
  ) {}

  /** The owner's settings as the API lists them: an array of at most one record. */
  async get(owner: Owner): Promise<z.input<typeof settingsResponse>> {
    const settings = await this.workspace.find(owner);
    if (settings === undefined) return [];
    const { userId: _userId, orgId: _orgId, createdAt, updatedAt, ...rest } = settings;
    return [{ ...rest, createdAt: createdAt.toISOString(), updatedAt: updatedAt.toISOString() }];
  }

  async create(space: Space, fields: WorkspaceFields): Promise<void> {
    if (!(await this.workspace.create(space.owner, fields))) throw new AppError('CONFLICT', 'The settings exist already: change them with PATCH');
    await this.changed(space, fields);
  }

  /** Changes only the fields given (null clears one), creating the record if there is none. */
  async patch(space: Space, fields: WorkspaceFields): Promise<void> {
    await this.workspace.patch(space.owner, fields);
    await this.changed(space, fields);
  }

  /** The names of the fields set, not their values: a prompt can be long, and is the team's to read in the settings. */
  private changed(space: Space, fields: WorkspaceFields) {
    return this.audit.record(space, [{ action: 'settings.changed', target: 'Review settings', details: { fields: Object.keys(fields).sort() } }]);
  }
}
