import { DATABASE_URL_ENV } from '../../store';
import { officeDeskName, OfficeWaits, type OfficeWait, type TakeOverAnswer } from '../../service/office-waits';
import { heldRequestLine, type ApprovalRequest, type HeldRequest, type InputRequest, type TakeOverRequest } from '../../shared/clerk';
import { carriedLines } from '../clerk-terminal';
import { parseCommandArgs, shownArg } from '../args';
import { EXIT, UsageError } from '../cli-error';
import { officeUrl } from './office-store';
import { errorText } from '../../base/error-text';

const HELP = `portal-desk waits [list | approve ID | deny ID | type ID | take ID | hand-back ID | decline ID] [options]

What the office's runs wait for (PORTAL_DESK_DATABASE_URL): approvals, one-time codes, missing
values and take-overs, whichever desk's run asks. The run keeps its browser at its own desk; the
answer given here reaches it at once. The first clerk to answer a wait wins.

  list (default)              the open waits, oldest first, each with its client and desk (--json for data)
  approve ID | deny ID        decide an approval (--by NAME, --note TEXT)
  type ID                     answer a code or a missing value: read from stdin (not echoed, never kept
                              in the office database once the run has read it)
  take ID                     a bot check paused the run: take its portal over, at the desk whose browser
                              has it (work it in that desk's browser window, "worker --headed")
  hand-back ID                give the portal back after a take-over; the run goes on from a fresh read
  decline ID                  nobody takes it over: the run ends blocked (any desk, until someone has taken it)
  --by NAME                   who decides (default: $USER)
  --note TEXT                 a note kept with the decision
  --json                      print as JSON

This desk's name is $PORTAL_DESK_NAME, else the machine's host name.`;

export async function waitsCommand(args: string[]): Promise<number> {
  const { values, positionals } = parseCommandArgs(args, { by: { type: 'string' }, note: { type: 'string' }, json: { type: 'boolean' } }, true);
  if (values.help) {
    console.log(HELP);
    return EXIT.ok;
  }
  const [verb = 'list', id] = positionals;
  if (!VERBS.includes(verb)) throw new UsageError(`unknown waits action "${shownArg(verb)}" (${VERBS.join(', ')})`);
  if (verb !== 'list' && (!id || !/^\d+$/.test(id))) throw new UsageError(`"waits ${verb}" needs the wait's ID (a number, as "portal-desk waits" lists it)`);
  const url = officeUrl('waits');
  const by = values.by ?? process.env.USER ?? 'clerk';
  let waits: OfficeWaits;
  try {
    waits = await OfficeWaits.open(url);
  } catch (err) {
    throw new UsageError(`Could not open the office's waits (${DATABASE_URL_ENV}): ${errorText(err).split('\n')[0]}`);
  }
  try {
    if (verb === 'list') {
      const open = await waits.open();
      if (values.json) console.log(JSON.stringify(open, null, 2));
      else if (open.length === 0) console.log('nothing waits for a clerk');
      else for (const w of open) console.log(waitLine(w));
      return EXIT.ok;
    }
    const wait = await waits.get(id!);
    if (!wait) throw new UsageError(`no wait ${id}`);
    if (verb === 'take' || verb === 'hand-back' || verb === 'decline') {
      if (wait.kind !== 'take_over') throw new UsageError(`wait ${id} is not a take-over: use "waits ${wait.kind === 'approval' ? 'approve' : 'type'} ${id}"`);
      const here = officeDeskName();
      let answer: TakeOverAnswer;
      if (verb === 'take') answer = await waits.take(id!, by, here);
      else answer = await waits.endTakeOver(id!, verb === 'decline' ? 'decline' : 'hand_back', by, { here, ...(values.note ? { note: values.note } : {}) });
      if (!answer.accepted) {
        console.error(`wait ${id}: ${answer.reason ?? 'refused'}; nothing changed`);
        return EXIT.notDone;
      }
      console.error(
        verb === 'take'
          ? `wait ${id}: the portal of run ${wait.runId} is yours, ${by}, in this desk's browser window; "portal-desk waits hand-back ${id}" when you are done`
          : verb === 'decline'
            ? `wait ${id} declined by ${by}; the run at desk ${wait.deskName} ends blocked`
            : `wait ${id}: handed back by ${by}; the run at desk ${wait.deskName} goes on`,
      );
      return EXIT.ok;
    }
    if (wait.kind === 'take_over') throw new UsageError(`wait ${id} is a take-over: use "waits take ${id}", "waits hand-back ${id}" or "waits decline ${id}"`);
    let ok: boolean;
    if (verb === 'type') {
      if (wait.kind !== 'input') throw new UsageError(`wait ${id} is an approval: use "waits approve ${id}" or "waits deny ${id}"`);
      const value = (await readStdin()).replace(/\r?\n$/, '');
      ok = await waits.type(id!, value === '' ? null : value, by);
    } else {
      if (wait.kind !== 'approval') throw new UsageError(`wait ${id} asks for a value: use "waits type ${id}"`);
      ok = await waits.decide(id!, { decision: verb === 'approve' ? 'approve' : 'deny', by, ...(values.note ? { note: values.note } : {}) });
    }
    if (!ok) {
      console.error(`wait ${id} was already answered${wait.answeredBy ? ` by ${wait.answeredBy}` : ''}; nothing changed`);
      return EXIT.notDone;
    }
    console.error(`wait ${id} answered (${verb}) by ${by}; the run at desk ${wait.deskId} goes on`);
    return EXIT.ok;
  } finally {
    await waits.close();
  }
}

const VERBS = ['list', 'approve', 'deny', 'type', 'take', 'hand-back', 'decline'];

function waitLine(w: OfficeWait): string {
  const where = `${w.clientId ? `client ${w.clientId}${w.portal ? ` on ${w.portal}` : ''}, ` : ''}run ${w.runId} step ${w.step} at desk ${w.deskName}`;
  if (w.kind === 'approval') {
    const p = w.prompt as Partial<ApprovalRequest>;
    const what = p.request ? heldRequestLine(p.request) : (p.element ?? p.action?.type ?? 'an action');
    // What the submission will send, each value with where it came from (as the card shows it).
    const carried = p.request ?? p.sends;
    const sends = !p.request && p.sends ? ` — sends ${heldRequestLine(p.sends)}` : '';
    const values = carried?.values ? carriedLines(carried as Pick<HeldRequest, 'values'>) || '\n    (it carries no form values)' : '';
    const by = p.expiresAt ? ` — answer by ${p.expiresAt.slice(11, 19)} UTC` : '';
    return `${w.id}  approval  ${where}: ${what}${sends} (${p.verdict?.reason ?? ''})${by}${values}`;
  }
  if (w.kind === 'take_over') {
    const p = w.prompt as Partial<TakeOverRequest>;
    const state = w.takenBy ? `taken by ${w.takenBy} at desk ${w.deskName}` : `the browser is at desk ${w.deskName}: take it over there`;
    return `${w.id}  take-over  ${where}: ${p.reason === 'bot_check' ? `the portal shows ${p.detail ?? 'a bot check'}` : (p.detail ?? '')} (${state})`;
  }
  const p = w.prompt as Partial<InputRequest>;
  return `${w.id}  ${p.kind ?? 'input'}  ${where}: ${p.question ?? ''}${w.secret ? ' (secret: typed, not shown)' : ''}`;
}

function readStdin(): Promise<string> {
  return new Promise((resolve) => {
    let text = '';
    process.stdin.setEncoding('utf8');
    process.stdin.on('data', (d: string) => (text += d));
    process.stdin.on('end', () => resolve(text));
  });
}
