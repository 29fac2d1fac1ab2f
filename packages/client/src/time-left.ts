/**
 * Time left to a deadline, in one shape everywhere (web page, phone, `hitl answer`): `m:ss` under an
 * hour ("0:42", "59:59"), hours and minutes under two days ("1 h 5 min", "47 h 59 min"), then days and
 * hours ("2 d 23 h"; an answer window may last days). Each shape rounds up in its smallest unit, so
 * "0:00" only shows once it is due and a fresh 24-hour window reads "24 h 0 min", not "23 h 59 min".
 */
interface TimeLeftParts {
  big: number;
  small: number;
  units: 'min:s' | 'h:min' | 'd:h';
}

function partsOf(ms: number): TimeLeftParts {
  const seconds = Math.max(0, Math.ceil(ms / 1000));
  if (seconds < 3600) return { big: Math.floor(seconds / 60), small: seconds % 60, units: 'min:s' };
  const minutes = Math.ceil(seconds / 60);
  if (minutes < 48 * 60) return { big: Math.floor(minutes / 60), small: minutes % 60, units: 'h:min' };
  const hours = Math.ceil(minutes / 60);
  return { big: Math.floor(hours / 24), small: hours % 24, units: 'd:h' };
}

/** "0:42", "59:59", "23 h 59 min", "2 d 23 h" (see {@link partsOf} for the shapes and rounding). */
export function formatTimeLeft(ms: number): string {
  const { big, small, units } = partsOf(ms);
  if (units === 'min:s') return `${big}:${String(small).padStart(2, '0')}`;
  return units === 'h:min' ? `${big} h ${small} min` : `${big} d ${small} h`;
}

const SPOKEN: Record<TimeLeftParts['units'], [string, string]> = {
  'min:s': ['minute', 'second'],
  'h:min': ['hour', 'minute'],
  'd:h': ['day', 'hour'],
};

const counted = (n: number, name: string) => `${n} ${name}${n === 1 ? '' : 's'}`;

/**
 * The same time left in words, for a screen reader ("2 days 23 hours", "1 minute 5 seconds"): the
 * units and rounding of {@link formatTimeLeft}; a zero unit is left out.
 */
export function spokenTimeLeft(ms: number): string {
  const { big, small, units } = partsOf(ms);
  const [bigName, smallName] = SPOKEN[units];
  if (big === 0) return counted(small, smallName);
  return small === 0 ? counted(big, bigName) : `${counted(big, bigName)} ${counted(small, smallName)}`;
}
