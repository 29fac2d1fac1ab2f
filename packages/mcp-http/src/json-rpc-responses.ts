/*
 * A POST that holds only JSON-RPC responses: what an MCP client sends back for a request the server
 * wrote on a held call's stream (an elicitation). The SDK v1 answers such a POST 202 and drops it,
 * so a service that elicits takes it before the SDK (EndpointSessions.takes).
 */

/** One JSON-RPC response, as a client POSTs it. */
export interface ResponseMessage {
  jsonrpc: '2.0';
  id: unknown;
  result?: unknown;
  error?: unknown;
}

function isResponse(message: unknown): message is ResponseMessage {
  if (typeof message !== 'object' || message === null || Array.isArray(message)) return false;
  const m = message as Record<string, unknown>;
  return m.method === undefined && 'id' in m && ('result' in m || 'error' in m);
}

/** True when a POST body holds JSON-RPC responses only (one, or a batch of them). */
export function isResponseOnly(body: unknown): boolean {
  return Array.isArray(body) ? body.length > 0 && body.every(isResponse) : isResponse(body);
}

/** The responses of a body {@link isResponseOnly} said yes to. */
export function responsesIn(body: unknown): ResponseMessage[] {
  return (Array.isArray(body) ? body : [body]) as ResponseMessage[];
}
