import type { Logger } from './logger.js';

/**
 * What a node has opened, in the order it opened it: every resource registers its close here as it
 * is opened, and {@link closeAll} closes them newest first. The one teardown of a normal stop and of a
 * start that fails half-way (a taken port), so the two cannot drift apart.
 */
export class ShutdownList {
  private readonly steps: { name: string; close: () => unknown }[] = [];

  constructor(private readonly logger: Logger) {}

  /** Registers how to close what was just opened (`name` is logged if closing it fails). */
  add(name: string, close: () => unknown): void {
    this.steps.push({ name, close });
  }

  /** Closes everything registered, newest first; a step that fails is logged and the rest still run. */
  async closeAll(): Promise<void> {
    for (let step = this.steps.pop(); step; step = this.steps.pop()) {
      try {
        await step.close();
      } catch (error) {
        this.logger.warn({ err: error, step: step.name }, 'closing failed');
      }
    }
  }
}
