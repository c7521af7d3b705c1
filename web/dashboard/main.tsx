/** The dashboard page: a header with the pages and the token, and the page the address names. */
import { render } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { checkToken, saveToken, savedToken } from './actions';
import { FleetPage } from './fleet';
import { followLive, type LiveState } from './live';
import { DriftPage, EventsPage, MachinePage, PlansPage, RolloutsPage } from './pages';
import { ModelsPage } from './models';

const PAGES = [
  ['fleet', 'Fleet'],
  ['rollouts', 'Rollouts'],
  ['drift', 'Drift'],
  ['plans', 'Plans'],
  ['models', 'Models'],
  ['events', 'Events'],
] as const;

function currentRoute(): string {
  return location.hash.replace(/^#\/?/, '') || 'fleet';
}

function TokenForm({ onChange }: { onChange: (ok: boolean) => void }) {
  const [value, setValue] = useState(savedToken());
  const [note, setNote] = useState('Read-only: enter the token to act.');
  const check = async (): Promise<void> => {
    if (savedToken() === '') {
      setNote('Read-only: enter the token to act.');
      onChange(false);
      return;
    }
    const answer = await checkToken();
    setNote(answer.ok ? 'Actions allowed.' : `Read-only: ${answer.message}.`);
    onChange(answer.ok);
  };
  useEffect(() => void check(), []);
  return (
    <form
      class="token"
      onSubmit={(e) => {
        e.preventDefault();
        saveToken(value.trim());
        void check();
      }}
    >
      <label>
        Token
        <input type="password" autocomplete="off" value={value} onInput={(e) => setValue((e.target as HTMLInputElement).value)} />
      </label>
      <button type="submit">Use</button>
      <span id="token-note" role="status" data-token-note>
        {note}
      </span>
    </form>
  );
}

function App() {
  const [live, setLive] = useState<LiveState>({ machines: [], connected: false, version: 0 });
  const [route, setRoute] = useState(currentRoute());
  const [tokenOk, setTokenOk] = useState(false);
  useEffect(() => followLive(setLive), []);
  useEffect(() => {
    const on = (): void => setRoute(currentRoute());
    window.addEventListener('hashchange', on);
    return () => window.removeEventListener('hashchange', on);
  }, []);
  const s = live.snapshot;
  const page = route.split('/')[0] ?? 'fleet';
  let body;
  if (!s) body = <p>{live.failure ?? 'Connecting…'}</p>;
  else if (page === 'machine') body = <MachinePage machineKey={decodeURIComponent(route.slice('machine/'.length))} />;
  else if (page === 'rollouts') body = <RolloutsPage s={s} tokenOk={tokenOk} history={route === 'rollouts/history'} />;
  else if (page === 'drift') body = <DriftPage s={s} tokenOk={tokenOk} />;
  else if (page === 'plans') body = <PlansPage s={s} tokenOk={tokenOk} />;
  else if (page === 'events') body = <EventsPage s={s} />;
  else if (page === 'models') body = <ModelsPage />;
  else body = <FleetPage machines={live.machines} health={s.health ?? []} />;
  return (
    <>
      <a class="skip" href="#main">
        Skip to content
      </a>
      <header>
        <p class="brand">fleetform</p>
        <nav aria-label="Pages">
          <ul>
            {PAGES.map(([id, label]) => (
              <li>
                <a href={`#/${id}`} aria-current={page === id ? 'page' : undefined}>
                  {label}
                </a>
              </li>
            ))}
          </ul>
        </nav>
        <p class={`conn ${live.connected ? 'on' : 'off'}`} role="status" data-connection={live.connected ? 'live' : 'offline'}>
          {live.connected ? 'Live' : 'Reconnecting…'}
          {s ? ` · read ${s.generatedAt.slice(11, 19)}Z` : ''}
        </p>
        <TokenForm onChange={setTokenOk} />
      </header>
      {s?.readError && (
        <p class="error banner" role="alert">
          The fleet could not be read: {s.readError}
        </p>
      )}
      <main id="main" tabIndex={-1}>
        {body}
      </main>
    </>
  );
}

const root = document.getElementById('app');
if (root) {
  root.textContent = '';
  render(<App />, root);
}
