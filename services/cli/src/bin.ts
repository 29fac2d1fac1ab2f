import { readFileSync } from 'node:fs';
import { Command } from 'commander';
import { registerAnswer } from './commands/answer.js';
import { registerAudit } from './commands/audit.js';
import { registerDecide } from './commands/decide.js';
import { registerProxy } from './commands/proxy.js';
import { registerServe } from './commands/serve.js';
import { registerToken } from './commands/token.js';

// Run through bin/hitl.js (the committed file npm links), which imports this module.
const { version } = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as {
  version: string;
};

const program = new Command('hitl')
  .description('Human-in-the-loop inquiry service: ask people, from any agent, on any device')
  .version(version)
  .showHelpAfterError();
registerServe(program);
registerDecide(program);
registerProxy(program);
registerToken(program);
registerAnswer(program);
registerAudit(program);
await program.parseAsync(process.argv);
