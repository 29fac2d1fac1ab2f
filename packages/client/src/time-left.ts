/**
 * Time left to a deadline as a person reads it: `m:ss` under an hour, `h:mm:ss` under a day, and
 * `Nd Nh` beyond (an answer window may last days). Rounds up, so "0:00" only shows once it is due.
 */
export function formatTimeLeft(ms: number): string {
  const seconds = Math.max(0, Math.ceil(ms / 1000));
  const days = Math.floor(seconds / 86_400);
  const h = Math.floor((seconds % 86_400) / 3600);
  if (days > 0) return `${days}d ${h}h`;
  const m = Math.floor((seconds % 3600) / 60);
  const s = String(seconds % 60).padStart(2, '0');
  return h > 0 ? `${h}:${String(m).padStart(2, '0')}:${s}` : `${m}:${s}`;
}
