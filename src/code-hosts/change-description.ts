/** A description as the service uses it: text, and not blank; else null. */
export const descriptionText = (body: unknown): string | null => (typeof body === 'string' && body.trim() !== '' ? body : null);
