/** The models page: each promoted model's versions, why each was promoted or rejected, and who runs which. */
import { useEffect, useState } from 'preact/hooks';
import type { ActionResult, ModelView } from '../../src/dashboard/view';
import { readHeaders } from './actions';

type Verdict = ModelView['versions'][number];

function Evidence({ verdict }: { verdict: Verdict }) {
  if (verdict.evidence.length === 0) return <span>-</span>;
  return (
    <ul class="evidence">
      {verdict.evidence.map((e) => (
        <li data-analysis={e.analysis}>
          wave {e.wave} {e.analysis}: {e.result} {e.value === undefined ? '' : e.value.toFixed(3)}
          {e.baseline === undefined ? '' : ` against ${e.baseline.toFixed(3)}`}
        </li>
      ))}
    </ul>
  );
}

function ModelSection({ m }: { m: ModelView }) {
  return (
    <section aria-label={`model ${m.model}`} data-model={m.model}>
      <h2>
        {m.model}{' '}
        <small>
          (stack {m.stack}, promotion {m.promotion})
        </small>
      </h2>
      <table>
        <thead>
          <tr>
            <th>Version</th>
            <th>Verdict</th>
            <th>When</th>
            <th>Machines on it</th>
            <th>Why</th>
            <th>Evidence</th>
          </tr>
        </thead>
        <tbody>
          {m.versions.map((v) => (
            <tr data-version={v.version} data-status={v.status}>
              <td>{v.version}</td>
              <td class={v.status === 'rejected' ? 'error' : undefined}>{v.status}</td>
              <td>{v.at}</td>
              <td>
                {m.machines
                  .filter((x) => x.version === v.version)
                  .map((x) => x.machine)
                  .join(', ') || '-'}
              </td>
              <td>{v.why}</td>
              <td>
                <Evidence verdict={v} />
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      {m.failedTraining.map((f) => (
        <div class="error" data-failed-job={f.jobId}>
          <p>
            Training job {f.address} ({f.model}) failed{f.error ? `: ${f.error}` : ''}. Its last lines:
          </p>
          <pre>{f.log.join('\n')}</pre>
        </div>
      ))}
    </section>
  );
}

export function ModelsPage() {
  const [models, setModels] = useState<readonly ModelView[] | undefined>();
  const [failure, setFailure] = useState<string | undefined>();
  useEffect(() => {
    let live = true;
    const load = async (): Promise<void> => {
      const res = await fetch('api/models', { headers: readHeaders() });
      const body = (await res.json()) as { models: ModelView[] } | ActionResult;
      if (!live) return;
      if (res.ok) setModels((body as { models: ModelView[] }).models);
      else setFailure((body as ActionResult).message);
    };
    void load().catch((err: unknown) => setFailure(String(err)));
    const timer = setInterval(() => void load().catch(() => undefined), 5000);
    return () => {
      live = false;
      clearInterval(timer);
    };
  }, []);
  if (failure) return <p class="error">{failure}</p>;
  if (!models) return <p>Loading the models…</p>;
  if (models.length === 0) return <p>No model is promoted by evidence yet (declare a ModelPromotion).</p>;
  return (
    <section aria-labelledby="models-title">
      <h1 id="models-title">Models</h1>
      {models.map((m) => (
        <ModelSection m={m} />
      ))}
    </section>
  );
}
