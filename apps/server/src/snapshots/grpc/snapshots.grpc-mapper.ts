import type { SnapshotDescription } from '@vectorstore/snapshots';
import type { SnapshotDescription as ProtoSnapshotDescription } from '../../grpc/generated/vectorstore/SnapshotDescription';

/** A snapshot as gRPC shows it: `creation_time` (UTC `YYYY-MM-DDTHH:MM:SS`) as a Timestamp. */
export function snapshotDescriptionToProto(description: SnapshotDescription): ProtoSnapshotDescription {
  const millis = description.creation_time === null ? NaN : Date.parse(`${description.creation_time}Z`);
  return {
    name: description.name,
    ...(Number.isNaN(millis) ? {} : { creationTime: { seconds: String(Math.floor(millis / 1000)), nanos: 0 } }),
    size: String(description.size),
    ...(description.checksum !== undefined ? { checksum: description.checksum } : {}),
  };
}
