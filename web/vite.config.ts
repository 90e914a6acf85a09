import { fileURLToPath } from 'node:url';
import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

/** The API the dev server proxies to (`npm run dev:web`): the service started with `npm start` or `npm run dev`. */
const api = process.env.API_URL ?? 'http://127.0.0.1:3000';

// Every API mount point; the app's own paths (/, /pulls, /chat, /settings, /login, …) stay with Vite.
const apiPrefixes = ['/auth', '/byok', '/conversation', '/review', '/pull-request', '/workspace', '/users', '/usage', '/webhook', '/github', '/docs', '/healthz', '/readyz'];

export default defineConfig({
  root: fileURLToPath(new URL('.', import.meta.url)),
  plugins: [react()],
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    // No inline scripts or data-URL modules: the service's CSP allows scripts from 'self' only.
    assetsInlineLimit: 0,
    modulePreload: { polyfill: false },
    chunkSizeWarningLimit: 800,
  },
  server: {
    port: 5173,
    proxy: Object.fromEntries(
      apiPrefixes.map((prefix) => [
        prefix,
        {
          target: api,
          // A browser navigating to /pulls is the app; only API calls (fetch) go to the service.
          bypass: (request: { headers: { accept?: string } }) => (request.headers.accept?.includes('text/html') ? '/index.html' : undefined),
        },
      ]),
    ),
  },
});
