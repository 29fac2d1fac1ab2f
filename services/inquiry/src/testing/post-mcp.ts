/**
 * A raw JSON-RPC POST to `${url}/mcp` with `token`, as an agent's client sends it (a held call answers
 * on SSE); `session` names an MCP session (`Mcp-Session-Id`).
 */
export function postMcp(url: string, token: string, message: unknown, session?: string): Promise<Response> {
  return fetch(`${url}/mcp`, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${token}`,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      ...(session ? { 'mcp-session-id': session } : {}),
    },
    body: JSON.stringify(message),
  });
}
