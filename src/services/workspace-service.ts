import type { z } from 'zod';
import { AppError } from '../lib/app-error.js';
import type { WorkspaceFields, WorkspaceRepository } from '../repositories/workspace-repository.js';
import type { settingsResponse } from '../routes/workspace/workspace-schemas.js';

/** Per-mode review models and prompts: at most one record per user. */
export class WorkspaceService {
  constructor(private readonly workspace: WorkspaceRepository) {}

  /** The user's settings as the API lists them: an array of at most one record. */
  async get(userId: string): Promise<z.input<typeof settingsResponse>> {
    const settings = await this.workspace.find(userId);
    if (settings === undefined) return [];
    const { userId: _userId, createdAt, updatedAt, ...rest } = settings;
    return [{ ...rest, createdAt: createdAt.toISOString(), updatedAt: updatedAt.toISOString() }];
  }

  async create(userId: string, fields: WorkspaceFields): Promise<void> {
    if (!(await this.workspace.create(userId, fields))) throw new AppError('CONFLICT', 'Your settings exist already: change them with PATCH');
  }

  /** Changes only the fields given (null clears one), creating the record if there is none. */
  patch(userId: string, fields: WorkspaceFields): Promise<void> {
    return this.workspace.patch(userId, fields);
  }
}
