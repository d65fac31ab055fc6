import { isRole, PublicUser, Role } from '@vectorstore/auth';
import { parseArgs } from 'node:util';
import { readPassword } from './password-input';
import type { UserAdmin } from './user-admin.clients';

export const USAGE = `Manage vectorstore users: in the data folder (VECTORSTORE_DATA_DIR, default ./storage); in the
cluster's etcd when run with a peer's environment (VECTORSTORE_CLUSTER_ENABLED=true, VECTORSTORE_ETCD_ENDPOINTS, …);
or through a running server's users API with --url (credential of an admin: VECTORSTORE_API_KEY, or --api-key).

Usage: npm run user -- [--url <http://host:6333> [--api-key <key>]] <command> [arguments]

  add <email> [password] [--role admin|reader] [--name "Full Name"]   role defaults to reader
  set-role <email> <admin|reader>
  deactivate <email>            also ends the user's sessions
  activate <email>
  reset-password <email> [password]   also ends the user's sessions
  grant <email> <collection> <r|rw>   read or read-write on one collection only (readers)
  revoke <email> <collection>         takes a collection off; with none left, the role's access again
  list [--json]

Without a password argument the password is read from stdin (first line) or asked for on a
terminal; prefer that, since arguments are visible to other local users.
A running server picks up every change on its next request (in a cluster, every peer within a second); no
restart is needed.`;

export class UsageError extends Error {}

/** Where the changes go: `--url` (and its credential) when given, else the local users (file or cluster). */
export type OpenUserAdmin = (remote: { url: string; apiKey?: string } | undefined) => Promise<UserAdmin>;

/** Runs one CLI command; returns what to print. */
export async function runUserCommand(argv: readonly string[], open: OpenUserAdmin): Promise<string> {
  const { values, positionals } = parseArgs({
    args: [...argv],
    allowPositionals: true,
    strict: true,
    options: {
      role: { type: 'string' },
      name: { type: 'string' },
      json: { type: 'boolean' },
      url: { type: 'string' },
      'api-key': { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  const [command, ...rest] = positionals;
  if (values.help || command === undefined || command === 'help') return USAGE;
  if (values['api-key'] !== undefined && values.url === undefined) throw new UsageError('--api-key goes with --url');
  const admin = await open(values.url === undefined ? undefined : { url: values.url, apiKey: values['api-key'] });
  try {
    return await runOn(admin, command, rest, values);
  } finally {
    await admin.close();
  }
}

async function runOn(
  admin: UserAdmin,
  command: string,
  rest: string[],
  values: { role?: string; name?: string; json?: boolean },
): Promise<string> {
  switch (command) {
    case 'add': {
      const [email, password] = expectArgs(rest, 1, 2, 'add <email> [password]');
      const role = parseRole(values.role ?? 'reader');
      const user = await admin.add({
        email,
        password: password ?? (await readPassword(`Password for ${email}`)),
        role,
        fullName: values.name ?? null,
      });
      return `Added ${describe(user)}`;
    }
    case 'set-role': {
      const [email, role] = expectArgs(rest, 2, 2, 'set-role <email> <admin|reader>');
      return `Updated ${describe(await admin.setRole(email, parseRole(role)))}`;
    }
    case 'deactivate':
    case 'activate': {
      const [email] = expectArgs(rest, 1, 1, `${command} <email>`);
      return `Updated ${describe(await admin.setActive(email, command === 'activate'))}`;
    }
    case 'reset-password': {
      const [email, password] = expectArgs(rest, 1, 2, 'reset-password <email> [password]');
      const user = await admin.resetPassword(email, password ?? (await readPassword(`New password for ${email}`)));
      return `Password reset for ${describe(user)}`;
    }
    case 'grant': {
      const [email, collection, access] = expectArgs(rest, 3, 3, 'grant <email> <collection> <r|rw>');
      if (access !== 'r' && access !== 'rw')
        throw new UsageError(`access must be r or rw, not ${JSON.stringify(access)}`);
      return `Updated ${describe(await admin.grant(email, { collection, access }))}`;
    }
    case 'revoke': {
      const [email, collection] = expectArgs(rest, 2, 2, 'revoke <email> <collection>');
      return `Updated ${describe(await admin.revoke(email, collection))}`;
    }
    case 'list': {
      expectArgs(rest, 0, 0, 'list [--json]');
      const users = await admin.list();
      if (values.json) return JSON.stringify(users, null, 2);
      return users.length === 0 ? 'No users' : users.map(describe).join('\n');
    }
    default:
      throw new UsageError(`unknown command ${JSON.stringify(command)}\n\n${USAGE}`);
  }
}

function expectArgs(args: string[], min: number, max: number, usage: string): string[] {
  if (args.length < min || args.length > max) throw new UsageError(`usage: npm run user -- ${usage}`);
  return args;
}

function parseRole(value: string): Role {
  if (!isRole(value)) throw new UsageError(`role must be admin or reader, not ${JSON.stringify(value)}`);
  return value;
}

function describe(user: PublicUser): string {
  const name = user.full_name ? ` (${user.full_name})` : '';
  const grants = user.collections
    ? ` collections=${user.collections.map((grant) => `${grant.collection}:${grant.access}`).join(',')}`
    : '';
  return `${user.email}${name} role=${user.role}${grants} ${user.is_active ? 'active' : 'inactive'} id=${user.id} created=${user.created_at}`;
}
