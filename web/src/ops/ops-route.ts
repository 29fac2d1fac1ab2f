import { useCallback, useEffect, useState } from 'react';

const PREFIX = '/ops/inquiries/';

/** The inquiry an address names (`/ops/inquiries/<id>`), or null. */
export function inquiryIdOf(pathname: string): string | null {
  if (!pathname.startsWith(PREFIX)) return null;
  const id = decodeURIComponent(pathname.slice(PREFIX.length));
  return id && !id.includes('/') ? id : null;
}

export const inquiryPath = (inquiryId: string) => `${PREFIX}${encodeURIComponent(inquiryId)}`;

/**
 * The open inquiry lives in the address bar: opening one pushes `/ops/inquiries/<id>` (so Back closes
 * it and the address can be shared), closing it goes back to `/`.
 */
export function useOpenInquiry(): [string | null, (inquiryId: string | null) => void] {
  const [openId, setOpenId] = useState(() => inquiryIdOf(window.location.pathname));
  useEffect(() => {
    const onPop = () => setOpenId(inquiryIdOf(window.location.pathname));
    window.addEventListener('popstate', onPop);
    return () => window.removeEventListener('popstate', onPop);
  }, []);
  const open = useCallback((inquiryId: string | null) => {
    const path = inquiryId ? inquiryPath(inquiryId) : '/';
    if (window.location.pathname !== path) window.history.pushState(null, '', path);
    setOpenId(inquiryId);
  }, []);
  return [openId, open];
}
