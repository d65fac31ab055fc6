// Where `npm run user` makes its changes: the data folder's users file (standalone), the cluster's users in etcd
// (run with a peer's environment), or a running server's users API (`--url`). One interface, three ways.
import {
  CollectionGrant,
  FileUserStore,
  NewUser,
  PasswordHasher,
  PublicUser,
  Role,
  UserAdminService,
} from '@vectorstore/auth';
import { openClusterUsers } from '@vectorstore/cluster';
import { DomainError, ErrorKind } from '@vectorstore/common';
import type { AppConfig } from '@vectorstore/config';

export interface UserAdmin {
  add(user: NewUser): Promise<PublicUser>;
  setRole(email: string, role: Role): Promise<PublicUser>;
  setActive(email: string, isActive: boolean): Promise<PublicUser>;
  resetPassword(email: string, password: string): Promise<PublicUser>;
  grant(email: string, grant: CollectionGrant): Promise<PublicUser>;
  revoke(email: string, collection: string): Promise<PublicUser>;
  list(): Promise<PublicUser[]>;
  /** A line that says where the changes went. */
  readonly where: string;
  close(): Promise<void>;
}

/** The data folder's file, or, in cluster mode, the cluster's users (without joining the cluster). */
export async function localUserAdmin(config: Pick<AppConfig, 'dataDir' | 'cluster'>): Promise<UserAdmin> {
  if (config.cluster) {
    const { users, close } = await openClusterUsers(config.cluster);
    return withService(
      new UserAdminService(users, new PasswordHasher()),
      `cluster "${config.cluster.name}" (etcd)`,
      close,
    );
  }
  return withService(
    new UserAdminService(new FileUserStore(config.dataDir), new PasswordHasher()),
    `users file in ${config.dataDir}`,
    async () => undefined,
  );
}

function withService(service: UserAdminService, where: string, close: () => Promise<void>): UserAdmin {
  return {
    add: (user) => service.add(user),
    setRole: (email, role) => service.setRole(email, role),
    setActive: (email, isActive) => service.setActive(email, isActive),
    resetPassword: (email, password) => service.resetPassword(email, password),
    grant: (email, grant) => service.grant(email, grant),
    revoke: (email, collection) => service.revoke(email, collection),
    list: () => service.list(),
    where,
    close,
  };
}

/** A running server's users API (`/api/auth/users`), with a credential of manage access. */
export function remoteUserAdmin(url: string, credential: string): UserAdmin {
  const base = url.replace(/\/+$/, '');
  const call = async <T>(method: string, route: string, body?: unknown): Promise<T> => {
    const response = await fetch(`${base}/api/auth/users${route}`, {
      method,
      headers: { 'api-key': credential, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
      // A redirect would carry the credential (and a password) to wherever it points: refused instead.
      redirect: 'error',
      signal: AbortSignal.timeout(30_000),
    });
    const text = await response.text();
    const parsed = text ? (JSON.parse(text) as unknown) : undefined;
    if (!response.ok) {
      const message =
        (parsed as { status?: { error?: string } } | undefined)?.status?.error ?? `${response.status} ${text}`;
      throw new DomainError(kindOf(response.status), message);
    }
    return parsed as T;
  };
  const find = async (email: string): Promise<PublicUser> => {
    const normalized = email.trim().toLowerCase();
    const { users } = await call<{ users: PublicUser[] }>('GET', '');
    const user = users.find((candidate) => candidate.email === normalized);
    if (!user) throw DomainError.notFound(`User ${normalized} doesn't exist`);
    return user;
  };
  const change = async (email: string, body: Record<string, unknown>) =>
    call<PublicUser>('PATCH', `/${encodeURIComponent((await find(email)).id)}`, body);
  const changeGrants = async (email: string, next: (grants: CollectionGrant[]) => CollectionGrant[]) => {
    const user = await find(email);
    return call<PublicUser>('PATCH', `/${encodeURIComponent(user.id)}`, { collections: next(user.collections ?? []) });
  };
  return {
    add: (user) =>
      call<PublicUser>('POST', '', {
        email: user.email,
        password: user.password,
        role: user.role,
        ...(user.fullName ? { full_name: user.fullName } : {}),
      }),
    setRole: (email, role) => change(email, { role }),
    setActive: (email, isActive) => change(email, { is_active: isActive }),
    resetPassword: (email, password) => change(email, { password }),
    grant: (email, grant) =>
      changeGrants(email, (grants) => [...grants.filter((g) => g.collection !== grant.collection), grant]),
    revoke: (email, collection) => changeGrants(email, (grants) => grants.filter((g) => g.collection !== collection)),
    list: async () => (await call<{ users: PublicUser[] }>('GET', '')).users,
    where: `users API at ${base}`,
    close: async () => undefined,
  };
}

function kindOf(status: number): ErrorKind {
  if (status === 400 || status === 422) return ErrorKind.InvalidArgument;
  if (status === 401) return ErrorKind.Unauthenticated;
  if (status === 403) return ErrorKind.PermissionDenied;
  if (status === 404) return ErrorKind.NotFound;
  if (status === 409) return ErrorKind.AlreadyExists;
  if (status === 412) return ErrorKind.FailedPrecondition;
  return ErrorKind.Unavailable;
}
