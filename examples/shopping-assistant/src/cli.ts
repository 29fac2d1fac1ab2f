#!/usr/bin/env node
import { runCli } from './cli/main.js';

// The first Ctrl-C cancels the open question (the service closes it on every device); a second one quits.
const controller = new AbortController();
process.on('SIGINT', () => {
  if (controller.signal.aborted) process.exit(130);
  controller.abort(new Error('the customer left'));
});

process.exitCode = await runCli(process.argv.slice(2), {
  env: process.env,
  stdout: process.stdout,
  stderr: process.stderr,
  signal: controller.signal,
});
