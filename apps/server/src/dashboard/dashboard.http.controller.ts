import { All, Controller, Param, Req, Res } from '@nestjs/common';
import { Public } from '@vectorstore/auth';
import type { Request, Response } from 'express';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { setDashboardHeaders } from './dashboard-headers';

/** Where `npm run build` puts the bundle: `dist/dashboard`, beside this file's `dist/apps/server/src/dashboard`. */
export const DASHBOARD_DIR = join(__dirname, '..', '..', '..', '..', 'dashboard');

/** Asset names the build writes: flat, lower-case, with a known extension. Nothing else is ever read. */
const ASSET_NAME = /^[a-z0-9][a-z0-9.-]*\.(?:js|css|svg)$/;

const isRead = (request: Request): boolean => request.method === 'GET' || request.method === 'HEAD';

/**
 * The web dashboard (docs/dashboard.md): static files, open without a credential, as the page that asks for one.
 * Its data comes from the REST API like any other client's. Hash routing keeps every page at `/dashboard`.
 *
 * Two routes that no path shares (`/dashboard` and `/dashboard/*path`), each taking every verb: anything the
 * dashboard does not serve (a deep link such as `/dashboard/collections/x`, a POST) is a 404 with the dashboard's
 * headers. Without them such a path is unknown to the router and answers like an API path, a plain-text 401.
 */
@Controller('dashboard')
@Public()
export class DashboardHttpController {
  @All()
  index(@Req() request: Request, @Res() response: Response): void {
    setDashboardHeaders(response);
    if (!isRead(request)) return notFound(response);
    // The page names its bundle; it must never be a stale copy.
    response.setHeader('Cache-Control', 'no-cache');
    this.send(response, 'index.html');
  }

  /** Express 5 gives the segments after `/dashboard/`, decoded; an asset is exactly one. */
  @All('*path')
  asset(@Req() request: Request, @Param('path') path: string[], @Res() response: Response): void {
    setDashboardHeaders(response);
    const [asset, ...rest] = path;
    if (!isRead(request) || rest.length > 0 || !ASSET_NAME.test(asset)) return notFound(response);
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

function notFound(response: Response): void {
  response.status(404).type('text/plain').send('Not found');
}
