/** The machine, rollouts, drift, plans and events pages. */
import { useEffect, useState } from 'preact/hooks';
import type { ActionResult, Capabilities, FragmentRef, MachineDetail, RolloutView } from '../../src/dashboard/view';
import type { LiveSnapshot } from './live';
import { act, readHeaders, type ActionName } from './actions';
import { WaveChart } from './chart-views';
import { HealthBadge, shortRevision, when } from './parts';

/** A button for an action: disabled without a token, its answer shown beside it. */
function ActionButton({
  name,
  label,
  body,
  tokenOk,
  available,
}: {
  name: ActionName;
  label: string;
  body: { stack?: string; rollout?: string };
  tokenOk: boolean;
  available: boolean;
}) {
  const [answer, setAnswer] = useState<ActionResult | undefined>();
  const [answers, setAnswers] = useState(0);
  const [busy, setBusy] = useState(false);
  if (!available) return null;
  return (
    <span class="action">
      <button
        type="button"
        data-action={name}
        aria-describedby={tokenOk ? undefined : 'token-note'}
        disabled={busy}
        onClick={async () => {
          setBusy(true);
          setAnswer(undefined);
          setAnswer(await act(name, body));
          setAnswers((n) => n + 1);
          setBusy(false);
        }}
      >
        {label}
      </button>
      {answer && (
        <span role="status" class={answer.ok ? 'ok' : 'error'} data-answer={name} data-answers={answers}>
          {answer.message}
        </span>
      )}
    </span>
  );
}

/** Where an entry comes from: the machine's own config, or the fragment named (its id in the tooltip). */
function FromFragment({ fragment }: { fragment: FragmentRef | undefined }) {
  if (!fragment) return <span class="sub">machine</span>;
  return (
    <span title={`fragment id ${fragment.id}`} data-fragment={fragment.id}>
      fragment {fragment.name ?? fragment.id}
    </span>
  );
}

