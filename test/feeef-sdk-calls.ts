/**
 * Every public method of Feeef's SDK (feeef.js 0.12.12) that sends a request, by its place on the
 * `FeeeF` instance, with the request it sends below the base URL (paths as the face's OpenAPI
 * document writes them). `souk` says whether Souk does the job: those must be served by a face
 * route, the others must answer 501. Methods that throw without sending (the base repository's
 * deleteMany/updateMany/createMany where not overridden, reservations' create/update/delete,
 * movements' writes, receipts' and bills' update), take `never` inputs, or build URLs only
 * (buildAuthorizeUrl) are not requests and are not listed.
 */
export interface SdkCall {
  call: string;
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  path: string;
  souk: boolean;
}

const crud = (name: string, base: string, souk: boolean, only = ['find', 'list', 'create', 'update', 'delete']): SdkCall[] =>
  (
    [
      ['find', 'GET', `${base}/{id}`],
      ['list', 'GET', base],
      ['create', 'POST', base],
      ['update', 'PUT', `${base}/{id}`],
      ['delete', 'DELETE', `${base}/{id}`],
    ] as const
  )
    .filter(([m]) => only.includes(m))
    .map(([m, method, path]) => ({ call: `${name}.${m}`, method, path, souk }));

const calls = (name: string, souk: boolean, list: Array<[string, SdkCall['method'], string]>): SdkCall[] => list.map(([m, method, path]) => ({ call: `${name}.${m}`, method, path, souk }));

