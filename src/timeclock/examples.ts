// Examples for the OpenAPI description of the timeclock, in the restaurant of the company examples
// (src/platform/examples.ts and src/company/examples.ts): Jan de Vries punches in at the kitchen terminal with his badge and
// takes his break, ending it from his phone. Instants are in the company offset (+01:00 in November).
import { EXAMPLE_IDS } from '../platform/examples.ts';
import type { Badge } from './badges.ts';
import type { TimeclockEvent, TimeclockEventInput } from './events.ts';

const { company, jan } = EXAMPLE_IDS;

/** The organisation's activated badges: one in this company, one in a sister company. */
export const badgesExample: { data: Badge[]; nextCursor: null } = {
  data: [
    { id: 'B-1001', badgeId: 'B-1001', userId: jan, companyId: company, employeeNumber: '1001', displayName: 'Jan de Vries', activatedAt: '2026-01-05T08:12:40+01:00', updatedAt: '2026-11-20T14:32:05+01:00' },
    { id: 'B-2040', badgeId: 'B-2040', userId: 'emp_Ye5cH2nV7qBd4WxR', companyId: 'cmp_Lw3pT8rK1sZf6NqC', employeeNumber: '2040', displayName: 'Fatima El Amrani', activatedAt: '2026-03-16T07:55:02+01:00', updatedAt: '2026-10-02T10:20:11+02:00' },
  ],
  nextCursor: null,
};

export const clockInExample: TimeclockEventInput = {
  eventId: '3f6c1e2a-8b4d-4c7e-9a15-6d2b8e0f4a71',
  badgeId: 'B-1001',
  type: 'clock_in',
  occurredAt: '2026-11-23T08:58:12+01:00',
  source: 'terminal',
  deviceId: 'kitchen-terminal-1',
};

/** The stored clock-in: the 14th event of this person. */
export const clockInStoredExample: TimeclockEvent = {
  id: 'tce_Vb6nQ2xK9wRt4LmZ',
  eventId: clockInExample.eventId,
  userId: jan,
  badgeId: 'B-1001',
  companyId: company,
  type: 'clock_in',
  occurredAt: '2026-11-23T08:58:12+01:00',
  source: 'terminal',
  deviceId: 'kitchen-terminal-1',
  location: null,
  sequence: 14,
  receivedAt: '2026-11-23T08:58:13+01:00',
  anomaly: null,
  updatedAt: '2026-11-23T08:58:13+01:00',
};

/** `from=2026-11-23&userId=…`: the day's events in the order they occurred. */
export const eventsExample: { data: TimeclockEvent[]; nextCursor: null } = {
  data: [
    clockInStoredExample,
    {
      ...clockInStoredExample,
      id: 'tce_Hs1dW7pC3yJk8QeN',
      eventId: '9a0d5b7e-2c4f-4e81-b3a6-1f7c9e2d8b40',
      type: 'break_start',
      occurredAt: '2026-11-23T12:30:05+01:00',
      sequence: 15,
      receivedAt: '2026-11-23T12:30:06+01:00',
      updatedAt: '2026-11-23T12:30:06+01:00',
    },
    {
      ...clockInStoredExample,
      id: 'tce_Rm9fB4tX6vGq2KyA',
      eventId: 'c41e8f3a-7d2b-4a96-8e05-3b9d6f1a2c57',
      badgeId: null,
      type: 'break_end',
      occurredAt: '2026-11-23T13:01:40+01:00',
      source: 'mobile',
      deviceId: 'iphone-jdv',
      location: { latitude: 52.3731, longitude: 4.8922 },
      sequence: 16,
      receivedAt: '2026-11-23T13:01:41+01:00',
      updatedAt: '2026-11-23T13:01:41+01:00',
    },
  ],
  nextCursor: null,
};
