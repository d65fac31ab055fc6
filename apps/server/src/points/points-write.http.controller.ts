import { Body, HttpCode, Post, Put, Query } from '@nestjs/common';
import { Operation } from '@vectorstore/auth';
import { PointsWriter } from '@vectorstore/points';
import { RestQuery } from '../core/rest/rest-query';
import { batchFromRest, updateResultToRest, WriteKind, writeFromRest } from './rest/points-write.rest-mapper';
import { HttpController } from '../core/rest/http-controller.decorator';
import { CollectionNameParam } from '../core/rest/collection-name.param';

/** Point writes: `/collections/{c}/points` (PUT), `…/delete`, `…/vectors`, `…/payload`, `…/batch`. */
@HttpController('collections/:collection_name/points')
export class PointsWriteHttpController {
  constructor(private readonly writer: PointsWriter) {}

  private async write(name: string, kind: WriteKind, body: unknown, query: RestQuery): Promise<unknown> {
    return updateResultToRest(await this.writer.update(name, writeFromRest(kind, body, query)));
  }

  @Operation('Points/Upsert')
  @Put()
  upsert(@CollectionNameParam() c: string, @Body() body: unknown, @Query() q: RestQuery): Promise<unknown> {
    return this.write(c, 'upsert', body, q);
  }

  @Operation('Points/Delete')
  @Post('delete')
  @HttpCode(200)
  delete(@CollectionNameParam() c: string, @Body() body: unknown, @Query() q: RestQuery): Promise<unknown> {
    return this.write(c, 'delete', body, q);
  }

  @Operation('Points/UpdateVectors')
  @Put('vectors')
  updateVectors(@CollectionNameParam() c: string, @Body() body: unknown, @Query() q: RestQuery): Promise<unknown> {
    return this.write(c, 'update_vectors', body, q);
  }

  @Operation('Points/DeleteVectors')
  @Post('vectors/delete')
  @HttpCode(200)
  deleteVectors(@CollectionNameParam() c: string, @Body() body: unknown, @Query() q: RestQuery): Promise<unknown> {
    return this.write(c, 'delete_vectors', body, q);
  }

  @Operation('Points/SetPayload')
  @Post('payload')
  @HttpCode(200)
  setPayload(@CollectionNameParam() c: string, @Body() body: unknown, @Query() q: RestQuery): Promise<unknown> {
    return this.write(c, 'set_payload', body, q);
  }

  @Operation('Points/OverwritePayload')
  @Put('payload')
  overwritePayload(@CollectionNameParam() c: string, @Body() body: unknown, @Query() q: RestQuery): Promise<unknown> {
    return this.write(c, 'overwrite_payload', body, q);
  }

  @Operation('Points/DeletePayload')
  @Post('payload/delete')
  @HttpCode(200)
  deletePayload(@CollectionNameParam() c: string, @Body() body: unknown, @Query() q: RestQuery): Promise<unknown> {
    return this.write(c, 'delete_payload', body, q);
  }

  @Operation('Points/ClearPayload')
  @Post('payload/clear')
  @HttpCode(200)
  clearPayload(@CollectionNameParam() c: string, @Body() body: unknown, @Query() q: RestQuery): Promise<unknown> {
    return this.write(c, 'clear_payload', body, q);
  }

  @Operation('Points/UpdateBatch')
  @Post('batch')
  @HttpCode(200)
  async batch(@CollectionNameParam() c: string, @Body() body: unknown, @Query() q: RestQuery): Promise<unknown> {
    const { writes, wait, ordering, timeout } = batchFromRest(body, q);
    const results = await this.writer.updateBatch(
      c,
      writes.map((w) => w.operation),
      { wait, ordering, timeout, shardKeySelectors: writes.map((w) => w.shardKeySelector) },
    );
    return results.map(updateResultToRest);
  }
}
