// GraphiQL against this server: queries and mutations POST to /graphql, subscriptions stream
// over /graphql/stream (graphql-sse). The token field's value goes in the Authorization header;
// it is kept in sessionStorage under the console's key, so a console sign-in carries over.
const TOKEN_KEY = 'souk.token';
const tokenInput = document.getElementById('token');
tokenInput.value = sessionStorage.getItem(TOKEN_KEY) ?? '';
tokenInput.addEventListener('input', () => {
  const token = tokenInput.value.trim();
  if (token) sessionStorage.setItem(TOKEN_KEY, token);
  else sessionStorage.removeItem(TOKEN_KEY);
});
const auth = () => {
  const token = tokenInput.value.trim();
  return token ? { authorization: `Bearer ${token}` } : {};
};

const sse = graphqlSse.createClient({ url: '/graphql/stream', headers: auth, retryAttempts: 0 });

/**
 * Whether the operation to run is a subscription, read from the text sent (GraphiQL's parsed
 * document may still be the previous one's when the editor was just changed).
 */
const isSubscription = (params) => {
  const text = params.query.replace(/#[^\n]*/g, '');
  const named = params.operationName ? new RegExp(`\\b(query|mutation|subscription)\\s+${params.operationName}\\b`).exec(text) : null;
  const first = named ?? /(?:^|[}\s])(query|mutation|subscription)\b|^\s*\{/.exec(text);
  return first?.[1] === 'subscription';
};

function fetcher(given, opts) {
  // An operation name the text no longer has (GraphiQL updates it a moment after an edit) is dropped.
  const params = given.operationName && !new RegExp(`\\b${given.operationName}\\b`).test(given.query) ? { ...given, operationName: undefined } : given;
  if (isSubscription(params)) return sse.iterate(params);
  return fetch('/graphql', {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json', ...auth(), ...(opts?.headers ?? {}) },
    body: JSON.stringify(params),
  }).then((res) => res.json());
}

const defaultQuery = `# Sign in at /dashboard (or paste a token above), then run:
query Me {
  me { id email name }
  stores(limit: 5) { data { id name currency } }
}
`;

ReactDOM.createRoot(document.getElementById('graphiql')).render(
  React.createElement(GraphiQL, { fetcher, defaultQuery, defaultEditorToolsVisibility: false, shouldPersistHeaders: false }),
);
