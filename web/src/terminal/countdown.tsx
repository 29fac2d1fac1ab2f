import { formatTimeLeft, type PendingInquiry } from '@hitl/client';
import { useEffect, useState } from 'react';

function useNow(intervalMs: number): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const timer = window.setInterval(() => setNow(Date.now()), intervalMs);
    return () => window.clearInterval(timer);
  }, [intervalMs]);
  return now;
}

/**
 * Time left until this device's deadline (skew-corrected by the client), as text and a bar: tier 1,
 * or the end of the answer window (`deadlines.answerBy`) for a question that may wait longer.
 */
export function Countdown({ inquiry }: { inquiry: PendingInquiry }) {
  const now = useNow(250);
  const remaining = inquiry.localDeviceAt - now;
  const total = Math.max(1, inquiry.deadlines.deviceAt - inquiry.createdAt);
  const share = Math.min(1, Math.max(0, remaining / total));
  const urgent = remaining <= 10_000;
  return (
    <div className={`countdown${urgent ? ' urgent' : ''}`}>
      <span role="timer" aria-label="time left to answer">
        {remaining > 0 ? `${formatTimeLeft(remaining)} left` : 'Time is up'}
      </span>
      <span className="bar" aria-hidden="true">
        <span className="fill" style={{ width: `${share * 100}%` }} />
      </span>
    </div>
  );
}
