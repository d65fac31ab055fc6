import { PayloadIndexParams, PayloadSchemaType } from '@vectorstore/collections';

/** A payload index a shard keeps on a field, in every segment. */
export interface FieldIndexSchema {
  type: PayloadSchemaType;
  params?: PayloadIndexParams;
}
