import { useEffect, useState } from 'preact/hooks';
import { onReachability, RETRY_MS } from './api/http';
import { grantsOf, onSession, sessionState, signOut, type SessionState } from './api/session';
import { ClusterPage } from './pages/cluster';
import { CollectionPage } from './pages/collection';
import { CollectionsPage } from './pages/collections';
import { ConsolePage } from './pages/console';
import { MapPage } from './pages/map';
import { PointPage } from './pages/point';
import { PointsPage } from './pages/points';
import { QualityPage } from './pages/quality';
import { QueryPage } from './pages/query';
import { SignInPage } from './pages/sign-in';
import { SnapshotsPage } from './pages/snapshots';
import { UsersPage } from './pages/users';
import { useRoute } from './router';

/** The dashboard: sign-in until there is a session, then the pages, with a banner while the server is down. */
export function App({ ready }: { ready: boolean }) {
  const [session, setSession] = useState<SessionState>(sessionState());
  const [reachable, setReachable] = useState(true);
  useEffect(() => onSession(setSession), []);
  useEffect(() => onReachability(setReachable), []);
  return (
    <>
      {reachable ? null : (
        <div class="banner" role="alert" data-testid="down-banner">
          The server is not answering. Retrying every {RETRY_MS / 1000} s…
        </div>
      )}
      {!ready ? null : session.kind === 'signed-out' ? (
        <SignInPage notice={session.notice} />
      ) : (
        <SignedIn session={session} />
      )}
    </>
  );
}

function SignedIn({ session }: { session: Exclude<SessionState, { kind: 'signed-out' }> }) {
  const route = useRoute();
  const who = session.kind === 'user' ? session.user.email : 'API key';
  const grants = grantsOf(session);
  return (
    <>
      <header class="top">
        <strong class="brand">vectorstore</strong>
        <nav>
          <a
            href="#/collections"
            aria-current={!['cluster', 'users', 'node-snapshots', 'console'].includes(route.page) ? 'page' : undefined}
          >
            Collections
          </a>
          <a
            href="#/snapshots"
            data-testid="nav-snapshots"
            aria-current={route.page === 'node-snapshots' ? 'page' : undefined}
          >
            Snapshots
          </a>
          <a href="#/console" data-testid="nav-console" aria-current={route.page === 'console' ? 'page' : undefined}>
            Console
          </a>
          <a href="#/cluster" aria-current={route.page === 'cluster' ? 'page' : undefined}>
            Cluster and health
          </a>
          {/* Managing users needs global manage access: admins, and an API key with manage access. */}
          {session.readOnly ? null : (
            <a href="#/users" data-testid="nav-users" aria-current={route.page === 'users' ? 'page' : undefined}>
              Users
            </a>
          )}
        </nav>
        <span class="who" data-testid="who">
          {who}
          {grants?.some((g) => g.access === 'rw') ? (
            // Writes where granted `rw`: not read-only, but limited to these collections.
            <span
              class="badge"
              data-testid="grants-badge"
              title={grants.map((g) => `${g.collection} ${g.access}`).join(', ')}
            >
              {grants.length === 1 ? '1 collection' : `${grants.length} collections`}
            </span>
          ) : session.readOnly ? (
            <span class="badge" data-testid="read-only-badge">
              read-only
            </span>
          ) : null}
        </span>
        <SignOutButton />
      </header>
      <main>
        {route.page === 'collections' ? <CollectionsPage readOnly={session.readOnly} /> : null}
        {route.page === 'collection' ? (
          <CollectionPage key={route.name} name={route.name} readOnly={session.readOnly} />
        ) : null}
        {route.page === 'points' ? <PointsPage key={route.name} name={route.name} /> : null}
        {route.page === 'query' ? (
          <QueryPage
            key={`${route.name}?${route.params.toString()}`}
            name={route.name}
            similar={route.params.get('similar') ?? undefined}
          />
        ) : null}
        {route.page === 'map' ? <MapPage key={route.name} name={route.name} /> : null}
        {route.page === 'quality' ? <QualityPage key={route.name} name={route.name} /> : null}
        {route.page === 'point' ? (
          <PointPage key={`${route.name}/${route.id}`} name={route.name} id={route.id} />
        ) : null}
        {route.page === 'node-snapshots' ? <SnapshotsPage key="node" /> : null}
        {route.page === 'snapshots' ? <SnapshotsPage key={route.name} collection={route.name} /> : null}
        {route.page === 'console' ? <ConsolePage /> : null}
        {route.page === 'cluster' ? <ClusterPage /> : null}
        {route.page === 'users' ? (
          session.readOnly ? (
            <p class="notice" data-testid="users-admins-only">
              Users are managed by administrators: this needs manage access.
            </p>
          ) : (
            <UsersPage currentUserId={session.kind === 'user' ? session.user.id : undefined} />
          )
        ) : null}
      </main>
    </>
  );
}

/**
 * Sign out. Until the server has ended the session a reload would bring it back, so a failure is said, with the
 * session kept and the button offering to try again.
 */
function SignOutButton() {
  const [failure, setFailure] = useState<string | undefined>();
  const [busy, setBusy] = useState(false);
  const run = (): void => {
    setBusy(true);
    signOut().then(
      () => setFailure(undefined),
      (error: unknown) => {
        setBusy(false);
        setFailure(error instanceof Error ? error.message : String(error));
      },
    );
  };
  return (
    <>
      {failure === undefined ? null : (
        <span class="error" role="alert" data-testid="sign-out-error">
          Sign-out did not complete, you are still signed in: {failure}
        </span>
      )}
      <button data-testid="sign-out" disabled={busy} onClick={run}>
        {failure === undefined ? 'Sign out' : 'Try signing out again'}
      </button>
    </>
  );
}
