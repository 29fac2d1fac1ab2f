import type { DeviceInquiry } from '@hitl/protocol';
import type { RelayedInquiry } from '../core/inquiry-service.js';

/** Entries kept at most (the oldest go first): about 0.2 KB each, the arrays shared with the view. */
const MAX_RELAYED = 10_000;

/**
 * The inquiries this node handed to its device sockets (`inquiry:new`, `inquiry:updated`, each of an
 * `inquiry:sync`), kept by id with only what never changes and an answer needs (its shape, quorum,
 * who asked, its service deadline): so a device's answer to one of them needs no read of the inquiry
 * before its resolve (`InquiryService.answerRelayed`). Forgotten when this node relays its end
 * (`inquiry:resolved`), once its service deadline passed, or when {@link MAX_RELAYED} newer ones came.
 */
export class RelayedInquiries {
  private readonly entries = new Map<string, RelayedInquiry>();

  constructor(private readonly max = MAX_RELAYED) {}

  remember(view: DeviceInquiry): void {
    if (this.entries.has(view.inquiryId)) return; // nothing kept changes
    if (this.entries.size >= this.max) {
      const oldest = this.entries.keys().next();
      if (!oldest.done) this.entries.delete(oldest.value);
    }
    this.entries.set(view.inquiryId, {
      kind: view.kind,
      ...(view.questions ? { questions: view.questions } : {}),
      ...(view.options ? { options: view.options } : {}),
      ...(view.quorum === undefined ? {} : { quorum: view.quorum }),
      // The asker's user is in no view; without an audience it is the user the inquiry is addressed
      // to, with one most likely the agent token's subject. A guess: the store checks it (writes.ts).
      ...(view.audience === undefined ? {} : { askerGuess: view.asker.tokenSubject }),
      serviceAt: view.deadlines.serviceAt,
    });
  }

  forget(inquiryId: string): void {
    this.entries.delete(inquiryId);
  }

  /** The entry while its service deadline has not passed. */
  get(inquiryId: string, now: number): RelayedInquiry | undefined {
    const entry = this.entries.get(inquiryId);
    if (entry && now > entry.serviceAt) {
      this.entries.delete(inquiryId);
      return undefined;
    }
    return entry;
  }

  get size(): number {
    return this.entries.size;
  }
}

/** Keeps what this device socket is handed in `relayed`, and drops what it is told has ended. */
export function keepRelayed(
  socket: { onAnyOutgoing(listener: (event: string, payload: unknown) => void): unknown },
  relayed: RelayedInquiries,
): void {
  socket.onAnyOutgoing((event: string, payload: unknown) => {
    if (event === 'inquiry:new' || event === 'inquiry:updated') relayed.remember(payload as DeviceInquiry);
    else if (event === 'inquiry:sync') {
      for (const view of (payload as { inquiries: DeviceInquiry[] }).inquiries) relayed.remember(view);
    } else if (event === 'inquiry:resolved') relayed.forget((payload as { inquiryId: string }).inquiryId);
  });
}
