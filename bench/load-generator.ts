// Child process forked by loadTest(): autocannon runs here so the load generator never shares an event loop
// with the server it measures (both would otherwise compete for one thread on a 2-core machine).
import autocannon from 'autocannon';
import type { LoadSample, LoadTestOptions } from './support.js';

process.once('message', (options: LoadTestOptions) => {
  const latenciesMs: number[] = [];
  let non2xx = 0;
  const instance = autocannon(
    {
      url: options.url,
      method: options.method ?? 'GET',
      headers: options.headers,
      body: options.body,
      connections: options.connections,
      duration: options.durationSeconds,
    },
    (error, result) => {
      if (error) throw error;
      const sample: LoadSample = { latenciesMs: Float64Array.from(latenciesMs), non2xx, errors: result.errors, durationSeconds: result.duration };
      process.send!(sample, () => process.exit(0));
    },
  );
  // Per-response times rather than autocannon's histogram, which rounds to whole milliseconds.
  instance.on('response', (_client, statusCode, _bytes, responseTimeMs) => {
    latenciesMs.push(responseTimeMs);
    if (statusCode < 200 || statusCode >= 300) non2xx += 1;
  });
});
