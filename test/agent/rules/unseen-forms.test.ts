import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RulesPlanner } from '../../../src/agent/decide/rules/rules-planner';
import { PageObserver } from '../../../src/agent/observe/observer';
import { CaseFile } from '../../../src/shared/case-file';
import { PortalProfile } from '../../../src/shared/portal-profile';
import { useFixtureBrowser } from '../observe/fixture-pages';
import { driveRules, type Drive } from './drive';
import { serveOnLoopback, type LoopbackSite } from '../../support/loopback-site';

/**
 * The offline rules planner on one-page forms it was not built for, in real Chromium against a
 * server that validates what it receives the way portals do: a DD/MM/YYYY box, a date in three
 * boxes, radios whose group has no name, a checkbox whose label is the case value, no continue
 * button, and an error summary that says which field failed and how it wants the date. The driver
 * below is the loop's order (read, plan, guard, act), with a clerk who approves what is gated.
 */

let site: LoopbackSite;
let port = 0;
const posted: Record<string, string>[] = [];
const browser = useFixtureBrowser();
const observer = new PageObserver();

const shell = (title: string, body: string) => `<!doctype html><html><head><title>${title}</title></head><body><main><h1>${title}</h1>${body}</main></body></html>`;

/** Form A: a date as DD/MM/YYYY (said by the placeholder), radios without a group name, a checkbox by its label. */
function formA(errors: string[] = []): string {
  const summary = errors.length ? `<div class="error-summary" role="alert"><h2>There is a problem</h2><ul>${errors.map((e) => `<li><a href="#opened">${e}</a></li>`).join('')}</ul></div>` : '';
  return shell(
    'Register a food stall',
    `${summary}<form method="post" action="/a">
      <label for="stall">Stall name</label><input id="stall" name="stall" required>
      <label for="opened">Date opened</label><input id="opened" name="opened" placeholder="DD/MM/YYYY" ${errors.length ? 'aria-invalid="true" aria-describedby="opened-err"' : ''}>
      ${errors.length ? `<span id="opened-err" class="error">${errors[0]}</span>` : ''}
      <p>What do you sell?</p>
      <div><input type="radio" id="k1" name="kind" value="veg"><label for="k1">Vegetarian food</label></div>
      <div><input type="radio" id="k2" name="kind" value="any"><label for="k2">Any food</label></div>
      <div><input type="checkbox" id="w" name="water" value="yes"><label for="w">Drinking water</label></div>
      <div><input type="checkbox" id="ice" name="ice" value="yes"><label for="ice">Ice cream</label></div>
      <button type="submit">Submit registration</button>
    </form>`,
  );
}

/** Form B: a date in three boxes under a legend, a DD/MM/YYYY box that says so only when it refuses an ISO date. */
function formB(error?: string): string {
  const summary = error ? `<div class="govuk-error-summary" role="alert"><h2>There is a problem</h2><ul><li><a href="#since">${error}</a></li></ul></div>` : '';
  return shell(
    'Apply for a street licence',
    `${summary}<form method="post" action="/b">
      <label for="holder">Licence holder</label><input id="holder" name="holder">
      <fieldset><legend>Date of birth</legend>
        <label for="d">Day</label><input id="d" name="dob-day" inputmode="numeric" maxlength="2">
        <label for="m">Month</label><input id="m" name="dob-month" inputmode="numeric" maxlength="2">
        <label for="y">Year</label><input id="y" name="dob-year" inputmode="numeric" maxlength="4">
      </fieldset>
      <label for="since">Trading since</label><input id="since" name="since" ${error ? `aria-invalid="true" aria-errormessage="since-err"` : ''}>
      ${error ? `<p id="since-err" class="error">${error}</p>` : ''}
      <button type="submit">Send application</button>
    </form>`,
  );
}

const THANKS = (ref: string) => shell('Application received', `<p>Your reference is <strong>${ref}</strong>.</p>`);

