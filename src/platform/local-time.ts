// Company-local wall-clock time and instants. Shift times are given as a local date plus HH:MM in the
// company's zone; the API writes instants in the company's offset of that moment.
// Asking a zone for its offset goes through Intl and is slow, and a timetable repeats the same few
// dates, times and instants endlessly, so every conversion is memoised per zone.
import { DateTime, FixedOffsetZone, IANAZone } from 'luxon';

const CACHE_LIMIT = 50_000;

/** Whether `zone` names an IANA time zone (`Europe/Amsterdam`, `UTC`; in any case, as Intl takes it; not a bare offset such as `+01:00`). */
export function isTimeZoneName(zone: string): boolean {
  return /^[A-Za-z]/.test(zone) && IANAZone.isValidZone(zone);
}

class ZoneMemo<K, V> {
  readonly #zones = new Map<string, Map<K, V>>();

  get(zone: string, key: K, compute: () => V): V {
    let cache = this.#zones.get(zone);
    if (!cache) this.#zones.set(zone, (cache = new Map<K, V>()));
    const hit = cache.get(key);
    if (hit !== undefined) return hit;
    if (cache.size >= CACHE_LIMIT) cache.clear();
    const value = compute();
    cache.set(key, value);
    return value;
  }
}

const instants = new ZoneMemo<string, number | null>();
const offsets = new ZoneMemo<number, number>();
const written = new ZoneMemo<number, string>();

/**
 * The instant of `date` at `time` (HH:MM) in `zone`, or null when that wall-clock time does not exist
 * there (the hour skipped when clocks go forward). A time that occurs twice (clocks go back) means
 * its first occurrence.
 */
export function localInstant(date: string, time: string, zone: string): number | null {
  return instants.get(zone, `${date} ${time}`, () => {
    const [year, month, day] = date.split('-').map(Number);
    const [hour, minute] = time.split(':').map(Number);
    const local = DateTime.fromObject({ year, month, day, hour, minute }, { zone });
    // luxon moves a non-existent time forward; a changed wall clock means it fell in the gap.
    if (!local.isValid || local.day !== day || local.hour !== hour || local.minute !== minute) return null;
    return Math.min(...local.getPossibleOffsets().map((candidate) => candidate.toMillis()));
  });
}

/** ISO 8601 with the zone's offset at that instant, e.g. 2026-11-22T09:00:00+01:00. */
export function formatInstant(epochMs: number, zone: string): string {
  return written.get(zone, epochMs, () => {
    // Offsets change on whole minutes, so the offset of the instant's minute is the offset.
    const offset = offsets.get(zone, Math.floor(epochMs / 60_000), () => IANAZone.create(zone).offset(epochMs));
    // luxon writes offset 0 as "Z" (a fixed zone of offset 0, and also the zones "UTC" and "GMT",
    // which it treats as one); the contract writes every offset alike, so that one is "+00:00".
    if (offset === 0) return `${DateTime.fromMillis(epochMs, { zone: FixedOffsetZone.utcInstance }).toISO({ suppressMilliseconds: true, includeOffset: false }) ?? ''}+00:00`;
    return DateTime.fromMillis(epochMs, { zone: FixedOffsetZone.instance(offset) }).toISO({ suppressMilliseconds: true }) ?? '';
  });
}
