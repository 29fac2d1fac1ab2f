import type { Device } from '@hitl/protocol';
import { useCallback, useEffect, useRef, useState } from 'react';
import { formatTime, oneLine } from '../ops/format';
import { AddDevice } from './add-device';
import { listDevices, revokeDevice } from './devices-api';

/** While the view is open the list is re-read this often, so a device that just paired shows up. */
const REFRESH_MS = 3000;
/** ...and this often while a pairing code is shown, so the code soon reads as used. */
const PAIRING_REFRESH_MS = 1500;

/** Asks before a device is signed out everywhere; the confirm button takes the focus. */
function ConfirmRevoke({
  device,
  onConfirm,
  onCancel,
}: {
  device: Device;
  onConfirm(): void;
  onCancel(): void;
}) {
  const confirm = useRef<HTMLButtonElement>(null);
  useEffect(() => confirm.current?.focus(), []);
  return (
    <fieldset className="confirm" aria-label={`Revoke ${device.deviceName}?`}>
      <p>
        Sign <strong>{oneLine(device.deviceName, 100)}</strong> out everywhere? It stops getting questions at
        once and needs a new pairing to come back.
      </p>
      <div className="buttons">
        <button ref={confirm} type="button" className="danger" onClick={onConfirm}>
          Revoke
        </button>
        <button type="button" className="secondary" onClick={onCancel}>
          Cancel
        </button>
      </div>
    </fieldset>
  );
}

/**
 * "Devices": every device that can answer for this person, this one marked, each
 * revocable; "Add a device" shows a pairing code.
 */
export function DevicesView({ token }: { token: string }) {
  const [devices, setDevices] = useState<Device[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [adding, setAdding] = useState(false);
  const [confirming, setConfirming] = useState<string | null>(null);
  const [notice, setNotice] = useState<string | null>(null);

  const load = useCallback(() => {
    listDevices(token).then(
      (items) => {
        setDevices(items);
        setError(null);
      },
      (e: unknown) => setError(e instanceof Error ? e.message : String(e)),
    );
  }, [token]);
  useEffect(() => {
    load();
    const timer = setInterval(load, adding ? PAIRING_REFRESH_MS : REFRESH_MS);
    return () => clearInterval(timer);
  }, [load, adding]);

  const revoke = (device: Device) => {
    setConfirming(null);
    revokeDevice(token, device.jti).then(
      () => {
        setNotice(`${oneLine(device.deviceName, 100)} was signed out everywhere.`);
        load();
      },
      (e: unknown) =>
        setNotice(`Could not revoke ${device.deviceName}: ${e instanceof Error ? e.message : e}`),
    );
  };

  return (
    <section className="devices" aria-labelledby="devices-title">
      <h2 id="devices-title">Devices</h2>
      <p className="muted">Every device here gets your questions and can answer them.</p>
      {error ? (
        <p className="notice error" role="alert">
          Could not load your devices: {error}
        </p>
      ) : null}
      {/* Always in the page, so screen readers announce what lands in it. */}
      <p className={notice ? 'notice' : 'visually-hidden'} role="status">
        {notice}
      </p>
      {devices === null && !error ? <p className="loading">Loading…</p> : null}
      {devices ? (
        <ul className="device-list">
          {devices.map((device) => (
            <li key={device.jti} data-jti={device.jti}>
              <div className="device-head">
                <strong className="device-name">{oneLine(device.deviceName, 100)}</strong>
                {device.current ? <span className="badge">this device</span> : null}
              </div>
              <p className="muted small">
                Added{' '}
                <time dateTime={new Date(device.createdAt).toISOString()}>
                  {formatTime(device.createdAt)}
                </time>
                {' · last seen '}
                <time dateTime={new Date(device.lastSeenAt).toISOString()}>
                  {formatTime(device.lastSeenAt)}
                </time>
              </p>
              {confirming === device.jti ? (
                <ConfirmRevoke
                  device={device}
                  onConfirm={() => revoke(device)}
                  onCancel={() => setConfirming(null)}
                />
              ) : device.current ? null : (
                <button
                  type="button"
                  className="secondary"
                  aria-label={`Revoke ${device.deviceName}`}
                  onClick={() => setConfirming(device.jti)}
                >
                  Revoke
                </button>
              )}
            </li>
          ))}
        </ul>
      ) : null}
      {adding ? (
        <AddDevice
          token={token}
          devices={devices}
          onClose={() => {
            setAdding(false);
            load();
          }}
        />
      ) : (
        <button type="button" className="primary" onClick={() => setAdding(true)}>
          Add a device
        </button>
      )}
    </section>
  );
}
