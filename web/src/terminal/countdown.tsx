import {
  formatAnswerBy,
  formatFullDate,
  formatTimeLeft,
  type PendingInquiry,
  spokenTimeLeft,
} from '@hitl/client';
import { useEffect, useState } from 'react';

function useNow(intervalMs: number): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const timer = window.setInterval(() => setNow(Date.now()), intervalMs);
    return () => window.clearInterval(timer);
  }, [intervalMs]);
  return now;
}

/** The last stretch before a deadline, shown in the danger colour. */
const URGENT_MS = 10_000;

/**
 * Time left until this device's deadline (skew-corrected by the client), as text and a bar: tier 1,
 * or the end of the answer window (`deadlines.answerBy`) for a question that may wait longer. Such a
 * question also says when it may be answered until, in this device's own time ("answer by Thu 14:05");
 * no device timer ends it (the service times it out then).
 */
export function Countdown({ inquiry }: { inquiry: PendingInquiry }) {
  const now = useNow(250);
  const remaining = inquiry.localDeviceAt - now;
  const total = Math.max(1, inquiry.deadlines.deviceAt - inquiry.createdAt);
  const share = Math.min(1, Math.max(0, remaining / total));
  const urgent = remaining <= URGENT_MS;
  const longWait = inquiry.deadlines.answerBy !== undefined;
  return (
    <div className={`countdown${urgent ? ' urgent' : ''}`}>
      <span
        role="timer"
        aria-label={remaining > 0 ? `${spokenTimeLeft(remaining)} left to answer` : 'Time is up'}
      >
        {remaining > 0 ? `${formatTimeLeft(remaining)} left` : 'Time is up'}
      </span>
      {longWait ? (
        <span className="answer-by">
          answer by{' '}
          <time
            dateTime={new Date(inquiry.localDeviceAt).toISOString()}
            title={formatFullDate(inquiry.localDeviceAt)}
          >
            {formatAnswerBy(inquiry.localDeviceAt, now)}
          </time>
        </span>
      ) : null}
      <span className="bar" aria-hidden="true">
        <span className="fill" style={{ width: `${share * 100}%` }} />
      </span>
    </div>
  );
}
