import { SOCKET_PATH } from '@hitl/protocol';
import { useEffect, useRef, useState } from 'react';
import { io } from 'socket.io-client';

export type LiveState = 'connecting' | 'live' | 'offline';
export type LiveEvent = { type: 'new' | 'updated' | 'resolved'; inquiryId: string };

const EVENTS = {
  'inquiry:new': 'new',
  'inquiry:updated': 'updated',
  'inquiry:resolved': 'resolved',
} as const;

/**
 * The ops socket: the server puts an ops token's socket in the ops room, which hears every
 * user's `inquiry:new` / `inquiry:updated` / `inquiry:resolved` on every node. Only the inquiry id is
 * used from an event; the console reads the inquiry itself over REST.
 */
export function useOpsLive(
  token: string,
  onEvent: (event: LiveEvent) => void,
  /** After a reconnect: events may have been missed, so the console reloads. */
  onResync: () => void,
): LiveState {
  const [state, setState] = useState<LiveState>('connecting');
  const handler = useRef(onEvent);
  handler.current = onEvent;
  const resync = useRef(onResync);
  resync.current = onResync;

  useEffect(() => {
    const socket = io(window.location.origin, {
      path: SOCKET_PATH,
      auth: { token, deviceName: 'ops console' },
      transports: ['websocket'],
    });
    let connectedBefore = false;
    socket.on('connect', () => {
      setState('live');
      if (connectedBefore) resync.current();
      connectedBefore = true;
    });
    socket.on('disconnect', () => setState('offline'));
    socket.on('connect_error', () => setState('offline'));
    for (const [name, type] of Object.entries(EVENTS)) {
      socket.on(name, (payload: unknown) => {
        const inquiryId = (payload as { inquiryId?: unknown } | null)?.inquiryId;
        if (typeof inquiryId === 'string') handler.current({ type, inquiryId });
      });
    }
    return () => {
      socket.close();
    };
  }, [token]);

  return state;
}
