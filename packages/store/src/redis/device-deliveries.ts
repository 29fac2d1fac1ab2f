import { type DeviceDelivery, deliveriesByInquiry, MAX_DEVICE_DELIVERIES } from '@hitl/protocol';
import { Cluster, type Redis, type Result } from 'ioredis';
import { type StoreKeys, storeKeys } from './keys.js';
import { defineScripts } from './scripts.js';

declare module 'ioredis' {
  interface RedisCommander<Context> {
    /** src/lua/record-deliveries-n.lua: the key count, the keys, then the kept count and each key's entries. */
    hitlRecordDeliveries(...args: (string | number)[]): Result<number, Context>;
  }
}

export interface RedisDeviceDeliveryOptions {
  /** The node's client (the caller owns it). */
  redis: Redis | Cluster;
  /** Key prefix, `hitl:` by default (as the inquiry store's). */
  prefix?: string;
}

/** The hash fields of the ring, `dlv:0` … `dlv:<MAX_DEVICE_DELIVERIES - 1>`. */
const RING_FIELDS = Array.from({ length: MAX_DEVICE_DELIVERIES }, (_, slot) => `dlv:${slot}`);

const newestFirst = (a: DeviceDelivery, b: DeviceDelivery) => b.at - a.at;

/**
 * Which live device sockets got an inquiry (the ops timeline), for every node of a cluster: kept in
 * the inquiry's own hash (record-deliveries-n.lua), the newest {@link MAX_DEVICE_DELIVERIES}, so they
 * cost no key of their own and expire with the inquiry. Entries for an inquiry that no longer exists
 * are dropped.
 */
export class RedisDeviceDeliveryLog {
  private readonly redis: Redis | Cluster;
  private readonly keys: StoreKeys;

  constructor(options: RedisDeviceDeliveryOptions) {
    this.redis = options.redis;
    this.keys = storeKeys(options.prefix ?? 'hitl:');
    defineScripts(this.redis);
  }

  /** Appends a batch (any inquiries): one script on one Redis; on a Cluster one per inquiry (its slot). */
  async add(entries: readonly DeviceDelivery[]): Promise<void> {
    const groups = deliveriesByInquiry(entries);
    if (groups.size === 0) return;
    const argsOf = (added: DeviceDelivery[]) => [
      added.length,
      ...added.map((entry) => JSON.stringify(entry)),
    ];
    if (this.redis instanceof Cluster) {
      await Promise.all(
        [...groups].map(([inquiryId, added]) =>
          this.redis.hitlRecordDeliveries(
            1,
            this.keys.inquiry(inquiryId),
            MAX_DEVICE_DELIVERIES,
            ...argsOf(added),
          ),
        ),
      );
      return;
    }
    const ids = [...groups.keys()];
    await this.redis.hitlRecordDeliveries(
      ids.length,
      ...ids.map((id) => this.keys.inquiry(id)),
      MAX_DEVICE_DELIVERIES,
      ...[...groups.values()].flatMap(argsOf),
    );
  }

  /**
   * One inquiry's entries, newest first. Also reads the list earlier versions kept apart
   * (`inq:{<id>}:devices`, expiring by itself), so an upgrade loses no timeline.
   */
  async list(inquiryId: string): Promise<DeviceDelivery[]> {
    const [ring, earlier] = await Promise.all([
      this.redis.hmget(this.keys.inquiry(inquiryId), 'dlv', ...RING_FIELDS),
      this.redis.lrange(this.keys.earlierDeliveries(inquiryId), 0, MAX_DEVICE_DELIVERIES - 1),
    ]);
    const [next, ...slots] = ring;
    const kept: string[] = [];
    // Newest first: the entry numbered next - 1, then down the ring while entries remain.
    const newest = Number(next ?? 1) - 1;
    for (let seq = newest; seq > Math.max(0, newest - MAX_DEVICE_DELIVERIES); seq--) {
      const body = slots[seq % MAX_DEVICE_DELIVERIES];
      if (body) kept.push(body);
    }
    return [...kept, ...earlier]
      .map((body) => JSON.parse(body) as DeviceDelivery)
      .sort(newestFirst)
      .slice(0, MAX_DEVICE_DELIVERIES);
  }
}
