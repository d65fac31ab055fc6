import { collectionHref } from '../router';

const TABS = [
  { tab: undefined, label: 'Overview' },
  { tab: 'points', label: 'Points' },
  { tab: 'query', label: 'Query' },
] as const;

/** The breadcrumb and the tabs of a collection's pages. */
export function CollectionNav({ name, current }: { name: string; current?: 'points' | 'query' }) {
  return (
    <>
      <nav class="crumbs">
        <a href="#/collections">Collections</a> / <strong data-testid="collection-title">{name}</strong>
      </nav>
      <nav class="tabs">
        {TABS.map(({ tab, label }) => (
          <a key={label} href={collectionHref(name, tab)} aria-current={tab === current ? 'page' : undefined}>
            {label}
          </a>
        ))}
      </nav>
    </>
  );
}
