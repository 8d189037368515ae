// Long work on the one thread that serves every request (CONTRACT §4: no request holds the event loop
// over 50 ms), done in slices: a loop awaits `pace()` between its steps, and once SLICE_MS of work
// has passed since the last turn the loop gives the event loop one (setImmediate: pending I/O and
// timers run first).

/** Work between two turns of the event loop: a fifth of the contract's 50 ms, so one slow step still fits. */
export const SLICE_MS = 10;
/** Light steps (a Map look-up, a row built) are paced this many at a time. */
const STEP = 64;

export type Pace = () => Promise<void>;

const turn = () => new Promise<void>((resolve) => setImmediate(resolve));

/** A `pace()` for one piece of work: resolves at once, or after a turn of the loop once a slice is used up. */
export function pacer(sliceMs = SLICE_MS): Pace {
  let since = performance.now();
  return async () => {
    if (performance.now() - since < sliceMs) return;
    await turn();
    since = performance.now();
  };
}

/** `for (const item of items) fn(item)`, in slices. */
export async function eachPaced<T>(items: Iterable<T>, pace: Pace, fn: (item: T) => void): Promise<void> {
  let count = 0;
  for (const item of items) {
    fn(item);
    count += 1;
    if (count % STEP === 0) await pace();
  }
}

/** `items.map(fn)`, in slices. */
export async function mapPaced<T, R>(items: Iterable<T>, pace: Pace, fn: (item: T) => R): Promise<R[]> {
  const out: R[] = [];
  await eachPaced(items, pace, (item) => out.push(fn(item)));
  return out;
}

/** `items.filter(keep)`, in slices. */
export async function filterPaced<T>(items: Iterable<T>, pace: Pace, keep: (item: T) => boolean): Promise<T[]> {
  const out: T[] = [];
  await eachPaced(items, pace, (item) => keep(item) && out.push(item));
  return out;
}
