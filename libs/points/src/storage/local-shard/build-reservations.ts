import { removeSideFiles } from './segment-files';

/**
 * Segments being built by the optimizer: their vector and payload files are on disk before any
 * manifest lists them, so they are kept from being removed as unlisted until the build ends.
 */
export class BuildReservations {
  private readonly building = new Set<string>();

  constructor(private readonly segmentsDir: string) {}

  reserve(id: string): void {
    this.building.add(id);
  }

  has(id: string): boolean {
    return this.building.has(id);
  }

  ids(): string[] {
    return [...this.building];
  }

  /** Ends the reservation; the build's files go too unless `keepFiles` (its segment is listed). */
  async release(id: string, keepFiles: boolean): Promise<void> {
    this.building.delete(id);
    if (!keepFiles) await removeSideFiles(this.segmentsDir, id);
  }
}
