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
import { DomainError } from '@vectorstore/common';
import { promises as fs } from 'node:fs';
import { Operation } from '@vectorstore/auth';
import type { SnapshotDescription } from '@vectorstore/snapshots';
import type { Response } from 'express';
import { RawRestResponse } from '../core/rest/rest-envelope';
import { RestQuery } from '../core/rest/rest-query';
import { answerSnapshotWork, snapshotFile } from './rest/snapshot-answers';
import { readTextParam, recoverFromRest } from './rest/snapshots.rest-mapper';
import { UploadQueryInterceptor } from './rest/upload-query.interceptor';
import { SnapshotsService } from '@vectorstore/snapshots';
import { HttpController } from '../core/rest/http-controller.decorator';

/** Qdrant's full snapshot routes (`/snapshots`): every collection and the aliases in one archive. */
@HttpController('snapshots')
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

  /**
   * Not in Qdrant (which restores a full snapshot only at start, from a command-line flag): restores
   * every collection of a full snapshot and its aliases; answers the restored collections' names.
   */
  @Operation('Snapshots/RecoverFull')
  @RawRestResponse()
  @Put('recover')
  recover(
    @Body() body: unknown,
    @Query() query: RestQuery,
    @Res({ passthrough: true }) response: Response,
  ): Promise<string> {
    const { location, priority, checksum, apiKey } = recoverFromRest('', body);
    return answerSnapshotWork(query, response, () =>
      this.snapshots.recoverFull({ location, priority, checksum, apiKey }),
    );
  }

  /** As {@link recover}, from a multipart upload (field `snapshot`, `?checksum`). Not in Qdrant. */
  @Operation('Snapshots/UploadFull')
  @RawRestResponse()
  @HttpCode(HttpStatus.OK)
  @Post('upload')
  @UseInterceptors(UploadQueryInterceptor, FileInterceptor('snapshot'))
  async upload(
    @UploadedFile() file: { path: string } | undefined,
    @Query() query: RestQuery,
    @Res({ passthrough: true }) response: Response,
  ): Promise<string> {
    if (file === undefined) throw DomainError.invalidArgument('Bad request: the form has no `snapshot` file');
    const checksum = readTextParam(query, 'checksum');
    return answerSnapshotWork(query, response, async () => {
      try {
        return await this.snapshots.restoreFullArchive(file.path, checksum, false);
      } finally {
        await fs.rm(file.path, { force: true });
      }
    });
  }
}
