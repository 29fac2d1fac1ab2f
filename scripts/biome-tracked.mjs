// `biome check` over the files git tracks (those still on disk), so a scratch file git does not track
// never fails `npm run lint`. A new file is linted once it is added (`git add`, or `git add -N`).
// Extra arguments go to biome (`--write` for `npm run format`).
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';

const files = execFileSync('git', ['ls-files', '-z'], { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 })
  .split('\0')
  .filter((file) => file !== '' && existsSync(file));
const biome = spawnSync(
  'biome',
  ['check', '--files-ignore-unknown=true', '--no-errors-on-unmatched', ...process.argv.slice(2), ...files],
  { stdio: 'inherit' },
);
process.exit(biome.status ?? 1);
