// The developer console: a plain ES module that talks only to the public REST API.
const EVENTS = ['orderCreated', 'orderUpdated', 'orderDeleted', 'productCreated', 'productUpdated', 'productDeleted'];
const $ = (id) => document.getElementById(id);
const state = { token: sessionStorage.getItem('souk.token'), storeId: null, webhooks: [], selected: null, stream: null, epoch: 0 };

/** One REST call; a problem+json answer becomes an Error with its detail. */
async function api(method, path, body) {
  // An answer that arrives after sign-out (or a switch of session) is dropped: the caller never resumes.
  const epoch = state.epoch;
  const headers = { accept: 'application/json' };
  if (state.token) headers.authorization = `Bearer ${state.token}`;
  if (body !== undefined) headers['content-type'] = 'application/json';
  const res = await fetch(path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  if (epoch !== state.epoch) return new Promise(() => {});
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

/** Puts a table's rows in place, each cell labelled with its column's heading (phones show it beside the value). */
function fillTable(id, rows) {
  const headings = [...$(id).tHead.rows[0].cells].map((th) => th.textContent);
  for (const tr of rows) for (const td of tr.cells) if (headings[td.cellIndex]) td.dataset.label = headings[td.cellIndex];
  $(id).tBodies[0].replaceChildren(...rows);
}

function button(label, onClick) {
  const b = document.createElement('button');
  b.type = 'button';
  b.textContent = label;
  b.addEventListener('click', onClick);
  return b;
}

/** Every view back to empty: nothing of one user's session may show in the next one's. */
function clearViews() {
  state.epoch++;
  state.stream?.abort();
  state.stream = null;
  state.storeId = null;
  state.webhooks = [];
  state.selected = null;
  for (const id of ['webhooks', 'history', 'tokens']) $(id).tBodies[0].replaceChildren();
  $('events').replaceChildren();
  $('store-select').replaceChildren();
  $('live').textContent = 'offline';
  $('live').className = 'badge';
  $('history-for').textContent = '';
  $('send-test').disabled = true;
  $('secret-value').textContent = '';
  $('secret-box').hidden = true;
  $('who-name').textContent = '';
  for (const id of ['signin-error', 'signup-error', 'store-error', 'tokens-error']) $(id).textContent = '';
  resetForm();
}

function signOut() {
  state.token = null;
  sessionStorage.removeItem('souk.token');
  clearViews();
  $('store-view').hidden = true;
  $('who').hidden = true;
  $('signin-view').hidden = false;
}

async function startSession(token) {
  clearViews();
  state.token = token;
  sessionStorage.setItem('souk.token', token);
  await showStores();
}

async function signIn(event) {
  event.preventDefault();
  $('signin-error').textContent = '';
  try {
    const { token } = await api('POST', '/v1/users/auth/signin', { email: $('signin-email').value, password: $('signin-password').value });
    $('signin-password').value = '';
    await startSession(token);
  } catch (err) {
    $('signin-error').textContent = err.message;
  }
}

async function signUp(event) {
  event.preventDefault();
  $('signup-error').textContent = '';
  try {
    const { token } = await api('POST', '/v1/users/auth/signup', { name: $('signup-name').value, email: $('signup-email').value, password: $('signup-password').value });
    $('signup-password').value = '';
    await startSession(token);
  } catch (err) {
    $('signup-error').textContent = err.message;
  }
}

async function createStore(event) {
  event.preventDefault();
  $('store-error').textContent = '';
  try {
    const store = await api('POST', '/v1/stores', { name: $('store-name').value });
    $('store-name').value = '';
    await showStores(store.id);
  } catch (err) {
    $('store-error').textContent = err.message;
  }
}

async function loadTokens() {
  const { data } = await api('GET', '/v1/users/auth/tokens?limit=200');
  const rows = data.map((t) => {
    const tr = document.createElement('tr');
    tr.dataset.id = t.id;
    tr.append(
      cell(`${t.name ?? t.app?.name ?? '—'}${t.current ? ' (this session)' : ''}`),
      cell(t.kind),
      cell(t.last4 ?? '—'),
      cell(new Date(t.createdAt).toLocaleString()),
      cell(t.lastUsedAt ? new Date(t.lastUsedAt).toLocaleString() : '—'),
    );
    const actions = document.createElement('td');
    actions.append(
      button('Revoke', async () => {
        if (!confirm(t.current ? 'Revoke this session? You will be signed out.' : `Revoke ${t.name ?? 'this token'}?`)) return;
        try {
          await api('DELETE', `/v1/users/auth/tokens/${encodeURIComponent(t.id)}`);
          if (t.current) return signOut();
          await loadTokens();
        } catch (err) {
          $('tokens-error').textContent = err.message;
        }
      }),
    );
    tr.append(actions);
    return tr;
  });
  fillTable('tokens', rows);
}

async function showStores(pick) {
  const me = await api('GET', '/v1/users/auth');
  $('who-name').textContent = me.name ?? me.email;
  $('who').hidden = false;
  $('signin-view').hidden = true;
  $('store-view').hidden = false;
  const { data } = await api('GET', '/v1/stores?limit=200');
  const select = $('store-select');
  select.replaceChildren(...data.map((s) => Object.assign(document.createElement('option'), { value: s.id, textContent: s.name })));
  $('no-store').hidden = data.length > 0;
  $('store-panels').hidden = data.length === 0;
  await loadTokens();
  if (!data.length) return;
  const storeId = data.some((s) => s.id === pick) ? pick : data[0].id;
  select.value = storeId;
  await chooseStore(storeId);
}

async function chooseStore(storeId) {
  state.stream?.abort();
  state.storeId = storeId;
  state.selected = null;
  $('events').replaceChildren();
  $('secret-box').hidden = true;
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
      cell(w.url, 'url'),
      cell(w.events.length === EVENTS.length ? 'all' : w.events.join(', ') || 'none'),
      cell(w.active ? 'yes' : 'no'),
    );
    const actions = document.createElement('td');
    actions.append(
      button('History', () => select(w.id)),
      button('Test', () => sendTest(w.id)),
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
  fillTable('webhooks', rows);
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
    const actions = document.createElement('td');
    // Test sends are not kept for redelivery; real deliveries are sent again as they were.
    if (!d.test) {
      actions.append(
        button('Redeliver', async () => {
          await api('POST', `${hooksPath()}/${hook.id}/history/${d.id}/redeliver`, {}).catch((err) => alert(err.message));
          setTimeout(() => loadHistory().catch(() => {}), 600);
        }),
      );
    }
    tr.append(actions);
    tr.title = d.timings ? `dns ${d.timings.dns ?? '—'} · connect ${d.timings.connect ?? '—'} · tls ${d.timings.tls ?? '—'} · first byte ${d.timings.firstByte ?? '—'} ms` : '';
    return tr;
  });
  fillTable('history', rows);
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

async function sendTest(id = state.selected) {
  if (!id) return;
  $('send-test').disabled = true;
  try {
    await api('POST', `${hooksPath()}/${id}/test`, {});
  } finally {
    $('send-test').disabled = false;
  }
  await select(id);
}

/** The newest events first, at most 50, as the stream brings them. */
function showEvent(frame) {
  const name = /^event: ?(.*)$/m.exec(frame)?.[1] ?? 'message';
  const data = /^data: ?(.*)$/m.exec(frame)?.[1] ?? '';
  let summary = '';
  try {
    const e = JSON.parse(data);
    // The event's data holds the order or product it is about (the webhook payload's `data`).
    const subject = e.data?.order ?? e.data?.product;
    summary = `${new Date(e.timestamp).toLocaleTimeString()} ${name} ${subject?.id ?? ''}`;
  } catch {
    summary = name;
  }
  const li = Object.assign(document.createElement('li'), { textContent: summary });
  $('events').prepend(li);
  while ($('events').children.length > 50) $('events').lastElementChild.remove();
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
      if (ctl.signal.aborted) return;
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
          if (ctl.signal.aborted) return;
          if (/^data:/m.test(frame)) {
            showEvent(frame);
            later();
          }
        }
      }
    } catch {
      if (ctl.signal.aborted) return;
    }
    if (ctl.signal.aborted) return;
    $('live').textContent = 'reconnecting';
    $('live').className = 'badge';
    await new Promise((r) => setTimeout(r, Math.min(10_000, 500 * 2 ** attempt)));
  }
}

$('signin-form').addEventListener('submit', signIn);
$('signup-form').addEventListener('submit', signUp);
$('store-form').addEventListener('submit', createStore);
$('signout').addEventListener('click', async () => {
  await api('POST', '/v1/users/auth/signout').catch(() => {});
  signOut();
});
$('store-select').addEventListener('change', (e) => chooseStore(e.target.value));
$('webhook-form').addEventListener('submit', saveWebhook);
$('webhook-cancel').addEventListener('click', resetForm);
$('send-test').addEventListener('click', () => sendTest());
$('secret-copy').addEventListener('click', () => navigator.clipboard?.writeText($('secret-value').textContent));
renderEventBoxes(EVENTS);
if (state.token) showStores().catch(signOut);
