import { isNativeShell } from '@hitl/mobile-shell';

const SERVER_KEY = 'hitl.server';

/**
 * The node this device connects to. A page served by a node talks to that node (its own origin). In
 * the native shell the page is bundled in the app, so the node is the one from the device link the
 * person pasted; `null` until then.
 */
export function nodeOrigin(
  storage: Storage,
  location: Location,
  native = isNativeShell(window),
): string | null {
  return native ? storage.getItem(SERVER_KEY) : location.origin;
}

/**
 * A pasted sign-in value: a device link (`https://node.example/?token=…`, as `hitl serve` prints it)
 * gives its token and remembers the node; anything else is taken as the token itself.
 */
export function tokenFromPaste(storage: Storage, value: string): string {
  const text = value.trim();
  if (!/^https?:\/\//i.test(text)) return text;
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return text;
  }
  const token = url.searchParams.get('token');
  if (!token) return text;
  storage.setItem(SERVER_KEY, url.origin);
  return token;
}

/** Remembers the node a pairing link named (what the native shell connects to from then on). */
export function rememberServer(storage: Storage, origin: string): void {
  storage.setItem(SERVER_KEY, origin);
}
