import type { Inquiry } from '@hitl/protocol';
import { outcomeText } from '../outcome';
import { formatTime, oneLine } from './format';
import { inquiryPath } from './ops-route';
import { formatDuration, humanAnswerMs } from './stats';

/** Inquiry history, newest first; a row's question opens its detail view. */
export function InquiryTable(props: { inquiries: Inquiry[]; onOpen(inquiryId: string): void }) {
  if (props.inquiries.length === 0) return <p className="empty">No inquiries match.</p>;
  return (
    <div className="table-scroll">
      <table className="data">
        <thead>
          <tr>
            <th scope="col">Asked</th>
            <th scope="col">User</th>
            <th scope="col">Question</th>
            <th scope="col">Status</th>
            <th scope="col">Ended by</th>
            <th scope="col">Answer time</th>
          </tr>
        </thead>
        <tbody>
          {props.inquiries.map((inquiry) => (
            <tr key={inquiry.inquiryId} data-inquiry-id={inquiry.inquiryId}>
              <td data-label="Asked" className="nowrap">
                {formatTime(inquiry.createdAt)}
              </td>
              <td data-label="User">{inquiry.userId}</td>
              <td data-label="Question">
                <a
                  href={inquiryPath(inquiry.inquiryId)}
                  onClick={(e) => {
                    if (e.metaKey || e.ctrlKey || e.shiftKey) return; // a new tab opens the address itself
                    e.preventDefault();
                    props.onOpen(inquiry.inquiryId);
                  }}
                >
                  {oneLine(inquiry.question)}
                </a>
              </td>
              <td data-label="Status">
                <span className={`status ${inquiry.status}`}>{inquiry.status.replace('_', ' ')}</span>
              </td>
              <td data-label="Ended by">
                {inquiry.status === 'pending' ? '–' : outcomeText(inquiry.status, inquiry.resolvedBy)}
              </td>
              <td data-label="Answer time" className="nowrap">
                {formatDuration(humanAnswerMs(inquiry))}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
