/** The error and its `cause` chain (drizzle wraps driver errors in `cause`). */
function* causes(error: unknown): Generator<Error> {
  for (let current = error, depth = 0; current instanceof Error && depth < 5; depth++) {
    yield current;
    current = current.cause;
  }
}

const codeOf = (error: Error) => (error as { code?: unknown }).code;

/** PostgreSQL's unique_violation, as either driver reports it. */
export function isUniqueViolation(error: unknown): boolean {
  for (const current of causes(error)) if (codeOf(current) === '23505') return true;
  return false;
}

/** deadlock_detected or serialization_failure: the statement lost a race and may simply run again. */
export function isTransientConflict(error: unknown): boolean {
  for (const current of causes(error)) if (codeOf(current) === '40P01' || codeOf(current) === '40001') return true;
  return false;
}

// Connection-level failures of PostgreSQL (class 08, shutdown, too many connections) and of Redis.
const UNAVAILABLE_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'ENOTFOUND', '57P01', '57P03', '53300', '08000', '08001', '08003', '08006']);
const REDIS_DOWN = /Connection is closed|enableOfflineQueue|Stream isn't writeable/;

/** True when an error means a dependency (database, Redis) is down rather than a bug. */
export function isUnavailable(error: unknown): boolean {
  for (const current of causes(error)) {
    const code = codeOf(current);
    if (typeof code === 'string' && UNAVAILABLE_CODES.has(code)) return true;
    if (current.name === 'MaxRetriesPerRequestError' || REDIS_DOWN.test(current.message)) return true;
  }
  return false;
}
