import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FastifyPluginAsync, FastifyReply } from 'fastify';
import fastifyStatic from '@fastify/static';
import { PAGE_SECURITY_HEADERS } from '../../lib/page-headers.ts';

/** Where `npm run build` (Vite) puts the dashboard. */
export const DEFAULT_DASHBOARD_DIR = fileURLToPath(new URL('../../../web/dist', import.meta.url));

/** Paths that belong to the server: an unknown one there is the JSON 404, never the app. */
const SERVER_PREFIXES = ['/api', '/assets/', '/docs', '/openapi.json', '/healthz', '/metrics', '/reset', '/key', '/go/'];

const MISSING_PAGE = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Keyward: dashboard not built</title>
<style>body{font-family:system-ui,sans-serif;max-width:40rem;margin:4rem auto;padding:0 1rem;line-height:1.5}code{background:#eee;padding:.1rem .3rem}</style></head>
<body><h1>The dashboard is not built</h1>
<p>This Keyward server is running, but the dashboard files (<code>web/dist</code>) are missing.
Run <code>npm run build</code> (or <code>npm install</code>, which builds it) in the Keyward folder, then reload this page.</p>
<p>The API works without it: see <a href="/docs">/docs</a>.</p></body></html>
`;

export interface DashboardOptions {
  /** The built app; tests point it elsewhere. */
  distDir?: string;
}

function isServerPath(path: string): boolean {
  return SERVER_PREFIXES.some((prefix) => path === prefix || path.startsWith(prefix.endsWith('/') ? prefix : `${prefix}/`));
}

/**
 * Serves the single-page dashboard at `/` (contract §9): hashed assets with a year-long cache, and
 * index.html for every other non-server path so that links such as /services/…/keys open the app.
 */
const dashboardRoutes: FastifyPluginAsync<DashboardOptions> = async (app, options) => {
  const distDir = options.distDir ?? DEFAULT_DASHBOARD_DIR;
  const indexPath = join(distDir, 'index.html');
  // Read once it exists; a server started before the build picks the app up without a restart.
  let indexHtml: string | null = null;
  const readIndex = () => (indexHtml ??= existsSync(indexPath) ? readFileSync(indexPath, 'utf8') : null);

  await app.register(fastifyStatic, {
    root: join(distDir, 'assets'),
    prefix: '/assets/',
    // Vite names every asset by its content hash, so a file under /assets/ never changes.
    immutable: true,
    maxAge: '365d',
    index: false,
    decorateReply: false,
    schemaHide: true,
  });

  const sendApp = (reply: FastifyReply) => {
    const html = readIndex();
    reply.header('cache-control', 'no-cache').headers(PAGE_SECURITY_HEADERS).type('text/html; charset=utf-8');
    if (html === null) return reply.status(200).send(MISSING_PAGE);
    return reply.send(html);
  };

  app.get('/', { schema: { hide: true } }, async (_request, reply) => sendApp(reply));
  app.get('/*', { schema: { hide: true } }, async (request, reply) => {
    const path = request.url.split('?')[0]!;
    if (isServerPath(path)) return reply.callNotFound();
    return sendApp(reply);
  });
};

export default dashboardRoutes;
