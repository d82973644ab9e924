interface Link<T> {
  value: T | null;
  previous: Link<T> | null;
  next: Link<T> | null;
}

const LINK = Symbol('linked-set.link');

type Linkable<T> = T & { [LINK]?: Link<T> };

/**
 * The part of `Set` a registry of what is in flight uses (add, delete, has, clear, size, iteration),
 * kept as a doubly linked list: each member holds its own link, so delete is O(1) without a hash
 * table, and a removed link is cleared at once, holding nothing.
 *
 * Why not a `Set`: a long-lived `Set` or `Map` that concurrent operations join and leave makes V8
 * keep what its members reference alive through young-generation collections until the next full
 * mark-compact (bench/README.md, "What was cut", 12). A member belongs to at most one `LinkedSet`.
 */
export class LinkedSet<T extends object> implements Iterable<T> {
  private first: Link<T> | null = null;
  private last: Link<T> | null = null;
  private count = 0;

  constructor(values: Iterable<T> = []) {
    for (const value of values) this.add(value);
  }

  get size(): number {
    return this.count;
  }

  has(value: T): boolean {
    return (value as Linkable<T>)[LINK]?.value === value;
  }

  add(value: T): this {
    if (this.has(value)) return this;
    const link: Link<T> = { value, previous: this.last, next: null };
    if (this.last) this.last.next = link;
    else this.first = link;
    this.last = link;
    (value as Linkable<T>)[LINK] = link;
    this.count += 1;
    return this;
  }

  delete(value: T): boolean {
    const link = (value as Linkable<T>)[LINK];
    if (!link || link.value !== value) return false;
    if (link.previous) link.previous.next = link.next;
    else this.first = link.next;
    if (link.next) link.next.previous = link.previous;
    else this.last = link.previous;
    link.value = link.previous = link.next = null;
    (value as Linkable<T>)[LINK] = undefined;
    this.count -= 1;
    return true;
  }

  clear(): void {
    for (const value of this.snapshot()) this.delete(value);
  }

  /** The members at the time of the call: deleting any of them while iterating (ending a session does) skips none. */
  [Symbol.iterator](): IterableIterator<T> {
    return this.snapshot()[Symbol.iterator]();
  }

  private snapshot(): T[] {
    const values: T[] = [];
    for (let link = this.first; link; link = link.next) values.push(link.value as T);
    return values;
  }
}
