// The people the multi-instance tests clock in and out: one department, each person with an active
// badge `badge-<ref>`, as company data for the import the operator's `wfs import` runs.
import type { ImportDocument } from '../../src/company/import.ts';

export function clockingStaff(refs: string[]): ImportDocument {
  return {
    departments: [{ ref: 'floor', name: 'Floor', code: 'FLR' }],
    users: refs.map((ref, index) => ({
      ref, employeeNumber: `E${index + 1}`, firstName: ref, lastName: 'Clock', email: null, employmentStart: '2024-01-01',
      employmentEnd: null, departmentRefs: ['floor'], positionRefs: [], badgeId: `badge-${ref}`, timeclockActive: true,
    })),
  };
}