beforeAll(async () => {
  site = await serveOnLoopback((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      const path = new URL(req.url ?? '/', 'http://x').pathname;
      const send = (html: string) => res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(html);
      if (req.method !== 'POST') return send(path === '/b' ? formB() : formA());
      const form = Object.fromEntries(new URLSearchParams(body));
      posted.push(form);
      if (path === '/a') {
        if (!/^\d{2}\/\d{2}\/\d{4}$/.test(form['opened'] ?? '')) return send(formA(['Enter the date opened as DD/MM/YYYY']));
        return send(THANKS('FS-1001'));
      }
      if (!/^\d{2}\/\d{2}\/\d{4}$/.test(form['since'] ?? '')) return send(formB('Trading since must be a date written as DD/MM/YYYY, for example 27/03/2007'));
      return send(THANKS('SL-2002'));
    });
  });
  port = site.port;
});
afterAll(() => site.close());

function profile(): PortalProfile {
  return PortalProfile.parse({
    id: 'council',
    name: 'Council forms',
    startUrl: `http://forms.council.example:${port}/`,
    allowedHosts: [`forms.council.example:${port}`],
    allowHttp: true,
    confirmation: { applicationNumberPattern: '[A-Z]{2}-\\d{4}', pageContains: 'application received' },
  });
}

/** Read, plan, guard, act until the planner says done or fail (or 8 turns); gated actions are approved and counted. */
async function drive(path: string, caseFile: CaseFile): Promise<Drive> {
  const page = await browser.page();
  await page.goto(`http://forms.council.example:${port}${path}`);
  const planner = new RulesPlanner(profile());
  planner.start({ caseId: caseFile.caseId, portal: caseFile.portal, task: caseFile.task, fields: caseFile.fields, aliases: caseFile.aliases, declarations: caseFile.declarations });
  return driveRules(page, { planner, profile: profile(), caseFile, observer, maxTurns: 8 });
}

function caseOf(fields: CaseFile['fields']): CaseFile {
  return CaseFile.parse({ caseId: 'unseen-1', clientId: 'meena', portal: 'council', task: 'licence', fields });
}

describe('rules planner on one-page forms it has never seen', () => {
  it('writes the date the way the placeholder says, picks a radio and a checkbox by their own labels, then proposes the form’s own submit (one approval)', async () => {
    posted.length = 0;
    const run = await drive('/a', caseOf({ stall_name: 'Meena Snacks', date_opened: '2021-08-15', menu: 'Vegetarian food', drinks: 'Drinking water' }));
    expect(run.end).toMatchObject({ type: 'done', proof: expect.stringContaining('FS-1001') });
    expect(run.approvals).toBe(1);
    expect(posted).toEqual([{ stall: 'Meena Snacks', opened: '15/08/2021', kind: 'veg', water: 'yes' }]);
    expect(run.turns[0]).toContainEqual(expect.objectContaining({ type: 'fill', field: 'date_opened', format: 'date:DD/MM/YYYY' }));
    expect(run.turns[0]).toContainEqual(expect.objectContaining({ type: 'check', checked: true, field: 'menu' }));
    expect(run.turns[1]).toEqual([expect.objectContaining({ type: 'click' })]);
  });

  it('fills a date in three boxes from one case date, and after the error summary retypes the failed field the way it asked', async () => {
    posted.length = 0;
    const run = await drive('/b', caseOf({ licence_holder: 'Meena Rao', date_of_birth: '1979-02-05', trading_since: '2019-11-30' }));
    expect(run.end).toMatchObject({ type: 'done', proof: expect.stringContaining('SL-2002') });
    expect(posted).toHaveLength(2);
    expect(posted[0]).toEqual({ holder: 'Meena Rao', 'dob-day': '05', 'dob-month': '02', 'dob-year': '1979', since: '2019-11-30' });
    expect(posted[1]).toMatchObject({ since: '30/11/2019', 'dob-day': '05' });
    const retyped = run.turns.flat().filter((a) => a.type === 'fill' && a.field === 'trading_since');
    expect(retyped.map((a) => (a as { format?: string }).format)).toEqual([undefined, 'date:DD/MM/YYYY']);
    // "Send application" has no risky word: the action guard lets it through, and in a run the commit gate holds the post itself.
    expect(run.approvals).toBe(0);
  });

  it('asks the clerk for a required box the case has no value for instead of sending the form', async () => {
    const run = await drive('/a', caseOf({ date_opened: '2021-08-15', menu: 'Vegetarian food' }));
    expect(run.end).toMatchObject({ type: 'ask', kind: 'missing_value', field: 'stall_name' });
  });
});
