/** A raw JSON-RPC POST to `${url}/mcp` with `token`, as an agent's client sends it (a held call answers on SSE). */
export function postMcp(url: string, token: string, message: unknown): Promise<Response> {
  return fetch(`${url}/mcp`, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${token}`,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
    },
    body: JSON.stringify(message),
  });
}
