import type { FormQuestion, InquiryResponse } from '@hitl/protocol';
import type { Facts, Slot } from '../planner/facts.js';
import type { Style } from '../planner/plan.js';
import type { Recommendation } from '../planner/recommend.js';
import type { Reply } from '../planner/reply.js';
import type { SearchStep } from '../planner/search.js';

/** Everything that happens in one conversation, in order: what the transcript prints. */
export type TranscriptEvent =
  | { type: 'customer'; text: string }
  | { type: 'instructions'; prompt: 'clarify_user_intent'; text: string }
  | { type: 'understood'; facts: Facts }
  | {
      type: 'ask';
      round: number;
      slots: Slot[];
      question: string;
      options?: string[];
      questions?: FormQuestion[];
      proposed?: InquiryResponse;
    }
  | { type: 'waiting'; round: number; inquiryId: string }
  /** Patient mode: a wait ended with the question still open on the devices; checking again. */
  | { type: 'still-open'; round: number; inquiryId: string; checks: number }
  | { type: 'reply'; round: number; reply: Reply; facts: Facts }
  | { type: 'search'; steps: SearchStep[]; relaxed: Slot[] }
  | { type: 'recommend'; items: Recommendation[]; note?: string }
  | { type: 'stopped'; reason: string };

/** How the conversation ended. */
export type Ending = 'recommended' | 'nothing-found' | 'cancelled';

/** The whole conversation, as `--json` prints it. */
export interface ConversationResult {
  request: string;
  style: Style;
  brain: string;
  ending: Ending;
  facts: Facts;
  rounds: number;
  recommendations: Recommendation[];
  events: TranscriptEvent[];
}
