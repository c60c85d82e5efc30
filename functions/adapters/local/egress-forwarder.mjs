// Runs inside a sandbox without a network of its own: listens on the sandbox's loopback, relays every connection
// to the egress proxy's unix socket, and runs the command with the proxy settings npm and pip read. The exit code
// is the command's. Usage: node egress-forwarder.mjs <socket> <command> [args...]
import { spawn } from 'node:child_process';
import { connect, createServer } from 'node:net';

const [socketPath, command, ...args] = process.argv.slice(2);

const server = createServer((client) => {
  const upstream = connect(socketPath);
  const end = () => {
    client.destroy();
    upstream.destroy();
  };
  for (const side of [client, upstream]) {
    side.once('error', end);
    side.once('close', end);
  }
  client.pipe(upstream).pipe(client);
});

server.listen(0, '127.0.0.1', () => {
  const proxy = `http://127.0.0.1:${server.address().port}`;
  // Set in the environment, they override a project's .npmrc; nothing else routes out of this network anyway.
  const env = {
    ...process.env,
    http_proxy: proxy,
    https_proxy: proxy,
    HTTP_PROXY: proxy,
    HTTPS_PROXY: proxy,
    npm_config_proxy: proxy,
    npm_config_https_proxy: proxy,
    npm_config_noproxy: '',
    no_proxy: '',
    NO_PROXY: '',
  };
  const child = spawn(command, args, { stdio: 'inherit', env });
  child.once('error', (error) => {
    console.error(`could not start ${command}: ${error.message}`);
    process.exit(127);
  });
  child.once('exit', (code) => process.exit(code ?? 1));
});
