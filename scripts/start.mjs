#!/usr/bin/env node
// `npm start`: builds what is not built yet, saying so, then runs `hitl serve` in this same process
// (an import, as bin/hitl.js does, so the server gets the signals itself). Plain JavaScript: it runs
// before anything is compiled.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';

const cli = new URL('../services/cli/bin/hitl.js', import.meta.url);
const firstRun = !existsSync(new URL('../services/cli/dist/bin.js', import.meta.url));

process.stdout.write(
  firstRun
    ? 'Building the packages (first run: about a minute; later starts take seconds)…\n'
    : 'Checking the build (turbo rebuilds only what changed)…\n',
);
const started = Date.now();
// One line per package as turbo starts it ("cache miss, executing" or "cache hit"), and the output of
// each step that really runs; errors in full.
const code = await new Promise((resolve) => {
  const turbo = spawn('turbo', ['run', 'build', '--output-logs=new-only'], {
    stdio: 'inherit',
    env: { ...process.env, TURBO_TELEMETRY_DISABLED: '1' },
  });
  turbo.once('error', (error) => {
    process.stderr.write(`npm start: could not run turbo (${error.message}); run \`npm install\` first.\n`);
    resolve(1);
  });
  turbo.once('exit', (exitCode) => resolve(exitCode ?? 1));
});
if (code !== 0) {
  process.stderr.write('npm start: the build failed (above); the node was not started.\n');
  process.exit(code);
}
process.stdout.write(`Built in ${Math.round((Date.now() - started) / 1000)} s. Starting the node…\n`);

process.argv = [process.argv[0], cli.pathname, 'serve', ...process.argv.slice(2)];
await import(cli.href);
