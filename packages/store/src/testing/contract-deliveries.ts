import { randomUUID } from 'node:crypto';
import type { Delivery, DeviceDelivery } from '@hitl/protocol';
import { MAX_DEVICE_DELIVERIES } from '@hitl/protocol';
import { describe, expect, it } from 'vitest';
import type { DeliveryLog } from '../deliveries/delivery-log.js';
import type { DeviceDeliveryLog } from '../deliveries/device-delivery-log.js';

/** A fresh, empty log for one test. */
export type MakeDeliveryLog = () => Promise<DeliveryLog>;
export type MakeDeviceDeliveryLog = () => Promise<DeviceDeliveryLog>;

/** Deliveries are stamped with the time they were made (a log may drop what is past its retention). */
const T0 = Date.now();

function delivery(overrides: Partial<Delivery>): Delivery {
  return {
    id: randomUUID(),
    channel: 'webhook',
    event: 'inquiry.created',
    url: 'https://hooks.example.com/x',
    inquiryId: randomUUID(),
    userId: 'alice',
    createdAt: T0,
    status: 'pending',
    attempts: [],
    ...overrides,
  };
}

/** The behaviour every `DeliveryLog` (webhook, email and push deliveries) must show, as a vitest suite. */
export function runDeliveryLogContract(name: string, make: MakeDeliveryLog): void {
  describe(`DeliveryLog contract: ${name}`, () => {
    it('keeps a delivery as last saved (replaced by id), newest first, one inquiry at a time', async () => {
      const log = await make();
      const inquiryId = randomUUID();
      const first = delivery({ inquiryId, createdAt: T0 + 1_000 });
      const second = delivery({
        inquiryId,
        createdAt: T0 + 2_000,
        channel: 'email',
        url: 'mailto:a@example.com',
      });
      await log.save(first);
      await log.save(second);
      await log.save({ ...first, status: 'delivered', attempts: [{ at: T0 + 1_500, status: 200 }] });
      await log.save(delivery({ createdAt: T0 + 3_000 }));
      const page = await log.list({ limit: 10, inquiryId });
      expect(page.items.map((d) => [d.id, d.status])).toEqual([
        [second.id, 'pending'],
        [first.id, 'delivered'],
      ]);
      expect(page.items[1]?.attempts).toEqual([{ at: T0 + 1_500, status: 200 }]);
      expect(page.nextCursor).toBeNull();
      expect((await log.list({ limit: 10, inquiryId, channel: 'email' })).items.map((d) => d.id)).toEqual([
        second.id,
      ]);
    });

    it('pages by cursor without repeating or skipping, while new deliveries arrive', async () => {
      const log = await make();
      const inquiryId = randomUUID();
      const saved = [1, 2, 3, 4, 5].map((n) => delivery({ inquiryId, createdAt: T0 + n * 1_000 }));
      for (const d of saved) await log.save(d);
      const first = await log.list({ limit: 2, inquiryId });
      expect(first.nextCursor).not.toBeNull();
      await log.save(delivery({ inquiryId, createdAt: T0 + 9_000 }));
      const second = await log.list({ limit: 2, inquiryId, cursor: first.nextCursor ?? undefined });
      const third = await log.list({ limit: 2, inquiryId, cursor: second.nextCursor ?? undefined });
      expect([...first.items, ...second.items, ...third.items].map((d) => d.createdAt - T0)).toEqual([
        5_000, 4_000, 3_000, 2_000, 1_000,
      ]);
      expect(third.nextCursor).toBeNull();
    });
  });
}

/** The behaviour every `DeviceDeliveryLog` (what each device socket was handed) must show. */
export function runDeviceDeliveryLogContract(name: string, make: MakeDeviceDeliveryLog): void {
  describe(`DeviceDeliveryLog contract: ${name}`, () => {
    const entry = (inquiryId: string, at: number): DeviceDelivery => ({
      inquiryId,
      deviceName: 'phone',
      deviceId: 'd1',
      socketId: `s${at}`,
      via: 'socket',
      event: 'new',
      at,
    });

    it('lists one inquiry newest first, from batches that mix inquiries', async () => {
      const log = await make();
      const [a, b] = [randomUUID(), randomUUID()];
      await log.add([entry(a, 1), entry(b, 2), entry(a, 3)]);
      await log.add([entry(a, 4)]);
      expect((await log.list(a)).map((e) => e.at)).toEqual([4, 3, 1]);
      expect((await log.list(b)).map((e) => e.socketId)).toEqual(['s2']);
      expect(await log.list(randomUUID())).toEqual([]);
    });

    it(`keeps the newest ${MAX_DEVICE_DELIVERIES} entries of an inquiry`, async () => {
      const log = await make();
      const id = randomUUID();
      const many = Array.from({ length: MAX_DEVICE_DELIVERIES + 5 }, (_, i) => entry(id, i + 1));
      await log.add(many);
      const kept = await log.list(id);
      expect(kept).toHaveLength(MAX_DEVICE_DELIVERIES);
      expect(kept[0]?.at).toBe(MAX_DEVICE_DELIVERIES + 5);
      expect(kept.at(-1)?.at).toBe(6);
    });
  });
}
