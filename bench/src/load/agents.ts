import { TokenService } from '@hitl/auth';
import type { InquiryResult, Role } from '@hitl/protocol';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Progress } from '@modelcontextprotocol/sdk/types.js';

let tokens: TokenService | undefined;

/** A token for `user`, signed with the run's secret. */
export function token(secret: string, user: string, role: Role): Promise<string> {
  tokens ??= new TokenService(secret);
  return tokens.sign({ sub: user, role, name: `bench ${role}` });
}

/** An official MCP SDK client for one agent token on one node (stateless Streamable HTTP). */
export async function agentClient(url: string, bearer: string): Promise<Client> {
  const client = new Client({ name: 'hitl-bench', version: '1.0.0' });
  const transport = new StreamableHTTPClientTransport(new URL(`${url}/mcp`), {
    requestInit: { headers: { Authorization: `Bearer ${bearer}` } },
  });
  await client.connect(transport);
  return client;
}

export interface SendOptions {
  /** Sets a progress token: the node then sends the inquiry id at once and heartbeats after. */
  onprogress?: (progress: Progress) => void;
  timeoutMs?: number;
}

/** `tools/call send_inquiry`, resolved with the structured result the call resumes with. */
export async function sendInquiry(
  client: Client,
  args: Record<string, unknown>,
  options: SendOptions = {},
): Promise<InquiryResult> {
  const timeout = options.timeoutMs ?? 600_000;
  const result = await client.callTool({ name: 'send_inquiry', arguments: args }, undefined, {
    timeout,
    maxTotalTimeout: timeout,
    ...(options.onprogress ? { onprogress: options.onprogress, resetTimeoutOnProgress: true } : {}),
  });
  const structured = result.structuredContent as InquiryResult | undefined;
  if (!structured) throw new Error(`send_inquiry returned no structuredContent: ${JSON.stringify(result)}`);
  return structured;
}
