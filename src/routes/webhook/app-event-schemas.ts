import { z } from 'zod';

/** The parts of the GitHub App's events (decisions.md §8) the service reads; objects are loose. */
const id = z.number().int().positive();
const account = z.looseObject({ id, login: z.string().min(1).max(100), type: z.string().max(32) });
const installation = z.looseObject({ id, account, repository_selection: z.enum(['all', 'selected']) });
const repository = z.looseObject({ id, full_name: z.string().min(3).max(256) });
const sender = z.looseObject({ id, login: z.string().optional() });
const commenter = z.looseObject({ id: z.number().int(), login: z.string(), type: z.string() });

export const installationEventSchema = z.looseObject({
  action: z.string().min(1).max(64),
  installation,
  repositories: z.array(repository).nullish(),
  sender,
});

export const installationRepositoriesEventSchema = z.looseObject({
  action: z.string().min(1).max(64),
  installation,
  repository_selection: z.enum(['all', 'selected']).optional(),
  repositories_added: z.array(repository).default([]),
  repositories_removed: z.array(repository.partial({ full_name: true })).default([]),
  sender,
});

export const issueCommentEventSchema = z.looseObject({
  action: z.string().min(1).max(64),
  issue: z.looseObject({ number: z.number().int().positive(), pull_request: z.looseObject({}).nullish() }),
  comment: z.looseObject({ id, body: z.string().nullish(), user: commenter, author_association: z.string() }),
  repository,
  installation: z.looseObject({ id }).nullish(),
});

export const checkRunEventSchema = z.looseObject({
  action: z.string().min(1).max(64),
  check_run: z.looseObject({
    name: z.string(),
    head_sha: z.string().min(1).max(64),
    app: z.looseObject({ id: z.number().int() }).nullish(),
    pull_requests: z.array(z.looseObject({ number: z.number().int().positive() })).default([]),
  }),
  repository,
  installation: z.looseObject({ id }).nullish(),
  sender: sender.nullish(),
});

export const reviewCommentEventSchema = z.looseObject({
  action: z.string().min(1).max(64),
  comment: z.looseObject({ id, in_reply_to_id: z.number().int().nullish(), body: z.string().nullish(), user: commenter, author_association: z.string() }),
  pull_request: z.looseObject({ number: z.number().int().positive() }),
  repository,
  installation: z.looseObject({ id }).nullish(),
});

export type InstallationEvent = z.infer<typeof installationEventSchema>;
