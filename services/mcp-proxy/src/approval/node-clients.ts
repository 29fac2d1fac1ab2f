import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { sharedValidator } from '../shared-validator.js';

export interface NodeClientsOptions {
  /** The inquiry node's `/mcp` endpoint. */
  endpoint: URL;
  /** The bearer token for a user, asked before every request (it caches and re-mints before expiry). */
  tokenFor(userId: string): Promise<string>;
  version: string;
  /** How long a user's client stays open after its last approval ends (at least the cancel flush). */
  lingerMs: number;
}

/** A user's connected client, held until {@link release} (once). */
export interface NodeClientLease {
  client: Client;
  release(): void;
}

interface Entry {
  connected: Promise<Client>;
  leases: number;
  linger?: NodeJS.Timeout;
}

/**
 * One connected SDK client per user at the inquiry node, shared by all of that user's held
 * approvals (measured: a client and transport per approval cost the proxy ~240 KB RSS each). The
 * node is stateless for a client that takes no elicitation, so each `callTool` is its own POST and
 * calls run side by side on one client. The client closes `lingerMs` after its last lease ends, so a
 * cancelled ask's `notifications/cancelled` (sent without being awaited) still reaches the node.
 */
export class NodeClients {
  private readonly entries = new Map<string, Entry>();

  constructor(private readonly options: NodeClientsOptions) {}

  /** The user's client, connecting it if needed; rejects when connecting fails or `signal` aborts first. */
  async acquire(userId: string, signal: AbortSignal): Promise<NodeClientLease> {
    signal.throwIfAborted();
    const entry = this.entries.get(userId) ?? this.open(userId);
    entry.leases += 1;
    clearTimeout(entry.linger);
    entry.linger = undefined;
    let released = false;
    const release = () => {
      if (released) return;
      released = true;
      this.release(userId, entry);
    };
    try {
      const client = await untilAborted(entry.connected, signal);
      return { client, release };
    } catch (error) {
      release();
      throw error;
    }
  }

  /** Closes every client now (shutdown). */
  async closeAll(): Promise<void> {
    const entries = [...this.entries.values()];
    this.entries.clear();
    await Promise.all(
      entries.map(async (entry) => {
        clearTimeout(entry.linger);
        const client = await entry.connected.catch(() => undefined);
        await client?.close().catch(() => undefined);
      }),
    );
  }

  /** Number of users with an open (or opening) client. */
  get size(): number {
    return this.entries.size;
  }

  private open(userId: string): Entry {
    const { endpoint, tokenFor, version } = this.options;
    const client = new Client(
      { name: 'hitl-approval-proxy', version },
      { jsonSchemaValidator: sharedValidator },
    );
    // The token is set on every request, so a long-lived client never sends an expired one.
    const transport = new StreamableHTTPClientTransport(endpoint, {
      fetch: async (url: string | URL, init?: RequestInit) => {
        const headers = new Headers(init?.headers);
        headers.set('authorization', `Bearer ${await tokenFor(userId)}`);
        return fetch(url, { ...init, headers });
      },
    });
    const entry: Entry = {
      leases: 0,
      connected: client.connect(transport).then(() => client),
    };
    client.onclose = () => this.forget(userId, entry);
    entry.connected.catch(() => {
      this.forget(userId, entry);
      void client.close().catch(() => undefined);
    });
    this.entries.set(userId, entry);
    return entry;
  }

  private release(userId: string, entry: Entry): void {
    entry.leases -= 1;
    if (entry.leases > 0) return;
    entry.linger = setTimeout(() => {
      if (entry.leases > 0) return;
      this.forget(userId, entry);
      void entry.connected.then((client) => client.close()).catch(() => undefined);
    }, this.options.lingerMs);
    entry.linger.unref();
  }

  private forget(userId: string, entry: Entry): void {
    if (this.entries.get(userId) === entry) this.entries.delete(userId);
  }
}

/** `promise`, or a rejection with the signal's reason as soon as `signal` aborts. */
function untilAborted<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(error);
      },
    );
  });
}
