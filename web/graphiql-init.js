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

const isSubscription = (params, opts) => {
  const ops = opts?.documentAST?.definitions?.filter((d) => d.kind === 'OperationDefinition') ?? [];
  const op = ops.find((d) => !params.operationName || d.name?.value === params.operationName);
  return op ? op.operation === 'subscription' : /^\s*subscription\b/m.test(params.query);
};

function fetcher(params, opts) {
  if (isSubscription(params, opts)) return sse.iterate(params);
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
