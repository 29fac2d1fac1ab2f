import type { IncomingHttpHeaders } from 'node:http';
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { BlockedTargetError, guardedLookup, hostProblem, isListedHost } from './outbound-guard.js';

/** What one POST got: a status with the reply's headers and first bytes, or an error before any. */
export type OutboundReply =
  | { status: number; headers: IncomingHttpHeaders; text: string }
  /** `blocked`: refused by the address guard before anything was sent (final: do not retry). */
  | { error: string; blocked?: true };

export interface OutboundPostOptions {
  headers: Record<string, string>;
  body: string | Buffer;
  /** Hosts (name, IP literal, or `name:port`) the guard lets through although local or private. */
  allowHosts: readonly string[];
  /** The env var that holds `allowHosts`, named in a refusal. */
  allowName: string;
  /** How long the socket may stay idle (connecting, waiting for the reply) before the attempt ends. */
  timeoutMs?: number;
  /** How much of the reply is read (the rest is dropped and the connection closed). */
  maxReplyBytes?: number;
  /** How much of what was read is kept as `text`. */
  keepTextChars?: number;
}

/**
 * One POST to a target chosen by someone else (a webhook, a push service): the host is checked
 * first (a literal private address or `localhost` is refused), then every address the name resolves
 * to on connect (`guardedLookup`), unless the host is allow-listed. Never follows a redirect (a 3xx
 * is just its status), reads at most `maxReplyBytes` of the reply, gives up after `timeoutMs` idle.
 */
export function outboundPost(url: string, options: OutboundPostOptions): Promise<OutboundReply> {
  const target = new URL(url);
  const listed = isListedHost(target, options.allowHosts);
  const problem = listed ? undefined : hostProblem(target.hostname);
  if (problem) {
    const refused = new BlockedTargetError(`${problem}; not sent (list the host in ${options.allowName})`);
    return Promise.resolve({ error: refused.message, blocked: true });
  }
  const timeoutMs = options.timeoutMs ?? 10_000;
  const maxReply = options.maxReplyBytes ?? 64 * 1024;
  const keep = options.keepTextChars ?? 0;
  const request = target.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise((resolve) => {
    const req = request(
      target,
      {
        method: 'POST',
        headers: { ...options.headers, 'content-length': Buffer.byteLength(options.body) },
        ...(listed ? {} : { lookup: guardedLookup(options.allowName) }),
        timeout: timeoutMs,
      },
      (res) => {
        const chunks: Buffer[] = [];
        let read = 0;
        res.on('data', (chunk: Buffer) => {
          if (read < keep) chunks.push(chunk);
          read += chunk.length;
          if (read > maxReply) res.destroy();
        });
        const done = () =>
          resolve({
            status: res.statusCode ?? 0,
            headers: res.headers,
            text: Buffer.concat(chunks).toString('utf8').slice(0, keep),
          });
        res.on('close', done);
        res.on('error', done);
      },
    );
    req.on('timeout', () => req.destroy(new Error(`no reply within ${timeoutMs} ms`)));
    req.on('error', (error) =>
      resolve(
        error instanceof BlockedTargetError || (error as { code?: string }).code === 'ERR_BLOCKED_TARGET'
          ? { error: error.message, blocked: true }
          : { error: error.message },
      ),
    );
    req.end(options.body);
  });
}
