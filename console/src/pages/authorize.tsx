// The consent page an MCP client's authorization sends the browser to (#/authorize?requestId=...), once signed in: who
// asks (the client's name as it registered, and where the answer goes), for which scopes; the user unticks what they
// do not grant, then approves or denies, and the browser goes back to the client.
import { useState } from 'preact/hooks';
import { api, unwrap } from '../api';
import { Loaded, type Rec, useAction, useLoad } from '../ui';
import { Time } from '../time';

export function AuthorizePage({ requestId }: { requestId: string }) {
  const request = useLoad((): Promise<Rec> => unwrap(api().GET('/api/sdk/v1/oauth/requests/{requestId}', { params: { path: { requestId } } })), [requestId]);
  const [unticked, setUnticked] = useState<Set<string>>(new Set());
  const { run, busy, status } = useAction();
  const decide = async (approve: boolean) => {
    const scopes = ((request.data?.scopes as string[] | undefined) ?? []).filter((scope) => !unticked.has(scope));
    const outcome = await run(approve ? 'Approving' : 'Denying', () =>
      unwrap(api().POST('/api/sdk/v1/oauth/consent', { body: { requestId, approve, ...(approve && { scopes }) } })),
    );
    if (outcome) location.assign(outcome.redirectTo);
  };
  return (
    <Loaded state={request} label="the authorization request">
      {(shown) => (
        <section aria-label="Authorization request">
          <p>
            <strong>{shown.clientName}</strong> asks to use your automations through the MCP endpoint as you.
          </p>
          <dl>
            <dt>Sends the answer to</dt>
            <dd>
              <code>{shown.redirectUri}</code>
            </dd>
            {shown.clientUri && (
              <>
                <dt>Client's site</dt>
                <dd>
                  <code>{shown.clientUri}</code>
                </dd>
              </>
            )}
            <dt>Asked</dt>
            <dd>
              <Time value={shown.createdAt} />
            </dd>
          </dl>
          {shown.status === 'pending' ? (
            <>
              <fieldset>
                <legend>Scopes asked</legend>
                {(shown.scopes as string[]).map((scope) => (
                  <label key={scope}>
                    <input
                      type="checkbox"
                      name="scope"
                      value={scope}
                      checked={!unticked.has(scope)}
                      onChange={(event) => {
                        const next = new Set(unticked);
                        if (event.currentTarget.checked) next.delete(scope);
                        else next.add(scope);
                        setUnticked(next);
                      }}
                    />{' '}
                    {scope}
                  </label>
                ))}
              </fieldset>
              <p>Only approve a client you started yourself. You can revoke it later among your API keys.</p>
              <button type="button" disabled={Boolean(busy)} onClick={() => void decide(true)}>
                Approve
              </button>{' '}
              <button type="button" disabled={Boolean(busy)} onClick={() => void decide(false)}>
                Deny
              </button>
              {status}
            </>
          ) : (
            <p role="status">This request is already {shown.status}; start again from the client.</p>
          )}
        </section>
      )}
    </Loaded>
  );
}
