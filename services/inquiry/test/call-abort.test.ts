import { describe, expect, it } from 'vitest';
import { CallAbort } from '../src/mcp/call-abort.js';

describe('CallAbort (a held call’s abort, in place of an AbortController)', () => {
  it('calls each listener once, object or function, with the reason set first', () => {
    const abort = new CallAbort();
    const heard: string[] = [];
    const object = { handleEvent: () => heard.push(`object ${String(abort.reason)}`) };
    const fn = () => heard.push(`function ${abort.aborted}`);
    abort.addEventListener('abort', object, { once: true });
    abort.addEventListener('abort', object);
    abort.addEventListener('abort', fn);
    abort.abort('gone');
    abort.abort('again');
    expect(heard).toEqual(['object gone', 'function true']);
    expect(abort.signal).toBe(abort);
    expect(abort.reason).toBe('gone');
  });

  it('does not call a removed listener, nor one added after the abort', () => {
    const abort = new CallAbort();
    const heard: string[] = [];
    const first = { handleEvent: () => heard.push('first') };
    const second = { handleEvent: () => heard.push('second') };
    abort.addEventListener('abort', first);
    abort.addEventListener('abort', second);
    abort.removeEventListener('abort', first);
    abort.abort();
    abort.addEventListener('abort', first);
    abort.abort();
    expect(heard).toEqual(['second']);
  });
});
