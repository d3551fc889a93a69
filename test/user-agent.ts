/**
 * A browser, as far as OAuth flows care: it keeps the cookies one origin sets (name, value, path,
 * Max-Age=0 deletes), sends them back to that origin on matching paths, and never follows
 * redirects by itself. Two of them are two people's browsers.
 */
export interface UserAgent {
  fetch(url: string, init?: { method?: string; headers?: Record<string, string>; body?: string }): Promise<Response>;
  /** Cookie names it holds for the origin. */
  cookies(): string[];
}

export function userAgent(origin: string): UserAgent {
  const jar = new Map<string, { value: string; path: string }>();
  return {
    async fetch(url, init = {}) {
      const u = new URL(url);
      const headers = { ...(init.headers ?? {}) };
      if (u.origin === origin) {
        const sent = [...jar].filter(([, c]) => u.pathname === c.path || u.pathname.startsWith(c.path.endsWith('/') ? c.path : `${c.path}/`));
        if (sent.length) headers.cookie = sent.map(([name, c]) => `${name}=${c.value}`).join('; ');
      }
      const res = await fetch(url, { ...init, headers, redirect: 'manual' });
      if (u.origin === origin) {
        for (const line of res.headers.getSetCookie()) {
          const [pair, ...attrs] = line.split(';').map((p) => p.trim());
          const i = pair.indexOf('=');
          const name = pair.slice(0, i);
          const attr = (key: string) => attrs.find((a) => a.toLowerCase().startsWith(`${key}=`))?.slice(key.length + 1);
          if (attr('max-age') === '0') jar.delete(name);
          else jar.set(name, { value: pair.slice(i + 1), path: attr('path') ?? '/' });
        }
      }
      return res;
    },
    cookies: () => [...jar.keys()],
  };
}
