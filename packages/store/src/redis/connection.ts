import { Redis } from 'ioredis';

/**
 * Opens the client a store owns when it is given a URL.
 *
 * `maxRetriesPerRequest: 2`: ioredis's default (20) keeps a command queued through 20 reconnect
 * attempts (about 20 s of back-off) when Redis is down, so an answer or a readiness probe would hang
 * that long. With 2, a command fails after the third failed reconnect (about 0.3 s of back-off when
 * the port refuses), yet rides through a single blip. `connectTimeout: 2000` bounds each attempt
 * when packets vanish instead of being refused (default 10 s).
 */
export function openClient(url: string): Redis {
  const client = new Redis(url, { maxRetriesPerRequest: 2, connectTimeout: 2000 });
  // Failures reach callers through their rejected commands; without a listener ioredis prints
  // every failed reconnect to the console.
  client.on('error', () => {});
  return client;
}
