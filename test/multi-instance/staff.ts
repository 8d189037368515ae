// The people the multi-instance tests clock in and out: one department, each person with an active
// badge `badge-<ref>`, loaded through the import the operator's `wfs import` runs.
import type { AppContext } from '../../src/platform/context.ts';
import { importCompanyData } from '../../src/company/import.ts';

export async function importClockingStaff(ctx: AppContext, companyId: string, refs: string[]): Promise<void> {
  await importCompanyData(ctx.db, companyId, {
    departments: [{ ref: 'floor', name: 'Floor', code: 'FLR' }],
    users: refs.map((ref, index) => ({
      ref, employeeNumber: `E${index + 1}`, firstName: ref, lastName: 'Clock', email: null, employmentStart: '2024-01-01',
      employmentEnd: null, departmentRefs: ['floor'], positionRefs: [], badgeId: `badge-${ref}`, timeclockActive: true,
    })),
  });
}
