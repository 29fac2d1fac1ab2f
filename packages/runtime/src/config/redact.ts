/*
 * What a configuration error may show of a value. A secret variable's value never; a URL's password
 * (and a query value named like a secret) as `***`, also in a URL that does not parse.
 */

const SCHEME = /^[a-z][a-z0-9+.-]*:\/\//i;
const SECRET_QUERY = /([?&][^=&#]*(?:pass|secret|token|key|auth|cred|sig)[^=&#]*=)[^&#]*/gi;

/** Where the credentials of a URL-like text are: `[start, end)` of its user info, and its password. */
function userInfo(
  text: string,
  bare: boolean,
): { start: number; end: number; password?: string } | undefined {
  const scheme = SCHEME.exec(text)?.[0];
  // Without `scheme://` a text is a URL only where one is expected (`ops@example.com` is an address).
  if (!scheme && !bare) return undefined;
  const start = scheme?.length ?? 0;
  const rest = text.slice(start);
  const authorityEnd = rest.search(/[/?#]/);
  const authority = authorityEnd < 0 ? rest : rest.slice(0, authorityEnd);
  let at = authority.lastIndexOf('@');
  // An `@` past the authority may close a password that holds a `/`, `?` or `#`: hide up to it too.
  if (at < 0) at = rest.lastIndexOf('@');
  if (at < 0) return undefined;
  const info = rest.slice(0, at);
  const colon = info.indexOf(':');
  return { start, end: start + at, ...(colon >= 0 ? { password: info.slice(colon + 1) } : {}) };
}

/**
 * The text with a URL's password replaced by `***` (`smtp://user:***@host`); a user part without a
 * password (often a token) is hidden whole (`https://***@host`). `bare`: the text is meant as a URL
 * (a `*_URL` variable), so a user part before an `@` counts even without `scheme://`.
 * @example redactUrl('redis://:hunter2@cache:6379') // 'redis://:***@cache:6379'
 */
export function redactUrl(text: string, { bare = false }: { bare?: boolean } = {}): string {
  const info = userInfo(text, bare);
  let out = text;
  if (info) {
    const user = text.slice(info.start, info.end);
    const shown = info.password === undefined ? '***' : `${user.slice(0, user.indexOf(':'))}:***`;
    out = `${text.slice(0, info.start)}${shown}${text.slice(info.end)}`;
  }
  return out.replace(SECRET_QUERY, '$1***');
}

/** The password a URL-like text carries, if any (`bare` as for {@link redactUrl}). */
export function urlPassword(text: string, { bare = false }: { bare?: boolean } = {}): string | undefined {
  return userInfo(text, bare)?.password || undefined;
}

/** `text` with every occurrence of each secret (four characters or more) replaced by `***`. */
export function scrub(text: string, secrets: Iterable<string>): string {
  let out = text;
  for (const secret of secrets) if (secret.length >= 4) out = out.split(secret).join('***');
  return out;
}
