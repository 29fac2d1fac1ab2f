/**
 * What {@link listenOn} needs of a Node HTTP server; written out here so this package stays free of
 * Node's types (the web app imports it too).
 */
export interface ListenableServer {
  once(event: 'error', listener: (error: Error) => void): unknown;
  listen(port: number, host: string, listening: () => void): unknown;
  address(): unknown;
}

/** The URL a listener on `host:port` is reached at: IPv6 in brackets, the wildcard shown as loopback. */
export function listenUrl(host: string, port: number): string {
  const shown = host.includes(':') ? `[${host}]` : host;
  return `http://${shown === '0.0.0.0' ? '127.0.0.1' : shown}:${port}`;
}

/**
 * Listens on `host:port` (port 0: any free port) for the node, the decision service and the proxy;
 * resolves with the bound port and the URL to print, rejects when listening fails (port taken).
 */
export async function listenOn(
  server: ListenableServer,
  port: number,
  host: string,
): Promise<{ port: number; url: string }> {
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  const bound = (server.address() as { port: number }).port;
  return { port: bound, url: listenUrl(host, bound) };
}
