/** The code hosts a pull request can come from: the one list, which the registry (`src/code-hosts/registry.ts`) gives an implementation for each. */
export const HOST_KINDS = ['github', 'gitlab', 'bitbucket'] as const;
export type HostKind = (typeof HOST_KINDS)[number];
