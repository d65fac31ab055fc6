import { parseJson, stringifyJson } from '@vectorstore/common';
import { readFileIfExists, writeFileAtomic } from '@vectorstore/persistence';
import { randomBytes } from 'node:crypto';
import * as path from 'node:path';

const NODE_FILE = 'node.json';

/**
 * This node's peer id: a random non-zero u64 made once and kept in the data folder, as Qdrant
 * persists its peer id even when standalone. Kept as a decimal string so it stays exact.
 */
export async function loadOrCreatePeerId(dataDir: string): Promise<string> {
  const filePath = path.join(dataDir, NODE_FILE);
  const text = await readFileIfExists(filePath);
  if (text !== undefined) {
    const stored = parseJson(text) as { peerId?: unknown };
    if (typeof stored.peerId === 'bigint' && stored.peerId > 0n) return stored.peerId.toString();
    throw new Error(`${filePath}: peerId is missing or invalid`);
  }
  let peerId = 0n;
  while (peerId === 0n) peerId = randomBytes(8).readBigUInt64BE();
  await writeFileAtomic(filePath, stringifyJson({ peerId, createdAt: new Date().toISOString() }, 2));
  return peerId.toString();
}

export const PEER_ID = Symbol('PEER_ID');
