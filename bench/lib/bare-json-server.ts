import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { spawnTsx, type TsxProcess } from './tsx-process.js';

/** The yardstick: a Node HTTP server that only reads the body, parses the JSON and answers 200. */
export function serveBareJson(): Promise<string> {
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      JSON.parse(Buffer.concat(chunks).toString('utf8'));
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end('{"message":"The request has succeeded."}');
    });
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(`http://127.0.0.1:${(server.address() as AddressInfo).port}`)));
}

/** The bare server in its own process, like the service. */
export function startBareJsonServer(): Promise<TsxProcess> {
  return spawnTsx(fileURLToPath(new URL('./bare-json-server-main.ts', import.meta.url)));
}
