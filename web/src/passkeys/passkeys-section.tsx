import type { Passkey } from '@hitl/protocol';
import { useCallback, useEffect, useState } from 'react';
import { formatTime, oneLine } from '../ops/format';
import { addPasskey, deletePasskey, listPasskeys } from './passkey-api';

/**
 * "Passkeys": the person's passkeys, and "Add a passkey on this device". An approval that asks for a
 * passkey can only be approved with one of them.
 */
export function PasskeysSection({ token, deviceName }: { token: string; deviceName: string }) {
  const [items, setItems] = useState<Passkey[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const load = useCallback(() => {
    listPasskeys(token).then(setItems, (e: unknown) => setError(e instanceof Error ? e.message : String(e)));
  }, [token]);
  useEffect(load, [load]);
  const act = async (work: () => Promise<unknown>) => {
    setBusy(true);
    setError(null);
    try {
      await work();
      load();
    } catch (e) {
      setError(e instanceof Error ? e.message : String(e));
    } finally {
      setBusy(false);
    }
  };
  return (
    <section className="passkeys" aria-label="Passkeys">
      <h3>Passkeys</h3>
      <p className="muted">Approvals that ask for a passkey can only be approved with one of these.</p>
      {error ? (
        <p className="send-error" role="alert">
          {error}
        </p>
      ) : null}
      <ul className="passkey-list">
        {(items ?? []).map((key) => (
          <li key={key.id}>
            <span>{oneLine(key.deviceName ?? 'passkey', 80)}</span>{' '}
            <span className="muted">added {formatTime(key.createdAt)}</span>{' '}
            <button
              type="button"
              className="secondary"
              disabled={busy}
              onClick={() => void act(() => deletePasskey(token, key.id))}
            >
              Delete
            </button>
          </li>
        ))}
      </ul>
      {items && items.length === 0 ? <p className="empty">No passkey yet.</p> : null}
      <button
        type="button"
        className="primary"
        disabled={busy}
        onClick={() => void act(() => addPasskey(token, deviceName))}
      >
        Add a passkey on this device
      </button>
    </section>
  );
}
