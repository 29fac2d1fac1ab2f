// Copies the Lua scripts next to the compiled loader (dist/store/scripts.js reads ../lua/).
import { cpSync, rmSync } from 'node:fs';

const from = new URL('../src/lua/', import.meta.url);
const to = new URL('../dist/lua/', import.meta.url);
rmSync(to, { recursive: true, force: true });
cpSync(from, to, { recursive: true });
