// Grant requests (CONTRACT §6): the operator lists what customers asked for and decides. Approving
// enables the grant; declining needs a reason the customer sees in the console.
import { Option, type Command } from 'commander';
import { GRANT_REQUEST_STATUSES, approveGrantRequest, declineGrantRequest, listGrantRequests } from '../iam/grant-requests.ts';
import { OPERATOR } from '../iam/audit.ts';
import { operatorAction } from './output.ts';

export function grantRequestCommands(program: Command): void {
  program
    .command('grant-requests')
    .description('list grant requests of every organisation, newest first')
    .addOption(new Option('--status <status>', 'only requests in this state').choices(GRANT_REQUEST_STATUSES))
    .option('--client <clientId>', 'only requests of this API Client')
    .action(operatorAction<{ status?: string; client?: string }>(async ({ db }, options) => {
      const requests = await listGrantRequests(db, { ...(options.status ? { status: options.status } : {}), ...(options.client ? { clientId: options.client } : {}) });
      const lines = requests.map((r) => `  ${r.id}  ${r.status.padEnd(8)}  ${r.grant.padEnd(18)}  client ${r.clientId}  ${r.createdAt}  ${JSON.stringify(r.reason)}`);
      return { json: { requests }, summary: [`${requests.length} grant request(s).`, ...lines].join('\n') };
    }));

  program
    .command('approve-grant-request')
    .description('approve a pending grant request: enables the grant for its client')
    .argument('<requestId>', 'grant request id')
    .action(operatorAction<Record<string, never>>(async ({ db }, _options, [id]) => {
      const request = await approveGrantRequest(db, id ?? '', OPERATOR);
      return { json: request, summary: `Approved ${request.id}: ${request.grant} is enabled for client ${request.clientId}.` };
    }));

  program
    .command('decline-grant-request')
    .description('decline a pending grant request, with the reason the customer sees')
    .argument('<requestId>', 'grant request id')
    .requiredOption('--reason <text>', 'why the request is declined')
    .action(operatorAction<{ reason: string }>(async ({ db }, options, [id]) => {
      const request = await declineGrantRequest(db, id ?? '', options.reason, OPERATOR);
      return { json: request, summary: `Declined ${request.id} (${request.grant} for client ${request.clientId}).` };
    }));
}
