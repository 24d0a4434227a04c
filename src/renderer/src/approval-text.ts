import { heldRequestLine, type ApprovalRequest } from '../../shared/clerk';
import { describeAction } from '../../shared/describe-action';

/** What the clerk is asked to approve, in one line: the request the gate holds, or the action. */
export function approvalSubject(request: ApprovalRequest): string {
  if (request.request) return `send ${heldRequestLine(request.request)}`;
  return request.action ? describeAction(request.action, request.element) : (request.element ?? 'an action');
}
