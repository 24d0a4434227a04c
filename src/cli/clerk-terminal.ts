import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import type { ApprovalDecision, ApprovalGate, ApprovalRequest, InputRequest, InputSource } from '../shared/clerk';
import { SECRET_INPUT_KINDS } from '../shared/clerk';
import type { ApproveMode } from '../shared/run';
import { promptLine } from './terminal-prompt';

const run = promisify(execFile);

/** Approvals on the terminal (`ask`), or automatic for demos and tests (`all`, `none`), said loudly. */
export class TerminalApprovals implements ApprovalGate {
  constructor(
    private readonly mode: ApproveMode,
    private readonly log: (line: string) => void,
  ) {}

  async request(req: ApprovalRequest): Promise<ApprovalDecision> {
    const what = `${req.action.type} ${req.element ?? ''}`.trim();
    if (this.mode === 'all') {
      this.log(`  APPROVED AUTOMATICALLY (--approve all, demo/test mode): ${what} — ${req.verdict.reason}`);
      return { decision: 'approve', by: 'auto:all' };
    }
    if (this.mode === 'none') {
      this.log(`  DENIED AUTOMATICALLY (--approve none, demo/test mode): ${what} — ${req.verdict.reason}`);
      return { decision: 'deny', by: 'auto:none' };
    }
    const answer = await promptLine(`\nApproval needed: ${what}\n  why: ${req.verdict.reason}\n  Approve? [y/N] `);
    if (answer === null) {
      this.log('  no terminal to ask for approval: denied');
      return { decision: 'deny', by: 'terminal:none' };
    }
    const clerk = process.env.USER ?? 'clerk';
    return /^y(es)?$/i.test(answer.trim()) ? { decision: 'approve', by: clerk } : { decision: 'deny', by: clerk };
  }
}

/** The clerk's answers: on the terminal (codes without echo), or from `--otp-command` for tests. */
export class TerminalInputs implements InputSource {
  constructor(
    private readonly otpCommand: string | undefined,
    private readonly answers: Record<string, string>,
  ) {}

  async ask(req: InputRequest): Promise<string | null> {
    if (req.kind === 'otp' && this.otpCommand) {
      const { stdout } = await run('/bin/sh', ['-c', this.otpCommand], { timeout: 30_000 });
      const code = stdout.trim();
      return code.length > 0 ? code : null;
    }
    if (req.field && this.answers[req.field] !== undefined) return this.answers[req.field]!;
    return promptLine(`\n${req.question}\n> `, { secret: SECRET_INPUT_KINDS.includes(req.kind) });
  }
}
