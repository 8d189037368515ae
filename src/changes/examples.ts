// Examples for the OpenAPI description of the delta endpoint, in the company API's example company.
import { EXAMPLE_IDS } from '../platform/examples.ts';

const CURSOR = 'WyJ4UzNtZk1WeVVQRzB3N2hXIixbMTI0NSwiIl1d.q0pZ7m1Ckq3jYbFzv8E2Cw';

export const changesExample = {
  data: [
    {
      seq: 1244,
      id: 'chg_1244',
      type: 'shift.updated',
      resourceType: 'shift',
      resourceId: 'shf_Qm7tL2xW9cRv4NbK',
      occurredAt: '2026-11-24T16:02:11.250+01:00',
      deleted: false,
      data: {
        id: 'shf_Qm7tL2xW9cRv4NbK', date: '2026-11-25', startsAt: '2026-11-25T09:00:00+01:00', endsAt: '2026-11-25T17:30:00+01:00', breakMinutes: 30,
        userId: EXAMPLE_IDS.jan, departmentId: EXAMPLE_IDS.kitchen, positionId: EXAMPLE_IDS.chef, shiftTypeId: EXAMPLE_IDS.dayShift,
        category: 'work', note: null, updatedAt: '2026-11-24T16:02:11.250+01:00',
      },
    },
    { seq: 1245, id: 'chg_1245', type: 'contract.deleted', resourceType: 'contract', resourceId: 'con_Hr4dT7uM2xPq9LwB', occurredAt: '2026-11-24T16:02:11.250+01:00', deleted: true, data: null },
  ],
  nextCursor: CURSOR,
  hasMore: false,
};

export const headExample = { cursor: CURSOR };
