import { useState } from 'preact/hooks';
import { ApiError } from '../api/http';
import { recheckUser } from '../api/session';
import {
  type Access,
  type Account,
  type AccountChanges,
  type CollectionGrant,
  type Role,
  createAccount,
  listAccounts,
  listCollectionNames,
  updateAccount,
} from '../api/users';
import { accessSummary, accountFieldOf, grantable, shortTime } from '../ui/accounts';
import { messageOf, useLoad } from '../ui/hooks';
import { ConfirmButton, ErrorText, Field } from '../ui/widgets';

const ROLES: readonly Role[] = ['reader', 'admin'];
const ACCESS: readonly { value: Access; label: string }[] = [
  { value: 'r', label: 'read (r)' },
  { value: 'rw', label: 'read and write (rw)' },
];

/** A message the server gave about the input (400 validation, 409 taken, 422): shown next to its field. */
const aboutInput = (error: unknown): boolean =>
  error instanceof ApiError && (error.status === 400 || error.status === 409 || error.status === 422);

/**
 * The users of this server (administrators only): list, create, change role, activate or deactivate, reset a
 * password, and edit a reader's collection grants. Every rule (email syntax, password length, grants only for
 * readers, the last active admin) is the server's; its answer is shown as it came.
 */
export function UsersPage({ currentUserId }: { currentUserId?: string }) {
  const accounts = useLoad(listAccounts, 'users');
  const collections = useLoad(listCollectionNames, 'users:collections');
  const names = collections.data ?? [];
  return (
    <section>
      <h2>Users</h2>
      <ErrorText message={accounts.error} testId="users-error" />
      <table data-testid="users-table">
        <thead>
          <tr>
            <th>Email</th>
            <th>Name</th>
            <th>Role</th>
            <th>Collections</th>
            <th>Active</th>
            <th>Created</th>
            <th />
          </tr>
        </thead>
        <tbody>
          {(accounts.data ?? []).map((account) => (
            <AccountRows
              key={account.id}
              account={account}
              self={account.id === currentUserId}
              collections={names}
              onChange={accounts.reload}
            />
          ))}
        </tbody>
      </table>
      {accounts.data?.length === 0 ? <p class="muted">No users.</p> : null}
      <ErrorText
        message={collections.error && `The collections to grant could not be listed: ${collections.error}`}
        testId="users-collections-error"
      />
      <CreateAccountForm collections={names} onCreated={accounts.reload} />
    </section>
  );
}

/** The grants of a reader limited to named collections, or what a user without grants may reach. */
function AccessCell({ account }: { account: Account }) {
  const summary = accessSummary(account);
  if (summary !== undefined) return <span class="muted">{summary}</span>;
  return (
    <ul class="grants" data-testid="user-grants">
      {(account.collections ?? []).map((grant) => (
        <li key={grant.collection}>
          <code>{grant.collection}</code> <span class="access">{grant.access}</span>
        </li>
      ))}
    </ul>
  );
}

