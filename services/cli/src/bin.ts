#!/usr/bin/env node
import { Command } from 'commander';
import { registerAnswer } from './commands/answer.js';
import { registerDecide } from './commands/decide.js';
import { registerProxy } from './commands/proxy.js';
import { registerServe } from './commands/serve.js';
import { registerToken } from './commands/token.js';

const program = new Command('hitl')
  .description('Human-in-the-loop inquiry service: ask people, from any agent, on any device')
  .showHelpAfterError();
registerServe(program);
registerDecide(program);
registerProxy(program);
registerToken(program);
registerAnswer(program);
await program.parseAsync(process.argv);
