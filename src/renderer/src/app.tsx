import { useEffect, useState } from 'react';
import { useConsoleState } from './console-context';
import { askForNotifications, notificationPermission } from './notifications';
import { href, useRoute, type Route } from './route';
import { isLive, isWaiting } from './status';
import { ReplayScreen } from './screens/replay-screen';
import { RunScreen } from './screens/run-screen';
import { RunsScreen } from './screens/runs-screen';
import { SettingsScreen } from './screens/settings-screen';

export function App() {
  const route = useRoute();
  const state = useConsoleState();
  const runs = [...state.runs.values()];
  const waiting = runs.filter(isWaiting);
  const live = runs.filter(isLive).length;
  const queued = [...state.queues.values()].flatMap((q) => q.entries);
  const queueOpen = queued.filter((e) => e.state !== 'done' && e.state !== 'not_done').length;
  const officeWaits = state.office?.waits.length ?? 0;

  useEffect(() => {
    document.title = waiting.length > 0 ? `(${waiting.length}) Waiting for you — Portal Desk` : 'Portal Desk';
  }, [waiting.length]);

  return (
    <div className="app">
      <nav className="topbar" aria-label="Screens">
        <span className="brand">Portal Desk</span>
        <Tab route={{ name: 'runs' }} current={route} label="Runs" />
        {route.name === 'run' && <Tab route={route} current={route} label="Run" />}
        <Tab route={route.name === 'replay' ? route : { name: 'replay' }} current={route} label="Replay" />
        <Tab route={{ name: 'settings' }} current={route} label="Settings" />
        <span className="spacer" />
        {waiting.length > 0 ? (
          <a className="waiting-badge" href={href({ name: 'run', runId: waiting[0]!.run.id })}>
            {waiting.length} waiting for you
          </a>
        ) : (
          <span className="topbar-note">{live > 0 ? `${live} run${live === 1 ? '' : 's'} working` : 'nothing running'}</span>
        )}
        {queueOpen > 0 && (
          <a className="topbar-note queue-note" href={href({ name: 'runs' })}>
            queue: {queued.length - queueOpen} of {queued.length} finished
          </a>
        )}
        {officeWaits > 0 && (
          <a className="topbar-note queue-note" href={href({ name: 'runs' })}>
            {officeWaits} office wait{officeWaits === 1 ? '' : 's'}
          </a>
        )}
        <NotificationsButton />
        <Connection />
      </nav>
      {state.connection !== 'open' && (
        <p className="banner banner-failed connection-banner" role="alert">
          {state.connection === 'connecting'
            ? 'Connecting to the console service…'
            : 'The console stopped (or this tab lost it): what you see here is out of date and its buttons are off; nothing can be approved, denied or started from this tab. Runs that waited for you were kept, resumable. Start the console again; this tab reconnects on its own.'}
        </p>
      )}
      {state.problem && state.connection === 'open' && <p className="banner banner-failed">{state.problem}</p>}
      <main>
        {/* Without the service every button and field is off: a stale tab approves nothing. */}
        <fieldset className="service-gate" disabled={state.connection !== 'open'}>
          {route.name === 'runs' && <RunsScreen />}
          {route.name === 'run' && <RunScreen key={route.runId} runId={route.runId} />}
          {route.name === 'replay' && <ReplayScreen runId={route.runId} />}
          {route.name === 'settings' && <SettingsScreen />}
        </fieldset>
      </main>
    </div>
  );
}

function Tab({ route, current, label }: { route: Route; current: Route; label: string }) {
  const active = route.name === current.name;
  return (
    <a className={`tab${active ? ' tab-active' : ''}`} href={href(route)} aria-current={active ? 'page' : undefined}>
      {label}
    </a>
  );
}

function NotificationsButton() {
  const [permission, setPermission] = useState(notificationPermission);
  if (permission !== 'default') return null;
  return (
    <button type="button" className="btn btn-quiet topbar-button" onClick={() => void askForNotifications().then(setPermission)} title="Get a desktop notification when a run waits for you">
      Turn on notifications
    </button>
  );
}

function Connection() {
  const { connection } = useConsoleState();
  return <span className={`conn conn-${connection}`} title={`Console service: ${connection}`} aria-label={`Console service ${connection}`} />;
}
