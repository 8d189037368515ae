// Bench-only: loaded with `--import` into the service process of the "timeclock without the change
// log" row (bench/processes.ts, startService with withoutChangeLog), never into a production process.
// It redirects the change-log imports of the timeclock write path (src/timeclock/record.ts and
// store.ts) to ./timeclock-writes.ts, which stores the event alone and announces nothing. Every other module,
// and every other importer of the change log, is left as it is. There is no switch in src/: the
// service cannot be configured to skip its change log (docs/benchmarks.md says why).
import { registerHooks } from 'node:module';

const WRITE_PATH = new Set([new URL('../../src/timeclock/record.ts', import.meta.url).href, new URL('../../src/timeclock/store.ts', import.meta.url).href]);
const REDIRECTED = new Set([new URL('../../src/changes/change-log.ts', import.meta.url).href, new URL('../../src/changes/notifier.ts', import.meta.url).href]);
const REPLACEMENT = new URL('./timeclock-writes.ts', import.meta.url).href;

registerHooks({
  resolve(specifier, context, nextResolve) {
    const resolved = nextResolve(specifier, context);
    return context.parentURL !== undefined && WRITE_PATH.has(context.parentURL) && REDIRECTED.has(resolved.url) ? { ...resolved, url: REPLACEMENT, shortCircuit: true } : resolved;
  },
});
