// `npm run emit -- <event.json> [...]`: publishes sample events (events/) to the local platform as its dev
// user, with the base URL and API key that `npm start` wrote to `.data/dev.json`.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

const files = process.argv.slice(2);
const devFile = join(process.env.DATA_DIR ?? '.data', 'dev.json');

async function main(): Promise<number> {
  if (files.length === 0) {
    console.error('usage: npm run emit -- <event.json> [...]   (samples in events/)');
    return 2;
  }
  if (!existsSync(devFile)) {
    console.error(`${devFile} not found: start the platform with \`npm start\` first`);
    return 1;
  }
  const { baseUrl, apiKey } = JSON.parse(readFileSync(devFile, 'utf8')) as { baseUrl: string; apiKey: string };
  let failed = 0;
  for (const file of files) {
    const response = await fetch(`${baseUrl}/api/sdk/v1/events`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': apiKey },
      body: readFileSync(file, 'utf8'),
    });
    const text = await response.text();
    console.log(`${file}: ${response.status} ${text}`);
    if (!response.ok) failed++;
  }
  return failed ? 1 : 0;
}

process.exitCode = await main();