export function MachinePage({ machineKey }: { machineKey: string }) {
  const [detail, setDetail] = useState<MachineDetail | undefined>();
  const [failure, setFailure] = useState<string | undefined>();
  useEffect(() => {
    let live = true;
    const load = async (): Promise<void> => {
      const res = await fetch(`api/machines/${encodeURIComponent(machineKey)}`, { headers: readHeaders() });
      const body = (await res.json()) as MachineDetail | ActionResult;
      if (!live) return;
      if (res.ok) setDetail(body as MachineDetail);
      else setFailure((body as ActionResult).message);
    };
    void load().catch((err: unknown) => setFailure(String(err)));
    const timer = setInterval(() => void load().catch(() => undefined), 5000);
    return () => {
      live = false;
      clearInterval(timer);
    };
  }, [machineKey]);
  if (failure) return <p class="error">{failure}</p>;
  if (!detail) return <p>Loading {machineKey}…</p>;
  const m = detail.machine;
  return (
    <section aria-labelledby="machine-title">
      <h1 id="machine-title">
        {m.machine} <HealthBadge health={m.health} />
      </h1>
      <dl class="facts">
        <dt>Stack</dt>
        <dd>{m.stack}</dd>
        <dt>Location</dt>
        <dd title={m.locationId ? `location id ${m.locationId}` : undefined} data-location>
          {m.location || '-'}
        </dd>
        <dt>Online</dt>
        <dd>{m.online}</dd>
        <dt>Config it runs</dt>
        <dd>
          {m.runningRevision === undefined
            ? '-'
            : `${shortRevision(m.runningRevision)}${m.runningRevision === m.latestRevision ? ' (latest)' : `, latest ${shortRevision(m.latestRevision)}`}`}
        </dd>
      </dl>
      {m.problems.length > 0 && (
        <ul class="problems">
          {m.problems.map((p) => (
            <li>{p}</li>
          ))}
        </ul>
      )}
      <h2>Modules</h2>
      <table>
        <thead>
          <tr>
            <th scope="col">Module</th>
            <th scope="col">Policy</th>
            <th scope="col">Runs</th>
            <th scope="col">Latest</th>
            <th scope="col">State</th>
            <th scope="col">From</th>
          </tr>
        </thead>
        <tbody data-modules-table>
          {m.modules.length === 0 && (
            <tr>
              <td colSpan={6}>No registry module.</td>
            </tr>
          )}
          {m.modules.map((x) => (
            <tr data-module={x.name}>
              <td>{x.moduleId}</td>
              <td>{x.policy}</td>
              <td>{x.running ?? '-'}</td>
              <td>{x.latest ?? '-'}</td>
              <td>{x.error ? `${x.state ?? ''}: ${x.error}` : (x.state ?? '-')}</td>
              <td>
                <FromFragment fragment={x.fragment} />
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      <h2>Fragments</h2>
      {detail.fragments.length === 0 ? (
        <p>None.</p>
      ) : (
        <ul>
          {detail.fragments.map((f) => (
            <li>
              {f.name ?? f.id} {f.version ? `at ${f.version}` : '(latest revision)'}
            </li>
          ))}
        </ul>
      )}
      <h2>Resources</h2>
      <table>
        <thead>
          <tr>
            <th scope="col">Name</th>
            <th scope="col">API</th>
            <th scope="col">State</th>
            <th scope="col">From</th>
          </tr>
        </thead>
        <tbody data-resources-table>
          {detail.resources.map((r) => (
            <tr data-resource={r.name}>
              <td>{r.name}</td>
              <td>{r.api}</td>
              <td>{r.error ? `${r.state}: ${r.error}` : r.state}</td>
              <td>
                <FromFragment fragment={r.fragment} />
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      <h2>Config (as applied, secrets hidden)</h2>
      <pre class="code" tabIndex={0}>
        {JSON.stringify(detail.config, null, 2)}
      </pre>
      <h2>Recent logs</h2>
      <pre class="code logs" tabIndex={0}>
        {detail.logs.map((l) => `${when(l.at)} ${l.level} ${l.logger}: ${l.message}`).join('\n') || 'No log lines.'}
      </pre>
      <h2>Part history</h2>
      {detail.history.length === 0 && <p>No edit yet.</p>}
      <ol class="history">
        {detail.history.map((h) => (
          <li>
            <p>
              {when(h.at)} by{' '}
              <span data-editor title={h.editorId ? `id ${h.editorId}` : undefined}>
                {h.editedBy || 'unknown'}
              </span>
            </p>
            <ul class="diff">
              {h.changes.map((c) => (
                <li>
                  <code>{c.path || '(whole config)'}</code>: <del>{c.before}</del> → <ins>{c.after}</ins>
                </li>
              ))}
            </ul>
          </li>
        ))}
      </ol>
    </section>
  );
}

function Rollout({ r, tokenOk, caps }: { r: RolloutView; tokenOk: boolean; caps: Capabilities }) {
  const target = { stack: r.stack, ...(r.fragment ? { rollout: r.name } : {}) };
  return (
    <article class={`rollout status-${r.status}`} aria-labelledby={`rollout-${r.key}`} data-rollout={r.key}>
      <h2 id={`rollout-${r.key}`}>
        {r.name} <span class="sub">stack {r.stack}</span>{' '}
        <span class={`badge s-${r.status}`} data-status>
          {r.status}
        </span>
      </h2>
      <p>
        Wave {r.wave} of {r.waves.length}; started {when(r.startedAt)}, last update {when(r.updatedAt)}
        {r.fragment ? `; fragment ${r.fragment.name} ${r.fragment.fromRevision ?? '?'} → ${r.fragment.toRevision ?? '?'}` : ''}
      </p>
      {r.reason && <p class="reason">{r.reason}</p>}
      <WaveChart rollout={r} />
      <ol class="timeline">
        {r.waves.map((w) => (
          <li class={`wave phase-${w.phase}`} data-wave={w.number} data-phase={w.phase}>
            <p class="wave-head">
              Wave {w.number}: {w.rule} <span class="sub">({w.phase})</span>
            </p>
            <ul class="machines">
              {w.machines.map((m) => (
                <li
                  class={`m-state${m.failed ? ' failed' : ''} st-${m.state.replace(' ', '-')}`}
                  data-machine={m.name}
                  data-state={m.state}
                  data-failed={String(m.failed)}
                >
                  <strong>{m.name}</strong>{' '}
                  {m.state === 'gone' ? 'no longer exists' : m.failed && m.state !== 'failed' ? `failed, ${m.state}` : m.state}
                  {m.failed && (
                    <div class="failure">
                      {m.why && <p>{m.why}</p>}
                      {(m.problems ?? []).map((p) => (
                        <p>
                          {p.what}: {p.error}
                        </p>
                      ))}
                      {m.log && (
                        <p class="log" data-log>
                          log: <code>{m.log}</code>
                        </p>
                      )}
                    </div>
                  )}
                </li>
              ))}
            </ul>
            {w.analysis && (
              <ul class="analysis" aria-label={`Wave ${w.number} analysis`}>
                {w.analysis.map((m) => (
                  <li class={`measurement r-${m.result}`} data-analysis={m.analysis} data-result={m.result}>
                    <strong>{m.analysis}</strong> {when(m.at)}: {m.result.toUpperCase()} {m.value}
                    {m.baseline !== undefined ? ` (baseline ${m.baseline})` : ''}
                    <span class="sub"> {m.why}</span>
                  </li>
                ))}
              </ul>
            )}
          </li>
        ))}
      </ol>
      <p class="actions">
        <ActionButton name="abort" label="Abort (roll back)" body={target} tokenOk={tokenOk} available={caps.abort && r.abortable} />
        <ActionButton name="resume" label="Resume" body={target} tokenOk={tokenOk} available={caps.resume && r.resumable} />
      </p>
    </article>
  );
}

/** The rollouts the code declares now; with `history`, the older ones it no longer declares. */
export function RolloutsPage({ s, tokenOk, history }: { s: LiveSnapshot; tokenOk: boolean; history: boolean }) {
  const shown = s.rollouts.filter((r) => r.current !== history);
  const others = s.rollouts.length - shown.length;
  return (
    <section aria-labelledby="rollouts-title">
      <h1 id="rollouts-title">{history ? 'Rollout history' : 'Rollouts'}</h1>
      <p class="sub-nav">
        {history ? (
          <a href="#/rollouts">Current rollouts ({others})</a>
        ) : (
          <a href="#/rollouts/history" data-history-link>
            History: rollouts the code no longer declares ({others})
          </a>
        )}
      </p>
      {shown.length === 0 && <p>{history ? 'No older rollout.' : 'No rollout of the current code has run.'}</p>}
      {shown.map((r) => (
        <Rollout key={r.key} r={r} tokenOk={tokenOk} caps={s.capabilities} />
      ))}
    </section>
  );
}

export function DriftPage({ s, tokenOk }: { s: LiveSnapshot; tokenOk: boolean }) {
  return (
    <section aria-labelledby="drift-title">
      <h1 id="drift-title">Drift</h1>
      <p>
        Changes made outside fleetform since the last apply, as the pending plan found them{s.plan ? ` (${when(s.plan.createdAt)})` : ''}.
        The next apply reverts them.
      </p>
      <p class="actions">
        <ActionButton name="heal" label="Heal now" body={{}} tokenOk={tokenOk} available={s.capabilities.heal && s.drift.length > 0} />
      </p>
      {s.drift.length === 0 ? (
        <p>{s.plan ? 'No drift.' : 'No plan has been made yet.'}</p>
      ) : (
        <table class="drift">
          <thead>
            <tr>
              <th scope="col">Object</th>
              <th scope="col">Path</th>
              <th scope="col">Before (applied)</th>
              <th scope="col">After (found)</th>
            </tr>
          </thead>
          <tbody>
            {s.drift.map((d) => (
              <tr>
                <td>
                  {d.address} <span class="sub">{d.stack}</span>
                </td>
                <td>
                  <code>{d.path || '-'}</code>
                </td>
                <td>
                  <code>{d.before}</code>
                </td>
                <td>
                  <code>{d.after}</code>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}

export function PlansPage({ s, tokenOk }: { s: LiveSnapshot; tokenOk: boolean }) {
  const [view, setView] = useState<'text' | 'markdown'>('text');
  const p = s.plan;
  return (
    <section aria-labelledby="plans-title">
      <h1 id="plans-title">Pending plan</h1>
      {s.planError && <p class="error">The plan could not be made: {s.planError}</p>}
      {!p ? (
        <p>No plan has been made yet.</p>
      ) : (
        <>
          <p data-plan-summary>
            Made {when(p.createdAt)} for {p.stacks.join(', ')}: {p.summary.add} to add, {p.summary.change} to change, {p.summary.destroy} to
            destroy; {p.summary.drifted} drifted.
          </p>
          {p.awaitingApproval && <p data-plan-waiting>Waiting for an approval: the reconciler applies it once a stack is approved.</p>}
          <p class="actions">
            {p.stacks.map((stack) => (
              <ActionButton
                name="approve"
                label={`Approve and apply ${stack}`}
                body={{ stack }}
                tokenOk={tokenOk}
                available={s.capabilities.approve && p.hasChanges}
              />
            ))}
          </p>
          <div role="group" aria-label="Plan format" class="tabs">
            <button type="button" aria-pressed={view === 'text'} onClick={() => setView('text')}>
              Text
            </button>
            <button type="button" aria-pressed={view === 'markdown'} onClick={() => setView('markdown')}>
              Markdown
            </button>
          </div>
          {view === 'text' ? (
            <pre class="code plan terminal" tabIndex={0} aria-label="The plan as text" data-plan="text">
              {p.lines.map((l) => (
                <span class={`pl-${l.tone}`} data-tone={l.tone}>
                  {l.text}
                  {'\n'}
                </span>
              ))}
            </pre>
          ) : (
            <pre class="code plan" tabIndex={0} aria-label="The plan as markdown" data-plan="markdown">
              {p.markdown}
            </pre>
          )}
        </>
      )}
    </section>
  );
}

export function EventsPage({ s }: { s: LiveSnapshot }) {
  // Newest first by when each happened (its source's time), then by arrival.
  const events = [...s.events].sort((a, b) => (a.at === b.at ? b.id - a.id : a.at < b.at ? 1 : -1));
  return (
    <section aria-labelledby="events-title">
      <h1 id="events-title">Cycles and events</h1>
      {s.cycles.length > 0 && (
        <>
          <h2>Reconcile cycles</h2>
          <table>
            <thead>
              <tr>
                <th scope="col">Started</th>
                <th scope="col">Finished</th>
                <th scope="col">Outcome</th>
                <th scope="col">Summary</th>
              </tr>
            </thead>
            <tbody>
              {[...s.cycles].reverse().map((c) => (
                <tr>
                  <td>{when(c.startedAt)}</td>
                  <td>{when(c.finishedAt ?? '')}</td>
                  <td>{c.outcome}</td>
                  <td>{c.summary}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </>
      )}
      {s.cycles.length === 0 && <p>No reconciler feeds this dashboard ({s.source}): no reconcile cycles.</p>}
      <h2>Events</h2>
      {events.length === 0 && <p>No event since the dashboard started.</p>}
      <ol class="events" aria-live="polite">
        {events.map((e) => (
          <li class={`ev-${e.level}`} data-kind={e.kind}>
            <time class="sub" dateTime={e.at} data-at>
              {when(e.at)}
            </time>{' '}
            <span class="kind">{e.kind}</span> {e.message}
          </li>
        ))}
      </ol>
    </section>
  );
}