/** One user: its row, and below it the open editor (password or grants) and what the last change came to. */
function AccountRows(props: { account: Account; self: boolean; collections: string[]; onChange: () => void }) {
  const { account } = props;
  const [panel, setPanel] = useState<'password' | 'grants' | undefined>();
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string>();
  const [notice, setNotice] = useState<string>();
  /** Bumped after each change, so that an armed "Really deactivate" is disarmed whatever the answer was. */
  const [changes, setChanges] = useState(0);
  const [password, setPassword] = useState('');
  const [draft, setDraft] = useState<CollectionGrant[]>([]);
  const field = error === undefined ? undefined : accountFieldOf(error);
  const shownInPanel =
    (panel === 'password' && field === 'password') || (panel === 'grants' && field === 'collections');

  /** One PATCH; true when the server took it. Changing one's own account re-reads the session (role, or signed out). */
  const change = async (changes: AccountChanges, done: string): Promise<boolean> => {
    setBusy(true);
    setError(undefined);
    setNotice(undefined);
    try {
      await updateAccount(account.id, changes);
      setNotice(done);
      props.onChange();
      if (props.self) void recheckUser().catch(() => undefined);
      return true;
    } catch (failure) {
      setError(messageOf(failure));
      return false;
    } finally {
      setBusy(false);
      setChanges((n) => n + 1);
    }
  };

  const open = (next: 'password' | 'grants'): void => {
    setError(undefined);
    setNotice(undefined);
    setPassword('');
    setDraft(account.collections ?? []);
    setPanel(panel === next ? undefined : next);
  };

  const changeRole = (role: Role): void => {
    const dropped = role === 'admin' && (account.collections?.length ?? 0) > 0;
    void change(
      { role },
      `${account.email} is now ${role === 'admin' ? 'an admin' : 'a reader'}${dropped ? '; its collection grants were dropped' : ''}.`,
    );
  };

  const resetPassword = async (event: Event): Promise<void> => {
    event.preventDefault();
    if (await change({ password }, `New password set for ${account.email}; its sessions have ended.`)) {
      setPassword('');
      setPanel(undefined);
    }
  };

  const saveGrants = async (): Promise<void> => {
    const done =
      draft.length === 0
        ? `${account.email} has no collection grants: it can read every collection.`
        : `Collection grants of ${account.email} saved.`;
    if (await change({ collections: draft }, done)) setPanel(undefined);
  };

  return (
    <>
      <tr data-testid={`user-row-${account.email}`} class={account.is_active ? undefined : 'inactive'}>
        <td>
          {account.email}
          {props.self ? <span class="badge">you</span> : null}
        </td>
        <td>{account.full_name ?? <span class="muted">—</span>}</td>
        <td>
          <select
            name="role"
            aria-label={`Role of ${account.email}`}
            value={account.role}
            disabled={busy}
            onChange={(e) => changeRole(e.currentTarget.value as Role)}
          >
            {ROLES.map((role) => (
              <option key={role} value={role}>
                {role}
              </option>
            ))}
          </select>
        </td>
        <td>
          <AccessCell account={account} />
        </td>
        <td data-testid="user-active">{account.is_active ? 'active' : 'inactive'}</td>
        <td class="muted">{shortTime(account.created_at)}</td>
        <td>
          <div class="actions">
            {account.is_active ? (
              <ConfirmButton
                key={changes}
                label="Deactivate"
                testId="deactivate"
                onConfirm={() =>
                  void change({ is_active: false }, `${account.email} is deactivated; its sessions have ended.`)
                }
              />
            ) : (
              <button
                data-testid="activate"
                disabled={busy}
                onClick={() => void change({ is_active: true }, `${account.email} is active again.`)}
              >
                Activate
              </button>
            )}
            <button data-testid="reset-password" aria-expanded={panel === 'password'} onClick={() => open('password')}>
              Reset password
            </button>
            {account.role === 'reader' ? (
              <button data-testid="edit-grants" aria-expanded={panel === 'grants'} onClick={() => open('grants')}>
                Edit grants
              </button>
            ) : null}
          </div>
        </td>
      </tr>
      {panel !== undefined || error !== undefined || notice !== undefined ? (
        <tr class="user-panel" data-testid={`user-panel-${account.email}`}>
          <td colSpan={7}>
            {panel === 'password' ? (
              <form class="row" data-testid="reset-password-form" noValidate onSubmit={(e) => void resetPassword(e)}>
                <Field
                  label={`New password for ${account.email} (it ends the user's sessions)`}
                  name="reset-password"
                  error={shownInPanel ? error : undefined}
                >
                  <input
                    name="new-password"
                    type="password"
                    autocomplete="new-password"
                    value={password}
                    onInput={(e) => setPassword(e.currentTarget.value)}
                  />
                </Field>
                <button type="submit" class="primary" disabled={busy}>
                  Set password
                </button>
                <button type="button" onClick={() => setPanel(undefined)}>
                  Cancel
                </button>
              </form>
            ) : null}
            {panel === 'grants' ? (
              <div data-testid="grants-panel">
                <GrantsEditor
                  name="edit-grants"
                  grants={draft}
                  collections={props.collections}
                  onChange={setDraft}
                  error={shownInPanel ? error : undefined}
                />
                <div class="row">
                  <button
                    type="button"
                    class="primary"
                    data-testid="save-grants"
                    disabled={busy}
                    onClick={() => void saveGrants()}
                  >
                    Save grants
                  </button>
                  <button type="button" onClick={() => setPanel(undefined)}>
                    Cancel
                  </button>
                </div>
              </div>
            ) : null}
            {shownInPanel ? null : <ErrorText message={error} testId="user-error" />}
            {notice === undefined ? null : (
              <p class="notice" role="status" data-testid="user-notice">
                {notice}
              </p>
            )}
          </td>
        </tr>
      ) : null}
    </>
  );
}

/**
 * A reader's collection grants: each with its access (r or rw) and a remove button, and a collection to add, chosen
 * from those the server lists. Nothing is sent until the form it sits in is saved.
 */
