import { TokenService } from '@hitl/auth';
import { loadConfig, loadOrCreateSecret } from '@hitl/inquiry';

export interface TokenSource {
  token: string;
  /** Set when the token was signed here, and a warning is due (a secret the node may not know). */
  warning?: string;
}

/**
 * The agent token: `HITL_AGENT_TOKEN`, else one signed with the same secret the local node uses
 * (`HITL_SECRET`, or the one kept in `HITL_STATE_DIR`, `~/.hitl` by default).
 */
export async function agentToken(
  env: Record<string, string | undefined>,
  user: string,
): Promise<TokenSource> {
  if (env.HITL_AGENT_TOKEN) return { token: env.HITL_AGENT_TOKEN };
  // Only the two settings that locate the secret: the rest of the node's configuration is not ours to check.
  const config = loadConfig({ HITL_SECRET: env.HITL_SECRET, HITL_STATE_DIR: env.HITL_STATE_DIR });
  const { secret, created, path } = await loadOrCreateSecret(config.secret, config.stateDir);
  const token = await new TokenService(secret).sign({ sub: user, role: 'agent', name: 'shopping assistant' });
  if (!created) return { token };
  return {
    token,
    warning: `no node secret was found, so a new one was made in ${path}; start the node first (npm start) or set HITL_AGENT_TOKEN`,
  };
}
