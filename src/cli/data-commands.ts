// Database and data commands (CONTRACT §5): migrate, seed-demo and import.
import type { Command } from 'commander';
import { seedDemo } from '../demo/seed.ts';
import { operatorAction } from './output.ts';

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
    .action(operatorAction(async ({ db, config }) => {
      const demo = await seedDemo(db, config);
      return {
        json: demo,
        summary: [
          `Created demo organisation ${demo.organisationId} with company ${demo.companyId}.`,
          `API client ${demo.clientId} (redirect URI ${demo.redirectUri}); API user ${demo.userEmail}.`,
        ].join('\n'),
        secrets: { 'Client secret': demo.clientSecret, 'User secret': demo.userSecret },
      };
    }));
}