function GrantsEditor(props: {
  name: string;
  grants: CollectionGrant[];
  collections: string[];
  onChange: (grants: CollectionGrant[]) => void;
  error?: string;
}) {
  const { grants, onChange } = props;
  const [pick, setPick] = useState('');
  const [access, setAccess] = useState<Access>('r');
  const choices = grantable(props.collections, grants);
  const chosen = choices.includes(pick) ? pick : (choices[0] ?? '');
  const setAccessOf = (index: number, value: Access): void =>
    onChange(grants.map((grant, i) => (i === index ? { ...grant, access: value } : grant)));

  return (
    <div class="grants-editor" data-testid="grants-editor">
      {grants.length === 0 ? (
        <p class="muted">No grants: the reader can read every collection. With grants, it reaches only those.</p>
      ) : (
        <ul class="grants">
          {grants.map((grant, index) => (
            <li key={grant.collection} data-testid={`grant-${grant.collection}`}>
              <code>{grant.collection}</code>
              <select
                name="grant-access"
                aria-label={`Access to ${grant.collection}`}
                value={grant.access}
                onChange={(e) => setAccessOf(index, e.currentTarget.value as Access)}
              >
                {ACCESS.map((a) => (
                  <option key={a.value} value={a.value}>
                    {a.label}
                  </option>
                ))}
              </select>
              <button
                type="button"
                data-testid={`grant-remove-${grant.collection}`}
                onClick={() => onChange(grants.filter((_, i) => i !== index))}
              >
                Remove
              </button>
            </li>
          ))}
        </ul>
      )}
      <div class="row">
        <Field label="Collection" name={`${props.name}-collection`} error={props.error}>
          <select
            name="grant-collection"
            value={chosen}
            disabled={choices.length === 0}
            onChange={(e) => setPick(e.currentTarget.value)}
          >
            {choices.map((name) => (
              <option key={name} value={name}>
                {name}
              </option>
            ))}
          </select>
        </Field>
        <Field label="Access" name={`${props.name}-access`}>
          <select name="grant-new-access" value={access} onChange={(e) => setAccess(e.currentTarget.value as Access)}>
            {ACCESS.map((a) => (
              <option key={a.value} value={a.value}>
                {a.label}
              </option>
            ))}
          </select>
        </Field>
        <button
          type="button"
          data-testid="grant-add"
          disabled={chosen === ''}
          onClick={() => onChange([...grants, { collection: chosen, access }])}
        >
          Add grant
        </button>
      </div>
      {choices.length === 0 ? (
        <p class="muted">
          {props.collections.length === 0 ? 'No collections to grant yet.' : 'Every collection is granted.'}
        </p>
      ) : null}
    </div>
  );
}

/** A new user: email, name, password, role, and for a reader optional collection grants. */
function CreateAccountForm({ collections, onCreated }: { collections: string[]; onCreated: () => void }) {
  const [email, setEmail] = useState('');
  const [fullName, setFullName] = useState('');
  const [password, setPassword] = useState('');
  const [role, setRole] = useState<Role>('reader');
  const [grants, setGrants] = useState<CollectionGrant[]>([]);
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [created, setCreated] = useState<string>();
  const [busy, setBusy] = useState(false);

  const submit = async (event: Event): Promise<void> => {
    event.preventDefault();
    setErrors({});
    setCreated(undefined);
    setBusy(true);
    try {
      const account = await createAccount({
        email: email.trim(),
        password,
        role,
        full_name: fullName.trim() === '' ? null : fullName.trim(),
        ...(role === 'reader' && grants.length > 0 ? { collections: grants } : {}),
      });
      setEmail('');
      setFullName('');
      setPassword('');
      setRole('reader');
      setGrants([]);
      setCreated(`Created ${account.email}.`);
      onCreated();
    } catch (error) {
      const message = messageOf(error);
      setErrors({ [(aboutInput(error) && accountFieldOf(message)) || 'form']: message });
    } finally {
      setBusy(false);
    }
  };

  return (
    <form class="card" data-testid="create-user-form" noValidate onSubmit={(event) => void submit(event)}>
      <h3>New user</h3>
      <div class="row">
        <Field label="Email" name="new-email" error={errors.email}>
          <input
            name="email"
            type="email"
            autocomplete="off"
            value={email}
            onInput={(e) => setEmail(e.currentTarget.value)}
          />
        </Field>
        <Field label="Name (optional)" name="new-full-name" error={errors.full_name}>
          <input
            name="full_name"
            autocomplete="off"
            value={fullName}
            onInput={(e) => setFullName(e.currentTarget.value)}
          />
        </Field>
        <Field label="Password (12 characters or more)" name="new-password" error={errors.password}>
          <input
            name="password"
            type="password"
            autocomplete="new-password"
            value={password}
            onInput={(e) => setPassword(e.currentTarget.value)}
          />
        </Field>
        <Field label="Role" name="new-role" error={errors.role}>
          <select name="role" value={role} onChange={(e) => setRole(e.currentTarget.value as Role)}>
            {ROLES.map((r) => (
              <option key={r} value={r}>
                {r}
              </option>
            ))}
          </select>
        </Field>
      </div>
      {role === 'reader' ? (
        <>
          <h4>Collection grants (optional)</h4>
          <GrantsEditor
            name="new"
            grants={grants}
            collections={collections}
            onChange={setGrants}
            error={errors.collections}
          />
        </>
      ) : (
        <p class="muted">An admin has manage access to every collection and to the users.</p>
      )}
      <ErrorText message={errors.form} testId="create-user-error" />
      {created === undefined ? null : (
        <p class="notice" role="status" data-testid="create-user-notice">
          {created}
        </p>
      )}
      <button type="submit" class="primary" disabled={busy}>
        Create user
      </button>
    </form>
  );
}
