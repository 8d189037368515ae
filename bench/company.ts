// Loads the benchmark company into the database. Placeholder until src/company/import.ts lands.
import type { AppContext } from '../src/platform/context.ts';
import type { DatasetShape } from './dataset.ts';

export interface LoadedCompany {
  shifts: number;
  seconds: number;
  firstDate: string;
  days: number;
}

export async function loadCompany(_ctx: AppContext, _companyId: string, _shape: DatasetShape & { days: number }): Promise<LoadedCompany> {
  throw new Error('importCompanyData (src/company/import.ts) has not landed yet');
}
