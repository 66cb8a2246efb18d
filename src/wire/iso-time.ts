/**
 * A time as the wire spells it (ISO 8601, UTC, milliseconds). A task's status time is spelled
 * twice per SendMessage (its opening event and the answer) and once per GetTask; `toISOString`
 * is about 0.7 µs a call, several times that inside a loaded hub. So the answer to the last time
 * asked is kept (under load many tasks share a millisecond), and a time in the same UTC day as
 * the last one spelled by `toISOString` is written from that day's date and the clock time
 * (about 0.1 µs). Anything else, a time that is not one included, goes to `toISOString`.
 */
const DAY_MS = 86_400_000;

let lastMs = Number.NaN;
let lastIso = '';
/** The UTC day of the last time `toISOString` spelled: its first millisecond, and its `YYYY-MM-DDT`. */
let dayStart = Number.NaN;
let dayText = '';

export function isoTime(ms: number): string {
  if (ms !== lastMs) {
    lastIso = spelled(ms);
    lastMs = ms;
  }
  return lastIso;
}

function spelled(ms: number): string {
  const inDay = ms - dayStart;
  if (inDay >= 0 && inDay < DAY_MS && Number.isInteger(inDay)) return dayText + clockTime(inDay);
  const iso = new Date(ms).toISOString(); // a RangeError for a time that is not one
  if (iso.length === 24 && Number.isInteger(ms)) {
    // A four-digit year: the day's text is the first 11 characters (years past 9999 take more)
    dayStart = ms - (((ms % DAY_MS) + DAY_MS) % DAY_MS);
    dayText = iso.slice(0, 11);
  }
  return iso;
}

/** `hh:mm:ss.mmmZ` of a millisecond of the day. */
function clockTime(inDay: number): string {
  const seconds = Math.floor(inDay / 1000);
  const millis = inDay % 1000;
  return `${two(Math.floor(seconds / 3600))}:${two(Math.floor(seconds / 60) % 60)}:${two(seconds % 60)}.${millis < 100 ? (millis < 10 ? '00' : '0') : ''}${millis}Z`;
}

const two = (n: number): string => (n < 10 ? `0${n}` : `${n}`);
