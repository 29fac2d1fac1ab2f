import {
  type DecisionRecord,
  type Delivery,
  type DeviceDelivery,
  type Inquiry,
  showInvisible,
} from '@hitl/protocol';
import { type ReactNode, useEffect, useRef, useState } from 'react';
import { QuestionText } from '../markdown/safe-markdown';
import { outcomeText } from '../outcome';
import { CHANNEL_NAMES, ChannelList } from './channel-list';
import { formatTime, showValue } from './format';
import { formatDuration } from './stats';
import { useChannels } from './use-channels';

/** A device that got the inquiry over its live connection: as it was asked, or in its sync on connect. */
const deviceEvent = (d: DeviceDelivery) => ({
  at: d.at,
  what: `delivered to ${showInvisible(d.deviceName)} (live${d.event === 'sync' ? ', on connect' : ''})`,
});

/** A push, mail or webhook message sent for it, and how it went. */
const channelEvent = (d: Delivery) => ({
  at: d.createdAt,
  what: `sent by ${CHANNEL_NAMES[d.channel]} to ${showInvisible(d.url)}: ${d.status}`,
});

function Row({ label, children }: { label: string; children: ReactNode }) {
  return (
    <>
      <dt>{label}</dt>
      <dd>{children}</dd>
    </>
  );
}

const json = (value: unknown) => <pre className="json">{showInvisible(JSON.stringify(value, null, 2))}</pre>;

/** Cancel for a pending inquiry, in two steps: the first press asks, the second ends it. */
function CancelControl({ onCancel }: { onCancel(): Promise<void> }) {
  const [step, setStep] = useState<'idle' | 'confirm' | 'busy'>('idle');
  const [error, setError] = useState<string | null>(null);
  const confirmButton = useRef<HTMLButtonElement>(null);
  useEffect(() => {
    if (step === 'confirm') confirmButton.current?.focus();
  }, [step]);
  const run = async () => {
    setStep('busy');
    setError(null);
    try {
      await onCancel();
    } catch (e) {
      setError(e instanceof Error ? e.message : String(e));
      setStep('idle');
    }
  };
  return (
    <div className="cancel-control">
      {step === 'idle' ? (
        <button type="button" className="danger" onClick={() => setStep('confirm')}>
          Cancel inquiry…
        </button>
      ) : (
        <fieldset className="confirm">
          <legend>Cancel this inquiry?</legend>
          <p>The agent gets “cancelled” and every device closes the question. This cannot be undone.</p>
          <button
            type="button"
            className="danger"
            ref={confirmButton}
            disabled={step === 'busy'}
            onClick={run}
          >
            Yes, cancel it
          </button>{' '}
          <button
            type="button"
            className="secondary"
            disabled={step === 'busy'}
            onClick={() => setStep('idle')}
          >
            Keep it
          </button>
        </fieldset>
      )}
      {error ? (
        <p className="notice error" role="alert">
          Could not cancel: {error}
        </p>
      ) : null}
    </div>
  );
}

/** A team's escalation on the timeline: when it is due, or when it happened and whom it added. */
function escalationEvents(inquiry: Inquiry): { at: number; what: string }[] {
  const { escalation } = inquiry;
  if (!escalation) return [];
  const to = escalation.team ? `team ${escalation.team}` : escalation.users.join(', ');
  if (escalation.escalatedAt !== undefined) {
    return [
      {
        at: escalation.escalatedAt,
        what: `escalated to ${showInvisible(to)} (${escalation.users.length} added)`,
      },
    ];
  }
  return inquiry.status === 'pending'
    ? [{ at: escalation.at, what: `escalates to ${showInvisible(to)}` }]
    : [];
}

