import { pairingCodeOf } from '@hitl/protocol';
import { type FormEvent, useState } from 'react';
import { rememberServer } from '../platform/node-url';
import { guessDeviceName, type Session, saveDeviceName, saveToken } from '../session';
import { claimPairing, DevicesApiError } from './devices-api';

/** The code from `#<code>` (or `#<whole pairing URL>`), taken out of the address bar once read. */
function codeFromHash(): string {
  const hash = decodeURIComponent(window.location.hash.slice(1));
  if (hash) window.history.replaceState(window.history.state, '', window.location.pathname);
  return hash ? (pairingCodeOf(hash) ?? hash) : '';
}

/** Words for a failed claim: the server says only "invalid_pairing" for wrong, used and expired codes. */
function problemOf(error: unknown): string {
  if (error instanceof DevicesApiError && error.code === 'invalid_pairing') {
    return 'That code did not work: it may be mistyped, used already, or expired. Make a new one on your other device.';
  }
  if (error instanceof DevicesApiError && error.code === 'rate_limited') {
    return 'Too many wrong codes from this network. Wait a minute, then try again.';
  }
  return `Could not add this device: ${error instanceof Error ? error.message : String(error)}`;
}

/**
 * `/pair`: the page a pairing QR code opens. It reads the code from the URL (or the
 * person types it), asks for a name for this device, claims the pairing and keeps the new device
 * token like any sign-in.
 */
export function PairPage({ onSignedIn }: { onSignedIn(session: Session): void }) {
  const [code, setCode] = useState(codeFromHash);
  const [name, setName] = useState(() => guessDeviceName(navigator.userAgent));
  const [problem, setProblem] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  const submit = (e: FormEvent) => {
    e.preventDefault();
    setProblem(null);
    // A pasted pairing link also says which server (the native app has no origin of its own).
    const link = URL.canParse(code.trim()) ? new URL(code.trim()) : undefined;
    const typed = pairingCodeOf(code);
    if (!typed) {
      setProblem('A pairing code has 8 letters and digits, like ABCD-2345.');
      return;
    }
    setBusy(true);
    claimPairing(typed, name, link?.origin).then(
      (result) => {
        if (link) rememberServer(localStorage, link.origin);
        saveDeviceName(localStorage, result.deviceName);
        const session = saveToken(localStorage, result.token);
        window.history.replaceState(window.history.state, '', '/');
        onSignedIn(session);
      },
      (error: unknown) => {
        setBusy(false);
        setProblem(problemOf(error));
      },
    );
  };

  return (
    <div className="app sign-in pair">
      <header className="topbar">
        <h1>HITL</h1>
      </header>
      <main>
        <h2>Add this device</h2>
        <p>
          On a device that is already signed in, open <strong>Devices</strong>, choose{' '}
          <strong>Add a device</strong>, and scan the QR code or type its code here.
        </p>
        {problem ? (
          <p className="notice error" role="alert">
            {problem}
          </p>
        ) : null}
        <form onSubmit={submit} className="stack">
          <label htmlFor="pairing-code">Pairing code</label>
          <input
            id="pairing-code"
            value={code}
            autoComplete="one-time-code"
            autoCapitalize="characters"
            spellCheck={false}
            onChange={(e) => setCode(e.target.value)}
          />
          <label htmlFor="pair-device-name">Name this device</label>
          <input
            id="pair-device-name"
            value={name}
            maxLength={100}
            onChange={(e) => setName(e.target.value)}
          />
          <button type="submit" className="primary" disabled={busy}>
            {busy ? 'Adding…' : 'Add this device'}
          </button>
        </form>
      </main>
    </div>
  );
}
