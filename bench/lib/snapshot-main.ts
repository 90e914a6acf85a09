import { GitHubClient } from '../../src/adapters/github/github-client.js';
import { GitHubSnapshotSource } from '../../src/code-hosts/github/github-snapshot-source.js';
import { SnapshotCache } from '../../src/code-context/snapshot/snapshot-cache.js';
import { processMemory } from './process-memory.js';

/** A worker's side of the code-snapshot bench: builds one snapshot and prints its figures as JSON. */
const [apiUrl, repository, commit, root] = process.argv.slice(2) as [string, string, string, string];
const client = new GitHubClient({ webUrl: apiUrl, apiUrl });
const cache = new SnapshotCache({ root, maxBytes: 200 * 1024 * 1024 });
const started = performance.now();
const cpu = process.cpuUsage();
const snapshot = await cache.open(new GitHubSnapshotSource(client, apiUrl, repository, 'bench', (call) => call(undefined)), commit, []);
const ms = performance.now() - started;
const { user, system } = process.cpuUsage(cpu);
const bytes = snapshot.files.reduce((sum, file) => sum + file.size, 0);
console.log(JSON.stringify({ ms, cpuMs: (user + system) / 1000, mode: snapshot.mode, files: snapshot.files.length, megabytes: bytes / 2 ** 20, peakRssMiB: processMemory(process.pid).peakRssMiB }));
