import { Bar, BarChart, CartesianGrid, Legend, ResponsiveContainer, Tooltip, XAxis, YAxis } from 'recharts';
import {
  formatAxisDuration,
  formatDuration,
  OUTCOME_LABELS,
  OUTCOMES,
  type Outcome,
  type OutcomeBucket,
  type Percentiles,
} from './stats';

/** Colours that stay apart for common colour blindness (Okabe–Ito). */
const COLORS: Record<Outcome, string> = {
  human: '#009E73',
  deviceTimeout: '#E69F00',
  serviceTimeout: '#D55E00',
  refused: '#CC79A7',
  decisionAgent: '#0072B2',
  cancelled: '#999999',
};

function timeLabel(bucketMs: number) {
  return (start: number) => {
    const date = new Date(start);
    if (bucketMs >= 24 * 3600_000)
      return date.toLocaleDateString(undefined, { month: 'short', day: 'numeric' });
    return date.toLocaleTimeString(undefined, { hour: '2-digit', minute: '2-digit' });
  };
}

/** Stacked bars: how inquiries ended, per time bucket. */
export function OutcomeChart({ buckets, bucketMs }: { buckets: OutcomeBucket[]; bucketMs: number }) {
  return (
    <figure className="chart" aria-label="Outcomes over time">
      <figcaption>Outcomes over time</figcaption>
      <ResponsiveContainer width="100%" height={260}>
        <BarChart data={buckets} margin={{ top: 8, right: 8, bottom: 0, left: -16 }}>
          <CartesianGrid strokeDasharray="3 3" vertical={false} />
          <XAxis dataKey="start" tickFormatter={timeLabel(bucketMs)} minTickGap={16} />
          <YAxis allowDecimals={false} />
          <Tooltip labelFormatter={(v) => timeLabel(bucketMs)(Number(v))} />
          <Legend itemSorter={null} />
          {OUTCOMES.map((outcome) => (
            <Bar
              key={outcome}
              dataKey={outcome}
              name={OUTCOME_LABELS[outcome]}
              stackId="outcomes"
              fill={COLORS[outcome]}
              isAnimationActive={false}
            />
          ))}
        </BarChart>
      </ResponsiveContainer>
    </figure>
  );
}

/** Human answer time: p50 / p90 / p99 overall (tiles) and per time bucket (grouped bars). */
export function AnswerTimeChart(props: { buckets: OutcomeBucket[]; bucketMs: number; overall: Percentiles }) {
  const { buckets, bucketMs, overall } = props;
  const withAnswers = buckets.filter((b) => b.count > 0);
  return (
    <figure className="chart" aria-label="Human answer time percentiles">
      <figcaption>Human answer time</figcaption>
      <dl className="tiles">
        {(['p50', 'p90', 'p99'] as const).map((p) => (
          <div key={p}>
            <dt>{p}</dt>
            <dd>{formatDuration(overall[p])}</dd>
          </div>
        ))}
        <div>
          <dt>answers</dt>
          <dd>{overall.count}</dd>
        </div>
      </dl>
      <ResponsiveContainer width="100%" height={220}>
        <BarChart data={withAnswers} margin={{ top: 8, right: 8, bottom: 0, left: 4 }}>
          <CartesianGrid strokeDasharray="3 3" vertical={false} />
          <XAxis dataKey="start" tickFormatter={timeLabel(bucketMs)} minTickGap={16} />
          <YAxis tickFormatter={(v: number) => formatAxisDuration(v)} width={64} />
          <Tooltip
            labelFormatter={(v) => timeLabel(bucketMs)(Number(v))}
            formatter={(v) => formatDuration(typeof v === 'number' ? v : null)}
          />
          <Legend itemSorter={null} />
          <Bar dataKey="p50" name="p50" fill="#009E73" isAnimationActive={false} />
          <Bar dataKey="p90" name="p90" fill="#E69F00" isAnimationActive={false} />
          <Bar dataKey="p99" name="p99" fill="#D55E00" isAnimationActive={false} />
        </BarChart>
      </ResponsiveContainer>
    </figure>
  );
}
