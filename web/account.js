// The pages the account mails link to: /verify-email?token= confirms the address at once;
// /reset-password?token= checks the token, then asks for the new password. Both only call the
// public REST API and say what happened.
const token = new URLSearchParams(location.search).get('token') ?? '';
const outcome = document.getElementById('outcome');
const title = document.getElementById('title');

const say = (text, ok) => {
  outcome.textContent = text;
  outcome.className = `outcome ${ok ? 'ok' : 'bad'}`;
};

async function call(method, path, body) {
  const res = await fetch(path, { method, headers: body ? { 'content-type': 'application/json' } : {}, body: body ? JSON.stringify(body) : undefined });
  const data = await res.json().catch(() => ({}));
  return { ok: res.ok, status: res.status, data };
}

async function verifyEmail() {
  title.textContent = 'Confirm your email address';
  if (!token) return say('This link has no token. Open the link from the mail as it is.', false);
  const res = await call('POST', '/v1/users/auth/verify-email/confirm', { token });
  if (res.ok) return say('Your email address is confirmed. You can close this page.', true);
  say(`The address could not be confirmed: ${res.data.detail ?? `error ${res.status}`}. Links work once and expire; ask for a new mail from the console.`, false);
}

async function resetPassword() {
  title.textContent = 'Choose a new password';
  if (!token) return say('This link has no token. Open the link from the mail as it is.', false);
  const status = await call('GET', `/v1/users/auth/reset-password?token=${encodeURIComponent(token)}`);
  if (!status.ok || !status.data.valid) return say('This reset link is no longer valid (links work once and expire). Ask for a new one from the console.', false);
  say(`The link is valid until ${new Date(status.data.expiresAt).toLocaleString()}.`, true);
  const form = document.getElementById('reset-form');
  form.hidden = false;
  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    const password = document.getElementById('password').value;
    if (password !== document.getElementById('password2').value) return say('The two passwords differ.', false);
    const res = await call('POST', '/v1/auth/web/reset-password-confirm', { token, password });
    if (!res.ok) return say(`The password was not changed: ${res.data.detail ?? `error ${res.status}`}`, false);
    form.hidden = true;
    say(`Your password is changed, and ${res.data.revokedTokens} signed-in session${res.data.revokedTokens === 1 ? ' was' : 's were'} signed out. Sign in with the new password.`, true);
  });
}

(location.pathname === '/reset-password' ? resetPassword() : verifyEmail()).catch((err) => say(`Something went wrong: ${err.message}`, false));
