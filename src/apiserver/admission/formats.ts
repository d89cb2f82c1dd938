/**
 * String formats: the `format` values schema validation checks, each as the Kubernetes API server
 * (kube-openapi's strfmt) accepts it.
 *
 * Guarantees: a format listed here is enforced on string values; any other format is ignored, as
 * the real server ignores formats it does not know.
 * Caveat: only the formats CRDs commonly use are listed — `date-time` (alias `datetime`), `date`,
 * `byte`, `uuid`, `ipv4`, `ipv6` and `cidr`; `email`, `hostname`, `uri`, `mac`, `duration` and the
 * rest are not checked.
 */
import { isIPv4, isIPv6 } from 'node:net';

const TIME = /^([0-9]{2}):([0-9]{2}):([0-9]{2})(.[0-9]+)?(z|([+-][0-9]{2}:[0-9]{2}))$/;
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;
const UUID = /^[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}$/i;

export const FORMATS: Readonly<Record<string, (value: string) => boolean>> = {
  'date-time': isDateTime,
  datetime: isDateTime,
  date: isDate,
  byte: (value) => BASE64.test(value),
  uuid: (value) => UUID.test(value),
  ipv4: isIPv4,
  ipv6: isIPv6,
  cidr: isCidr,
};

/**
 * Date-times already accepted, at most `ACCEPTED_DATE_TIMES` (then it starts over): a burst of
 * writes carries the same few timestamps (the server's are to the second) in every condition.
 */
const acceptedDateTimes = new Set<string>();
const ACCEPTED_DATE_TIMES = 1024;

function isDateTime(value: string): boolean {
  if (acceptedDateTimes.has(value)) return true;
  if (!parsesAsDateTime(value)) return false;
  if (acceptedDateTimes.size >= ACCEPTED_DATE_TIMES) acceptedDateTimes.clear();
  acceptedDateTimes.add(value);
  return true;
}

/** RFC 3339 as strfmt reads it: case-insensitive `T` and `Z`, optional fraction, an offset. */
function parsesAsDateTime(value: string): boolean {
  const [date, time, ...rest] = value.toLowerCase().split('t');
  if (rest.length > 0 || time === undefined || !isDate(date)) return false;
  const match = TIME.exec(time);
  return match !== null && match[1] <= '23' && match[2] <= '59' && match[3] <= '59';
}

/** `YYYY-MM-DD` naming a real day. */
function isDate(value: string): boolean {
  const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(value);
  if (!match) return false;
  const [year, month, day] = match.slice(1).map(Number);
  const parsed = new Date(Date.UTC(year, month - 1, day));
  return (
    parsed.getUTCFullYear() === year && parsed.getUTCMonth() === month - 1 && parsed.getUTCDate() === day
  );
}

function isCidr(value: string): boolean {
  const [address, length, ...rest] = value.split('/');
  if (rest.length > 0 || length === undefined || !/^\d{1,3}$/.test(length)) return false;
  const max = isIPv4(address) ? 32 : isIPv6(address) ? 128 : -1;
  return Number(length) <= max;
}
