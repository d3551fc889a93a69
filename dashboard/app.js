// The webhook dashboard: a plain ES module that talks only to the public REST API.
const EVENTS = ['orderCreated', 'orderUpdated', 'orderDeleted', 'productCreated', 'productUpdated', 'productDeleted'];
const $ = (id) => document.getElementById(id);
const state = { token: sessionStorage.getItem('souk.token'), storeId: null, webhooks: [], selected: null, stream: null };

/** One REST call; a problem+json answer becomes an Error with its detail. */
async function api(method, path, body) {
  const headers = { accept: 'application/json' };
  if (state.token) headers.authorization = `Bearer ${state.token}`;
  if (body !== undefined) headers['content-type'] = 'application/json';
  const res = await fetch(path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  if (res.status === 401 && path !== '/v1/users/auth/signin') signOut();
  const text = await res.text();
  const data = text ? JSON.parse(text) : null;
  if (!res.ok) throw new Error(data?.detail ?? `${res.status} ${res.statusText}`);
  return data;
}

function cell(text, className) {
  const td = document.createElement('td');
  td.textContent = text;
  if (className) td.className = className;
  return td;
}

function button(label, onClick) {
  const b = document.createElement('button');
  b.type = 'button';
  b.textContent = label;
  b.addEventListener('click', onClick);
  return b;
}

function signOut() {
  state.token = null;
  sessionStorage.removeItem('souk.token');
  state.stream?.abort();
  $('store-view').hidden = true;
  $('who').hidden = true;
  $('signin-view').hidden = false;
}

async function signIn(event) {
  event.preventDefault();
  $('signin-error').textContent = '';
  try {
    const { token } = await api('POST', '/v1/users/auth/signin', { email: $('signin-email').value, password: $('signin-password').value });
    state.token = token;
    sessionStorage.setItem('souk.token', token);
    await showStores();
  } catch (err) {
    $('signin-error').textContent = err.message;
  }
}

async function showStores() {
  const me = await api('GET', '/v1/users/auth');
  $('who-name').textContent = me.name ?? me.email;
  $('who').hidden = false;
  $('signin-view').hidden = true;
  $('store-view').hidden = false;
  const { data } = await api('GET', '/v1/stores?limit=200');
  const select = $('store-select');
  select.replaceChildren(...data.map((s) => Object.assign(document.createElement('option'), { value: s.id, textContent: s.name })));
  if (data.length) await chooseStore(data[0].id);
}

async function chooseStore(storeId) {
  state.storeId = storeId;
  state.selected = null;
  resetForm();
  await loadWebhooks();
  await loadHistory();
  follow(storeId);
}

const hooksPath = () => `/v1/stores/${state.storeId}/integrations/webhooks`;

async function loadWebhooks() {
  const { data } = await api('GET', hooksPath());
  state.webhooks = data;
  const rows = data.map((w) => {
    const tr = document.createElement('tr');
    tr.dataset.id = w.id;
    if (w.id === state.selected) tr.className = 'selected';
    tr.append(
      cell(w.name),
      cell(w.url),
      cell(w.events.length === EVENTS.length ? 'all' : w.events.join(', ') || 'none'),
      cell(w.active ? 'yes' : 'no'),
    );
    const actions = document.createElement('td');
    actions.append(
      button('History', () => select(w.id)),
      button('Edit', () => editForm(w)),
      button('Delete', async () => {
        if (!confirm(`Delete ${w.name} and its history?`)) return;
        await api('DELETE', `${hooksPath()}/${w.id}`);
        if (state.selected === w.id) state.selected = null;
        await loadWebhooks();
        await loadHistory();
      }),
    );
    tr.append(actions);
    return tr;
  });
  $('webhooks').tBodies[0].replaceChildren(...rows);
}

async function select(id) {
  state.selected = id;
  await loadWebhooks();
  await loadHistory();
}

async function loadHistory() {
  const hook = state.webhooks.find((w) => w.id === state.selected);
  $('send-test').disabled = !hook;
  $('history-for').textContent = hook ? `of ${hook.name}` : '';
  if (!hook) return $('history').tBodies[0].replaceChildren();
  const { data } = await api('GET', `${hooksPath()}/${hook.id}/history`);
  const rows = data.map((d) => {
    const tr = document.createElement('tr');
    tr.dataset.id = d.id;
    tr.append(
      cell(new Date(d.createdAt).toLocaleString()),
      cell(d.test ? `${d.event} (test)` : d.event),
      cell(d.status, `status-${d.status}`),
      cell(d.statusCode ?? '—'),
      cell(`${d.timings?.total ?? d.responseTimeMs} ms`),
      cell(d.error ?? d.responseBody ?? '', 'response'),
    );
    tr.title = d.timings ? `dns ${d.timings.dns ?? '—'} · connect ${d.timings.connect ?? '—'} · tls ${d.timings.tls ?? '—'} · first byte ${d.timings.firstByte ?? '—'} ms` : '';
    return tr;
  });
  $('history').tBodies[0].replaceChildren(...rows);
}

function renderEventBoxes(checked) {
  $('webhook-events').replaceChildren(
    Object.assign(document.createElement('legend'), { textContent: 'Events' }),
    ...EVENTS.map((e) => {
      const label = document.createElement('label');
      label.className = 'inline';
      const box = Object.assign(document.createElement('input'), { type: 'checkbox', value: e, checked: checked.includes(e) });
      label.append(box, ` ${e} `);
      return label;
    }),
  );
}

function resetForm() {
  $('webhook-id').value = '';
  $('webhook-name').value = '';
  $('webhook-url').value = '';
  $('webhook-active').checked = true;
  renderEventBoxes(EVENTS);
  $('form-title').textContent = 'New webhook';
  $('webhook-save').textContent = 'Create';
  $('webhook-cancel').hidden = true;
  $('webhook-error').textContent = '';
}

function editForm(w) {
  $('webhook-id').value = w.id;
  $('webhook-name').value = w.name;
  $('webhook-url').value = w.url;
  $('webhook-active').checked = w.active;
  renderEventBoxes(w.events);
  $('form-title').textContent = `Edit ${w.name}`;
  $('webhook-save').textContent = 'Save';
  $('webhook-cancel').hidden = false;
}

async function saveWebhook(event) {
  event.preventDefault();
  $('webhook-error').textContent = '';
  const body = {
    name: $('webhook-name').value,
    url: $('webhook-url').value,
    active: $('webhook-active').checked,
    events: [...$('webhook-events').querySelectorAll('input:checked')].map((b) => b.value),
  };
  try {
    const id = $('webhook-id').value;
    if (id) {
      await api('PATCH', `${hooksPath()}/${id}`, body);
    } else {
      const created = await api('POST', hooksPath(), body);
      $('secret-value').textContent = created.secret;
      $('secret-box').hidden = false;
      state.selected = created.id;
    }
    resetForm();
    await loadWebhooks();
    await loadHistory();
  } catch (err) {
    $('webhook-error').textContent = err.message;
  }
}

async function sendTest() {
  if (!state.selected) return;
  $('send-test').disabled = true;
  try {
    await api('POST', `${hooksPath()}/${state.selected}/test`, {});
  } finally {
    $('send-test').disabled = false;
  }
  await loadHistory();
}

/**
 * Follows the store's SSE stream (fetch, since EventSource cannot send a bearer token); each
 * event may have caused deliveries, so the history is read again shortly after.
 */
async function follow(storeId) {
  state.stream?.abort();
  const ctl = new AbortController();
  state.stream = ctl;
  let refresh = null;
  const later = () => {
    clearTimeout(refresh);
    refresh = setTimeout(() => loadHistory().catch(() => {}), 600);
  };
  for (let attempt = 0; !ctl.signal.aborted; attempt++) {
    try {
      const res = await fetch(`/v1/stores/${storeId}/events/stream`, { headers: { authorization: `Bearer ${state.token}`, accept: 'text/event-stream' }, signal: ctl.signal });
      if (!res.ok) throw new Error(String(res.status));
      $('live').textContent = 'live';
      $('live').className = 'badge on';
      const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
      let buffer = '';
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        buffer += value;
        let end;
        while ((end = buffer.indexOf('\n\n')) !== -1) {
          const frame = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          if (/^data:/m.test(frame)) later();
        }
      }
    } catch {
      if (ctl.signal.aborted) return;
    }
    $('live').textContent = 'reconnecting';
    $('live').className = 'badge';
    await new Promise((r) => setTimeout(r, Math.min(10_000, 500 * 2 ** attempt)));
  }
}

$('signin-form').addEventListener('submit', signIn);
$('signout').addEventListener('click', async () => {
  await api('POST', '/v1/users/auth/signout').catch(() => {});
  signOut();
});
$('store-select').addEventListener('change', (e) => chooseStore(e.target.value));
$('webhook-form').addEventListener('submit', saveWebhook);
$('webhook-cancel').addEventListener('click', resetForm);
$('send-test').addEventListener('click', sendTest);
$('secret-copy').addEventListener('click', () => navigator.clipboard?.writeText($('secret-value').textContent));
renderEventBoxes(EVENTS);
if (state.token) showStores().catch(signOut);
