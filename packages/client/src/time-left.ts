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

const UNITS: [string, number][] = [
  ['day', 86_400],
  ['hour', 3600],
  ['minute', 60],
  ['second', 1],
];

/**
 * The same time left in words, for a screen reader ("2 days 23 hours", "1 minute 5 seconds"): the two
 * largest units, rounded up to the second as `formatTimeLeft` rounds; a zero second unit is left out.
 */
export function spokenTimeLeft(ms: number): string {
  let rest = Math.max(0, Math.ceil(ms / 1000));
  const counts = UNITS.map(([name, size]) => {
    const n = Math.floor(rest / size);
    rest %= size;
    return { name, n };
  });
  const first = counts.findIndex((c) => c.n > 0);
  if (first === -1) return '0 seconds';
  return counts
    .slice(first, first + 2)
    .filter((c) => c.n > 0)
    .map((c) => `${c.n} ${c.name}${c.n === 1 ? '' : 's'}`)
    .join(' ');
}
