/**
 * Webhooks (§16): the project's webhooks, registering one (its secret shown once), deleting one,
 * and each webhook's last deliveries with their status, a failed or pending one retried by hand.
 * Owners and editors register, delete and retry; viewers read.
 */
import { useState } from 'preact/hooks';
import { api, encodePath, query } from '../api.js';
import { ErrorAlert, ReadOnly, ShownOnce, useAction, useLoad, useProject } from '../ui.js';

interface Webhook {
  id: number;
  url: string;
  events: string[];
  description: string | null;
  created_at: string;
}
type DeliveryStatus = 'delivered' | 'pending' | 'failed';
interface Delivery {
  event_id: string;
  type: string;
  status: DeliveryStatus;
  attempts: number;
  last_status_code: number | null;
  last_error: string | null;
  next_attempt_at: string | null;
}

function Deliveries({ webhook, manage }: { webhook: Webhook; manage: boolean }) {
  const { admin } = useProject();
  const [status, setStatus] = useState('');
  const url = `${admin}/webhooks/${webhook.id}/deliveries`;
  const list = useLoad(
    () => api<{ deliveries: Delivery[] }>('GET', `${url}${query({ status: status || undefined })}`),
    [url, status],
  );
  const retry = useAction();
  return (
    <section aria-label={`Deliveries of webhook ${webhook.id}`}>
      <h3>Deliveries of {webhook.url}</h3>
      <label>
        Status
        <select aria-label="Delivery status" value={status} onChange={(e) => setStatus(e.currentTarget.value)}>
          <option value="">all</option>
          <option value="delivered">delivered</option>
          <option value="pending">pending</option>
          <option value="failed">failed</option>
        </select>
      </label>{' '}
      <button type="button" onClick={() => list.reload()}>
        Refresh
      </button>
      <ErrorAlert error={list.error} />
      {list.data && list.data.deliveries.length === 0 ? <p class="note">No deliveries yet.</p> : null}
      <table aria-label="Delivery list">
        <thead>
          <tr>
            <th scope="col">Event</th>
            <th scope="col">Type</th>
            <th scope="col">Status</th>
            <th scope="col">Attempts</th>
            <th scope="col">Last answer</th>
            <th scope="col">Next attempt</th>
            <th scope="col">Actions</th>
          </tr>
        </thead>
        <tbody>
          {(list.data?.deliveries ?? []).map((delivery) => (
            <tr key={delivery.event_id}>
              <td>
                <code>{delivery.event_id}</code>
              </td>
              <td>{delivery.type}</td>
              <td>{delivery.status}</td>
              <td>{delivery.attempts}</td>
              <td>{delivery.last_status_code ?? delivery.last_error ?? '—'}</td>
              <td>{delivery.next_attempt_at ?? '—'}</td>
              <td>
                {manage && delivery.status !== 'delivered' ? (
                  <button
                    type="button"
                    aria-label={`Retry ${delivery.event_id}`}
                    onClick={() =>
                      retry.run(async () => {
                        await api('POST', `${url}/${encodePath(delivery.event_id)}/retry`, {});
                        list.reload();
                      })
                    }
                  >
                    Retry
                  </button>
                ) : null}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      <ErrorAlert error={retry.error} />
    </section>
  );
}

function NewWebhook({ onCreated }: { onCreated(secret: string): void }) {
  const { admin } = useProject();
  const create = useAction();
  return (
    <>
      <form
        class="inline"
        aria-label="New webhook"
        onSubmit={(e) => {
          e.preventDefault();
          const form = new FormData(e.currentTarget as HTMLFormElement);
          const events = String(form.get('events') ?? '')
            .split(',')
            .map((event) => event.trim())
            .filter((event) => event !== '');
          const description = String(form.get('description') ?? '').trim();
          void create.run(async () => {
            const made = await api<{ secret: string }>('POST', `${admin}/webhooks`, {
              url: form.get('url'),
              events,
              ...(description ? { description } : {}),
            });
            onCreated(made.secret);
          });
        }}
      >
        <label>
          URL
          <input name="url" type="url" required placeholder="https://hooks.example.com/cds" />
        </label>
        <label>
          Events
          <input name="events" required placeholder="document.written, leaderboards.*" />
        </label>
        <label>
          Description
          <input name="description" />
        </label>
        <button type="submit">Create webhook</button>
      </form>
      <ErrorAlert error={create.error} />
    </>
  );
}

export function WebhooksArea() {
  const { admin, role } = useProject();
  const hooks = useLoad(() => api<{ webhooks: Webhook[] }>('GET', `${admin}/webhooks`), [admin]);
  const [secret, setSecret] = useState<string | null>(null);
  const [shown, setShown] = useState<number | null>(null);
  const remove = useAction();
  // `webhook.manage` is outside the role table: owners and editors hold it.
  const manage = role === 'owner' || role === 'editor';
  const webhooks = hooks.data?.webhooks ?? [];
  const selected = webhooks.find((webhook) => webhook.id === shown);
  return (
    <>
      <h2>Webhooks</h2>
      <ErrorAlert error={hooks.error} />
      {hooks.data && webhooks.length === 0 ? <p class="note">No webhooks yet.</p> : null}
      <table aria-label="Webhook list">
        <thead>
          <tr>
            <th scope="col">Id</th>
            <th scope="col">URL</th>
            <th scope="col">Events</th>
            <th scope="col">Description</th>
            <th scope="col">Created</th>
            <th scope="col">Actions</th>
          </tr>
        </thead>
        <tbody>
          {webhooks.map((webhook) => (
            <tr key={webhook.id}>
              <td>{webhook.id}</td>
              <td>
                <code>{webhook.url}</code>
              </td>
              <td>{webhook.events.join(', ')}</td>
              <td>{webhook.description ?? '—'}</td>
              <td>{webhook.created_at}</td>
              <td>
                <button type="button" aria-label={`Deliveries of ${webhook.id}`} onClick={() => setShown(webhook.id)}>
                  Deliveries
                </button>{' '}
                {manage ? (
                  <button
                    type="button"
                    class="danger"
                    aria-label={`Delete webhook ${webhook.id}`}
                    onClick={() =>
                      remove.run(async () => {
                        await api('DELETE', `${admin}/webhooks/${webhook.id}`);
                        if (shown === webhook.id) setShown(null);
                        hooks.reload();
                      })
                    }
                  >
                    Delete
                  </button>
                ) : null}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      <ErrorAlert error={remove.error} />
      {manage ? (
        <NewWebhook
          onCreated={(made) => {
            setSecret(made);
            hooks.reload();
          }}
        />
      ) : (
        <ReadOnly what="webhooks" />
      )}
      {secret ? <ShownOnce label="Signing secret" value={secret} keep="store it with your receiver" /> : null}
      {selected ? <Deliveries key={selected.id} webhook={selected} manage={manage} /> : null}
    </>
  );
}
