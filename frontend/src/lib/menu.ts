// The keys of a menu button (WAI-ARIA APG "Menu Button"): the button
// opens its menu on Enter, Space or Down with the first item focused, on
// Up with the last; in the menu Down and Up move round the items, Home and
// End go to the first and last, Escape closes it and gives focus back to
// the button, and Tab closes it and goes on. Items are tabindex -1, so the
// menu costs one Tab stop.

/** The enabled items of a menu, in order. */
export function menuItems(menu: HTMLElement): HTMLElement[] {
  return [...menu.querySelectorAll<HTMLElement>('[role="menuitem"]:not([disabled]):not([aria-disabled="true"])')];
}

/** Which item a key moves to from the focused one, or null for a key the menu does not use. */
export function menuTarget(key: string, items: readonly HTMLElement[], at: Element | null): HTMLElement | null {
  if (items.length === 0) return null;
  const i = items.indexOf(at as HTMLElement);
  switch (key) {
    case 'ArrowDown':
      return items[(i + 1) % items.length]!;
    case 'ArrowUp':
      return items[(i < 0 ? 0 : i - 1 + items.length) % items.length]!;
    case 'Home':
    case 'PageUp':
      return items[0]!;
    case 'End':
    case 'PageDown':
      return items[items.length - 1]!;
  }
  return null;
}

export type MenuKeyResult = 'moved' | 'close' | 'leave' | null;

/**
 * Handles a key pressed in an open menu: moves focus and returns 'moved';
 * 'close' for Escape (the caller closes and focuses the button), 'leave'
 * for Tab (the caller closes; focus goes on). Other keys return null and
 * are left alone.
 */
export function menuKey(e: KeyboardEvent, menu: HTMLElement): MenuKeyResult {
  if (e.altKey || e.ctrlKey || e.metaKey) return null;
  if (e.key === 'Escape') {
    e.preventDefault();
    e.stopPropagation();
    return 'close';
  }
  if (e.key === 'Tab') return 'leave';
  const to = menuTarget(e.key, menuItems(menu), document.activeElement);
  if (!to) return null;
  e.preventDefault();
  to.focus();
  return 'moved';
}
