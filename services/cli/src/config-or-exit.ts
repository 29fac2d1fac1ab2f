import { type Config, ConfigError, loadConfig } from '@hitl/inquiry';

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
