import { Get, Query } from '@nestjs/common';
import { Operation } from '@vectorstore/auth';
import { OptimizationsReporter, optimizationsOptions } from '@vectorstore/points';
import { queryFormatError } from '../core/rest/rest-format.error';
import { readUintParam, RestQuery } from '../core/rest/rest-query';
import { optimizationsToRest } from './rest/optimizations.rest-mapper';
import { HttpController } from '../core/rest/http-controller.decorator';
import { CollectionNameParam } from '../core/rest/collection-name.param';

/** `GET /collections/{c}/optimizations?with=queued,completed,idle_segments&completed_limit=N` (REST only, as Qdrant). */
@HttpController('collections/:collection_name/optimizations')
export class OptimizationsHttpController {
  constructor(private readonly reporter: OptimizationsReporter) {}

  @Operation('Collections/Optimizations')
  @Get()
  get(@CollectionNameParam() name: string, @Query() query: RestQuery): Record<string, unknown> {
    const withFields = query.with;
    if (withFields !== undefined && typeof withFields !== 'string')
      throw queryFormatError('with', 'expected a single value');
    const options = optimizationsOptions(withFields, readUintParam(query, 'completed_limit'));
    return optimizationsToRest(this.reporter.report(name, options));
  }
}
