/**
 * The little CBOR (RFC 8949) a WebAuthn authenticator writes: unsigned and negative integers, byte and
 * text strings, and maps of them (the attestation object, a COSE key). For test authenticators only.
 */
export type CborValue = number | string | Uint8Array | Map<number | string, CborValue>;

function head(major: number, length: number): number[] {
  const type = major << 5;
  if (length < 24) return [type | length];
  if (length < 0x100) return [type | 24, length];
  if (length < 0x10000) return [type | 25, length >> 8, length & 0xff];
  return [type | 26, (length >>> 24) & 0xff, (length >> 16) & 0xff, (length >> 8) & 0xff, length & 0xff];
}

export function encodeCbor(value: CborValue): Uint8Array {
  const out: number[] = [];
  const write = (v: CborValue): void => {
    if (typeof v === 'number') {
      out.push(...(v >= 0 ? head(0, v) : head(1, -1 - v)));
    } else if (typeof v === 'string') {
      const bytes = Buffer.from(v, 'utf8');
      out.push(...head(3, bytes.length), ...bytes);
    } else if (v instanceof Uint8Array) {
      out.push(...head(2, v.length), ...v);
    } else {
      out.push(...head(5, v.size));
      for (const [key, item] of v) {
        write(key);
        write(item);
      }
    }
  };
  write(value);
  return Uint8Array.from(out);
}
