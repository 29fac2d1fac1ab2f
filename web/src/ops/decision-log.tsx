import { type DecisionRecord, FallbackStrategySchema, InquiryStatusSchema } from '@hitl/protocol';
import { type FormEvent, useState } from 'react';
import type { DecisionFilters } from './api';
import { formatTime, oneLine, showValue } from './format';
import { formatDuration } from './stats';

interface DecisionLogProps {
  /** `null`: this server has no decision log. */
  decisions: DecisionRecord[] | null;
  error: string | null;
  onFilter(filters: DecisionFilters): void;
  onOpen(inquiryId: string): void;
}

function Filters({ onFilter }: { onFilter(filters: DecisionFilters): void }) {
  const [filters, setFilters] = useState<DecisionFilters>({});
  const submit = (e: FormEvent) => {
    e.preventDefault();
    onFilter(filters);
  };
  return (
    <form className="filters" onSubmit={submit} aria-label="Filter decisions">
      <label>
        Strategy
        <select
          value={filters.strategy ?? ''}
          onChange={(e) => setFilters({ ...filters, strategy: e.target.value })}
        >
          <option value="">any</option>
          {FallbackStrategySchema.options.map((s) => (
            <option key={s}>{s}</option>
          ))}
        </select>
      </label>
      <label>
        Outcome
        <select
          value={filters.outcome ?? ''}
          onChange={(e) => setFilters({ ...filters, outcome: e.target.value })}
        >
          <option value="">any</option>
          {InquiryStatusSchema.options.map((s) => (
            <option key={s}>{s}</option>
          ))}
        </select>
      </label>
      <label>
        User
        <input
          value={filters.user ?? ''}
          onChange={(e) => setFilters({ ...filters, user: e.target.value.trim() })}
        />
      </label>
      <button type="submit">Apply</button>
    </form>
  );
}

/** The decision audit log (`GET /api/decisions`): every outcome, who or what decided, and why. */
export function DecisionLog({ decisions, error, onFilter, onOpen }: DecisionLogProps) {
  if (decisions === null && !error) {
    return (
      <p className="muted">
        This server does not offer a decision log yet (GET /api/decisions answered 404).
      </p>
    );
  }
  return (
    <>
      <Filters onFilter={onFilter} />
      {error ? (
        <p className="notice error" role="alert">
          {error}
        </p>
      ) : null}
      {decisions && decisions.length === 0 ? <p className="empty">No decisions match.</p> : null}
      {decisions && decisions.length > 0 ? (
        <div className="table-scroll">
          <table className="data">
            <thead>
              <tr>
                <th scope="col">When</th>
                <th scope="col">User</th>
                <th scope="col">Question</th>
                <th scope="col">Outcome</th>
                <th scope="col">Decided by</th>
                <th scope="col">Output</th>
                <th scope="col">Rationale</th>
                <th scope="col">Latency</th>
              </tr>
            </thead>
            <tbody>
              {[...decisions]
                .sort((a, b) => b.at - a.at)
                .map((d) => (
                  <tr key={d.id}>
                    <td data-label="When" className="nowrap">
                      {formatTime(d.at)}
                    </td>
                    <td data-label="User">{d.userId}</td>
                    <td data-label="Question">
                      <button type="button" className="link" onClick={() => onOpen(d.inquiryId)}>
                        {oneLine(d.question, 60)}
                      </button>
                    </td>
                    <td data-label="Outcome">{d.outcome.replace('_', ' ')}</td>
                    <td data-label="Decided by">
                      {d.decidedBy}
                      {d.strategy ? ` (${d.strategy})` : ''}
                      {d.trigger === d.decidedBy ? null : <span className="muted"> after {d.trigger}</span>}
                    </td>
                    <td data-label="Output">{oneLine(showValue(d.output), 60)}</td>
                    <td data-label="Rationale">{d.rationale ? oneLine(d.rationale, 80) : '–'}</td>
                    <td data-label="Latency" className="nowrap">
                      {formatDuration(d.latencyMs)}
                      {d.model ? <span className="muted"> {d.model}</span> : null}
                    </td>
                  </tr>
                ))}
            </tbody>
          </table>
        </div>
      ) : null}
    </>
  );
}
