import { isNativeShell } from '@hitl/mobile-shell';
import { useEffect, useState } from 'react';
import { browserFacts, PUSH_WORDS, pushSupport } from '../platform/push-support';
import { disablePush, enablePush, pushIsOn } from '../platform/web-push';
import { loadPushDevice, savePushDevice } from '../sw/device-store';
import { setPushActive } from './notify';

type State = 'checking' | 'off' | 'on' | 'busy';

export interface PushControl {
  state: State;
  result: { ok: boolean; message: string } | null;
  /** The Home Screen note for iPhone and iPad Safari, or null. */
  note: string | null;
  turn(on: boolean): Promise<void>;
}

/**
 * Web Push for this device in a browser or installed web app: whether it is on (checked at load), and
 * turning it on ("Enable notifications": the question reaches this device with the page closed) or off.
 */
export function usePushControl(token: string, deviceName: string): PushControl {
  const [state, setState] = useState<State>('checking');
  const [result, setResult] = useState<{ ok: boolean; message: string } | null>(null);
  const support = pushSupport(browserFacts());

  useEffect(() => {
    let live = true;
    pushIsOn(token)
      .catch(() => false)
      .then((on) => {
        if (!live) return;
        setState(on ? 'on' : 'off');
        setPushActive(on);
      });
    return () => {
      live = false;
    };
  }, [token]);

  // A renamed device answers from its notifications under the new name too.
  useEffect(() => {
    if (state !== 'on') return;
    void loadPushDevice()
      .then((device) =>
        device && device.deviceName !== deviceName ? savePushDevice({ ...device, deviceName }) : undefined,
      )
      .catch(() => undefined);
  }, [state, deviceName]);

  const turn = async (on: boolean) => {
    setState('busy');
    setResult(null);
    const outcome = on
      ? await enablePush({ origin: location.origin, token, deviceName }).catch((error: unknown) => ({
          ok: false,
          message: `Notifications could not be turned on (${String(error)}).`,
        }))
      : await disablePush(location.origin);
    const nowOn = on ? outcome.ok : false;
    setState(nowOn ? 'on' : 'off');
    setPushActive(nowOn);
    setResult(outcome);
  };

  const note = support === 'ios-not-installed' ? PUSH_WORDS['ios-not-installed'] : null;
  return { state, result, note, turn };
}

/** The on/off button (top bar). */
export function PushButton({ control }: { control: PushControl }) {
  const { state, note, turn } = control;
  if (state === 'on') {
    return (
      <button type="button" className="secondary" onClick={() => void turn(false)}>
        Turn off notifications
      </button>
    );
  }
  return (
    <button
      type="button"
      disabled={state !== 'off'}
      aria-describedby={note ? 'push-note' : undefined}
      onClick={() => void turn(true)}
    >
      {state === 'busy' ? 'Working…' : 'Enable notifications'}
    </button>
  );
}

/**
 * What happened, said in a live region that is always in the page (so screen readers announce each
 * change), a failure with its reason; and the iPhone/iPad note while push is off there.
 */
export function PushStatus({ control }: { control: PushControl }) {
  const { state, result, note } = control;
  // After a click on iPhone/iPad the live region says the note itself: it is not shown twice.
  const saysNote = note !== null && result?.message === note;
  const showNote = note !== null && state === 'off' && !saysNote;
  const tone = result && !result.ok && !saysNote ? 'notice error' : 'notice';
  return (
    <div className="push-status">
      {showNote ? (
        <p id="push-note" className="notice">
          {note}
        </p>
      ) : null}
      <p role="status" id={saysNote ? 'push-note' : undefined} className={result ? tone : undefined}>
        {result?.message ?? ''}
      </p>
    </div>
  );
}

/** The native shell raises local notifications itself (`@hitl/mobile-shell`); push is for browsers. */
export const offersWebPush = () => !isNativeShell(window);
