/** GitHub caps a delivery at 25 MB; every host's webhook takes as much. */
export const WEBHOOK_BODY_LIMIT_BYTES = 25 * 1024 * 1024;

/** A header's first value. */
export const header = (value: string | string[] | undefined) => (Array.isArray(value) ? value[0] : value);
