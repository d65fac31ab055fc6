import { Body, Delete, Param, Put, Query } from '@nestjs/common';
import { Operation } from '@vectorstore/auth';
import { UpdateStatus, VectorNameOperations } from '@vectorstore/points';
import { readWait, readWriteTimeout, RestQuery } from '../core/rest/rest-query';
import { defined } from '../core/scalars';
import { createVectorNameFromRest } from './rest/vector-names.rest-mapper';
import { HttpController } from '../core/rest/http-controller.decorator';
import { CollectionNameParam } from '../core/rest/collection-name.param';

const STATUS_NAMES: Record<UpdateStatus, string> = {
  Acknowledged: 'acknowledged',
  Completed: 'completed',
  WaitTimeout: 'wait_timeout',
};

/** A schema change has no operation number of its own: `operation_id` is null, as in Qdrant. */
function result(status: UpdateStatus): { operation_id: null; status: string } {
  return { operation_id: null, status: STATUS_NAMES[status] };
}

/** Named vectors: `PUT` and `DELETE /collections/{c}/vectors/{vector_name}`. */
@HttpController('collections/:collection_name/vectors/:vector_name')
export class VectorNamesHttpController {
  constructor(private readonly vectorNames: VectorNameOperations) {}

  @Operation('Points/CreateVectorName')
  @Put()
  async create(
    @CollectionNameParam() collectionName: string,
    @Param('vector_name') vectorName: string,
    @Body() body: unknown,
    @Query() query: RestQuery,
  ): Promise<unknown> {
    const { request, wait } = createVectorNameFromRest(collectionName, vectorName, body, query);
    return result(await this.vectorNames.create(request, wait));
  }

  @Operation('Points/DeleteVectorName')
  @Delete()
  async delete(
    @CollectionNameParam() collectionName: string,
    @Param('vector_name') vectorName: string,
    @Query() query: RestQuery,
  ): Promise<unknown> {
    const wait = readWait(query);
    const request = defined({ collectionName, vectorName, timeout: readWriteTimeout(query) });
    return result(await this.vectorNames.delete(request, wait));
  }
}
