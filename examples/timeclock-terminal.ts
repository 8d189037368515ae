// A timeclock terminal: people badge in and out; each punch is queued per person and sent in order,
// the next only after the previous one's 200 (the interface's rule), resent with the same eventId
// after a lost connection or a 5xx, so nothing is lost or stored twice. Different people are sent in
// parallel.
//
//   npm run wfs -- login --base-url http://localhost:8080 --client-id … --client-secret …   (once)
//   npx node examples/timeclock-terminal.ts [--people 8] [--seconds 30] [--company-id ID] [--credentials-file FILE]
//
// The badge readings are simulated: random people of the organisation's badge list, each going
// through clock_in → break_start → break_end → clock_out, punched "now".
import { parseArgs } from 'node:util';
import { setTimeout as sleep } from 'node:timers/promises';
import { DateTime } from 'luxon';
import { ApiError, type ItemOf } from '../packages/client/src/index.ts';
import { clientFromCredentials, defaultCredentialsFile } from '../packages/client/src/file-store.ts';

const { values } = parseArgs({
  options: {
    people: { type: 'string', default: '8' },
    seconds: { type: 'string', default: '30' },
    'company-id': { type: 'string' },
    device: { type: 'string', default: 'terminal-1' },
    'credentials-file': { type: 'string', default: defaultCredentialsFile() },
  },
});

type Punch = 'clock_in' | 'break_start' | 'break_end' | 'clock_out';
const NEXT: Record<Punch, Punch> = { clock_in: 'break_start', break_start: 'break_end', break_end: 'clock_out', clock_out: 'clock_in' };

const client = clientFromCredentials(values['credentials-file']);
const companyId = values['company-id'];
const badges = (await client.list('/api/v1/timeclock/badges', companyId ? { companyId } : {})).slice(0, Number(values.people));
if (badges.length === 0) {
  console.error('No activated badges: give people a badge and timeclockActive (wfs import).');
  process.exit(1);
}

/** Where each person stands: after their last punch today, so a second run carries on. */
async function lastPunch(badge: ItemOf<'/api/v1/timeclock/badges'>): Promise<Punch> {
  const events = await client.list('/api/v1/timeclock/events', { userId: badge.userId });
  return events.at(-1)?.type ?? 'clock_out';
}
const state = new Map(await Promise.all(badges.map(async (badge) => [badge.badgeId, await lastPunch(badge)] as const)));

const counts = { stored: 0, anomalies: 0, refused: 0 };
const deadline = Date.now() + Number(values.seconds) * 1000;
const interval = Math.max(50, (Number(values.seconds) * 1000) / (badges.length * 4));
console.log(`Terminal ${values.device}: ${badges.length} people, a punch every ${Math.round(interval)} ms for ${values.seconds} s`);

while (Date.now() < deadline) {
  const badge = badges[Math.floor(Math.random() * badges.length)];
  if (!badge) break;
  const type = NEXT[state.get(badge.badgeId) ?? 'clock_out'];
  state.set(badge.badgeId, type);
  // occurredAt is when the badge was read, not when the request is sent: a queued punch keeps its time.
  const occurredAt = DateTime.now().toISO() ?? '';
  client.timeclock.send({ badgeId: badge.badgeId, type, occurredAt, source: 'terminal', deviceId: values.device })
    .then((event) => {
      counts.stored++;
      if (event.anomaly) counts.anomalies++;
      console.log(`${event.occurredAt}  ${badge.displayName.padEnd(24)} #${String(event.sequence).padStart(3)} ${event.type}${event.anomaly ? `  (anomaly: ${event.anomaly})` : ''}`);
    })
    .catch((error: unknown) => {
      // A 409 (out_of_order, timeclock_inactive, …) or 404 is this punch's own problem: report it; the
      // person's later punches still go out.
      counts.refused++;
      console.error(`${badge.displayName}: ${type} refused: ${error instanceof ApiError ? `${error.code}: ${error.problem.detail}` : String(error)}`);
    });
  await sleep(interval);
}

await client.timeclock.drain();
console.log(`Done: ${counts.stored} punches stored (${counts.anomalies} with an anomaly), ${counts.refused} refused.`);
