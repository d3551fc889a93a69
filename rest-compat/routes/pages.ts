import { group, route, type RestReply, type RestRequest } from '../route.js';
import { busyResponses } from '../replies.js';

export const PAGE = 'id storeId title slug body status publishedAt seo { title description } createdAt updatedAt';

const base = '/v1/pages';

interface PageView {
  slug: string;
  moved: boolean;
  title: string;
  html: string;
  seo: { title: string | null; description: string | null };
  updatedAt: string;
  etag: string;
}

/**
 * An old slug answers 301 to the current one; a page answers with its version's ETag and 304
 * when the client already holds it.
 */
function viewReply(value: PageView, req: RestRequest): RestReply {
  const storeId = String(req.query.storeId);
  if (value.moved) {
    return { status: 301, headers: { location: `${base}/view/${encodeURIComponent(value.slug)}?storeId=${encodeURIComponent(storeId)}` } };
  }
  const etag = value.etag;
  const headers = { etag, 'cache-control': 'no-cache' };
  const match = req.headers['if-none-match'];
  const tags = (Array.isArray(match) ? match.join(',') : (match ?? '')).split(',').map((t) => t.trim());
  if (tags.some((t) => t === etag || t === `W/${etag}` || t === '*')) return { status: 304, headers };
  const body = JSON.stringify({ title: value.title, html: value.html, seo: value.seo, updatedAt: value.updatedAt });
  return { status: 200, headers: { ...headers, 'content-type': 'application/json; charset=utf-8' }, body };
}

export default group('pages', [
  route({
    method: 'GET',
    path: base,
    summary: "A store's pages (?storeId=)",
    operation: `query($storeId: ID!, $limit: Int, $cursor: String, $status: PageStatus) { pages(storeId: $storeId, limit: $limit, cursor: $cursor, status: $status) { data { ${PAGE} } nextCursor } }`,
  }),
  route({
    method: 'POST',
    path: base,
    extraResponses: busyResponses,
    summary: 'Create a page (Markdown body; slug unique per store, no "_", "view" reserved)',
    status: 201,
    operation: `mutation($storeId: ID!, $input: PageInput!) { createPage(storeId: $storeId, input: $input) { ${PAGE} } }`,
  }),
  route({
    method: 'GET',
    path: `${base}/{id}`,
    summary: 'Show a page by id (pg_…) or by slug',
    operation: `query($storeId: ID!, $id: String!) { page(storeId: $storeId, id: $id) { ${PAGE} } }`,
  }),
  route({
    method: 'PATCH',
    path: `${base}/{id}`,
    extraResponses: busyResponses,
    summary: 'Change the given fields of a page (a new slug leaves a 301 behind)',
    operation: `mutation($storeId: ID!, $id: ID!, $input: PageUpdateInput!) { updatePage(storeId: $storeId, id: $id, input: $input) { ${PAGE} } }`,
  }),
  route({
    method: 'PUT',
    path: `${base}/{id}`,
    extraResponses: busyResponses,
    summary: 'Replace a page',
    operation: `mutation($storeId: ID!, $id: ID!, $input: PageInput!) { replacePage(storeId: $storeId, id: $id, input: $input) { ${PAGE} } }`,
  }),
  route({
    method: 'DELETE',
    path: `${base}/{id}`,
    summary: 'Delete a page',
    status: 204,
    operation: `mutation($storeId: ID!, $id: ID!) { deletePage(storeId: $storeId, id: $id) }`,
  }),
  route({
    method: 'GET',
    path: `${base}/view/{slug}`,
    summary: 'A published page as sanitized HTML {title, html, seo, updatedAt}, for anyone (ETag; an old slug → 301)',
    etag: true,
    operation: `query($storeId: ID!, $slug: String!) { pageView(storeId: $storeId, slug: $slug) { slug moved title html seo { title description } updatedAt etag } }`,
    reply: viewReply,
    responseSchema: {
      type: 'object',
      required: ['title', 'html', 'seo', 'updatedAt'],
      properties: { title: { type: 'string' }, html: { type: 'string' }, seo: { $ref: '#/components/schemas/Seo' }, updatedAt: { type: 'string' } },
    },
    extraResponses: {
      '301': { description: 'The slug is an old one: Location names the current one', headers: { Location: { schema: { type: 'string' } } } },
      '304': { description: 'Not Modified (If-None-Match matched the ETag)' },
      ...busyResponses,
      '404': { description: 'No published page with that slug in that store', content: { 'application/problem+json': { schema: { $ref: '#/components/schemas/Problem' } } } },
    },
  }),
]);
