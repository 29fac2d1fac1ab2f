import {
  byAge,
  type NewPushSubscription,
  newPushSubscriptionId,
  type PushSubscriptionRecord,
  type PushSubscriptionStore,
  type SavePushResult,
} from './push-subscriptions.js';

/** Push subscriptions of one process (`HITL_STORE=memory`): gone on restart. */
export class MemoryPushSubscriptionStore implements PushSubscriptionStore {
  private readonly byUser = new Map<string, Map<string, PushSubscriptionRecord>>();

  async save(subscription: NewPushSubscription, maxPerUser: number): Promise<SavePushResult> {
    const { userId, endpoint, keys, deviceName, token, at } = subscription;
    let records = this.byUser.get(userId);
    if (!records) {
      records = new Map();
      this.byUser.set(userId, records);
    }
    const existing = [...records.values()].find((record) => record.endpoint === endpoint);
    const id = existing?.id ?? newPushSubscriptionId();
    records.set(id, {
      id,
      userId,
      endpoint,
      keys: { ...keys },
      ...(deviceName !== undefined ? { deviceName } : {}),
      ...(token !== undefined ? { token: { ...token } } : {}),
      createdAt: existing?.createdAt ?? at,
      updatedAt: at,
    });
    const over = records.size - maxPerUser;
    const dropped =
      over > 0
        ? [...records.values()]
            .sort(byAge)
            .slice(0, over)
            .map((r) => r.id)
        : [];
    for (const gone of dropped) records.delete(gone);
    return { id, created: !existing, dropped };
  }

  async list(userId: string): Promise<PushSubscriptionRecord[]> {
    const records = this.byUser.get(userId);
    return records ? [...records.values()].sort(byAge).map((record) => structuredClone(record)) : [];
  }

  listForPush(userId: string): Promise<PushSubscriptionRecord[]> {
    return this.list(userId);
  }

  async remove(userId: string, id: string): Promise<boolean> {
    return this.byUser.get(userId)?.delete(id) ?? false;
  }

  async removeEndpoint(userId: string, endpoint: string): Promise<boolean> {
    const records = this.byUser.get(userId);
    const found = records && [...records.values()].find((record) => record.endpoint === endpoint);
    return found ? (records?.delete(found.id) ?? false) : false;
  }

  async close(): Promise<void> {}
}
