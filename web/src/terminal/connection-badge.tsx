import type { DeviceSnapshot } from '@hitl/client';

const LABELS: Record<DeviceSnapshot['status'], string> = {
  connecting: 'Connecting…',
  connected: 'Connected',
  reconnecting: 'Reconnecting…',
  rejected: 'Not signed in',
  closed: 'Offline',
};

/** Connection state, always visible; the reason when the server refused or the link dropped. */
export function ConnectionBadge({ snapshot }: { snapshot: DeviceSnapshot }) {
  const label = snapshot.status === 'connected' && !snapshot.synced ? 'Syncing…' : LABELS[snapshot.status];
  return (
    <span
      className={`connection ${snapshot.status}`}
      role="status"
      aria-live="polite"
      data-status={snapshot.status}
    >
      <span className="dot" aria-hidden="true" />
      {label}
      {snapshot.error && snapshot.status !== 'connected' ? (
        <span className="connection-error"> ({snapshot.error})</span>
      ) : null}
    </span>
  );
}
