import { describe, expect, it } from 'vitest';
import { nodeOrigin, tokenFromPaste } from '../../src/platform/node-url';

function memoryStorage(): Storage {
  const map = new Map<string, string>();
  return {
    get length() {
      return map.size;
    },
    clear: () => map.clear(),
    getItem: (key) => map.get(key) ?? null,
    key: (index) => [...map.keys()][index] ?? null,
    removeItem: (key) => void map.delete(key),
    setItem: (key, value) => void map.set(key, value),
  };
}
const page = { origin: 'https://localhost' } as Location;

describe('which node the device page talks to', () => {
  it('in a browser, the node that served the page, whatever was pasted', () => {
    const storage = memoryStorage();
    expect(tokenFromPaste(storage, 'https://hitl.example.com:8443/?token=abc.def.ghi')).toBe('abc.def.ghi');
    expect(nodeOrigin(storage, page, false)).toBe('https://localhost');
  });

  it('in the native shell, the node of the pasted device link; nothing until one was pasted', () => {
    const storage = memoryStorage();
    expect(nodeOrigin(storage, page, true)).toBeNull();
    expect(tokenFromPaste(storage, 'eyJ.bare.token')).toBe('eyJ.bare.token');
    expect(nodeOrigin(storage, page, true)).toBeNull();
    expect(tokenFromPaste(storage, '  https://hitl.example.com:8443/?token=abc.def.ghi&device=Phone ')).toBe(
      'abc.def.ghi',
    );
    expect(nodeOrigin(storage, page, true)).toBe('https://hitl.example.com:8443');
  });

  it('a link without a token, or not a link at all, is kept as typed', () => {
    const storage = memoryStorage();
    expect(tokenFromPaste(storage, 'https://hitl.example.com/')).toBe('https://hitl.example.com/');
    expect(tokenFromPaste(storage, 'http://[bad')).toBe('http://[bad');
    expect(nodeOrigin(storage, page, true)).toBeNull();
  });
});
