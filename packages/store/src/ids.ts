import { decodeTime, monotonicFactory } from 'ulid';

const nextUlid = monotonicFactory();

/**
 * A new inquiry id: a ULID, so ids sort lexicographically in creation order (monotonic within one
 * process, even inside one millisecond). Lists page newest-first on this order.
 *
 * @example
 * const inquiryId = newInquiryId(); // "01J9Z3K7Q5N2V8R4T6W0X1Y2Z3"
 */
export function newInquiryId(): string {
  return nextUlid();
}

/** When the inquiry with this id was created (epoch ms), or undefined for an id that is not a ULID. */
export function inquiryIdTime(inquiryId: string): number | undefined {
  try {
    return decodeTime(inquiryId);
  } catch {
    return undefined;
  }
}
