import { CallAbort } from '@hitl/mcp-http';
import { describe, expect, it } from 'vitest';

describe('CallAbort (a direct call’s abort, in place of an AbortController)', () => {
  it('calls each listener once, object or function, with an abort event and the reason set first', () => {
    const abort = new CallAbort();
    const heard: string[] = [];
    const object = {
      handleEvent: (event: Event) => heard.push(`object ${event.type} ${String(abort.reason)}`),
    };
    const fn = (event: Event) => heard.push(`function ${event.type} ${abort.aborted}`);
    abort.addEventListener('abort', object);
    abort.addEventListener('abort', object);
    abort.addEventListener('abort', fn);
    abort.addEventListener('other', fn);
    abort.abort('gone');
    abort.abort('again');
    expect(heard).toEqual(['object abort gone', 'function abort true']);
    expect(abort.signal).toBe(abort);
    expect(abort.reason).toBe('gone');
  });

  it('does not call a removed listener, nor one added after the abort', () => {
    const abort = new CallAbort();
    const heard: string[] = [];
    const first = () => heard.push('first');
    const second = () => heard.push('second');
    abort.addEventListener('abort', first);
    abort.addEventListener('abort', second);
    abort.removeEventListener('abort', first);
    abort.abort();
    abort.addEventListener('abort', first);
    abort.abort();
    expect(heard).toEqual(['second']);
  });
});
