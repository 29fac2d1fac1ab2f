import type { PendingInquiry } from '@hitl/client';
import { useEffect, useState } from 'react';

/** "1:05" for 65 000 ms (rounded up, so 0:00 means the deadline has passed). */
export function formatRemaining(ms: number): string {
  const seconds = Math.max(0, Math.ceil(ms / 1000));
  const h = Math.floor(seconds / 3600);
  const m = Math.floor((seconds % 3600) / 60);
  const s = String(seconds % 60).padStart(2, '0');
  return h > 0 ? `${h}:${String(m).padStart(2, '0')}:${s}` : `${m}:${s}`;
}

function useNow(intervalMs: number): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const timer = window.setInterval(() => setNow(Date.now()), intervalMs);
    return () => window.clearInterval(timer);
  }, [intervalMs]);
  return now;
}

/** Time left until this device's deadline (skew-corrected by the client), as text and a bar. */
export function Countdown({ inquiry }: { inquiry: PendingInquiry }) {
  const now = useNow(250);
  const remaining = inquiry.localDeviceAt - now;
  const total = Math.max(1, inquiry.deadlines.deviceAt - inquiry.createdAt);
  const share = Math.min(1, Math.max(0, remaining / total));
  const urgent = remaining <= 10_000;
  return (
    <div className={`countdown${urgent ? ' urgent' : ''}`}>
      <span role="timer" aria-label="time left to answer">
        {remaining > 0 ? `${formatRemaining(remaining)} left` : 'Time is up'}
      </span>
      <span className="bar" aria-hidden="true">
        <span className="fill" style={{ width: `${share * 100}%` }} />
      </span>
    </div>
  );
}
