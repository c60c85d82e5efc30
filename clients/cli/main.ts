// `platform`: the command line of the platform, on the typed client. Human output by default, `--json` for scripts.
import { Command, CommanderError } from 'commander';
import { unwrap } from '../typescript/src/index.js';
import { registerApprovalCommands } from './commands/approvals.js';
import { registerDocumentCommands } from './commands/docs.js';
import { registerFlowCommands } from './commands/flows.js';
import { registerMcpCommands } from './commands/mcp.js';
import { registerPayCommand } from './commands/pay.js';
import { registerRunCommands } from './commands/runs.js';
import { registerScriptCommands } from './commands/scripts.js';
import { registerTemplateCommands } from './commands/templates.js';
import { type GlobalOptions, clientFor, configFile, exitCodes, output, reportFailure, saveSettings, settings } from './context.js';

const program = new Command('platform')
  .description('command line of the automation marketplace platform')
  .option('--base-url <url>', 'platform origin (default: PLATFORM_BASE_URL, `platform configure`, or .data/dev.json)')
  .option('--api-key <key>', 'API key (default: PLATFORM_API_KEY, `platform configure`, or .data/dev.json)')
  .option('--json', 'print JSON instead of text')
  .showHelpAfterError()
  // Commander exits 1 on an unknown command or option; a wrong command line is exit code 2 here (exitCodes).
  .exitOverride();

program
  .command('configure')
  .description('save the base URL and key for later commands; without options, show what is in use')
  .action((_local: unknown, command: Command) => {
    const options = command.optsWithGlobals<GlobalOptions>();
    if (options.baseUrl || options.apiKey) {
      const path = saveSettings({ ...(options.baseUrl && { baseUrl: options.baseUrl }), ...(options.apiKey && { apiKey: options.apiKey }) });
      console.log(`saved to ${path}`);
      return;
    }
    const current = settings(options);
    output(options, { baseUrl: current.baseUrl, keyFrom: current.source, configFile: configFile() }, () => [
      `base URL: ${current.baseUrl}`,
      `key from: ${current.source}`,
    ]);
  });

program
  .command('whoami')
  .description('the account of the key in use')
  .action(async (_local: unknown, command: Command) => {
    const options = command.optsWithGlobals<GlobalOptions>();
    const me = await unwrap(clientFor(options).GET('/api/sdk/v1/me'));
    output(options, me, () => `${me.username} (${me.userId})${me.walletAddress ? `, wallet ${me.walletAddress}` : ''}`);
  });

program
  .command('openapi')
  .description("print the platform's OpenAPI document")
  .action(async (_local: unknown, command: Command) => {
    const options = command.optsWithGlobals<GlobalOptions>();
    const document = await unwrap(clientFor(options).GET('/api/sdk/v1/openapi.json'));
    console.log(JSON.stringify(document, null, 2));
  });

registerScriptCommands(program);
registerFlowCommands(program);
registerRunCommands(program);
registerApprovalCommands(program);
registerDocumentCommands(program);
registerPayCommand(program);
registerTemplateCommands(program);
registerMcpCommands(program);

try {
  await program.parseAsync(process.argv);
} catch (error) {
  // Commander has printed its own message (or the help, which is no failure).
  if (error instanceof CommanderError) process.exitCode = error.exitCode === 0 ? exitCodes.ok : exitCodes.usage;
  else process.exitCode = reportFailure(error, Boolean(program.opts<GlobalOptions>().json));
}
