import { JsonObject } from '@vectorstore/common';
import { writeFileAtomic } from '@vectorstore/persistence';
import * as path from 'node:path';
import { deserialize, serialize } from 'node:v8';
import { PointId } from '../../model/point-id.model';
import { PayloadIndexSet } from '../../payload-index/payload-index-set';
import { DiskPayloads, PayloadFileLayout } from '../disk-payloads';
import { checksumOf, FileChecksum, RunningChecksum } from '../file-checksum';
import { SegmentFile } from '../segment-file';
import { SegmentDiskLayout, segmentProfile } from '../segment-layout';
import { VectorSpace } from '../vector-space';
import { DenseSegmentVectors } from '../vectors/dense-vectors';
import { createSegmentVectors, loadSegmentVectors } from '../vectors/vector-store-factory';
import { IdTracker } from './id-tracker';
import { PayloadSizes } from './payload-sizes';
import { FilePayloads, MemoryPayloads, PayloadStore } from './payload-store';
import { SegmentParts } from './segment-parts';
import { forEachLivePayload } from './segment-filter';
import { VectorStores } from './vector-stores';

/** What a segment is besides its parts: saved in its body with them. */
export interface SegmentHeader {
  id: string;
  appendable: boolean;
  /** Largest op number applied to the segment. */
  version: number;
  /** {@link segmentProfile} of an optimizer-built segment. */
  profile: string | undefined;
  /** Size and checksum of each file the segment keeps data in (`<id>.vec`, `<id>.pay`), as written. */
  sideFiles?: readonly FileChecksum[];
}

/** A segment body (`<id>.<version>.seg`) as v8 serializes it. */
interface SegmentBody {
  id: string;
  /** {@link segmentProfile} of an optimizer-built segment. */
  profile?: string;
  appendable: boolean;
  version: number;
  ids: PointId[];
  versions: number[];
  /** In-memory payloads, or where they are in the segment's payload file with their JSON sizes. */
  payloads?: Array<JsonObject | undefined>;
  payloadFile?: PayloadFileLayout & { sizes: Uint32Array };
  deleted: Uint8Array;
  vectors: Array<{ name: string; bytes: Uint8Array }>;
  payloadIndexes: Uint8Array;
  /**
   * Checksums of the vector and payload files, taken as they were written; the shard's manifest records them too
   * and opening checks them. Absent in bodies written before checksums.
   */
  sideFiles?: FileChecksum[];
}

/** The whole segment as one body; {@link loadSegment} restores it. */
export function saveSegment(header: SegmentHeader, parts: SegmentParts): Uint8Array {
  const vectors = [...parts.vectors.entries()].map(([name, store]) => ({ name, bytes: store.save() }));
  return serialize(bodyOf(header, parts, vectors));
}

/**
 * The body of a freshly built immutable segment with the parts `layout` names moved to files of its
 * own in `dir` (`<id>.vec`, `<id>.pay`, written and fsynced here), and the profile it is built with.
 * {@link loadSegment} opens those files from the body. The segment must not be used afterwards.
 */
export async function saveSegmentToDisk(
  header: SegmentHeader,
  parts: SegmentParts,
  dir: string,
  layout: SegmentDiskLayout,
): Promise<{ bytes: Uint8Array; profile: string }> {
  if (header.appendable) throw new Error(`segment ${header.id}: only immutable segments keep data on disk`);
  const vectorFile = `${header.id}.vec`;
  const sideFiles: FileChecksum[] = [];
  const rows: Array<() => Uint8Array> = [];
  let offset = 0;
  const vectors = [...parts.vectors.entries()].map(([name, store]) => {
    if (!layout.vectors.has(name) || !(store instanceof DenseSegmentVectors)) return { name, bytes: store.save() };
    const external = store.saveExternal(vectorFile, offset);
    rows.push(external.rows);
    offset += external.rowsBytes;
    return { name, bytes: external.bytes };
  });
  // one space's rows at a time: exported, checksummed, written, let go
  if (rows.length > 0) {
    const checksum = new RunningChecksum(vectorFile);
    await writeFileAtomic(
      path.join(dir, vectorFile),
      (function* () {
        for (const next of rows) yield checksum.add(next());
      })(),
    );
    sideFiles.push(checksum.result());
  }
  let payloadFile: PayloadFileLayout | undefined;
  if (layout.payloads) {
    if (!(parts.payloads instanceof MemoryPayloads))
      throw new Error(`segment ${header.id}: payloads are on disk already`);
    const { body, offsets } = DiskPayloads.encode(parts.payloads.all(), parts.ids.size);
    payloadFile = { file: `${header.id}.pay`, offsets };
    await writeFileAtomic(path.join(dir, payloadFile.file), body);
    sideFiles.push(checksumOf(payloadFile.file, body));
  }
  const profile = segmentProfile(parts.vectors.spaces(), layout);
  return { bytes: serialize(bodyOf({ ...header, profile, sideFiles }, parts, vectors, payloadFile)), profile };
}

