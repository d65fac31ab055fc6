import {
  checkSealedJson,
  DamagedFileError,
  describeSealCheck,
  parseJson,
  sealJson,
  stringifyJson,
} from '@vectorstore/common';
import { readFileIfExists, removeStaleTemporaryFiles, writeFileAtomic } from '@vectorstore/persistence';
import { randomBytes } from 'node:crypto';
import * as path from 'node:path';

const NODE_FILE = 'node.json';

interface NodeFile {
  peerId: bigint;
  createdAt: string;
}

/**
 * This node's peer id: a random non-zero u64 made once and kept in `<dataDir>/node.json`, as Qdrant persists its
 * peer id even when standalone. Kept as a JSON integer read exactly (a bigint), with a checksum of the file's
 * content; a file of the previous version (no checksum) is read and rewritten with one.
 *
 * A damaged node.json stops the start with one line naming it: in cluster mode the peer id is how the others know
 * this peer and which replicas are its own, so a new one would orphan them; standalone it only names snapshots, and
 * the advice says that removing the file is then harmless.
 */
export async function loadOrCreatePeerId(dataDir: string): Promise<string> {
  const filePath = path.join(dataDir, NODE_FILE);
  await removeStaleTemporaryFiles(dataDir, NODE_FILE);
  const text = await readFileIfExists(filePath);
  if (text !== undefined) {
    const read = parseNodeFile(filePath, text);
    if (read instanceof DamagedFileError)
      throw read.withAdvice(
        'put node.json back from a backup; in cluster mode it must hold this peer\'s id, as {"peerId": <id>} ' +
          "(GET /cluster on another peer lists it by this peer's address); standalone, removing it is harmless " +
          '(a new id is made, and only the names of new snapshots change)',
      );
    if (!read.sealed) await writeNodeFile(filePath, read.node);
    return read.node.peerId.toString();
  }
  let peerId = 0n;
  while (peerId === 0n) peerId = randomBytes(8).readBigUInt64BE();
  await writeNodeFile(filePath, { peerId, createdAt: new Date().toISOString() });
  return peerId.toString();
}

/** Written atomically, indented, with the checksum of its compact form as the last field. */
function writeNodeFile(filePath: string, node: NodeFile): Promise<void> {
  return writeFileAtomic(
    filePath,
    `${stringifyJson(
      sealJson(node, (value) => stringifyJson(value)),
      2,
    )}\n`,
  );
}

/** The node file in `text` (`sealed` false for one written before checksums), or what is wrong with it. */
function parseNodeFile(filePath: string, text: string): { node: NodeFile; sealed: boolean } | DamagedFileError {
  let parsed: unknown;
  try {
    parsed = parseJson(text);
  } catch (error) {
    return new DamagedFileError(filePath, `not valid JSON (${(error as Error).message})`);
  }
  const check = checkSealedJson(parsed, (value) => stringifyJson(value));
  if (check.state === 'mismatch' || check.state === 'malformed')
    return new DamagedFileError(filePath, describeSealCheck(check));
  const { peerId, createdAt } = parsed as { peerId?: unknown; createdAt?: unknown };
  if (typeof peerId !== 'bigint' || peerId <= 0n || peerId >= 1n << 64n)
    return new DamagedFileError(filePath, 'peerId is missing or not a u64 above 0');
  return {
    node: { peerId, createdAt: typeof createdAt === 'string' ? createdAt : new Date().toISOString() },
    sealed: check.state === 'valid',
  };
}

export const PEER_ID = Symbol('PEER_ID');
