import { Controller, Get, Param, Res } from '@nestjs/common';
import { Public } from '@vectorstore/auth';
import type { Response } from 'express';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { setDashboardHeaders } from './dashboard-headers';

/** Where `npm run build` puts the bundle: `dist/dashboard`, beside this file's `dist/apps/server/src/dashboard`. */
export const DASHBOARD_DIR = join(__dirname, '..', '..', '..', '..', 'dashboard');

/** Asset names the build writes: flat, lower-case, with a known extension. Nothing else is ever read. */
const ASSET_NAME = /^[a-z0-9][a-z0-9.-]*\.(?:js|css|svg)$/;

/**
 * The web dashboard (docs/dashboard.md): static files, open without a credential, as the page that asks for one.
 * Its data comes from the REST API like any other client's. Hash routing keeps every page at `/dashboard`.
 */
@Controller('dashboard')
@Public()
export class DashboardHttpController {
  @Get()
  index(@Res() response: Response): void {
    setDashboardHeaders(response);
    // The page names its bundle; it must never be a stale copy.
    response.setHeader('Cache-Control', 'no-cache');
    this.send(response, 'index.html');
  }

  @Get(':asset')
  asset(@Param('asset') asset: string, @Res() response: Response): void {
    setDashboardHeaders(response);
    if (!ASSET_NAME.test(asset)) {
      response.status(404).type('text/plain').send('Not found');
      return;
    }
    response.setHeader('Cache-Control', 'no-cache');
    this.send(response, asset);
  }

  private send(response: Response, file: string): void {
    if (!existsSync(join(DASHBOARD_DIR, file))) {
      response
        .status(404)
        .type('text/plain')
        .send(file === 'index.html' ? 'The dashboard is not built: run `npm run build`.' : 'Not found');
      return;
    }
    // `root` confines the read to the bundle folder; the name was checked above anyway.
    response.sendFile(file, { root: DASHBOARD_DIR, dotfiles: 'deny' });
  }
}
