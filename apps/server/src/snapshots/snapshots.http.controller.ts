import {
  Body,
  Delete,
  Get,
  HttpCode,
  HttpStatus,
  Param,
  Post,
  Put,
  Query,
  Res,
  StreamableFile,
  UploadedFile,
  UseInterceptors,
} from '@nestjs/common';
import { FileInterceptor } from '@nestjs/platform-express';
import { Operation } from '@vectorstore/auth';
import { DomainError } from '@vectorstore/common';
import { promises as fs } from 'node:fs';
import type { SnapshotDescription, SnapshotPriority } from '@vectorstore/snapshots';
import type { Response } from 'express';
import { RawRestResponse } from '../core/rest/rest-envelope';
import { RestQuery } from '../core/rest/rest-query';
import { answerSnapshotWork, snapshotFile } from './rest/snapshot-answers';
import { readTextParam, recoverFromRest } from './rest/snapshots.rest-mapper';
import { UploadQueryInterceptor } from './rest/upload-query.interceptor';
import { SnapshotsService } from '@vectorstore/snapshots';
import { HttpController } from '../core/rest/http-controller.decorator';
import { CollectionNameParam } from '../core/rest/collection-name.param';

/**
 * Qdrant's collection snapshot routes. `?wait` defaults to true here (as in Qdrant); `wait=false`
 * answers 202 `{"result": null, "status": "accepted"}` at once and the work goes on.
 */
@HttpController('collections/:collection_name/snapshots')
export class SnapshotsHttpController {
  constructor(private readonly snapshots: SnapshotsService) {}

  @Operation('Snapshots/Create')
  @RawRestResponse()
  @HttpCode(HttpStatus.OK)
  @Post()
  create(
    @CollectionNameParam() name: string,
    @Query() query: RestQuery,
    @Res({ passthrough: true }) response: Response,
  ): Promise<string> {
    return answerSnapshotWork(query, response, () => this.snapshots.create(name));
  }

  @Operation('Snapshots/List')
  @Get()
  list(@CollectionNameParam() name: string): Promise<SnapshotDescription[]> {
    return this.snapshots.list(name);
  }

  @Operation('Snapshots/Recover')
  @RawRestResponse()
  @Put('recover')
  recover(
    @CollectionNameParam() name: string,
    @Body() body: unknown,
    @Query() query: RestQuery,
    @Res({ passthrough: true }) response: Response,
  ): Promise<string> {
    const request = recoverFromRest(name, body);
    return answerSnapshotWork(query, response, async () => {
      await this.snapshots.recover(request);
      return true;
    });
  }

  /**
   * A multipart upload (field `snapshot`), streamed to a work file by multer (see the feature
   * module), then restored like a recover: `?priority`, `?checksum` (the archive is not refused
   * for lacking one: the manifest's per-file sha256 still check it).
   */
  @Operation('Snapshots/Upload')
  @RawRestResponse()
  @HttpCode(HttpStatus.OK)
  @Post('upload')
  @UseInterceptors(UploadQueryInterceptor, FileInterceptor('snapshot'))
  async upload(
    @CollectionNameParam() name: string,
    @UploadedFile() file: { path: string } | undefined,
    @Query() query: RestQuery,
    @Res({ passthrough: true }) response: Response,
  ): Promise<string> {
    if (file === undefined) throw DomainError.invalidArgument('Bad request: the form has no `snapshot` file');
    const remove = (): Promise<void> => fs.rm(file.path, { force: true });
    const checksum = readTextParam(query, 'checksum');
    const priority = readTextParam(query, 'priority') as SnapshotPriority | undefined;
    return answerSnapshotWork(query, response, async () => {
      try {
        await this.snapshots.restoreArchive(name, file.path, checksum, false, priority);
      } finally {
        await remove();
      }
      return true;
    });
  }

  @Operation('Snapshots/Download')
  @RawRestResponse()
  @Get(':snapshot_name')
  async download(
    @CollectionNameParam() name: string,
    @Param('snapshot_name') snapshot: string,
  ): Promise<StreamableFile> {
    return snapshotFile(await this.snapshots.download(name, snapshot));
  }

  @Operation('Snapshots/Delete')
  @RawRestResponse()
  @Delete(':snapshot_name')
  delete(
    @CollectionNameParam() name: string,
    @Param('snapshot_name') snapshot: string,
    @Query() query: RestQuery,
    @Res({ passthrough: true }) response: Response,
  ): Promise<string> {
    return answerSnapshotWork(query, response, async () => {
      await this.snapshots.delete(name, snapshot);
      return true;
    });
  }
}
