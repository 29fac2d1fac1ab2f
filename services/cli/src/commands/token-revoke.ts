import { join } from 'node:path';
import { TokenService } from '@hitl/auth';
import { type RevocationReceipt, revokeInSharedStore } from '@hitl/inquiry';
import { type RevocationBody, RevocationBodySchema } from '@hitl/protocol';
import { loadOrCreateSecret } from '@hitl/runtime';
import type { Command } from 'commander';
import { loadConfigOrExit } from '../config-or-exit.js';

const fail = (code: number, message: string): never => {
  process.stderr.write(`hitl token revoke: ${message}\n`);
  process.exit(code);
};

/**
 * Asks a running node (`--url`) to record the revocation, with a short-lived ops token signed by
 * the shared secret: the way in embedded mode, where the store (`hitl.db`, or memory) is the node's own.
 */
async function revokeThroughNode(url: string, secret: string, body: RevocationBody) {
  const ops = await new TokenService(secret).sign(
    { sub: 'hitl-cli', role: 'ops', name: 'hitl token revoke' },
    { expiresIn: '5m' },
  );
  const response = await fetch(new URL('/api/revocations', url), {
    method: 'POST',
    headers: { authorization: `Bearer ${ops}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  const reply = (await response.json().catch(() => ({}))) as {
    revoked?: RevocationReceipt;
    error?: { message?: string };
  };
  if (!response.ok || !reply.revoked) {
    return fail(1, `${url} answered ${response.status}: ${reply.error?.message ?? 'no reason given'}`);
  }
  return reply.revoked;
}

/** Why an embedded node must record it itself: where it keeps revocations. */
function whereEmbeddedKeeps(config: { embeddedStore: 'sqlite' | 'memory'; stateDir: string }): string {
  if (config.embeddedStore === 'memory')
    return 'a node with HITL_STORE=memory keeps revocations in its memory';
  return `an embedded node keeps revocations in its state file ${join(config.stateDir, 'hitl.db')}, which only that node opens`;
}

/** `hitl token revoke --jti J | --user U [--url NODE]`. */
export function registerTokenRevoke(token: Command): void {
  token
    .command('revoke')
    .description(
      'Revoke one token (--jti) or every token of a user issued up to now (--user); every node refuses it within 1 s',
    )
    .option('--jti <id>', "the token's jti (its id, in the token's payload)")
    .option('--user <id>', 'revoke every token of this user issued up to now')
    .option('--url <node>', 'a running node to record it (embedded mode: only the node opens its store)')
    .action(async (options: { jti?: string; user?: string; url?: string }) => {
      const given = {
        ...(options.jti ? { jti: options.jti } : {}),
        ...(options.user ? { user: options.user } : {}),
      };
      const parsed = RevocationBodySchema.safeParse(given);
      if (!parsed.success) fail(2, 'give exactly one of --jti <id> or --user <id> (a valid user id)');
      const body = parsed.data as RevocationBody;
      const config = loadConfigOrExit('token revoke');
      try {
        let receipt: RevocationReceipt | undefined;
        if (options.url) {
          const { secret } = await loadOrCreateSecret(config.secret, config.stateDir);
          receipt = await revokeThroughNode(options.url, secret, body);
        } else {
          receipt = await revokeInSharedStore(config, body);
        }
        if (!receipt) {
          return fail(
            2,
            `no shared store: set REDIS_URL (or REDIS_CLUSTER_NODES) as the nodes have it, or pass --url <node> of the running node (${whereEmbeddedKeeps(config)})`,
          );
        }
        process.stdout.write(`revoked ${JSON.stringify(receipt)}\n`);
      } catch (error) {
        fail(1, error instanceof Error ? error.message : String(error));
      }
    });
}
