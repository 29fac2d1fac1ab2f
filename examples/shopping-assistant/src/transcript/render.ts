import type { Fact, Facts, Slot } from '../planner/facts.js';
import type { Reply } from '../planner/reply.js';
import type { TranscriptEvent } from './events.js';

const show = (value: unknown) => (typeof value === 'string' ? value : JSON.stringify(value));

/** A fact in words: "size 42", "any colour", "at most €120". */
export function describeFact(slot: Slot, fact: Fact): string {
  const v = fact.value;
  switch (slot) {
    case 'type':
      return v === null ? 'any kind' : String(v);
    case 'size':
      return v === null ? 'no size' : `size ${v}`;
    case 'colour':
      return v === null ? 'any colour' : String(v);
    case 'budget':
      return v === null ? 'no price limit' : `at most €${v}`;
  }
}

const SOURCE_WORDS: Record<Fact['source'], string> = {
  request: 'from your request',
  customer: 'your answer',
  assumed: 'assumed',
  'decision-agent': 'decided by the fallback decision agent, not by you',
};

/** Facts as one line: "size 42 (your answer); any colour (assumed: you'd rather not say)". */
export function describeFacts(facts: Facts): string {
  const parts = (Object.entries(facts) as [Slot, Fact][]).map(([slot, fact]) => {
    const why = fact.note ? `${SOURCE_WORDS[fact.source]}: ${fact.note}` : SOURCE_WORDS[fact.source];
    return `${describeFact(slot, fact)} (${why})`;
  });
  return parts.length > 0 ? parts.join('; ') : 'nothing specific yet';
}

const TIMERS = {
  device: "the device's countdown ran out",
  service: 'the service timed out',
  client: 'the wait ended',
};

/** What happened to a question, in a customer's words. */
export function describeReply(reply: Reply): string {
  switch (reply.kind) {
    case 'answered':
      return `customer answered${reply.deviceName ? ` on ${reply.deviceName}` : ''}: ${show(reply.answer)}`;
    case 'refused':
      return "customer would rather not say; I'll go on with sensible assumptions";
    case 'timed_out':
      return `nobody answered in time (${TIMERS[reply.timer]}); I'll go on with sensible assumptions`;
    case 'decided': {
      const how = [reply.strategy, reply.trigger ? `after ${reply.trigger}` : undefined]
        .filter(Boolean)
        .join(', ');
      const what = reply.answer !== undefined ? `: ${show(reply.answer)}` : ' nothing usable';
      const why = reply.rationale ? ` (${reply.rationale})` : '';
      return `no human answered; the fallback decision agent decided${how ? ` (${how})` : ''}${what}${why}`;
    }
    case 'cancelled':
      return 'the question was cancelled before anyone answered';
  }
}

const REPLY_MARKS: Record<Reply['kind'], string> = {
  answered: '✓',
  refused: '✗',
  timed_out: '⏱',
  decided: '⚙',
  cancelled: '■',
};

function askLines(event: Extract<TranscriptEvent, { type: 'ask' }>): string[] {
  const lines = [`[${event.round}] Assistant asks: ${event.question}`];
  if (event.options) {
    const proposed = typeof event.proposed === 'string' ? ` (proposed: ${event.proposed})` : '';
    lines.push(`    options: ${event.options.join(' | ')}${proposed}`);
  }
  for (const q of event.questions ?? []) {
    const options = q.options ? `: ${q.options.join(' | ')}` : ` (${q.kind})`;
    const proposed = q.default !== undefined ? `; proposed ${show(q.default)}` : '';
    lines.push(`    - ${q.prompt}${options}${proposed}`);
  }
  return lines;
}

/** The readable transcript lines of one event. */
export function renderEvent(event: TranscriptEvent): string[] {
  switch (event.type) {
    case 'customer':
      return [`Customer: ${event.text}`];
    case 'instructions':
      // Its first sentence is the rule that matters: ask through send_inquiry, never guess.
      return [`Assistant follows ${event.prompt}: "${event.text.split(/(?<=\.)\s/)[0]}"`];
    case 'understood':
      return [`Assistant understood: ${describeFacts(event.facts)}`];
    case 'ask':
      return askLines(event);
    case 'waiting':
      return [`    waiting for an answer on your devices (inquiry ${event.inquiryId})`];
    case 'still-open':
      return [
        `    not answered yet; the question stays open on your devices, checking again (get_inquiry #${event.checks})`,
      ];
    case 'reply':
      return [
        `    ${REPLY_MARKS[event.reply.kind]} ${describeReply(event.reply)}`,
        `    → ${describeFacts(event.facts)}`,
      ];
    case 'search':
      return [
        `Search: ${event.steps.map((s) => `${s.label} ${s.remaining}`).join(' → ')}`,
        ...event.relaxed.map((slot) => `    nothing fitted everything, so I dropped the ${slot} limit`),
      ];
    case 'recommend':
      return [
        'Recommendations:',
        ...event.items.map(
          (item, i) =>
            `  ${i + 1}. ${item.title}, ${item.colour}, €${item.price.toFixed(2)}: ${item.reasons.join('; ')}`,
        ),
        ...(event.note ? [`  (${event.note})`] : []),
      ];
    case 'stopped':
      return [`Assistant stopped: ${event.reason}`];
  }
}
