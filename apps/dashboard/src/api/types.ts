/** The parts of Qdrant's REST answers the dashboard reads. Everything else is shown as JSON as it came. */

/** A u64 (a `bigint` above 2^53, see `parseJson`) or a UUID. */
export type PointId = number | bigint | string;
export type Json = null | boolean | number | bigint | string | Json[] | { [key: string]: Json };

export interface CollectionInfo {
  status: 'green' | 'yellow' | 'grey' | 'red' | string;
  optimizer_status?: Json;
  points_count?: number | null;
  indexed_vectors_count?: number | null;
  segments_count?: number;
  config: {
    params: { vectors?: Json; sparse_vectors?: Json; shard_number?: number; replication_factor?: number } & Record<
      string,
      Json | undefined
    >;
    hnsw_config?: Json;
    optimizer_config?: Json;
    wal_config?: Json;
    quantization_config?: Json;
    strict_mode_config?: Json;
  } & Record<string, Json | undefined>;
  payload_schema?: Record<string, { data_type?: string; params?: Json; points?: number }>;
}

export interface Point {
  id: PointId;
  payload?: Record<string, Json> | null;
  vector?: Json;
  score?: number;
  version?: number;
}

export interface ScrollResult {
  points: Point[];
  next_page_offset?: PointId | null;
}

export interface Alias {
  alias_name: string;
  collection_name: string;
}

export interface ShardInfo {
  shard_id: number;
  points_count?: number;
  state?: string;
  peer_id?: number;
  shard_key?: Json;
}

export interface CollectionClusterInfo {
  peer_id: number;
  shard_count: number;
  local_shards: ShardInfo[];
  remote_shards: ShardInfo[];
  shard_transfers: Json[];
  resharding_operations?: Json[];
}
