import { useEffect, useRef, useState } from 'preact/hooks';
import { request, stringifyJson } from '../api/http';
import type { Json, Point } from '../api/types';
import { CollectionNav } from '../ui/collection-nav';
import { FilterEditor } from '../ui/filter-editor';
import { messageOf } from '../ui/hooks';
import { parseFilter } from '../ui/parse';
import { type UmapOptions, umapOptionProblems } from '../map-worker/umap-options';
import { colourKeys, OTHER_COLOUR, pca2 } from '../ui/pca';
import { vectorOf } from '../ui/quality';
import { startUmap } from '../ui/umap-runner';
import { pointHref } from '../router';
import { ErrorText, Field, JsonView } from '../ui/widgets';

const SIZE = 560;
const PAD = 12;
const MAX_SAMPLE = 5000;

type Projection = 'pca' | 'umap';

interface MapData {
  points: Point[];
  /** The points' vectors, in order: what UMAP projects when asked after the first paint. */
  vectors: number[][];
  pca: [number, number][];
  /** The UMAP layout once the worker gave it, and the options it was computed with. */
  umap?: { xy: [number, number][]; options: UmapOptions };
  colours: string[];
  legend: { key: string; count: number; colour: string }[];
}

/** A running UMAP: the neighbour search (no progress inside it), then epochs done of total. */
type UmapProgress = 'neighbours' | { done: number; total: number };

/** The text a payload field's value is coloured by (`—` when the point has none). */
function keyOf(point: Point, field: string): string {
  const value = field === '' ? undefined : (point.payload ?? {})[field];
  return value === undefined || value === null ? '—' : typeof value === 'string' ? value : stringifyJson(value);
}

/** UMAP's options from the form's text, or the problem of each field (by the input's name). */
function parseUmapOptions(text: { neighbours: string; minDist: string; seed: string }): {
  options?: UmapOptions;
  problems: Record<string, string>;
} {
  // An empty field is NaN, not 0.
  const number = (value: string): number => (value.trim() === '' ? NaN : Number(value));
  const options = { nNeighbors: number(text.neighbours), minDist: number(text.minDist), seed: number(text.seed) };
  const found = umapOptionProblems(options);
  const problems: Record<string, string> = {};
  if (found.nNeighbors) problems.neighbours = found.nNeighbors;
  if (found.minDist) problems.min_dist = found.minDist;
  if (found.seed) problems.seed = found.seed;
  return Object.keys(problems).length > 0 ? { problems } : { options, problems };
}

/**
 * A 2-D map of a random sample of the collection's vectors (up to 5 000, with a filter), each point coloured by a
 * payload field. PCA paints at once; UMAP, when chosen, runs in a worker (map-worker.js, loaded only then) and
 * redraws the same points when it ends. Hover or arrow keys show a point's payload; a selected point opens, and
 * "Neighbours" draws lines to its nearest points (those in the sample).
 */
