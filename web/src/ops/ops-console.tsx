import type { InquiryStatus } from '@hitl/protocol';
import { type FormEvent, useCallback, useMemo, useState } from 'react';
import type { Session } from '../session';
import { cancelInquiry, type DecisionFilters } from './api';
import { AnswerTimeChart, OutcomeChart } from './charts';
import { DecisionLog } from './decision-log';
import { formatTime } from './format';
import { InquiryDetail } from './inquiry-detail';
import { InquiryTable } from './inquiry-table';
import { useOpenInquiry } from './ops-route';
import { answerPercentiles, outcomeBuckets } from './stats';
import { useOpsData } from './use-ops-data';
import { useOpsLive } from './use-ops-live';
import { useSingleInquiry } from './use-single-inquiry';

const LIVE_TEXT = { connecting: 'connecting…', live: 'live', offline: 'offline (reconnecting)' } as const;

const STATUSES: ('all' | InquiryStatus)[] = [
  'all',
  'pending',
  'answered',
  'refused',
  'timed_out',
  'cancelled',
];

function InquiryFilters(props: { onApply(user: string, status: 'all' | InquiryStatus): void }) {
  const [user, setUser] = useState('');
  const [status, setStatus] = useState<'all' | InquiryStatus>('all');
  const submit = (e: FormEvent) => {
    e.preventDefault();
    props.onApply(user.trim(), status);
  };
  return (
    <form className="filters" onSubmit={submit} aria-label="Filter inquiries">
      <label>
        User
        <input value={user} placeholder="any user" onChange={(e) => setUser(e.target.value)} />
      </label>
      <label>
        Status
        <select value={status} onChange={(e) => setStatus(e.target.value as 'all' | InquiryStatus)}>
          {STATUSES.map((s) => (
            <option key={s} value={s}>
              {s.replace('_', ' ')}
            </option>
          ))}
        </select>
      </label>
      <button type="submit">Apply</button>
    </form>
  );
}

/** The ops console: charts, inquiry history with a detail view, and the decision audit log. */
export default function OpsConsole({ session, onSignOut }: { session: Session; onSignOut(): void }) {
  const [user, setUser] = useState('');
  const [status, setStatus] = useState<'all' | InquiryStatus>('all');
  const [decisionFilters, setDecisionFilters] = useState<DecisionFilters>({});
  const [openId, setOpenId] = useOpenInquiry();
  const { data, reload, apply } = useOpsData(session.token, user, decisionFilters);
  const single = useSingleInquiry(session.token, openId);
  const live = useOpsLive(
    session.token,
    useCallback(
      (event: { type: string; inquiryId: string }) => {
        void apply(event.inquiryId, event.type === 'resolved');
        if (event.inquiryId === openId) single.reload();
      },
      [apply, openId, single.reload],
    ),
    reload,
  );

  const shown = useMemo(
    () => (status === 'all' ? data.inquiries : data.inquiries.filter((i) => i.status === status)),
    [data.inquiries, status],
  );
  const { buckets, bucketMs } = useMemo(() => outcomeBuckets(data.inquiries), [data.inquiries]);
  const overall = useMemo(() => answerPercentiles(data.inquiries), [data.inquiries]);
  const open = openId ? (single.inquiry ?? data.inquiries.find((i) => i.inquiryId === openId)) : undefined;
  const pending = data.inquiries.filter((i) => i.status === 'pending').length;

  return (
    <div className="app ops">
      <header className="topbar">
        <h1>HITL ops</h1>
        <span className="muted">signed in as {session.claims?.sub ?? 'unknown'} (ops)</span>
        <span className={`live-badge ${live}`} role="status">
          {LIVE_TEXT[live]}
        </span>
        <div className="top-actions">
          <button type="button" onClick={reload} disabled={data.loading}>
            {data.loading ? 'Loading…' : 'Refresh'}
          </button>
          <button type="button" className="secondary" onClick={onSignOut}>
            Sign out
          </button>
        </div>
      </header>
      <main>
        <section aria-labelledby="overview">
          <h2 id="overview">Overview</h2>
          <p className="muted">
            {data.inquiries.length} inquiries{user ? ` of ${user}` : ''}, {pending} pending
            {data.complete ? '' : ' (most recent only)'}
            {data.loadedAt ? ` · updated ${formatTime(data.loadedAt)}` : ''}
          </p>
          {data.inquiryError ? (
            <p className="notice error" role="alert">
              Could not load inquiries: {data.inquiryError}
            </p>
          ) : null}
          <div className="charts">
            <OutcomeChart buckets={buckets} bucketMs={bucketMs} />
            <AnswerTimeChart buckets={buckets} bucketMs={bucketMs} overall={overall} />
          </div>
        </section>
        <section aria-labelledby="history">
          <h2 id="history">Inquiries</h2>
          <InquiryFilters
            onApply={(u, s) => {
              setUser(u);
              setStatus(s);
            }}
          />
          {open ? (
            <InquiryDetail
              key={open.inquiryId}
              inquiry={open}
              decisions={(data.decisions ?? []).filter((d) => d.inquiryId === open.inquiryId)}
              token={session.token}
              onClose={() => setOpenId(null)}
              onCancel={async () => {
                await cancelInquiry(session.token, open.inquiryId);
                single.reload();
                await apply(open.inquiryId, true);
              }}
            />
          ) : openId && single.missing ? (
            <p className="notice error" role="alert">
              No inquiry {openId} (it may never have existed, or its retention ended).{' '}
              <button type="button" className="secondary" onClick={() => setOpenId(null)}>
                Back to the list
              </button>
            </p>
          ) : null}
          <InquiryTable inquiries={shown} onOpen={setOpenId} />
        </section>
        <section aria-labelledby="decisions">
          <h2 id="decisions">Decision log</h2>
          <DecisionLog
            decisions={data.decisions}
            error={data.decisionError}
            onFilter={setDecisionFilters}
            onOpen={setOpenId}
          />
        </section>
      </main>
    </div>
  );
}
