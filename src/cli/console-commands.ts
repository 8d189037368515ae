// The operator's console command (CONTRACT §6): `wfs invite-console-user` invites the first admin of
// an organisation (or anyone else); the invitation link is a credential and is printed once. The
// people module (and the schemas it checks with) is loaded when the command runs, not on every start
// of `wfs`.
import { Option, type Command } from 'commander';
import { operatorAction } from './output.ts';
import { CONSOLE_ROLES, type ConsoleRole } from '../console/tables.ts';

export function consoleCommands(program: Command): void {
  program
    .command('invite-console-user')
    .description('invite a person to the customer console of an organisation (single-use link, valid 72 hours)')
    .requiredOption('--org <organisationId>', 'organisation id')
    .requiredOption('--email <email>', 'the person\'s email address (their console sign-in)')
    .addOption(new Option('--role <role>', 'what the person may do').choices(CONSOLE_ROLES).default('admin'))
    .action(operatorAction<{ org: string; email: string; role: ConsoleRole }>(async ({ db, config }, options) => {
      const { inviteAsOperator } = await import('../console/operator-invitation.ts');
      const invitation = await inviteAsOperator(db, { organisationId: options.org, email: options.email, role: options.role }, config.authUrl);
      return {
        json: { inviteUrl: invitation.inviteUrl, expiresAt: invitation.expiresAt },
        summary: `Invited ${invitation.email} as ${options.role} to organisation ${options.org}; the link works once, until ${invitation.expiresAt}.`,
        secrets: { 'Invitation URL': invitation.inviteUrl },
      };
    }));
}
