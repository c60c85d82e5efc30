// The Python interpreter of this machine (the scripts area's `python` setting), for local script workers and for
// reading Python code with its own `ast`.
import { execFile, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const executables = new Map<string, Promise<string | undefined>>();

/**
 * The real interpreter behind `python` (version managers put a shell shim first, which costs ~100 ms a start);
 * undefined where there is none, as inside a Node Lambda function.
 */
export function pythonExecutable(python: string): Promise<string | undefined> {
  let executable = executables.get(python);
  if (!executable) {
    executable = new Promise((resolve) => {
      execFile(python, ['-c', 'import sys; print(sys.executable)'], { timeout: 60_000 }, (error, stdout) => {
        // A failure is not remembered: on a busy machine the first probe can time out, and one slow start must not
        // leave this process without Python for good.
        if (error) executables.delete(python);
        resolve(error ? undefined : stdout.trim() || undefined);
      });
    });
    executables.set(python, executable);
  }
  return executable;
}

const factsScript = fileURLToPath(new URL('./lint/python_facts.py', import.meta.url));

/** What python_facts.py reports about a piece of Python code; see lint/code-facts.ts. */
export async function pythonFacts<T>(python: string, code: string): Promise<T | undefined> {
  const executable = await pythonExecutable(python);
  if (!executable) return undefined;
  return new Promise((resolve, reject) => {
    const child = spawn(executable, ['-E', '-s', '-B', factsScript], { stdio: ['pipe', 'pipe', 'pipe'], env: { PATH: '/usr/bin:/bin', LANG: 'C.UTF-8' } });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on('data', (chunk: Buffer) => out.push(chunk));
    child.stderr.on('data', (chunk: Buffer) => err.push(chunk));
    child.once('error', reject);
    child.once('close', (status) => {
      if (status !== 0) return reject(new Error(`python_facts.py failed (${status}): ${Buffer.concat(err).toString().slice(-500)}`));
      resolve(JSON.parse(Buffer.concat(out).toString('utf8')) as T);
    });
    child.stdin.end(code);
  });
}