/** `payloadFile`: where payloads were just written; absent, they stay where they are. */
function bodyOf(
  header: SegmentHeader,
  parts: SegmentParts,
  vectors: SegmentBody['vectors'],
  payloadFile = parts.payloads instanceof FilePayloads ? parts.payloads.layout : undefined,
): SegmentBody {
  const { ids, versions, deleted } = parts.ids.saved();
  const common = {
    id: header.id,
    profile: header.profile,
    appendable: header.appendable,
    version: header.version,
    ids,
    versions,
    deleted,
    vectors,
    payloadIndexes: parts.payloadIndexes.toBytes(),
    ...(header.sideFiles?.length ? { sideFiles: [...header.sideFiles] } : {}),
  };
  if (!payloadFile) return { ...common, payloads: (parts.payloads as MemoryPayloads).all() };
  return { ...common, payloadFile: { ...payloadFile, sizes: parts.payloadSizes.table(ids.length) } };
}

/** A segment restored from its body, with the files it keeps data in opened from `dir`. */
export function loadSegment(
  bytes: Uint8Array,
  spaces: Map<string, VectorSpace>,
  dir?: string,
): { header: SegmentHeader; parts: SegmentParts; files: SegmentFile[]; unconfiguredVectors: string[] } {
  const body = deserialize(bytes) as SegmentBody;
  const files = new Map<string, SegmentFile>();
  const openFile = (name: string): SegmentFile => {
    if (dir === undefined)
      throw new Error(`segment ${body.id} keeps data in ${name}, but no folder was given to open it from`);
    let file = files.get(name);
    if (!file) files.set(name, (file = SegmentFile.open(path.join(dir, name))));
    return file;
  };
  try {
    const parts = restoreParts(body, spaces, openFile);
    const header = {
      id: body.id,
      appendable: body.appendable,
      version: body.version,
      profile: body.profile,
      sideFiles: body.sideFiles ?? [],
    };
    // Vectors of names the collection no longer has (deleted while this file was not yet written again): not
    // loaded, and the caller has the segment written again without them.
    const unconfiguredVectors = body.vectors.map((v) => v.name).filter((name) => !spaces.has(name));
    return { header, parts, files: [...files.values()], unconfiguredVectors };
  } catch (error) {
    for (const file of files.values()) file.close();
    throw error;
  }
}

function restoreParts(
  body: SegmentBody,
  spaces: Map<string, VectorSpace>,
  openFile: (name: string) => SegmentFile,
): SegmentParts {
  const ids = IdTracker.restore(body.ids, body.versions, body.deleted);
  let payloads: PayloadStore;
  let payloadSizes: PayloadSizes;
  if (body.payloadFile) {
    const { sizes, ...layout } = body.payloadFile;
    payloads = new FilePayloads(layout, new DiskPayloads(openFile(layout.file), layout.offsets));
    payloadSizes = new PayloadSizes(Array.from(sizes));
    for (let slot = 0; slot < ids.size; slot++) if (!ids.isDeleted(slot)) payloadSizes.countLive(slot);
  } else {
    payloads = new MemoryPayloads(body.payloads ?? []);
    payloadSizes = new PayloadSizes();
    for (let slot = 0; slot < ids.size; slot++) if (!ids.isDeleted(slot)) payloadSizes.set(slot, payloads.get(slot));
  }
  const payloadIndexes = PayloadIndexSet.fromBytes(body.payloadIndexes, (visit) =>
    forEachLivePayload({ ids, payloads }, visit),
  );
  const vectors = new VectorStores();
  const saved = new Map(body.vectors.map((v) => [v.name, v.bytes]));
  for (const [name, space] of spaces) {
    const bytesOf = saved.get(name);
    // A vector space added since the segment was written starts empty.
    vectors.add(
      name,
      bytesOf ? loadSegmentVectors(space, bytesOf, openFile) : createSegmentVectors(space, !body.appendable),
    );
  }
  return { ids, payloads, payloadSizes, vectors, payloadIndexes };
}
