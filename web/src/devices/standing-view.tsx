import type { StandingApprovalView } from '@hitl/protocol';
import { showInvisible } from '@hitl/protocol';
import { useCallback, useEffect, useState } from 'react';
import { formatTime, oneLine } from '../ops/format';
import { endStanding, listStanding } from './devices-api';

/** While the view is open the list is re-read this often, so use counts and new ones show up. */
const REFRESH_MS = 5000;

/** "Runs without asking": what a standing approval covers, in words. */
function covers(approval: StandingApprovalView): string {
  const match = approval.match ? Object.entries(approval.match) : [];
  const only = match.length
    ? ` with ${match.map(([name, value]) => `${name} = ${JSON.stringify(value)}`).join(', ')}`
    : ' with any arguments';
  return `${approval.tool} on ${approval.server}${only}`;
}

/**
 * "Allowed for a while": the standing approvals covering this person's agents or made by this
 * person, with their use counts; each ends at once, on every node, in one tap.
 */
export function StandingView({ token }: { token: string }) {
  const [items, setItems] = useState<StandingApprovalView[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [notice, setNotice] = useState<string | null>(null);

  const load = useCallback(() => {
    listStanding(token).then(
      (list) => {
        setItems(list);
        setError(null);
      },
      (e: unknown) => setError(e instanceof Error ? e.message : String(e)),
    );
  }, [token]);
  useEffect(() => {
    load();
    const timer = setInterval(load, REFRESH_MS);
    return () => clearInterval(timer);
  }, [load]);

  const end = (approval: StandingApprovalView) => {
    endStanding(token, approval.id).then(
      (ended) => {
        setNotice(
          `Ended: ${oneLine(covers(ended), 120)} (used ${ended.uses} times). It asks again from now on.`,
        );
        load();
      },
      (e: unknown) => setNotice(`Could not end it: ${e instanceof Error ? e.message : e}`),
    );
  };

  return (
    <section className="standing" aria-labelledby="standing-title">
      <h2 id="standing-title">Allowed for a while</h2>
      <p className="muted">Calls these cover run without asking you until they end.</p>
      {error ? (
        <p className="notice error" role="alert">
          Could not load them: {error}
        </p>
      ) : null}
      <p className={notice ? 'notice' : 'visually-hidden'} role="status">
        {notice}
      </p>
      {items !== null && items.length === 0 ? (
        <p className="empty">Nothing is allowed without asking.</p>
      ) : null}
      {items && items.length > 0 ? (
        <ul className="standing-list">
          {items.map((approval) => (
            <li key={approval.id} data-standing={approval.id}>
              <p>
                <code>{showInvisible(oneLine(covers(approval), 300))}</code>
              </p>
              <p className="muted small">
                For {showInvisible(approval.userId)}, allowed by {showInvisible(approval.createdBy)} · used{' '}
                <span className="uses">{approval.uses}</span> {approval.uses === 1 ? 'time' : 'times'} · until{' '}
                <time dateTime={new Date(approval.until).toISOString()}>{formatTime(approval.until)}</time>
              </p>
              <button
                type="button"
                className="danger"
                aria-label={`End now: ${covers(approval)}`}
                onClick={() => end(approval)}
              >
                End now
              </button>
            </li>
          ))}
        </ul>
      ) : null}
    </section>
  );
}
