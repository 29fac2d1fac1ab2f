import { describe, expect, it } from 'vitest';
import { parseAnswerOptions } from '../src/answer/options.js';

describe('hitl answer options', () => {
  it('takes the node URL as an origin, a token and a device name', () => {
    expect(
      parseAnswerOptions({ url: 'http://127.0.0.1:8787/?token=x', token: ' t0k ', name: ' Desk ' }),
    ).toEqual({
      ok: true,
      options: { url: 'http://127.0.0.1:8787', token: 't0k', deviceName: 'Desk' },
    });
  });

  it('names the bad option', () => {
    expect(parseAnswerOptions({ url: 'ftp://x', token: 't', name: 'n' })).toMatchObject({
      ok: false,
      problem: expect.stringMatching(/^--url: "ftp:\/\/x" is not an http\(s\) URL/),
    });
    expect(parseAnswerOptions({ url: 'http://h', token: undefined, name: 'n' })).toEqual({
      ok: false,
      problem: '--token: give a device token, or set HITL_DEVICE_TOKEN',
    });
    expect(parseAnswerOptions({ url: 'http://h', token: 't', name: 'x'.repeat(101) })).toMatchObject({
      ok: false,
      problem: expect.stringMatching(/^--name: /),
    });
  });
});
