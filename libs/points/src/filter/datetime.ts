const DATETIME_PATTERN =
  /^(\d{4})-(\d{2})-(\d{2})(?:[Tt ](\d{2}):(\d{2})(?::(\d{2})(?:[.,](\d{1,9}))?)?)?\s*(?:([Zz])|([+-])(\d{2}):?(\d{2}))?$/;

const DAYS_IN_MONTH = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

function isLeapYear(year: number): boolean {
  return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
}

/**
 * Parses a payload datetime into microseconds since the Unix epoch (UTC), or undefined when the
 * text is not one. Accepts what Qdrant accepts: RFC 3339 (`2023-02-08T10:49:00Z`,
 * `…+01:00`, fractions up to nanoseconds, truncated to µs), a space instead of `T`, no offset
 * (taken as UTC), no seconds (`2023-02-08T10:49`), and a bare date (`2023-02-08`, midnight UTC).
 */
export function parseDatetimeMicros(text: string): number | undefined {
  const m = DATETIME_PATTERN.exec(text.trim());
  if (m === null) return undefined;
  const year = Number(m[1]);
  const month = Number(m[2]);
  const day = Number(m[3]);
  const hour = m[4] === undefined ? 0 : Number(m[4]);
  const minute = m[5] === undefined ? 0 : Number(m[5]);
  const second = m[6] === undefined ? 0 : Number(m[6]);
  if (month < 1 || month > 12) return undefined;
  const monthDays = month === 2 && isLeapYear(year) ? 29 : DAYS_IN_MONTH[month - 1];
  if (day < 1 || day > monthDays || hour > 23 || minute > 59 || second > 59) return undefined;
  let offsetMinutes = 0;
  if (m[9] !== undefined) {
    const offHours = Number(m[10]);
    const offMinutes = Number(m[11]);
    if (offHours > 23 || offMinutes > 59) return undefined;
    offsetMinutes = (m[9] === '-' ? -1 : 1) * (offHours * 60 + offMinutes);
  }
  const date = new Date(0);
  // setUTCFullYear, unlike Date.UTC, does not map years 0–99 to 1900–1999.
  date.setUTCFullYear(year, month - 1, day);
  date.setUTCHours(hour, minute, second, 0);
  const fraction = m[7] === undefined ? 0 : Number(m[7].padEnd(6, '0').slice(0, 6));
  return (date.getTime() - offsetMinutes * 60_000) * 1000 + fraction;
}
