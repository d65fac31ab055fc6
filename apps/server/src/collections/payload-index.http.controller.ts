import { Body, Delete, Param, Put, Query } from '@nestjs/common';
import { Operation } from '@vectorstore/auth';
import { PointsWriter } from '@vectorstore/points';
import { RestQuery } from '../core/rest/rest-query';
import {
  createFieldIndexFromRest,
  deleteFieldIndexFromRest,
  updateResultToRest,
} from './rest/payload-index.rest-mapper';
import { HttpController } from '../core/rest/http-controller.decorator';
import { CollectionNameParam } from '../core/rest/collection-name.param';

/** Payload field indexes: `PUT /collections/{c}/index`, `DELETE /collections/{c}/index/{field}`. */
@HttpController('collections/:collection_name/index')
export class PayloadIndexHttpController {
  constructor(private readonly writer: PointsWriter) {}

  @Operation('Points/CreateFieldIndex')
  @Put()
  async create(
    @CollectionNameParam() name: string,
    @Body() body: unknown,
    @Query() query: RestQuery,
  ): Promise<unknown> {
    return updateResultToRest(await this.writer.update(name, createFieldIndexFromRest(body, query)));
  }

  @Operation('Points/DeleteFieldIndex')
  @Delete(':field_name')
  async delete(
    @CollectionNameParam() name: string,
    @Param('field_name') field: string,
    @Query() query: RestQuery,
  ): Promise<unknown> {
    return updateResultToRest(await this.writer.update(name, deleteFieldIndexFromRest(field, query)));
  }
}
