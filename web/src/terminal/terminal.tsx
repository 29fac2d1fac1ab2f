import { type FormEvent, useState } from 'react';
import { DevicesView } from '../devices/devices-view';
import { StandingView } from '../devices/standing-view';
import { approveWithPasskey } from '../passkeys/passkey-api';
import { PasskeysSection } from '../passkeys/passkeys-section';
import type { Session } from '../session';
import { ConnectionBadge } from './connection-badge';
import { answerText, HistoryList } from './history-list';
import { InquiryCard } from './inquiry-card';
import { InquiryPageNotice, inquiryFromPath } from './inquiry-page';
import { askNotificationPermission, notificationPermission } from './notify';
import { offersWebPush, PushButton, PushStatus, usePushControl } from './push-control';
import { useDevice } from './use-device';
import { useHistory } from './use-history';
import { useOpenInquiry } from './use-open-inquiry';

interface TerminalProps {
  session: Session;
  deviceId: string;
  deviceName: string;
  onRename(name: string): void;
  onSignOut(): void;
}

function DeviceName({ name, onRename }: { name: string; onRename(name: string): void }) {
  const [editing, setEditing] = useState(false);
  const [value, setValue] = useState(name);
  if (!editing) {
    return (
      <button type="button" className="link" onClick={() => setEditing(true)} title="rename this device">
        {name}
      </button>
    );
  }
  const save = (e: FormEvent) => {
    e.preventDefault();
    if (value.trim()) onRename(value.trim());
    setEditing(false);
  };
  return (
    <form className="inline" onSubmit={save}>
      <label className="visually-hidden" htmlFor="device-name">
        Device name
      </label>
      <input id="device-name" value={value} maxLength={100} onChange={(e) => setValue(e.target.value)} />
      <button type="submit">Save</button>
    </form>
  );
}

/** The device terminal: every pending inquiry of this user, newest first, answerable here. */
export function Terminal({ session, deviceId, deviceName, onRename, onSignOut }: TerminalProps) {
  const { client, snapshot, closing } = useDevice({ token: session.token, deviceName, deviceId });
  const [permission, setPermission] = useState(notificationPermission);
  const [webPush] = useState(offersWebPush);
  const [showDevices, setShowDevices] = useState(false);
  const push = usePushControl(session.token, deviceName);
  const cards = [
    ...snapshot.inquiries.map((inquiry) => ({ inquiry, notice: undefined })),
    ...closing.map((c) => ({ inquiry: c.inquiry, notice: c.notice })),
  ].sort(
    (a, b) =>
      b.inquiry.createdAt - a.inquiry.createdAt || (a.inquiry.inquiryId < b.inquiry.inquiryId ? 1 : -1),
  );
  useOpenInquiry(cards.map((c) => c.inquiry.inquiryId));
  // `/i/<id>`: the page a chat sends a person to for one question (its card is focused when pending).
  const [pageInquiry] = useState(() => inquiryFromPath(window.location.pathname));
  // Each ending re-reads the history, so it lists the inquiry and its closing card can say the answer.
  const history = useHistory(session.token, closing.map((c) => c.inquiry.inquiryId).join(' '));
  const ended = new Map((history.items ?? []).map((i) => [i.inquiryId, i]));

  return (
    <div className="app terminal">
      <header className="topbar">
        <h1>HITL</h1>
        <ConnectionBadge snapshot={snapshot} />
        <div className="who">
          <span className="muted">{session.claims?.sub ?? 'unknown user'} on</span>{' '}
          <DeviceName name={deviceName} onRename={onRename} />
        </div>
        <div className="top-actions">
          {webPush ? (
            <PushButton control={push} />
          ) : permission === 'default' ? (
            <button type="button" onClick={() => void askNotificationPermission().then(setPermission)}>
              Enable notifications
            </button>
          ) : null}
          <button type="button" aria-pressed={showDevices} onClick={() => setShowDevices(!showDevices)}>
            Devices
          </button>
          <button type="button" className="secondary" onClick={onSignOut}>
            Sign out
          </button>
        </div>
      </header>
      {webPush ? <PushStatus control={push} /> : null}
      {showDevices ? (
        <main>
          <DevicesView token={session.token} />
          <PasskeysSection token={session.token} deviceName={deviceName} />
          <StandingView token={session.token} />
          <button type="button" className="link" onClick={() => setShowDevices(false)}>
            Back to your questions
          </button>
        </main>
      ) : null}
      <main hidden={showDevices}>
        <h2 className="visually-hidden">Questions waiting for you</h2>
        {snapshot.status === 'rejected' ? (
          <p className="notice error" role="alert">
            The server refused this token ({snapshot.error}). Open the link printed by <code>hitl serve</code>{' '}
            again, or sign out and paste a device token.
          </p>
        ) : null}
        {pageInquiry !== null ? (
          <InquiryPageNotice
            inquiryId={pageInquiry}
            pending={snapshot.inquiries.some((i) => i.inquiryId === pageInquiry)}
            synced={snapshot.synced}
            token={session.token}
          />
        ) : null}
        {cards.length === 0 && snapshot.synced ? (
          <p className="empty">
            {webPush && push.state === 'on'
              ? 'No questions waiting. New ones appear here and as notifications, also with this page closed.'
              : 'No questions waiting. Keep this page open: new ones appear here.'}
          </p>
        ) : null}
        <ul className="cards">
          {cards.map(({ inquiry, notice }) => (
            <li key={inquiry.inquiryId}>
              <InquiryCard
                inquiry={inquiry}
                notice={notice}
                answered={notice ? answerOf(ended.get(inquiry.inquiryId)) : undefined}
                userId={session.claims?.sub}
                actions={{
                  answer: (id, response, extras) =>
                    client ? client.answer(id, response, extras) : notConnected(),
                  refuse: (id, reason) => (client ? client.refuse(id, reason) : notConnected()),
                  approveWithPasskey: (id, extras, approved) =>
                    client
                      ? approveWithPasskey(
                          session.token,
                          id,
                          (webauthn) => client.answer(id, 'approve', { ...extras, webauthn }),
                          approved,
                        )
                      : notConnected(),
                }}
              />
            </li>
          ))}
        </ul>
        <HistoryList history={history} deviceId={deviceId} />
      </main>
    </div>
  );
}

const answerOf = (inquiry: Parameters<typeof answerText>[0] | undefined) =>
  inquiry ? (answerText(inquiry) ?? undefined) : undefined;

const notConnected = () =>
  Promise.resolve({ ok: false as const, error: { code: 'unavailable' as const, message: 'not connected' } });