export const SDK_CALLS: SdkCall[] = [
  ...crud('stores', '/stores', true),
  ...calls('stores', true, [
    ['summary', 'GET', '/stores/{id}/summary'],
    ['chart', 'GET', '/stores/{id}/chart'],
    ['liteOrdersReport', 'GET', '/stores/{id}/analytics/lor'],
    ['addMember', 'POST', '/stores/{id}/members'],
    ['editMember', 'PUT', '/stores/{id}/members/{memberId}'],
    ['removeMember', 'DELETE', '/stores/{id}/members/{memberId}'],
  ]),
  ...calls('stores', false, [
    ['upgrade', 'POST', '/stores/{id}/subscription/upgrade'],
    ['charge', 'POST', '/stores/{id}/subscription/charge'],
    ['payDue', 'POST', '/stores/{id}/subscription/payDue'],
    ['putTemplatePreview', 'PUT', '/stores/{id}/template-preview'],
    ['clearTemplatePreview', 'DELETE', '/stores/{id}/template-preview'],
    ['getTemplatePreview', 'GET', '/stores/{id}/template-preview'],
  ]),
  ...calls('stores.invites', true, [
    ['list', 'GET', '/stores/{id}/invites'],
    ['create', 'POST', '/stores/{id}/invites'],
    ['get', 'GET', '/stores/{id}/invites/{inviteId}'],
    ['revoke', 'DELETE', '/stores/{id}/invites/{inviteId}'],
    ['accept', 'POST', '/stores/{id}/invites/{inviteId}/accept'],
  ]),

  ...crud('products', '/products', true),
  ...calls('products', true, [
    ['sells', 'GET', '/stores/{storeId}/products/{productId}/sells'],
    ['report', 'GET', '/stores/{storeId}/products/{productId}/report'],
    ['liteOrdersReport', 'GET', '/stores/{storeId}/products/{productId}/analytics/lor'],
  ]),
  ...calls('products', false, [['random', 'GET', '/products/random']]),

  ...crud('productLandingPages', '/product_landing_pages', true),
  ...calls('productLandingPages', true, [['liteOrdersReport', 'GET', '/stores/{storeId}/product_landing_pages/{landingPageId}/analytics/lor']]),
  ...crud('productLandingPageTemplates', '/product_landing_page_templates', false),
  ...crud('imagePromptTemplates', '/image_prompt_templates', true),
  ...calls('imageGenerations', false, [
    ['list', 'GET', '/image_generations'],
    ['gallery', 'GET', '/image_generations/gallery'],
    ['find', 'GET', '/image_generations/{id}'],
    ['createImageGeneration', 'POST', '/image_generations/generate'],
    ['generateImageGeneration', 'POST', '/image_generations/generate'],
    ['rerunGeneration', 'POST', '/image_generations/{id}/generate'],
    ['setPublished', 'PATCH', '/image_generations/{id}'],
    ['delete', 'DELETE', '/image_generations/{id}'],
  ]),
  ...crud('templateComponents', '/template_components', true),
  ...calls('templateComponents', true, [['fork', 'POST', '/template_components/{id}/fork']]),

  ...crud('storeTemplates', '/store_templates', true),
  ...calls('storeTemplates', true, [
    ['listLocales', 'GET', '/store_templates/{id}/locales'],
    ['createLocale', 'POST', '/store_templates/{id}/locales'],
    ['updateLocale', 'PUT', '/store_templates/{id}/locales/{locale}'],
    ['deleteLocale', 'DELETE', '/store_templates/{id}/locales/{locale}'],
    ['replaceLocales', 'PUT', '/store_templates/{id}/locales'],
  ]),
  ...calls('storeTemplates', false, [
    ['getDefault', 'GET', '/store_templates/default'],
    ['fork', 'POST', '/store_templates/{id}/fork'],
    ['install', 'POST', '/store_templates/{id}/install'],
    ['purchase', 'POST', '/store_templates/{id}/purchase'],
    ['listReleases', 'GET', '/store_templates/{id}/releases'],
    ['getRelease', 'GET', '/store_templates/{id}/releases/{releaseId}'],
    ['createRelease', 'POST', '/store_templates/{id}/releases'],
    ['renderRelease', 'GET', '/store_templates/{id}/releases/{releaseId}/render'],
    ['listReviews', 'GET', '/store_templates/{id}/reviews'],
    ['upsertReview', 'POST', '/store_templates/{id}/reviews'],
    ['earnings', 'GET', '/store_templates_earnings'],
  ]),

  ...crud('users', '/users', true),
  ...calls('users', true, [
    ['signin', 'POST', '/users/auth/signin'],
    ['signup', 'POST', '/users/auth/signup'],
    ['signinWithToken', 'GET', '/users/auth'],
    ['createAuthCode', 'POST', '/users/auth/code'],
    ['signinWithCode', 'POST', '/users/auth/code/consume'],
    ['signout', 'POST', '/users/auth/signout'],
    ['me', 'GET', '/users/auth'],
    ['updateMe', 'PUT', '/users/auth'],
    ['sendResetPasswordEmail', 'POST', '/users/auth/reset-password'],
    ['resetPasswordWithToken', 'GET', '/users/auth/reset-password'],
    ['tokens', 'GET', '/users/auth/tokens'],
    ['revokeAccessToken', 'DELETE', '/users/auth/tokens/{identifier}'],
    ['revokeAllAccessTokens', 'POST', '/users/auth/tokens/revoke-all'],
    ['connectedApps', 'GET', '/users/auth/connected-apps'],
  ]),
  ...calls('users', false, [
    ['signinWithGoogle', 'POST', '/social/google/callback'],
    ['signinWithGitHub', 'POST', '/social/github/callback'],
    ['signinWithApple', 'POST', '/social/apple/callback'],
    ['linkSocialAccount', 'POST', '/social/{provider}/link/callback'],
    ['unlinkSocialAccount', 'POST', '/social/unlink'],
    ['transferMoney', 'POST', '/users/auth/transfer'],
    ['startPasskeyRegistration', 'POST', '/passkeys/register/start'],
    ['finishPasskeyRegistration', 'POST', '/passkeys/register/finish'],
    ['startPasskeyAuthentication', 'POST', '/passkeys/authenticate/start'],
    ['finishPasskeyAuthentication', 'POST', '/passkeys/authenticate/finish'],
    ['listPasskeys', 'GET', '/passkeys'],
    ['deletePasskey', 'DELETE', '/passkeys/{id}'],
  ]),

  ...crud('apps', '/apps', true),
  ...calls('apps', true, [
    ['regenerateSecret', 'POST', '/apps/{id}/regenerate-secret'],
    ['getPublicData', 'GET', '/apps/{id}/public-data'],
    ['getPrivateData', 'GET', '/apps/{id}/private-data'],
    ['putPublicData', 'PUT', '/apps/{id}/public-data'],
    ['putPrivateData', 'PUT', '/apps/{id}/private-data'],
    ['getUserDataMe', 'GET', '/apps/{id}/user-data/me'],
    ['putUserDataMe', 'PUT', '/apps/{id}/user-data/me'],
    ['getUserDataForUser', 'GET', '/apps/{id}/user-data/users/{userId}'],
    ['putUserDataForUser', 'PUT', '/apps/{id}/user-data/users/{userId}'],
  ]),
  ...calls('oauth', true, [
    ['exchangeAuthorizationCode', 'POST', '/oauth/token'],
    ['revokeToken', 'POST', '/oauth/revoke'],
    ['introspectToken', 'POST', '/oauth/introspect'],
  ]),

  ...crud('orders', '/orders', true),
  ...calls('orders', true, [
    ['send', 'POST', '/orders/send'],
    ['track', 'GET', '/orders/{id}/track'],
    ['calculate', 'POST', '/orders/calculate'],
    ['returnOrder', 'POST', '/orders/return'],
  ]),
  ...calls('orders', false, [
    ['assign', 'POST', '/orders/assign'],
    ['assignMany', 'POST', '/orders/assignMany'],
  ]),

  ...crud('deposits', '/deposits', false),
  ...calls('deposits', false, [
    ['send', 'POST', '/deposits/send'],
    ['createPayPalOrder', 'POST', '/deposits/paypal/create-order'],
    ['capturePayPalOrder', 'POST', '/deposits/paypal/capture-order'],
    ['getPayPalOrderStatus', 'GET', '/deposits/paypal/order/{orderId}'],
    ['accept', 'PUT', '/deposits/{id}'],
    ['reject', 'PUT', '/deposits/{id}'],
    ['cancel', 'PUT', '/deposits/{id}'],
  ]),
  ...crud('transfers', '/transfers', false),
  ...calls('transfers', false, [
    ['listByAccount', 'GET', '/transfers'],
    ['listByType', 'GET', '/transfers'],
    ['listByReferenceId', 'GET', '/transfers'],
  ]),

  ...calls('promos', true, [
    ['list', 'GET', '/promos'],
    ['find', 'GET', '/promos/{id}'],
    ['validate', 'POST', '/promos/validate'],
    ['create', 'POST', '/promos'],
  ]),

  ...crud('categories', '/categories', false),
  ...calls('categories', false, [
    ['listByStore', 'GET', '/categories'],
    ['listRootCategories', 'GET', '/categories'],
    ['listChildren', 'GET', '/categories'],
  ]),
  ...crud('countries', '/countries', false),
  ...calls('countries', false, [['findByCode', 'GET', '/countries/{id}']]),
  ...crud('states', '/states', true, ['list']),
  ...crud('states', '/states', false, ['find', 'create', 'update', 'delete']),
  ...calls('states', true, [
    ['listByCountry', 'GET', '/countries/{countryCode}/states'],
    ['findByCode', 'GET', '/countries/{countryCode}/states/{stateCode}'],
  ]),
  ...calls('states', false, [
    ['createByCountry', 'POST', '/countries/{countryCode}/states'],
    ['updateByCountry', 'PUT', '/countries/{countryCode}/states/{stateCode}'],
    ['deleteByCountry', 'DELETE', '/countries/{countryCode}/states/{stateCode}'],
  ]),
  ...crud('cities', '/cities', true, ['list']),
  ...crud('cities', '/cities', false, ['find', 'create', 'update', 'delete']),
  ...calls('cities', true, [['listByState', 'GET', '/countries/{countryCode}/states/{stateCode}/cities']]),
  ...calls('cities', false, [
    ['findByName', 'GET', '/countries/{countryCode}/states/{stateCode}/cities/{cityName}'],
    ['createByState', 'POST', '/countries/{countryCode}/states/{stateCode}/cities'],
    ['updateByState', 'PUT', '/countries/{countryCode}/states/{stateCode}/cities/{cityName}'],
    ['deleteByState', 'DELETE', '/countries/{countryCode}/states/{stateCode}/cities/{cityName}'],
    ['search', 'GET', '/cities/search'],
  ]),
  ...crud('currencies', '/currencies', true, ['find', 'list']),
  ...crud('currencies', '/currencies', false, ['create', 'update', 'delete']),
  ...calls('currencies', true, [['findByCode', 'GET', '/currencies/{id}']]),

  ...crud('shippingPrices', '/shipping_prices', true),
  ...calls('shippingPrices', true, [['listByStore', 'GET', '/shipping_prices']]),
  ...crud('shippingMethods', '/shipping_methods', true),
  ...calls('shippingMethods', true, [['listByStore', 'GET', '/shipping_methods']]),

  ...crud('feedbacks', '/feedbacks', false),
  ...calls('feedbacks', false, [
    ['addComment', 'POST', '/feedbacks/{id}/comments'],
    ['createWithFiles', 'POST', '/feedbacks'],
    ['updateWithFiles', 'PUT', '/feedbacks/{id}'],
  ]),

  ...calls('inventory.objects', true, [
    ['find', 'GET', '/inventory/objects/{id}'],
    ['list', 'GET', '/inventory/objects'],
    ['create', 'POST', '/inventory/objects'],
    ['update', 'PUT', '/inventory/objects/{id}'],
    ['delete', 'DELETE', '/inventory/objects/{id}'],
    ['deleteMany', 'POST', '/inventory/objects:batchDelete'],
    ['updateMany', 'POST', '/inventory/objects:batchUpdate'],
    ['applyDeltas', 'POST', '/inventory/objects/apply-deltas'],
  ]),
  ...crud('inventory.warehouses', '/inventory/warehouses', true),
  ...calls('inventory.warehouses', true, [['deleteMany', 'POST', '/inventory/warehouses:batchDelete']]),
  ...crud('inventory.aliases', '/inventory/aliases', false),
  ...calls('inventory.aliases', false, [['deleteMany', 'POST', '/inventory/aliases:batchDelete']]),
  ...calls('inventory.reservations', false, [
    ['find', 'GET', '/inventory/reservations/{id}'],
    ['list', 'GET', '/inventory/reservations'],
    // The SDK posts to `/inventory/reservations/{id}:release`, which the prefix answers.
    ['release', 'POST', '/inventory/reservations/{id}'],
    ['releaseMany', 'POST', '/inventory/reservations:batchRelease'],
  ]),
  ...calls('inventory.movements', true, [
    ['find', 'GET', '/inventory/movements/{id}'],
    ['list', 'GET', '/inventory/movements'],
  ]),
  ...calls('inventory', false, [
    ['reservationsByHolder', 'GET', '/inventory/reservations'],
    ['listProjects', 'GET', '/inventory/projects'],
    ['createProject', 'POST', '/inventory/projects'],
  ]),
  ...calls('inventory', true, [
    ['availability', 'GET', '/inventory/availability'],
    ['publicAvailability', 'POST', '/inventory/public/availability'],
  ]),

  ...crud('finance.suppliers', '/finance/suppliers', true),
  ...calls('finance.suppliers', true, [['deleteMany', 'POST', '/finance/suppliers:batchDelete']]),
  ...crud('finance.purchaseOrders', '/finance/purchase-orders', true, ['find', 'list', 'create', 'update']),
  ...crud('finance.purchaseOrders', '/finance/purchase-orders', false, ['delete']),
  ...calls('finance.purchaseOrders', true, [
    ['send', 'POST', '/finance/purchase-orders/{id}/send'],
    ['cancel', 'POST', '/finance/purchase-orders/{id}/cancel'],
    ['setStatus', 'POST', '/finance/purchase-orders/{id}/status'],
  ]),
  ...crud('finance.purchaseReceipts', '/finance/purchase-receipts', true, ['find', 'list', 'create', 'delete']),
  ...calls('finance.purchaseReceipts', true, [
    ['post', 'POST', '/finance/purchase-receipts/{id}/post'],
    ['void', 'POST', '/finance/purchase-receipts/{id}/void'],
  ]),
  ...crud('finance.financialAccounts', '/finance/financial-accounts', false),
  ...calls('finance.financialAccounts', false, [['deleteMany', 'POST', '/finance/financial-accounts:batchDelete']]),
  ...crud('finance.supplierBills', '/finance/supplier-bills', false, ['find', 'list', 'create', 'delete']),
  ...calls('finance.supplierBills', false, [['pay', 'POST', '/finance/supplier-bills/{id}/pay']]),
  ...crud('finance.supplierPayments', '/finance/supplier-payments', false, ['find', 'list', 'delete']),
  ...calls('finance.supplierPayments', false, [['void', 'POST', '/finance/supplier-payments/{id}/void']]),
  ...crud('finance.customerPayments', '/finance/customer-payments', false, ['find', 'list', 'delete']),
  ...calls('finance.customerPayments', false, [['void', 'POST', '/finance/customer-payments/{id}/void']]),
  ...crud('finance.expenses', '/finance/expenses', false),
  ...calls('finance.expenses', false, [['deleteMany', 'POST', '/finance/expenses:batchDelete']]),
  ...crud('finance.expenseCategories', '/finance/expense-categories', false),
  ...calls('finance', true, [['listSuppliers', 'GET', '/finance/suppliers']]),
  ...calls('finance', false, [
    ['listReceivables', 'GET', '/finance/receivables'],
    ['collectPayment', 'POST', '/finance/orders/{orderId}/collect'],
    ['overview', 'GET', '/finance/reports/overview'],
    ['cashPosition', 'GET', '/finance/reports/cash-position'],
    ['apAging', 'GET', '/finance/reports/ap-aging'],
    ['arAging', 'GET', '/finance/reports/ar-aging'],
    ['pnl', 'GET', '/finance/reports/pnl'],
    ['listGlAccounts', 'GET', '/finance/gl-accounts'],
    ['listJournalEntries', 'GET', '/finance/journal-entries'],
    ['trialBalance', 'GET', '/finance/reports/trial-balance'],
    ['balanceSheet', 'GET', '/finance/reports/balance-sheet'],
  ]),

  ...calls('actions', true, [['resolveComponents', 'POST', '/actions/resolveComponents']]),
  ...calls('actions', false, [['uploadCustomFieldFile', 'POST', '/actions/uploadCustomFieldFile']]),
  ...calls('notifications', false, [['send', 'POST', '/notifications/send']]),
  ...['upload', 'uploadBytes', 'uploadStoreFile', 'uploadProductImage', 'uploadStoreLogo', 'uploadStoreIcon', 'uploadUserAvatar', 'uploadFeedbackAttachment'].map(
    (m): SdkCall => ({ call: `storage.${m}`, method: 'POST', path: '/services/storage/upload', souk: false }),
  ),

  ...calls('integrations.yalidine', true, [['getDeliveryFees', 'GET', '/stores/{id}/integrations/yalidine/fees']]),
  ...calls('integrations.ecotrack', true, [
    ['getDeliveryFees', 'GET', '/stores/{id}/integrations/ecotrack/fees'],
    ['getStatistics', 'GET', '/stores/{id}/integrations/ecotrack/statistics'],
  ]),
  ...calls('integrations.ecotrack', false, [
    ['getFinancialData', 'GET', '/stores/{id}/integrations/ecotrack/finance'],
    ['getSyncStatus', 'GET', '/stores/{id}/integrations/ecotrack/sync/status'],
    ['triggerSync', 'POST', '/stores/{id}/integrations/ecotrack/sync'],
    ['triggerCashinSync', 'POST', '/stores/{id}/integrations/ecotrack/sync/cashin'],
  ]),
  ...['procolis', 'noest', 'zimou'].flatMap((p) =>
    calls(`integrations.${p}`, true, [
      ['getDeliveryFees', 'GET', `/stores/{id}/integrations/${p}/fees`],
      ['send', 'POST', `/stores/{id}/integrations/${p}/send`],
    ]),
  ),
  ...['ecomanager'].flatMap((p) =>
    calls(`integrations.${p}`, false, [
      ['getDeliveryFees', 'GET', `/stores/{id}/integrations/${p}/fees`],
      ['send', 'POST', `/stores/{id}/integrations/${p}/send`],
    ]),
  ),
  ...calls('integrations.googleSheets', false, [
    ['appendRow', 'POST', '/stores/{id}/integrations/google-sheets/append-row'],
    ['createSpreadsheet', 'POST', '/stores/{id}/integrations/google-sheets/create-spreadsheet'],
  ]),
];
