// Where a person stands after a punch, and what was odd about it. A punch that makes no sense is
// still stored (it happened) and carries an anomaly code; the state moves to where the punch says
// the person now is, so one missed punch is flagged once, not on every later event.
import type { PresenceState, PunchType } from './tables.ts';

export type Anomaly =
  | 'missing_clock_in'
  | 'already_clocked_in'
  | 'break_without_clock_in'
  | 'break_end_without_break_start'
  | 'already_on_break'
  | 'clock_out_during_break';

export const ANOMALIES: Anomaly[] = [
  'missing_clock_in',
  'already_clocked_in',
  'break_without_clock_in',
  'break_end_without_break_start',
  'already_on_break',
  'clock_out_during_break',
];

const NEXT_STATE: Record<PunchType, PresenceState> = {
  clock_in: 'working',
  clock_out: 'off',
  break_start: 'on_break',
  break_end: 'working',
};

const ANOMALY: Record<PresenceState, Partial<Record<PunchType, Anomaly>>> = {
  off: {
    clock_out: 'missing_clock_in',
    break_start: 'break_without_clock_in',
    break_end: 'break_end_without_break_start',
  },
  working: {
    clock_in: 'already_clocked_in',
    break_end: 'break_end_without_break_start',
  },
  on_break: {
    clock_in: 'already_clocked_in',
    break_start: 'already_on_break',
    clock_out: 'clock_out_during_break',
  },
};

export function transition(state: PresenceState, punch: PunchType): { state: PresenceState; anomaly: Anomaly | null } {
  return { state: NEXT_STATE[punch], anomaly: ANOMALY[state][punch] ?? null };
}
