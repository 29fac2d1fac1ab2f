import { type FormEvent, useState } from 'react';

/** No token yet: explain where one comes from, and accept a pasted one. */
export function SignIn({ onToken, problem }: { onToken(token: string): void; problem?: string }) {
  const [value, setValue] = useState('');
  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (value.trim()) onToken(value.trim());
  };
  return (
    <div className="app sign-in">
      <header className="topbar">
        <h1>HITL</h1>
      </header>
      <main>
        <h2>Sign in</h2>
        {problem ? (
          <p className="notice error" role="alert">
            {problem}
          </p>
        ) : null}
        <p>
          Open the device link that <code>hitl serve</code> prints (it ends in <code>/?token=…</code>), or
          paste a device or ops token made with <code>hitl token create --user you --role device</code>.
        </p>
        <p>
          Signed in on another device already? <a href="/pair">Pair this device with a code</a>.
        </p>
        <form onSubmit={submit} className="stack">
          <label htmlFor="token">Token</label>
          <input
            id="token"
            value={value}
            autoComplete="off"
            spellCheck={false}
            onChange={(e) => setValue(e.target.value)}
          />
          <button type="submit" className="primary">
            Continue
          </button>
        </form>
      </main>
    </div>
  );
}
