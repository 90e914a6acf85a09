/** The code hosts a pull request can come from. */
export const CODE_HOST_PROVIDERS = ['github', 'gitlab'] as const;
export type CodeHostProvider = (typeof CODE_HOST_PROVIDERS)[number];
