/** The slice of the WebSocket API used here (a global in Node ≥ 22, behind --experimental-websocket in 20). */
interface MinimalSocket {
  addEventListener(type: 'open' | 'error' | 'close', listener: () => void): void;
  addEventListener(type: 'message', listener: (event: { data: unknown }) => void): void;
  send(data: string): void;
  close(): void;
}
type SocketCtor = new (url: string) => MinimalSocket;

/**
 * A minimal Chrome DevTools Protocol client for a node started with `--inspect=127.0.0.1:<port>`:
 * force a full GC, read `process.memoryUsage()` from inside, take a heap snapshot.
 */
export class Cdp {
  private nextId = 1;
  private readonly pending = new Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void }>();
  private readonly listeners = new Map<string, (params: unknown) => void>();

  private constructor(private readonly socket: MinimalSocket) {
    socket.addEventListener('message', (event) => {
      const message = JSON.parse(String(event.data)) as {
        id?: number;
        method?: string;
        params?: unknown;
        result?: unknown;
        error?: { message: string };
      };
      if (message.id !== undefined) {
        const waiter = this.pending.get(message.id);
        this.pending.delete(message.id);
        if (message.error) waiter?.reject(new Error(message.error.message));
        else waiter?.resolve(message.result);
      } else if (message.method) this.listeners.get(message.method)?.(message.params);
    });
  }

  static async connect(port: number): Promise<Cdp> {
    const Ctor = (globalThis as unknown as { WebSocket?: SocketCtor }).WebSocket;
    if (!Ctor) throw new Error('no WebSocket global: run this process with --experimental-websocket');
    const targets = (await (await fetch(`http://127.0.0.1:${port}/json/list`)).json()) as {
      webSocketDebuggerUrl: string;
    }[];
    const url = targets[0]?.webSocketDebuggerUrl;
    if (!url) throw new Error(`no inspector target on port ${port}`);
    const socket = new Ctor(url);
    await new Promise<void>((resolve, reject) => {
      socket.addEventListener('open', () => resolve());
      socket.addEventListener('error', () => reject(new Error(`cannot open ${url}`)));
    });
    return new Cdp(socket);
  }

  send<T = unknown>(method: string, params: object = {}): Promise<T> {
    const id = this.nextId++;
    return new Promise<T>((resolve, reject) => {
      this.pending.set(id, { resolve: resolve as (v: unknown) => void, reject });
      this.socket.send(JSON.stringify({ id, method, params }));
    });
  }

  on(method: string, listener: (params: unknown) => void): void {
    this.listeners.set(method, listener);
  }

  /** Two full collections, then the process's own memory figures. */
  async memoryAfterGc(): Promise<NodeJS.MemoryUsage> {
    await this.send('HeapProfiler.collectGarbage');
    await this.send('HeapProfiler.collectGarbage');
    const { result } = await this.send<{ result: { value: string } }>('Runtime.evaluate', {
      expression: 'JSON.stringify(process.memoryUsage())',
      returnByValue: true,
    });
    return JSON.parse(result.value) as NodeJS.MemoryUsage;
  }

  /** Writes a heap snapshot (taken after a GC) chunk by chunk through `write`. */
  async heapSnapshot(write: (chunk: string) => void): Promise<void> {
    this.on('HeapProfiler.addHeapSnapshotChunk', (params) => write((params as { chunk: string }).chunk));
    await this.send('HeapProfiler.enable');
    await this.send('HeapProfiler.takeHeapSnapshot', { reportProgress: false });
  }

  /** Starts the V8 sampling CPU profiler (interval in µs). */
  async startProfile(intervalUs = 200): Promise<void> {
    await this.send('Profiler.enable');
    await this.send('Profiler.setSamplingInterval', { interval: intervalUs });
    await this.send('Profiler.start');
  }

  /** Stops the profiler; the profile in .cpuprofile form. */
  async stopProfile(): Promise<unknown> {
    const { profile } = await this.send<{ profile: unknown }>('Profiler.stop');
    return profile;
  }

  close(): void {
    this.socket.close();
  }
}
