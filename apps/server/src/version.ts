import { execFileSync } from 'node:child_process';

/** Qdrant's title, which clients and Qdrant's own tests compare exactly (`GET /`, gRPC HealthCheck). */
export const SERVER_TITLE = 'qdrant - vector search engine';
/** The Qdrant API version we are compatible with. The Qdrant client warns unless major versions match and minors are within 1. */
export const SERVER_VERSION = '1.19.0';

/** The git commit of this build (40 hex digits, as Qdrant reports its own); zeros outside a checkout. */
export const SERVER_COMMIT = resolveCommit();

function resolveCommit(): string {
  const fromEnv = process.env.VECTORSTORE_COMMIT;
  if (fromEnv && /^[0-9a-f]{40}$/.test(fromEnv)) return fromEnv;
  try {
    const head = execFileSync('git', ['rev-parse', 'HEAD'], { cwd: __dirname, stdio: ['ignore', 'pipe', 'ignore'] })
      .toString()
      .trim();
    if (/^[0-9a-f]{40}$/.test(head)) return head;
  } catch {
    // not a git checkout, or no git: fall through
  }
  return '0'.repeat(40);
}
