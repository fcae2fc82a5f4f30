import { onDestroy } from 'svelte';
import { messageOf } from '../api';
import type { ImageCache } from './imagecache';

/** A stored image as a component shows it: its URL once read, or why it could not be. */
export interface CachedImage {
  /** The image's object URL; '' until it is read. */
  readonly url: string;
  /** Why it could not be read; '' if it could. */
  readonly failed: string;
}

/**
 * The stored image with an id, read through the cache and held while the
 * component that calls this is shown (call it as the component starts; a
 * component shows one image: another is another component): a thumbnail
 * and the full-size view share one read and one URL.
 */
export function cachedImage(cache: ImageCache, id: string): CachedImage {
  let url = $state('');
  let failed = $state('');
  const use = cache.use(id);
  let live = true;
  use.image.then(
    (s) => live && (url = s.url),
    (err) => live && (failed = messageOf(err)),
  );
  onDestroy(() => {
    live = false;
    use.release();
  });
  return {
    get url() {
      return url;
    },
    get failed() {
      return failed;
    },
  };
}
