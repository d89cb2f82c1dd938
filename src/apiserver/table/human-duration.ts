/**
 * HumanDuration: an age as kubectl's AGE column prints it, the same string as
 * k8s.io/apimachinery/pkg/util/duration.HumanDuration for the same duration.
 *
 * Guarantees: every threshold and rounding of the Go function — at most two units, each unit
 * truncated toward zero: `119s`, `2m`, `9m59s`, `179m`, `3h`, `7h59m`, `47h`, `2d`, `7d23h`,
 * `729d`, `2y`, `7y364d`, `8y`. A clock skew of less than two seconds into the future is `0s`;
 * anything further in the future is `<invalid>`.
 * Assumes: years are 365 days, as the Go function counts them.
 */

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;

/** `ms` is now − then in milliseconds. */
export function humanDuration(ms: number): string {
  const seconds = Math.trunc(ms / SECOND);
  if (seconds < -1) return '<invalid>';
  if (seconds < 0) return '0s';
  if (seconds < 2 * 60) return `${seconds}s`;

  const minutes = Math.trunc(ms / MINUTE);
  if (minutes < 10) return withRemainder(minutes, 'm', seconds % 60, 's');
  if (minutes < 3 * 60) return `${minutes}m`;

  const hours = Math.trunc(ms / HOUR);
  if (hours < 8) return withRemainder(hours, 'h', minutes % 60, 'm');
  if (hours < 48) return `${hours}h`;

  const days = Math.trunc(hours / 24);
  if (hours < 24 * 8) return withRemainder(days, 'd', hours % 24, 'h');
  if (hours < 24 * 365 * 2) return `${days}d`;

  const years = Math.trunc(days / 365);
  if (hours < 24 * 365 * 8) return withRemainder(years, 'y', days % 365, 'd');
  return `${years}y`;
}

/** `5m`, or `5m30s` when the smaller unit is not zero. */
function withRemainder(major: number, majorUnit: string, minor: number, minorUnit: string): string {
  return minor === 0 ? `${major}${majorUnit}` : `${major}${majorUnit}${minor}${minorUnit}`;
}
