import { afterEach, describe } from 'vitest';
import { callsContract } from './contract-calls.js';
import { createContract } from './contract-create.js';
import { listContract } from './contract-list.js';
import { progressContract } from './contract-progress.js';
import { resolveContract } from './contract-resolve.js';
import type { MakeStore, StoreFixture } from './fixtures.js';

/**
 * The behaviour every `InquiryStore` must show, as a vitest suite. Call it at the top level of
 * a test file; each test gets a fresh store from `makeStore` and cleans it up after.
 *
 * @example
 * runStoreContract('memory', async (options) => {
 *   const store = new MemoryInquiryStore(options);
 *   return { store, cleanup: () => store.close() };
 * });
 */
export function runStoreContract(name: string, makeStore: MakeStore): void {
  describe(`InquiryStore contract: ${name}`, () => {
    const opened: StoreFixture[] = [];
    const open: MakeStore = async (options) => {
      const fixture = await makeStore(options);
      opened.push(fixture);
      return fixture;
    };
    afterEach(async () => {
      await Promise.all(opened.splice(0).map((fixture) => fixture.cleanup()));
    });
    createContract(open);
    resolveContract(open);
    listContract(open);
    callsContract(open);
    progressContract(open);
  });
}
