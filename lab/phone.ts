import type { ServerResponse } from 'node:http';
import { html } from './html';
import { sendHtml, sendText, type LabRequest } from './http';
import { PORTALS } from './portals/registry';
import type { LabState } from './state';

/** The demo phone: the text messages with one-time codes "sent" to each client, newest first. */
export function handlePhone(state: LabState, req: LabRequest, res: ServerResponse): void {
  if (req.path !== '/') return sendText(res, 404, 'Not found');
  const client = req.query.get('client') ?? undefined;
  const messages = state.otp.messages(client);
  const page = html`<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Demo phone</title>
<style>body{font:15px/1.4 system-ui,sans-serif;background:#222;margin:0}.phone{max-width:380px;margin:20px auto;background:#f4f4f6;border-radius:24px;padding:18px;min-height:80vh}
.sms{background:#fff;border-radius:14px;padding:10px 12px;margin:10px 0}.meta{color:#777;font-size:12px}</style></head>
<body><div class="phone"><h1>Messages</h1>${client ? html`<p>For client <strong>${client}</strong>. <a href="/">All clients</a></p>` : ''}
${
  messages.length === 0
    ? html`<p>No messages yet.</p>`
    : messages.map(
        (m) => html`<div class="sms"><div class="meta">To ${m.clientId} · ${new Date(m.sentAt).toISOString().slice(11, 19)} UTC</div>
<p>${m.code} is your ${PORTALS[m.portal].service} verification code${m.purpose === 'submit' ? ' to submit your application' : ''}. It expires in 5 minutes. Do not share it with anyone.</p></div>`,
      )
}</div></body></html>`;
  sendHtml(res, 200, page.value);
}
