// Row types of the timeclock. Events are kept forever (they happened), even after their person is
// removed, so they reference employees without a foreign key. A person's latest event (highest
// sequence) is where that person stands: its time, its sequence and the presence state after it.
// The unique (person, sequence) index is what serialises concurrent appends (see record.ts).

export type PunchType = 'clock_in' | 'clock_out' | 'break_start' | 'break_end';
export type PresenceState = 'off' | 'working' | 'on_break';

export interface TimeclockEventsTable {
  id: string;
  organisation_id: string;
  company_id: string;
  employee_id: string;
  /** The sender's UUID (lower case); unique per organisation. */
  event_id: string;
  /** sha256 of the event as sent, to tell a replay from a conflicting reuse of event_id. */
  content_hash: string;
  sequence: number;
  type: PunchType;
  occurred_at: number;
  received_at: number;
  source: string;
  /** The badge the event was sent with; null when it was sent with a userId. */
  badge_id: string | null;
  device_id: string | null;
  /** JSON `{latitude, longitude}` or null. */
  location: string | null;
  anomaly: string | null;
  /** Where the person stands after this punch; the next punch is judged against it. */
  state_after: PresenceState;
}

export interface TimeclockTables {
  timeclock_events: TimeclockEventsTable;
}

declare module '../platform/db/schema.ts' {
  interface Database extends TimeclockTables {}
}
