// A warning that a failing dependency would otherwise write on every request (Redis down: each
// request's rate-limit count fails). The first failure is logged at once; later ones are counted and
// logged at most once per interval, with how many were left out since, so an outage shows as a few
// lines a minute that still say how often it struck, not a line per request.
import type { Clock } from './clock.ts';

export const REPEATED_WARNING_INTERVAL_MS = 60_000;

/** What of a logger this needs (Fastify's `app.log` is one). */
export interface WarningLog {
  warn(fields: object, message: string): void;
}

/** A `(error) => void` that warns with `message` at most once per `intervalMs` of `clock`. */
export function repeatedWarning(log: WarningLog, message: string, clock: Pick<Clock, 'elapsed'>, intervalMs = REPEATED_WARNING_INTERVAL_MS): (error: unknown) => void {
  let loggedAt: number | undefined;
  let leftOut = 0;
  return (error) => {
    const now = clock.elapsed();
    if (loggedAt !== undefined && now - loggedAt < intervalMs) {
      leftOut++;
      return;
    }
    log.warn({ err: error, leftOut }, message);
    loggedAt = now;
    leftOut = 0;
  };
}
