import {
  bySoonest,
  covers,
  listedFor,
  type NewStandingApproval,
  type StandingApproval,
  type StandingCall,
  type StandingFilter,
  type StandingStore,
  standingBody,
} from './standing.js';

/** Standing approvals of one process (`HITL_STORE=memory`): gone on restart, like its inquiries. */
export class MemoryStandingStore implements StandingStore {
  private readonly approvals = new Map<string, StandingApproval>();

  async create(approval: NewStandingApproval): Promise<StandingApproval> {
    const stored = { ...structuredClone(standingBody(approval)), uses: 0 };
    this.approvals.set(stored.id, stored);
    return structuredClone(stored);
  }

  async use(call: StandingCall, now: number): Promise<StandingApproval | null> {
    this.dropEnded(now);
    const found = [...this.approvals.values()].sort(bySoonest).find((a) => covers(a, call, now));
    if (!found) return null;
    found.uses += 1;
    return structuredClone(found);
  }

  async get(id: string, now: number): Promise<StandingApproval | null> {
    const found = this.approvals.get(id);
    return found && found.until > now ? structuredClone(found) : null;
  }

  async list(filter: StandingFilter, now: number): Promise<StandingApproval[]> {
    this.dropEnded(now);
    return [...this.approvals.values()]
      .filter((a) => listedFor(a, filter))
      .sort(bySoonest)
      .map((a) => structuredClone(a));
  }

  async countFor(userId: string, now: number): Promise<number> {
    return (await this.list({ userId }, now)).filter((a) => a.userId === userId).length;
  }

  async end(id: string, now: number): Promise<StandingApproval | null> {
    const found = this.approvals.get(id);
    this.approvals.delete(id);
    return found && found.until > now ? structuredClone(found) : null;
  }

  async close(): Promise<void> {
    this.approvals.clear();
  }

  private dropEnded(now: number): void {
    for (const [id, approval] of this.approvals) if (approval.until <= now) this.approvals.delete(id);
  }
}
