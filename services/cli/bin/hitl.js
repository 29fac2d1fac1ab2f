#!/usr/bin/env node
// The `hitl` command. This file is committed (mode 755) and is what npm links into node_modules/.bin,
// so the link exists right after `npm install` and no build, cache restore or clean can take it away
// or drop its run bit. It loads the compiled program in this same process (an import, not a child
// process), so `hitl serve` receives signals itself and its memory figures are the server's own.
import { existsSync } from 'node:fs';

const program = new URL('../dist/bin.js', import.meta.url);
if (!existsSync(program)) {
  process.stderr.write(
    'hitl: the command is not built yet (services/cli/dist/bin.js is missing).\n' +
      'Run `npm run build` (or `npm start`, which builds first) in the repository, then try again.\n',
  );
  process.exit(1);
}
await import(program.href);
