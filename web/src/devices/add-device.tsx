import { formatTimeLeft } from '@hitl/client';
import { type Device, formatPairingCode, type Pairing } from '@hitl/protocol';
import { useCallback, useEffect, useState } from 'react';
import { oneLine } from '../ops/format';
import { createPairing } from './devices-api';
import { QrCode } from './qr-code';

/** "9:41" left until `at`, as every countdown reads. */
function timeLeft(at: number, now: number): string {
  // Clamped: a device clock a little behind the server's must not show more than the 10 minutes.
  return formatTimeLeft(Math.min(600_000, at - now));
}

/**
 * "Add a device": a one-time pairing as a QR code for the phone's camera, and as a
 * code and link to type; a new one once it expires. `devices` is the Devices list as it is re-read:
 * a device that was not in it when the code was made is the one that used it, and then the panel says
 * so instead of counting down a code that no longer works.
 */
export function AddDevice(props: { token: string; devices: readonly Device[] | null; onClose(): void }) {
  const { token, devices, onClose } = props;
  const [pairing, setPairing] = useState<Pairing | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [now, setNow] = useState(() => Date.now());
  // The devices listed when the current code was shown: a device not among them used it.
  const [known, setKnown] = useState<ReadonlySet<string> | null>(null);

  const make = useCallback(() => {
    setError(null);
    setPairing(null);
    setKnown(null);
    createPairing(token).then(setPairing, (e: unknown) =>
      setError(e instanceof Error ? e.message : String(e)),
    );
  }, [token]);
  useEffect(make, [make]);
  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), 1000);
    return () => clearInterval(timer);
  }, []);

  useEffect(() => {
    if (pairing && known === null && devices) setKnown(new Set(devices.map((d) => d.jti)));
  }, [pairing, known, devices]);

  const added = pairing && known ? devices?.find((d) => !known.has(d.jti)) : undefined;
  const expired = pairing !== null && added === undefined && now >= pairing.expiresAt;
  return (
    <section className="add-device" aria-labelledby="add-device-title">
      <h3 id="add-device-title">Add a device</h3>
      {error ? (
        <p className="notice error" role="alert">
          Could not make a pairing code: {error}
        </p>
      ) : null}
      {added ? (
        <p className="notice" role="status">
          The code was used: {oneLine(added.deviceName, 100)} was added.
        </p>
      ) : null}
      {pairing && !expired && !added ? (
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
        {added ? (
          <button type="button" className="secondary" onClick={make}>
            Make another code
          </button>
        ) : null}
        <button type="button" className="secondary" onClick={onClose}>
          Done
        </button>
      </div>
    </section>
  );
}
