// `platform approvals list|approve|reject`: the durable runs' approvals the caller is an approver of.
import type { Command } from 'commander';
import { unwrap } from '../../typescript/src/index.js';
import { clientFor, optionsOf, output } from '../context.js';

export function registerApprovalCommands(program: Command): void {
  const approvals = program.command('approvals').description('approvals of durable runs waiting for you');

  approvals
    .command('list')
    .description('the pending approvals you are an approver of, newest first')
    .option('--limit <n>', 'how many (1-50)', '50')
    .action(async (_local: unknown, command: Command) => {
      const options = optionsOf(command);
      const list = await unwrap(clientFor(options).GET('/api/sdk/v1/approvals', { params: { query: { limit: Number(options.limit) } } }));
      output(options, list, () =>
        list.approvals.length
          ? list.approvals.map(
              (item) => `${item.approvalId}  ${item.name}  run ${item.executionId}  until ${item.expiresAt}${item.message ? `  ${item.message}` : ''}`,
            )
          : 'no pending approvals',
      );
    });

  for (const [name, decision] of [
    ['approve', 'approve'],
    ['reject', 'reject'],
  ] as const) {
    approvals
      .command(`${name} <approvalId>`)
      .description(`${name} a pending approval: the waiting run resumes with the decision`)
      .option('--comment <text>', 'why, kept with the decision')
      .action(async (approvalId: string, _local: unknown, command: Command) => {
        const options = optionsOf(command);
        const decided = await unwrap(
          clientFor(options).POST('/api/sdk/v1/approvals/{approvalId}', {
            params: { path: { approvalId } },
            body: { decision, ...(options.comment && { comment: options.comment }) },
          }),
        );
        output(options, decided, () => `${approvalId} ${decided.status} by ${decided.decidedBy}`);
      });
  }
}
