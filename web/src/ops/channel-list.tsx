import { type Delivery, showInvisible } from '@hitl/protocol';
import { formatTime } from './format';
import type { ChannelsState } from './use-channels';

export const CHANNEL_NAMES: Record<Delivery['channel'], string> = {
  push: 'Push',
  email: 'Mail',
  webhook: 'Webhook',
  slack: 'Slack',
};

/** One attempt in words: the HTTP or SMTP status, or the error before any. */
function attemptText(attempt: Delivery['attempts'][number]): string {
  if (attempt.error) return `failed: ${attempt.error}`;
  return attempt.status === undefined ? 'sent' : `answered ${attempt.status}`;
}

/**
 * Which channels reached out for this inquiry beyond open pages, and what each said:
 * push accepted or gone, mail accepted, every webhook attempt.
 */
export function ChannelList({ channels, error }: ChannelsState) {
  if (error) return <p role="alert">Channels could not be read: {error}</p>;
  if (channels === undefined) return <p className="muted">Reading channels…</p>;
  if (channels === null) return <p className="muted">This server does not report channels.</p>;
  const items = channels.deliveries;
  if (items.length === 0)
    return <p className="muted">No push, mail, webhook or Slack message was sent for this inquiry.</p>;
  return (
    <ul className="channels">
      {items.map((d) => (
        <li key={d.id}>
          <strong>{CHANNEL_NAMES[d.channel]}</strong> {d.event} to {showInvisible(d.url)}: {d.status}
          <ul>
            {d.attempts.map((a) => (
              <li key={a.at}>
                {formatTime(a.at)} {showInvisible(attemptText(a))}
              </li>
            ))}
            {d.nextAttemptAt ? <li className="muted">next try {formatTime(d.nextAttemptAt)}</li> : null}
          </ul>
        </li>
      ))}
    </ul>
  );
}
