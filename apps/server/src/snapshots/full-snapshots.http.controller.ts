import { Controller, Delete, Get, HttpCode, HttpStatus, Param, Post, Query, Res, StreamableFile } from '@nestjs/common';
import { Operation } from '@vectorstore/auth';
import type { SnapshotDescription } from '@vectorstore/snapshots';
import type { Response } from 'express';
import { RawRestResponse } from '../core/rest/rest-envelope.interceptor';
import { RestQuery } from '../core/rest/rest-query';
import { answerSnapshotWork, snapshotFile } from './rest/snapshot-answers';
import { SnapshotsService } from '@vectorstore/snapshots';

/** Qdrant's full snapshot routes (`/snapshots`): every collection and the aliases in one archive. */
@Controller('snapshots')
export class FullSnapshotsHttpController {
  constructor(private readonly snapshots: SnapshotsService) {}

  @Operation('Snapshots/CreateFull')
  @RawRestResponse()
  @HttpCode(HttpStatus.OK)
  @Post()
  create(@Query() query: RestQuery, @Res({ passthrough: true }) response: Response): Promise<string> {
    return answerSnapshotWork(query, response, () => this.snapshots.createFull());
  }

  @Operation('Snapshots/ListFull')
  @Get()
  list(): Promise<SnapshotDescription[]> {
    return this.snapshots.listFull();
  }

  @Operation('Snapshots/DownloadFull')
  @RawRestResponse()
  @Get(':snapshot_name')
  async download(@Param('snapshot_name') snapshot: string): Promise<StreamableFile> {
    return snapshotFile(await this.snapshots.downloadFull(snapshot));
  }

  @Operation('Snapshots/DeleteFull')
  @RawRestResponse()
  @Delete(':snapshot_name')
  delete(
    @Param('snapshot_name') snapshot: string,
    @Query() query: RestQuery,
    @Res({ passthrough: true }) response: Response,
  ): Promise<string> {
    return answerSnapshotWork(query, response, async () => {
      await this.snapshots.deleteFull(snapshot);
      return true;
    });
  }
}
