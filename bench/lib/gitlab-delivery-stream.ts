import { createHash, randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';

const IID_MARK = 987_654_321;
const ID_MARK = 987_654_321_012;
const SHA_MARK = 'feedfacefeedfacefeedfacefeedfacefeedface';
const FIXTURE = new URL('../../test/fixtures/gitlab/merge-request-hook.json', import.meta.url);

/**
 * An endless supply of distinct `Merge Request Hook` deliveries for one connected project:
 * GitLab's documented example payload (test/fixtures/gitlab) opened, with a new merge request and
 * head commit each time, `X-Gitlab-Token` and a new `X-Gitlab-Event-UUID` as GitLab sends them.
 * The JSON is spliced from a template, as `DeliveryStream` does for GitHub's.
 */
export class GitLabDeliveryStream {
  private readonly parts: string[];
  private sequence = 0;

  constructor(
    private readonly token: string,
    projectId: number,
  ) {
    const hook = JSON.parse(readFileSync(FIXTURE, 'utf8')) as { project: { id: number }; object_attributes: Record<string, unknown> };
    hook.project.id = projectId;
    Object.assign(hook.object_attributes, { id: ID_MARK, iid: IID_MARK, action: 'open', state: 'opened', draft: false, work_in_progress: false, target_project_id: projectId, last_commit: { ...(hook.object_attributes.last_commit as object), id: SHA_MARK } });
    this.parts = JSON.stringify(hook).split(new RegExp(`(${ID_MARK}|${IID_MARK}|${SHA_MARK})`));
  }

  next(): { body: string; headers: Record<string, string> } {
    const n = this.sequence++;
    const values: Record<string, string> = { [ID_MARK]: String(800_000_000 + n), [IID_MARK]: String(n + 1), [SHA_MARK]: n.toString(16).padStart(40, '0') };
    const body = this.parts.map((part, index) => (index % 2 === 1 ? values[part]! : part)).join('');
    return { body, headers: { 'content-type': 'application/json', 'x-gitlab-event': 'Merge Request Hook', 'x-gitlab-token': this.token, 'x-gitlab-event-uuid': randomUUID() } };
  }

  get sent() {
    return this.sequence;
  }

  /** The service's delivery id for an event UUID on a connection (decisions.md §12: one record per connection). */
  static deliveryId(connectionId: string, eventUuid: string): string {
    return `gitlab-${connectionId}-${createHash('sha256').update(eventUuid).digest('hex').slice(0, 64)}`;
  }
}
