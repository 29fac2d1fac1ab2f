import {
  type InquiryStore,
  inquiryDatabasePath,
  MemoryInquiryStore,
  openStateDatabase,
  SqliteInquiryStore,
  type StateDatabase,
} from '@hitl/store';
import type { Config } from './config.js';

/** The store of a node without Redis, and the state file it lives in (absent for `memory`). */
export interface EmbeddedParts {
  kind: 'sqlite' | 'memory';
  store: InquiryStore;
  /** The open state file, shared with the decision log; closed by `close()`. */
  database?: StateDatabase;
  close(): Promise<void>;
}

/**
 * Single-node mode: by default a SQLite file in `HITL_STATE_DIR` that survives restarts and that
 * only this process may open (a second node on the same directory fails here with a clear message);
 * `HITL_STORE=memory` keeps everything in process memory instead.
 *
 * @throws StateLockedError when another process holds the state directory.
 */
export function openEmbeddedStore(config: Config): EmbeddedParts {
  if (config.embeddedStore === 'memory') {
    const store = new MemoryInquiryStore({ retentionMs: config.retentionMs });
    return { kind: 'memory', store, close: () => store.close() };
  }
  const database = openStateDatabase(inquiryDatabasePath(config.stateDir));
  try {
    const store = new SqliteInquiryStore({ database, retentionMs: config.retentionMs });
    return {
      kind: 'sqlite',
      store,
      database,
      close: async () => {
        await store.close();
        database.close();
      },
    };
  } catch (error) {
    database.close();
    throw error;
  }
}
