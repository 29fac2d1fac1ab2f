import type { Logger } from 'pino';

/** A standing approval that covered a call: its id (the audit names it). */
export interface StandingUse {
  id: string;
  uses: number;
}

/** Asks whether a standing approval covers a call, counting the use when one does: the port the call flow depends on. */
export interface StandingCheck {
  use(
    userId: string,
    call: { server: string; tool: string; arguments: Record<string, unknown> },
  ): Promise<StandingUse | null>;
}

export interface NodeStandingOptions {
  /** The inquiry node: its base URL or its `/mcp` URL. */
  inquiryUrl: string;
  tokenFor(userId: string): Promise<string>;
  logger: Logger;
  /** How long one question may take before the call is put to a person instead, ms. */
  timeoutMs?: number;
}

/** The node's `/api/approvals/standing/use` for an inquiry node URL. */
function useEndpoint(url: string): URL {
  const endpoint = new URL(url);
  endpoint.pathname = `${endpoint.pathname.replace(/\/+$/, '').replace(/\/mcp$/, '')}/api/approvals/standing/use`;
  return endpoint;
}

/**
 * Standing approvals live in the node's store: the proxy asks the node before each gated call that
 * may be covered, as the calling agent's user. Anything but a 200 (404, the node away, a timeout) is
 * "not covered": the call is then put to a person as usual, never run on a guess.
 */
export function nodeStandingCheck(options: NodeStandingOptions): StandingCheck {
  const endpoint = useEndpoint(options.inquiryUrl);
  return {
    async use(userId, call) {
      try {
        const response = await fetch(endpoint, {
          method: 'POST',
          headers: {
            Authorization: `Bearer ${await options.tokenFor(userId)}`,
            'Content-Type': 'application/json',
          },
          body: JSON.stringify(call),
          signal: AbortSignal.timeout(options.timeoutMs ?? 5000),
        });
        if (response.status !== 200) {
          await response.body?.cancel();
          if (response.status !== 404) {
            options.logger.warn(
              { status: response.status, tool: call.tool },
              'standing approval check refused',
            );
          }
          return null;
        }
        const found = (await response.json()) as Partial<StandingUse>;
        return typeof found.id === 'string' ? { id: found.id, uses: Number(found.uses ?? 0) } : null;
      } catch (error) {
        options.logger.warn(
          { err: (error as Error).message, tool: call.tool },
          'standing approval check failed',
        );
        return null;
      }
    },
  };
}
