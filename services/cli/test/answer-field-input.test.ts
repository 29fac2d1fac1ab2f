import { describe, expect, it } from 'vitest';
import { parseField, pickOption, showValue } from '../src/answer/field-input.js';

const choice = { kind: 'choice' as const, options: ['S', 'M', 'L'] };
const multi = { kind: 'multi' as const, options: ['red', 'blue', 'green'] };

describe('reading a typed line as a form field', () => {
  it('picks an option by number or by name, any case; anything else names the range', () => {
    expect(parseField(choice, '2')).toEqual({ ok: true, value: 'M' });
    expect(parseField(choice, ' l ')).toEqual({ ok: true, value: 'L' });
    expect(parseField(choice, '4')).toEqual({ ok: false, problem: 'pick 1-3' });
    expect(parseField(choice, 'XL')).toEqual({ ok: false, problem: 'pick 1-3' });
    expect(pickOption(['a', 'A'], 'A')).toBe('A');
  });

  it('an option whose name is a number is picked by that name first (shoe sizes 36..46)', () => {
    const sizes = Array.from({ length: 11 }, (_, i) => String(36 + i));
    expect(pickOption(sizes, '42')).toBe('42');
    expect(pickOption(sizes, ' 36 ')).toBe('36');
    expect(pickOption(sizes, '3')).toBe('38'); // no option is named 3: the third
    expect(pickOption(['10', '1', '5'], '1')).toBe('1');
    expect(parseField({ kind: 'multi', options: sizes }, '42, 2')).toEqual({ ok: true, value: ['42', '37'] });
  });

  it('several options separated by commas; a repeated pick is the protocol rule "chosen twice"', () => {
    expect(parseField(multi, '1, blue')).toEqual({ ok: true, value: ['red', 'blue'] });
    expect(parseField(multi, '3,')).toEqual({ ok: true, value: ['green'] });
    expect(parseField(multi, '1, 7')).toEqual({ ok: false, problem: '"7" is not one of 1-3' });
    expect(parseField(multi, '2, blue')).toEqual({ ok: false, problem: 'options chosen twice' });
  });

  it('numbers, yes/no and text; a blank line is "left blank"', () => {
    expect(parseField({ kind: 'number' }, '40.5')).toEqual({ ok: true, value: 40.5 });
    expect(parseField({ kind: 'number' }, 'forty')).toEqual({ ok: false, problem: 'enter a number' });
    expect(parseField({ kind: 'number' }, 'Infinity')).toEqual({ ok: false, problem: 'enter a number' });
    expect(parseField({ kind: 'boolean' }, 'Yes')).toEqual({ ok: true, value: true });
    expect(parseField({ kind: 'boolean' }, 'n')).toEqual({ ok: true, value: false });
    expect(parseField({ kind: 'boolean' }, 'maybe')).toEqual({ ok: false, problem: 'answer y or n' });
    expect(parseField({ kind: 'text' }, '  two spaces first  ')).toEqual({
      ok: true,
      value: '  two spaces first',
    });
    expect(parseField({ kind: 'text' }, '   ')).toEqual({ ok: true, value: undefined });
    expect(parseField(choice, '')).toEqual({ ok: true, value: undefined });
  });

  it('text over the protocol limit is refused by the protocol rule', () => {
    const parsed = parseField({ kind: 'text' }, 'x'.repeat(9000));
    expect(parsed.ok).toBe(false);
  });

  it('reads values back the way the person typed them', () => {
    expect(showValue(['blue', 'green'])).toBe('blue, green');
    expect(showValue(true)).toBe('yes');
    expect(showValue(undefined)).toBe('(blank)');
    expect(showValue(40)).toBe('40');
  });
});
