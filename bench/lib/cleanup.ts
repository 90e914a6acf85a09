export type Defer = (cleanup: () => unknown) => void;

/**
 * Runs `body` and then, whatever happened, every cleanup it registered with `defer`, last first
 * (what was started last is stopped first). A failing cleanup does not skip the others; its error
 * is thrown if the body succeeded, else only logged: the body's own error is the one to read.
 */
export async function withCleanup<T>(body: (defer: Defer) => Promise<T>): Promise<T> {
  const cleanups: Array<() => unknown> = [];
  const runCleanups = async () => {
    const errors: unknown[] = [];
    for (const cleanup of cleanups.reverse()) {
      try {
        await cleanup();
      } catch (error) {
        errors.push(error);
      }
    }
    return errors;
  };
  let result: T;
  try {
    result = await body((cleanup) => cleanups.push(cleanup));
  } catch (error) {
    for (const cleanupError of await runCleanups()) console.error('cleanup failed:', cleanupError);
    throw error;
  }
  const errors = await runCleanups();
  if (errors.length > 0) throw errors[0];
  return result;
}
