import QRCode from 'qrcode';
import { useMemo } from 'react';

/** Quiet zone around the code, in modules (the QR spec asks for 4). */
const QUIET = 4;

/**
 * `text` as a QR code, drawn as one SVG path (no canvas, no data URL: the page's CSP stays as it is).
 * Medium error correction: a phone camera reads it from a laptop screen at arm's length.
 */
export function QrCode({ text, label }: { text: string; label: string }) {
  const path = useMemo(() => {
    const { modules } = QRCode.create(text, { errorCorrectionLevel: 'M' });
    let d = '';
    for (let row = 0; row < modules.size; row += 1) {
      for (let col = 0; col < modules.size; col += 1) {
        if (modules.get(row, col)) d += `M${col + QUIET} ${row + QUIET}h1v1h-1z`;
      }
    }
    return { d, size: modules.size + 2 * QUIET };
  }, [text]);
  return (
    <svg
      className="qr"
      role="img"
      aria-label={label}
      viewBox={`0 0 ${path.size} ${path.size}`}
      shapeRendering="crispEdges"
    >
      <rect width={path.size} height={path.size} fill="#fff" />
      <path d={path.d} fill="#000" />
    </svg>
  );
}
