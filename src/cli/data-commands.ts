// Database and data commands (contract: operator side): migrate, seed-demo and import. The import
// (its schemas) and the demo (the reference page) load half of the program's modules, so they are
// loaded when one of their commands runs, not on every start of `wfs`.
import { readFile } from 'node:fs/promises';
import { InvalidArgumentError, type Command } from 'commander';
import { DateTime } from 'luxon';
import { badRequest } from '../platform/errors.ts';
import { ListedFailure, operatorAction } from './output.ts';

async function readBytes(file: string): Promise<Buffer> {
  return readFile(file).catch((error: NodeJS.ErrnoException) => {
    throw badRequest('unreadable_file', `Cannot read ${file}: ${error.code ?? error.message}.`);
  });
}

/** The demo data's generator takes a 32-bit seed: a whole number from 0 to 4294967295. */
const MAX_SEED = 2 ** 32 - 1;

function demoSeed(value: string): number {
  if (!/^\d+$/.test(value) || Number(value) > MAX_SEED) throw new InvalidArgumentError(`must be a whole number from 0 to ${MAX_SEED}.`);
  return Number(value);
}

function demoDate(value: string): string {
  if (!DateTime.fromFormat(value, 'yyyy-MM-dd', { zone: 'UTC' }).isValid) throw new InvalidArgumentError('must be a date as YYYY-MM-DD.');
  return value;
}

function describeCounts(counts: Record<string, { created: number; updated: number; deleted: number }>): string {
  return Object.entries(counts)
    .map(([entity, c]) => `  ${`${entity}:`.padEnd(15)}${c.created} created, ${c.updated} updated, ${c.deleted} deleted`)
    .join('\n');
}

export function dataCommands(program: Command): void {
  program
    .command('migrate')
    .description('apply pending database migrations (every command also does this first)')
    .action(operatorAction(async ({ applied }) => ({
      json: { applied },
      summary: applied.length === 0 ? 'The database is up to date; nothing to apply.' : `Applied ${applied.length} migration(s): ${applied.join(', ')}.`,
    })));

  program
    .command('seed-demo')
    .description('create a demo organisation, company, API Client and API User (prints the secrets once)')
    .option('--seed <n>', 'seed of the demo data (whole number, 0 to 4294967295): the same seed on the same day gives the same departments, employees, contracts and shifts (default 1)', demoSeed)
    .option('--date <YYYY-MM-DD>', 'the day the demo data is dated from, in Europe/Amsterdam (default today): shifts run from 8 days before it to 38 days after', demoDate)
    .action(operatorAction<{ seed?: number; date?: string }>(async ({ db, config }, options) => {
      const { seedDemo } = await import('../demo/seed.ts');
      const demo = await seedDemo(db, config, { ...(options.seed === undefined ? {} : { seed: options.seed }), ...(options.date === undefined ? {} : { date: options.date }) });
      return {
        json: demo,
        summary: [
          `Created demo organisation ${demo.organisationId} with company ${demo.companyId}.`,
          `API client ${demo.clientId} (redirect URI ${demo.redirectUri}); API user ${demo.userEmail}.`,
        ].join('\n'),
        secrets: { 'Client secret': demo.clientSecret, 'User secret': demo.userSecret },
      };
    }));

  program
    .command('import')
    .description('import company data from a JSON import document (validated whole, applied in one transaction)')
    .requiredOption('--company <companyId>', 'company id')
    .argument('<file>', 'the import document (JSON)')
    .action(operatorAction<{ company: string }>(async ({ db, config }, options, [file = '']) => {
      const { importedCompanyData } = await import('../admin/company-import.ts');
      // As the operator API does: read, checked and written in a worker, every problem listed as it is read.
      const counts = await importedCompanyData(db, config, options.company, await readBytes(file), file);
      if ('problems' in counts) throw new ListedFailure(counts.detail, counts.count, counts.problems);
      return { json: counts, summary: `Imported ${file} into company ${options.company}:\n${describeCounts(counts)}` };
    }));
}
