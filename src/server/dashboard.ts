import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { PROJECT_ROOT } from '../lib/paths.js';
import type { Module } from '../core/module.js';

/** The dashboard's files, served as they are (plain modules, no build step). */
const DIR = join(PROJECT_ROOT, 'dashboard') + '/';
const FILES: Record<string, string> = {
  'index.html': 'text/html; charset=utf-8',
  'app.js': 'text/javascript; charset=utf-8',
  'style.css': 'text/css; charset=utf-8',
};

/**
 * GET /dashboard: the developer console. Sign up or in, create stores, list and revoke API tokens,
 * manage webhooks (test, history, redelivery) and watch the store's events live. It uses only the
 * public REST API, with the token kept in sessionStorage; sign-out clears every view.
 */
export const dashboardModule: Module = {
  name: 'dashboard',
  http: {
    register: (app) => {
      const bodies = new Map(Object.keys(FILES).map((f) => [f, readFileSync(DIR + f)]));
      const headers = (type: string) => ({
        'content-type': type,
        'cache-control': 'no-cache',
        // The page runs only its own script and talks only to this origin.
        'content-security-policy': "default-src 'self'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self' data:; frame-ancestors 'none'",
        'x-content-type-options': 'nosniff',
      });
      app.get('/dashboard', async (_req, reply) => reply.headers(headers(FILES['index.html'])).send(bodies.get('index.html')));
      app.get('/dashboard/:file', async (req, reply) => {
        const file = (req.params as { file: string }).file;
        const type = FILES[file];
        if (!type) return reply.callNotFound();
        return reply.headers(headers(type)).send(bodies.get(file));
      });
    },
  },
};
