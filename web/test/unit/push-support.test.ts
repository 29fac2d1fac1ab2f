import { describe, expect, it } from 'vitest';
import { type BrowserFacts, base64urlToBytes, pushSupport } from '../../src/platform/push-support';
import { inquiryFromHash } from '../../src/terminal/use-open-inquiry';

const CHROME: BrowserFacts = {
  userAgent:
    'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0 Safari/537.36',
  maxTouchPoints: 0,
  standalone: false,
  secureContext: true,
  hasServiceWorker: true,
  hasPushManager: true,
  hasNotification: true,
};
const IPHONE_SAFARI: BrowserFacts = {
  ...CHROME,
  userAgent:
    'Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Mobile/15E148 Safari/604.1',
  maxTouchPoints: 5,
  hasPushManager: false,
};
const IPAD_DESKTOP_MODE: BrowserFacts = {
  ...CHROME,
  userAgent:
    'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Safari/605.1.15',
  maxTouchPoints: 5,
};

describe('pushSupport', () => {
  it('a desktop Chrome on https can', () => {
    expect(pushSupport(CHROME)).toBe('supported');
  });
  it('iPhone and iPad Safari in a tab are told to add the app to the Home Screen first', () => {
    expect(pushSupport(IPHONE_SAFARI)).toBe('ios-not-installed');
    expect(pushSupport(IPAD_DESKTOP_MODE)).toBe('ios-not-installed');
    expect(pushSupport({ ...IPHONE_SAFARI, standalone: true, hasPushManager: true })).toBe('supported');
    // A Mac has no touch points: it is not sent to the Home Screen.
    expect(pushSupport({ ...IPAD_DESKTOP_MODE, maxTouchPoints: 0 })).toBe('supported');
  });
  it('plain http and browsers without push say so', () => {
    expect(pushSupport({ ...CHROME, secureContext: false })).toBe('insecure');
    expect(pushSupport({ ...CHROME, hasPushManager: false })).toBe('unsupported');
    expect(pushSupport({ ...CHROME, hasServiceWorker: false })).toBe('unsupported');
  });
});

describe('base64urlToBytes', () => {
  it('decodes with and without padding, in the URL-safe alphabet', () => {
    expect([...base64urlToBytes('-_8')]).toEqual([0xfb, 0xff]);
    expect([...base64urlToBytes('AQID')]).toEqual([1, 2, 3]);
    expect([...base64urlToBytes('AQ==')]).toEqual([1]);
    expect(base64urlToBytes('B'.repeat(87)).length).toBe(65);
  });
});

describe('inquiryFromHash', () => {
  it('reads the card a notification click opens', () => {
    expect(inquiryFromHash('#inquiry=inq-1')).toBe('inq-1');
    expect(inquiryFromHash('#inquiry=a%2Fb')).toBe('a/b');
    expect(inquiryFromHash('#other')).toBeNull();
    expect(inquiryFromHash('#inquiry=%E0%A4%A')).toBeNull();
    expect(inquiryFromHash('')).toBeNull();
  });
});
