import { type CollectionTab, collectionHref } from '../router';

const TABS: readonly { tab?: CollectionTab; label: string }[] = [
  { tab: undefined, label: 'Overview' },
  { tab: 'points', label: 'Points' },
  { tab: 'query', label: 'Query' },
  { tab: 'map', label: 'Map' },
  { tab: 'quality', label: 'Search quality' },
  { tab: 'snapshots', label: 'Snapshots' },
];

/** The breadcrumb and the tabs of a collection's pages. */
export function CollectionNav({ name, current }: { name: string; current?: CollectionTab }) {
  return (
    <>
      <nav class="crumbs" aria-label="Breadcrumb">
        <a href="#/collections">Collections</a> / <strong data-testid="collection-title">{name}</strong>
      </nav>
      <nav class="tabs" aria-label={`Pages of ${name}`}>
        {TABS.map(({ tab, label }) => (
          <a key={label} href={collectionHref(name, tab)} aria-current={tab === current ? 'page' : undefined}>
            {label}
          </a>
        ))}
      </nav>
    </>
  );
}
