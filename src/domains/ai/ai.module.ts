import type { EntityManager } from '@mikro-orm/postgresql';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { runsWork, type Module } from '../../core/module.js';
import { createContext, requireActor, type Deps } from '../../core/context.js';
import { AppError, notFound, problem } from '../../core/errors.js';
import { requireStorePermission } from '../../core/policy.js';
import { localImages } from '../../providers/local-images/local-images.js';
import { openAiImages } from '../../providers/openai-images/openai-images.js';
import type { ImageProvider } from '../../providers/images.js';
import { verifyAssetSignature } from './asset-urls.js';
import { AI_QUEUE, GENERATION_TIMEOUT_MS, imageProviders, RETRY_LIMIT } from './generation.service.js';
import { GenerationWorker } from './generation.worker.js';

/** The provider SOUK_AI_PROVIDER names; null when it is `openai` without an API key. */
export function configuredProvider(deps: Deps): ImageProvider | null {
  const c = deps.config;
  if (c.aiProvider === 'local') return localImages(deps.cpu);
  if (!c.aiApiKey) return null;
  return openAiImages({ url: c.aiImagesUrl, apiKey: c.aiApiKey, model: c.aiImageModel, timeoutMs: c.aiTimeoutMs, cpu: deps.cpu });
}

const UNVERIFIED = 'The signed URL is invalid or has expired';

function send(reply: FastifyReply, err: AppError): FastifyReply {
  return reply.code(err.status).type('application/problem+json').send(problem(err.code, err.message, err.errors));
}

/**
 * GET /v1/ai/assets/{id}: the PNG bytes, for a signed URL (`expires` + `signature`, no token) or
 * for a member of the asset's store with a bearer token. A signed URL that is expired or was
 * altered answers 401 with one body, whatever was wrong.
 */
async function serveAsset(deps: Deps, req: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> {
  const { id } = req.params as { id: string };
  const query = (req.query ?? {}) as Record<string, unknown>;
  const unknown = Object.keys(query).filter((k) => k !== 'expires' && k !== 'signature');
  if (unknown.length) {
    return send(reply, new AppError('BAD_REQUEST', `Unknown query parameter: ${unknown.join(', ')}`, unknown.map((path) => ({ path, message: 'is not a known query parameter' }))));
  }
  const em = deps.orm.em.fork() as EntityManager;
  const signed = query.expires !== undefined || query.signature !== undefined;
  if (signed) {
    if (!verifyAssetSignature(deps.config, id, query.expires, query.signature)) return send(reply, new AppError('UNAUTHENTICATED', UNVERIFIED));
  } else {
    try {
      const ctx = await createContext(deps, req.headers.authorization, req.ip);
      requireActor(ctx);
      const [row] = await em.execute<Array<{ store_id: string }>>('select store_id from ai_assets where id = ?', [id]);
      if (!row) throw notFound('asset');
      await requireStorePermission(ctx, row.store_id, 'store.read').catch((err) => {
        throw err instanceof AppError && err.code === 'NOT_FOUND' ? notFound('asset') : err;
      });
    } catch (err) {
      if (err instanceof AppError) return send(reply, err);
      throw err;
    }
  }
  const [asset] = await em.execute<Array<{ bytes: Buffer; mime: string; sha256: string }>>('select bytes, mime, sha256 from ai_assets where id = ?', [id]);
  if (!asset) return send(reply, notFound('asset'));
  const etag = `"${asset.sha256}"`;
  reply.header('etag', etag);
  // The bytes of an asset never change; the URL's own expiry bounds how long it may be fetched.
  reply.header('cache-control', 'private, max-age=3600');
  reply.header('x-content-type-options', 'nosniff');
  if (req.headers['if-none-match']?.split(',').some((t) => t.trim() === etag || t.trim() === `W/${etag}`)) return reply.code(304).send();
  return reply.code(200).type(asset.mime).header('content-disposition', `inline; filename="${id}.png"`).send(asset.bytes);
}

const problemResponse = (description: string) => ({
  description,
  content: { 'application/problem+json': { schema: { $ref: '#/components/schemas/Problem' } } },
});

/** AI brand studios' background half: the image provider, the generation queue and its workers, asset bytes. */
export const aiModule: Module = {
  name: 'ai',
  start: async (deps) => {
    imageProviders.set(deps, configuredProvider(deps));
    const { boss } = deps.queue;
    // Created at start, outside any transaction (embedded mode has one database session).
    await boss.createQueue(AI_QUEUE, {
      // The worker's own 120 s limit ends an attempt first; this only bounds a claim nobody settles.
      expireInSeconds: GENERATION_TIMEOUT_MS / 1000 + 5,
      retryLimit: RETRY_LIMIT,
      retryDelay: 1,
      retryBackoff: true,
      retryDelayMax: 60,
      deleteAfterSeconds: 86_400,
      notify: !deps.embedded,
    } as never);
    if (!runsWork(deps)) return;
    const worker = new GenerationWorker(deps, boss);
    await worker.start();
    return () => worker.stop();
  },
  http: {
    register: (app, deps) => {
      app.get('/v1/ai/assets/:id', (req, reply) => serveAsset(deps, req, reply));
    },
    paths: {
      '/v1/ai/assets/{id}': {
        get: {
          operationId: 'getAiAsset',
          summary: 'The PNG bytes of a generated asset: by its signed URL (no token), or with a bearer token of a member of its store',
          tags: ['ai'],
          security: [{ bearer: [] }, {}],
          'x-souk-policy': 'store: store.read of the asset\'s store, or a valid signed URL',
          parameters: [
            { name: 'id', in: 'path', required: true, schema: { type: 'string' } },
            { name: 'expires', in: 'query', required: false, schema: { type: 'string' }, description: 'Signed URLs: the expiry, Unix seconds.' },
            { name: 'signature', in: 'query', required: false, schema: { type: 'string' }, description: 'Signed URLs: the signature over id and expiry.' },
            { name: 'If-None-Match', in: 'header', required: false, schema: { type: 'string' } },
          ],
          responses: {
            '200': { description: 'The image (ETag: its SHA-256)', content: { 'image/png': { schema: { type: 'string', format: 'binary' } } } },
            '304': { description: 'Not modified (If-None-Match matched)' },
            '400': problemResponse('Unknown query parameter'),
            '401': problemResponse('No token, or a signed URL that is expired or altered'),
            '403': problemResponse('The token lacks the store.read scope'),
            '404': problemResponse('No such asset, or not a member of its store'),
          },
        },
      },
    },
  },
};
