import { basename } from 'node:path';

/** The MCP server behind the proxy: a command spawned over stdio, or a Streamable HTTP URL. */
export type BackendSpec =
  | { kind: 'command'; command: string; name?: string; env?: Record<string, string> }
  | { kind: 'url'; url: string; name?: string; headers?: Record<string, string> };

/** Stable identity of a backend, part of every approval digest: grants never cross backends. */
export function backendId(spec: BackendSpec): string {
  return spec.kind === 'command' ? `cmd:${spec.command}` : `url:${spec.url}`;
}

/** The name the human sees as `action.server`: the configured one, else the program or host name. */
export function backendName(spec: BackendSpec): string {
  if (spec.name) return spec.name;
  if (spec.kind === 'url') return new URL(spec.url).host;
  const words = spec.command.trim().split(/\s+/);
  const program = words.find((w) => !/^(npx|node|exec|env|-\S*|\S+=\S*)$/.test(w)) ?? words[0] ?? 'backend';
  return basename(program);
}

/**
 * The environment a spawned backend gets: the proxy's own, minus `HITL_*` variables (the shared
 * secret and tokens stay with the proxy), plus the spec's extra variables.
 */
export function backendEnv(
  base: Record<string, string | undefined>,
  extra: Record<string, string> = {},
): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(base)) {
    if (value !== undefined && !name.startsWith('HITL_')) env[name] = value;
  }
  return { ...env, ...extra };
}
