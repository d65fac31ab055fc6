// Names of the work entries made in the snapshots work folder, so startup can remove exactly those.

/** Extraction folders of the reader: `extract-XXXXXX`. */
export const EXTRACTION_PREFIX = 'extract-';
/** Downloads in progress: `download-<random>.part`. */
export const DOWNLOAD_PREFIX = 'download-';
export const DOWNLOAD_SUFFIX = '.part';
