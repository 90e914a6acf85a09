import { z } from 'zod';

const ownerSchema = z.object({ login: z.string(), type: z.string() });

export const githubAppStatusResponse = z.object({
  configured: z.boolean(),
  source: z.enum(['environment', 'database']).nullable().describe('Where the App in use comes from: GITHUB_APP_* variables (they win), or the manifest flow'),
  appId: z.string().nullable(),
  slug: z.string().nullable(),
  htmlUrl: z.string().nullable(),
  owner: ownerSchema.nullable().describe('The account that owns the App (null for an App from the environment)'),
});

// GitHub's rule for account logins: letters, digits and single hyphens, not at either end.
const organizationLogin = z
  .string()
  .trim()
  .max(39, 'must be at most 39 characters')
  .regex(/^[a-z\d](?:[a-z\d]|-(?=[a-z\d]))*$/i, 'must be a GitHub organization login');

export const manifestBody = z
  .object({ organization: organizationLogin.optional().describe('Create the App under this organization instead of your personal account') })
  // No body at all is a personal account's App, as `{}` is.
  .nullish()
  .transform((body) => body ?? {});

export const appManifestSchema = z.object({
  name: z.string(),
  url: z.string(),
  hook_attributes: z.object({ url: z.string(), active: z.boolean() }),
  redirect_url: z.string(),
  callback_urls: z.array(z.string()),
  setup_url: z.string(),
  public: z.boolean(),
  default_permissions: z.record(z.string(), z.enum(['read', 'write'])),
  default_events: z.array(z.string()),
});
export type AppManifest = z.infer<typeof appManifestSchema>;

export const manifestResponse = z.object({
  url: z.string().describe("GitHub's page that creates the App: the browser posts `manifest` (a form field holding the manifest as JSON) to it"),
  manifest: appManifestSchema,
  state: z.string().describe('Single-use, valid one hour; GitHub hands it back to the callback'),
});

export const manifestCallbackQuery = z.object({
  code: z.string().min(1).max(512),
  state: z.string().min(1).max(128),
});
