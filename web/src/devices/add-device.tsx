import { formatPairingCode, type Pairing } from '@hitl/protocol';
import { useCallback, useEffect, useState } from 'react';
import { createPairing } from './devices-api';
import { QrCode } from './qr-code';

/** "9:41" left until `at`. */
function timeLeft(at: number, now: number): string {
  // Clamped: a device clock a little behind the server's must not show more than the 10 minutes.
  const seconds = Math.min(600, Math.max(0, Math.ceil((at - now) / 1000)));
  return `${Math.floor(seconds / 60)}:${String(seconds % 60).padStart(2, '0')}`;
}

/**
 * "Add a device" (DESIGN §6.7): a one-time pairing as a QR code for the phone's camera, and as a
 * code and link to type; a new one once it expires.
 */
export function AddDevice({ token, onClose }: { token: string; onClose(): void }) {
  const [pairing, setPairing] = useState<Pairing | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [now, setNow] = useState(() => Date.now());

  const make = useCallback(() => {
    setError(null);
    setPairing(null);
    createPairing(token).then(setPairing, (e: unknown) =>
      setError(e instanceof Error ? e.message : String(e)),
    );
  }, [token]);
  useEffect(make, [make]);
  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), 1000);
    return () => clearInterval(timer);
  }, []);

  const expired = pairing !== null && now >= pairing.expiresAt;
  return (
    <section className="add-device" aria-labelledby="add-device-title">
      <h3 id="add-device-title">Add a device</h3>
      {error ? (
        <p className="notice error" role="alert">
          Could not make a pairing code: {error}
        </p>
      ) : null}
      {pairing && !expired ? (
        <>
          <p>
            On the new device, scan this code with the camera, or open <strong>/pair</strong> on this server
            and type the code. It works once, for the next few minutes.
          </p>
          <QrCode text={pairing.url} label="QR code of the pairing link" />
          <p className="pairing-code">
            Code: <code data-testid="pairing-code">{formatPairingCode(pairing.code)}</code>
          </p>
          <p className="muted small">
            Link: <code className="pairing-url">{pairing.url}</code>
          </p>
          <p className="muted small" aria-live="off">
            Expires in {timeLeft(pairing.expiresAt, now)}
          </p>
        </>
      ) : null}
      {expired ? <p className="notice">That code expired.</p> : null}
      {!pairing && !error ? <p className="loading">Making a code…</p> : null}
      <div className="buttons">
        {expired || error ? (
          <button type="button" className="primary" onClick={make}>
            Make a new code
          </button>
        ) : null}
        <button type="button" className="secondary" onClick={onClose}>
          Done
        </button>
      </div>
    </section>
  );
}
