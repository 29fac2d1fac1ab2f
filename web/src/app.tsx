import { lazy, Suspense, useState } from 'react';
import { deviceIdentity, loadSession, type Session, saveDeviceName, saveToken, signOut } from './session';
import { SignIn } from './sign-in';
import { Terminal } from './terminal/terminal';

// Charts are heavy: a phone that only answers never downloads them.
const OpsConsole = lazy(() => import('./ops/ops-console'));

/** Picks the view by the token's role: device → terminal, ops → console. */
export function App() {
  const [session, setSession] = useState<Session | null>(() => loadSession(localStorage));
  const [identity, setIdentity] = useState(() => deviceIdentity(localStorage, navigator.userAgent));
  const leave = () => {
    signOut(localStorage);
    setSession(null);
  };

  if (!session) return <SignIn onToken={(token) => setSession(saveToken(localStorage, token))} />;
  const role = session.claims?.role;
  if (role === 'ops') {
    return (
      <Suspense fallback={<p className="loading">Loading the ops console…</p>}>
        <OpsConsole session={session} onSignOut={leave} />
      </Suspense>
    );
  }
  if (role === 'device') {
    return (
      <Terminal
        session={session}
        deviceId={identity.deviceId}
        deviceName={identity.deviceName}
        onRename={(name) => {
          saveDeviceName(localStorage, name);
          setIdentity({ ...identity, deviceName: name });
        }}
        onSignOut={leave}
      />
    );
  }
  const problem =
    role === 'agent'
      ? 'That is an agent token: it asks questions, it does not answer them. Use a device token here.'
      : 'That does not look like a HITL token.';
  return (
    <SignIn
      problem={problem}
      onToken={(token) => {
        setSession(saveToken(localStorage, token));
      }}
    />
  );
}
