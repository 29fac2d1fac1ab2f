import { type ChildProcess, execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { findOnPath, launch, printed, withFreshPorts } from './redis-server.js';

const run = promisify(execFile);

/** A Redis Cluster of three masters on loopback, for tests. */
export interface TestRedisCluster {
  nodes: { host: string; port: number }[];
  /** `host:port,host:port,...`, the form of `REDIS_CLUSTER_NODES`. */
  seeds: string;
  stop(): Promise<void>;
}

/**
 * Starts three `redis-server --cluster-enabled yes` processes, joins them with
 * `redis-cli --cluster create` (no replicas) and resolves once every node says its state is ok.
 */
export async function startRedisCluster(
  options: { pickPort?: () => Promise<number> } = {},
): Promise<TestRedisCluster> {
  const server = findOnPath('redis-server');
  const cli = findOnPath('redis-cli');
  if (!server || !cli)
    throw new Error('redis-server / redis-cli not found on PATH: apt-get install redis-server');
  // The cluster bus listens on port + 10000 by default, past 65535 for a high ephemeral port (the
  // server then exits at start): each node gets a free bus port of its own. A port taken between
  // finding it free and binding it: all six are picked again.
  const { ports, dirs, children } = await withFreshPorts(
    6,
    async (picked) => {
      const ports = picked.slice(0, 3);
      const busPorts = picked.slice(3);
      const dirs = ports.map(() => mkdtempSync(join(tmpdir(), 'hitl-cluster-')));
      const launched = await Promise.allSettled(
        ports.map((port, i) =>
          launch(server, nodeArgs(port, busPorts[i] as number, dirs[i] as string), port),
        ),
      );
      // One that failed to start must not leave the others running.
      const failed = launched.find((result) => result.status === 'rejected');
      if (failed) {
        for (const result of launched) if (result.status === 'fulfilled') result.value.kill('SIGKILL');
        for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
        throw failed.reason;
      }
      const children = launched.map((result) => (result as PromiseFulfilledResult<ChildProcess>).value);
      return { ports, dirs, children };
    },
    options.pickPort,
  );
  const stop = async () => {
    await Promise.all(
      children.map(
        (child) =>
          new Promise<void>((resolve) => {
            if (child.exitCode !== null || child.signalCode !== null) return resolve();
            child.once('exit', () => resolve());
            child.kill('SIGKILL');
          }),
      ),
    );
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  };
  try {
    // Each node logs the change once it has every slot covered: what `cluster_state:ok` reports.
    const ok = Promise.all(children.map((child) => printed(child, /Cluster state changed: ok/)));
    ok.catch(() => {}); // awaited below, unless the create fails first

    const addresses = ports.map((port) => `127.0.0.1:${port}`);
    await run(cli, ['--cluster', 'create', ...addresses, '--cluster-replicas', '0', '--cluster-yes']);
    await ok;
  } catch (error) {
    await stop();
    throw error;
  }
  const nodes = ports.map((port) => ({ host: '127.0.0.1', port }));
  return { nodes, seeds: nodes.map((n) => `${n.host}:${n.port}`).join(','), stop };
}

function nodeArgs(port: number, busPort: number, dir: string): string[] {
  return [
    ...['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir],
    ...['--cluster-enabled', 'yes', '--cluster-config-file', 'nodes.conf', '--cluster-node-timeout', '2000'],
    ...['--cluster-port', String(busPort)],
  ];
}
