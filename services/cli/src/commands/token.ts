import { ConfigError, loadConfig, loadOrCreateSecret, TokenService } from '@hitl/inquiry';
import { RoleSchema, UserIdSchema } from '@hitl/protocol';
import { type Command, InvalidArgumentError, Option } from 'commander';

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
    .option('--expires <span>', 'lifetime such as 12h or 30d (default: no expiry)')
    .action(
      async (options: {
        user: string;
        role: 'agent' | 'device' | 'ops';
        name?: string;
        expires?: string;
      }) => {
        try {
          const config = loadConfig(process.env);
          const { secret, created, path } = await loadOrCreateSecret(config.secret, config.stateDir);
          if (created) process.stderr.write(`created a new secret in ${path}\n`);
          const tokens = new TokenService(secret);
          const signed = await tokens.sign(
            { sub: options.user, role: options.role, ...(options.name ? { name: options.name } : {}) },
            options.expires ? { expiresIn: options.expires } : {},
          );
          process.stdout.write(`${signed}\n`);
        } catch (error) {
          const message =
            error instanceof ConfigError || error instanceof Error ? error.message : String(error);
          process.stderr.write(`hitl token create: ${message}\n`);
          process.exit(2);
        }
      },
    );
}
