import { group, route } from '../route.js';
import { busyResponses } from '../replies.js';

const STUDIO = 'id storeId name brief { brandName tone keywords colors } primaries { logo icon cover palette } status createdAt updatedAt';
const GENERATION = `id studioId kind status progress prompt provider model seed n width height colors attempts
  assets { id url sha256 width height colors } error createdAt updatedAt`;
const TEMPLATE = 'id storeId name description prompt tags propsSchema props previewImageUrl createdAt updatedAt';

const studios = '/v1/ai/brand-studios';
const templates = '/v1/ai/image-prompt-templates';

export default group('ai', [
  route({
    method: 'GET',
    path: studios,
    summary: "A store's brand studios (?storeId=), newest first",
    operation: `query($storeId: ID!, $limit: Int, $cursor: String, $status: BrandStudioStatus) { brandStudios(storeId: $storeId, limit: $limit, cursor: $cursor, status: $status) { data { ${STUDIO} } nextCursor } }`,
  }),
  route({
    method: 'POST',
    path: studios,
    summary: 'Create a brand studio; `generate` queues one generation per kind (422 LIMIT_EXCEEDED over 8 unfinished or the daily quota)',
    status: 201,
    operation: `mutation($storeId: ID!, $input: BrandStudioCreateInput!) { createBrandStudio(storeId: $storeId, input: $input) { ${STUDIO} } }`,
    upstream: true,
  }),
  route({
    method: 'GET',
    path: `${studios}/{id}`,
    summary: 'Show a brand studio',
    operation: `query($storeId: ID!, $id: ID!) { brandStudio(storeId: $storeId, id: $id) { ${STUDIO} } }`,
  }),
  route({
    method: 'PATCH',
    path: `${studios}/{id}`,
    summary: 'Update a brand studio (the brief merges); `generate` queues generations',
    operation: `mutation($storeId: ID!, $id: ID!, $input: BrandStudioUpdateInput!) { updateBrandStudio(storeId: $storeId, id: $id, input: $input) { ${STUDIO} } }`,
    upstream: true,
  }),
  route({
    method: 'DELETE',
    path: `${studios}/{id}`,
    summary: 'Delete a brand studio with its generations and assets',
    status: 204,
    operation: `mutation($storeId: ID!, $id: ID!) { deleteBrandStudio(storeId: $storeId, id: $id) }`,
    upstream: true,
  }),
  route({
    method: 'GET',
    path: `${studios}/{id}/generations`,
    summary: "A studio's generations, newest first (progress also as aiGenerationUpdated events)",
    operation: `query($storeId: ID!, $id: ID!, $limit: Int, $cursor: String, $kind: ImageKind, $status: AiGenerationStatus) {
      brandStudioGenerations(storeId: $storeId, id: $id, limit: $limit, cursor: $cursor, kind: $kind, status: $status) { data { ${GENERATION} } nextCursor } }`,
  }),
  route({
    method: 'PATCH',
    path: `${studios}/{id}/primaries`,
    summary: 'Pick the logo, icon and cover among completed assets of this studio (others → 400), and the palette colours',
    operation: `mutation($storeId: ID!, $id: ID!, $input: BrandPrimariesInput!) { setBrandStudioPrimaries(storeId: $storeId, id: $id, input: $input) { ${STUDIO} } }`,
    upstream: true,
  }),
  route({
    method: 'GET',
    path: templates,
    summary: "Image prompt templates: the platform's, or with ?storeId= the store's own",
    operation: `query($storeId: ID, $limit: Int, $cursor: String, $tag: String, $q: String) { imagePromptTemplates(storeId: $storeId, limit: $limit, cursor: $cursor, tag: $tag, q: $q) { data { ${TEMPLATE} } nextCursor } }`,
  }),
  route({
    method: 'POST',
    path: templates,
    extraResponses: busyResponses,
    summary: 'Create an image prompt template (platform admins; with ?storeId= a store editor); every {{var}} must be declared in propsSchema',
    status: 201,
    operation: `mutation($storeId: ID, $input: ImagePromptTemplateCreateInput!) { createImagePromptTemplate(storeId: $storeId, input: $input) { ${TEMPLATE} } }`,
  }),
  route({
    method: 'GET',
    path: `${templates}/{id}`,
    summary: 'Show an image prompt template (platform, or with ?storeId= the store\'s own)',
    operation: `query($storeId: ID, $id: ID!) { imagePromptTemplate(storeId: $storeId, id: $id) { ${TEMPLATE} } }`,
  }),
  route({
    method: 'PATCH',
    path: `${templates}/{id}`,
    extraResponses: busyResponses,
    summary: 'Update an image prompt template; the result must still declare every {{var}}',
    operation: `mutation($storeId: ID, $id: ID!, $input: ImagePromptTemplateUpdateInput!) { updateImagePromptTemplate(storeId: $storeId, id: $id, input: $input) { ${TEMPLATE} } }`,
  }),
  route({
    method: 'DELETE',
    path: `${templates}/{id}`,
    summary: 'Delete an image prompt template',
    status: 204,
    operation: `mutation($storeId: ID, $id: ID!) { deleteImagePromptTemplate(storeId: $storeId, id: $id) }`,
  }),
]);