export function MapPage({ name }: { name: string }) {
  const [sampleSize, setSampleSize] = useState('1000');
  const [using, setUsing] = useState('');
  const [colourBy, setColourBy] = useState('');
  const [filterText, setFilterText] = useState('');
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [map, setMap] = useState<MapData>();
  const [busy, setBusy] = useState(false);
  const [selected, setSelected] = useState<number>();
  const [hovered, setHovered] = useState<number>();
  const [neighbours, setNeighbours] = useState<{ inSample: number[]; outside: number }>();
  const [projection, setProjection] = useState<Projection>('pca');
  const [umapText, setUmapText] = useState({ neighbours: '15', minDist: '0.1', seed: '42' });
  const [umapProgress, setUmapProgress] = useState<UmapProgress>();
  const cancelUmap = useRef<(() => void) | undefined>(undefined);

  const stopUmap = (): void => {
    cancelUmap.current?.();
    cancelUmap.current = undefined;
    setUmapProgress(undefined);
  };
  // Leaving the page ends the worker.
  useEffect(() => () => cancelUmap.current?.(), []);

  /** Starts UMAP on the map's sample (ending a run under way); its layout replaces PCA's when it ends. */
  const runUmap = (data: MapData, options: UmapOptions): void => {
    stopUmap();
    setErrors((e) => ({ ...e, umap: '' }));
    setUmapProgress('neighbours');
    cancelUmap.current = startUmap(data.vectors, options, {
      onProgress: setUmapProgress,
      onDone: (xy) => {
        cancelUmap.current = undefined;
        setUmapProgress(undefined);
        // Another sample drawn meanwhile cancelled this run; the check keeps a late answer off it all the same.
        setMap((current) => (current?.points === data.points ? { ...current, umap: { xy, options } } : current));
      },
      onError: (message) => {
        cancelUmap.current = undefined;
        setUmapProgress(undefined);
        setErrors((e) => ({ ...e, umap: message }));
      },
    });
  };

  /** UMAP with the form's options, unless a field is wrong (then its error shows). */
  const umapOptionsOrShow = (): UmapOptions | undefined => {
    const { options, problems } = parseUmapOptions(umapText);
    setErrors((e) => ({ ...e, neighbours: '', min_dist: '', seed: '', ...problems }));
    return options;
  };

  const chooseProjection = (chosen: Projection): void => {
    setProjection(chosen);
    if (chosen === 'pca') return stopUmap();
    const options = umapOptionsOrShow();
    if (map && options && !map.umap) runUmap(map, options);
  };

  const colour = (points: Point[], field: string): Pick<MapData, 'colours' | 'legend'> => {
    const keys = points.map((p) => keyOf(p, field));
    const legend = colourKeys(keys);
    const byKey = new Map(legend.map((l) => [l.key, l.colour]));
    return { colours: keys.map((k) => byKey.get(k) ?? OTHER_COLOUR), legend };
  };

  const draw = async (event: Event): Promise<void> => {
    event.preventDefault();
    const size = Number(sampleSize);
    const filter = parseFilter(filterText);
    const problems: Record<string, string> = {};
    if (!Number.isInteger(size) || size < 2 || size > MAX_SAMPLE)
      problems.sample = `A whole number from 2 to ${MAX_SAMPLE}`;
    if (filter.error) problems.filter = filter.error;
    const umap = projection === 'umap' ? parseUmapOptions(umapText) : { problems: {} };
    Object.assign(problems, umap.problems);
    setErrors(problems);
    if (Object.keys(problems).length > 0) return;
    stopUmap();
    setBusy(true);
    setSelected(undefined);
    setNeighbours(undefined);
    try {
      const answer = await request<{ points: Point[] }>(
        'POST',
        `/collections/${encodeURIComponent(name)}/points/query`,
        {
          query: { sample: 'random' },
          limit: size,
          filter: filter.filter,
          with_payload: true,
          with_vector: true,
        },
      );
      const points = answer.points.filter((p) => {
        const v = vectorOf(p, using.trim());
        return Array.isArray(v) && v.every((x) => typeof x === 'number');
      });
      if (points.length === 0) throw new Error('No sampled point has a dense vector of that name.');
      const vectors = points.map((p) => vectorOf(p, using.trim()) as number[]);
      if (vectors.some((v) => v.length !== vectors[0].length))
        throw new Error('The sampled vectors differ in length: name one vector with "Vector name".');
      const data: MapData = { points, vectors, pca: pca2(vectors), ...colour(points, colourBy.trim()) };
      setMap(data);
      if (umap.options) runUmap(data, umap.options);
    } catch (error) {
      setMap(undefined);
      setErrors({ form: messageOf(error) });
    } finally {
      setBusy(false);
    }
  };

  const showNeighbours = async (): Promise<void> => {
    if (!map || selected === undefined) return;
    try {
      const answer = await request<{ points: Point[] }>(
        'POST',
        `/collections/${encodeURIComponent(name)}/points/query`,
        {
          query: map.points[selected].id as Json,
          using: using.trim() === '' ? undefined : using.trim(),
          limit: 10,
        },
      );
      const index = new Map(map.points.map((p, i) => [String(p.id), i]));
      const inSample = answer.points.map((p) => index.get(String(p.id))).filter((i): i is number => i !== undefined);
      setNeighbours({ inSample, outside: answer.points.length - inSample.length });
    } catch (error) {
      setErrors({ form: messageOf(error) });
    }
  };

  // UMAP's layout once chosen and computed; PCA's until then.
  const shown: Projection = projection === 'umap' && map?.umap ? 'umap' : 'pca';
  // Screen coordinates: both axes scaled alike, so distances on the map keep their proportions.
  const screen = (() => {
    if (!map) return [];
    const xy = shown === 'umap' && map.umap ? map.umap.xy : map.pca;
    const xs = xy.map((p) => p[0]);
    const ys = xy.map((p) => p[1]);
    const [minX, maxX, minY, maxY] = [Math.min(...xs), Math.max(...xs), Math.min(...ys), Math.max(...ys)];
    const scale = (SIZE - 2 * PAD) / Math.max(maxX - minX, maxY - minY, 1e-12);
    return xy.map(([x, y]) => [PAD + (x - minX) * scale, SIZE - PAD - (y - minY) * scale] as const);
  })();
  const projectedBy = (() => {
    if (shown === 'pca') return umapProgress ? 'PCA until UMAP ends' : 'PCA';
    const { nNeighbors, minDist, seed } = map!.umap!.options;
    return `UMAP (${nNeighbors} neighbours, minimum distance ${minDist}, seed ${seed})`;
  })();
  const focus = hovered ?? selected;
  const onKey = (event: KeyboardEvent): void => {
    if (!map) return;
    const n = map.points.length;
    if (event.key === 'ArrowRight' || event.key === 'ArrowDown') setSelected((i) => ((i ?? -1) + 1) % n);
    else if (event.key === 'ArrowLeft' || event.key === 'ArrowUp') setSelected((i) => ((i ?? 0) - 1 + n) % n);
    else if (event.key === 'Enter' && selected !== undefined) location.hash = pointHref(name, map.points[selected].id);
    else return;
    event.preventDefault();
    setNeighbours(undefined);
  };

  return (
    <section>
      <CollectionNav name={name} current="map" />
      <form class="card" data-testid="map-form" onSubmit={(event) => void draw(event)} novalidate>
        <div class="row">
          <Field label={`Sample size (random points, up to ${MAX_SAMPLE})`} name="sample" error={errors.sample}>
            <input
              name="sample"
              inputMode="numeric"
              value={sampleSize}
              onInput={(e) => setSampleSize(e.currentTarget.value)}
            />
          </Field>
          <Field label="Vector name (empty: the default)" name="using">
            <input name="using" value={using} onInput={(e) => setUsing(e.currentTarget.value)} />
          </Field>
          <Field label="Colour by payload field" name="colour_by">
            <input
              name="colour_by"
              value={colourBy}
              placeholder="e.g. city"
              onInput={(e) => {
                setColourBy(e.currentTarget.value);
                if (map) setMap({ ...map, ...colour(map.points, e.currentTarget.value.trim()) });
              }}
            />
          </Field>
        </div>
        <div class="row">
          <Field label="Projection" name="projection">
            <select
              name="projection"
              value={projection}
              onChange={(e) => chooseProjection(e.currentTarget.value as Projection)}
            >
              <option value="pca">PCA (at once)</option>
              <option value="umap">UMAP (in the background)</option>
            </select>
          </Field>
          {projection === 'umap' ? (
            <>
              <Field label="UMAP neighbours" name="neighbours" error={errors.neighbours}>
                <input
                  name="neighbours"
                  inputMode="numeric"
                  value={umapText.neighbours}
                  onInput={(e) => setUmapText({ ...umapText, neighbours: e.currentTarget.value })}
                />
              </Field>
              <Field label="UMAP minimum distance (0 to 1)" name="min_dist" error={errors.min_dist}>
                <input
                  name="min_dist"
                  inputMode="decimal"
                  value={umapText.minDist}
                  onInput={(e) => setUmapText({ ...umapText, minDist: e.currentTarget.value })}
                />
              </Field>
              <Field label="UMAP seed" name="seed" error={errors.seed}>
                <input
                  name="seed"
                  inputMode="numeric"
                  value={umapText.seed}
                  onInput={(e) => setUmapText({ ...umapText, seed: e.currentTarget.value })}
                />
              </Field>
            </>
          ) : null}
        </div>
        <FilterEditor value={filterText} onChange={setFilterText} serverError={errors.filter} />
        <ErrorText message={errors.form} testId="map-error" />
        <div class="actions">
          <button type="submit" class="primary" disabled={busy}>
            {busy ? 'Drawing…' : 'Draw map'}
          </button>
          {map && projection === 'umap' && !umapProgress ? (
            <button
              type="button"
              data-testid="map-umap-rerun"
              onClick={() => {
                const options = umapOptionsOrShow();
                if (options) runUmap(map, options);
              }}
            >
              Run UMAP again (same sample)
            </button>
          ) : null}
        </div>
      </form>
      {umapProgress ? (
        <div class="card umap-progress" data-testid="map-umap-progress">
          <progress
            aria-label="UMAP projection"
            max={umapProgress === 'neighbours' ? undefined : umapProgress.total}
            value={umapProgress === 'neighbours' ? undefined : umapProgress.done}
          />{' '}
          <span>
            {umapProgress === 'neighbours'
              ? "UMAP: finding each point's nearest neighbours…"
              : `UMAP: epoch ${umapProgress.done} of ${umapProgress.total}`}
          </span>{' '}
          <button type="button" data-testid="map-umap-cancel" onClick={stopUmap}>
            Cancel
          </button>
        </div>
      ) : null}
      <ErrorText message={errors.umap} testId="map-umap-error" />
      {map ? (
        <div class="card map" data-testid="map-result">
          <p class="muted" data-testid="map-summary" aria-live="polite">
            {map.points.length} points, projected by {projectedBy}. Arrow keys select a point, Enter opens it.
          </p>
          <div class="row">
            <svg
              viewBox={`0 0 ${SIZE} ${SIZE}`}
              width={SIZE}
              height={SIZE}
              role="img"
              tabindex={0}
              aria-label={`Map of ${map.points.length} points`}
              data-testid="map-svg"
              data-projection={shown}
              onKeyDown={onKey}
            >
              {neighbours && selected !== undefined
                ? neighbours.inSample.map((i) => (
                    <line
                      key={`n${i}`}
                      class="neighbour"
                      data-id={String(map.points[i].id)}
                      x1={screen[selected][0]}
                      y1={screen[selected][1]}
                      x2={screen[i][0]}
                      y2={screen[i][1]}
                      stroke="#111827"
                      stroke-opacity="0.6"
                    />
                  ))
                : null}
              {map.points.map((point, i) => (
                <circle
                  key={String(point.id)}
                  class={i === selected ? 'dot selected' : 'dot'}
                  data-id={String(point.id)}
                  cx={screen[i][0].toFixed(1)}
                  cy={screen[i][1].toFixed(1)}
                  r={i === selected ? 6 : 3.5}
                  fill={map.colours[i]}
                  stroke={i === selected ? '#111827' : 'none'}
                  onMouseEnter={() => setHovered(i)}
                  onMouseLeave={() => setHovered(undefined)}
                  onClick={() => {
                    setSelected(i);
                    setNeighbours(undefined);
                  }}
                >
                  <title>{`${String(point.id)}: ${stringifyJson(point.payload ?? null)}`}</title>
                </circle>
              ))}
            </svg>
            <div>
              <h3>Colours{colourBy.trim() ? ` by ${colourBy.trim()}` : ''}</h3>
              <ul class="legend" data-testid="map-legend">
                {map.legend.slice(0, 10).map((entry) => (
                  <li key={entry.key}>
                    <svg width="10" height="10" aria-hidden="true">
                      <circle cx="5" cy="5" r="5" fill={entry.colour} />
                    </svg>{' '}
                    <span class="legend-key">{entry.key}</span> <span class="muted">({entry.count})</span>
                  </li>
                ))}
                {map.legend.length > 10 ? <li class="muted">{map.legend.length - 10} more values, grey</li> : null}
              </ul>
              {focus !== undefined ? (
                <div data-testid="map-point">
                  <h3>
                    Point <code>{String(map.points[focus].id)}</code>
                  </h3>
                  <JsonView value={map.points[focus].payload ?? null} />
                </div>
              ) : null}
              {selected !== undefined ? (
                <div class="actions">
                  <a class="button" href={pointHref(name, map.points[selected].id)} data-testid="map-open">
                    Open point
                  </a>
                  <button type="button" data-testid="map-neighbours" onClick={() => void showNeighbours()}>
                    Neighbours
                  </button>
                </div>
              ) : null}
              {neighbours ? (
                <p class="muted" data-testid="map-neighbours-summary">
                  {neighbours.inSample.length} of the 10 nearest are in the sample
                  {neighbours.outside > 0 ? ` (${neighbours.outside} outside it)` : ''}.
                </p>
              ) : null}
            </div>
          </div>
        </div>
      ) : null}
    </section>
  );
}