/** Everything about one inquiry: what was asked, how it ended and when, and its audit-log entries. */
export function InquiryDetail(props: {
  inquiry: Inquiry;
  decisions: DecisionRecord[];
  token: string;
  onClose(): void;
  /** Ops cancel (POST /api/inquiries/:id/cancel); offered while the inquiry is pending. */
  onCancel?(): Promise<void>;
}) {
  const { inquiry, decisions } = props;
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => heading.current?.focus(), []);
  const channels = useChannels(props.token, inquiry.inquiryId, inquiry.status);
  const events = [
    {
      at: inquiry.createdAt,
      what: `asked by ${showInvisible(inquiry.asker.name ?? inquiry.asker.tokenSubject)}`,
    },
    ...(inquiry.deadlines.answerBy === undefined
      ? [
          { at: inquiry.deadlines.deviceAt, what: 'device deadline (tier 1)' },
          { at: inquiry.deadlines.serviceAt, what: 'service deadline (tier 2)' },
        ]
      : [{ at: inquiry.deadlines.answerBy, what: 'end of the answer window' }]),
    ...(inquiry.resolvedAt !== undefined
      ? [{ at: inquiry.resolvedAt, what: `ended: ${outcomeText(inquiry.status, inquiry.resolvedBy)}` }]
      : []),
    ...escalationEvents(inquiry),
    ...(inquiry.votes ?? []).map((v) => ({
      at: v.at,
      what: `vote: ${showInvisible(v.userId)} ${v.vote === 'approve' ? 'approved' : 'rejected'}${v.deviceName ? ` on ${showInvisible(v.deviceName)}` : ''}`,
    })),
    ...decisions.map((d) => ({
      at: d.at,
      what: `audit: ${d.decidedBy}${d.strategy ? ` (${d.strategy})` : ''}`,
    })),
    ...(channels.channels?.devices ?? []).map(deviceEvent),
    ...(channels.channels?.deliveries ?? []).map(channelEvent),
  ].sort((a, b) => a.at - b.at);
  const by = inquiry.resolvedBy;
  return (
    <section className="detail" aria-labelledby="detail-title">
      <div className="detail-head">
        <h3 id="detail-title" tabIndex={-1} ref={heading}>
          Inquiry {inquiry.inquiryId}
        </h3>
        <button type="button" className="secondary" onClick={props.onClose}>
          Close
        </button>
      </div>
      <div className="question">
        <QuestionText text={inquiry.question} format={inquiry.format} />
      </div>
      {inquiry.status === 'pending' && props.onCancel ? <CancelControl onCancel={props.onCancel} /> : null}
      <dl className="facts">
        <Row label="User">{inquiry.userId}</Row>
        <Row label="Asked by">
          {showInvisible(inquiry.asker.name ?? '–')}{' '}
          <span className="muted">({showInvisible(inquiry.asker.tokenSubject)})</span>
        </Row>
        <Row label="Kind">
          {inquiry.kind}
          {inquiry.critical ? ' · critical' : ''}
          {inquiry.confidence !== undefined ? ` · confidence ${inquiry.confidence}` : ''}
        </Row>
        {inquiry.questions ? <Row label="Form">{json(inquiry.questions)}</Row> : null}
        {inquiry.options ? <Row label="Options">{showInvisible(inquiry.options.join(' · '))}</Row> : null}
        {inquiry.action ? <Row label="Action">{json(inquiry.action)}</Row> : null}
        {inquiry.context !== undefined ? (
          <Row label="Context">
            {typeof inquiry.context === 'string' ? (
              <pre className="plain">{showInvisible(inquiry.context)}</pre>
            ) : (
              json(inquiry.context)
            )}
          </Row>
        ) : null}
        {inquiry.fallback ? <Row label="Fallback">{json(inquiry.fallback)}</Row> : null}
        <Row label="Status">{inquiry.status.replace('_', ' ')}</Row>
        <Row label="Resolved by">
          {by ? (
            <>
              {outcomeText(inquiry.status, by)} <span className="muted">[{by.kind}]</span>
              {by.deviceId ? <span className="muted"> device {by.deviceId}</span> : null}
              {by.strategy ? <span className="muted"> · strategy {by.strategy}</span> : null}
              {by.trigger ? <span className="muted"> · after {by.trigger}</span> : null}
            </>
          ) : (
            '–'
          )}
        </Row>
        <Row label="Rationale">
          {showInvisible(by?.rationale ?? decisions.find((d) => d.rationale)?.rationale ?? '–')}
        </Row>
        <Row label="Answer">{showValue(inquiry.answer)}</Row>
        <Row label="Elapsed">
          {inquiry.resolvedAt !== undefined
            ? formatDuration(inquiry.resolvedAt - inquiry.createdAt)
            : 'still pending'}
        </Row>
      </dl>
      <h4>Events</h4>
      <ol className="timeline">
        {events.map((event, i) => (
          // biome-ignore lint/suspicious/noArrayIndexKey: two events may share a time and words (two sockets named alike).
          <li key={`${i}-${event.at}-${event.what}`}>
            <time dateTime={new Date(event.at).toISOString()}>{formatTime(event.at)}</time> {event.what}
          </li>
        ))}
      </ol>
      <h4>Channels</h4>
      <ChannelList {...channels} />
    </section>
  );
}
