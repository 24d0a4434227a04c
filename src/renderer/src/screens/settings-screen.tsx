import { useCallback, useEffect, useState, type FormEvent } from 'react';
import type { CredentialSummary } from '../../../shared/console-api';
import { useConsoleState, useModel } from '../console-context';
import { messageOf } from '../console-model';

/** Portals and their allowed hosts, portal logins (never their passwords), and the planner's model and key status. */
export function SettingsScreen() {
  return (
    <div className="screen settings-screen">
      <Credentials />
      <Model />
      <Portals />
    </div>
  );
}

function Portals() {
  const { portals } = useConsoleState();
  return (
    <section className="panel" aria-label="Portals">
      <h2>Portals</h2>
      <p className="hint">The agent may open only these hosts; a click on a control with a risky word waits for your approval.</p>
      {!portals ? (
        <p className="empty">Loading…</p>
      ) : (
        <table className="settings-table">
          <thead>
            <tr>
              <th>Portal</th>
              <th>Start page</th>
              <th>Allowed hosts</th>
              <th>Risky words</th>
            </tr>
          </thead>
          <tbody>
            {portals.map((p) => (
              <tr key={p.id}>
                <td>
                  <strong>{p.name}</strong>
                  <div className="sub">
                    {p.id}
                    {p.lab && <span className="chip small chip-idle">lab</span>}
                  </div>
                </td>
                <td className="mono">{p.startUrl}</td>
                <td>
                  {p.allowedHosts.map((h) => (
                    <code key={h} className="tag">
                      {h}
                    </code>
                  ))}
                </td>
                <td className="words">{p.riskyWords.join(', ')}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}

function Credentials() {
  const model = useModel();
  const { portals } = useConsoleState();
  const [list, setList] = useState<CredentialSummary[] | null>(null);
  const [problem, setProblem] = useState<string | null>(null);
  const [saved, setSaved] = useState<string | null>(null);
  const [form, setForm] = useState({ clientId: '', portal: '', username: '', password: '' });

  const load = useCallback(async () => {
    try {
      setList(await model.api.listCredentials({}));
    } catch (err) {
      setProblem(messageOf(err));
    }
  }, [model]);
  useEffect(() => {
    void load();
  }, [load]);

  const portal = form.portal || portals?.[0]?.id || '';
  const add = async (e: FormEvent) => {
    e.preventDefault();
    setProblem(null);
    setSaved(null);
    try {
      await model.api.setCredential({ clientId: form.clientId.trim(), portal, username: form.username.trim(), password: form.password });
      setSaved(`Saved the login for ${form.clientId.trim()} on ${portal}.`);
      setForm({ clientId: '', portal: form.portal, username: '', password: '' });
      await load();
    } catch (err) {
      // The password stays in the field for a retry; it is never echoed.
      setProblem(messageOf(err));
    }
  };
  const remove = async (c: CredentialSummary) => {
    setProblem(null);
    setSaved(null);
    try {
      await model.api.removeCredential({ clientId: c.clientId, portal: c.portal });
      await load();
    } catch (err) {
      setProblem(messageOf(err));
    }
  };

  return (
    <section className="panel" aria-label="Portal logins">
      <h2>Portal logins</h2>
      <p className="hint">Encrypted in the vault. Passwords are never shown, not even here; to change one, save it again.</p>
      {problem && <p className="banner banner-failed">{problem}</p>}
      {saved && <p className="banner banner-done">{saved}</p>}
      {!list ? (
        <p className="empty">Loading…</p>
      ) : list.length === 0 ? (
        <p className="empty">No logins saved. Lab portals use their demo accounts.</p>
      ) : (
        <table className="settings-table">
          <thead>
            <tr>
              <th>Client</th>
              <th>Portal</th>
              <th>Username</th>
              <th>Password</th>
              <th>Saved</th>
              <th />
            </tr>
          </thead>
          <tbody>
            {list.map((c) => (
              <tr key={`${c.clientId}/${c.portal}`} data-credential={`${c.clientId}/${c.portal}`}>
                <td>{c.clientId}</td>
                <td>{c.portal}</td>
                <td>{c.username}</td>
                <td className="muted">•••••• (hidden)</td>
                <td>{new Date(c.updatedAt).toLocaleString()}</td>
                <td>
                  <button type="button" className="btn btn-quiet btn-danger-text" onClick={() => void remove(c)} aria-label={`Remove the login of ${c.clientId} on ${c.portal}`}>
                    Remove
                  </button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <form className="credential-form" onSubmit={(e) => void add(e)} autoComplete="off">
        <h3>Add or replace a login</h3>
        <label>
          Client id
          <input required value={form.clientId} onChange={(e) => setForm({ ...form, clientId: e.target.value })} placeholder="anand-bakery" />
        </label>
        <label>
          Portal
          <select value={portal} onChange={(e) => setForm({ ...form, portal: e.target.value })}>
            {(portals ?? []).map((p) => (
              <option key={p.id} value={p.id}>
                {p.id}
              </option>
            ))}
          </select>
        </label>
        <label>
          Username
          <input required value={form.username} onChange={(e) => setForm({ ...form, username: e.target.value })} autoComplete="off" />
        </label>
        <label>
          Password
          <input required type="password" value={form.password} onChange={(e) => setForm({ ...form, password: e.target.value })} autoComplete="new-password" />
        </label>
        <button type="submit" className="btn btn-primary" disabled={!form.clientId.trim() || !portal || !form.username.trim() || !form.password}>
          Save login
        </button>
      </form>
    </section>
  );
}

function Model() {
  const { model } = useConsoleState();
  return (
    <section className="panel" aria-label="Planner and model">
      <h2>Planner and model</h2>
      {!model ? (
        <p className="empty">Loading…</p>
      ) : (
        <dl className="facts">
          <dt>Default planner</dt>
          <dd>{model.planner === 'anthropic' ? 'Claude (Anthropic API)' : 'rules — the offline form filler, no AI'}</dd>
          <dt>Claude model</dt>
          <dd className="mono">{model.model ?? '—'}</dd>
          <dt>API key</dt>
          <dd>
            {model.keyPresent ? (
              <span className="chip small chip-done">ANTHROPIC_API_KEY is set</span>
            ) : (
              <span className="chip small chip-waiting">ANTHROPIC_API_KEY is not set</span>
            )}{' '}
            <span className="sub">{model.keyPresent ? 'The key itself is never shown.' : 'Only the offline rules planner can run. Set the key in the console’s environment and restart it.'}</span>
          </dd>
          {model.baseURL && (
            <>
              <dt>Gateway</dt>
              <dd className="mono">{model.baseURL}</dd>
            </>
          )}
        </dl>
      )}
    </section>
  );
}
