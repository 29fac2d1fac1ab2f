import type { Config } from '@hitl/runtime';

/** Ready-made tokens, printed only by an embedded node that keeps its own secret in the state folder. */
export interface WelcomeTokens {
  agent: string;
  device: string;
  ops: string;
}

/** Which store the node runs on, without any credentials a Redis URL may carry. */
export function storeLabel(config: Pick<Config, 'redisUrl' | 'redisClusterNodes'>): string {
  if (config.redisClusterNodes?.length) {
    const seeds = config.redisClusterNodes.map((s) => `${s.host}:${s.port}`).join(', ');
    return `Redis Cluster at ${seeds}`;
  }
  if (config.redisUrl) {
    const url = URL.canParse(config.redisUrl) ? new URL(config.redisUrl) : undefined;
    return `Redis at ${url?.host || 'REDIS_URL'}`;
  }
  return 'embedded store';
}

/**
 * The start banner, the same in every mode: where the node listens, how to connect, how to make tokens.
 * Tokens themselves only when given (see {@link WelcomeTokens}); a node on a shared secret never prints one.
 * Once the person has signed in on a device (`signedIn`: the welcome user has a device on record), the
 * banner offers the pairing page instead of another raw device token.
 */
export function startBanner(
  url: string,
  store: string,
  tokens?: WelcomeTokens,
  options: { signedIn?: boolean } = {},
): string {
  const lines = ['', `HITL inquiry service (${store}) at ${url}`, `  MCP endpoint:  ${url}/mcp`];
  const pairLine = `  add a device:  ${url}/pair with a code from Devices → Add a device on a signed-in device`;
  if (tokens && options.signedIn) {
    lines.push(
      `  agent token:   ${tokens.agent}`,
      pairLine,
      `  ops URL:       ${url}/?token=${tokens.ops}`,
      '',
      'Point an MCP client at the endpoint with "Authorization: Bearer <agent token>";',
      'you are signed in on a device already: add more from its Devices view (QR code), or',
      '  npx hitl answer --pair <code>. More tokens: npx hitl token create --user U --role agent|device|ops',
    );
  } else if (tokens) {
    lines.push(
      `  agent token:   ${tokens.agent}`,
      `  device URL:    ${url}/?token=${tokens.device}`,
      `  ops URL:       ${url}/?token=${tokens.ops}`,
      '',
      'Point an MCP client at the endpoint with "Authorization: Bearer <agent token>";',
      'open the device URL to answer, then add your other devices from its Devices view (QR code).',
      'More tokens: npx hitl token create --user U --role agent|device|ops',
    );
  } else {
    lines.push(
      `  device URL:    ${url}/?token=<device token>`,
      pairLine,
      `  ops URL:       ${url}/?token=<ops token>`,
      '',
      'Make tokens with the secret this node uses (same HITL_SECRET, or the same HITL_STATE_DIR):',
      '  npx hitl token create --user U --role agent|device|ops',
      'Point an MCP client at the endpoint with "Authorization: Bearer <agent token>".',
    );
  }
  return `${lines.join('\n')}\n\n`;
}
