import type { DeviceAck } from '@hitl/protocol';
import { useState } from 'react';

/** What a failed ack tells the person; an already-answered inquiry closes by itself, so says nothing. */
export function ackMessage(ack: DeviceAck): string | null {
  if (ack.ok || ack.error.code === 'already_resolved') return null;
  return `Not sent: ${ack.error.message}`;
}

/** Sends one answer or refusal at a time, and keeps the reason when the server did not take it. */
export function useSend() {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const run = async (send: () => Promise<DeviceAck>) => {
    if (busy) return;
    setBusy(true);
    setError(null);
    const ack = await send();
    setBusy(false);
    setError(ackMessage(ack));
  };
  return { busy, error, run };
}

/** The reason a send failed, announced to screen readers. */
export function SendError({ error }: { error: string | null }) {
  return error ? (
    <p className="send-error" role="alert">
      {error}
    </p>
  ) : null;
}
