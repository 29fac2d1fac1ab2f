import { isNativeShell } from '@hitl/mobile-shell';
import { lazy, Suspense, useState } from 'react';
import { PairPage } from './devices/pair-page';
import { nodeOrigin, tokenFromPaste } from './platform/node-url';
import { disablePush } from './platform/web-push';
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
    // A signed-out device must stop receiving (and answering from) notifications for that user.
    if (session?.claims?.role === 'device' && !isNativeShell(window)) void disablePush(location.origin);
    signOut(localStorage);
    setSession(null);
  };

  // A pasted device link also tells the page (in the native shell: the app) which node to use.
  const signIn = (value: string) => setSession(saveToken(localStorage, tokenFromPaste(localStorage, value)));

  const [pairing, setPairing] = useState(() => window.location.pathname === '/pair');
  if (pairing) {
    return (
      <PairPage
        onSignedIn={(next) => {
          setPairing(false);
          setIdentity(deviceIdentity(localStorage, navigator.userAgent));
          setSession(next);
        }}
      />
    );
  }
  if (!session) return <SignIn onToken={signIn} />;
  if (nodeOrigin(localStorage, window.location) === null) {
    const problem =
      'Paste the whole device link (it ends in /?token=…) once, so the app knows which server to use.';
    return <SignIn problem={problem} onToken={signIn} />;
  }
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
  return <SignIn problem={problem} onToken={signIn} />;
}
