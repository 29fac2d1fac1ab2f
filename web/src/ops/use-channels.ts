import { useEffect, useState } from 'react';
import { type Channels, listChannels } from './api';

/** How often an open detail re-reads its channels while the inquiry is pending (new devices, retries). */
const PENDING_REFRESH_MS = 5_000;

export interface ChannelsState {
  /** `undefined` while reading, `null` when the server keeps no such list. */
  channels: Channels | null | undefined;
  error: string | null;
}

/**
 * One inquiry's channels and device deliveries (`GET /api/inquiries/:id/channels`), re-read when its
 * status changes and every few seconds while it is pending.
 */
export function useChannels(token: string, inquiryId: string, status: string): ChannelsState {
  const [state, setState] = useState<ChannelsState>({ channels: undefined, error: null });
  const pending = status === 'pending';
  // biome-ignore lint/correctness/useExhaustiveDependencies: `status` re-reads once the inquiry ends.
  useEffect(() => {
    const abort = new AbortController();
    const read = () =>
      listChannels(token, inquiryId, abort.signal).then(
        (channels) => setState({ channels, error: null }),
        (e: unknown) => {
          if (!abort.signal.aborted) {
            setState((s) => ({ ...s, error: e instanceof Error ? e.message : String(e) }));
          }
        },
      );
    void read();
    const timer = pending ? setInterval(read, PENDING_REFRESH_MS) : undefined;
    return () => {
      clearInterval(timer);
      abort.abort();
    };
  }, [token, inquiryId, pending, status]);
  return state;
}
