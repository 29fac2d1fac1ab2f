// Draws the app icons into web/public/icons (PNG, no image library): a white speech bubble with three
// dots ("waiting for your answer") on the HITL blue. Run: node mobile-shell/scripts/make-icons.mjs
import { mkdirSync, writeFileSync } from 'node:fs';
import { deflateSync } from 'node:zlib';

const OUT = new URL('../../web/public/icons/', import.meta.url);
const BLUE = [0x24, 0x57, 0xc5];
const WHITE = [0xff, 0xff, 0xff];
const SAMPLES = 4; // 4×4 supersampling for smooth edges

const inRoundRect = (x, y, x0, y0, x1, y1, r) => {
  const cx = Math.min(Math.max(x, x0 + r), x1 - r);
  const cy = Math.min(Math.max(y, y0 + r), y1 - r);
  return x >= x0 && x <= x1 && y >= y0 && y <= y1 && (x - cx) ** 2 + (y - cy) ** 2 <= r * r;
};
const inCircle = (x, y, cx, cy, r) => (x - cx) ** 2 + (y - cy) ** 2 <= r * r;
const inTriangle = (x, y, [ax, ay], [bx, by], [cx, cy]) => {
  const side = (px, py, qx, qy) => (x - qx) * (py - qy) - (px - qx) * (y - qy);
  const d1 = side(ax, ay, bx, by);
  const d2 = side(bx, by, cx, cy);
  const d3 = side(cx, cy, ax, ay);
  return !((d1 < 0 || d2 < 0 || d3 < 0) && (d1 > 0 || d2 > 0 || d3 > 0));
};

/** Colour and coverage at a point of the unit square; `fullBleed` fills the whole square. */
function shade(u, v, fullBleed, scale) {
  const inside = fullBleed || inRoundRect(u, v, 0, 0, 1, 1, 0.22);
  if (!inside) return null;
  // The glyph sits in the middle 60 % (scaled down further for maskable icons' safe zone).
  const x = 0.5 + (u - 0.5) / scale;
  const y = 0.5 + (v - 0.5) / scale;
  const bubble =
    inRoundRect(x, y, 0.2, 0.24, 0.8, 0.66, 0.12) || inTriangle(x, y, [0.3, 0.6], [0.46, 0.6], [0.28, 0.8]);
  const dot = [0.36, 0.5, 0.64].some((cx) => inCircle(x, y, cx, 0.45, 0.055));
  return bubble && !dot ? WHITE : BLUE;
}

function render(size, fullBleed, scale) {
  const rows = [];
  for (let py = 0; py < size; py++) {
    const row = Buffer.alloc(1 + size * 4);
    for (let px = 0; px < size; px++) {
      let r = 0;
      let g = 0;
      let b = 0;
      let a = 0;
      for (let sy = 0; sy < SAMPLES; sy++) {
        for (let sx = 0; sx < SAMPLES; sx++) {
          const c = shade(
            (px + (sx + 0.5) / SAMPLES) / size,
            (py + (sy + 0.5) / SAMPLES) / size,
            fullBleed,
            scale,
          );
          if (!c) continue;
          r += c[0];
          g += c[1];
          b += c[2];
          a += 1;
        }
      }
      const o = 1 + px * 4;
      if (a > 0) row.set([Math.round(r / a), Math.round(g / a), Math.round(b / a)], o);
      row[o + 3] = Math.round((255 * a) / SAMPLES ** 2);
    }
    rows.push(row);
  }
  return Buffer.concat(rows);
}

const crcTable = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});
const crc32 = (buf) => {
  let c = 0xffffffff;
  for (const byte of buf) c = crcTable[(c ^ byte) & 0xff] ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
};
const chunk = (type, data) => {
  const head = Buffer.alloc(8);
  head.writeUInt32BE(data.length, 0);
  head.write(type, 4, 'ascii');
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(Buffer.concat([head.subarray(4), data])), 0);
  return Buffer.concat([head, data, crc]);
};

function png(size, fullBleed, scale) {
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(size, 0);
  ihdr.writeUInt32BE(size, 4);
  ihdr.set([8, 6, 0, 0, 0], 8); // 8-bit RGBA
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', ihdr),
    chunk('IDAT', deflateSync(render(size, fullBleed, scale), { level: 9 })),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

mkdirSync(OUT, { recursive: true });
const icons = [
  ['icon-192.png', 192, false, 1],
  ['icon-512.png', 512, false, 1],
  ['icon-maskable-512.png', 512, true, 0.8],
  ['apple-touch-icon.png', 180, true, 0.9],
];
for (const [name, size, fullBleed, scale] of icons) {
  writeFileSync(new URL(name, OUT), png(size, fullBleed, scale));
  console.log(`web/public/icons/${name} (${size}×${size})`);
}
