import { StateLockedError } from '@hitl/inquiry';
import { type Config, ConfigError, loadConfig, SecretFileError } from '@hitl/runtime';

/** The configuration from the environment; a bad value ends the command at once with exit code 2. */
export function loadConfigOrExit(command: string): Config {
  try {
    return loadConfig(process.env);
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`hitl ${command}: ${error.message}\n`);
      process.exit(2);
    }
    throw error;
  }
}

/**
 * For a start that failed on something the operator must fix (an unsafe secret file, a bad value, a
 * state dir another node holds):
 * prints `hitl <command>: <what to fix>` and exits with code 2; anything else is rethrown.
 */
export function exitOnSetupError(command: string): (error: unknown) => never {
  return (error) => {
    if (
      error instanceof SecretFileError ||
      error instanceof ConfigError ||
      error instanceof StateLockedError
    ) {
      process.stderr.write(`hitl ${command}: ${error.message}\n`);
      process.exit(2);
    }
    throw error;
  };
}
