// A worker thread's entry (outline-pool.ts): the service runs its TypeScript through tsx, whose
// loader a worker does not inherit, so it is registered here before the outline code is imported.
import { register } from 'tsx/esm/api';

register();
await import('./outline-worker.js');
