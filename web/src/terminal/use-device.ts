import {
  createDeviceClient,
  type DeviceClient,
  type DeviceSnapshot,
  type PendingInquiry,
  type ResolvedNotice,
} from '@hitl/client';
import { useEffect, useState, useSyncExternalStore } from 'react';
import { attachPlatform } from '../platform/device-platform';
import { nodeOrigin } from '../platform/node-url';

/** A card that just ended, kept on screen for a moment to say how. */
export interface ClosingCard {
  inquiry: PendingInquiry;
  notice: ResolvedNotice;
}

/** How long an ended card stays: shorter for this device's own answer. */
const CLOSE_AFTER_MS = { mine: 4000, other: 6000 };

const OFFLINE: DeviceSnapshot = { status: 'connecting', synced: false, inquiries: [] };
const noSubscription = () => () => undefined;
const offline = () => OFFLINE;

/** One device client for this page (re-created when the token or device name changes). */
export function useDevice(options: { token: string; deviceName: string; deviceId: string }) {
  const { token, deviceName, deviceId } = options;
  const [client, setClient] = useState<DeviceClient | null>(null);
  const [closing, setClosing] = useState<ClosingCard[]>([]);
  // Bumped by the platform to re-create the client (app resume): a fresh connection re-syncs.
  const [generation, setGeneration] = useState(0);

  // biome-ignore lint/correctness/useExhaustiveDependencies: a new generation re-creates the client on purpose
  useEffect(() => {
    const device = createDeviceClient({
      url: nodeOrigin(localStorage, window.location) ?? window.location.origin,
      token,
      deviceName,
      deviceId,
      autoConnect: false,
    });
    const timers = new Set<number>();
    const detachPlatform = attachPlatform(device, { reconnect: () => setGeneration((g) => g + 1) });
    device.on('resolved', (notice) => {
      const { inquiry } = notice;
      if (!inquiry) return;
      const card = { inquiry, notice };
      setClosing((cards) => [...cards.filter((c) => c.inquiry.inquiryId !== inquiry.inquiryId), card]);
      const timer = window.setTimeout(
        () => setClosing((cards) => cards.filter((c) => c !== card)),
        notice.byThisDevice ? CLOSE_AFTER_MS.mine : CLOSE_AFTER_MS.other,
      );
      timers.add(timer);
    });
    setClient(device);
    device.connect();
    return () => {
      detachPlatform();
      for (const timer of timers) window.clearTimeout(timer);
      device.close();
      setClosing([]);
    };
  }, [token, deviceName, deviceId, generation]);

  const snapshot = useSyncExternalStore(client?.subscribe ?? noSubscription, client?.getSnapshot ?? offline);
  return { client, snapshot, closing };
}
