import { TokenService } from '@hitl/auth';
import { RoleSchema, UserIdSchema } from '@hitl/protocol';
import { ConfigError, loadConfig, loadOrCreateSecret } from '@hitl/runtime';
import { type Command, InvalidArgumentError, Option } from 'commander';
import { registerTokenRevoke } from './token-revoke.js';

/** A lifetime jose understands, e.g. `12h`, `30d`, `1y`; `never` means no `exp` at all. */
function lifetime(value: string): string | 'never' {
  if (value === 'never' || /^[1-9]\d*[smhdwy]$/.test(value)) return value;
  throw new InvalidArgumentError('expected a span such as 12h, 30d or 1y, or never');
}
function userId(value: string): string {
  const parsed = UserIdSchema.safeParse(value);
  if (!parsed.success) throw new InvalidArgumentError(parsed.error.issues[0]?.message ?? 'bad user id');
  return value;
}

/** `hitl token create`: prints the token alone on stdout (anything else goes to stderr). */
export function registerToken(program: Command): void {
  const token = program.command('token').description('Tokens for agents, devices and ops');
  token
    .command('create')
    .description('Sign a token with the service secret (HITL_SECRET or the local state folder)')
    .requiredOption('--user <id>', 'the user the token acts for', userId)
    .addOption(
      new Option('--role <role>', 'what the token may do').choices(RoleSchema.options).makeOptionMandatory(),
    )
    .option('--name <name>', 'a display name (the agent or device)')
    .option(
      '--expires <span>',
      'lifetime such as 12h, 30d or 1y; never for a token that does not expire',
      lifetime,
      '90d',
    )
    .action(
      async (options: { user: string; role: 'agent' | 'device' | 'ops'; name?: string; expires: string }) => {
        try {
          const config = loadConfig(process.env);
          const { secret, created, path } = await loadOrCreateSecret(config.secret, config.stateDir);
          if (created) process.stderr.write(`created a new secret in ${path}\n`);
          const tokens = new TokenService(secret);
          const signed = await tokens.sign(
            { sub: options.user, role: options.role, ...(options.name ? { name: options.name } : {}) },
            options.expires === 'never' ? {} : { expiresIn: options.expires },
          );
          process.stdout.write(`${signed}\n`);
          const { jti, exp } = JSON.parse(Buffer.from(signed.split('.')[1] ?? '', 'base64url').toString());
          const until = exp ? `expires ${new Date(exp * 1000).toISOString()}` : 'never expires';
          process.stderr.write(`token jti ${jti}, ${until} (revoke: hitl token revoke --jti ${jti})\n`);
        } catch (error) {
          const message =
            error instanceof ConfigError || error instanceof Error ? error.message : String(error);
          process.stderr.write(`hitl token create: ${message}\n`);
          process.exit(2);
        }
      },
    );
  registerTokenRevoke(token);
}
