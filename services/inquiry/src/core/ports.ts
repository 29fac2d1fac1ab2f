import type { Inquiry } from '@hitl/protocol';

/** Time source; tests pass a fake one. */
export interface Clock {
  now(): number;
}

export const systemClock: Clock = { now: () => Date.now() };

/** Hears of inquiries this node created or resolved (device push, local timers). */
export interface InquiryEvents {
  created(inquiry: Inquiry): void;
  resolved(inquiry: Inquiry): void;
  /** A pending inquiry changed for its devices (e.g. a suggested answer arrived). */
  updated?(inquiry: Inquiry): void;
}

/** What the core reports to metrics. */
export interface InquiryMetrics {
  created(): void;
  resolved(inquiry: Inquiry): void;
}
