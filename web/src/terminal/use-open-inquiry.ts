import { useEffect, useState } from 'react';
import { inquiryFromPath } from './inquiry-page';

/** The service worker's message after a plain click on a notification (push-events.ts). */
const OPEN_INQUIRY = 'hitl:open-inquiry';

/** `#inquiry=<id>` (a notification clicked while no page was open) → the id. */
export function inquiryFromHash(hash: string): string | null {
  const match = /^#inquiry=(.+)$/.exec(hash);
  if (!match?.[1]) return null;
  try {
    return decodeURIComponent(match[1]);
  } catch {
    return null;
  }
}

/**
 * Brings one inquiry's card into view and gives it focus when a notification about it was clicked:
 * from the address (`/#inquiry=<id>`, the page was opened by the click; or `/i/<id>`, the page a
 * chat sends a person to) or from the service worker's
 * message (the page was already open). Waits for the card while the list syncs; `ids` are the cards
 * shown now.
 */
export function useOpenInquiry(ids: readonly string[]): void {
  const [wanted, setWanted] = useState<string | null>(
    () => inquiryFromHash(location.hash) ?? inquiryFromPath(location.pathname),
  );

  useEffect(() => {
    const worker = navigator.serviceWorker;
    if (!worker) return;
    const onMessage = (event: MessageEvent) => {
      const data = event.data as { type?: unknown; inquiryId?: unknown } | null;
      if (data?.type === OPEN_INQUIRY && typeof data.inquiryId === 'string') setWanted(data.inquiryId);
    };
    worker.addEventListener('message', onMessage);
    // Messages wait in a queue until a page asks for them (addEventListener alone does not).
    worker.startMessages();
    return () => worker.removeEventListener('message', onMessage);
  }, []);

  useEffect(() => {
    if (wanted === null || !ids.includes(wanted)) return;
    const card = document.querySelector<HTMLElement>(`article[data-inquiry-id="${CSS.escape(wanted)}"]`);
    if (!card) return;
    card.tabIndex = -1;
    card.scrollIntoView({ block: 'start' });
    card.focus();
    if (location.hash) history.replaceState(history.state, '', `${location.pathname}${location.search}`);
    setWanted(null);
  }, [wanted, ids]);
}
